"""core/blas.py: a small product runs on one BLAS thread, a large one keeps them all, and the figures
do not depend on which (docs/conventions.md sections 22.5 and 22.18)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_limits

from ragreport.analysis.compare import randomization_test
from ragreport.analysis.intervals import shared_bootstrap_means
from ragreport.core import blas


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in ThreadpoolController().info() if lib["user_api"] == "blas"]


@pytest.fixture
def two_threads():
    if not _blas_threads():
        pytest.fail("numpy's BLAS is not seen by threadpoolctl: the switch would do nothing")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_a_small_product_runs_on_one_thread_and_a_large_one_keeps_them(two_threads):
    before = _blas_threads()
    assert before and all(n == 2 for n in before)
    with blas.blas_threads_for(blas.SMALL_PRODUCT - 1):
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before  # given back
    with blas.blas_threads_for(blas.SMALL_PRODUCT):
        assert _blas_threads() == before


def test_the_bands_and_the_test_see_one_thread_when_small(two_threads, monkeypatch):
    """The switch is on around the bootstrap's and the randomization test's products: what BLAS
    runs on is read inside the product loops (through the count and sign blocks they draw)."""
    import ragreport.analysis.intervals as intervals
    import ragreport.analysis.randomization as signs_module

    seen: list[list[int]] = []
    real_counts = intervals._fill_counts
    real_signs = signs_module._sign_blocks

    def counts(rng, out):
        seen.append(_blas_threads())
        return real_counts(rng, out)

    def signs(*args):
        for block in real_signs(*args):
            seen.append(_blas_threads())
            yield block

    monkeypatch.setattr(intervals, "_fill_counts", counts)
    monkeypatch.setattr(signs_module, "_sign_blocks", signs)
    scores = np.random.default_rng(1).random((30, 12))
    shared_bootstrap_means([scores], 200, 7)
    randomization_test(scores[:, :2] - 0.5, 500, 3)
    assert seen and all(threads == [1] * len(threads) for threads in seen)
    seen.clear()
    monkeypatch.setattr(blas, "SMALL_PRODUCT", 1)  # every product "large": BLAS keeps its threads
    shared_bootstrap_means([scores], 200, 7)
    assert seen and all(threads == [2] * len(threads) for threads in seen)


def test_the_figures_are_the_same_on_one_thread_or_two(two_threads, monkeypatch):
    scores = np.random.default_rng(2).random((400, 40))
    small = shared_bootstrap_means([scores], 300, 11)[0]
    p_small = randomization_test(scores[:, :3] - 0.5, 2_000, 5)
    monkeypatch.setattr(blas, "SMALL_PRODUCT", 1)
    large = shared_bootstrap_means([scores], 300, 11)[0]
    p_large = randomization_test(scores[:, :3] - 0.5, 2_000, 5)
    np.testing.assert_array_equal(small, large)  # exact sums (22.5): the same bits
    np.testing.assert_array_equal(p_small, p_large)
