"""The day a run is tied to, and the day a report is built.

A module of its own, importing only the errors at run time, so that the output stage can date a
run without importing the limits and the scoring behind them, and the analysis dates a build
without importing the renderer.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..core.errors import UsageError

if TYPE_CHECKING:
    from .summary import RunSummary


def run_date(summary: RunSummary, fallback: _dt.date) -> _dt.date:
    """The day the run is tied to: its metadata ``date``, else ``fallback``."""
    meta_date = summary.judged.meta.date
    if isinstance(meta_date, _dt.datetime):
        return meta_date.date()
    return meta_date or fallback


def build_day(env: Mapping[str, str] | None = None) -> _dt.date:
    """``SOURCE_DATE_EPOCH`` as a UTC date when set (reproducible builds), else today."""
    source = os.environ if env is None else env
    epoch = source.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc).date()
        except (ValueError, OverflowError, OSError):
            raise UsageError(f"SOURCE_DATE_EPOCH must be a whole number of seconds, got {epoch!r}") from None
    return _dt.date.today()
