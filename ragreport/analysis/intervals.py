"""Intervals on suite means: Wilson for proportions, a seeded percentile bootstrap for the rest."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..core.budget import check_fits
from ..core.errors import Argument, ArgumentError
from ..scoring.catalogue import IntervalMethod

#: The most bootstrap resamples: 1,000 times the default, far past the 10,000 that pin a 95% band's
#: bounds to their third digit (docs/conventions.md section 18). Memory grows with resamples x
#: the columns banded (metrics x cutoffs); that estimate is checked against the memory available.
MAX_RESAMPLES = 1_000_000

#: Resample-count cells held at once (resamples x queries): 32 MB a block, at least one resample
#: (40 resamples of 100,000 queries: BLAS is slower on thinner blocks).
_BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class Interval:
    """A mean with its band and the method that made the band (NaN bounds under ``NONE``)."""

    mean: float
    low: float
    high: float
    method: IntervalMethod


def as_columns(values: np.ndarray) -> np.ndarray:
    """``values`` as doubles, (rows x columns): a vector is one column."""
    values = np.asarray(values, dtype=np.float64)
    return values[:, None] if values.ndim == 1 else values


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile: 1.959964 for 0.95."""
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes, trials, confidence: float = 0.95):
    """Wilson score interval (Wilson 1927) for a proportion ``successes / trials``.

    With ``p = s / n`` and ``z`` the two-sided normal quantile::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

    returns ``(low, high) = (centre - half, centre + half)``, exactly 0 at ``s = 0`` and 1 at
    ``s = n``. Works on scalars
    or arrays; ``trials = 0`` gives NaN. Example: 7 of 9 at 95% gives (0.453, 0.937).
    """
    s = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
        # At p = 0 and p = 1 the bound is exactly 0 or 1; rounding alone would leave 1e-17.
        low = np.where(s <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
        high = np.where(s >= n, 1.0, np.clip(centre + half, 0.0, 1.0))
    low, high = np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def resample_counts(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap resamples of ``n`` items as count matrices (block x n, doubles), in order.

    Resample ``b`` draws ``n`` indices uniformly with replacement as ``min(floor(u * n), n - 1)``
    from ``n`` consecutive doubles ``u`` of ``numpy.random.default_rng(seed).random``. Each double
    uses exactly one 64-bit draw of the generator, so the stream does not depend on how the
    resamples are split into blocks: the same ``(n, resamples, seed)`` gives the same resamples at
    any block size, and two runs over the same ``n`` queries get the same resampled query sets
    (the pairing a paired comparison needs).
    """
    rng = np.random.default_rng(seed)
    block = max(1, min(resamples, _BLOCK_CELLS // max(n, 1)))
    uniform = np.empty(n)
    draws = np.empty(n, dtype=np.intp)
    for done in range(0, resamples, block):
        out = np.empty((min(block, resamples - done), n))
        for row in out:
            # One resample at a time: its doubles, indices and counts stay in the cache.
            rng.random(out=uniform)
            uniform *= n
            draws[...] = uniform  # truncation: the floor of a non-negative double
            np.minimum(draws, n - 1, out=draws)
            row[...] = np.bincount(draws, minlength=n)
        yield out


def resample_rows(query_ids: np.ndarray, scored: np.ndarray) -> np.ndarray:
    """The rows the bootstrap resamples: the scored queries (``scored``, one flag per query), in
    id order, not file order. The same queries give the same band whatever order the file lists
    them in, and two runs over one query set get paired resamples."""
    return np.flatnonzero(scored)[np.argsort(query_ids[scored], kind="stable")]


def check_resamples(resamples: int, columns: int) -> None:
    """Refuse more than :data:`MAX_RESAMPLES`, or ``resamples`` x ``columns`` means (held twice:
    the means and the percentile's sorted copy) that would not fit in memory, before allocating."""
    if resamples > MAX_RESAMPLES:
        raise ArgumentError(Argument("resamples"), f" must be at most {MAX_RESAMPLES:,}, got {resamples:,}")
    check_fits(
        2.0 * 8 * resamples * columns,
        (Argument("resamples"), f" {resamples:,} over {columns:,} banded columns (metrics x cutoffs)"),
    )


def bootstrap_means(scores: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Mean of every column of ``scores`` (n x m) in each of ``resamples`` bootstrap resamples.

    Each block of resamples' means is ``counts @ scores / n`` (:func:`resample_counts`), one
    matrix product shared by every column (every metric at every cutoff). Returns (resamples x m).
    The products are BLAS's: across BLAS thread counts the means agree to about 1e-16 of their size.
    """
    return shared_bootstrap_means([scores], resamples, seed)[0]


def shared_bootstrap_means(matrices: Sequence[np.ndarray], resamples: int, seed: int) -> list[np.ndarray]:
    """:func:`bootstrap_means` of several matrices over the same ``n`` rows, each block of counts
    drawn once for all of them: the figures of one :func:`bootstrap_means` per matrix, each seeded
    with ``seed`` (docs/conventions.md section 22.1)."""
    given = [np.asarray(m, dtype=np.float64) for m in matrices]
    if not given:
        return []
    n = given[0].shape[0]
    if any(b.ndim != 2 or b.shape[0] != n for b in given):
        raise ValueError("matrices resampled together must be 2-D and share their rows")
    check_resamples(resamples, sum(b.shape[1] for b in given))
    outs = [np.full((resamples, b.shape[1]), np.nan) for b in given]
    if n == 0:
        return outs
    row = 0
    for counts in resample_counts(n, resamples, seed):
        for matrix, out in zip(given, outs):
            np.matmul(counts, matrix, out=out[row : row + len(counts)])
        row += len(counts)
    for out in outs:
        out /= n
    return outs


def percentile_band(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of each column of
    resampled means (resamples x m; linear interpolation between order statistics)."""
    tail = (1.0 - confidence) / 2.0 * 100.0
    if means.shape[1] == 0:
        return np.zeros(0), np.zeros(0)
    low, high = np.percentile(means, [tail, 100.0 - tail], axis=0)
    return low, high


def bootstrap_interval(
    scores: np.ndarray, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap band (Efron 1979) for the mean of each column of ``scores`` (n x m).

    Resamples the rows (queries) with replacement ``resamples`` times (seeded), takes each
    resample's column means, and returns ``(mean, low, high)``, where low and high are the
    ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of those means (linear
    interpolation between order statistics). With no rows everything is NaN; with one row the
    band collapses onto its value.
    """
    scores = as_columns(scores)
    n, m = scores.shape
    if n == 0:
        nan = np.full(m, np.nan)
        return nan, nan.copy(), nan.copy()
    low, high = percentile_band(bootstrap_means(scores, resamples, seed), confidence)
    return scores.mean(axis=0), low, high


def standardised_effect(mean: np.ndarray, square: np.ndarray, n: int) -> np.ndarray:
    """d_z (Lakens 2013, for paired designs): the mean of the paired differences over their
    standard deviation (ddof = 1), from each column's mean and mean square over ``n`` queries
    (arrays of any shape: one figure, or every resample's). NaN when ``n < 2``; where the
    differences are all equal (variance within 1e-12 of the mean square: rounding of ``q - m^2``),
    ``+-inf`` for a non-zero mean and NaN for a zero one, which the caller reads as undefined."""
    if n < 2:
        return np.full(np.shape(mean), np.nan)
    variance = (square - mean * mean) * (n / (n - 1))
    flat = variance <= 1e-12 * square
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(flat, np.sign(mean) * np.inf, mean / np.sqrt(np.where(flat, 1.0, variance)))
