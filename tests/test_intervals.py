"""Wilson and bootstrap intervals against hand-worked values and a slow reference loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.analysis import intervals
from ragreport.analysis.intervals import bootstrap_interval, resample_counts, wilson_interval, z_value
from ragreport.cli.parser import flag


def test_z_for_95_percent_is_1_959964():
    assert round(z_value(0.95), 6) == 1.959964


def test_wilson_7_of_9_is_0_453_to_0_937():
    low, high = wilson_interval(7, 9, 0.95)
    assert (round(low, 3), round(high, 3)) == (0.453, 0.937)


def test_wilson_by_hand_formula_3_of_10():
    # centre = (0.3 + z^2/20) / (1 + z^2/10); half = z/(1 + z^2/10) * sqrt(0.021 + z^2/400)
    z = 1.959963984540054
    centre = (0.3 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * math.sqrt(0.3 * 0.7 / 10 + z * z / 400)
    low, high = wilson_interval(3, 10)
    assert low == pytest.approx(centre - half, abs=1e-15) and high == pytest.approx(centre + half, abs=1e-15)
    assert (round(low, 4), round(high, 4)) == (0.1078, 0.6032)


def test_wilson_edges():
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)


def test_wilson_is_vectorised():
    low, high = wilson_interval(np.array([7, 3]), np.array([9, 10]))
    assert low.shape == (2,) and round(float(low[0]), 3) == 0.453


def _slow_bootstrap(scores, resamples, seed, confidence):
    """One resample at a time, as the textbook states it: draw n indices, average, take percentiles."""
    rng = np.random.default_rng(seed)
    n = len(scores)
    means = []
    for _ in range(resamples):
        idx = np.minimum((rng.random(n) * n).astype(np.int64), n - 1)
        means.append([sum(scores[i][j] for i in idx) / n for j in range(len(scores[0]))])
    tail = (1 - confidence) / 2 * 100
    return np.percentile(np.array(means), [tail, 100 - tail], axis=0)


@settings(max_examples=examples(25), deadline=None)
@given(
    scores=st.lists(st.lists(st.floats(0, 1), min_size=2, max_size=2), min_size=1, max_size=12),
    seed=st.integers(0, 2**32 - 1),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_bootstrap_matches_the_slow_loop(scores, seed, confidence):
    mean, low, high = bootstrap_interval(np.array(scores), resamples=200, seed=seed, confidence=confidence)
    slow_low, slow_high = _slow_bootstrap(scores, 200, seed, confidence)
    assert np.allclose(low, slow_low, atol=1e-12) and np.allclose(high, slow_high, atol=1e-12)
    assert np.allclose(mean, np.mean(scores, axis=0))


def test_bootstrap_by_hand_two_queries():
    # Means of a resample of (0, 1) are 0, 0.5 or 1 with chances 1/4, 1/2, 1/4: with 1,000 resamples
    # both tails hold far more than 2.5 %, so the band is [0, 1].
    mean, low, high = bootstrap_interval(np.array([0.0, 1.0]), resamples=1000, seed=0)
    assert (mean[0], low[0], high[0]) == (0.5, 0.0, 1.0)


def test_bootstrap_of_a_constant_collapses():
    mean, low, high = bootstrap_interval(np.full(7, 0.25))
    assert mean[0] == 0.25 and low[0] == pytest.approx(0.25) and high[0] == pytest.approx(0.25)


def test_bootstrap_of_nothing_is_nan():
    mean, low, high = bootstrap_interval(np.zeros((0, 3)))
    assert np.isnan(mean).all() and np.isnan(low).all() and np.isnan(high).all()


def test_bootstrap_is_reproducible_to_the_last_digit_and_moves_with_the_seed():
    scores = np.random.default_rng(1).random((50, 4))
    first = bootstrap_interval(scores, seed=3)
    again = bootstrap_interval(scores, seed=3)
    other = bootstrap_interval(scores, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[1], other[1])


def test_resamples_do_not_depend_on_the_block_size(monkeypatch):
    whole = np.concatenate(list(resample_counts(37, 300, seed=5)))
    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 37 * 7)
    blocks = list(resample_counts(37, 300, seed=5))
    assert [len(b) for b in blocks[:2]] == [7, 7]
    assert np.array_equal(whole, np.concatenate(blocks))
    assert (whole.sum(axis=1) == 37).all()


def test_a_wider_confidence_gives_a_wider_band():
    scores = np.random.default_rng(2).random((40, 1))
    _, low90, high90 = bootstrap_interval(scores, confidence=0.90)
    _, low99, high99 = bootstrap_interval(scores, confidence=0.99)
    assert low99[0] <= low90[0] and high99[0] >= high90[0]


def test_resamples_are_bounded_and_their_memory_checked_first(monkeypatch):
    from ragreport.core import budget
    from ragreport.core.errors import UsageError

    assert intervals.MAX_RESAMPLES == 1_000_000
    with pytest.raises(UsageError, match="^resamples must be at most 1,000,000, got 1,000,001$"):
        bootstrap_interval(np.zeros((2, 1)), resamples=1_000_001)
    monkeypatch.setattr(budget, "available_memory", lambda: 256 << 20)  # the limit: 128 MiB
    # 2 x 8 bytes x 100,000 resamples x 100 columns = 152.6 MiB
    with pytest.raises(UsageError, match=r"^resamples 100,000 over 100 banded columns .* about 152.6 MiB") as caught:
        bootstrap_interval(np.zeros((2, 100)), resamples=100_000)
    assert caught.value.spelled(flag).startswith("--resamples 100,000 over 100 banded columns ")  # the CLI's
