"""The analysis of a report: its runs' summaries and limits, the comparison and the drift.

This is what every renderer reads; it is computed once and never changed.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the fields' types; an Analysis is built by the caller of those modules
    from .compare import ComparisonReport
    from .drift import Drift
    from .limits import Limit
    from .summary import RunSummary


@dataclass(frozen=True)
class Analysis:
    """Everything a report says, as computed: the runs, their limits, the comparison and the drift.

    ``today`` dates runs whose metadata has no ``date``. This is what every renderer reads.
    """

    summaries: tuple[RunSummary, ...]
    limits: tuple[tuple[Limit, ...], ...]
    today: _dt.date
    comparison: ComparisonReport | None = None
    drift: Drift | None = None
