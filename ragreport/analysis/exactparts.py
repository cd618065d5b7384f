"""The bootstrap's exact sums (docs/conventions.md sections 22.5, 22.12 and 22.19): a matrix split
into two matrices of whole numbers whose products with whole resample counts BLAS computes without
rounding, and the rows of such a split a product needs (the others zero, or copies)."""

from __future__ import annotations

import numpy as np

#: The bootstrap's exact sums (:func:`exact_parts`): each value, as a share of a power of two at
#: least its column's largest magnitude, in whole units of 2^-26 (the high part) and of 2^-53 (the
#: low part). A resample's sum of counts times either part is at most n x 2^26 units: exact in a
#: double for up to 2^27 (134 million) rows.
HIGH_BITS = 26
LOW_UNIT = 2.0**-27
EXACT_ROWS = 1 << 27


def exact_parts(matrix: np.ndarray, *, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(high, low, exponent)``: ``matrix`` (n x m) as whole numbers that BLAS sums exactly.

    With ``2^e`` the power of two above column ``j``'s largest magnitude (``frexp``),
    ``high = rint(x * 2^(26 - e))`` and ``low = rint((x * 2^(26 - e) - high) * 2^27)``, both whole
    numbers of at most 2^26 in magnitude, ``exponent = e - 26``, and
    ``x = (high + low * 2^-27) * 2^exponent`` to within ``2^(e - 54)`` (half a unit in the last
    place of the column's largest value). Any sum of ``c_i * high_i`` with whole counts ``c`` that
    add up to at most 2^27 is then exact in doubles, in any order (every partial sum is a whole
    number below 2^53), and so is that of ``c_i * low_i``: a product of the counts with either part
    has one result whatever BLAS's blocking, threads or processor. A column with a non-finite value
    is kept as it is (``low`` zero, exponent 0): its means are not finite anyway. Past 2^27 rows
    the parts are the matrix itself and zeros, and the sums BLAS's own. With ``overwrite`` the
    matrix's own memory holds the low part.
    """
    values = np.asarray(matrix, dtype=np.float64)
    n, m = values.shape
    high = values if overwrite and values.flags.writeable else values.copy()
    low = np.zeros_like(high)
    exponent = np.zeros(m, dtype=np.int64)
    if n > EXACT_ROWS or not high.size:
        return high, low, exponent
    top = np.maximum(high.max(axis=0), -high.min(axis=0))  # no (n x m) temporary of magnitudes
    finite = np.isfinite(top)
    exponent[finite] = np.frexp(top[finite])[1] - HIGH_BITS
    if finite.all():
        return (*split_in_place(high, low, exponent), exponent)
    cols = np.flatnonzero(finite)
    high[:, cols], low[:, cols] = split_in_place(high[:, cols], low[:, cols], exponent[cols])
    return high, low, exponent


def split_in_place(values: np.ndarray, spare: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`exact_parts` in place: ``(high, low)`` in the memory of ``spare`` and ``values``.
    Column by column ``x * 2^(26 - e)`` is exact (a power of two) and below 2^26 in magnitude; its
    distance to the nearest whole number is exact too."""
    if len(exponent) and -1022 <= -exponent.max() and -exponent.min() <= 1023:
        # Times 2^-e, a double itself: the very bits ldexp gives (one correctly rounded product),
        # about ten times faster (numpy's ldexp has no vector loop): docs/conventions.md 22.20.
        np.multiply(values, np.ldexp(1.0, -exponent)[None, :], out=values)
    else:
        np.ldexp(values, -exponent[None, :], out=values)
    np.rint(values, out=spare)
    np.subtract(values, spare, out=values)
    np.multiply(values, 2.0**27, out=values)
    np.rint(values, out=values)
    return spare, values


def distinct_parts(parts: np.ndarray, own: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``parts`` (a partition's part columns, one a row) a product needs, and where the
    others' sums come from: ``(chosen, copies, same)``, ``chosen`` the rows multiplied (in order), ``copies``
    the rows equal, value for value, to the chosen row ``same`` (an index into ``chosen``). A row
    of zeros is neither: its sums are zero. The rows ``own`` (columns that are not finite) are
    always multiplied. The sums are of whole numbers, exact (22.5): a row equal to another has its
    very sums, and a row of zeros adds nothing to sums that start at zero (22.12)."""
    live = np.asarray(parts.any(axis=1))
    live[own] = False
    index = np.flatnonzero(live)
    keys = _row_prints(parts, index)
    groups: dict[float, list[int]] = {}
    chosen: list[int] = []
    copies: list[int] = []
    same: list[int] = []
    for at, key in zip(index.tolist(), keys.tolist()):
        found = groups.setdefault(key, [])
        for pick in found:
            if np.array_equal(parts[at], parts[chosen[pick]]):
                copies.append(at)
                same.append(pick)
                break
        else:
            found.append(len(chosen))
            chosen.append(at)
    chosen.extend(own.tolist())
    # In row order: a row's sums at its rank among the chosen.
    order = np.argsort(np.array(chosen, dtype=np.intp), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    picked = np.array(chosen, dtype=np.intp)[order]
    return picked, np.array(copies, dtype=np.intp), rank[np.array(same, dtype=np.intp)]


def _row_prints(parts: np.ndarray, index: np.ndarray) -> np.ndarray:
    """One number a row of ``parts`` (the rows ``index``): its products with fixed weights, added by
    numpy's own sum, which adds every row's the same way, so equal rows get equal prints; rows that
    differ almost never do (and the rows of one print are compared whole). A few rows at a time:
    no copy of the partition. Sampling a few dozen places of each row instead sent the many rows
    that are zero at most places (whole fractions, low parts) into one group compared pair by
    pair: 88,000 whole-row comparisons at the wide size, 0.7 s (docs/conventions.md 22.19)."""
    weights = np.random.default_rng(0x5EED).random(parts.shape[1]) + 0.5
    prints = np.empty(len(index))
    for start in range(0, len(index), 32):
        rows = index[start : start + 32]
        prints[start : start + len(rows)] = (parts[rows] * weights).sum(axis=1)
    return prints
