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
    with pytest.raises(UsageError, match=r"--kmax \(4\) must be at least K \(5\)"):
        report_cutoffs(5, 4)
