"""The library entry points, in the order data flows through the stages:

1. read (:func:`~ragreport.reading.registry.load_runs`: files into typed runs and judgments),
2. join (:func:`~ragreport.scoring.join.join`: every ranked slot with its grade),
3. score (:func:`~ragreport.scoring.metrics.score`, :func:`~ragreport.scoring.measures.score_measures`),
4. summarise (:func:`~ragreport.analysis.summary.summarise`: bands on every mean) -- steps 1-4 are
   :func:`evaluate`, per run :func:`score_and_summarise` after the join; the partition engines
   (:func:`~ragreport.scoring.partition.judged_by_partitions`) do steps 1-3 by pieces and hand the
   same figures to step 4;
5. analyse (:func:`analyse`: honest limits, the comparison with a baseline, drift);
6. render and write (:func:`build`: the view model, the pages, the site written atomically;
   :func:`document` for report.json alone).

No stage reaches back to an earlier one's caller; each module imports only from its own stage or
an earlier one.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .analysis.compare import ComparisonReport, Correction, compare, family_values
from .analysis.drift import drift
from .analysis.family import choose_family
from .analysis.limits import limits
from .analysis.result import Analysis
from .analysis.slices import slice_keys, slices
from .analysis.summary import RunSummary, summarise
from .core.errors import InputError, UsageError
from .core.ids import as_text
from .core.model import Conventions, Gain, NoRelevant
from .output.document import report_document
from .output.gates import GateResult, GateRules
from .output.records import QUERY_COLUMNS, SUMMARY_COLUMNS, data_frame, query_records, summary_records
from .reading.memory import is_in_memory, named_inputs
from .reading.meta import check_meta_count, check_unique_names, meta_for, run_name
from .reading.previous import drift_problem, load_previous
from .reading.registry import detect_file_format, load_inputs, load_qrels
from .reading.stored import REBUILD, load_report, stored_run
from .scoring.catalogue import COMPARED
from .scoring.cutoffs import report_cutoffs
from .scoring.join import JudgedRun, join
from .scoring.measures import Measure, score_measures
from .scoring.metrics import score
from .scoring.partition import PARTITION_BYTES, check_engine, judged_by_partitions

#: K when none is given: 10, except the preloaded sample's 5 (docs/conventions.md section 7).
DEFAULT_K = 10
SAMPLE_K = 5
#: How many queries' top K are shown with the documents' text by default (--text-queries).
TEXT_QUERIES = 1_000

Progress = Callable[[str], None]


def _quiet(stage: str) -> None:
    return None


#: What :func:`evaluate` takes as runs: a path, an in-memory run (``{query_id: {doc_id: score}}``
#: or a data frame), a mapping of run names to either, or a list of either.
Runs = Any
#: What :func:`evaluate` takes as judgments: a path, ``{query_id: {doc_id: grade}}`` or a data frame.
Qrels = Any


class _Rows:
    """The figures as rows: :meth:`to_records` (plain dicts) and :meth:`to_dataframe` (pandas)."""

    def _summaries(self) -> Sequence[RunSummary]:
        raise NotImplementedError

    def to_records(self, per_query: bool = False) -> list[dict[str, Any]]:
        """One dict per run and metric (``run``, ``metric``, ``mean``, ``low``, ``high``,
        ``interval``, ``n``: the scored queries); with ``per_query`` one per run, query and metric
        (``run``, ``query``, ``metric``, ``value``: None for a query left out of the averages,
        ``status``)."""
        return query_records(self._summaries()) if per_query else summary_records(self._summaries())

    def to_dataframe(self, per_query: bool = False) -> Any:
        """:meth:`to_records` as a pandas DataFrame; an ImportError when pandas is not installed."""
        columns = QUERY_COLUMNS if per_query else SUMMARY_COLUMNS
        return data_frame(self.to_records(per_query), columns)


class Results(list, _Rows):
    """What :func:`evaluate` returns: a list of :class:`RunSummary`, one per run, in order, that a
    notebook shows as the report's suite matrix (the report :func:`analyse` makes of it with its
    defaults) and that gives its figures as rows.

    >>> results = evaluate({"bm25": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d4": 0.5}}},
    ...                    qrels={"q1": {"d1": 1}, "q2": {"d4": 1}}, k=2)
    >>> [s.name for s in results]
    ['bm25']
    >>> for row in results.to_records()[:3]:
    ...     print(row["metric"], row["mean"], row["n"])
    P@2 0.5 2
    R@2 1.0 2
    Hit@2 1.0 2
    """

    def _summaries(self) -> Sequence[RunSummary]:
        return self

    def _repr_html_(self) -> str:
        return analyse(self)._repr_html_()


class Report(Analysis, _Rows):
    """What :func:`analyse` returns: the :class:`~ragreport.analysis.result.Analysis` (for
    :func:`document` and :func:`build`) that a notebook shows as the report's suite matrix, with
    the comparison's ▲/▼ verdicts, and that gives its figures as rows.

    >>> report = analyse(evaluate({"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0}}},
    ...                           qrels={"q1": {"d1": 1}}, k=1))
    >>> '<table class="suite-matrix">' in report._repr_html_()
    True
    >>> [(r["run"], r["mean"]) for r in report.to_records() if r["metric"] == "P@1"]
    [('a', 1.0), ('b', 0.0)]
    """

    def _summaries(self) -> Sequence[RunSummary]:
        return self.summaries

    def _repr_html_(self) -> str:
        from .output.site import render_notebook
        from .output.view.build import build_view

        return render_notebook(build_view(self, pages=False))


def _given(inputs: Runs) -> bool:
    """Whether any run is given (an empty list or tuple means the preloaded sample)."""
    return not (isinstance(inputs, (list, tuple)) and not inputs)


def evaluate(
    inputs: Runs = (),
    *,
    qrels: Qrels = None,
    k: int | Sequence[int] | None = None,
    conventions: Conventions = Conventions(),
    kmax: int | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    measures: Sequence[Measure] = (),
    progress: Progress = _quiet,
    engine: str = "memory",
    scheduler: str | None = None,
    partition_bytes: int | None = None,
) -> Results:
    """Load, join, score and summarise every run; the preloaded sample when ``inputs`` is empty.

    ``inputs`` are the runs: file paths (a list, or one path), runs held in memory (a mapping
    ``{query_id: {doc_id: score}}`` as pytrec_eval and ranx use, or a pandas DataFrame with the
    columns ``query_id``, ``doc_id``, ``score``), or a mapping of run names to either. ``qrels``
    are the judgments: a path, a mapping ``{query_id: {doc_id: grade}}`` or a DataFrame with the
    columns ``query_id``, ``doc_id``, ``relevance`` (see :mod:`ragreport.reading.memory`).

    ``engine`` ``memory`` reads each run whole; ``stream`` and ``dask`` score TREC runs by
    partitions of whole queries (see :mod:`ragreport.scoring.partition`), here one after another or on
    the Dask cluster at ``scheduler`` (a local one when None), with the same figures.

    Returns a :class:`Results`: a list of :class:`RunSummary`, one per run.

    >>> results = evaluate(
    ...     {"bm25": {"q1": {"d1": 12.5, "d2": 3.0}, "q2": {"d3": 7.0, "d4": 7.0}}},
    ...     qrels={"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}},
    ...     k=1,
    ... )
    >>> summary = results[0]
    >>> summary.name, summary.counts.scored
    ('bm25', 2)
    >>> summary.at_k["P@1"].mean  # q2's tie puts d4 first (ids descending, as trec_eval does)
    0.5
    >>> evaluate({"q1": {"d1": "high"}}, qrels={"q1": {"d1": 1}})
    Traceback (most recent call last):
    ...
    ragreport.reading.memory.ObjectError: run 'run', query 'q1': expected a number for document 'd1', got 'high'
    """
    if k is None:
        k = DEFAULT_K if _given(inputs) else SAMPLE_K
    if engine == "memory" and scheduler is not None:
        raise UsageError("--scheduler is for --engine dask")
    if engine != "memory":
        pairs = named_inputs(inputs) if _given(inputs) else []
        if is_in_memory(qrels) or any(name is not None or is_in_memory(run) for name, run in pairs):
            raise UsageError(f"--engine {engine} scores run files against a qrels file; give a list of paths")
        return Results(
            _evaluate_by_partitions(
                [run for _, run in pairs],
                qrels,
                k,
                conventions,
                kmax,
                metas,
                measures,
                progress,
                engine,
                scheduler,
                partition_bytes or PARTITION_BYTES,
            )
        )
    progress("reading")
    loaded = load_inputs(inputs, qrels=qrels, metas=metas, input_format=input_format, order=conventions.order)
    summaries = Results()
    for item in loaded:
        progress(f"scoring {item.run.name}")
        judged = join(item.run, item.judgments, conventions.relevance_level)
        check_scorable(judged, item.judgments.source or "the judgments", conventions)
        summaries.append(
            score_and_summarise(
                judged,
                k,
                conventions,
                kmax,
                measures,
                progress=functools.partial(progress, f"bands for {item.run.name}"),
            )
        )
    return summaries


def score_and_summarise(
    judged: JudgedRun,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None = None,
    measures: Sequence[Measure] = (),
    *,
    progress: Callable[[], None] | None = None,
) -> RunSummary:
    """Score one joined run at K (one cutoff or several, the first the report's K) and over the K
    sweep up to ``kmax``, score the ``measures`` named, and band every mean."""
    asked, cutoffs = report_cutoffs(k, kmax)
    scores = score(judged, cutoffs, conventions)
    values = score_measures(judged, measures, conventions) if measures else None
    if progress is not None:
        progress()
    return summarise(judged, scores, asked, conventions, measures, values)


def _evaluate_by_partitions(
    inputs: Sequence[str | Path],
    qrels: str | Path | None,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None,
    metas: Sequence[str | Path],
    measures: Sequence[Measure],
    progress: Progress,
    engine: str,
    scheduler: str | None,
    partition_bytes: int,
) -> list[RunSummary]:
    check_engine(engine)
    if not inputs or qrels is None:
        raise UsageError(f"--engine {engine} scores TREC run files (or folders of them) against --qrels; give both")
    check_meta_count(metas, len(inputs))
    paths = [Path(p) for p in inputs]
    # Every run's metadata and name before any is scored: a clash of names is found at once,
    # not after the first runs took their time.
    run_metas = [meta_for(path, metas[i] if metas else None) for i, path in enumerate(paths)]
    check_unique_names((run_name(meta, path), str(path)) for meta, path in zip(run_metas, paths))
    asked, cutoffs = report_cutoffs(k, kmax)
    summaries = []
    for path, meta in zip(paths, run_metas):
        if path.is_file() and path.suffix.lower() != ".parquet" and detect_file_format(path)[0] != "trec":
            raise UsageError(f"{path}: --engine {engine} reads TREC runs; this file is not one")
        progress(f"reading and scoring {path.name} by partitions ({engine})")
        parts = judged_by_partitions(
            path,
            qrels,
            read_qrels=load_qrels,
            cutoffs=cutoffs,
            conventions=conventions,
            measures=measures,
            engine=engine,
            scheduler=scheduler,
            partition_bytes=partition_bytes,
            meta=meta,
            progress=progress,
        )
        check_scorable(parts.judged, str(qrels), conventions)
        progress(f"bands for {parts.judged.name}")
        summaries.append(
            summarise(
                parts.judged, parts.scores, asked, conventions, measures, parts.measure_values if measures else None
            )
        )
    return summaries


def _some(ids) -> str:
    shown = ", ".join(repr(str(q)) for q in list(ids)[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def check_scorable(judged: JudgedRun, judgments_source: str, conventions: Conventions = Conventions()) -> None:
    """Refuse a run that no judgment speaks to: ids that never meet are a mistake, not a score of 0.

    Judgments with no relevant id anywhere are refused too, unless ``--no-relevant zero`` averages
    such queries in as 0, as trec_eval does (then every figure is 0, and the report says why).
    """
    run_ids = judged.query_ids[judged.in_run]
    judged_ids = judged.query_ids[judged.has_judgments]
    where = f"{judged.source} and {judgments_source}" if judged.source != judgments_source else judged.source
    if not judged.in_run.any():  # an empty run (an empty data frame, partitions with no line)
        raise UsageError(f"{judged.source or judged.name}: the run has no rows, so nothing can be scored")
    if not judged.has_judgments.any():
        raise UsageError(f"{judgments_source}: the judgments judge no query, so nothing can be scored")
    if not (judged.in_run & judged.has_judgments).any():
        raise UsageError(
            f"{where} share no query id (the run has {_some(run_ids)}; the judgments have "
            f"{_some(judged_ids)}): check that both use the same ids"
        )
    if (judged.relevant > 0).any():
        return
    if conventions.no_relevant is not NoRelevant.ZERO:
        raise UsageError(
            f"{where}: no query has an id judged relevant (grade {conventions.relevance_level} or more), "
            f"so nothing can be scored (--no-relevant zero scores every judged query 0, as trec_eval does)"
        )
    if not len(judged.judgment_query):
        raise UsageError(f"{where}: the judgments judge no id at all, so nothing can be scored")


def analyse(
    summaries: Sequence[RunSummary],
    *,
    today: _dt.date | None = None,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    previous: str | Path | None = None,
    primary: str | None = None,
    family: Sequence[str | Measure] | None = None,
    progress: Progress = _quiet,
    previous_basis: tuple[dict, str] | None = None,
    query_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    slice_by: Sequence[str] = (),
    queries: str | Path | Mapping[str, str] | None = None,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None = None,
    text_queries: int = TEXT_QUERIES,
) -> Report:
    """Limits for every run, the comparison with the baseline (several runs), drift (``previous``).

    ``primary`` names the metric the report leads with (``nDCG@10``, any spelling the name parser
    reads; a compared metric at K): default nDCG at K. ``family`` names what is compared
    (``["nDCG@10", "R@10"]``, as ``--metrics``): only those measures are tested and corrected
    together, in the comparison and the drift; each needs per-query values (a suite metric at a
    scored cutoff, or a measure given to :func:`evaluate`'s ``measures``). The primary metric must be
    one of them (without ``primary``: the first compared metric at K among them).
    ``previous_basis`` is a stored report's drift basis and the previous report's file name
    (``ragreport render``), in place of ``previous``. ``query_meta`` is per-query metadata (a
    ``--query-meta`` file, or ``{query: {key: value}}``), over what the runs carry (RAG JSONL
    ``meta``); ``slice_by`` names the keys to slice by (default: every string key with 2 to 50
    values; :mod:`ragreport.analysis.slices`). ``queries`` gives the queries' text (a ``--queries``
    file or ``{query: text}``) where the runs give none; ``corpus`` the documents' (a ``--corpus``
    file or ``{id: (title, text)}``), read for the top K of the ``text_queries`` queries the report
    points at most (the largest differences from the baseline on the primary metric; for one run
    its lowest scores). Returns a :class:`Report`.

    >>> results = evaluate(
    ...     {
    ...         "bm25": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}},
    ...         "dense": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d4": 1.0}},
    ...     },
    ...     qrels={"q1": {"d1": 1}, "q2": {"d3": 1}},
    ...     k=1,
    ... )
    >>> report = analyse(results, baseline="bm25")
    >>> report.primary_label
    'nDCG@1'
    >>> [(h["run"], h["delta"], h["low"], h["high"], h["verdict"]) for h in document(report)["headline"]]
    [('dense', -1.0, -1.0, -1.0, 'band below 0')]
    """
    from .output.site import build_day

    today = today or build_day()
    if queries is not None:
        summaries = with_query_text(summaries, queries)
    k = summaries[0].k if summaries else SAMPLE_K
    compares = len(summaries) > 1 or previous is not None or previous_basis is not None
    chosen = choose_family(family, k, primary, compares=compares)
    if len(summaries) > 1:
        progress("comparing runs")
    comparison = compare(summaries, baseline=baseline, correction=correction, permutations=permutations, family=chosen)
    found_drift = None
    # Drift tests the family's members it shows: the suite's metrics at K.
    shown = {(f.metric, f.cutoff) for f in chosen.measures if f.gain is None}
    tested = tuple(m for m in COMPARED if (m, k) in shown)
    if previous is not None:
        # Named by its file name: a published report never shows a path of the machine that built it.
        previous_basis = (load_previous(previous), Path(previous).name)
    if previous_basis is not None:
        found_drift = drift(
            previous_basis[0],
            previous_basis[1],
            summaries,
            correction=correction,
            permutations=permutations,
            tested=tested,
        )
    chosen_queries: tuple[str, ...] = ()
    doc_texts = None
    meta = merged_query_meta(summaries, query_meta)
    keys = slice_keys(meta, slice_by) if meta else ()
    found_slices = None
    if keys:
        progress("slicing")
        found_slices = slices(
            summaries,
            meta,
            keys,
            chosen.measures,
            Measure(chosen.lead.key, k),
            comparison,
            correction,
            permutations,
        )
    inline = {d: ("", t) for s in summaries if s.judged.doc_text for d, t in s.judged.doc_text.items()}
    if corpus is not None or inline:
        progress("reading the corpus")
        first = tuple(q for s in (found_slices.slices if found_slices else ()) for q in s.examples)
        chosen_queries = pointed_queries(summaries, comparison, Measure(chosen.lead.key, k), text_queries, first)
        doc_texts = read_texts(summaries, chosen_queries, corpus if corpus is not None else {}, inline)
    return Report(
        tuple(summaries),
        tuple(limits(s, today) for s in summaries),
        today,
        comparison,
        found_drift,
        primary=chosen.lead,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        slices=found_slices,
        query_meta={q: {key: fields[key] for key in keys if key in fields} for q, fields in sorted(meta.items())}
        if keys
        else None,
        doc_texts=doc_texts,
        text_queries=chosen_queries,
    )


def with_query_text(summaries: Sequence[RunSummary], given: str | Path | Mapping[str, str]) -> list[RunSummary]:
    """The summaries with each query's text from ``given`` where the run gives none."""
    from .reading.texts import read_queries

    wanted = {q for s in summaries for q in s.judged.query_ids.tolist()}
    texts = read_queries(given, wanted) if isinstance(given, (str, Path)) else {str(q): t for q, t in given.items()}
    out = []
    for summary in summaries:
        judged = summary.judged
        filled = tuple(
            own if own is not None else texts.get(q) for q, own in zip(judged.query_ids.tolist(), judged.query_text)
        )
        out.append(dataclasses.replace(summary, judged=dataclasses.replace(judged, query_text=filled)))
    return out


def pointed_queries(
    summaries: Sequence[RunSummary],
    comparison: ComparisonReport | None,
    primary: Measure,
    most: int,
    first: Sequence[str] = (),
) -> tuple[str, ...]:
    """The queries the report points at most, up to ``most``: ``first`` (the slices' examples),
    then by the largest difference from the baseline on the primary metric over every compared run
    (the movers first), then the rest by id; for one run, its lowest primary scores first (its
    failures). Sorted by id."""
    score: dict[str, float] = {q: float("inf") for q in first}
    if comparison is not None:
        for run in comparison.runs:
            for q, d in (run.differences(primary.label()) or {}).items():
                score[q] = max(score.get(q, 0.0), abs(d))
    else:
        summary = summaries[0]
        rows = np.flatnonzero(summary.scores.scored)
        values = family_values(summary, rows, [primary])[:, 0]
        for q, v in zip(summary.judged.query_ids[rows].tolist(), values.tolist()):
            score[q] = max(score.get(q, 0.0), 1.0 - v)
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    ranked = sorted(every, key=lambda q: (-score.get(q, -1.0), q))
    return tuple(sorted(ranked[: max(0, most)]))


def read_texts(
    summaries: Sequence[RunSummary],
    queries: Sequence[str],
    corpus: str | Path | Mapping[str, tuple[str, str]],
    inline: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, tuple[str, str]]:
    """(title, text) of every document in the top K of ``queries`` in any run: from ``corpus``,
    else from the text the run files carry (``inline``)."""
    from .reading.texts import read_corpus

    chosen = set(queries)
    wanted: set[str] = set()
    for summary in summaries:
        judged, k = summary.judged, summary.k
        rows = [i for i, q in enumerate(judged.query_ids.tolist()) if q in chosen]
        for row in rows:
            start = int(judged.offsets[row])
            end = min(int(judged.offsets[row + 1]), start + k)
            wanted.update(as_text(judged.doc_ids[start:end]))
    if isinstance(corpus, (str, Path)):
        found = {d: (t.title, t.text) for d, t in read_corpus(corpus, wanted).items()}
    else:
        found = {str(d): (str(v[0]), str(v[1])) for d, v in corpus.items() if str(d) in wanted}
    for doc, text in (inline or {}).items():
        if doc in wanted:
            found.setdefault(doc, text)
    return dict(sorted(found.items()))


def merged_query_meta(
    summaries: Sequence[RunSummary], given: str | Path | Mapping[str, Mapping[str, object]] | None
) -> dict[str, dict[str, object]]:
    """Per-query metadata: what the runs carry (the first run that gives a query's wins), each
    query's keys replaced by those ``given`` (a ``--query-meta`` file or a mapping)."""
    from .reading.querymeta import read_query_meta

    merged: dict[str, dict[str, object]] = {}
    for summary in summaries:
        judged = summary.judged
        for query, fields in zip(judged.query_ids.tolist(), judged.query_meta):
            if fields and query not in merged:
                merged[query] = dict(fields)
    if given is not None:
        extra = read_query_meta(given) if isinstance(given, (str, Path)) else given
        for query, fields in extra.items():
            merged.setdefault(str(query), {}).update(fields)
    return merged


def reanalyse(report: str | Path | dict, *, source: str | None = None) -> Analysis:
    """The analysis of a stored report.json (a path, or the document already read), made again
    without its run files: every figure, band, comparison and drift as the build that wrote it
    made them (``ragreport render``).

    Each run's stored top lists are joined with its stored judgments and scored again at the
    stored cutoffs (:func:`~ragreport.reading.stored.stored_run`); named measures, which may read a
    whole list, take their per-query values from the stored rows; the comparison runs again with
    the stored settings (seeded), and the drift from the stored basis of the previous report.
    """
    if isinstance(report, dict):
        document_, where = report, source or "report.json"
    else:
        document_, where = load_report(report), source or str(report)
    settings = document_["settings"]
    try:
        measures = tuple(
            Measure(m["key"], m["cutoff"], None if m["gain"] is None else Gain(m["gain"])) for m in settings["metrics"]
        )
        today = _dt.date.fromisoformat(settings["today"])
        correction = Correction(settings["correction"])
        permutations = int(settings["permutations"])
        for key in ("baseline", "primary", "title"):  # read as text by the analysis and the pages
            if settings.get(key) is not None and not isinstance(settings[key], str):
                raise TypeError(f"'{key}' is {type(settings[key]).__name__}, not text")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(where, 1, "'settings' as ragreport writes them", f"{type(exc).__name__}: {exc}") from None
    summaries = []
    for run in document_["runs"]:
        stored = stored_run(document_, run, where)
        judged = join(stored.run, stored.judgments, stored.conventions.relevance_level)
        if judged.query_ids.tolist() != [str(row["id"]) for row in stored.rows]:
            raise InputError(where, 1, f"run {stored.run.name!r}'s queries in their stored order", "another order")
        judged = dataclasses.replace(
            judged,
            source=stored.run.source,
            retrieved=stored.retrieved,
            repeats=stored.repeats,
            relevant_retrieved=stored.relevant_retrieved,
            first_relevant=stored.first_relevant,
        )
        scores = score(judged, stored.sweep, stored.conventions)
        values = np.zeros((len(measures), judged.n_queries))
        for i, measure in enumerate(measures):
            label = measure.label()
            for q, row in enumerate(stored.rows):
                if row.get("scored") and row.get(label) is not None:
                    values[i, q] = row[label]
        summaries.append(summarise(judged, scores, stored.cutoffs, stored.conventions, measures, values))
    drift_ = document_.get("drift")
    basis = (drift_["basis"], drift_["previous"]) if isinstance(drift_, dict) and drift_.get("basis") else None
    if isinstance(drift_, dict) and basis is None:
        raise InputError(where, 1, f"'drift.basis' (written before ragreport render; {REBUILD})", "none")
    if basis is not None:  # the basis is read as a previous report is: every field drift reads checked
        if not isinstance(basis[0], dict) or not isinstance(basis[1], str):
            raise InputError(where, None, "'drift.basis' as an object and 'drift.previous' as text", "other types")
        problem = drift_problem(basis[0])
        if problem is not None:
            raise InputError(where, None, f"drift.basis.{problem[0]} as {problem[1]}", type(problem[2]).__name__)
    return analyse(
        summaries,
        today=today,
        baseline=settings.get("baseline"),
        correction=correction,
        permutations=permutations,
        primary=settings.get("primary"),
        # the measures named with --metrics were the comparison family (report.json is never --format trec)
        family=measures or None,
        previous_basis=basis,
        query_meta=_stored_query_meta(document_.get("query_meta"), where),
        slice_by=_stored_slice_by(settings.get("slice_by"), where),
        **_stored_texts(document_.get("texts"), where),
    )


def _json_kind(value: Any) -> str:
    return "null" if value is None else f"a JSON {type(value).__name__}"


def _stored_query_meta(value: Any, where: str) -> dict[str, dict[str, Any]] | None:
    """A stored report's ``query_meta``: ``{query: {key: text, number or boolean}}``, or none."""
    if value is None:
        return None
    expected = "'query_meta' as an object of query ids to objects of text, numbers or booleans"
    if not isinstance(value, dict):
        raise InputError(where, 1, expected, _json_kind(value))
    for query, fields in value.items():
        if not isinstance(fields, dict):
            raise InputError(where, 1, expected, f"{_json_kind(fields)} for query {query!r}")
        for key, item in fields.items():
            finite = not isinstance(item, float) or math.isfinite(item)
            if not isinstance(item, (str, int, float, bool)) or not finite:
                raise InputError(where, 1, expected, f"{_json_kind(item)} for query {query!r} key {key!r}")
    return value or None


def _stored_slice_by(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        raise InputError(where, 1, "'settings.slice_by' as a list of keys", _json_kind(value))
    return tuple(value)


def _stored_texts(texts: Any, where: str) -> dict[str, Any]:
    """The documents' text a stored report kept (for the queries it chose), as analyse takes it."""
    if texts is None:
        return {}
    expected = '\'texts\' as {"queries": [ids], "docs": {id: {"title": text, "text": text}}}'
    if not isinstance(texts, dict):
        raise InputError(where, 1, expected, _json_kind(texts))
    docs, queries = texts.get("docs"), texts.get("queries")
    if not isinstance(docs, dict) or not isinstance(queries, list):
        raise InputError(where, 1, expected, f"docs {_json_kind(docs)}, queries {_json_kind(queries)}")
    kept = {}
    for doc, entry in docs.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("title", "text")):
            raise InputError(where, 1, expected, f"{_json_kind(entry)} for document {doc!r}")
        kept[doc] = (entry["title"], entry["text"])
    return {"corpus": kept, "text_queries": len(queries)}  # the same queries are chosen again


def document(analysis: Analysis, title: str | None = None) -> dict:
    """The report document (what ``report.json`` holds); ``title`` as given to :func:`build`."""
    return report_document(analysis, title)


def check_gates(document: dict, rules: GateRules) -> tuple[GateResult, ...]:
    """Every gate rule (``--fail-on``, ``--require``, ``--max-drop``) checked on the report document.

    Rules are made with :func:`ragreport.output.gates.parse_rules`; a rule naming a metric or a run
    the report does not hold raises :class:`~ragreport.core.errors.UsageError`.
    """
    from .output.gates import evaluate as evaluate_gates

    return evaluate_gates(document, rules) if rules else ()


def build(
    analysis: Analysis,
    *,
    out: str | Path | None = "site",
    single_file: str | Path | None = None,
    title: str | None = None,
    progress: Progress = _quiet,
    gates: Sequence[GateResult] = (),
    document: dict | None = None,
    rules: GateRules | None = None,
) -> list[Path]:
    """Render the report and write the site folder ``out`` and/or the one-file report ``single_file``.

    ``gates`` (from :func:`check_gates`, checking ``rules``) are shown on the index, in summary.md
    and in report.json, which keeps the rules in its settings; ``document`` is the report document
    when the caller made it already.
    """
    from .output.document import with_gates
    from .output.site import prepare, render_single, render_site, write_file, write_site
    from .output.view.build import build_view
    from .output.writing import target_path

    if out is not None:  # an empty name is an error before anything is rendered or written
        target_path(out, "--out")
    if single_file is not None:
        target_path(single_file, "--single-file")
    progress("rendering")
    made = with_gates(document if document is not None else report_document(analysis, title), gates, rules)
    report = prepare(build_view(analysis, title=title, gates=gates), made)
    outputs = []
    site_files = render_site(report) if out is not None else None
    single = render_single(report) if single_file is not None else None
    progress("writing")
    if out is not None and site_files is not None:
        outputs.append(write_site(site_files, out))
    if single_file is not None and single is not None:
        outputs.append(write_file(single, single_file))
    return outputs


@dataclasses.dataclass(frozen=True)
class History:
    """A history folder opened for :func:`publish`: its entries (newest first), the label asked for
    (None: the report's date, made unique) and the report a new one is measured against."""

    folder: Path
    entries: tuple[dict[str, Any], ...]
    label: str | None
    previous: dict[str, Any] | None  # that report's report.json
    previous_label: str | None
    previous_digest: str | None
    #: history.json's bytes as read (b"": none), so that a publish that ran meanwhile is noticed
    index: bytes | None = None

    @property
    def previous_basis(self) -> tuple[dict, str] | None:
        """What :func:`analyse` takes to measure the drift since the previous report."""
        return None if self.previous is None or self.previous_label is None else (self.previous, self.previous_label)


def open_history(folder: str | Path, label: str | None = None) -> History:
    """The history in ``folder`` (missing or empty: a new one), checked before any run is read: a
    folder that is not a history, a broken ``history.json`` or a bad ``label`` stop here.

    The drift of the report to publish is measured against the report published before it: the
    newest one, or for a ``label`` published again the one older than that label.
    """
    from .core.history import HISTORY_FILE, REPORTS
    from .output.history import check_label, digest, previous_entry
    from .output.wording import messages as say
    from .output.writing import folder_problem, recover_before_reading, target_path
    from .reading.history import load_history

    folder = target_path(folder, "publish DIR")
    problem = folder_problem(folder)
    if problem is not None:
        raise UsageError(say.refusing_to_publish(str(folder), problem, advice=False))
    recover_before_reading(folder)  # a history a killed publish left aside is put back first
    entries = tuple(load_history(folder))
    if label is not None:
        check_label(label)
    before = previous_entry(entries, label) if label is not None else (entries[0] if entries else None)
    previous = previous_label = previous_digest = None
    if before is not None:
        previous_label = str(before["label"])
        path = folder / REPORTS / previous_label / "report.json"
        previous = load_previous(path)
        previous_digest = digest(path.read_bytes())
    index_path = folder / HISTORY_FILE
    index = index_path.read_bytes() if index_path.is_file() else b""
    return History(folder, entries, label, previous, previous_label, previous_digest, index)


def publish(
    analysis: Analysis,
    history: History,
    *,
    title: str | None = None,
    keep: int | None = None,
    progress: Progress = _quiet,
    gates: Sequence[GateResult] = (),
    document: dict | None = None,
    rules: GateRules | None = None,
) -> Path:
    """Add the report to ``history`` (from :func:`open_history`; ``analysis`` made with its
    :attr:`History.previous_basis`) and rewrite the history page; returns the report's folder.

    The report goes to ``reports/LABEL/`` (a label published again replaces that report only),
    ``history.json`` and ``index.html`` are made again from the entries, ``keep`` prunes the oldest
    reports; everything is written beside the folder and moved into place in one rename.
    """
    from .core.history import REPORTS
    from .output.document import with_gates
    from .output.history import ROOT, choose_label, digest, history_entry, keep_newest, place
    from .output.site import prepare, render_history, render_site, write_history
    from .output.view.build import build_view

    progress("rendering")
    made = with_gates(document if document is not None else report_document(analysis, title), gates, rules)
    label = choose_label(history.label, str(made["date"]), history.entries)
    report = prepare(build_view(analysis, title=title, gates=gates), made)
    site = render_site(report, root=ROOT)
    entry = history_entry(made, label, digest(site["report.json"]), history.previous_digest)
    entries, dropped = keep_newest(place(list(history.entries), entry), keep)
    files = render_history(entries)
    if any(e["label"] == label for e in entries):
        files.update({f"{REPORTS}/{label}/{name}": data for name, data in site.items()})
    progress("writing")
    replaced = [label] if any(e["label"] == label for e in history.entries) else []
    write_history(history.folder, files, replaced=replaced + dropped, index=history.index)
    return history.folder / REPORTS / label
