"""The library's entry points, in the order data flows: :func:`evaluate` (read, join, score,
summarise every run), :func:`analyse` (or :func:`reanalyse` for a stored report.json),
:func:`document` (report.json as a dict), :func:`check_gates`, :func:`build` (the site) and
:func:`open_history` / :func:`publish` (a history of reports). Each is documented here and runs its
stage's code (``analysis/evaluation.py``, ``analysis/pipeline.py``, ...), as the command line does.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .analysis.compare import Correction
from .analysis.evaluation import evaluate_runs, score_and_summarise
from .analysis.pipeline import Analysis, analyse_runs, report_queries
from .analysis.power import MIN_EFFECT
from .analysis.shown import held_sample, sample_choice
from .analysis.summary import RunSummary
from .analysis.texts import TEXT_QUERIES
from .core.model import Conventions, Judgments
from .output.building import build, publish
from .output.exports.gates import check_gates
from .output.exports.history import History, open_history
from .output.exports.records import Rows
from .output.exports.reportjson.read import load_previous
from .output.exports.reportjson.restore import reanalysed
from .output.exports.reportjson.write import report_document
from .reading.registry import load_inputs
from .scoring.catalogue import Metric
from .scoring.join import join
from .scoring.measures import Measure, measures_named, score_measures
from .scoring.metrics import scored_queries
from .scoring.scorable import check_scorable

__all__ = ["Calculated", "History", "Report", "Results", "analyse", "build", "calc", "check_gates", "check_scorable"]
__all__ += ["document", "evaluate", "open_history", "publish", "reanalyse", "score_and_summarise"]

Progress = Callable[[str], None]


def _quiet(stage: str) -> None:
    return None


class Results(list, Rows):
    """What :func:`evaluate` returns: a list of run summaries, one per run, shown as a table.

    Each item is a :class:`~ragreport.analysis.summary.RunSummary`, in the order the runs were
    given. A notebook shows the suite matrix of :func:`analyse` with its defaults;
    :meth:`to_records` and :meth:`to_dataframe` give its figures as rows.

    Examples
    --------
    One relevant id per query, found at rank 1 (q1) and rank 2 (q2): P@2 is 1/2 on each.

    >>> results = evaluate({"bm25": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d4": 0.5}}},
    ...                    qrels={"q1": {"d1": 1}, "q2": {"d4": 1}}, k=2)
    >>> [s.name for s in results]
    ['bm25']
    >>> for row in results.to_records():
    ...     if row["metric"] in ("P@2", "R@2", "Hit@2"):
    ...         print(row["metric"], row["mean"], row["n"])
    P@2 0.5 2
    R@2 1.0 2
    Hit@2 1.0 2
    """

    def _summaries(self) -> Sequence[RunSummary]:
        return self

    def _sampled(self) -> str | None:
        choice = sample_choice(self)
        if choice is None:
            return None
        return (
            f"the results hold {len(choice.ids):,} of their {choice.total:,} queries (docs/conventions.md "
            "section 29.3): evaluate without sample_on for every query's"
        )

    def __repr__(self) -> str:
        """One line: ``Results(runs=4, queries=500, k=10)``; a notebook shows the table."""
        k = self[0].k if self else None
        choice = sample_choice(self)
        queries = report_queries(self) if choice is None else choice.total
        return f"Results(runs={len(self)}, queries={queries}, k={k})"

    def _repr_html_(self) -> str:
        return analyse(self)._repr_html_()


class Report(Analysis, Rows):
    """What :func:`analyse` returns: the analysis of the runs, shown as the report's table.

    An :class:`~ragreport.analysis.pipeline.Analysis`. A notebook shows the report's suite matrix,
    with the comparison's ▲/▼ verdicts; :meth:`to_records` and :meth:`to_dataframe` give its rows.

    Examples
    --------
    >>> report = analyse(evaluate({"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0}}},
    ...                           qrels={"q1": {"d1": 1, "d2": 0}}, k=1))
    >>> '<table class="suite-matrix">' in report._repr_html_()
    True
    >>> [(r["run"], r["mean"]) for r in report.to_records() if r["metric"] == "P@1"]
    [('a', 1.0), ('b', 0.0)]
    """

    def _summaries(self) -> Sequence[RunSummary]:
        return self.summaries

    def _sampled(self) -> str | None:
        return held_sample(self)

    def _repr_html_(self) -> str:
        from .output.site.render import render_notebook
        from .output.site.view.build import build_view

        return render_notebook(build_view(self, pages=False))


def evaluate(
    inputs: Any = (),
    *,
    qrels: Any = None,
    k: int | Sequence[int] | None = None,
    conventions: Conventions = Conventions(),
    kmax: int | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    labels: str = "qrels",
    columns: str | Mapping[str, str] | None = None,
    id_from: str = "query",
    measures: str | Sequence[str | Measure | Metric] = (),
    progress: Progress = _quiet,
    engine: str = "memory",
    scheduler: str | None = None,
    partition_bytes: int | None = None,
    whole_lists: bool = True,
    sample_on: str | Measure | None = None,
    sample_texts: int = 0,
    sample_baseline: str | None = None,
    sample_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    sample_slice_by: Sequence[str] = (),
    sample_audit: str | Path | Mapping[str, Mapping[str, int]] | Judgments | None = None,
) -> Results:
    """Load, join, score and summarise every run: every metric of the suite with its band.

    Parameters
    ----------
    inputs : path, run, mapping or list, default ()
        The runs: paths (TREC runs, RAG JSONL, JSON, CSV; a folder of TREC partitions with
        ``engine="stream"`` or ``"dask"``), a run in memory (``{query_id: {doc_id: score}}``, or a
        DataFrame with ``query_id``, ``doc_id``, ``score``), a mapping of run names to either, or a
        list mixing them (:mod:`ragreport.reading.memory`). Empty: the preloaded sample.
    qrels : path, mapping or DataFrame, optional
        The judgments: a TREC qrels file, ``{query_id: {doc_id: grade}}``, a DataFrame with
        ``query_id``, ``doc_id``, ``relevance``, or ``"irds:ID"`` (the ``irds`` extra). A RAG JSONL
        run may carry its own.
    k : int or sequence of int, optional
        The cutoff K (several: the first is the report's K). Default 10, the sample's 5.
    conventions : Conventions, default Conventions()
        The denominator, the gain, missing judgments, the order of ties, queries with no relevant
        id, and the bands (confidence, resamples, seed).
    kmax : int, optional
        The largest cutoff of the K sweep; default the runs' longest list, at most 100, at least
        max(10, 2K), rounded up to the sweep's grid (docs/conventions.md section 4, the K sweep).
    metas : sequence of paths, default ()
        One metadata file (TOML or JSON) per run, in order.
    input_format : str, optional
        A format name (``jsonl``, ``trec``, ``json``, ``csv``, ``msmarco``) instead of detecting each
        file's, or a RAG tool's preset (``llamaindex``, ``mlflow``, ``openinference``, ``rank_eval``:
        docs/rag-stacks.md).
    labels : {"qrels", "own"}, default "qrels"
        Which labels score a RAG JSONL run that carries its own ``relevant`` when ``qrels`` is given
        too. ``qrels``: the qrels, the run's own set aside with one
        :class:`~ragreport.core.errors.RagreportWarning` naming the files and their rows. ``own``: its
        own rows' labels; ``qrels`` then score only the runs that carry none. Runs scored against
        different labels are compared on the queries they judge alike only (docs/conventions.md
        section 10).
    columns : str or mapping, optional
        Read each run file as a table of these columns, in any layout (JSONL, a JSON array, CSV/TSV,
        Parquet): ``"id=qid,query=question,retrieved=doc_ids,relevant=gold"`` or a mapping of the
        same roles (:mod:`ragreport.reading.columns`); beside a preset ``input_format``, over its names.
    id_from : {"query", "row"}, default "query"
        The id of a table row without one: a hash of its query text (the same question keeps its
        id across runs), or ``row-N`` by its position.
    measures : str or sequence of str or Measure, default ()
        Measures scored besides the suite, as trec_eval, ir_measures or ranx spell them
        (``"P@5,R@100"``, ``["trec-dl", "RBP(p=0.9)"]``), or parsed already.
    progress : callable, optional
        Called with the name of each stage as it starts.
    engine : {"memory", "stream", "dask"}, default "memory"
        ``memory`` reads each run whole; ``stream`` and ``dask`` score TREC run files by partitions
        of whole queries, one after another or on a Dask cluster, with the same figures.
    scheduler : str, optional
        With ``engine="dask"``: the Dask scheduler's address (default: a local cluster).
    partition_bytes : int, optional
        With ``engine="stream"`` or ``"dask"``: bytes of run file per partition (default 64 MiB).
    whole_lists : bool, default True
        Keep each run's whole lists; False cuts them, once scored, to the depth the report reads
        (as ``ragreport build`` does: 13% less memory at 100,000 queries x 100 ids).
    sample_on : str or Measure, optional
        With ``engine="stream"`` or ``"dask"``, past 100,000 queries: keep
        only the rows of the sample the pages list, its extremes on this measure (the report's
        primary metric at K, ``"nDCG@10"``), the other rows written to disk and never gathered, as
        ``ragreport build`` does (docs/conventions.md section 29.2). Every figure is still every
        query's; analyse the results with no previous report holding every query's rows (one
        holding a sample drifts by its means), slices only by ``sample_meta`` and an audit only by
        ``sample_audit``.
    sample_texts : int, default 0
        With ``sample_on``: how many queries the pages will show with their text (``analyse``'s
        ``text_queries``, with a ``corpus``), which the sample then holds.
    sample_baseline : str, optional
        With ``sample_on``: the run the sample's wins and losses are against, the report's
        ``baseline`` (default the first run); with three runs or more, ``analyse`` keeps it.
    sample_meta, sample_slice_by : optional
        With ``sample_on``: the queries' metadata and the keys ``analyse`` will slice by (its
        ``query_meta`` and ``slice_by``), whose slices' example queries the sample then holds.
    sample_audit : optional
        With ``sample_on``: the audit ``analyse`` will read (its ``audit``), whose audited queries
        the sample then holds (docs/conventions.md section 29.3).

    Returns
    -------
    Results
        A :class:`~ragreport.analysis.summary.RunSummary` per run, in order.

    Raises
    ------
    ragreport.core.errors.InputError
        A file that cannot be read as what it was given as (it names the file and the line).
    ValueError
        A run or judgments in memory holding a value that is not a score or a grade.
    ragreport.core.errors.UsageError
        Arguments that do not fit together (an ``ArgumentError`` names the argument), or runs and
        judgments that share no query id.

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
            labels=labels,
            columns=columns,
            id_from=id_from,
            measures=measures_named(measures),
            progress=progress,
            engine=engine,
            scheduler=scheduler,
            partition_bytes=partition_bytes,
            cut_lists=not whole_lists,
            sample_on=None if sample_on is None else measures_named(sample_on)[0],
            sample_texts=sample_texts,
            sample_baseline=sample_baseline,
            sample_meta=sample_meta,
            sample_slice_by=sample_slice_by,
            sample_audit=sample_audit,
        )
    )


def analyse(
    summaries: Sequence[RunSummary],
    *,
    today: _dt.date | None = None,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    previous: str | Path | History | None = None,
    primary: str | None = None,
    family: str | Sequence[str | Measure | Metric] | None = None,
    progress: Progress = _quiet,
    query_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    slice_by: Sequence[str] = (),
    queries: str | Path | Mapping[str, str] | None = None,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None = None,
    text_queries: int = TEXT_QUERIES,
    min_effect: float = MIN_EFFECT,
    audit: str | Path | Mapping[str, Mapping[str, int]] | Judgments | None = None,
    scores: str | Path | None = None,
    scores_scale: Sequence[str] = (),
    scores_columns: str | Mapping[str, str] | None = None,
) -> Report:
    """The report of the runs: honest limits, the comparison with a baseline, drift, slices and texts.

    Parameters
    ----------
    summaries : sequence of RunSummary
        What :func:`evaluate` returns.
    today : datetime.date, optional
        Dates runs without a ``date`` in their metadata; default ``SOURCE_DATE_EPOCH``, else today.
    baseline : str, optional
        The run the others are compared with; default the first.
    correction : Correction, default Correction.HOLM
        The multiple-comparison correction over the comparison family.
    permutations : int, default 10_000
        Random sign flips of the paired randomization test (1 to 10,000,000); exact when 2^n is at
        most this.
    previous : path or History, optional
        An earlier report.json, or a history (the report it published last): the drift since it,
        when the query and label sets are the same.
    primary : str, optional
        The metric the report leads with, a compared metric at K in any spelling; default nDCG at K.
    family : sequence of str or Measure, optional
        What is compared, tested and corrected together (``["nDCG@10", "R@10"]``, ``["trec-dl"]``,
        ``"RR(rel=2)@10"``), in the comparison and the drift; each member needs per-query values (a
        suite metric at a scored cutoff, or a measure given to :func:`evaluate`). The primary
        metric must be a member.
    progress : callable, optional
        Called with the name of each stage as it starts.
    query_meta : path or mapping, optional
        Per-query metadata (CSV, TSV or JSONL, or ``{query: {key: value}}``), over the runs' own.
    slice_by : sequence of str, default ()
        The metadata keys to slice by; default every text key with 2 to 50 values.
    queries : path or mapping, optional
        The queries' text (a file, ``"irds:ID"``, or ``{query: text}``) where the runs give none.
    corpus : path or mapping, optional
        The documents' text (a file, ``"irds:ID"``, or ``{id: (title, text)}``), read for the top
        K of the queries the report points at most.
    text_queries : int, default 1_000
        How many queries show their documents' text: the largest differences from the baseline
        on the primary metric (for one run, its lowest scores).
    min_effect : float, default 0.02
        The smallest difference worth finding: each comparison says how many queries would find it
        with 80% power (docs/conventions.md section 20.3).
    audit : path, mapping or Judgments, optional
        Human judgments for a sample of queries, the main judgments being a model judge's: their
        agreement, the family at K under both label sets, and the figures corrected by the audit,
        which the headline and the gates read (docs/conventions.md section 25). Refused with
        fewer than 10 audited queries, or audited queries the main judgments do not cover.
    scores : path, optional
        Per-query scores computed outside ragreport (JSONL, a JSON array, CSV/TSV or Parquet:
        ``query_id`` or ``id``, an
        optional ``run`` and ``judge``, every other numeric column a named score): each a metric of
        its own, with its band, its comparison with the baseline and its gates, in a table of its
        own (:mod:`ragreport.analysis.scores`).
    scores_scale : sequence of str, default ()
        The scores' scales, ``"1-5"`` (every score) or ``"grade=1-5"``; default inferred from the values.
    scores_columns : str or mapping, optional
        The score file's own column names, ``"id=qid,run=system,judge=model"`` or a mapping of the
        roles ``id``, ``query``, ``run``, ``judge`` to columns (``--scores-columns``).

    Returns
    -------
    Report
        The analysis :func:`document`, :func:`build` and :func:`publish` read.

    Raises
    ------
    ragreport.core.errors.ArgumentError
        An argument the report cannot use, named by its keyword.
    ragreport.core.errors.InputError
        A ``previous``, ``query_meta``, ``queries`` or ``corpus`` file that cannot be read.

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
    given = [family] if isinstance(family, str) else family
    named = None if given is None else [item.key if isinstance(item, Metric) else item for item in given]
    # A report.json goes by its file name: a published report never shows a path of the machine that built it.
    if previous is None or isinstance(previous, History):
        basis = None if previous is None else previous.previous_basis
    else:
        basis = load_previous(previous), Path(previous).name
    return analyse_runs(
        summaries,
        today=today,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        primary=primary,
        family=named,
        progress=progress,
        previous_basis=basis,
        min_effect=min_effect,
        audit=audit,
        query_meta=query_meta,
        slice_by=slice_by,
        queries=queries,
        corpus=corpus,
        text_queries=text_queries,
        scores=scores,
        scores_scale=scores_scale,
        scores_columns=scores_columns,
        make=Report,
    )


def reanalyse(report: str | Path | dict, *, source: str | None = None) -> Analysis:
    """The analysis of a stored report.json made again without its run files (``ragreport render``).

    Each run's stored top lists are joined with its stored judgments and scored again at the stored
    cutoffs; named measures take their per-query values from the stored rows; the comparison runs
    again with the stored (seeded) settings, the drift from the previous report's stored basis
    (:mod:`ragreport.output.exports.reportjson.restore`). :func:`build` then writes the same site, byte for byte.

    Parameters
    ----------
    report : path or dict
        A report.json ragreport wrote (``build``, ``score --format json``, :func:`document`), or
        the document already read.
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

    Examples
    --------
    >>> made = document(analyse(evaluate(k=5)), title="Sample")
    >>> made["settings"]["title"], [run["name"] for run in made["runs"]]
    ('Sample', ['sample'])
    """
    return report_document(analysis, title)


class Calculated(NamedTuple):
    """What :func:`calc` returns: each measure's mean, and its value for each query the mean counts.

    Attributes
    ----------
    means : dict of str to float
        By the measure's label (``"nDCG@10"``).
    per_query : dict of str to dict of str to float
        ``per_query[label][query_id]``.

    Examples
    --------
    >>> calc({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}}, "P@1").means
    {'P@1': 1.0}
    """

    means: dict[str, float]
    per_query: dict[str, dict[str, float]]


def calc(
    qrels: Any,
    run: Any,
    measures: str | Sequence[str | Measure | Metric] = "nDCG@10",
    *,
    conventions: Conventions = Conventions(),
) -> Calculated:
    """Score one run in one call: each measure's mean and per-query values, without bands.

    As ``ir_measures.calc_aggregate`` and ``ranx.evaluate`` give them. A mean counts the queries
    with a relevant id (``conventions`` may count more: ``no_relevant``, ``missing``;
    docs/conventions.md section 3); a count (``num_rel``) is summed over them and a geometric
    mean (``gm_map``) is the exponent of the mean logarithm, as trec_eval gives them.

    Parameters
    ----------
    qrels : path, mapping or DataFrame
        The judgments, as :func:`evaluate` reads them (``{query_id: {doc_id: grade}}``, ...).
    run : path, mapping or DataFrame
        One run, as :func:`evaluate` reads it (``{query_id: {doc_id: score}}``, a TREC run, ...).
    measures : str or sequence, default "nDCG@10"
        The measures, in any spelling :func:`evaluate` reads (``"P@5,R@100"``, ``["map", "ndcg_cut_10"]``).
    conventions : Conventions, default Conventions()
        How the figures are computed (``Conventions.trec_eval()``-like presets: ``COMPAT_PRESETS``).

    Returns
    -------
    Calculated
        ``(means, per_query)``.

    Examples
    --------
    >>> means, per_query = calc({"q1": {"d1": 1}, "q2": {"d9": 1}},
    ...                         {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}, "P@1,RR@10")
    >>> means
    {'P@1': 0.5, 'RR@10': 0.5}
    >>> per_query["P@1"]
    {'q1': 1.0, 'q2': 0.0}
    """
    parsed = measures_named(measures)
    loaded = load_inputs([run], qrels=qrels, order=conventions.order)[0]
    judged = join(loaded.run, loaded.judgments, conventions.relevance_level)
    check_scorable(judged, loaded.judgments.source or "the judgments", conventions)
    scored = scored_queries(judged, conventions)
    values, ids = score_measures(judged, parsed, conventions)[:, scored], judged.query_ids[scored].tolist()
    means, per_query = {}, {}
    for measure, row in zip(parsed, values):
        label, epsilon = measure.label(), measure.metric.geometric
        if measure.is_count:
            means[label] = float(row.sum())
        elif not len(row):
            means[label] = math.nan
        else:
            means[label] = float(row.mean() if epsilon is None else np.exp(np.log(np.maximum(row, epsilon)).mean()))
        per_query[label] = dict(zip(ids, row.tolist()))
    return Calculated(means, per_query)
