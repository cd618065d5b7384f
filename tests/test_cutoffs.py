"""Which cutoffs a report scores: the sweep's grid and the bounds on K and Kmax."""

from __future__ import annotations

import pytest

from ragreport.core.errors import UsageError
from ragreport.scoring.cutoffs import default_kmax, report_cutoffs, sweep_cutoffs


def test_sweep_is_every_k_up_to_100_then_a_grid_holding_the_usual_cutoffs_k_and_kmax():
    assert sweep_cutoffs(5, 10).tolist() == list(range(1, 11))
    assert sweep_cutoffs(5, 100).tolist() == list(range(1, 101))
    grid = sweep_cutoffs(37, 1000).tolist()
    assert grid[:20] == list(range(1, 21)) and grid[-1] == 1000 and 37 in grid
    assert {25, 30, 50, 100, 200, 500} <= set(grid)
    assert len(grid) < 90 and grid == sorted(set(grid))
    assert sweep_cutoffs(10, 101).tolist()[-2:] == [100, 101]


def test_the_cutoffs_asked_come_first_and_join_the_sweep():
    asked, cutoffs = report_cutoffs((10, 5, 10), None)
    assert asked == (10, 5) and default_kmax(10) == 20
    assert cutoffs.tolist() == list(range(1, 21))
    assert report_cutoffs(3, 200)[1].tolist()[-1] == 200
    with pytest.raises(UsageError, match="K must be at least 1"):
        report_cutoffs(0)
    with pytest.raises(UsageError, match=r"^kmax \(4\) must be at least K \(5\)$"):
        report_cutoffs(5, 4)


def test_cutoffs_are_bounded_and_the_default_sweep_stops_at_the_bound():
    from ragreport.scoring.cutoffs import MAX_CUTOFF, MAX_CUTOFFS

    assert (MAX_CUTOFF, MAX_CUTOFFS) == (100_000, 1_000)
    asked, cutoffs = report_cutoffs(100_000)
    assert asked == (100_000,) and cutoffs[-1] == 100_000  # max(10, 2K) would be 200,000
    assert report_cutoffs(60_000)[1][-1] == 100_000
    with pytest.raises(UsageError, match="K must be from 1 to 100,000, got 100001"):
        report_cutoffs(100_001)
    with pytest.raises(UsageError, match="^kmax must be from 1 to 100,000, got 10000000000000000000000$"):
        report_cutoffs(10, 10**22)
    with pytest.raises(UsageError, match="at most 1,000 cutoffs may be asked for, got 1,001"):
        report_cutoffs(range(1, 1002))
