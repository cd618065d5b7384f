"""The day a run is tied to.

A module of its own, importing nothing at run time, so that the output stage can date a run
without importing the limits and the scoring behind them.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .summary import RunSummary


def run_date(summary: RunSummary, fallback: _dt.date) -> _dt.date:
    """The day the run is tied to: its metadata ``date``, else ``fallback``."""
    meta_date = summary.judged.meta.date
    if isinstance(meta_date, _dt.datetime):
        return meta_date.date()
    return meta_date or fallback
