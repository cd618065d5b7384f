"""The prediction-powered mean (issue 22; docs/conventions.md section 25.4): the formula worked by
hand on six queries, and the band's coverage of a planted truth by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragreport.analysis.corrected import corrected_mean, mean_band


def test_corrected_mean_hand_worked_on_six_queries():
    # Model-label scores of six queries: 0.6, 0.8, 0.4, 0.5, 0.7, 0.6 -> mean 3.6 / 6 = 0.6.
    # Three audited: model 0.6, 0.8, 0.4; human 0.5, 0.6, 0.4 -> gaps -0.1, -0.2, 0.0, mean -0.1.
    # theta = 0.6 - 0.1 = 0.5.
    # var_N(f) (ddof 1): deviations 0, .2, -.2, -.1, .1, 0 -> squares sum 0.10 -> 0.10 / 5 = 0.02;
    # var_n(gap): deviations 0, -.1, .1 -> 0.02 / 2 = 0.01.
    # half = 1.959964 * sqrt(0.02 / 6 + 0.01 / 3) = 1.959964 * sqrt(0.0066667) = 0.160030.
    theta, low, high = corrected_mean([0.6, 0.8, 0.4, 0.5, 0.7, 0.6], [0.6, 0.8, 0.4], [0.5, 0.6, 0.4])
    half = 1.959964 * math.sqrt(0.02 / 6 + 0.01 / 3)
    assert theta == pytest.approx(0.5)
    assert (low, high) == (pytest.approx(0.5 - half, abs=1e-6), pytest.approx(0.5 + half, abs=1e-6))


def test_mean_band_hand_worked():
    # 0.2, 0.4, 0.6: mean 0.4, sd 0.2, half = 1.959964 * 0.2 / sqrt(3).
    mean, low, high = mean_band(np.array([0.2, 0.4, 0.6]))
    assert mean == pytest.approx(0.4)
    assert high - mean == pytest.approx(1.959964 * 0.2 / math.sqrt(3), abs=1e-6)


def test_too_few_values_give_nan():
    assert all(math.isnan(x) for x in corrected_mean([0.5], [0.5], [0.4]))


def test_corrected_band_covers_the_truth_the_model_band_does_not():
    # A judge that grades generously: each query's model-label score is its true score plus a
    # planted bias of 0.05 and noise. 400 queries scored, 40 of them audited (drawn from the 400).
    # The truth is the population mean of the true scores, 0.5 (clipping N(0.5, 0.2) to [0, 1] is
    # symmetric about it). The corrected band covers it in 97% of the trials (conservative: see
    # the module's docstring), the model-only band in under 1%.
    trials, covered, model_covered = 600, 0, 0
    for trial in range(trials):
        rng = np.random.default_rng(trial)
        truth = np.clip(rng.normal(0.5, 0.2, size=400), 0, 1)
        model = truth + 0.05 + rng.normal(0, 0.08, size=400)
        audited = rng.choice(400, size=40, replace=False)
        _, low, high = corrected_mean(model, model[audited], truth[audited])
        covered += low <= 0.5 <= high
        _, m_low, m_high = mean_band(model)
        model_covered += m_low <= 0.5 <= m_high
    assert 0.92 <= covered / trials <= 0.98
    assert model_covered / trials < 0.5


def test_corrected_paired_difference_covers_a_judge_that_favours_one_run():
    # Two runs whose true per-query difference has mean 0.01; the judge adds 0.04 to run b's
    # scores only (it favours b's style of answer). 300 queries, 30 audited from among them.
    trials, covered, model_covered = 600, 0, 0
    for trial in range(trials):
        rng = np.random.default_rng(10_000 + trial)
        true_diff = rng.normal(0.01, 0.1, size=300)
        judged_diff = true_diff + 0.04 + rng.normal(0, 0.05, size=300)
        audited = rng.choice(300, size=30, replace=False)
        _, low, high = corrected_mean(judged_diff, judged_diff[audited], true_diff[audited])
        covered += low <= 0.01 <= high
        _, m_low, m_high = mean_band(judged_diff)
        model_covered += m_low <= 0.01 <= m_high
    assert 0.92 <= covered / trials <= 0.985
    assert model_covered / trials < 0.2
