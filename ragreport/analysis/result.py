"""The analysis of a report: its runs' summaries and limits, the comparison and the drift.

This is what every renderer reads; it is computed once and never changed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..scoring.catalogue import PRIMARY, Metric
from .compare import Correction

if TYPE_CHECKING:  # the fields' types; an Analysis is built by the caller of those modules
    from .compare import ComparisonReport
    from .drift import Drift
    from .limits import Limit
    from .slices import SliceReport
    from .summary import RunSummary


@dataclass(frozen=True)
class Analysis:
    """Everything a report says, as computed: the runs, their limits, the comparison and the drift.

    ``today`` dates runs whose metadata has no ``date``. ``primary`` is the metric the report leads
    with, read at K (``--primary``): the headline, the index chart's first view, the comparison
    scatter's first view and the movers. ``baseline``, ``correction`` and ``permutations`` are the
    comparison's and the drift's settings, kept so that a stored report is analysed again alike
    (``ragreport render``). This is what every renderer reads.
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
    slices: SliceReport | None = None  # by per-query metadata (--slice, --query-meta)
    query_meta: Mapping[str, Mapping[str, object]] | None = None  # the sliced keys' values, per query
    doc_texts: Mapping[str, tuple[str, str]] | None = None  # (title, text) of the documents shown with text
    text_queries: tuple[str, ...] = ()  # the queries whose top K are shown with their text

    @property
    def primary_label(self) -> str:
        """The primary metric at the report's K: ``nDCG@10``."""
        return self.primary.label(self.summaries[0].k)
