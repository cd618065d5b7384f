"""Which cutoffs a report scores: the sweep's grid and the bounds on K and Kmax."""

from __future__ import annotations

import pytest

from ragreport.core.errors import UsageError
from ragreport.scoring.cutoffs import default_kmax, kept_cutoffs, report_cutoffs, sweep_cutoffs, sweep_end

#: Every cutoff to 20, written out once for the grids below.
TO_20 = list(range(1, 21))


def test_sweep_is_every_k_to_20_then_a_sparse_grid_to_100_then_the_usual_cutoffs_and_a_log_grid():
    assert sweep_cutoffs(5, 10).tolist() == list(range(1, 11))
    assert sweep_cutoffs(5, 15).tolist() == list(range(1, 16))
    assert sweep_cutoffs(5, 100).tolist() == TO_20 + [25, 30, 40, 50, 60, 70, 80, 90, 100]  # 29 cutoffs
    assert sweep_cutoffs(5, 37).tolist() == TO_20 + [25, 30, 37]  # --kmax off the grid ends there
    assert sweep_cutoffs(33, 60).tolist() == TO_20 + [25, 30, 33, 40, 50, 60]  # K always in
    grid = sweep_cutoffs(37, 1000).tolist()
    assert grid[:20] == TO_20 and grid[-1] == 1000 and 37 in grid
    assert {25, 30, 50, 100, 200, 500} <= set(grid)
    assert len(grid) < 90 and grid == sorted(set(grid))
    assert sweep_cutoffs(10, 101).tolist()[-2:] == [100, 101]


def test_the_cutoffs_asked_come_first_and_join_the_sweep():
    asked, cutoffs = report_cutoffs((10, 5, 10), None, depth=20)
    assert asked == (10, 5) and default_kmax(10) == 20
    assert cutoffs.tolist() == TO_20
    assert report_cutoffs((10, 35), None, depth=20)[1].tolist() == TO_20 + [25, 30, 35, 40, 50, 60, 70]  # 2 x 35
    assert report_cutoffs(3, 200)[1].tolist()[-1] == 200
    with pytest.raises(UsageError, match="K must be at least 1"):
        report_cutoffs(0)
    with pytest.raises(UsageError, match=r"^kmax \(4\) must be at least K \(5\)$"):
        report_cutoffs(5, 4)


def test_the_default_sweep_ends_at_the_runs_depth_on_the_grid_capped_at_100_never_below_max_10_2k():
    # (K, depth) -> the end, by hand: max(max(10, 2K), min(depth, 100)), rounded up to the grid
    # (itself to 20, else 25, 30, 40, ..., 100); depth None (not known yet) gives the cap
    cases = {
        (10, 100): 100,
        (10, 1000): 100,
        (10, 37): 40,
        (10, 15): 20,
        (5, 15): 15,
        (5, 3): 10,
        (5, 0): 10,
        (13, 5): 30,  # 2K = 26, up to the grid
        (10, 21): 25,
        (60, 5): 120,  # 2K past 100: the depth plays no part
        (10, None): 100,
        (60, None): 120,
    }
    assert {case: sweep_end(*case) for case in cases} == cases
    assert report_cutoffs(10, None, depth=1000)[1].tolist() == TO_20 + [25, 30, 40, 50, 60, 70, 80, 90, 100]
    assert report_cutoffs(5, None, depth=15)[1].tolist() == list(range(1, 16))
    assert report_cutoffs(10, 50, depth=1000)[1].tolist() == TO_20 + [25, 30, 40, 50]  # --kmax wins
    assert report_cutoffs(10, 15, depth=1000)[1].tolist() == list(range(1, 16))


def test_the_cutoffs_kept_after_scoring_to_the_cap_are_those_a_known_depth_gives():
    # The partition engines score to the cap and keep these: the same as a known depth, for every
    # K and depth (the grid rounded up to is the cap's grid cut short), and all of them with --kmax.
    for k in (1, 3, 5, 10, 13, 20, (10, 35), 50, 60):
        scored = report_cutoffs(k, None)[1]
        for depth in (0, 1, 9, 10, 15, 19, 20, 21, 26, 37, 50, 99, 100, 101, 1000):
            kept = kept_cutoffs(k, None, depth)
            assert kept.tolist() == scored[scored <= kept[-1]].tolist(), (k, depth)
    assert kept_cutoffs(10, 37, 1000).tolist() == report_cutoffs(10, 37)[1].tolist() == TO_20 + [25, 30, 37]


def test_cutoffs_are_bounded_and_the_default_sweep_stops_at_the_bound():
    from ragreport.scoring.cutoffs import MAX_CUTOFF, MAX_CUTOFFS

    assert (MAX_CUTOFF, MAX_CUTOFFS) == (100_000, 1_000)
    asked, cutoffs = report_cutoffs(100_000)
    assert asked == (100_000,) and cutoffs[-1] == 100_000  # max(10, 2K) would be 200,000
    assert report_cutoffs(60_000)[1][-1] == 100_000
    assert report_cutoffs(60_000, None, depth=5)[1][-1] == 100_000
    with pytest.raises(UsageError, match="K must be from 1 to 100,000, got 100001"):
        report_cutoffs(100_001)
    with pytest.raises(UsageError, match="^kmax must be from 1 to 100,000, got 10000000000000000000000$"):
        report_cutoffs(10, 10**22)
    with pytest.raises(UsageError, match="at most 1,000 cutoffs may be asked for, got 1,001"):
        report_cutoffs(range(1, 1002))
