"""A stored report.json analysed again without its run files (``ragreport render``).

Each run's stored top lists are joined with its stored judgments and scored again at the stored
cutoffs (:func:`~ragreport.output.exports.reportjson.read.stored_run`), their bands drawn again; the K sweep is
read as stored (its means and bands); the condensed reading is condensed again from the stored
top and the judged ids after it (``lists.next_judged``, schema ``ragreport/4``), or read as
stored from an older report; named measures, which may read a whole list, take their per-query
values from the stored rows (docs/conventions.md section 22.17). :func:`reanalysed` analyses them
again with the settings the build was analysed with (the comparison seeded as it was, the drift
from the stored basis of the previous report).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ....analysis.compare import Correction
from ....analysis.paired import GRID_BINS, PairNotStored, reading_means
from ....analysis.pipeline import A, analyse_runs
from ....analysis.poisson import scored_sums
from ....analysis.power import MIN_EFFECT
from ....analysis.scores import stored_scores
from ....analysis.summary import RunSummary, Sweep, summarise
from ....core.errors import InputError, shorten
from ....core.model import Gain, Judgments
from ....reading.schema import check
from ....scoring.catalogue import SUITE
from ....scoring.condensed import condense, following
from ....scoring.join import join
from ....scoring.measures import stored_measure
from ....scoring.metrics import score
from ....scoring.readings import READ, score_readings
from .migrate import expanded
from .read import REBUILD, judgments_from, load_report, stored_run
from .sampled import (
    drift_from,
    facts_from,
    ranking_from,
    scores_from,
    shown_from,
    slices_from,
    stored_pairs,
    sums_from,
)
from .schema import PREVIOUS


def _stored_condensed(scores, cutoffs: tuple[int, ...], rows: list[dict]) -> np.ndarray:
    """The condensed reading as a report of schema ``ragreport/3`` or older stored it: the default
    figures, but where a row's ``condensed`` says otherwise (its stored lists stop at the sweep's
    depth, too short to condense again); zero for a metric the report does not hold (not shown)."""
    n = len(rows)
    out = np.stack(
        [np.stack([scores.of(m, c) if m in scores.metrics else np.zeros(n) for c in cutoffs], 1) for m in READ]
    )
    labels = {m.label(c): (i, j) for i, m in enumerate(READ) for j, c in enumerate(cutoffs)}
    for q, row in enumerate(rows):
        cells = row.get("condensed")
        if isinstance(cells, dict):
            for label, value in cells.items():
                if label in labels and isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[labels[label][0], q, labels[label][1]] = float(value)
    return out


def _stored_audit(audit: dict, where: str) -> Judgments:
    """The stored audit's human labels (``audit.labels``) as judgments through the id gate, a
    refusal naming ``where``; the declared schema bounds the grades to signed 64 bits."""
    labels = audit.get("labels")
    if not isinstance(labels, dict):
        raise InputError(where, None, "'audit.labels' as the human labels {query: {id: grade}}", "none")
    return judgments_from(labels, where)


def reanalysed(report: str | Path | dict, source: str | None, make: type[A]) -> A:
    """A stored report's runs scored again and analysed with the settings it was made with
    (:func:`ragreport.api.reanalyse`); ``source`` names the report in errors."""
    if isinstance(report, dict):
        document_, where = expanded(report), source or "report.json"
    else:
        document_, where = load_report(report), source or str(report)
    settings = document_["settings"]
    try:
        measures = tuple(
            stored_measure(
                m["key"],
                m["cutoff"],
                None if m["gain"] is None else Gain(m["gain"]),
                tuple(sorted(dict(m.get("params") or {}).items())),
            )
            for m in settings["metrics"]
        )
        today = _dt.date.fromisoformat(settings["today"])
        correction = Correction(settings["correction"])
        permutations = int(settings["permutations"])
        min_effect = float(settings.get("min_effect", MIN_EFFECT))  # absent before issue 21: the default
        for key in ("baseline", "primary", "title"):  # read as text by the analysis and the pages
            if settings.get(key) is not None and not isinstance(settings[key], str):
                raise TypeError(f"'{key}' is {type(settings[key]).__name__}, not text")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(where, 1, "'settings' as ragreport writes them", f"{type(exc).__name__}: {exc}") from None
    sampled = document_.get("sampled")
    if sampled is not None:
        _check_sampled(document_, sampled, where)
    store = stored_pairs(sampled, where) if sampled is not None else None
    summaries: list[RunSummary] = []
    for run in document_["runs"]:
        counts, rows = run.get("counts"), len(run["queries"])
        counted = counts.get("queries") if isinstance(counts, dict) else None
        if sampled is None and isinstance(counted, int) and counted != rows:  # a sample's rows without its sums
            raise InputError(
                where, None, f"run {run['name']!r}'s {counted} queries, or 'sampled' beside a sample", f"{rows} rows"
            )
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
            steps=_stored_steps(run, judged.n_queries, where),
        )
        if sampled is not None:  # its rows are a sample: the label set's kind as the build found it
            judged = judged.pinned(_stored_relevant_only(document_, where))
        # Scored again at the cutoffs asked for alone: the sweep is read as stored, its bands not
        # drawn again (docs/conventions.md section 22.17); the bands at the cutoffs are.
        # The suite's metrics the report holds: one made before a metric was added (or after one
        # was removed) renders without it, and says so (docs/conventions.md section 26).
        figures = stored.sweep_figures or {}
        held = tuple(m for m in SUITE if m.key in figures)
        if not held:
            raise InputError(where, 1, f"run {stored.run.name!r}'s 'sweep' of the suite's metrics ({REBUILD})", "none")
        cutoffs, conventions = stored.cutoffs, stored.conventions
        scores = score(judged, cutoffs, conventions, metrics=held)
        sweep = Sweep(
            np.asarray(stored.sweep, dtype=np.int64),
            *({m.key: figures[m.key][i] for m in scores.metrics} for i in range(3)),
        )
        values = np.zeros((len(measures), judged.n_queries))
        for i, measure in enumerate(measures):
            label = measure.label()
            if any(row.get("scored") for row in stored.rows) and not any(label in row for row in stored.rows):
                # a measure edited into the settings that no row holds: a figure nobody scored
                raise InputError(
                    where,
                    None,
                    f"'settings.metrics' naming measures the rows hold ({label} in run {stored.run.name!r}'s)",
                    "none",
                )
            for q, row in enumerate(stored.rows):
                if row.get("scored") and row.get(label) is not None:
                    values[i, q] = row[label]
        depth = max(cutoffs)
        after = None
        if stored.condensable is not None:  # ragreport/4: condensed again from the top and the ids after it
            longer = join(stored.condensable, stored.judgments, conventions.relevance_level)
            condensed = condense(longer, depth)
            readings = score_readings(judged, cutoffs, conventions, condensed=condensed)
            after = following(longer, depth, condensed)
        else:  # an older schema: the condensed figures as stored
            readings = score_readings(judged, cutoffs, conventions)
            readings["condensed"] = _stored_condensed(scores, cutoffs, stored.rows)
        bootstrap = run.get("bootstrap")
        if bootstrap != document_["runs"][0].get("bootstrap"):  # one build: one bootstrap for every run
            raise InputError(where, None, "every run's 'bootstrap' alike (one build made them)", repr(bootstrap))
        if bootstrap not in (None, "poisson"):
            raise InputError(
                where, None, f"run {stored.run.name!r}'s 'bootstrap' as \"poisson\" or absent", repr(bootstrap)
            )
        # A partitioned build's bands came from the Poisson sums; summed exactly, the stored queries
        # give the very sums its partitions added up (docs/conventions.md section 29). A sampled
        # report's rows are its sample: it stored the sums themselves (section 29.2).
        given: dict[str, Any] = {}
        if sampled is not None:
            # the suite's columns at each cutoff asked for; the measures', a geometric one's logs too
            width = len(scores.metrics) * len(scores.cutoffs)
            logs = sum(m.metric.geometric is not None for m in measures)
            given = _stored_sums(sampled, run, where, width, len(measures) + logs if measures else None)
            sums = given.pop("sums")
        elif bootstrap is not None:
            sums = scored_sums(judged, scores, seed=conventions.seed, resamples=conventions.resamples)
        else:
            sums = None
        summary = summarise(
            judged,
            scores,
            cutoffs,
            conventions,
            measures,
            values,
            readings,
            following=after,
            sweep=sweep,
            sums=sums,
            sum_cutoffs=scores.cutoffs,  # the sums' columns: the scores' cutoffs, in ascending order
            **given,
        )
        if store is not None:  # the readings' means and the pairs' figures as they were summed
            summary = dataclasses.replace(
                summary, reading_at=_stored_readings(run, where), paired=(store, len(summaries))
            )
        elif sums is not None:  # the other readings' means, as the partitions' buckets summed them
            summary = dataclasses.replace(summary, reading_at=reading_means(summary))
        summaries.append(summary)
    drift_ = document_.get("drift")
    basis = (drift_["basis"], drift_["previous"]) if isinstance(drift_, dict) and drift_.get("basis") else None
    if isinstance(drift_, dict) and basis is None:
        raise InputError(where, 1, f"'drift.basis' (written before ragreport render; {REBUILD})", "none")
    if sampled is not None:  # its drift paired every query's scores: read as stored (_as_sampled)
        basis = None
    if basis is not None:  # the basis is read as a previous report is: every field drift reads checked
        if not isinstance(basis[0], dict) or not isinstance(basis[1], str):
            raise InputError(where, None, "'drift.basis' as an object and 'drift.previous' as text", "other types")
        check(basis[0], PREVIOUS, where, "drift.basis")
    audit = document_.get("audit")  # its shape checked by the declared schema: render refuses it otherwise
    # the external scores' per-query values and given scales (checked by the declared schema): every
    # figure drawn again from them; a report written before they were stored renders without them
    external = document_.get("scores")
    # (a sampled report's read as stored: its values are the sample's, _as_sampled)
    scores_file, scores_scale = (
        stored_scores(external, where)
        if isinstance(external, dict) and "values" in external and sampled is None
        else (None, {})
    )
    try:
        analysis = analyse_runs(
            summaries,
            make=make,
            today=today,
            baseline=settings.get("baseline"),
            correction=correction,
            permutations=permutations,
            min_effect=min_effect,
            primary=settings.get("primary"),
            # the measures named with --metrics were the comparison family (report.json is never --format trec)
            family=measures or None,
            previous_basis=basis,
            # a sampled report's slices read every query's metadata: read as stored (_as_sampled)
            query_meta=None if sampled is not None else stored_query_meta(document_.get("query_meta"), where),
            query_details=document_.get("query_details"),  # the declared schema checked it: text by query id
            slice_by=() if sampled is not None else stored_slice_by(settings.get("slice_by"), where),
            # the audit as the judgments it was measured from, through the gate every judgment file
            # passes: a refusal names this report (render never reads the audit file), the page its file
            audit=_stored_audit(audit, where) if isinstance(audit, dict) else None,
            audit_source=str(audit["source"]) if isinstance(audit, dict) else None,
            scores=scores_file,
            scores_scale=scores_scale,
            **stored_texts(document_.get("texts"), where),
        )
    except PairNotStored as exc:  # a hand-edited sampled report
        raise InputError(where, None, "'sampled.pairs' holding every pair the report compares", str(exc)) from None
    return analysis if sampled is None else _as_sampled(analysis, document_, sampled, where)


def _check_sampled(document: dict, sampled: Any, where: str) -> None:
    """A sampled report renders what its sums hold: refused with what it lacks, otherwise."""
    if not isinstance(sampled, dict) or not isinstance(sampled.get("runs"), dict):
        raise InputError(where, None, "'sampled' as ragreport writes it (section 29.2)", type(sampled).__name__)
    if (len(document["runs"]) > 2) != ("ranking" in document) or (document.get("slices") and "slices" not in sampled):
        raise InputError(where, None, "'ranking' for three runs or more, 'sampled.slices' beside 'slices'", "other")
    if any(run.get("bootstrap") != "poisson" for run in document["runs"]):  # a partitioned build's alone
        raise InputError(where, None, "every run's 'bootstrap' \"poisson\" in a report holding a sample", "another")


def _stored_text_queries(document: dict, where: str) -> tuple[str, ...]:
    queries = document["texts"]["queries"]
    if not all(isinstance(q, str) for q in queries):
        raise InputError(where, None, "'texts.queries' as query ids", "another value")
    return tuple(queries)


def _stored_relevant_only(document: dict, where: str) -> bool:
    """Whether the report's judgments list relevant ids alone, as a sampled report stored it."""
    if not isinstance(document.get("relevant_only"), bool):
        raise InputError(where, None, "'relevant_only' as true or false (a report holding a sample)", "none")
    return document["relevant_only"]


def _stored_sums(sampled: dict, run: dict, where: str, columns: int, measured: int | None) -> dict[str, Any]:
    """What summarise takes of a sampled report's run in place of its rows' sums and facts: the
    sums of ``columns`` columns, and of ``measured`` (None: no measure by name)."""
    name = run["name"]
    entry = sampled["runs"].get(name)
    if not isinstance(entry, dict):
        raise InputError(where, None, f"'sampled.runs' holding run {name!r}'s sums", "none")
    prints = run.get("fingerprints")
    if not isinstance(prints, dict) or not all(isinstance(prints.get(k), str) for k in ("queries", "labels")):
        raise InputError(where, None, f"run {name!r}'s 'fingerprints' (a sampled report's)", "none")
    field = f"sampled.runs.{name}"
    if (entry.get("measure_sums") is None) != (measured is None):
        raise InputError(where, None, f"'{field}.measure_sums' for the measures by name, and only then", "other")
    return {
        "sums": sums_from(entry.get("sums"), where, f"{field}.sums", columns),
        "measure_sums": None
        if measured is None
        else sums_from(entry["measure_sums"], where, f"{field}.measure_sums", measured),
        "facts": facts_from(entry.get("facts"), where, f"{field}.facts"),
        "fingerprints": (prints["queries"], prints["labels"]),
    }


def _stored_readings(run: dict, where: str) -> dict[str, dict[str, float]]:
    """Each other reading's mean by label, as the run's ``metrics`` stored them (NaN as null)."""
    out: dict[str, dict[str, float]] = {}
    for label, figure in run["metrics"].items():
        readings = figure.get("readings") or {}
        if not isinstance(readings, dict) or not all(
            m is None or (isinstance(m, (int, float)) and not isinstance(m, bool)) for m in readings.values()
        ):
            raise InputError(where, None, f"run {run['name']!r}'s '{label}.readings' as numbers by reading", "other")
        for name, mean in readings.items():
            out.setdefault(name, {})[label] = float("nan") if mean is None else float(mean)
    return out


def _as_sampled(analysis: A, document: dict, sampled: dict, where: str) -> A:
    """The analysis of a sampled report's rows with what only every query gives, as stored: the
    sample, the ranking, the scatter's grids, the queries only one run scored, the drift, the
    slices (with the queries shown with their text, which their examples chose among) and the
    sample's metadata."""
    comparison = analysis.comparison
    if comparison is not None:
        compared = sampled.get("compared") or {}
        runs = []
        for rc in comparison.runs:
            entry = compared.get(rc.run.name)
            if not isinstance(entry, dict):
                raise InputError(where, None, f"'sampled.compared' holding run {rc.run.name!r}", "none")
            listed = {
                k: tuple(str(q) for q in entry.get(k) or ()) for k in ("only_baseline", "only_run", "judged_apart")
            }
            pairing = dataclasses.replace(
                rc.pairing,
                only_baseline=listed["only_baseline"],
                only_run=listed["only_run"],
                judged_apart=listed["judged_apart"],
            )
            shape = (len(rc.family), GRID_BINS, GRID_BINS)
            try:
                grids = np.array(entry.get("grids"), dtype=np.int64)
            except (TypeError, ValueError, OverflowError):
                grids = np.zeros(0, dtype=np.int64)
            if grids.shape != shape or bool((grids < 0).any()):
                expected = f"'sampled.compared.grids' of {' x '.join(map(str, shape))} counts"
                raise InputError(where, None, expected, f"an array of shape {grids.shape}")
            runs.append(dataclasses.replace(rc, pairing=pairing, stored_grids=grids))
        comparison = dataclasses.replace(comparison, runs=tuple(runs))
    ranking = document.get("ranking")
    analysis = dataclasses.replace(
        analysis,
        comparison=comparison,
        ranking=None
        if ranking is None
        else ranking_from(ranking, analysis.min_effect, [s.name for s in analysis.summaries], where),
        sample=shown_from(sampled.get("shown"), where),
    )
    meta = stored_query_meta(document.get("query_meta"), where)
    external = document.get("scores")
    analysis = dataclasses.replace(
        analysis,
        scores=scores_from(external, document["runs"], where) if external else None,
        query_meta=None if meta is None else dict(sorted(meta.items())),
        drift=None if document.get("drift") is None else drift_from(document["drift"], sampled, analysis, where),
    )
    if "slices" not in sampled:  # sliced by no key
        return analysis
    texts = stored_texts(document.get("texts"), where)
    return dataclasses.replace(
        analysis,
        slices=slices_from(document.get("slices"), sampled, analysis, where),
        # the queries shown with their text, which the slices' examples chose among
        **({} if not texts else {"text_queries": _stored_text_queries(document, where), "doc_texts": texts["corpus"]}),
    )


def _stored_steps(run: Mapping[str, Any], queries: int, where: str) -> np.ndarray | None:
    """A multi-hop run's list lengths after each hop (its ``steps.ends``: a row per stored query,
    every row as long, whole numbers of 0 or more); None for a run of one step."""
    steps = run.get("steps")
    if steps is None:
        return None
    ends = steps.get("ends") if isinstance(steps, dict) else None
    fits = (
        isinstance(ends, list)
        and len(ends) == queries
        and all(isinstance(row, list) and len(row) == len(ends[0]) > 0 for row in ends)
        and all(type(v) is int and v >= 0 for row in ends for v in row)
    )
    if not fits:
        expected = f"run {run.get('name')!r}'s 'steps.ends': a list of {queries} equal lists of whole numbers"
        raise InputError(where, None, expected, "another value")
    return np.array(ends, dtype=np.int64).reshape(queries, -1)


# --- What analyse takes from a stored report: each field checked as written, none trusted -------


def json_kind(value: Any) -> str:
    """A JSON value's kind as an error names it: ``null``, ``a JSON list``."""
    return "null" if value is None else f"a JSON {type(value).__name__}"


def stored_query_meta(value: Any, where: str) -> dict[str, dict[str, Any]] | None:
    """A stored report's ``query_meta``: ``{query: {key: text, number or boolean}}``, or none."""
    if value is None:
        return None
    expected = "'query_meta' as an object of query ids to objects of text, numbers or booleans"
    if not isinstance(value, dict):
        raise InputError(where, 1, expected, json_kind(value))
    for query, fields in value.items():
        if not isinstance(fields, dict):
            raise InputError(where, 1, expected, f"{json_kind(fields)} for query {query!r}")
        for key, item in fields.items():
            finite = not isinstance(item, float) or math.isfinite(item)
            if not isinstance(item, (str, int, float, bool)) or not finite:
                raise InputError(where, 1, expected, f"{json_kind(item)} for query {query!r} key {key!r}")
    return value or None


def stored_slice_by(value: Any, where: str) -> tuple[str, ...]:
    """A stored report's ``settings.slice_by``: the keys it sliced by."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        raise InputError(where, 1, "'settings.slice_by' as a list of keys", json_kind(value))
    return tuple(value)


#: A history's report names its documents' text by a path of this form (docs/conventions.md 24.3).
SHARED_DOCS = re.compile(r"(?:\.\./)*assets/docs-([0-9a-f]{16})\.json")


def _shared_docs(path: str, where: str) -> Any:
    """The documents' text a history's report.json names (``../../assets/docs-HASH.json``): read
    beside the report, and only when its bytes still have the digest its name says."""
    import hashlib
    import json

    found = SHARED_DOCS.fullmatch(path)
    expected = "'texts.docs' as an object, or the path of the history's docs-HASH.json"
    if found is None:
        raise InputError(where, 1, expected, shorten(path))
    file = Path(where).parent / path
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise InputError(where, 1, f"the documents' text in {path}", type(exc).__name__) from None
    if hashlib.sha256(data).hexdigest()[:16] != found.group(1):
        raise InputError(where, 1, f"{path} as the history wrote it", "bytes of another digest")
    return json.loads(data.decode("utf-8"))


def stored_texts(texts: Any, where: str) -> dict[str, Any]:
    """The documents' text a stored report kept (for the queries it chose), as analyse takes it."""
    if texts is None:
        return {}
    expected = '\'texts\' as {"queries": [ids], "docs": {id: {"title": text, "text": text}}}'
    if not isinstance(texts, dict):
        raise InputError(where, 1, expected, json_kind(texts))
    docs, queries = texts.get("docs"), texts.get("queries")
    if isinstance(docs, str):  # a history's report: the text is kept once, in the history's assets/
        docs = _shared_docs(docs, where)
    if not isinstance(docs, dict) or not isinstance(queries, list):
        raise InputError(where, 1, expected, f"docs {json_kind(docs)}, queries {json_kind(queries)}")
    kept = {}
    for doc, entry in docs.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("title", "text")):
            raise InputError(where, 1, expected, f"{json_kind(entry)} for document {doc!r}")
        kept[doc] = (entry["title"], entry["text"])
    return {"corpus": kept, "text_queries": len(queries)}  # the same queries are chosen again
