"""The mergeable (Poisson) bootstrap and randomization test: per-partition sums that add up to the
figures of the whole, however the queries are split (issue 42; docs/conventions.md section 29).

Chamandy, Muralidharan, Najmi and Naik ("Estimating uncertainty for massive data streams", Google,
2012): instead of drawing n queries with replacement (a multinomial count per query, which needs all
n queries in one place), each query gets an independent Poisson(1) weight per resample, so a
resample's weighted sums of a partition add to the whole's. Here the weights are not drawn from a
generator's stream but hashed from the query id and the resample index, so a query's weight does
not depend on which partition holds it or where; and the sums are exact (:class:`ResampledSums`),
so 1, 2 or 8 partitions give the same sums to the bit.

- Key (:func:`query_keys`): ``key = mix64(fnv1a64(utf8(id)) XOR mix64(seed + GOLDEN))`` where
  ``fnv1a64`` is FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3) over the id's UTF-8
  bytes (a lone surrogate encoded as by ``"surrogatepass"``), ``mix64`` is splitmix64's finaliser
  ``z ^= z >> 30; z *= 0xbf58476d1ce4e5b9; z ^= z >> 27; z *= 0x94d049bb133111eb; z ^= z >> 31``,
  ``GOLDEN = 0x9e3779b97f4a7c15``, every step mod 2^64 and ``seed`` taken mod 2^64.
- Stream value (:func:`stream`): the j-th value of a stream with constant ``c`` is
  ``r_j = mix64(c + (j + 1) * GOLDEN)`` (splitmix64's j-th output from state ``c``); the weights'
  stream has ``c = 0x776569676874730a``, the signs' ``c = 0x7369676e7321210a``.
- Weight of query q in resample b (:func:`poisson_weights`): ``z = mix64(key_q XOR r_b)``,
  ``m = z >> 11`` (a 53-bit uniform integer, ``u = m / 2^53``), and the inverse Poisson(1) CDF on
  that grid: ``w = #{k : m >= T_k}`` with ``T_k = round(2^53 * sum_{j<=k} e^-1 / j!)`` for
  ``k = 0..16`` (:data:`THRESHOLDS`, written out; ``T_17`` would be 2^53, so weights run 0..17).
- Sign of query q in permutation p = 64 j + i (:func:`signs`): ``1 - 2 * bit_i(mix64(key_q XOR
  s_j))``, bit 0 the least significant, ``s_j`` the signs' stream: 64 signs per hash.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.budget import check_fits
from ..core.errors import Argument, whole_number
from .intervals import check_resamples, percentile_band, standardised_effect
from .randomization import MAX_PERMUTATIONS, TIE

if TYPE_CHECKING:  # annotations only
    from ..scoring.catalogue import Measure
    from ..scoring.join import JudgedRun
    from ..scoring.metrics import QueryScores

GOLDEN = 0x9E3779B97F4A7C15
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
#: The stream constants of the weights and of the signs ("weights\n", "signs!!\n" as ASCII).
WEIGHTS_STREAM = 0x776569676874730A
SIGNS_STREAM = 0x7369676E7321210A

_MASK = (1 << 64) - 1
_U64 = np.uint64


#: The inverse CDF's steps on the 53-bit grid, ``T_k = round(2^53 sum_{j<=k} e^-1 / j!)`` for
#: k = 0..16 (weights 0..17), written out so that no platform's ``exp`` can move one.
THRESHOLDS = np.array(
    [
        3313563428353948,
        6627126856707896,
        8283908570884870,
        8836169142277195,
        8974234285125276,
        9001847313694892,
        9006449485123161,
        9007106938184343,
        9007189119816990,
        9007198251109507,
        9007199164238759,
        9007199247250509,
        9007199254168155,
        9007199254700281,
        9007199254738290,
        9007199254740824,
        9007199254740982,
    ],
    dtype=np.uint64,
)
#: The same steps compared with the whole 64-bit hash: ``m >= T`` exactly when ``z >= T << 11``.
_STEPS = THRESHOLDS << _U64(11)

#: Cells (resamples x queries, or signs) one block holds: 8 MB a uint64 array.
_BLOCK_CELLS = 1 << 20
#: Rows of ids hashed at once.
_ID_ROWS = 1 << 16
#: Queries summed at once: a block of 64 resamples' weights, or of 64 signs, is a million cells.
_QUERY_ROWS = 1 << 14

#: Each byte's eight signs, ``1 - 2 * bit_i`` for i = 0..7, the least significant bit first.
_BYTE_SIGNS = 1.0 - 2.0 * ((np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1)


def mix64(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place on a uint64 array (wrapping mod 2^64); returns ``z``."""
    tmp = np.empty_like(z)
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB), (31, None)):
        np.right_shift(z, _U64(shift), out=tmp)
        z ^= tmp
        if factor is not None:
            z *= _U64(factor)
    return z


def stream(constant: int, first: int, count: int) -> np.ndarray:
    """Values ``first .. first + count - 1`` of the stream with ``constant`` (``r_j`` above)."""
    j = np.arange(first + 1, first + count + 1, dtype=np.uint64)
    return mix64(j * _U64(GOLDEN) + _U64(constant))


#: A code point's first UTF-8 byte by its byte count: ``_LEAD[n] | cp >> _LEAD_SHIFT[n]``.
_LEAD = np.array([0, 0, 0xC0, 0xE0, 0xF0], dtype=np.uint32)
_LEAD_SHIFT = np.array([0, 0, 6, 12, 18], dtype=np.uint32)


def _code_points(h: np.ndarray, cp: np.ndarray) -> None:
    """FNV-1a steps, in place on ``h``, over the UTF-8 bytes of one code point of each id."""
    size = (cp >= 0x80).view(np.uint8) + (cp >= 0x800).view(np.uint8) + (cp >= 0x10000).view(np.uint8) + 1
    h ^= _LEAD[size] | (cp >> _LEAD_SHIFT[size])
    h *= _U64(FNV_PRIME)
    for k in range(1, 4):  # continuation byte k of the code points of more than k bytes
        at = np.flatnonzero(size > k)
        if not len(at):
            break
        longer = h[at] ^ (0x80 | ((cp[at] >> (6 * (size[at] - 1 - k)).astype(np.uint32)) & 0x3F))
        longer *= _U64(FNV_PRIME)
        h[at] = longer


def _fnv1a(ids: np.ndarray) -> np.ndarray:
    """FNV-1a 64 of each id's UTF-8 bytes (ids 1-D, 'U' or UTF-8 'S'), a character column at a
    time. Rows are taken longest first so that the ids still going at character j are a prefix."""
    units = np.uint8 if ids.dtype.kind == "S" else np.uint32
    data = ids.view(units).reshape(len(ids), -1)
    lengths = np.strings.str_len(ids)
    order = np.argsort(-lengths, kind="stable")
    data, lengths = data[order], lengths[order]
    h = np.full(len(ids), FNV_OFFSET, dtype=np.uint64)
    going = np.searchsorted(-lengths, -np.arange(data.shape[1]), side="left")  # ids longer than j
    for j, rows in enumerate(going[going > 0]):
        column, head = data[:rows, j], h[:rows]
        if units is np.uint8 or column.max() < 0x80:
            head ^= column
            head *= _U64(FNV_PRIME)
        else:
            _code_points(head, column)
    out = np.empty_like(h)
    out[order] = h
    return out


def query_keys(query_ids, seed: int) -> np.ndarray:
    """The seeded 64-bit key of every query id (uint64; the formula in the module's docstring).

    ``query_ids`` is a 1-D array of text ('U') or of UTF-8 bytes ('S'), which give the same keys;
    anything else is taken as text (``astype(str)``). A key depends on the id and the seed only.
    """
    ids = np.asarray(query_ids)
    if ids.dtype.kind not in "US":
        ids = ids.astype(str)
    ids = np.ascontiguousarray(ids.reshape(-1))
    salt = int(mix64(np.array([(seed + GOLDEN) & _MASK], dtype=np.uint64))[0])
    out = np.empty(len(ids), dtype=np.uint64)
    for start in range(0, len(ids), _ID_ROWS):
        chunk = ids[start : start + _ID_ROWS]
        h = _fnv1a(chunk)
        h ^= _U64(salt)
        out[start : start + len(chunk)] = mix64(h)
    return out


def poisson_weights(keys: np.ndarray, first: int, count: int) -> np.ndarray:
    """The Poisson(1) weights of resamples ``first .. first + count - 1`` (count x queries, float64)."""
    z = np.bitwise_xor(keys[None, :], stream(WEIGHTS_STREAM, first, count)[:, None])
    mix64(z)
    above = np.greater_equal(z, _STEPS[0])
    w = above.astype(np.float64)
    for step in _STEPS[1:4]:
        np.greater_equal(z, step, out=above)
        w += above
    # Weights of 4 or more (1.9% of them) looked up one by one.
    np.greater_equal(z, _STEPS[4], out=above)
    rare = np.flatnonzero(above)
    w.reshape(-1)[rare] = np.searchsorted(_STEPS, z.reshape(-1)[rare], side="right")
    return w


def signs(keys: np.ndarray, first_word: int, words: int) -> np.ndarray:
    """The signs (+1/-1) of permutations ``64 first_word .. 64 (first_word + words) - 1``
    ((64 words) x queries, float64: a transposed view of :func:`_query_signs`)."""
    return _query_signs(keys, first_word, words).T


def _query_signs(keys: np.ndarray, first_word: int, words: int) -> np.ndarray:
    """:func:`signs` laid out queries first (queries x (64 words)), as the hashes come: (query,
    word, byte, bit) is permutation 64 j + 8 byte + bit, with no transposed copy."""
    z = np.bitwise_xor(keys[:, None], stream(SIGNS_STREAM, first_word, words)[None, :])
    packed = mix64(z).astype("<u8").view(np.uint8).reshape(len(keys), 8 * words)
    out = np.empty((len(keys), 8 * words, 8))
    np.take(_BYTE_SIGNS, packed, axis=0, out=out, mode="clip")  # a quarter of a fancy index's time
    return out.reshape(len(keys), 64 * words)


def _blocks(total: int, per: int) -> Iterator[tuple[int, int]]:
    per = max(1, per)
    for start in range(0, total, per):
        yield start, min(per, total - start)


#: Bits of one digit of the exact sums: a digit's weighted sum stays an integer below 2^53 (exact
#: in float64, whatever the order of its additions) while the weights total less than 2^27.
DIGIT_BITS = 26
#: The grid every value is rounded to before it is summed: multiples of 2^-52.
FLOOR = -52


def digits(values: np.ndarray, count: int | None = None) -> np.ndarray:
    """``values`` (finite) as exact base-2^26 digits on the grid 2^-52 (digits x values' shape):
    ``N = rint(x 2^52)``, split ``N = sum_i d_i 2^(26 i)`` by truncation toward zero, every
    ``|d_i| < 2^26`` but the last, ``|d_last| <= 2^26``; values in [-1, 1] take two digits.
    ``count``: at least that many digits (the higher ones zero), as a block of a larger whole
    needs to add up with the rest."""
    if np.isinf(values).any():  # would never shrink to one digit
        raise ValueError("an infinite value cannot be summed exactly")
    n = np.rint(np.ldexp(values, -FLOOR))
    out: list[np.ndarray] = []
    while True:
        high = np.trunc(np.ldexp(n, -DIGIT_BITS))
        if not np.any(np.abs(n) > 2.0**DIGIT_BITS):
            out.append(n)
            return np.stack(out + [np.zeros_like(n)] * ((count or 0) - len(out)))
        out.append(n - np.ldexp(high, DIGIT_BITS))
        n = high


def _padded(a: np.ndarray, count: int) -> np.ndarray:
    return np.concatenate([a, np.zeros((count - len(a), *a.shape[1:]))]) if len(a) < count else a


def _value(parts: np.ndarray) -> np.ndarray:
    """The float64 value of summed digits, ``sum_i parts[i] 2^(26 i - 52)``, highest first."""
    total = np.zeros(parts.shape[1:])
    for i in reversed(range(len(parts))):
        total = total + np.ldexp(parts[i], DIGIT_BITS * i + FLOOR)
    return total


@dataclass(frozen=True, eq=False)
class ResampledSums:
    """The sums of a set of queries' rows (rows x columns: whatever the caller banded) from which
    the bootstrap bands and the randomization test of the whole are made: ``rows`` (n), the column
    ``totals`` (sum x), per resample b the Poisson-weighted sums
    ``weighted[b] = sum_q w_qb x_q`` and ``weights[b] = sum_q w_qb``, and per permutation p the
    sign-flipped sums ``flipped[p] = sum_q s_qp x_q``. Two sets of disjoint queries add with ``+``
    (``sum()`` of a list works): every field is a sum over queries.

    The sums are exact, so that a figure is the same to the bit however the queries are split:
    each value is rounded to the grid 2^-52 and cut into base-2^26 digits (:func:`digits`), and
    each digit summed apart (``digit_totals``, ``digit_weighted``, ``digit_flipped``: digits first),
    an integer below 2^53 while the weights total less than 2^27 (about 134 million queries);
    ``totals``, ``weighted`` and ``flipped`` are the digits' values, ``sum_i S_i 2^(26 i - 52)``."""

    rows: int
    digit_totals: np.ndarray  # digits x columns
    digit_weighted: np.ndarray  # digits x resamples x columns
    weights: np.ndarray  # resamples
    digit_flipped: np.ndarray  # digits x permutations x columns

    @functools.cached_property
    def totals(self) -> np.ndarray:
        return _value(self.digit_totals)

    @functools.cached_property
    def weighted(self) -> np.ndarray:
        return _value(self.digit_weighted)

    @functools.cached_property
    def flipped(self) -> np.ndarray:
        return _value(self.digit_flipped)

    @classmethod
    def of(cls, keys: np.ndarray, values: np.ndarray, resamples: int, permutations: int = 0) -> ResampledSums:
        """The sums of the queries with ``keys`` (:func:`query_keys`) and rows ``values`` (queries x
        columns, finite), in blocks of about a million weights or signs."""
        permutations = whole_number(permutations, Argument("permutations"), 0, MAX_PERMUTATIONS)
        values = np.asarray(values, dtype=np.float64)
        keys = np.asarray(keys, dtype=np.uint64)
        n, m = values.shape
        if len(keys) != n:
            raise ValueError("one key per row")
        check_resamples(resamples, m)
        # The largest value needs the most digits (a digit a factor 2^26 of the size); every block
        # is cut into as many, so that the blocks' sums add digit by digit.
        largest = np.maximum(values.max(axis=0, initial=0.0), -values.min(axis=0, initial=0.0))  # no |values| copy
        count = len(digits(largest))
        totals, weighted, weights = np.zeros((count, m)), np.zeros((count, resamples, m)), np.zeros(resamples)
        words = -(-permutations // 64)
        check_fits(8.0 * 64 * words * m * count, (Argument("permutations"), f" {permutations:,} over {m:,} columns"))
        flipped = np.zeros((count, 64 * words, m))
        for q, size in _blocks(n, _QUERY_ROWS):
            # Every digit of every column side by side: one product a block reads its weights or
            # signs once (the sums stay whole numbers below 2^53: exact in any order). The digits
            # are cut a block at a time: of every query at once they took five copies of the values.
            parts = digits(values[q : q + size], count)
            totals += parts.sum(axis=1)
            rows, x = keys[q : q + size], parts.transpose(1, 0, 2).reshape(size, count * m)
            for b, many in _blocks(resamples, _BLOCK_CELLS // size):
                w = poisson_weights(rows, b, many)
                weighted[:, b : b + many] += (w @ x).reshape(many, count, m).transpose(1, 0, 2)
                weights[b : b + many] += w.sum(axis=1)
            for j, words in _blocks(flipped.shape[1] // 64, _BLOCK_CELLS // (64 * size)):
                # permutations x (digits, columns): BLAS threads this shape well, not its transpose
                flips = _query_signs(rows, j, words).T @ x
                flipped[:, 64 * j : 64 * (j + words)] += flips.reshape(64 * words, count, m).transpose(1, 0, 2)
        return cls(n, totals, weighted, weights, flipped[:, :permutations])

    def __add__(self, other: ResampledSums) -> ResampledSums:
        if not isinstance(other, ResampledSums):
            return NotImplemented
        if self.weighted.shape != other.weighted.shape or self.flipped.shape != other.flipped.shape:
            raise ValueError("sums of different columns, resamples or permutations do not add")
        count = max(len(self.digit_totals), len(other.digit_totals))
        a, b = (
            [_padded(getattr(one, name), count) for name in ("digit_totals", "digit_weighted", "digit_flipped")]
            for one in (self, other)
        )
        return ResampledSums(
            self.rows + other.rows, a[0] + b[0], a[1] + b[1], self.weights + other.weights, a[2] + b[2]
        )

    def __radd__(self, other):  # sum()'s start, 0
        return self if isinstance(other, int) and other == 0 else NotImplemented

    def columns(self, columns: Sequence[int]) -> ResampledSums:
        """The same sums of ``columns`` alone, in that order."""
        at = np.asarray(columns, dtype=np.int64)
        return ResampledSums(
            self.rows,
            self.digit_totals[:, at],
            self.digit_weighted[:, :, at],
            self.weights,
            self.digit_flipped[:, :, at],
        )

    def means(self) -> np.ndarray:
        """Each column's mean, ``totals / rows`` (NaN with no row)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.totals / self.rows

    def resampled_means(self, column: int | None = None, minus: int | None = None) -> np.ndarray:
        """Each resample's mean of ``column`` (minus ``minus``: a paired difference, the same
        weights), ``weighted / weights``, leaving out resamples whose weights total 0; of every
        column (resamples x columns) when ``column`` is None."""
        kept = self.weights > 0
        if column is None:
            return self.weighted[kept] / self.weights[kept, None]
        values = self.weighted[kept, column]
        if minus is not None:
            values = values - self.weighted[kept, minus]
        return values / self.weights[kept]

    def band(self, column: int, minus: int | None = None, confidence: float = 0.95) -> tuple[float, float, float]:
        """``(mean, low, high)`` of ``column`` (minus ``minus``): the mean, and the percentile band
        of the resampled means (:func:`~ragreport.analysis.intervals.percentile_band`). NaN with no
        row; with one row the band collapses onto its value."""
        mean = self.means()[column] - (0.0 if minus is None else self.means()[minus])
        drawn = self.resampled_means(column, minus)
        if not len(drawn):
            return float(mean), math.nan, math.nan
        low, high = percentile_band(drawn[:, None], confidence)
        return float(mean), float(low[0]), float(high[0])

    def p_value(self, column: int, minus: int | None = None) -> float:
        """The two-sided randomization p-value of a zero mean of ``column`` (minus ``minus``),
        the rule of :func:`~ragreport.analysis.randomization.randomization_test` on the drawn signs:
        ``T = |sum d| / n``, ``p = (1 + #{p : |flipped_p| / n >= T - 1e-12}) / (1 + permutations)``.
        Always drawn (never the 2^n enumeration of a tiny n); NaN with no row or no permutation."""
        total, flipped = self.totals[column], self.flipped[:, column]
        if minus is not None:
            total, flipped = total - self.totals[minus], flipped - self.flipped[:, minus]
        if self.rows == 0 or not len(flipped):
            return math.nan
        count = int((np.abs(flipped) / self.rows >= abs(total) / self.rows - TIE).sum())
        return (1.0 + count) / (1.0 + len(flipped))

    def effect(self, d: int, d2: int, confidence: float = 0.95) -> tuple[float, float, float]:
        """d_z = mean(d) / sd(d) (ddof 1) and its band, from columns ``d`` and ``d2`` = d^2.

        The figure is :func:`~ragreport.analysis.intervals.standardised_effect` of ``S1 / n`` and
        ``S2 / n``; resample b's is the same of ``weighted[b, d] / W_b`` and ``weighted[b, d2] /
        W_b`` with ``W_b`` its weights' total in place of n (Poisson weights are frequency
        weights), resamples with ``W_b < 2`` left out. As in the paired bands of compare.py, a
        resample with all differences equal and a zero mean counts as 0, and a bound (or the
        figure) left infinite is NaN: undefined.
        """
        n = max(self.rows, 1)
        effect = _defined(standardised_effect(self.totals[d] / n, self.totals[d2] / n, self.rows))
        kept = self.weights >= 2
        total = self.weights[kept]
        mean, square = self.weighted[kept, d] / total, self.weighted[kept, d2] / total
        variance = (square - mean * mean) * (total / (total - 1))
        flat = variance <= 1e-12 * square
        with np.errstate(divide="ignore", invalid="ignore"):
            drawn = np.where(flat, np.sign(mean) * np.inf, mean / np.sqrt(np.where(flat, 1.0, variance)))
        if math.isnan(effect) or not len(drawn):
            return effect, math.nan, math.nan
        with np.errstate(invalid="ignore"):
            low, high = percentile_band(np.where(np.isnan(drawn), 0.0, drawn)[:, None], confidence)
        return effect, _defined(low[0]), _defined(high[0])


def _defined(value) -> float:
    """A figure, NaN where infinite (undefined)."""
    return float(value) if np.isfinite(value) else math.nan


def measure_rows(values: np.ndarray, measures: Sequence[Measure]) -> np.ndarray:
    """The columns the measures by name are banded from (queries x columns): each measure's values
    (``values``: measures x queries), then each geometric mean's logs, floored at its epsilon (its
    band is of the mean log, exponentiated)."""
    logs = [
        np.log(np.maximum(values[i], m.metric.geometric))
        for i, m in enumerate(measures)
        if m.metric.geometric is not None
    ]
    return np.vstack([values, *logs]).T if logs else values.T


def scored_sums(
    judged: JudgedRun,
    scores: QueryScores,
    measure_values: np.ndarray | None = None,
    *,
    seed: int,
    resamples: int,
    measures: Sequence[Measure] = (),
) -> ResampledSums:
    """The sums of a run's (or a partition's) scored queries, a column per metric per cutoff:
    column ``m * len(scores.cutoffs) + c`` is ``scores.metrics[m]`` at ``scores.cutoffs[c]``, then,
    with ``measures`` and their ``measure_values`` (measures x queries), :func:`measure_rows`'
    columns; the rows those of ``scores.scored``, keyed by query id with ``seed``. The partitioned
    engines' :data:`~ragreport.scoring.partition.Summed`, with ``functools.partial`` giving seed,
    resamples and measures."""
    n_metrics, _, n_cut = scores.values.shape
    scored = np.flatnonzero(scores.scored)
    keys = query_keys(judged.query_ids[scored], seed)
    total: ResampledSums | None = None
    # A block of queries at a time (exact sums: the blocks add to the same bits): the rows of every
    # scored query at once copied the whole matrix of scores (450 MB for 240,000 queries swept).
    for start in range(0, max(len(scored), 1), _SUMMED_ROWS):
        at = scored[start : start + _SUMMED_ROWS]
        rows = scores.values[:, at, :].transpose(1, 0, 2).reshape(len(at), n_metrics * n_cut)
        if measures and measure_values is not None:
            rows = np.hstack([rows, measure_rows(measure_values[:, at], measures)])
        part = ResampledSums.of(keys[start : start + _SUMMED_ROWS], rows, resamples)
        total = part if total is None else total + part
    assert total is not None
    return total


#: Scored queries summed at a time by :func:`scored_sums`.
_SUMMED_ROWS = 1 << 16
