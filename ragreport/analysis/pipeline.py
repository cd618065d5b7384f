"""The analysis stage as one call (:func:`analyse_runs`): what :func:`ragreport.api.analyse` and the commands run.

Every run's honest limits, the comparison with the baseline on the comparison family, the drift
since a previous report, the slices by per-query metadata, the audit of the labels and the
documents shown with their text, into an :class:`Analysis`: what every renderer reads, computed
once and never changed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..core.errors import Argument, ArgumentError, whole_number
from ..core.model import Judgments
from ..scoring.catalogue import COMPARED, PRIMARY, SUITE, Metric
from ..scoring.cutoffs import SAMPLE_K
from ..scoring.measures import Measure
from .audit import audited_limits, audited_queries, measure_audit, read_audit
from .compare import Correction, choose_family, compare
from .drift import drift, is_sampled
from .evaluation import _quiet
from .limits import build_day, limits
from .power import EFFECT_RANGE, MIN_EFFECT, MIN_EFFECT_LOW
from .randomization import MAX_PERMUTATIONS
from .ranking import rank_runs
from .shown import sample_choice, shown_queries
from .slices import slice_keys, slices
from .summary import RunSummary
from .texts import MAX_TEXT_QUERIES, TEXT_QUERIES, longer_texts, merged_query_meta, shown_texts, with_query_text

if TYPE_CHECKING:
    from ..reading.columns import ColumnMap
    from ..reading.scores import ScoreFile
    from .audit import Audit
    from .compare import ComparisonReport
    from .drift import Drift
    from .limits import Limit
    from .ranking import Ranking
    from .scores import ExternalScores
    from .shown import Shown
    from .slices import SliceReport
    from .summary import RunSummary


@dataclass(frozen=True)
class Analysis:
    """Everything a report says, as computed: the runs, their limits, the comparison and the drift.

    What :func:`ragreport.api.analyse` returns (as its subclass :class:`~ragreport.api.Report`) and
    what every renderer reads; it is computed once and never changed.

    Examples
    --------
    >>> from ragreport.api import analyse, evaluate
    >>> analysis = analyse(evaluate(k=5))
    >>> [s.name for s in analysis.summaries], analysis.primary_label, analysis.comparison is None
    (['sample'], 'nDCG@5', True)
    """

    summaries: tuple[RunSummary, ...]
    limits: tuple[tuple[Limit, ...], ...]  # each run's honest limits (docs/conventions.md section 8)
    today: _dt.date  # the day that dates runs whose metadata has no date
    comparison: ComparisonReport | None = None  # with the baseline (several runs)
    drift: Drift | None = None  # the figures then and now, against a previous report
    primary: Metric = PRIMARY  # the metric the report leads with, read at K (--primary)
    # The comparison's and the drift's settings, kept so that a stored report is analysed again
    # alike (ragreport render):
    baseline: str | None = None  # as asked (--baseline); the comparison names the one used
    correction: Correction = Correction.HOLM
    permutations: int = 10_000
    min_effect: float = 0.02  # the difference each comparison's queries_needed is stated for
    slices: SliceReport | None = None  # by per-query metadata (--slice, --query-meta)
    query_meta: Mapping[str, Mapping[str, object]] | None = None  # the sliced keys' values, per query
    doc_texts: Mapping[str, tuple[str, str]] | None = None  # (title, text) of the documents shown with text
    text_queries: tuple[str, ...] = ()  # the queries whose top K are shown with their text
    query_details: Mapping[str, str] | None = None  # a query's longer text (a TREC topic's description, narrative)
    audit: Audit | None = None  # the model's labels audited by human labels (--audit, section 25)
    ranking: Ranking | None = None  # every pair of three or more runs, their ranks and tiers (section 27)
    scores: ExternalScores | None = None  # per-query scores computed outside ragreport (--scores)
    #: The queries the pages list past PAGE_QUERIES (:func:`~ragreport.analysis.shown.shown_queries`,
    #: chosen once; a sampled report.json's as stored, section 29.2); None: every query.
    sample: Shown | None = None

    @property
    def relevant_only(self) -> bool:
        """Whether every run's judgments list relevant ids alone (docs/conventions.md section 20.2):
        the report then says once that every other id counts as not relevant."""
        return all(s.judged.relevant_only for s in self.summaries)

    @property
    def queries(self) -> int:
        """How many distinct queries the runs cover: every query's count, also when the summaries
        hold a stored sample of them (a report.json past PAGE_QUERIES, section 29.2)."""
        if self.sample is not None and self.sample.rows_only:
            return self.sample.total
        return report_queries(self.summaries)

    @property
    def primary_label(self) -> str:
        """The primary metric at the report's K: ``nDCG@10``."""
        return self.primary.label(self.summaries[0].k)

    def __repr__(self) -> str:
        """One line: ``Report(runs=4, queries=500, k=10, primary='nDCG@10', baseline='bm25')``."""
        baseline = self.comparison.baseline if self.comparison is not None else None
        return (
            f"{type(self).__name__}(runs={len(self.summaries)}, queries={self.queries}, "
            f"k={self.summaries[0].k}, primary={self.primary_label!r}, baseline={baseline!r})"
        )


def _check_sampled(
    choice, baseline, runs, previous, query_meta, audit: Judgments | None, corpus, text_queries: int
) -> None:
    """Refuse what reads every query's rows of runs that hold their sample's alone (section 29.3):
    a drift from a report that holds every query's (one that holds a sample drifts by the means);
    past two runs, another ``baseline`` than the sample's extremes are against (two runs' extremes
    are the same pair's, its wins the other's losses); metadata or an audit other than the sample
    was chosen to hold the examples or the audited queries of."""
    if len(runs) > 2 and (baseline or runs[0]) != choice.baseline:
        raise ArgumentError(
            Argument("baseline"),
            f" {baseline or runs[0]!r} is not the run the sample's extremes are against ({choice.baseline!r}): "
            f"evaluate with sample_baseline={baseline or runs[0]!r}",
        )
    pairs_queries = previous is not None and not is_sampled(previous[0])
    given = {"previous": previous if pairs_queries else None}
    # a sample chosen with an audit holds its audited queries' rows (section 29.3), and no other's
    if choice.audited is None and audit is not None:
        raise ArgumentError(
            Argument("audit"),
            " reads the rows of its queries, which these results' sample was not chosen to hold: "
            "evaluate with sample_audit=it",
        )
    if choice.audited is not None and audit is None:
        raise ArgumentError(Argument("audit"), " is the audit these results' sample was chosen to hold: give it again")
    if choice.audited is not None and audit is not None and audited_queries(audit) != choice.audited:
        raise ArgumentError(
            Argument("audit"), " audits other queries than these results' sample holds: evaluate with sample_audit=it"
        )
    if choice.examples is None:  # a sample chosen with the slices holds their examples (no metadata: no slice)
        given |= {"query_meta": query_meta}
    elif query_meta is None and choice.examples:
        raise ArgumentError(
            Argument("query_meta"), " is the metadata these results' sample was chosen to slice by: give it again"
        )
    for name, value in given.items():
        if value is not None and not (isinstance(value, (list, tuple)) and not value):
            raise ArgumentError(
                Argument(name),
                " reads every query's rows; these results hold their sample's alone: evaluate without sample_on",
            )
    if corpus is not None and text_queries > choice.texts:
        raise ArgumentError(
            Argument("text_queries"),
            f" asks for {text_queries} queries with their text; the sample holds {choice.texts}: evaluate with "
            f"sample_texts={text_queries}",
        )


def report_queries(summaries: Sequence[RunSummary]) -> int:
    """How many distinct queries the runs cover (judged or retrieved)."""
    return len({q for s in summaries for q in s.judged.query_ids.tolist()})


def release_sweep(analysis: Analysis) -> Analysis:
    """Each run's per-query scores kept at the cutoffs asked for alone, the rest of the sweep let go.

    The bootstrap over the sweep and the comparison read the whole per-query matrix (186 MB a run swept to 100 at
    100,000 queries); the pages, report.json, summary.md and the gates read the cutoffs asked for
    only. For a caller that owns the analysis and renders it next (``ragreport build``): the
    summaries are changed in place, so that every reference to them lets the sweep go; nothing may
    read another cutoff's per-query scores afterwards (docs/conventions.md section 22.9).
    """
    for summary in analysis.summaries:
        if len(summary.scores.cutoffs) != len(summary.cutoffs):
            # A frozen dataclass: set as its constructor would, on the one object every part shares.
            object.__setattr__(summary, "scores", summary.scores.at_cutoffs(summary.cutoffs))
    return analysis


A = TypeVar("A", bound=Analysis)


def analyse_runs(
    summaries: Sequence[RunSummary],
    *,
    today: _dt.date | None = None,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    primary: str | None = None,
    family: Sequence[str | Measure] | None = None,
    progress: Callable[[str], None] = _quiet,
    previous_basis: tuple[dict, str] | None = None,
    query_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    slice_by: Sequence[str] = (),
    queries: str | Path | Mapping[str, str] | None = None,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None = None,
    text_queries: int = TEXT_QUERIES,
    min_effect: float = MIN_EFFECT,
    audit: str | Path | Mapping[str, Mapping[str, int]] | Judgments | None = None,
    audit_source: str | None = None,
    query_details: Mapping[str, str] | None = None,
    scores: str | Path | ScoreFile | None = None,
    scores_scale: Sequence[str] | Mapping[str | None, tuple[float, float]] = (),
    scores_columns: str | Mapping[str, str] | ColumnMap | None = None,
    make: type[A],
) -> A:
    """The analysis of the runs, made as ``make`` (:class:`Analysis`, or the API's
    :class:`~ragreport.api.Report`); :func:`ragreport.api.analyse` says what each argument takes.
    ``audit_source`` is the audit file's name the report shows when ``audit`` holds stored labels
    (``render``: their refusals name the report they were read from, their source its own file).
    ``scores``: a file of per-query scores computed outside ragreport (or its rows already read,
    as ``render`` restores them), ``scores_scale`` their scales (:mod:`ragreport.analysis.scores`),
    ``scores_columns`` its own column names (``--scores-columns``)."""
    permutations = whole_number(permutations, Argument("permutations"), 1, MAX_PERMUTATIONS)
    text_queries = whole_number(text_queries, Argument("text_queries"), 0, MAX_TEXT_QUERIES)
    today = today or build_day()
    choice = sample_choice(summaries)  # the runs hold the rows of this sample alone (section 29.3)
    if choice is not None:
        if audit is not None and not isinstance(audit, Judgments):  # read once: checked, then measured
            audit, where = read_audit(audit)
            audit_source = audit_source or Path(where).name
        _check_sampled(
            choice,
            baseline,
            [s.name for s in summaries],
            previous_basis,
            query_meta,
            audit,
            corpus,
            text_queries,
        )
    if queries is not None:
        summaries = with_query_text(summaries, queries, "the report's" if choice is None else "the sample's")
        query_details = query_details or longer_texts(summaries, queries)
    k = summaries[0].k if summaries else SAMPLE_K
    compares = len(summaries) > 1 or previous_basis is not None
    chosen = choose_family(family, k, primary, compares=compares, suite=summaries[0].suite if summaries else SUITE)
    lead = Measure(chosen.lead.key, k)
    if len(summaries) > 1:
        progress("comparing runs")
    if (
        isinstance(min_effect, bool)
        or not isinstance(min_effect, (int, float))
        or not MIN_EFFECT_LOW <= min_effect <= 1
    ):
        raise ArgumentError(Argument("min_effect"), f" must be {EFFECT_RANGE}, got {min_effect!r}")
    comparison = compare(
        summaries,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        family=chosen,
        min_effect=min_effect,
    )
    ranking = rank_runs(summaries, lead, correction=correction, permutations=permutations, margin=min_effect)
    # Drift tests the family's members it shows: the suite's metrics at K.
    shown = {(f.metric, f.cutoff) for f in chosen.measures if f.plain}
    tested = tuple(m for m in COMPARED if (m, k) in shown)
    found_drift = (
        None
        if previous_basis is None
        else drift(*previous_basis, summaries, correction=correction, permutations=permutations, tested=tested)
    )
    found_audit = None
    if audit is not None and summaries:
        progress("auditing the labels")
        found_audit = measure_audit(summaries, audit, "audit", chosen.lead, comparison, tested, audit_source)
    meta = merged_query_meta(summaries, query_meta)
    keys = slice_keys(meta, slice_by) if meta else ()
    found_scores = None
    if scores is not None and summaries:
        from ..reading.columns import SCORE_ROLES, parse_columns
        from ..reading.scores import read_scores
        from .scores import external_scores

        progress("reading the scores")
        found_scores = external_scores(
            read_scores(scores, columns=parse_columns(scores_columns, "--scores-columns", SCORE_ROLES))
            if isinstance(scores, (str, Path))
            else scores,
            summaries,
            baseline=None if comparison is None else comparison.baseline,
            correction=correction,
            permutations=permutations,
            min_effect=min_effect,
            scales=scores_scale,
        )
    found_slices = None
    if keys:
        progress("slicing")
        found_slices = slices(
            summaries, meta, keys, chosen.measures, lead, comparison, correction, permutations, found_scores
        )
    first = tuple(q for s in (found_slices.slices if found_slices else ()) for q in s.examples)
    chosen_queries, doc_texts = shown_texts(summaries, comparison, lead, corpus, text_queries, first, progress)
    run_limits = [limits(s, today) for s in summaries]
    if found_audit is not None:
        run_limits = [audited_limits(ls, s, found_audit) for ls, s in zip(run_limits, summaries)]
    held = None if choice is None else set(choice.ids.tolist())  # the pages and report.json list the sample's
    listed = meta.items() if held is None else ((q, meta[q]) for q in held if q in meta)
    sliced = {q: {key: f[key] for key in keys if key in f} for q, f in sorted(listed)} if keys else None
    found = make(
        tuple(summaries),
        tuple(run_limits),
        today,
        comparison,
        found_drift,
        chosen.lead,
        baseline,
        correction,
        permutations,
        min_effect,
        slices=found_slices,
        query_meta=sliced,
        doc_texts=doc_texts,
        text_queries=chosen_queries,
        audit=found_audit,
        ranking=ranking,
        scores=found_scores,
        query_details=dict(sorted(query_details.items())) if query_details else None,
    )
    # the pages and report.json list the same queries: chosen once, from the whole analysis
    return replace(found, sample=shown_queries(found))
