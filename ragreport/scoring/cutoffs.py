"""Which cutoffs a report scores: the ones asked for, the K sweep's grid, and their bounds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError, shorten, whole_number

#: K when none is given: 10, except the preloaded sample's 5 (docs/conventions.md section 7).
DEFAULT_K = 10
SAMPLE_K = 5

#: The largest cutoff (-k, --kmax, a measure's @K): 100 times trec_eval's usual depth of 1,000 and
#: ten times the deepest runs (10,000 ids a query) seen in practice. Work and memory grow with it
#: (docs/conventions.md section 18).
MAX_CUTOFF = 100_000
#: The most cutoffs -k may list: the sweep scores every cutoff to 100 anyway.
MAX_CUTOFFS = 1_000


def check_cutoff(k: int, what: str | Argument = "K") -> int:
    """``k`` when it is a cutoff from 1 to :data:`MAX_CUTOFF`, else a one-line :class:`UsageError`."""
    if not 1 <= k <= MAX_CUTOFF:
        raise ArgumentError(what, f" must be from 1 to {MAX_CUTOFF:,}, got {shorten(str(k), quote=False)}")
    return k


def default_kmax(k: int) -> int:
    return max(10, 2 * k)


#: Cutoffs people quote, always in a long sweep when they fit.
USUAL_CUTOFFS = (25, 30, 50, 100, 200, 250, 500, 1000)


def sweep_cutoffs(k: int, kmax: int) -> np.ndarray:
    """The sweep's cutoffs: every one from 1 to ``kmax`` when ``kmax`` <= 100.

    Past 100: every cutoff to 20, the usual ones (25, 30, 50, 100, 200, 250, 500, 1000) up to
    ``kmax``, a log-spaced grid of 40 more, and always K and ``kmax``.
    """
    if kmax <= 100:
        return np.arange(1, kmax + 1, dtype=np.int64)
    grid = np.round(np.logspace(np.log10(20), np.log10(kmax), 40)).astype(np.int64)
    usual = [c for c in USUAL_CUTOFFS if c <= kmax]
    return np.unique(np.concatenate([np.arange(1, 21), usual, grid, [k, kmax]])).astype(np.int64)


def report_cutoffs(k: int | Sequence[int], kmax: int | None = None) -> tuple[tuple[int, ...], np.ndarray]:
    """The cutoffs asked for (the report's K first) and every cutoff a report scores: those and
    the sweep's up to ``kmax`` (default max(10, 2K))."""
    given: Sequence[object] = k if isinstance(k, Sequence | np.ndarray) and not isinstance(k, str | bytes) else (k,)
    # whole numbers (5.5, True or "5" refused, naming k), then the range as ever
    asked = tuple(dict.fromkeys(whole_number(c, Argument("k")) for c in given))
    if not asked or min(asked) < 1:
        raise UsageError(f"K must be at least 1, got {min(asked) if asked else 'nothing'}")
    for c in asked:
        check_cutoff(c)
    if len(asked) > MAX_CUTOFFS:
        raise UsageError(f"at most {MAX_CUTOFFS:,} cutoffs may be asked for, got {len(asked):,}")
    if kmax is None:  # the default sweep stops at the largest cutoff allowed
        kmax = max(max(asked), min(default_kmax(max(asked)), MAX_CUTOFF))
    else:
        kmax = check_cutoff(whole_number(kmax, Argument("kmax")), Argument("kmax"))
    if kmax < max(asked):
        raise ArgumentError(Argument("kmax"), f" ({kmax}) must be at least K ({max(asked)})")
    return asked, np.union1d(sweep_cutoffs(asked[0], kmax), asked).astype(np.int64)
