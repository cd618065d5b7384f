"""The mergeable Poisson bootstrap (issue 42): keys and weights against a scalar re-implementation
of the stated hash, sums that do not depend on the partitioning, bands that cover a planted truth
at their rate and agree with the in-memory bootstrap, a randomization test of the right size."""

from __future__ import annotations

import functools
import math
import os

import numpy as np
import pytest

from ragreport.analysis.intervals import bootstrap_interval
from ragreport.analysis.poisson import (
    SIGNS_STREAM,
    THRESHOLDS,
    WEIGHTS_STREAM,
    ResampledSums,
    digits,
    poisson_weights,
    query_keys,
    scored_sums,
    signs,
)
from ragreport.analysis.randomization import randomization_test
from ragreport.core.model import Conventions
from ragreport.reading.registry import load_qrels, load_runs
from ragreport.scoring.join import join
from ragreport.scoring.metrics import score
from ragreport.scoring.partition import judged_by_partitions, partitions_of

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix(z: int) -> int:
    z ^= z >> 30
    z = (z * 0xBF58476D1CE4E5B9) & M64
    z ^= z >> 27
    z = (z * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def key(query_id: str | bytes, seed: int) -> int:
    """The stated key, one id at a time in pure Python."""
    data = query_id if isinstance(query_id, bytes) else query_id.encode("utf-8", "surrogatepass")
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & M64
    return mix(h ^ mix((seed + GOLDEN) & M64))


def hashed(k: int, constant: int, j: int) -> int:
    return mix(k ^ mix((constant + (j + 1) * GOLDEN) & M64))


def weight(k: int, b: int) -> int:
    m = hashed(k, WEIGHTS_STREAM, b) >> 11
    return sum(m >= int(t) for t in THRESHOLDS)


def sign(k: int, p: int) -> int:
    return 1 - 2 * ((hashed(k, SIGNS_STREAM, p // 64) >> (p % 64)) & 1)


IDS = ["q1", "é", "日本語", "😀x", "a b", "x" * 300, "Ω-42", "1", "ab\ud800", "ǅ\u07ff\u0800\uffff\U00010000"]


def test_keys_are_the_stated_hash_for_text_and_utf8_bytes():
    for seed in (0, 7, 2**64 - 1, -1):
        expected = [key(q, seed) for q in IDS]
        assert query_keys(np.array(IDS), seed).tolist() == expected
        utf8 = np.array([q.encode("utf-8", "surrogatepass") for q in IDS])
        assert utf8.dtype.kind == "S" and query_keys(utf8, seed).tolist() == expected
        assert query_keys(IDS[::-1], seed).tolist() == expected[::-1]  # the id's, not the place's
    assert query_keys(np.array(["q1", "é", "日本語"]), 0).tolist() == [
        12403720303140620049,
        18409502191487133673,
        2106765351242766326,
    ]
    assert query_keys(np.array(["q1"]), 42).tolist() == [key("q1", 42)]
    assert query_keys(np.zeros(0, dtype=str), 0).shape == (0,)


def test_keys_of_many_ids_cross_the_hashing_blocks():
    rng = np.random.default_rng(3)
    ids = np.char.add("query-", np.arange(150_000).astype(str))
    ids[rng.choice(len(ids), 50, replace=False)] = "é-" + np.arange(50).astype(str)
    ids[123_456] = "z" * 80  # one long id in one block
    keys = query_keys(ids, 5)
    for i in [*rng.choice(len(ids), 200, replace=False), 123_456, 0, len(ids) - 1]:
        assert int(keys[i]) == key(str(ids[i]), 5)


def test_thresholds_are_the_poisson_1_cdf_on_the_53_bit_grid():
    pmf = [math.exp(-1.0) / math.factorial(k) for k in range(len(THRESHOLDS))]
    assert len(THRESHOLDS) == 17 and (np.diff(THRESHOLDS.astype(np.int64)) > 0).all()
    for k, t in enumerate(THRESHOLDS):
        assert abs(int(t) / 2.0**53 - sum(pmf[: k + 1])) < 2e-16
        assert int(t) == round(math.fsum(pmf[: k + 1]) * 2**53)
    assert math.exp(-1.0) / math.factorial(18) * 2**53 < 1  # weights above 17: under one grid step


def test_weights_and_signs_are_the_stated_hash():
    keys = query_keys(np.array(IDS), 1)
    w = poisson_weights(keys, 5, 30)
    assert w.shape == (30, len(IDS))
    assert w.tolist() == [[weight(int(k), b) for k in keys] for b in range(5, 35)]
    s = signs(keys, 2, 2)
    assert s.shape == (128, len(IDS))
    assert s.tolist() == [[sign(int(k), p) for k in keys] for p in range(128, 256)]


def test_weights_are_poisson_1():
    # 1,000,000 weights: the mean's sd is 0.001, the variance's sqrt((mu4 - 1) / N) = 0.0017
    # (Poisson(1): mu4 = 4), P(0)'s sqrt(p (1 - p) / N) = 0.00048; five of them each.
    w = poisson_weights(query_keys(np.arange(10_000), 0), 0, 100)
    assert abs(w.mean() - 1.0) < 0.005 and abs(w.var() - 1.0) < 0.009
    assert abs((w == 0).mean() - math.exp(-1.0)) < 0.0025
    assert abs((w == 3).mean() - math.exp(-1.0) / 6) < 0.0015
    s = signs(query_keys(np.arange(10_000), 0), 0, 2)
    assert abs(s.mean()) < 0.005 and set(np.unique(s)) == {-1.0, 1.0}


def _split(n: int, parts: int, rng) -> list[np.ndarray]:
    order = rng.permutation(n)
    cuts = np.sort(rng.choice(np.arange(1, n), parts - 1, replace=False))
    return np.split(order, cuts)


def test_sums_bands_and_p_values_do_not_depend_on_the_partitions():
    rng = np.random.default_rng(11)
    n = 20_000
    ids = np.char.add("q", np.arange(n).astype(str))
    a = np.where(rng.random(n) < 0.3, 0.0, rng.beta(2, 5, n))
    b = np.clip(a + rng.normal(0.02, 0.1, n), 0, 1)
    d = a - b
    values = np.column_stack([a, b, d, d * d])
    keys = query_keys(ids, 9)

    def merged(parts: int) -> ResampledSums:
        if parts == 1:
            return ResampledSums.of(keys, values, 500, 256)
        return sum(ResampledSums.of(keys[p], values[p], 500, 256) for p in _split(n, parts, rng))

    def figures(s: ResampledSums) -> list[float]:
        return [*s.band(0), *s.band(1), *s.band(0, minus=1), *s.band(2), s.p_value(0, 1), s.p_value(2), *s.effect(2, 3)]

    whole = merged(1)
    for parts in (2, 8):
        split = merged(parts)
        assert split.rows == n
        for field in ("totals", "weighted", "weights", "flipped"):  # exact sums: the same to the bit
            assert np.array_equal(getattr(split, field), getattr(whole, field)), field
        assert figures(split) == figures(whole)
    # The difference's figures are the difference column's: the same weights and signs for both.
    np.testing.assert_allclose(whole.band(0, minus=1), whole.band(2), atol=1e-12)
    assert whole.p_value(0, minus=1) == whole.p_value(2)


def test_values_are_summed_as_exact_digits():
    # N = rint(x 2^52) in base-2^26 digits, truncated toward zero: the last digit may reach 2^26.
    x = np.array([1.0, -1.0, 0.1, -0.3, 2.0**-60, 3.5, 0.0])
    parts = digits(x)
    assert parts.shape == (3, 7)  # 3.5 needs a third digit; values in [-1, 1] two
    assert (
        np.all(parts == np.trunc(parts)) and np.all(np.abs(parts[:-1]) < 2**26) and np.all(np.abs(parts[-1]) <= 2**26)
    )
    assert parts[:, 0].tolist() == [0.0, 0.0, 1.0] and parts[:, 4].tolist() == [0.0, 0.0, 0.0]  # 2^-60: below the grid
    back = sum(parts[i] * 2.0 ** (26 * i - 52) for i in range(3))
    assert np.all(np.abs(back - x) <= 2.0**-53)
    assert np.array_equal(digits(-x), -parts)  # toward zero: a sign changes no digit's size
    # Sums of such digits are whole numbers below 2^53: float64 adds them in any order exactly.
    rng = np.random.default_rng(4)
    values = rng.random((5_000, 2)) * np.array([1.0, -1.0])
    keys = query_keys(np.char.add("q", np.arange(5_000).astype(str)), 1)
    order = rng.permutation(5_000)
    a = ResampledSums.of(keys, values, 40, 64)
    b = ResampledSums.of(keys[order[:1234]], values[order[:1234]], 40, 64) + ResampledSums.of(
        keys[order[1234:]], values[order[1234:]], 40, 64
    )
    for field in ("digit_totals", "digit_weighted", "digit_flipped", "weights"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert np.array_equal(a.columns([1, 0]).weighted, a.weighted[:, ::-1])


def test_merging_rules():
    keys = query_keys(np.array(["a", "b", "c"]), 0)
    x = np.array([[0.5], [1.0], [0.0]])
    empty = ResampledSums.of(keys[:0], x[:0], 50, 10)
    whole = ResampledSums.of(keys, x, 50, 10)
    assert (empty + whole).weighted.tolist() == whole.weighted.tolist()
    assert math.isnan(empty.band(0)[0]) and math.isnan(empty.p_value(0)) and math.isnan(empty.band(0)[1])
    one = ResampledSums.of(keys[:1], x[:1], 50, 10)
    assert one.band(0) == (0.5, 0.5, 0.5)  # one row: the band collapses onto it
    with pytest.raises(ValueError, match="do not add"):
        whole + ResampledSums.of(keys, x, 40, 10)
    assert ResampledSums.of(keys, x, 50).flipped.shape == (0, 1)


def test_d_z_by_hand():
    # mean 0.1375, sd sqrt((0.1425 - 0.55^2 / 4) / 3) = 0.149304: d_z = 0.920940.
    d = np.array([0.1, 0.2, 0.3, -0.05])
    sums = ResampledSums.of(query_keys(np.array(["a", "b", "c", "d"]), 0), np.column_stack([d, d * d]), 2000)
    effect, low, high = sums.effect(0, 1)
    assert round(effect, 6) == 0.920940
    # 5% of the resamples weigh one query only, 4% of them a positive one: d_z +inf, the bound NaN.
    assert low < effect and math.isnan(high)
    d = np.tile(d, 10) + np.arange(40) / 400
    sums = ResampledSums.of(query_keys(np.arange(40), 0), np.column_stack([d, d * d]), 2000)
    effect, low, high = sums.effect(0, 1)
    assert low < effect < high
    flat = np.full(4, 0.25)  # all differences equal: d_z infinite, undefined
    sums = ResampledSums.of(query_keys(np.arange(4), 0), np.column_stack([flat, flat**2]), 50)
    assert all(math.isnan(v) for v in sums.effect(0, 1))


def _skewed(rng, shape) -> np.ndarray:
    """A metric-like score: 0 for 30% of queries, else Beta(2, 5): mean 0.7 x 2/7 = 0.2."""
    return np.where(rng.random(shape) < 0.3, 0.0, rng.beta(2, 5, shape))


def test_bands_cover_a_planted_mean_at_their_rate_and_the_test_has_its_size():
    """1,000 simulated data sets of 200 queries, each with its own seed, 1,000 resamples, 499 sign
    flips. Achieved: the 95% band covers the planted mean 0.2 of a skewed score in 94.3% of them,
    the planted mean difference 0.05 of a paired one (b = a x U(0.5, 1)) in 94.4%; with the null
    true (a, b independent draws of one law) the test rejects at 0.05 in 4.4% (binomial sd of a
    rate over 1,000 sets: 0.7 points)."""
    rng = np.random.default_rng(2012)
    sets, n = 1000, 200
    a = _skewed(rng, (sets, n))
    b = a * rng.uniform(0.5, 1.0, (sets, n))
    null = _skewed(rng, (sets, n)) - _skewed(rng, (sets, n))
    ids = np.char.add("q", np.arange(n).astype(str))
    covered_mean = covered_difference = rejected = 0
    for i in range(sets):
        sums = ResampledSums.of(query_keys(ids, i), np.column_stack([a[i], b[i], null[i]]), 1000, 499)
        _, low, high = sums.band(0)
        covered_mean += low <= 0.2 <= high
        _, low, high = sums.band(0, minus=1)
        covered_difference += low <= 0.05 <= high
        rejected += sums.p_value(2) <= 0.05
    assert 0.93 <= covered_mean / sets <= 0.97, covered_mean
    assert 0.93 <= covered_difference / sets <= 0.97, covered_difference
    assert 0.03 <= rejected / sets <= 0.07, rejected


def test_bands_agree_with_the_in_memory_bootstrap():
    """2,000 skewed scores, 10,000 resamples each way. A 2.5% percentile read off B resamples of a
    near-normal law of sd s* has a Monte Carlo sd of s* sqrt(0.025 x 0.975 / B) / phi(1.96) =
    0.0267 s* at B = 10,000; two independent ones differ by sd 0.0378 s*: the bounds must agree to
    4 of those, 0.15 s*, with s* the in-memory resampled means' sd (about s / sqrt(n) = 0.0045);
    the two laws' sds agree to 4 x sqrt(2 / 2B) = 4% (the Poisson bootstrap's random size changes
    the sd of a mean by O(1/n) only)."""
    rng = np.random.default_rng(42)
    n = 2000
    a = _skewed(rng, n)
    b = a * rng.uniform(0.5, 1.0, n)
    ids = np.char.add("q", np.arange(n).astype(str))
    sums = ResampledSums.of(query_keys(ids, 0), np.column_stack([a, b]), 10_000, 2000)
    for column, minus, scores in ((0, None, a), (0, 1, a - b)):
        mean, low, high = bootstrap_interval(scores, 10_000, 0)
        spread = np.std(sums.resampled_means(column, minus))
        reference = scores.std(ddof=0) / math.sqrt(n)
        assert abs(spread / reference - 1) < 0.04
        got = sums.band(column, minus)
        assert got[0] == pytest.approx(mean[0], abs=1e-15)
        assert abs(got[1] - low[0]) < 0.15 * reference and abs(got[2] - high[0]) < 0.15 * reference
    # The p-value against the in-memory test's on a small effect: binomial sd sqrt(p (1 - p) / 2000) each.
    small = (a - b)[:60] - 0.035
    p_memory = randomization_test(small, 2000, 0)[0]
    p = ResampledSums.of(query_keys(ids[:60], 0), small[:, None], 1, 2000).p_value(0)
    assert 0.01 < p < 0.5 and abs(p - p_memory) < 4 * math.sqrt(2 * p * (1 - p) / 2000)


CUTOFFS = (1, 3, 5, 10)


def _run_and_qrels(tmp_path, queries=300):
    """A run of ``queries`` queries x 10 ids, a tenth of them unjudged, and two judged queries it lacks."""
    rng = np.random.default_rng(8)
    run, qrels = [], []
    for q in range(queries):
        docs = rng.choice(100, size=10, replace=False)
        run += [f"q{q} Q0 d{d} {r + 1} {10 - r} t\n" for r, d in enumerate(docs)]
        if q % 10:
            qrels += [f"q{q} 0 d{d} {g}\n" for d, g in zip(rng.choice(100, 6, replace=False), rng.integers(0, 3, 6))]
    qrels += ["qx 0 d1 2\n", "qy 0 d2 1\n"]
    (tmp_path / "run.trec").write_text("".join(run))
    (tmp_path / "qrels").write_text("".join(qrels))
    return tmp_path / "run.trec", tmp_path / "qrels"


def _merged(run, qrels, conventions, **how) -> ResampledSums:
    summed = functools.partial(scored_sums, seed=conventions.seed, resamples=conventions.resamples)
    parts = judged_by_partitions(
        run, qrels, read_qrels=load_qrels, cutoffs=CUTOFFS, conventions=conventions, summed=summed, **how
    )
    return parts.sums


def _bands(sums: ResampledSums) -> np.ndarray:
    return np.array([sums.band(c) for c in range(sums.totals.shape[0])])


def test_the_stream_engine_merges_the_same_sums_from_1_2_and_8_partitions(tmp_path):
    # Every metric at every cutoff over the scored queries, summed partition by partition: the same
    # sums, means and bands to the bit however the run is cut, and the means are one process's.
    run, qrels = _run_and_qrels(tmp_path)
    conventions = Conventions(resamples=300)
    size = run.stat().st_size
    merged = {}
    for parts in (1, 2, 8):
        target = size if parts == 1 else size // parts - 100
        assert len(partitions_of(run, target)) == parts
        merged[parts] = _merged(run, qrels, conventions, engine="stream", partition_bytes=target)
    loaded = load_runs([run], qrels=qrels)[0]
    scores = score(join(loaded.run, loaded.judgments), CUTOFFS, Conventions())
    means = scores.values[:, scores.scored, :].mean(axis=1).reshape(-1)
    whole = merged[1]
    assert whole.rows == int(scores.scored.sum()) and whole.totals.shape == (len(scores.metrics) * len(CUTOFFS),)
    np.testing.assert_allclose(whole.means(), means, rtol=0, atol=1e-12)
    for parts in (2, 8):  # exact sums: the same to the bit
        assert np.array_equal(merged[parts].weighted, whole.weighted)
        assert np.array_equal(_bands(merged[parts]), _bands(whole))


@pytest.mark.slow
def test_the_dask_engine_merges_the_sums_of_the_stream_engine(tmp_path):
    if not os.environ.get("CI"):  # in CI Dask is installed (the test extra): the test must run
        pytest.importorskip("dask.distributed")
    run, qrels = _run_and_qrels(tmp_path)
    conventions = Conventions(resamples=300)
    stream = _merged(run, qrels, conventions, engine="stream")
    dask = _merged(run, qrels, conventions, engine="dask", partition_bytes=run.stat().st_size // 4)
    assert np.array_equal(dask.weighted, stream.weighted)
    assert np.array_equal(_bands(dask), _bands(stream))


def test_the_effect_band_agrees_with_the_in_memory_bootstrap_of_d_z():
    """d_z of 2,000 paired differences, its band from the Poisson sums (W_b in place of n) against
    the multinomial bootstrap's (compare.py's rule, n fixed), 10,000 resamples each way. d_z's
    resampled law has sd about sqrt((1 + d_z^2 / 2) / n); the bounds must agree to 0.15 of it, the
    Monte Carlo tolerance of test_bands_agree_with_the_in_memory_bootstrap."""
    from ragreport.analysis.compare import standardised_effect
    from ragreport.analysis.intervals import bootstrap_means, percentile_band

    rng = np.random.default_rng(5)
    n = 2000
    a = _skewed(rng, n)
    d = a - a * rng.uniform(0.5, 1.0, n)
    columns = np.column_stack([d, d * d])
    sums = ResampledSums.of(query_keys(np.arange(n), 0), columns, 10_000)
    effect, low, high = sums.effect(0, 1)
    drawn = bootstrap_means(columns, 10_000, 0)
    memory_low, memory_high = percentile_band(standardised_effect(drawn[:, 0], drawn[:, 1], n)[:, None], 0.95)
    spread = math.sqrt((1 + effect**2 / 2) / n)
    assert effect == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert abs(low - memory_low[0]) < 0.15 * spread and abs(high - memory_high[0]) < 0.15 * spread


def test_an_infinite_value_is_refused_not_summed_forever():
    from ragreport.analysis.poisson import digits

    with pytest.raises(ValueError, match="infinite"):
        digits(np.array([0.5, np.inf]))
