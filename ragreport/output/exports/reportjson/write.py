"""The report document: what ``report.json`` and ``ragreport score --format json`` hold (the data contract)."""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .... import __version__
from ....analysis.limits import run_date
from ....analysis.summary import Status, distinct_label_sets, judgment_map, report_fingerprints, report_judgments
from ....core.ids import as_text, first_appearance
from ....core.model import SCHEMA
from ....reading.irds import dataset_record
from ....scoring.catalogue import READ
from ....scoring.condensed import following
from ...site.headline import headline
from ...site.wording import comparison as say
from ...site.wording import sources as say_sources
from .migrate import pack, packed_dtype
from .sampled import sampled_document, sampled_rows, sampling

if TYPE_CHECKING:
    from ....analysis.audit import Audit
    from ....analysis.compare import ComparisonReport
    from ....analysis.limits import Limit
    from ....analysis.pipeline import Analysis
    from ....analysis.scores import ExternalScores
    from ....analysis.slices import SliceReport
    from ....analysis.summary import RunSummary
    from ..gates import GateResult, GateRules


def _number(value: Any) -> Any:
    """JSON-ready number: NaN becomes null, numpy scalars become Python ones."""
    if value is None:
        return None
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


PARTS = ("mean", "low", "high")
DELTA = "delta low high"


def _numbers(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _number(value) for key, value in values.items()}


def _fields(item: Any, names: str) -> dict[str, Any]:
    """The attributes ``names`` (space-separated) of ``item``, JSON-ready, in that order."""
    return {name: _number(getattr(item, name)) for name in names.split()}


def _band(figure: Sequence[Any], names: str = "mean low high") -> dict[str, Any]:
    return dict(zip(names.split(), map(_number, figure)))


def run_document(
    summary: RunSummary,
    tables: Tables,
    run_limits: Sequence[Limit] = (),
    today: _dt.date | None = None,
) -> dict[str, Any]:
    """One run's entry of the report document (the schema of ``ragreport/4``): query ids, document
    ids and statuses as indices into ``tables`` (the report's top-level ``query_ids``, ``doc_ids``
    and ``statuses``)."""
    judged, k, conventions = summary.judged, summary.k, summary.conventions

    def figure(interval: Any, **more: Any) -> dict[str, Any]:
        return {**_fields(interval, "mean low high"), "interval": interval.method.value, **more}

    metrics = {}
    for cutoff in summary.cutoffs:
        for metric in summary.scores.metrics:  # every figure, Judged@K too: render reads it back
            label = metric.label(cutoff)
            convention, trec_eval = metric.convention(cutoff, conventions), metric.trec_eval_name(cutoff)
            metrics[label] = figure(summary.at_k[label], convention=convention, trec_eval=trec_eval)
            if metric in READ and summary.reading_at:
                metrics[label]["readings"] = {name: _number(means[label]) for name, means in summary.reading_at.items()}
    grades = int(judged.judgment_grades.max(initial=1))
    measures = {}
    for i, measure in enumerate(summary.measures):
        entry = measures[measure.label()] = figure(
            summary.measure_at[measure.label()],
            trec_eval=measure.trec_eval_name(conventions),
            ir_measures=measure.spelled("ir_measures", conventions),
            ranx=measure.spelled("ranx", conventions),
            convention=measure.convention(conventions, k, grades),
        )
        if measure.metric.geometric is not None:
            entry["mean_of"] = "geometric"  # the mean over queries is geometric (gm_map)
        if measure.is_count:
            entry["total"] = summary.measure_total(i)

    sweep: dict[str, Any] = {"k": [int(c) for c in summary.sweep.cutoffs]}
    for metric in summary.scores.metrics:
        sweep[metric.key] = {part: [_number(v) for v in getattr(summary.sweep, part)[metric.key]] for part in PARTS}

    dataset = dataset_record(judged.judgments_source)
    return {
        "name": summary.name,
        "k": k,
        "cutoffs": list(summary.cutoffs),
        "date": run_date(summary, today or _dt.date.today()).isoformat(),
        "source": say_sources.shown_source(judged.source),
        "meta": judged.meta.as_dict(),
        "conventions": conventions.as_dict(),
        "convention_text": {name: choice.meaning for name, choice in conventions.choices()},
        "counts": summary.counts.as_dict(),
        "fingerprints": {"queries": summary.query_fingerprint, "labels": summary.label_fingerprint},
        "metrics": metrics,
        "measures": measures,
        "sweep": sweep,
        "limits": [limit.as_dict() for limit in run_limits],
        "queries": dict(_query_columns(summary, tables)),
        "lists": tables.lists[summary.name],
        # a multi-hop run's figures after each hop (RAG JSONL steps) and ``ends``, each query's list
        # length after each hop in the order of ``queries``, which render reads back; absent for one step
        **(
            {"steps": {**summary.steps.as_dict(), "ends": judged.steps.tolist()}}
            if summary.steps is not None and judged.steps is not None
            else {}
        ),
        # judgments read by ir_datasets id: the dataset and ir_datasets' version
        **({} if dataset is None else {"judgments_from": dataset}),
        # bands from the Poisson sums (--engine stream or dask, docs/conventions.md section 29),
        # which render draws again alike; absent for the in-memory bootstrap
        **({"bootstrap": "poisson"} if summary.sums is not None else {}),
    }


@dataclass(frozen=True)
class Tables:
    """What report.json writes once for all its runs (``ragreport/4``, docs/conventions.md sections
    22.4 and 22.13): every query id with its index (``query_index``, in order of first appearance
    over the runs' rows, then the judgments), every document id (``doc_ids``: the runs' stored lists,
    the judged ids that follow them, then the judgments) and the statuses; each run's ``lists`` by
    name (:func:`report_tables`) and each label set as indices into them; ``dtype`` the packed
    indices' width."""

    query_index: dict[str, int]
    doc_ids: list[str]
    lists: dict[str, dict[str, Any]]
    judgments: list[dict[str, Any]]
    dtype: str


STATUSES = [status.label for status in Status]
_STATUS_INDEX = {status: i for i, status in enumerate(Status)}
_EXCLUDED = _STATUS_INDEX[Status.EXCLUDED]


def _all_ids(heads: Sequence[np.ndarray], judged: Sequence[np.ndarray | list[str]]) -> np.ndarray:
    """The runs' stored ids and the judged ones, end to end, as bytes when the runs' are (their
    sort is the faster), else as text."""
    if all(h.dtype.kind == "S" for h in heads):
        parts = [d if isinstance(d, np.ndarray) and d.dtype.kind == "S" else _as_bytes(d) for d in judged]
        return np.concatenate([*heads, *parts])
    text = [h.astype(np.str_) if h.dtype.kind != "S" else np.array(as_text(h), dtype=np.str_) for h in heads]
    other = [np.array(as_text(d) if isinstance(d, np.ndarray) else d, dtype=np.str_) for d in judged]
    return np.concatenate([*text, *other]) if text or other else np.zeros(0, dtype=np.str_)


def _as_bytes(ids: np.ndarray | list[str]) -> np.ndarray:
    texts = as_text(ids) if isinstance(ids, np.ndarray) else ids
    return np.array([d.encode("utf-8") for d in texts], dtype="S")


@dataclass(frozen=True)
class LabelColumns:
    """One label set as report.json writes it, in its order: the queries (sorted), each one's
    number of judged ids, the ids (sorted within their query) and their grades, end to end."""

    queries: list[str]
    lengths: list[int]
    ids: np.ndarray | list[str]
    grades: list[int]

    @classmethod
    def of_map(cls, labels: dict[str, dict[str, int]]) -> LabelColumns:
        return cls(
            list(labels),
            [len(marks) for marks in labels.values()],
            [d for marks in labels.values() for d in marks],
            [g for marks in labels.values() for g in marks.values()],
        )


def sorted_labels(judged: Any) -> LabelColumns:
    """A run's label set in the order :func:`~ragreport.analysis.summary.report_judgments` gives
    it (queries sorted, ids sorted within each, every judged query even with no id), taken from the
    judgment arrays by two sorts instead of a dict of dicts: numpy orders text by code point, as
    Python does, and UTF-8 bytes in the same order."""
    queries = np.flatnonzero(judged.has_judgments)
    rank = np.full(judged.n_queries, -1, dtype=np.int64)
    order = queries[np.argsort(judged.query_ids[queries], kind="stable")]
    rank[order] = np.arange(len(order))
    of = rank[judged.judgment_query]
    if len(of) and int(of.min()) < 0:  # a judgment of a query not flagged as judged: as the map does
        return LabelColumns.of_map({q: dict(sorted(g.items())) for q, g in sorted(judgment_map(judged).items())})
    slots = np.lexsort((judged.judgment_doc_ids, of))
    return LabelColumns(
        as_text(judged.query_ids[order]),
        np.bincount(of, minlength=len(order)).tolist(),
        judged.judgment_doc_ids[slots],
        judged.judgment_grades[slots].tolist(),
    )


def report_tables(
    summaries: Sequence[RunSummary], label_sets: Sequence[dict[str, dict[str, int]] | LabelColumns]
) -> Tables:
    """The report's id tables, each run's lists and each label set (``{query: {id: grade}}``) as
    indices into them, the ids of each label set packed (``{"queries": [index], "ids": packed,
    "lengths": [count], "grades": [grade]}``, docs/conventions.md section 22.13).

    A run's ``lists`` hold the top of every list, down to the deepest cutoff asked for (``depth``,
    the report's largest K), with the whole-list facts the rows of ``queries`` do not hold: what
    ``ragreport render`` scores again (report.json keeps no run file). ``ids`` holds the lists end
    to end, in the order of ``queries``, as one packed string of indices into ``doc_ids``;
    ``lengths`` (one per query) only where a list's length is not ``min(retrieved, depth)``;
    ``in_run`` is how many of those queries the run lists (they come first), or one flag per query
    when the run's queries are not the first ones; ``relevant_retrieved`` counts the distinct
    relevant ids of each whole list; ``next_judged`` holds, per query, the judged ids that follow
    the stored top and that condensing it to ``depth`` reads (packed as ``ids``, its ``lengths``
    one per query; section 22.17)."""
    sets = [labels if isinstance(labels, LabelColumns) else LabelColumns.of_map(labels) for labels in label_sets]
    queries = [q for s in summaries for q in s.judged.query_ids.tolist()] + [q for ls in sets for q in ls.queries]
    query_index = {q: i for i, q in enumerate(dict.fromkeys(queries))}
    # The lists stop at the deepest cutoff asked for, K: the sweep past it is read as stored and
    # the condensed reading from the judged ids that follow (docs/conventions.md section 22.17).
    depth = [int(max(s.cutoffs)) for s in summaries]
    cut = [s.judged.head(d) for s, d in zip(summaries, depth)]
    after = [s.following or following(s.judged, d) for s, d in zip(summaries, depth)]
    every = _all_ids([*(c.doc_ids for c in cut), *(a.doc_ids for a in after)], [labels.ids for labels in sets])
    if len(every):
        # Only equality matters to the order of first appearance: ids of up to 8 bytes (NUL is
        # never in an id, so the padding adds none) are compared as one 64-bit word each, a sort
        # of integers instead of byte strings.
        short = every.dtype.kind == "S" and every.dtype.itemsize <= 8
        firsts, index = first_appearance(every.astype("S8").view("<u8") if short else every)
        doc_ids = as_text(every[firsts])
    else:
        doc_ids, index = [], np.zeros(0, dtype=np.int64)
    dtype = packed_dtype(len(doc_ids))
    # ``index`` holds the lists, the ids that follow them, then the label sets, end to end
    sizes = [*(len(c.doc_ids) for c in cut), *(len(a.doc_ids) for a in after), *(len(ls.grades) for ls in sets)]
    parts = np.split(index, np.cumsum(sizes)[:-1])
    n = len(summaries)
    lists = {}
    for s, d, head, next_judged, ids, next_ids in zip(summaries, depth, cut, after, parts, parts[n:]):
        lengths, in_run = np.diff(head.offsets), head.in_run
        n_run = int(in_run.sum())
        lists[s.name] = {
            "depth": d,
            "in_run": n_run if bool(in_run[:n_run].all()) else in_run.tolist(),
            "relevant_retrieved": head.relevant_retrieved.tolist(),
            "ids": pack(ids, dtype),
            **({} if np.array_equal(lengths, np.minimum(s.judged.retrieved, d)) else {"lengths": lengths.tolist()}),
            "next_judged": {"ids": pack(next_ids, dtype), "lengths": next_judged.lengths.tolist()},
        }
    judgments = [
        {
            "queries": [query_index[q] for q in labels.queries],
            "ids": pack(ids, dtype),
            "lengths": labels.lengths,
            "grades": labels.grades,
        }
        for labels, ids in zip(sets, parts[2 * n :])
    ]
    return Tables(query_index, doc_ids, lists, judgments, dtype)


def settings_document(analysis: Analysis, title: str | None = None) -> dict[str, Any]:
    """The resolved options of the build that made the report: what ``ragreport render`` (and a
    gate reading report.json) needs to know without being told again. No path of the machine: the
    previous report by its file name only."""
    first = analysis.summaries[0]
    comparison = analysis.comparison
    return {
        "k": list(first.cutoffs),
        "kmax": int(max(first.sweep.cutoffs)),
        "primary": analysis.primary_label,
        "metrics": [
            {
                "key": m.key,
                "cutoff": m.cutoff,
                "gain": None if m.gain is None else m.gain.value,
                "label": m.label(),
                **({"params": dict(m.params)} if m.params else {}),  # only when it sets any
            }
            for m in first.measures
        ],
        "baseline": comparison.baseline if comparison is not None else analysis.baseline,
        "correction": analysis.correction.value,
        "permutations": analysis.permutations,
        "min_effect": analysis.min_effect,
        "conventions": first.conventions.as_dict(),
        "previous": None if analysis.drift is None else analysis.drift.source,
        "slice_by": list(analysis.slices.keys) if analysis.slices is not None else [],
        "today": analysis.today.isoformat(),
        "title": title,
    }


def _query_columns(summary: RunSummary, tables: Tables) -> Iterator[tuple[str, list[Any]]]:
    """The per-query figures as columns, one value per query in the order of ``id`` (indices into
    ``query_ids``, left out when they are 0 .. n - 1; ``scored`` left out when it is ``status !=
    "excluded"``); ``status`` as indices into ``statuses``; a figure null where the query is not
    scored; ``query`` (its text) only when the run has some. Each column is made when it is asked
    for (report.json writes it and lets it go before the next), converted to Python values at once,
    not per cell."""
    judged, scores = summary.judged, summary.scores
    scored = scores.scored.tolist()
    every = all(scored)
    ids = [tables.query_index[q] for q in judged.query_ids.tolist()]
    status = [_STATUS_INDEX[s] for s in summary.status]
    if ids != list(range(len(ids))):
        yield "id", ids
    del ids
    if scored != [s != _EXCLUDED for s in status]:
        yield "scored", scored
    yield "status", status
    yield "relevant", judged.relevant.tolist()
    yield "retrieved", judged.retrieved.tolist()
    yield "repeats", judged.repeats.tolist()
    yield "first_relevant_rank", [r or None for r in scores.first_relevant_rank.tolist()]

    def figures(values: np.ndarray, whole: bool) -> list[Any]:
        cells = (values.astype(np.int64) if whole else values).tolist()
        return cells if every else [v if s else None for v, s in zip(cells, scored)]

    # A measure named as a suite figure is (``R@10``) takes that figure's place, with its own
    # values: each label once, where it first comes, holding the last values given for it.
    named = {chosen.label(): i for i, chosen in enumerate(summary.measures)}

    def measured(i: int) -> list[Any]:
        return figures(summary.measure_values[i], summary.measures[i].metric.kind.whole)

    for cutoff in summary.cutoffs:
        for metric in summary.scores.metrics:
            label = metric.label(cutoff)
            if label in named:
                yield label, measured(named.pop(label))
            else:
                yield label, figures(scores.of(metric, cutoff), metric.kind.whole)
    for label, i in named.items():
        yield label, measured(i)
    if any(text is not None for text in judged.query_text):
        n = len(scored)
        texts = list(judged.query_text[:n])
        yield "query", texts + [None] * (n - len(texts))  # one per query, as the other columns


def comparison_document(comparison: ComparisonReport | None) -> dict[str, Any] | None:
    if comparison is None:
        return None
    # The family is written when --metrics chose it; absent, it is every compared suite metric at K.
    chosen = {"family": list(comparison.labels), "not_compared": [m.label() for m in comparison.left_out]}
    return {
        **(chosen if comparison.named else {}),
        "baseline": comparison.baseline,
        "test": say.TEST_METHOD,
        "permutations": comparison.permutations,
        "band": say.BAND_METHOD,
        "correction": comparison.correction.value,
        "correction_text": comparison.correction.meaning,
        "pairs": [
            {
                "run": rc.run.name,
                "queries": rc.queries,
                "same_labels": rc.same_labels,
                "only_baseline": list(rc.pairing.only_baseline),
                "only_run": list(rc.pairing.only_run),
                # what a reader must know before trusting the pair's comparison
                "notes": say.pair_notes(
                    rc.run.name,
                    rc.baseline.name,
                    rc.queries,
                    rc.pairing.only_baseline,
                    rc.pairing.only_run,
                    rc.same_labels,
                    rc.pairing.judged_apart,
                ),
            }
            for rc in comparison.runs
        ],
        "alpha": round(1.0 - comparison.runs[0].baseline.conventions.confidence, 10),
    }


def report_document(analysis: Analysis, title: str | None = None, every_query: bool = False) -> dict[str, Any]:
    """The whole report document (``schema`` ``ragreport/4``): what report.json holds.

    Top level: ``generator``, ``date`` (the latest run's), ``fingerprints`` of the report's query set
    and label set, ``judgments`` (that label set, ``{query: {id: grade}}``: a run judged against
    another set keeps its own under its ``judgments``), ``relevant_only`` (every run's judgments list
    relevant ids alone), ``primary`` (the metric the report leads
    with, ``nDCG@10``), ``headline`` (per compared run: its primary figure against the baseline's,
    the difference with its band, the corrected p, the verdict and the sentence; for one run its
    figure and band), ``runs``,
    ``comparisons`` (one per run and metric against the baseline; empty for one run), ``comparison``
    (how they were made), ``ranking`` (three or more runs: every pair on the primary metric, each
    run's rank interval and the tiers, :class:`~ragreport.analysis.ranking.Ranking`),
    ``drift`` (null without ``--previous``; its ``basis`` is what it read of
    the previous report), ``gates`` (the checks of ``--fail-on``, ``--require`` and ``--max-drop``;
    empty without them) and ``settings`` (the resolved options, :func:`settings_document`;
    ``title`` is the one given to ``build``). Past PAGE_QUERIES a partitioned build's runs hold the
    sample's rows and ``sampled`` the sums (:mod:`.sampled`), unless ``every_query`` (``-q``'s
    per-query rows).
    """
    shown = None if every_query else sampling(analysis)
    # Past PAGE_QUERIES a partitioned build keeps its sample's rows and the sums (section 29.2);
    # the fingerprints are every query's.
    fingerprints = report_fingerprints(analysis.summaries)
    summaries = analysis.summaries if shown is None else tuple(sampled_rows(s, shown) for s in analysis.summaries)
    listed = None if shown is None else set(shown.ids.tolist())
    # A run judged against other labels than the report's union keeps its own (JSONL runs carry
    # their judgments): a later report's drift then says what changed for it.
    own = {
        s.name: {q: dict(sorted(g.items())) for q, g in sorted(judgment_map(s.judged).items())}
        for s in summaries
        if {"queries": s.query_fingerprint, "labels": s.label_fingerprint} != fingerprints
    }
    distinct = distinct_label_sets(summaries)
    union = sorted_labels(distinct[0].judged) if len(distinct) == 1 else report_judgments(summaries)
    tables = report_tables(summaries, [union, *own.values()])
    runs = [run_document(s, tables, lim, analysis.today) for s, lim in zip(summaries, analysis.limits)]
    if analysis.scores is not None:  # each run's scores computed outside ragreport, beside its own figures
        for run in runs:
            run["scores"] = analysis.scores.run_entries(run["name"])
    for run, labels in zip((r for r in runs if r["name"] in own), tables.judgments[1:]):
        run["judgments"] = labels
    comparisons = analysis.comparison.comparisons if analysis.comparison is not None else ()
    return {
        "schema": SCHEMA,
        "generator": f"ragreport {__version__}",
        "date": max(r["date"] for r in runs),
        "fingerprints": fingerprints,
        "judgments": tables.judgments[0],
        # every run's judgments list relevant ids alone (section 20.2); absent before issue 38,
        # where a render reads the stored judgments again
        "relevant_only": analysis.relevant_only,
        "primary": analysis.primary_label,
        "headline": [_numbers(entry.as_dict()) for entry in headline(analysis)],
        "runs": runs,
        "comparison": comparison_document(analysis.comparison),
        "comparisons": [_numbers(c.as_dict()) for c in comparisons],
        # every pair of three or more runs, their rank intervals and tiers (section 27); absent for
        # fewer runs, and before issue 38. render ranks the runs again from their per-query scores.
        **({"ranking": analysis.ranking.as_dict()} if analysis.ranking is not None else {}),
        "drift": None if analysis.drift is None else _drift_document(analysis.drift.as_dict(), shown is not None),
        "slices": slices_document(analysis.slices),
        "query_meta": _listed(analysis.query_meta, listed),
        **(
            {"query_details": _listed(analysis.query_details, listed)} if analysis.query_details else {}
        ),  # TREC topics' longer text
        "texts": None
        if analysis.doc_texts is None
        else {
            "queries": list(analysis.text_queries),
            "docs": {d: {"title": t[0], "text": t[1]} for d, t in analysis.doc_texts.items()},
        },
        "audit": audit_document(analysis.audit),
        # per-query scores computed outside ragreport (--scores): their file, judges, scales and
        # comparisons; absent without them
        **({} if analysis.scores is None else {"scores": _scores_document(analysis.scores, listed)}),
        "gates": [],
        "settings": settings_document(analysis, title),
        # written once, indexed by the runs and judgments above (docs/conventions.md sections 22.4,
        # 22.13); the packed indices' encoding and width
        "packed": {"encoding": "base64", "dtype": tables.dtype},
        "statuses": STATUSES,
        "query_ids": list(tables.query_index),
        "doc_ids": tables.doc_ids,
        **({} if shown is None else {"sampled": sampled_document(analysis, shown)}),
    }


def _drift_document(drift: dict[str, Any], sampled: bool) -> dict[str, Any]:
    """The drift as report.json keeps it. A sampled report's is read back as stored (section 29.2):
    its basis keeps no previous per-query scores, which only drawing the drift again reads (a
    previous report of a million queries would put them all back)."""
    basis = drift.get("basis")
    if not sampled or not isinstance(basis, dict):
        return drift
    runs = [{k: v for k, v in run.items() if k != "queries"} for run in basis.get("runs", [])]
    return {**drift, "basis": {**basis, "runs": runs}}


def _scores_document(scores: ExternalScores, listed: set[str] | None) -> dict[str, Any]:
    """report.json's ``scores``: a sampled report's values its listed queries' (their figures are
    read as stored, section 29.2)."""
    document = scores.as_dict()
    if listed is not None:
        document["values"] = {run: _listed(by_query, listed) for run, by_query in document["values"].items()}
    return document


def _listed(by_query: Mapping[str, Any] | None, listed: set[str] | None) -> Mapping[str, Any] | None:
    """``by_query`` of the queries report.json lists: every one, or a sampled report's (29.2)."""
    if by_query is None or listed is None:
        return by_query
    return {q: v for q, v in by_query.items() if q in listed}


def audit_document(audit: Audit | None) -> dict[str, Any] | None:
    """The audit of the model's labels (``--audit``; docs/conventions.md section 25): its file's
    name, the agreement figures (a kappa that is undefined as null), the confusion matrix as
    ``{MODEL_GRADE: {HUMAN_GRADE: count}}`` and the human labels (what ``render`` measures again)."""
    if audit is None:
        return None
    found = audit.agreement
    grades = [str(g) for g in found.grades]
    runs: dict[str, dict[str, Any]] = {}  # {run: {metric: {"queries": n, "model": band, "human": ..., ...}}}
    for r in audit.runs:
        sides = {side: _band(getattr(r, side)) for side in ("model", "human", "corrected")}
        runs.setdefault(r.run, {})[r.label] = {"queries": r.queries, **sides}
    return {
        "source": audit.source,
        "queries": found.queries,
        "pairs": found.pairs,
        **_fields(found, "kappa kappa_low kappa_high weighted_kappa weighted_low weighted_high"),
        "confusion": {m: dict(zip(grades, row)) for m, row in zip(grades, found.confusion.tolist())},
        "disagreement": _number(found.disagreement),
        "slots": found.slots,
        "tau": _number(audit.tau),
        "runs": runs,
        "comparisons": [
            {
                "run": c.run,
                "metric": c.metric,
                "queries": c.queries,
                "model": {**_band(c.model, DELTA), "verdict": c.model_verdict},
                "human": _band(c.human, DELTA),
                "corrected": {**_band(c.corrected, DELTA), "p_adjusted": _number(c.p_adjusted), "verdict": c.verdict},
            }
            for c in audit.comparisons
        ],
        "labels": {q: dict(g) for q, g in audit.labels.items()},
    }


def slices_document(report: SliceReport | None) -> list[dict[str, Any]]:
    """Each slice: its key, value and query count, whether it is too small to read, each run's
    figures with their bands, and each comparison with the baseline on the primary metric."""
    if report is None:
        return []

    def figures(by_run: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return {
            run: {label: _fields(f, "mean low high queries") for label, f in of.items()} for run, of in by_run.items()
        }

    return [
        {
            "key": s.key,
            "value": s.value,
            "queries": s.queries,
            "small": s.small,
            "examples": list(s.examples),
            "runs": figures(s.runs),
            "comparisons": [
                {**_fields(c, "run metric delta low high p p_adjusted queries"), "verdict": c.verdict}
                for c in s.comparisons
            ],
            # the external scores (--scores) over the slice, apart from the measures above
            **({"scores": figures(s.scores)} if s.scores else {}),
        }
        for s in report.slices
    ]


def with_gates(
    document: dict[str, Any], results: Sequence[GateResult], rules: GateRules | None = None
) -> dict[str, Any]:
    """The document with the gate checks made on it (``gates``: one entry per check) and, in its
    ``settings``, the rules asked for (so ``ragreport render`` checks them again)."""
    made = {**document, "gates": [_numbers(r.as_dict()) for r in results]}
    if rules and "settings" in made:
        made["settings"] = {**made["settings"], "gates": rules.as_dict()}
    return made


def report_json(document: Mapping[str, Any], compact: bool = False) -> bytes:
    """report.json's bytes: one line of JSON, UTF-8, no NaN; ``compact``: no space after a comma
    or a colon (report.json itself, docs/conventions.md section 22.4; the shared documents' text
    keeps the default spacing)."""
    separators = (",", ":") if compact else (", ", ": ")
    return (json.dumps(document, ensure_ascii=False, allow_nan=False, separators=separators) + "\n").encode("utf-8")
