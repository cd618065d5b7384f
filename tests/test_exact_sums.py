"""The bootstrap's sums are exact, so its figures do not depend on BLAS (docs/conventions.md 22.5).

References are written out from the rule, not from the engine: a resample's mean is the correctly
rounded sum of its drawn rows (``math.fsum``) over ``n``, and the parts' products with the counts are
checked against numpy's integer arithmetic, which BLAS never computes.
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resampling import loop_means

from ragreport.analysis.exactparts import exact_parts
from ragreport.analysis.intervals import resample_counts, shared_bootstrap_means


def fsum_means(matrix: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """One resample at a time: its drawn rows (``floor(u * n)``), their exact sum, over ``n``."""
    return loop_means(matrix, resamples, seed, total=math.fsum)


def test_the_parts_are_whole_numbers_that_rebuild_the_matrix():
    rng = np.random.default_rng(5)
    matrix = rng.random((333, 6)) * np.array([1.0, 1e-3, 7.5, 1e6, 0.0, -3.0])
    matrix[::7, 1] = 1e-300  # far below the column's largest value: only its top bits count
    high, low, exponent = exact_parts(matrix)
    for part in (high, low):
        assert np.array_equal(part, np.rint(part))
        assert np.abs(part).max() <= 2.0**26
    # 7.5 is below 2^3: e = 3, exponent = e - 26; 1e6 below 2^20; the zero column keeps 0.
    assert exponent.tolist()[2:5] == [3 - 26, 20 - 26, -26]
    rebuilt = np.ldexp(high + low * 2.0**-27, exponent[None, :])
    # Within half a unit of 2^(e - 53): 2^(exponent + 26 - 54).
    assert np.all(np.abs(rebuilt - matrix) <= np.ldexp(1.0, exponent + 26 - 54)[None, :])
    # A value within a factor 2 of 2^e keeps every bit (its last place is 2^(e - 53) or coarser).
    top = np.abs(matrix) >= np.ldexp(1.0, exponent + 26 - 1)[None, :]
    assert top.sum() > 300
    assert np.array_equal(rebuilt[top], matrix[top])
    assert not np.array_equal(high, matrix)  # a copy: the matrix itself is left alone
    assert matrix[0, 4] == 0.0


def test_the_products_of_the_parts_with_the_counts_are_integer_sums():
    rng = np.random.default_rng(8)
    matrix = rng.random((2001, 70))
    high, low, _ = exact_parts(matrix)
    for counts in resample_counts(2001, 40, 3):
        for part in (high, low):
            whole = counts.astype(np.int64) @ part.astype(np.int64)  # numpy's integer loop, no BLAS
            assert np.array_equal(counts.astype(np.float64) @ part, whole.astype(np.float64))
            assert np.array_equal((part.T @ counts.T.astype(np.float64)).T, whole.astype(np.float64))


def test_a_column_with_a_non_finite_value_is_kept_as_it_is():
    matrix = np.array([[0.1, np.inf], [0.3, 2.0], [0.6, np.nan]])
    high, low, exponent = exact_parts(matrix)
    assert np.array_equal(high[:, 1], matrix[:, 1], equal_nan=True)
    assert low[:, 1].tolist() == [0.0, 0.0, 0.0]
    assert exponent[1] == 0
    with np.errstate(invalid="ignore"):
        assert np.isnan(shared_bootstrap_means([matrix], 5, 0)[0][:, 1]).all()


def test_overwrite_takes_the_matrix_s_memory():
    matrix = np.random.default_rng(1).random((50, 3))
    kept = matrix.copy()
    alone = shared_bootstrap_means([kept.copy()], 30, 2)[0]
    assert np.array_equal(shared_bootstrap_means([matrix], 30, 2, overwrite=True)[0], alone)
    assert not np.array_equal(matrix, kept)  # the low part now lives there


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.lists(st.lists(st.integers(-(2**20), 2**20), min_size=n, max_size=n), min_size=1, max_size=3)
    ),
    st.integers(0, 2**16),
)
def test_means_of_values_on_a_grid_are_the_correctly_rounded_averages(columns, seed):
    """Values that are whole multiples of 2^-20 lose no bit to the parts: each resample's mean is
    then the exact sum over n, rounded once, bit for bit."""
    matrix = np.array(columns, dtype=np.float64).T * 2.0**-20
    got = shared_bootstrap_means([matrix], 12, seed)[0]
    assert np.array_equal(got, fsum_means(matrix, 12, seed))


def test_means_of_any_values_are_within_a_unit_of_the_exact_average():
    rng = np.random.default_rng(11)
    matrix = rng.random((301, 66)) ** 3  # wide: multiplied as columns x queries
    got = shared_bootstrap_means([matrix], 20, 4)[0]
    want = fsum_means(matrix, 20, 4)
    assert np.all(np.abs(got - want) <= 2 * np.spacing(want))


THREADS = """
import hashlib, sys
import numpy as np
from ragreport.analysis.intervals import shared_bootstrap_means
rng = np.random.default_rng(3)
# An odd number of rows, a wide matrix (the K sweep's layout) and a narrow one (the measures').
wide, narrow = rng.random((333, 64)), rng.random((333, 10))
digest = hashlib.sha256()
for out in shared_bootstrap_means([wide, narrow], 1000, 0):
    digest.update(out.tobytes())
sys.stdout.write(digest.hexdigest())
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: BLAS cannot be run on two threads here")
def test_the_bootstrap_gives_the_same_bits_on_one_blas_thread_and_on_two():
    """With BLAS's own sums OpenBLAS gave other last bits on two threads than on one for about one
    mean in ten of these (the product's blocking follows its thread count)."""
    digests = []
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        done = subprocess.run(
            [sys.executable, "-c", THREADS], capture_output=True, text=True, timeout=120, env=env, check=True
        )
        digests.append(done.stdout)
    assert len(digests[0]) == len(hashlib.sha256().hexdigest())
    assert digests[0] == digests[1]


def test_parts_of_tiny_columns_are_split_by_ldexp_with_the_same_rule():
    """exactparts.split_in_place scales by products with powers of two, or by ldexp when a column's power of
    two is not a normal double (its largest magnitude below 2^-998): the parts obey 22.5's rule
    either way, x = (high + low 2^-27) 2^exponent to half a unit of the column's largest value."""
    rng = np.random.default_rng(17)
    for scale in (1.0, 2.0**-1000, 2.0**-1040, 2.0**1000):
        matrix = rng.random((50, 3)) * scale
        high, low, exponent = exact_parts(matrix)
        assert np.array_equal(high, np.rint(high)) and np.array_equal(low, np.rint(low))
        assert np.abs(high).max() <= 2**26 and np.abs(low).max() <= 2**26
        rebuilt = np.ldexp(high + low * 2.0**-27, exponent[None, :])
        tolerance = np.ldexp(1.0, np.frexp(np.abs(matrix).max(axis=0))[1] - 53)
        assert (np.abs(rebuilt - matrix) <= tolerance[None, :]).all(), scale


def test_parts_split_by_products_are_the_bits_of_ldexp():
    """The products with powers of two give the very parts ldexp gives (22.20), values spanning
    a hundred binary orders within a column included (their scaled values go subnormal)."""
    rng = np.random.default_rng(18)
    matrix = rng.random((200, 4)) * np.ldexp(1.0, rng.integers(-1000, 0, (200, 4)))
    matrix[0] = [0.9, 3.0, 1e-300, 7.5]
    high, low, exponent = exact_parts(matrix)
    scaled = np.ldexp(matrix, -exponent[None, :])
    reference_high = np.rint(scaled)
    reference_low = np.rint(np.ldexp(scaled - reference_high, 27))
    np.testing.assert_array_equal(high, reference_high)
    np.testing.assert_array_equal(low, reference_low)
