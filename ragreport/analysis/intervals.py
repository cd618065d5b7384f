"""Intervals on suite means: Wilson for proportions, a seeded percentile bootstrap for the rest."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from statistics import NormalDist

import numpy as np

from ..core.ahead import ahead
from ..core.blas import blas_threads_for
from ..core.budget import check_fits
from ..core.errors import Argument, ArgumentError
from ..scoring.kinds import IntervalMethod
from .exactparts import EXACT_ROWS, HIGH_BITS, LOW_UNIT, distinct_parts, exact_parts, split_in_place

#: The most bootstrap resamples: 1,000 times the default, far past the 10,000 that pin a 95% band's
#: bounds to their third digit (docs/conventions.md section 18). Memory grows with resamples x
#: the columns banded (metrics x cutoffs); that estimate is checked against the memory available.
MAX_RESAMPLES = 1_000_000

#: Resample-count cells held at once (resamples x queries): about 8 MB a block keeps memory low...
_BLOCK_CELLS = 1 << 20
#: ...but a block has at least this many resamples (within _MAX_CELLS), so that with many queries
#: the score matrix is not read once per handful of resamples.
_MIN_BLOCK_RESAMPLES = 64
_MAX_CELLS = 1 << 23
#: From this many columns on, a matrix is resampled as columns x queries (see shared_bootstrap_means).
_WIDE_COLUMNS = 64
#: From this many items on, counts are drawn one resample at a time (see _fill_counts).
_ROW_WISE = 4096


@dataclass(frozen=True)
class Interval:
    """A mean with its band and the method that made the band (NaN bounds under ``NONE``)."""

    mean: float
    low: float
    high: float
    method: IntervalMethod


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
    low = np.where(n > 0, low, np.nan)
    high = np.where(n > 0, high, np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _block_size(n: int, resamples: int) -> int:
    """Resamples a block holds: about :data:`_BLOCK_CELLS` counts, at least
    :data:`_MIN_BLOCK_RESAMPLES` (within :data:`_MAX_CELLS`)."""
    n_ = max(n, 1)
    return max(1, min(resamples, max(_BLOCK_CELLS // n_, min(_MIN_BLOCK_RESAMPLES, _MAX_CELLS // n_))))


def _fill_counts(rng: np.random.Generator, out: np.ndarray) -> None:
    """Fill ``out`` (size x n, any numeric dtype) with the counts of its ``size`` next resamples of
    ``n`` items: row ``r`` counts the ``n`` indices ``min(floor(u * n), n - 1)`` of the ``n`` next
    doubles ``u`` of ``rng.random``.

    With many items one resample at a time: its doubles, indices and counts stay in the cache and
    each count is written once, into ``out``'s row; with few, the whole block in a handful of array
    operations. The same doubles in the same order give the same counts either way.
    """
    size, n = out.shape
    if n >= _ROW_WISE:
        uniform = np.empty(n)
        draws = np.empty(n, dtype=np.intp)
        for row in out:
            row[...] = _row_counts(rng, uniform, draws)
        return
    # In place, so that a block holds two (size x n) arrays at most; the same values as
    # min(floor(u * n), n - 1) + the row's offset.
    uniform = rng.random((size, n))
    uniform *= n
    flat = uniform.astype(np.int64)
    del uniform
    np.minimum(flat, n - 1, out=flat)
    flat += (np.arange(size, dtype=np.int64) * n)[:, None]
    out[...] = np.bincount(flat.ravel(), minlength=size * n).reshape(size, n)


def _row_counts(rng: np.random.Generator, uniform: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The counts of one resample of ``n = len(uniform)`` items (:func:`_fill_counts`), drawn
    through the buffers ``uniform`` (doubles) and ``draws`` (indices)."""
    n = len(uniform)
    rng.random(out=uniform)
    uniform *= n
    draws[...] = uniform  # truncation: the floor of a non-negative double
    np.minimum(draws, n - 1, out=draws)
    return np.bincount(draws, minlength=n)


def resample_counts(n: int, resamples: int, seed: int, dtype: type = np.int64) -> Iterator[np.ndarray]:
    """Blocks of bootstrap resamples of ``n`` items as count matrices (block x n), in order.

    Resample ``b`` draws ``n`` indices uniformly with replacement as ``floor(u * n)`` from
    ``n`` consecutive doubles ``u`` of ``numpy.random.default_rng(seed).random``. Each double
    uses exactly one 64-bit draw of the generator, so the stream does not depend on how the
    resamples are split into blocks: the same ``(n, resamples, seed)`` gives the same resamples
    at any block size, and two runs over the same ``n`` queries get the same resampled query sets
    (the pairing a paired comparison needs). ``dtype`` is the counts' type (``float64`` for the
    weights of a matrix product, written once, without an integer copy).
    """
    rng = np.random.default_rng(seed)
    block = _block_size(n, resamples)
    done = 0
    while done < resamples:
        size = min(block, resamples - done)
        out: np.ndarray = np.empty((size, n), dtype=dtype)
        _fill_counts(rng, out)
        yield out
        done += size


class ByteCounts:
    """The counts of :func:`resample_counts` ``(n, resamples, seed)`` as bytes (its blocks, one
    ``uint8`` matrix each), drawn in a thread of their own from the moment this is made
    (docs/conventions.md section 22.20): the band stage starts it as soon as it knows how many
    queries the first run scores, so that the draw runs beside the scoring of the others.

    :meth:`blocks` waits for them; None when a query is drawn 256 times or more in one resample
    (a count does not fit in a byte: the band stage then draws as before) or when the draw is
    too large to keep (:data:`_CACHED_COUNTS`). The same doubles in the same order give the same
    counts as :func:`resample_counts`.
    """

    def __init__(self, n: int, resamples: int, seed: int) -> None:
        self.key = (n, resamples, seed)
        self._stop = threading.Event()
        self._made: list[np.ndarray] | None = None  # set by the drawing thread once every count fits
        self._thread: threading.Thread | None = None
        if n >= _ROW_WISE and resamples * n <= _CACHED_COUNTS:
            # Allocated here, in the caller's thread: memory the drawing thread allocated would
            # come from an arena of its own, which glibc gives back to the system less readily.
            block = _block_size(n, resamples)
            made = [np.empty((min(block, resamples - done), n), dtype=np.uint8) for done in range(0, resamples, block)]
            self._thread = threading.Thread(target=self._draw, args=(made,), name="ragreport-counts", daemon=True)
            self._thread.start()

    def _draw(self, made: list[np.ndarray]) -> None:
        n, _, seed = self.key
        rng = np.random.default_rng(seed)
        uniform = np.empty(n)
        draws = np.empty(n, dtype=np.intp)
        for out in made:
            for row in out:
                counts = _row_counts(rng, uniform, draws)
                if self._stop.is_set() or counts.max() > 255:
                    return
                row[...] = counts
        self._made = made

    def blocks(self) -> list[np.ndarray] | None:
        """The blocks of counts once drawn (None: not kept, see the class)."""
        if self._thread is None:
            return None
        self._thread.join()
        return self._made

    def cancel(self) -> None:
        """Stop the draw (its counts will not be read)."""
        self._stop.set()


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

    Each resample's means are ``counts @ scores / n``, one matrix product per block of resamples
    shared by every column (every metric at every cutoff). Returns (resamples x m).
    """
    return shared_bootstrap_means([scores], resamples, seed)[0]


def shared_bootstrap_means(
    matrices: Sequence[np.ndarray], resamples: int, seed: int, *, overwrite: bool = False
) -> list[np.ndarray]:
    """:func:`bootstrap_means` of several matrices over the same ``n`` rows, in one resampling.

    The counts of each block of resamples (:func:`resample_counts`) are drawn once and applied to
    every matrix: each matrix's means are ``counts @ matrix / n``. Every metric at every cutoff of
    every run (and every paired difference) thus shares the resampled query sets a single matrix
    would get, at the cost of drawing them once: the figures are those of one
    :func:`bootstrap_means` per matrix, each seeded with ``seed`` (docs/conventions.md section 22).

    The sums are exact (:func:`exact_parts`, docs/conventions.md section 22.5): each matrix is
    split into two matrices of whole numbers whose products with the counts BLAS computes without
    rounding, so the means do not depend on how BLAS blocks or threads the product, and are the
    same bits on any machine. Memory: one block of counts (about 8 MB), the two parts of each
    matrix (one of them in the matrix's own memory with ``overwrite``: the caller no longer reads
    the matrix) and the (resamples x m) means of each matrix.
    """
    given = [np.asarray(m, dtype=np.float64) for m in matrices]
    if not given:
        return []
    n = given[0].shape[0]
    if any(b.ndim != 2 or b.shape[0] != n for b in given):
        raise ValueError("matrices resampled together must be 2-D and share their rows")
    sources = [lambda b=b: b for b in given]
    return made_bootstrap_means(sources, n, [b.shape[1] for b in given], resamples, seed, overwrite=overwrite)


def made_bootstrap_means(
    sources: Sequence[Callable[[], np.ndarray] | RowParts],
    n: int,
    widths: Sequence[int],
    resamples: int,
    seed: int,
    *,
    overwrite: bool = False,
    drawn: ByteCounts | None = None,
) -> list[np.ndarray]:
    """:func:`shared_bootstrap_means` of matrices made one at a time: ``sources[i]()`` gives the
    (n x ``widths[i]``) matrix ``i`` when its turn comes, and it is let go once multiplied by every
    block of counts. The counts are drawn once (kept as bytes, one per query and resample, while
    they take at most :data:`_CACHED_COUNTS` cells; drawn again for each matrix otherwise), so
    memory holds one matrix's two parts at a time, not every matrix's. ``drawn``: these very
    counts, drawn already (:class:`ByteCounts`), read instead of drawing them."""
    check_resamples(resamples, sum(widths))
    # Two products (the parts of 22.5) per block: a small draw's on one BLAS thread (core/blas.py).
    with blas_threads_for(2.0 * n * resamples * sum(widths)):
        return _made_bootstrap_means(sources, n, widths, resamples, seed, overwrite, drawn)


def _made_bootstrap_means(
    sources: Sequence[Callable[[], np.ndarray] | RowParts],
    n: int,
    widths: Sequence[int],
    resamples: int,
    seed: int,
    overwrite: bool,
    drawn: ByteCounts | None = None,
) -> list[np.ndarray]:
    todo = [i for i, width in enumerate(widths) if width and n]
    by_rows = [i for i in todo if isinstance(sources[i], RowParts) and _parted(n, resamples)]
    keeping = _kept.get()
    key = (n, resamples, seed)
    # The counts kept from an earlier call of the same draw (keeping_counts), or drawn already as
    # bytes (ByteCounts): the same counts.
    cache: list[np.ndarray] | None = keeping.get(key) if keeping is not None else None
    if cache is None and drawn is not None and drawn.key == key and todo:
        cache = drawn.blocks()
    ready = cache is not None
    if cache is None and (len(todo) > 1 or by_rows or keeping is not None) and resamples * n <= _CACHED_COUNTS:
        cache = []
    outs = [np.empty((resamples, width)) if n else np.full((resamples, width), np.nan) for width in widths]
    for turn, i in enumerate(todo):
        if turn and cache is not None:
            ready = True  # the first matrix drew the counts into the cache
        source = sources[i]
        if isinstance(source, RowParts):
            if i in by_rows and (cache is not None or turn == 0):
                cache = _by_partitions(source, n, widths[i], resamples, seed, cache, not ready, outs[i])
                continue
            source = partial(source.rows, 0, n)
        high, low, exponent = exact_parts(source(), overwrite=overwrite)
        if high.shape != (n, widths[i]):
            raise ValueError("matrices resampled together must be 2-D and share their rows")
        out = outs[i]
        # A wide matrix (the K sweep: metrics x cutoffs) is multiplied as columns x queries: BLAS
        # then runs (m x n) @ (n x block), several times faster than (block x n) @ (n x m) for a
        # block of a few dozen resamples and 100,000 queries; a narrow one is faster the other way
        # round. The transpose is a view (BLAS reads it as a transposed operand).
        wide = widths[i] >= _WIDE_COLUMNS
        m = widths[i]
        if ready and cache is not None:
            _by_spans(high, low, cache, resamples, wide, out)
            del high, low
            out /= n
            np.ldexp(out, exponent[None, :], out=out)
            continue
        fits = [True]
        # The next block is drawn while this one is multiplied and kept as bytes (here: the drawing
        # thread is the slower one).
        blocks: Iterable[np.ndarray] = ahead(resample_counts(n, resamples, seed, np.float64), n * resamples)
        if cache is not None:
            blocks = _kept_blocks(blocks, cache, fits)
        # A narrow matrix's two parts side by side: one product a block reads its counts once
        # (22.22). Their sums are whole numbers either way: the same bits.
        parts: tuple[np.ndarray, ...] = (high.T, low.T) if wide else (np.concatenate([high, low], axis=1),)
        del high, low
        row = 0
        for counts in blocks:
            end = row + len(counts)
            if wide:
                out[row:end] = (parts[0] @ counts.T).T
                out[row:end] += (parts[1] @ counts.T).T * LOW_UNIT
            else:
                sums = counts @ parts[0]
                np.multiply(sums[:, m:], LOW_UNIT, out=sums[:, m:])
                np.add(sums[:, :m], sums[:, m:], out=out[row:end])
            row = end
        del parts
        if not fits[0]:
            cache = None
        out /= n
        np.ldexp(out, exponent[None, :], out=out)
    if todo and cache is not None and keeping is not None and key not in keeping:
        keeping.clear()  # one draw kept at a time: the last one drawn whole
        keeping[key] = cache
    return outs


#: Within :func:`keeping_counts`: the last complete counts kept as bytes, by (n, resamples, seed).
_kept: ContextVar[dict[tuple[int, int, int], list[np.ndarray]] | None] = ContextVar("ragreport_kept", default=None)


@contextmanager
def keeping_counts() -> Iterator[None]:
    """Within: the bootstrap's counts that :func:`made_bootstrap_means` keeps as bytes (the band
    stage's) outlive the call, and a later call that draws the very same counts (as many rows,
    resamples and seed: the comparison's readings) reads them instead of drawing them again. The
    counts depend on nothing else (:func:`resample_counts`), so the figures are the same. One draw
    is kept at a time (at most :data:`_CACHED_COUNTS` bytes), let go on leaving."""
    token = _kept.set({})
    try:
        yield
    finally:
        _kept.reset(token)


def let_go_counts() -> None:
    """The counts kept by :func:`keeping_counts` let go now (their last reader is done: the
    comparison's readings), before the randomization test's signs take their memory."""
    keeping = _kept.get()
    if keeping is not None:
        keeping.clear()


def _kept_blocks(blocks: Iterable[np.ndarray], cache: list[np.ndarray], fits: list[bool]) -> Iterator[np.ndarray]:
    """``blocks`` as they come, each also appended to ``cache`` as bytes; ``fits[0]`` set false and
    the cache emptied once a query is drawn 256 times or more in one resample."""
    for counts in blocks:
        if fits[0]:
            if counts.max() > 255:
                fits[0] = False
                cache.clear()
            else:
                cache.append(counts.astype(np.uint8))
        yield counts


#: Queries of a partition multiplied by every kept resample at once (:func:`_widened_spans`):
#: 1,024 x 1,000 resamples, 8 MB of doubles a span, two spans alive (as two blocks of 64
#: resamples over a partition were).
_SPAN_QUERIES = 1 << 10


def _widened_spans(
    cache: list[np.ndarray], start: int, stop: int, buffers: Sequence[np.ndarray]
) -> Iterator[tuple[int, np.ndarray]]:
    """The cached counts of the queries ``start`` to ``stop`` as doubles, a span of queries at a
    time (as many as a buffer has columns), every resample in each: ``(offset into the partition,
    resamples x span)``, in ``buffers`` in turn (two: the caller is done with one when it asks for
    the next but one). The buffers are the caller's, made once in its thread: fresh ones for each
    partition, or made in the drawing thread, left holes in the heap (the build's peak 78 MB
    higher)."""
    span = buffers[0].shape[1]
    for turn, at in enumerate(range(start, stop, span)):
        end = min(stop, at + span)
        widened = buffers[turn % len(buffers)][:, : end - at]
        row = 0
        for counts in cache:
            widened[row : row + len(counts)] = counts[:, at:end]
            row += len(counts)
        yield at - start, widened


def _spans_made(resamples: int, n: int) -> list[np.ndarray]:
    """The two buffers :func:`_widened_spans` fills in turn, made in the caller's thread."""
    return [np.empty((resamples, min(_SPAN_QUERIES, n))) for _ in range(2)]


def _by_spans(
    high: np.ndarray, low: np.ndarray, cache: list[np.ndarray], resamples: int, wide: bool, out: np.ndarray
) -> None:
    """The sums of a matrix's exact parts (``high``, ``low``: n x m whole numbers) over every kept
    resample, into ``out`` (resamples x m) as ``high + low * LOW_UNIT``: every resample at once, a
    span of queries at a time (22.26), as :func:`_by_partitions` multiplies a partition. Each
    part's sums are of whole numbers below 2^53, exact in any grouping, so they are the very sums
    block after block gives, and ``out`` the same bits."""
    n, m = high.shape
    sums = np.zeros((resamples, 2 * m))
    # A narrow matrix's two parts side by side, one product a span (22.22); a wide one's as
    # columns x queries (the transpose a view, read by BLAS as a transposed operand).
    parts = np.concatenate([high, low], axis=1)
    spans = ahead(_widened_spans(cache, 0, n, _spans_made(resamples, n)), n * resamples)
    for at, weights in spans:
        piece = parts[at : at + weights.shape[1]]
        sums += (piece.T @ weights.T).T if wide else weights @ piece
    del parts
    np.multiply(sums[:, m:], LOW_UNIT, out=sums[:, m:])
    np.add(sums[:, :m], sums[:, m:], out=out)


@dataclass(frozen=True)
class RowParts:
    """A matrix to resample made by partitions of its rows: ``top()`` gives each column's largest
    magnitude over every row (what :func:`exact_parts` scales the column by), ``rows(start, stop)``
    rows ``start`` to ``stop`` as a fresh (stop - start) x width matrix of doubles."""

    top: Callable[[], np.ndarray]
    rows: Callable[[int, int], np.ndarray]


#: Rows of a :class:`RowParts` matrix split into exact parts at once (16,384 x 160 columns: 21 MB
#: a part at the wide size, where the whole sweep's two parts took 256 MB).
_PARTITION_ROWS = 1 << 14


def _parted(n: int, resamples: int) -> bool:
    """Whether a matrix of ``n`` rows is resampled by partitions: its sums exact (22.5) and its
    counts kept (each partition reads every block of them)."""
    return _PARTITION_ROWS < n <= EXACT_ROWS and resamples * n <= _CACHED_COUNTS


def _by_partitions(
    source: RowParts,
    n: int,
    width: int,
    resamples: int,
    seed: int,
    cache: list[np.ndarray] | None,
    first: bool,
    out: np.ndarray,
) -> list[np.ndarray] | None:
    """A :class:`RowParts` matrix's resampled means into ``out``, made partition by partition of
    its rows: each partition's exact parts (scaled by the whole column's power of two, so they are
    the rows of the whole matrix's parts) times the same partition of every block of counts. The
    sums are of whole numbers below 2^53, exact, so adding them up partition by partition gives the
    very sums of the whole matrix (docs/conventions.md section 22.12). The counts come from
    ``cache`` (``first``: drawn now, and kept there as bytes); returns the cache (None if a count
    did not fit in a byte: drawn again for each partition)."""
    top = np.asarray(source.top(), dtype=np.float64)
    exponent = np.zeros(width, dtype=np.int64)
    finite = np.isfinite(top)
    exponent[finite] = np.frexp(top[finite])[1] - HIGH_BITS
    cols = np.flatnonzero(finite)
    # The sums of every part's column (the high parts' then the low parts'), one row each.
    sums = np.zeros((2 * width, resamples))
    # A column that is not finite is multiplied as it is (its low part zero, left out).
    own = np.flatnonzero(~finite)
    wide = width >= _WIDE_COLUMNS
    filling = first and cache is not None
    # Two spans of every resample (22.26), made here once for all the partitions that read the
    # kept counts.
    spans_made = _spans_made(resamples, n) if cache is not None else []
    # One buffer for every partition's parts (42 MB at the wide size): above glibc's 32 MB a
    # block is a mapping of its own, paged in afresh for each partition (10,000 pages each).
    parts_made = np.empty(2 * width * min(_PARTITION_ROWS, n))
    for start in range(0, n, _PARTITION_ROWS):
        stop = min(n, start + _PARTITION_ROWS)
        values = np.asarray(source.rows(start, stop), dtype=np.float64)
        if values.shape != (stop - start, width):
            raise ValueError("matrices resampled together must be 2-D and share their rows")
        # Each part's column as a row, the high parts' then the low parts', split in place: the
        # values go where the low parts go, the high parts are rounded off them.
        parts = parts_made[: 2 * width * (stop - start)].reshape(2 * width, stop - start)
        parts[width:] = values.T
        del values
        raw, spare = parts[width:].T, parts[:width].T
        if finite.all():
            split_in_place(raw, spare, exponent)
        else:
            high, low = split_in_place(raw[:, cols], spare[:, cols], exponent[cols])
            parts[own] = parts[width + own]  # a non-finite column kept as it is, its low part zero
            parts[width + own] = 0.0
            parts[cols], parts[width + cols] = high.T, low.T
            del high, low
        del raw, spare
        chosen, copies, same = distinct_parts(parts, own)
        # The rows multiplied moved to the front, in order (each moves up or stays): no copy.
        for to, row_from in enumerate(chosen.tolist()):
            if to != row_from:
                parts[to] = parts[row_from]
        operand = parts[: len(chosen)]
        drawing = cache is None or (filling and start == 0)
        fits = [True]
        partial = np.empty((len(chosen), resamples))
        kept = None if drawing else cache
        if kept is None:
            blocks: Iterable[np.ndarray] = ahead(resample_counts(n, resamples, seed, np.float64), n * resamples)
            if filling and start == 0 and cache is not None:
                blocks = _kept_blocks(blocks, cache, fits)  # in this thread: the drawing one is slower
            row = 0
            for counts in blocks:
                weights = counts[:, start:stop]
                end = row + len(counts)
                partial[:, row:end] = operand @ weights.T if wide else (weights @ operand.T).T
                row = end
        else:
            # Every resample at once, a span of the partition's queries at a time: BLAS runs
            # (parts x span) @ (span x resamples) near twice as fast as against a block of 64
            # resamples (22.26). The sums are of whole numbers, exact in any order (22.5).
            partial[...] = 0.0
            spans = ahead(_widened_spans(kept, start, stop, spans_made), (stop - start) * resamples)
            for at, weights in spans:
                piece = operand[:, at : at + weights.shape[1]]
                partial += piece @ weights.T if wide else (weights @ piece.T).T
        del operand, parts
        if not fits[0]:
            cache = None
        sums[chosen] += partial
        if len(copies):
            sums[copies] += partial[same]
    high_sums, low_sums = sums[:width].T, sums[width:].T
    np.multiply(low_sums, LOW_UNIT, out=low_sums)
    np.add(high_sums, low_sums, out=out)
    out /= n
    np.ldexp(out, exponent[None, :], out=out)
    return cache


#: Resample counts kept between the matrices of :func:`made_bootstrap_means`, as one byte each:
#: 128 MB at most (1,000 resamples of 100,000 queries: 100 MB).
_CACHED_COUNTS = 1 << 27


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
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = scores[:, None]
    n, m = scores.shape
    if n == 0:
        nan = np.full(m, np.nan)
        return nan, nan.copy(), nan.copy()
    low, high = percentile_band(bootstrap_means(scores, resamples, seed), confidence)
    return scores.mean(axis=0), low, high
