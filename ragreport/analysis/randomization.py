"""The paired randomization (sign-flip) test of section 10, in matrix form (docs/conventions.md
section 22.3): sign vectors drawn as random bytes, eight signs a byte, multiplied by the
per-query differences of every compared column at once."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..core.errors import Argument, whole_number
from .intervals import as_columns

#: Differences smaller than this are ties (scores are sums of floating-point fractions).
TIE = 1e-12
#: Signs drawn by one call of the generator (32 MB of doubles once made).
_BLOCK_CELLS = 1 << 22
#: The most sign flips of the randomization test: p-values then resolve to 1e-7, below any
#: corrected threshold (Holm over 1,000 comparisons at alpha 0.05 needs 5e-5); time grows with
#: permutations x queries x metrics, memory does not (blocks of 4M cells; docs/conventions.md
#: section 18).
MAX_PERMUTATIONS = 10_000_000


#: Each byte's eight signs, 1 - 2 x its bits, the high bit first (numpy's unpackbits order).
_BYTE_SIGNS = 1.0 - 2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1)


def _sign_blocks(n: int, permutations: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of sign vectors (+1/-1), as float matrices: every one of the 2^n when that is no more
    than ``permutations``, else ``permutations`` drawn from ``default_rng(seed)``, eight signs a
    random byte (``integers(0, 256, dtype=uint8)``, a block of about :data:`_BLOCK_CELLS` signs a
    call: the stream of bytes depends on it, numpy drawing four bytes per 32-bit word).
    A block is valid until the next is asked for (one buffer, no fresh pages per block)."""
    block = max(1, min(permutations, _BLOCK_CELLS // max(n, 1)))
    if n <= 30 and 2**n <= permutations:
        # In blocks too: all 2^26 sign vectors of 26 queries at once would be 13 GiB.
        for start in range(0, 2**n, block):
            codes = np.arange(start, min(start + block, 2**n), dtype=np.int64)
            bits = (codes[:, None] >> np.arange(n, dtype=np.int64)[None, :]) & 1
            yield 1.0 - 2.0 * bits
        return
    rng = np.random.default_rng(seed)
    width = (n + 7) // 8  # each row a whole number of bytes' signs, the last byte's spare ones unread
    buffer = np.empty((block, width, 8))
    for done in range(0, permutations, block):
        rows = min(block, permutations - done)
        packed = rng.integers(0, 256, size=(rows, width), dtype=np.uint8)
        np.take(_BYTE_SIGNS, packed, axis=0, out=buffer[:rows], mode="clip")
        yield buffer[:rows].reshape(rows, 8 * width)[:, :n]


def randomization_test(differences: np.ndarray, permutations: int = 10_000, seed: int = 0) -> np.ndarray:
    """Two-sided paired randomization (sign-flip) test of a zero mean, per column of ``differences``.

    With ``d`` the n per-query differences and ``T = |sum d| / n``, the p-value is the share of sign
    vectors ``s`` with ``|sum s_i d_i| / n >= T - 1e-12`` (:data:`TIE`). When ``2^n <=
    permutations`` every sign vector is enumerated (the exact p-value, the identity among them);
    otherwise ``permutations`` random ones are drawn and ``p = (1 + #{T* >= T}) / (1 +
    permutations)``. Either way p > 0. Every column reads the same sign vectors.
    """
    permutations = whole_number(permutations, Argument("permutations"), 1, MAX_PERMUTATIONS)
    d = as_columns(differences)
    n, m = d.shape
    if n == 0:
        return np.full(m, np.nan)
    threshold = np.abs(d.sum(axis=0)) / n - TIE
    exact = n <= 30 and 2**n <= permutations
    count = np.zeros(m, dtype=np.int64)
    total = 0
    for signs in _sign_blocks(n, permutations, seed):
        count += (np.abs(signs @ d) / n >= threshold).sum(axis=0)
        total += len(signs)
    return count / total if exact else (1.0 + count) / (1.0 + total)
