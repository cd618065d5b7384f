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

from .analysis.compare import Correction
from .analysis.evaluation import evaluate_runs, score_and_summarise
from .analysis.pipeline import analyse_runs, reanalysed
from .analysis.result import Analysis
from .analysis.summary import RunSummary
from .analysis.texts import TEXT_QUERIES
from .core.model import Conventions
from .output.building import build_outputs, publish_report
from .output.document import report_document
from .output.gates import GateResult, GateRules
from .output.gates import evaluate as evaluate_gates
from .output.publishing import History, open_history
from .output.records import Rows
from .scoring.cutoffs import DEFAULT_K as DEFAULT_K  # the defaults of K, as they were here
from .scoring.cutoffs import SAMPLE_K as SAMPLE_K
from .scoring.measures import Measure
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

Progress = Callable[[str], None]


def _quiet(stage: str) -> None:
    return None


#: What :func:`evaluate` takes as runs: a path, an in-memory run (``{query_id: {doc_id: score}}``
#: or a data frame), a mapping of run names to either, or a list of either.
Runs = Any
#: What :func:`evaluate` takes as judgments: a path, ``{query_id: {doc_id: grade}}`` or a data frame.
Qrels = Any


class Results(list, Rows):
    """What :func:`evaluate` returns: a list of run summaries, one per run, shown as a table.

    Each item is a :class:`~ragreport.analysis.summary.RunSummary`; the runs keep the order they
    were given in. A notebook shows the list as the report's suite
    matrix (the report :func:`analyse` makes of it with its defaults); :meth:`to_records` and
    :meth:`to_dataframe` give its figures as rows.

    See Also
    --------
    evaluate : makes it.
    analyse : the report of these runs.

    Examples
    --------
    One relevant id per query, found at rank 1 (q1) and rank 2 (q2): P@2 is 1/2 on each.

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
    """What :func:`analyse` returns: the analysis of the runs, shown as the report's table.

    An :class:`~ragreport.analysis.result.Analysis`: what :func:`document` and :func:`build` read.
    A notebook shows it as the report's suite matrix, with the comparison's ▲/▼ verdicts;
    :meth:`to_records` and :meth:`to_dataframe` give its figures as rows.

    See Also
    --------
    analyse : makes it.
    ragreport.analysis.result.Analysis : its fields (the summaries, limits, comparison, drift).

    Examples
    --------
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
    """Load, join, score and summarise every run: every metric of the suite with its band.

    Parameters
    ----------
    inputs : path, run, mapping or list, default ()
        The runs: a path or a list of paths (TREC runs, RAG JSONL, JSON, CSV; a folder of TREC
        partitions with ``engine="stream"`` or ``"dask"``), a run held in memory
        (``{query_id: {doc_id: score}}`` as pytrec_eval and ranx use, or a pandas DataFrame with the
        columns ``query_id``, ``doc_id``, ``score``), a mapping of run names to either, or a list
        mixing them (see :mod:`ragreport.reading.memory`). Empty: the preloaded sample.
    qrels : path, mapping or DataFrame, optional
        The judgments: a TREC qrels file, ``{query_id: {doc_id: grade}}`` or a DataFrame with the
        columns ``query_id``, ``doc_id``, ``relevance``. A RAG JSONL run may carry its own.
    k : int or sequence of int, optional
        The cutoff K (several: the first is the report's K). Default 10, the sample's 5.
    conventions : Conventions, default Conventions()
        How the figures are computed: the denominator, the gain, missing judgments, the order of
        ties, queries with no relevant id, and the bands (confidence, resamples, seed).
    kmax : int, optional
        The largest cutoff of the K sweep; default max(10, 2K).
    metas : sequence of paths, default ()
        One metadata file (TOML or JSON) per run, in order.
    input_format : str, optional
        A format name (``jsonl``, ``trec``, ``json``, ``csv``) instead of detecting each file's.
    measures : sequence of Measure, default ()
        Measures scored by name besides the suite (``parse_measures(["ndcg_cut_20"])``).
    progress : callable, optional
        Called with the name of each stage as it starts.
    engine : {"memory", "stream", "dask"}, default "memory"
        ``memory`` reads each run whole; ``stream`` and ``dask`` score TREC run files by
        partitions of whole queries (:mod:`ragreport.scoring.partition`), one after another or on
        a Dask cluster, with the same figures.
    scheduler : str, optional
        With ``engine="dask"``: the address of the Dask scheduler (default: a local cluster).
    partition_bytes : int, optional
        With ``engine="stream"`` or ``"dask"``: bytes of run file per partition (default 64 MiB).

    Returns
    -------
    Results
        A list of :class:`~ragreport.analysis.summary.RunSummary`, one per run, in order.

    Raises
    ------
    ragreport.core.errors.InputError
        A file that cannot be read as what it was given as (it names the file and the line).
    ValueError
        A run or judgments in memory holding a value that is not a score or a grade
        (:class:`~ragreport.reading.memory.ObjectError`).
    ragreport.core.errors.UsageError
        Arguments that do not fit together, or runs and judgments that share no query id; an
        :class:`~ragreport.core.errors.ArgumentError` names the argument (``kmax (4) must be at
        least K (5)``).

    See Also
    --------
    analyse : the report of these runs: limits, the comparison, drift.
    ragreport.reading.registry.load_runs : the files alone, read into typed runs.

    Examples
    --------
    q1 finds its relevant id at rank 1; q2's tie puts d4 first (ids descending, as trec_eval does),
    so P@1 is (1 + 0) / 2:

    >>> results = evaluate(
    ...     {"bm25": {"q1": {"d1": 12.5, "d2": 3.0}, "q2": {"d3": 7.0, "d4": 7.0}}},
    ...     qrels={"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}},
    ...     k=1,
    ... )
    >>> summary = results[0]
    >>> summary.name, summary.counts.scored
    ('bm25', 2)
    >>> summary.at_k["P@1"].mean
    0.5
    >>> evaluate(k=5)[0].counts.queries  # no runs: the preloaded sample's ten queries
    10
    >>> evaluate({"q1": {"d1": "high"}}, qrels={"q1": {"d1": 1}})
    Traceback (most recent call last):
    ...
    ragreport.reading.memory.ObjectError: run 'run', query 'q1': expected a number for document 'd1', got 'high'
    >>> evaluate({"q1": {"d1": 1.0}}, qrels={"q1": {"d1": 1}}, k=5, kmax=4)
    Traceback (most recent call last):
    ...
    ragreport.core.errors.ArgumentError: kmax (4) must be at least K (5)
    """
    return Results(
        evaluate_runs(
            inputs,
            qrels=qrels,
            k=k,
            conventions=conventions,
            kmax=kmax,
            metas=metas,
            input_format=input_format,
            measures=measures,
            progress=progress,
            engine=engine,
            scheduler=scheduler,
            partition_bytes=partition_bytes,
        )
    )


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
    """The report of the runs: honest limits, the comparison with a baseline, drift, slices and texts.

    Parameters
    ----------
    summaries : sequence of RunSummary
        What :func:`evaluate` returns.
    today : datetime.date, optional
        The day that dates runs without a ``date`` in their metadata; default the build's day
        (``SOURCE_DATE_EPOCH`` when set, else today).
    baseline : str, optional
        The run the others are compared with (several runs); default the first.
    correction : Correction, default Correction.HOLM
        The multiple-comparison correction over the comparison family.
    permutations : int, default 10_000
        Random sign flips of the paired randomization test (from 1 to 10,000,000); the test is
        exact when 2^n is at most this.
    previous : path, optional
        An earlier report.json: the drift since it, when the query and label sets are the same.
    primary : str, optional
        The metric the report leads with, a compared metric at K in any spelling the name parser
        reads (``"nDCG@10"``, ``"recall_10"``); default nDCG at K.
    family : sequence of str or Measure, optional
        What is compared, tested and corrected together (``["nDCG@10", "R@10"]``), in the
        comparison and the drift; each member needs per-query values (a suite metric at a scored
        cutoff, or a measure given to :func:`evaluate`). The primary metric must be a member.
    progress : callable, optional
        Called with the name of each stage as it starts.
    previous_basis : (dict, str), optional
        A stored report's drift basis and the previous report's file name, in place of
        ``previous`` (what :attr:`History.previous_basis` gives).
    query_meta : path or mapping, optional
        Per-query metadata (a CSV, TSV or JSONL file, or ``{query: {key: value}}``), over what the
        runs carry (RAG JSONL ``meta``).
    slice_by : sequence of str, default ()
        The metadata keys to slice by; default every text key with 2 to 50 values
        (:mod:`ragreport.analysis.slices`).
    queries : path or mapping, optional
        The queries' text (a file, or ``{query: text}``) where the runs give none.
    corpus : path or mapping, optional
        The documents' text (a file, or ``{id: (title, text)}``), read for the top K of the
        queries the report points at most.
    text_queries : int, default 1_000
        How many queries are shown with their documents' text: the largest differences from the
        baseline on the primary metric (for one run, its lowest scores).

    Returns
    -------
    Report
        The analysis :func:`document`, :func:`build` and :func:`publish` read.

    Raises
    ------
    ragreport.core.errors.ArgumentError
        An argument the report cannot use, named by its keyword (``baseline 'x' names no run``,
        ``permutations must be from 1 to 10,000,000, got 0``).
    ragreport.core.errors.InputError
        A ``previous``, ``query_meta``, ``queries`` or ``corpus`` file that cannot be read.

    See Also
    --------
    evaluate : the summaries.
    build : the site of the report.
    document : the report as report.json holds it.

    Examples
    --------
    ``dense`` ranks q1's relevant id second and misses q2's: at K = 1 it loses 1 on both queries.

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
    >>> analyse(results, baseline="splade")
    Traceback (most recent call last):
    ...
    ragreport.core.errors.ArgumentError: baseline 'splade' names no run; the runs are 'bm25', 'dense'
    """
    return analyse_runs(
        summaries,
        today=today,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        previous=previous,
        primary=primary,
        family=family,
        progress=progress,
        previous_basis=previous_basis,
        query_meta=query_meta,
        slice_by=slice_by,
        queries=queries,
        corpus=corpus,
        text_queries=text_queries,
        make=Report,
    )


def reanalyse(report: str | Path | dict, *, source: str | None = None) -> Analysis:
    """The analysis of a stored report.json made again without its run files (``ragreport render``).

    Each run's stored top lists are joined with its stored judgments and scored again at the
    stored cutoffs; named measures take their per-query values from the stored rows; the
    comparison runs again with the stored settings (seeded), the drift from the stored basis of
    the previous report (:mod:`ragreport.analysis.restored`). :func:`build` then writes the same
    site, byte for byte.

    Parameters
    ----------
    report : path or dict
        A report.json written by ``ragreport build`` (or ``score --format json``, or
        :func:`document`), or the document already read.
    source : str, optional
        The report's name in errors; default its path (or ``report.json``).

    Returns
    -------
    Analysis
        Every figure, band, comparison and drift as the build that wrote the report made them.

    Raises
    ------
    ragreport.core.errors.InputError
        A report that is not one ragreport wrote, or one changed since (it names the field).

    See Also
    --------
    document : the report document.
    build : the site.

    Examples
    --------
    >>> import datetime
    >>> report = analyse(evaluate(k=5), today=datetime.date(2026, 1, 1))
    >>> again = reanalyse(document(report))
    >>> document(again) == document(report)
    True
    """
    return reanalysed(report, source, make=Report)


def document(analysis: Analysis, title: str | None = None) -> dict:
    """The report document: what ``report.json`` holds (the data contract), as a dict.

    Parameters
    ----------
    analysis : Analysis
        What :func:`analyse` (or :func:`reanalyse`) returns.
    title : str, optional
        The report's title, as given to :func:`build`.

    Returns
    -------
    dict
        JSON-ready: the settings, the runs with their figures, bands and per-query values, the
        comparison, the drift (schema ``ragreport-report/1``).

    See Also
    --------
    build : writes it as report.json, beside the pages.
    check_gates : the gates checked on it.

    Examples
    --------
    >>> made = document(analyse(evaluate(k=5)), title="Sample")
    >>> made["settings"]["title"], [run["name"] for run in made["runs"]]
    ('Sample', ['sample'])
    """
    return report_document(analysis, title)


def check_gates(document: dict, rules: GateRules) -> tuple[GateResult, ...]:
    """Every gate rule (``--fail-on``, ``--require``, ``--max-drop``) checked on a report document.

    Parameters
    ----------
    document : dict
        The report document (:func:`document`).
    rules : GateRules
        The rules, made with :func:`ragreport.output.gates.parse_rules`.

    Returns
    -------
    tuple of GateResult
        One result per rule and run checked, each with the line the command line prints; none
        without rules.

    Raises
    ------
    ragreport.core.errors.UsageError
        A rule naming a metric or a run the report does not hold.

    See Also
    --------
    build : shows the results on the index, in summary.md and in report.json.

    Examples
    --------
    >>> from ragreport.output.gates import failed, parse_rules
    >>> report = document(analyse(evaluate(k=5)))
    >>> checks = check_gates(report, parse_rules(require=["P@5>=0.99"]))
    >>> [(c.run, c.metric, c.passed) for c in checks]
    [('sample', 'P@5', False)]
    >>> bool(failed(checks))
    True
    """
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

    Every page is self-contained (no network, its script and stylesheet inline). A folder is
    written beside its target and moved into place; one that is not an earlier ragreport build is
    refused, never replaced.

    Parameters
    ----------
    analysis : Analysis
        What :func:`analyse` (or :func:`reanalyse`) returns.
    out : path or None, default "site"
        The site folder (index.html, a page per run, the comparison, report.json, summary.md);
        None: no folder.
    single_file : path, optional
        One HTML file holding the whole report.
    title : str, optional
        The report's title.
    progress : callable, optional
        Called with the name of each stage as it starts.
    gates : sequence of GateResult, default ()
        Gate results (:func:`check_gates`), shown on the index, in summary.md and in report.json.
    document : dict, optional
        The report document, when the caller made it already (:func:`document`).
    rules : GateRules, optional
        The rules ``gates`` checked, kept in report.json's settings.

    Returns
    -------
    list of pathlib.Path
        What was written: the folder, then the single file.

    Raises
    ------
    ragreport.core.errors.UsageError
        An empty name, or a target that is not an earlier ragreport output.
    ragreport.core.errors.WriteError
        An output that could not be written; what was there before is left as it was.

    See Also
    --------
    publish : the report added to a history of reports.
    document : report.json alone.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> written = build(analyse(evaluate(k=5)), out=folder / "site", single_file=folder / "report.html")
    >>> [path.name for path in written]
    ['site', 'report.html']
    >>> (folder / "site" / "index.html").is_file()
    True
    """
    return build_outputs(
        analysis,
        out=out,
        single_file=single_file,
        title=title,
        progress=progress,
        gates=gates,
        document=document,
        rules=rules,
    )


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
    """Add the report to a history of reports and rewrite its page; the report's folder.

    The report goes to ``reports/LABEL/`` (a label published again replaces that report only),
    ``history.json`` and ``index.html`` are made again from the entries, ``keep`` prunes the
    oldest reports; everything is written beside the folder and moved into place in one rename.

    Parameters
    ----------
    analysis : Analysis
        What :func:`analyse` returns, made with ``previous_basis=history.previous_basis`` for the
        drift since the report published before.
    history : History
        The history folder, from :func:`open_history`.
    title : str, optional
        The report's title.
    keep : int, optional
        Keep the newest ``keep`` reports (at least 1); default all.
    progress : callable, optional
        Called with the name of each stage as it starts.
    gates : sequence of GateResult, default ()
        Gate results (:func:`check_gates`), shown as :func:`build` shows them.
    document : dict, optional
        The report document, when the caller made it already.
    rules : GateRules, optional
        The rules ``gates`` checked.

    Returns
    -------
    pathlib.Path
        The report's folder, ``history.folder / "reports" / LABEL``.

    Raises
    ------
    ragreport.core.errors.ArgumentError
        ``keep`` below 1 (``keep=0: keep at least 1 report``).
    ragreport.core.errors.WriteError
        A history that could not be written; the one there before is left as it was.

    See Also
    --------
    open_history : the history, checked before any run is read.
    build : one report's site alone.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "history", label="first")
    >>> report = analyse(evaluate(k=5), previous_basis=history.previous_basis)
    >>> publish(report, history).name
    'first'
    >>> sorted(path.name for path in history.folder.iterdir() if not path.name.startswith("."))
    ['assets', 'history.json', 'index.html', 'reports']
    """
    return publish_report(
        analysis,
        history,
        title=title,
        keep=keep,
        progress=progress,
        gates=gates,
        document=document,
        rules=rules,
    )
