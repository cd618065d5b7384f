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

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .analysis.compare import Correction, compare
from .analysis.dates import build_day
from .analysis.drift import drift
from .analysis.evaluation import score_and_summarise, summarise_loaded
from .analysis.family import choose_family
from .analysis.limits import limits
from .analysis.restored import restored
from .analysis.result import Analysis
from .analysis.slices import slice_keys, slices
from .analysis.summary import RunSummary, summarise
from .analysis.texts import merged_query_meta, shown_texts, with_query_text
from .core.errors import Argument, ArgumentError
from .core.model import Conventions
from .output.document import report_document
from .output.gates import GateResult, GateRules
from .output.publishing import History, open_history
from .output.records import Rows
from .reading.memory import is_in_memory, named_inputs
from .reading.meta import check_meta_count, check_unique_names, meta_for, run_name
from .reading.previous import load_previous
from .reading.registry import detect_file_format, load_inputs, load_qrels
from .scoring.catalogue import COMPARED
from .scoring.cutoffs import report_cutoffs
from .scoring.measures import Measure
from .scoring.partition import PARTITION_BYTES, check_engine, judged_by_partitions
from .scoring.scorable import check_scorable

__all__ = [
    "History",
    "Report",
    "Results",
    "analyse",
    "build",
    "check_gates",
    "check_scorable",
    "document",
    "evaluate",
    "open_history",
    "publish",
    "reanalyse",
    "score_and_summarise",
]

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


class Results(list, Rows):
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


class Report(Analysis, Rows):
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
        from .output.view import build_view

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
        raise ArgumentError(Argument("scheduler"), " is for ", Argument("engine", "dask"))
    if engine != "memory":
        pairs = named_inputs(inputs) if _given(inputs) else []
        if is_in_memory(qrels) or any(name is not None or is_in_memory(run) for name, run in pairs):
            raise ArgumentError(
                Argument("engine", engine), " scores run files against a qrels file; give a list of paths"
            )
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
    return Results(summarise_loaded(loaded, k, conventions, kmax, measures, progress))


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
        raise ArgumentError(
            Argument("engine", engine),
            " scores TREC run files (or folders of them) against ",
            Argument("qrels"),
            "; give both",
        )
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
            raise ArgumentError(f"{path}: ", Argument("engine", engine), " reads TREC runs; this file is not one")
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
    first = tuple(q for s in (found_slices.slices if found_slices else ()) for q in s.examples)
    chosen_queries, doc_texts = shown_texts(
        summaries, comparison, Measure(chosen.lead.key, k), corpus, text_queries, first, progress
    )
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


def reanalyse(report: str | Path | dict, *, source: str | None = None) -> Analysis:
    """The analysis of a stored report.json (a path, or the document already read), made again
    without its run files: every figure, band, comparison and drift as the build that wrote it
    made them (``ragreport render``).

    Each run's stored top lists are joined with its stored judgments and scored again at the
    stored cutoffs (:func:`~ragreport.reading.stored.stored_run`); named measures, which may read a
    whole list, take their per-query values from the stored rows; the comparison runs again with
    the stored settings (seeded), and the drift from the stored basis of the previous report.
    """
    summaries, settings = restored(report, source)
    return analyse(summaries, **settings)


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
    from .output.view import build_view
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
    from .output.view import build_view

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
