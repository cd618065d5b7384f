"""The paired randomization (sign-flip) test of section 10, in matrix form (docs/conventions.md
sections 22.3 and 22.21): sign vectors drawn as random bytes, eight signs a byte, multiplied by the
per-query differences of every compared column at once."""

from __future__ import annotations

import sys
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..core.ahead import ahead
from ..core.blas import blas_threads_for
from ..core.errors import Argument, whole_number

#: Differences smaller than this are ties (scores are sums of floating-point fractions).
TIE = 1e-12
_BLOCK_CELLS = 1 << 22
#: A product of the randomization test multiplies whole blocks of signs as drawn (about
#: _BLOCK_CELLS each), as many as make this many sign vectors, within _PRODUCT_CELLS (64 MB).
_MIN_PRODUCT_ROWS = 80
_PRODUCT_CELLS = 1 << 23
#: The most sign flips of the randomization test: p-values then resolve to 1e-7, below any
#: corrected threshold (Holm over 1,000 comparisons at alpha 0.05 needs 5e-5); time grows with
#: permutations x queries x metrics, memory does not (blocks of 4M cells; docs/conventions.md
#: section 18).
MAX_PERMUTATIONS = 10_000_000


#: Each byte's eight signs, 1 - 2 x its bits, the high bit first (numpy's unpackbits order).
_BYTE_SIGNS = 1.0 - 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1)


def _draw_rows(n: int, permutations: int) -> int:
    """Sign vectors of ``n`` signs drawn by one call of the generator: about :data:`_BLOCK_CELLS`
    signs (the stream of bytes depends on it: numpy draws four bytes per 32-bit word)."""
    return max(1, min(permutations, _BLOCK_CELLS // max(n, 1)))


def _sign_blocks(n: int, permutations: int, seed: int):
    """Blocks of sign vectors (+1/-1), as float matrices: every one of the 2^n when that is no more
    than ``permutations``, else ``permutations`` drawn from ``default_rng(seed)``."""
    block = _draw_rows(n, permutations)
    if n <= 30 and 2**n <= permutations:
        # In blocks too: all 2^26 sign vectors of 26 queries at once would be 13 GiB.
        for start in range(0, 2**n, block):
            codes = np.arange(start, min(start + block, 2**n), dtype=np.int64)
            bits = (codes[:, None] >> np.arange(n, dtype=np.int64)[None, :]) & 1
            yield 1.0 - 2.0 * bits
        return
    draws = _ByteDraws(seed)
    # The signs are drawn in blocks of `block` vectors (_draw_rows), and handed over in whole
    # numbers of those blocks: enough
    # for _MIN_PRODUCT_ROWS sign vectors a product, within _PRODUCT_CELLS. A product of a few dozen
    # sign vectors by 100,000 queries is far slower per sign than one of a hundred
    # (docs/conventions.md section 22.10); a block of that many already is handed over alone.
    wanted = -(-_MIN_PRODUCT_ROWS // block)  # draws a product takes: ceil(rows wanted / block)
    rows = min(permutations, block * max(1, min(wanted, _PRODUCT_CELLS // (block * max(n, 1)))))
    # Two buffers, in turn: no fresh pages for each product's signs, and the next may be drawn
    # (intervals.ahead) while the caller still reads this one (it is done with a block once it
    # asks for the one after next).
    # Each buffer row holds a whole number of bytes' signs (the last byte's spare ones past n unread).
    width = (n + 7) // 8
    buffers = tuple(np.empty((rows, 8 * width)) for _ in range(2 if permutations > rows else 1))
    packed = np.empty((rows, width), dtype=np.uint8)
    done = 0
    turn = 0
    while done < permutations:
        whole = buffers[turn % len(buffers)][: min(rows, permutations - done)]
        turn += 1
        bytes_ = packed[: len(whole)]
        draws.fill(bytes_, block)
        # Eight signs per random byte: a fraction of the cost of one integer draw per sign. Each
        # byte's eight signs are copied from a table in one pass (an unpacking, a scaling and a
        # shift made three).
        np.take(_BYTE_SIGNS, bytes_, axis=0, out=whole.reshape(len(whole), width, 8), mode="clip")
        signs = whole[:, :n]
        yield signs
        done += len(signs)


def randomization_test(differences: np.ndarray, permutations: int = 10_000, seed: int = 0) -> np.ndarray:
    """Two-sided paired randomization (sign-flip) test of a zero mean, per column of ``differences``.

    With ``d`` the n per-query differences and ``T = |sum d| / n``, the p-value is the share of sign
    vectors ``s`` with ``|sum s_i d_i| / n >= T``. When ``2^n <= permutations`` every sign vector
    is enumerated (the exact p-value, the identity among them); otherwise ``permutations`` random
    ones are drawn and ``p = (1 + #{T* >= T}) / (1 + permutations)``. Either way p > 0.
    """
    permutations = whole_number(permutations, Argument("permutations"), 1, MAX_PERMUTATIONS)
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim == 1:
        d = d[:, None]
    n, m = d.shape
    if n == 0:
        return np.full(m, np.nan)
    observed = np.abs(d.sum(axis=0)) / n
    threshold = observed - TIE
    exact = n <= 30 and 2**n <= permutations
    if not exact and n > _CHUNKED_PAST:
        return (1.0 + _counted_by_chunks(d, permutations, seed, threshold)) / (1.0 + permutations)
    count = np.zeros(m, dtype=np.int64)
    total = 0
    # Each next block of signs is drawn while BLAS multiplies this one (the same signs in the same
    # order: docs/conventions.md section 22.10).
    with blas_threads_for(float(n) * permutations * m):  # a small test on one thread (core/blas.py)
        for signs in ahead(_sign_blocks(n, permutations, seed), n * (2**n if exact else permutations)):
            count += (np.abs(signs @ d) / n >= threshold).sum(axis=0)
            total += len(signs)
    if exact:
        return count / total
    return (1.0 + count) / (1.0 + total)


#: Past this many shared queries the test multiplies its signs a chunk of queries at a time, on
#: two threads (docs/conventions.md section 22.21)...
_CHUNKED_PAST = 1 << 13
#: ...chunks of this many queries (a multiple of 8: whole bytes): a group's signs over a chunk,
#: 2 MB, stay in the core's own cache between their making and their product (22.26)...
_CHUNK_QUERIES = 1 << 10
#: ...for groups of about this many sign vectors (whole draws of _sign_blocks' size).
_GROUP_ROWS = 256
#: Groups drawn ahead of the two threads' products.
_GROUPS_AHEAD = 4


def _counted_by_chunks(d: np.ndarray, permutations: int, seed: int, threshold: np.ndarray) -> np.ndarray:
    """How many of ``permutations`` random sign vectors reach each column's ``threshold``
    (``|s @ d| / n >= threshold``), for many queries: the signs of :func:`_sign_blocks` (the same
    bytes, drawn in the same calls), taken a group of vectors at a time, each group's signs made
    and multiplied a chunk of :data:`_CHUNK_QUERIES` queries at a time and the chunks' sums added
    in query order. A chunk's signs (a few MB) stay in the processor's cache between their making
    and their product, where a block of signs over every query went through memory twice (8 bytes a
    sign); two groups are multiplied at once, each on one BLAS thread and one core. The sums are
    BLAS's own in another order than one product's (22.3's tolerance: a p-value can move only for a
    statistic within 1e-12 of its edge); each vector's sum, and so every count, does not depend on
    how the threads interleave."""
    n, m = d.shape
    width = (n + 7) // 8
    block = _draw_rows(n, permutations)  # _sign_blocks' draws: the same bytes
    group = block * max(1, _GROUP_ROWS // block)

    def counted(packed: np.ndarray) -> np.ndarray:
        rows = len(packed)
        signs = np.empty((rows, _CHUNK_QUERIES))
        sums = np.zeros((rows, m))
        for start in range(0, n, _CHUNK_QUERIES):
            stop = min(n, start + _CHUNK_QUERIES)
            first, last = start // 8, (stop + 7) // 8
            chunk = signs[:, : 8 * (last - first)]
            np.take(_BYTE_SIGNS, packed[:, first:last], axis=0, out=chunk.reshape(rows, last - first, 8), mode="clip")
            sums += chunk[:, : stop - start] @ d[start:stop]
        return (np.abs(sums) / n >= threshold).sum(axis=0)

    count = np.zeros(m, dtype=np.int64)
    pending: deque = deque()
    draws = _ByteDraws(seed)
    with blas_threads_for(0), ThreadPoolExecutor(max_workers=2, thread_name_prefix="ragreport-signs") as pool:
        for done in range(0, permutations, group):
            packed = np.empty((min(group, permutations - done), width), dtype=np.uint8)
            draws.fill(packed, block)
            pending.append(pool.submit(counted, packed))
            if len(pending) > _GROUPS_AHEAD:
                count += pending.popleft().result()
        while pending:
            count += pending.popleft().result()
    return count


class _ByteDraws:
    """The bytes of successive ``default_rng(seed).integers(0, 256, size=..., dtype=np.uint8)``
    calls, made from the generator's raw words (docs/conventions.md section 22.21).

    numpy makes such a call's ``k`` bytes from ``ceil(k / 4)`` 32-bit draws, each 64-bit output of
    PCG64 giving two (its low half first, the high one kept for the next draw, across calls), and a
    32-bit draw's bytes in little-endian order; the bytes a call leaves of its last draw are
    dropped. The same words read as bytes are the same bytes, some ten times faster than numpy's
    buffered byte loop (0.05 against 0.5 s for 10,000 vectors of 100,000 signs).
    ``tests/test_resampling.py`` holds it to ``integers`` call for call; on a big-endian machine
    ``integers`` itself is called."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self._carry = np.zeros(0, dtype=np.uint32)
        self._raw = sys.byteorder == "little" and isinstance(self._rng.bit_generator, np.random.PCG64)

    def fill(self, out: np.ndarray, rows: int) -> None:
        """``out`` (a C-contiguous uint8 matrix) filled ``rows`` rows at a time, each as one
        ``integers`` call of their shape."""
        for at in range(0, len(out), rows):
            self._call(out[at : at + rows])

    def _call(self, out: np.ndarray) -> None:
        if not self._raw:
            out[...] = self._rng.integers(0, 256, size=out.shape, dtype=np.uint8)
            return
        need = -(-out.size // 4)
        fresh = self._rng.bit_generator.random_raw(-(-(need - len(self._carry)) // 2)).view(np.uint32)
        words = np.concatenate([self._carry, fresh]) if len(self._carry) else fresh
        out.reshape(-1)[...] = words[:need].view(np.uint8)[: out.size]
        self._carry = words[need:].copy()
