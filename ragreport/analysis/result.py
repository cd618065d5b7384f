"""The analysis of a report: its runs' summaries and limits, the comparison and the drift.

This is what every renderer reads; it is computed once and never changed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..scoring.catalogue import PRIMARY, Metric
from .compare import Correction

if TYPE_CHECKING:  # the fields' types; an Analysis is built by the caller of those modules
    from .audit import Audit
    from .compare import ComparisonReport
    from .drift import Drift
    from .limits import Limit
    from .slices import SliceReport
    from .summary import RunSummary


@dataclass(frozen=True)
class Analysis:
    """Everything a report says, as computed: the runs, their limits, the comparison and the drift.

    What :func:`ragreport.api.analyse` returns (as its subclass :class:`~ragreport.api.Report`) and
    what every renderer reads; it is computed once and never changed.

    Attributes
    ----------
    summaries : tuple of RunSummary
        The runs, in order.
    limits : tuple of tuple of Limit
        Each run's honest limits (docs/conventions.md section 8).
    today : datetime.date
        The day that dates runs whose metadata has no ``date``.
    comparison : ComparisonReport or None
        The comparison with the baseline (several runs): paired differences, bands, corrected
        p-values and verdicts.
    drift : Drift or None
        The figures then and now, against a previous report.
    primary : Metric
        The metric the report leads with, read at K (``--primary``): the headline, the charts'
        first view and the movers.
    baseline, correction, permutations, min_effect
        The comparison's and the drift's settings, kept so that a stored report is analysed
        again alike (``ragreport render``).
    slices : SliceReport or None
        The figures by per-query metadata (``--slice``, ``--query-meta``).
    query_meta : mapping or None
        The sliced keys' values, per query.
    doc_texts : mapping or None
        (title, text) of the documents shown with their text, for the queries ``text_queries``.
    audit : Audit or None
        The model's labels audited by human labels (``--audit``): agreement on the pairs both
        judged, the family's metrics at K under both label sets and corrected, each comparison
        corrected (docs/conventions.md section 25).

    Examples
    --------
    >>> from ragreport.api import analyse, evaluate
    >>> analysis = analyse(evaluate(k=5))
    >>> [s.name for s in analysis.summaries], analysis.primary_label, analysis.comparison is None
    (['sample'], 'nDCG@5', True)
    """

    summaries: tuple[RunSummary, ...]
    limits: tuple[tuple[Limit, ...], ...]
    today: _dt.date
    comparison: ComparisonReport | None = None
    drift: Drift | None = None
    primary: Metric = PRIMARY
    baseline: str | None = None  # as asked (--baseline); the comparison names the one used
    correction: Correction = Correction.HOLM
    permutations: int = 10_000
    min_effect: float = 0.02  # the difference each comparison's queries_needed is stated for
    slices: SliceReport | None = None  # by per-query metadata (--slice, --query-meta)
    query_meta: Mapping[str, Mapping[str, object]] | None = None  # the sliced keys' values, per query
    doc_texts: Mapping[str, tuple[str, str]] | None = None  # (title, text) of the documents shown with text
    text_queries: tuple[str, ...] = ()  # the queries whose top K are shown with their text
    audit: Audit | None = None  # the model's labels audited by human labels (--audit)

    @property
    def primary_label(self) -> str:
        """The primary metric at the report's K: ``nDCG@10``."""
        return self.primary.label(self.summaries[0].k)

    def __repr__(self) -> str:
        """One line: ``Report(runs=4, queries=500, k=10, primary='nDCG@10', baseline='bm25')``."""
        baseline = self.comparison.baseline if self.comparison is not None else None
        return (
            f"{type(self).__name__}(runs={len(self.summaries)}, queries={report_queries(self.summaries)}, "
            f"k={self.summaries[0].k}, primary={self.primary_label!r}, baseline={baseline!r})"
        )


def report_queries(summaries: Sequence[RunSummary]) -> int:
    """How many distinct queries the runs cover (judged or retrieved)."""
    return len({q for s in summaries for q in s.judged.query_ids.tolist()})


def release_sweep(analysis: Analysis) -> Analysis:
    """Each run's per-query scores kept at the cutoffs asked for alone, the rest of the sweep let go.

    The bootstrap over every cutoff of the sweep and the comparison read the whole per-query
    matrix (metrics x queries x sweep: 128 MB a run at 100,000 queries); once they are done, the
    pages, report.json, summary.md and the gates read it at the cutoffs asked for only
    (``summary.cutoffs``). For a caller that owns the analysis and renders it next (``ragreport
    build``): the summaries are changed in place, so that every reference to them (the
    comparison's) lets the sweep go, and nothing may read another cutoff's per-query scores
    afterwards. The figures, bands and pages are unchanged (docs/conventions.md section 22.9).
    """
    for summary in analysis.summaries:
        if len(summary.scores.cutoffs) != len(summary.cutoffs):
            # A frozen dataclass: set as its constructor would, on the one object every part shares.
            object.__setattr__(summary, "scores", summary.scores.at_cutoffs(summary.cutoffs))
    return analysis
