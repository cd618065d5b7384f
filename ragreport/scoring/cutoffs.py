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
#: The most cutoffs -k may list: over ten times a sweep's (about 70 cutoffs at --kmax 100000).
MAX_CUTOFFS = 1_000


def check_cutoff(k: int, what: str | Argument = "K") -> int:
    """``k`` when it is a cutoff from 1 to :data:`MAX_CUTOFF`, else a one-line :class:`UsageError`."""
    if not 1 <= k <= MAX_CUTOFF:
        raise ArgumentError(what, f" must be from 1 to {MAX_CUTOFF:,}, got {shorten(str(k), quote=False)}")
    return k


#: How deep the default sweep goes at most (the runs' deepest list is cut here); --kmax goes deeper.
SWEEP_DEPTH = 100
#: The sweep's cutoffs past 20, up to :data:`SWEEP_DEPTH`: every cutoff to 20 shows where the usual
#: Ks sit, and past it a mean moves slowly enough that this grid (9 points to 100, where every cutoff
#: would be 80) draws the same curve at a third of the cells.
SPARSE_GRID = (25, 30, 40, 50, 60, 70, 80, 90, 100)


def default_kmax(k: int) -> int:
    """The shortest default sweep: max(10, 2K)."""
    return max(10, 2 * k)


def on_grid(cutoff: int) -> int:
    """``cutoff`` rounded up to the sweep's grid: itself up to 20 and past :data:`SWEEP_DEPTH`, else
    the next cutoff of :data:`SPARSE_GRID` (37 -> 40, 26 -> 30)."""
    if cutoff <= 20 or cutoff > SWEEP_DEPTH:
        return cutoff
    return next(c for c in SPARSE_GRID if c >= cutoff)


def sweep_end(k: int, depth: int | None) -> int:
    """Where the default sweep ends: the runs' ``depth`` (their longest list) capped at
    :data:`SWEEP_DEPTH`, never below :func:`default_kmax` of K, rounded up to the grid (:func:`on_grid`)
    and at most :data:`MAX_CUTOFF`.

    ``depth`` None (not known before scoring: the partition engines) gives the cap, the deepest the
    default can end; the scores are then cut to the depth once it is known
    (:func:`kept_cutoffs`), which leaves the very cutoffs a known depth gives, since the grid
    rounded up to is the same grid cut short. Depth 15 with K 5 ends at 15, depth 37 at 40, depth
    1,000 at 100; K 60 ends at 120 whatever the depth.
    """
    least = min(default_kmax(k), MAX_CUTOFF)
    return on_grid(max(least, min(SWEEP_DEPTH if depth is None else depth, SWEEP_DEPTH)))


#: Cutoffs people quote, always in a long sweep when they fit.
USUAL_CUTOFFS = (25, 30, 50, 100, 200, 250, 500, 1000)


def sweep_cutoffs(k: int, kmax: int) -> np.ndarray:
    """The sweep's cutoffs: every one from 1 to 20 (to ``kmax`` if less), then :data:`SPARSE_GRID`
    up to ``kmax``, and always K and ``kmax`` (``--kmax 37``: 1-20, 25, 30, 37).

    Past 100: every cutoff to 20, the usual ones (25, 30, 50, 100, 200, 250, 500, 1000) up to
    ``kmax``, a log-spaced grid of 40 more, and always K and ``kmax``.
    """
    if kmax <= SWEEP_DEPTH:
        sparse = [c for c in SPARSE_GRID if c <= kmax]
        return np.unique(np.concatenate([np.arange(1, min(kmax, 20) + 1), sparse, [k, kmax]])).astype(np.int64)
    grid = np.round(np.logspace(np.log10(20), np.log10(kmax), 40)).astype(np.int64)
    usual = [c for c in USUAL_CUTOFFS if c <= kmax]
    return np.unique(np.concatenate([np.arange(1, 21), usual, grid, [k, kmax]])).astype(np.int64)


def report_cutoffs(
    k: int | Sequence[int], kmax: int | None = None, depth: int | None = None
) -> tuple[tuple[int, ...], np.ndarray]:
    """The cutoffs asked for (the report's K first) and every cutoff a report scores: those and
    the sweep's up to ``kmax`` (default :func:`sweep_end` of the largest K and the runs' ``depth``,
    their longest list; None: not known yet, the cap)."""
    given: Sequence[object] = k if isinstance(k, Sequence | np.ndarray) and not isinstance(k, str | bytes) else (k,)
    # whole numbers (5.5, True or "5" refused, naming k), then the range as ever
    asked = tuple(dict.fromkeys(whole_number(c, Argument("k")) for c in given))
    if not asked or min(asked) < 1:
        raise UsageError(f"K must be at least 1, got {min(asked) if asked else 'nothing'}")
    for c in asked:
        check_cutoff(c)
    if len(asked) > MAX_CUTOFFS:
        raise UsageError(f"at most {MAX_CUTOFFS:,} cutoffs may be asked for, got {len(asked):,}")
    if kmax is None:  # never past the largest cutoff allowed, never short of K
        kmax = max(max(asked), sweep_end(max(asked), depth))
    else:
        kmax = check_cutoff(whole_number(kmax, Argument("kmax")), Argument("kmax"))
    if kmax < max(asked):
        raise ArgumentError(Argument("kmax"), f" ({kmax}) must be at least K ({max(asked)})")
    return asked, np.union1d(sweep_cutoffs(asked[0], kmax), asked).astype(np.int64)


def kept_cutoffs(k: int | Sequence[int], kmax: int | None, depth: int) -> np.ndarray:
    """The cutoffs a report keeps of those scored before the runs' ``depth`` was known
    (:func:`report_cutoffs` with no depth): the default sweep's, now that ``depth`` is known (always
    a part of those scored), or all of them when ``kmax`` was given."""
    return report_cutoffs(k, kmax, depth)[1]
