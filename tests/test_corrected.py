"""The prediction-powered mean (issue 22; docs/conventions.md section 25.4): the formula worked by
hand on six queries, and the band's coverage of a planted truth by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragreport.analysis.audit import corrected_from, corrected_means, mean_bands, spread
from ragreport.analysis.poisson import ResampledSums, query_keys
from ragreport.scoring.catalogue import COMPARED


def test_corrected_mean_hand_worked_on_six_queries():
    # Model-label scores of six queries: 0.6, 0.8, 0.4, 0.5, 0.7, 0.6 -> mean 3.6 / 6 = 0.6.
    # Three audited: model 0.6, 0.8, 0.4; human 0.5, 0.6, 0.4 -> gaps -0.1, -0.2, 0.0, mean -0.1.
    # theta = 0.6 - 0.1 = 0.5.
    # var_N(f) (ddof 1): deviations 0, .2, -.2, -.1, .1, 0 -> squares sum 0.10 -> 0.10 / 5 = 0.02;
    # var_n(gap): deviations 0, -.1, .1 -> 0.02 / 2 = 0.01.
    # half = 1.959964 * sqrt(0.02 / 6 + 0.01 / 3) = 1.959964 * sqrt(0.0066667) = 0.160030.
    theta, low, high = corrected_means([0.6, 0.8, 0.4, 0.5, 0.7, 0.6], [0.6, 0.8, 0.4], [0.5, 0.6, 0.4])[0]
    half = 1.959964 * math.sqrt(0.02 / 6 + 0.01 / 3)
    assert theta == pytest.approx(0.5)
    assert (low, high) == (pytest.approx(0.5 - half, abs=1e-6), pytest.approx(0.5 + half, abs=1e-6))


def test_mean_band_hand_worked():
    # 0.2, 0.4, 0.6: mean 0.4, sd 0.2, half = 1.959964 * 0.2 / sqrt(3).
    mean, low, high = mean_bands(np.array([0.2, 0.4, 0.6]))[0]
    assert mean == pytest.approx(0.4)
    assert high - mean == pytest.approx(1.959964 * 0.2 / math.sqrt(3), abs=1e-6)


def test_too_few_values_give_nan():
    assert all(math.isnan(x) for x in corrected_means([0.5], [0.5], [0.4])[0])


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
        _, low, high = corrected_means(model, model[audited], truth[audited])[0]
        covered += low <= 0.5 <= high
        _, m_low, m_high = mean_bands(model)[0]
        model_covered += m_low <= 0.5 <= m_high
    assert 0.92 <= covered / trials <= 0.98
    assert model_covered / trials < 0.5


def test_corrected_band_from_the_poisson_sums_covers_the_truth():
    # The partitioned engines' form (section 29.4): var_N(f) / N read off the Poisson bootstrap's
    # resampled means (1,000 resamples of hashed weights), not off every query's value. The same
    # planted bias of 0.05, 400 queries, 40 audited: it covers the truth as the exact form does, and
    # its squared standard error is the exact one's within Monte Carlo error.
    trials, covered, ratios = 500, 0, []
    for trial in range(trials):
        rng = np.random.default_rng(20_000 + trial)
        truth = np.clip(rng.normal(0.5, 0.2, size=400), 0, 1)
        model = truth + 0.05 + rng.normal(0, 0.08, size=400)
        audited = rng.choice(400, size=40, replace=False)
        sums = ResampledSums.of(query_keys(np.array([f"t{trial}q{i}" for i in range(400)]), 0), model[:, None], 1000)
        drawn = sums.resampled_means()
        whole = (sums.means(), drawn.var(axis=0, ddof=1), sums.rows)
        _, low, high = corrected_from(whole, model[audited], truth[audited])[0]
        covered += low <= 0.5 <= high
        ratios.append(whole[1][0] / spread(model)[1][0])
    assert 0.92 <= covered / trials <= 0.98
    # each ratio's sd is about sqrt(2 / 1000) = 0.045: their mean is 1 within a few thousandths
    assert abs(np.mean(ratios) - 1) < 0.01


def test_corrected_paired_difference_covers_a_judge_that_favours_one_run():
    # Two runs whose true per-query difference has mean 0.01; the judge adds 0.04 to run b's
    # scores only (it favours b's style of answer). 300 queries, 30 audited from among them.
    trials, covered, model_covered = 600, 0, 0
    for trial in range(trials):
        rng = np.random.default_rng(10_000 + trial)
        true_diff = rng.normal(0.01, 0.1, size=300)
        judged_diff = true_diff + 0.04 + rng.normal(0, 0.05, size=300)
        audited = rng.choice(300, size=30, replace=False)
        _, low, high = corrected_means(judged_diff, judged_diff[audited], true_diff[audited])[0]
        covered += low <= 0.01 <= high
        _, m_low, m_high = mean_bands(judged_diff)[0]
        model_covered += m_low <= 0.01 <= m_high
    assert 0.92 <= covered / trials <= 0.985
    assert model_covered / trials < 0.2


def test_corrected_mean_of_a_metric_other_than_the_primary_worked_by_hand():
    from ragreport.api import analyse, evaluate

    # 12 queries, each run list d{i}a, d{i}b, d{i}c; the model calls d{i}a relevant and d{i}b not.
    # Human labels for q0..q9: on q0..q3 d{i}b is relevant too; on q4..q9 they are the model's.
    model = {f"q{i}": {f"d{i}a": 1, f"d{i}b": 0} for i in range(12)}
    human = {q: dict(g) for q, g in list(model.items())[:10]}
    for i in range(4):
        human[f"q{i}"][f"d{i}b"] = 1
    run = {f"q{i}": {f"d{i}a": 3.0, f"d{i}b": 2.0, f"d{i}c": 1.0} for i in range(12)}
    report = analyse(evaluate({"a": run}, qrels=model, k=3), audit=human)
    figures = {r.label: r for r in report.audit.runs}
    p3 = figures["P@3"]
    # P@3: 1/3 on every query under the model's labels; 2/3 on q0..q3 under the human labels.
    # mean_model(all 12) = 1/3; gaps on the 10 audited: 1/3 four times, 0 six times, mean 2/15;
    # theta = 1/3 + 2/15 = 7/15 = 0.466667.
    # var_N(f) = 0; var_n(gap) (ddof 1) = (4 (1/3 - 2/15)^2 + 6 (2/15)^2) / 9 = (60 / 225) / 9 = 0.0296296;
    # half = 1.959964 * sqrt(0.0296296 / 10) = 1.959964 * 0.0544331 = 0.106687: 0.359980 to 0.573354.
    assert p3.queries == 10
    assert p3.model == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert p3.human[0] == pytest.approx(0.4 * 2 / 3 + 0.6 / 3)  # 0.466667 on the audited queries
    assert p3.corrected == (
        pytest.approx(0.466667, abs=1e-6),
        pytest.approx(0.359980, abs=1e-6),
        pytest.approx(0.573354, abs=1e-6),
    )
    # R@3 is 1 under both label sets on every query (every relevant id is in the top 3): nothing to correct.
    assert figures["R@3"].corrected == (pytest.approx(1.0), pytest.approx(1.0), pytest.approx(1.0))


def test_a_run_mean_band_stops_at_one():
    from ragreport.api import analyse, evaluate

    # Hit@3 is 1 on q0..q10 and 0 on q11 (its one relevant id is not retrieved), under both label
    # sets: theta = 11/12 = 0.916667 with no gap to correct; var_N(f) (ddof 1) = 1/12, half =
    # 1.959964 * sqrt(1/144) = 0.163330, so the normal band is 0.753336 to 1.079997: cut at 1.
    model = {f"q{i}": {f"d{i}a": 1} for i in range(11)} | {"q11": {"zz": 1}}
    human = {q: dict(g) for q, g in list(model.items())[:10]}
    run = {f"q{i}": {f"d{i}a": 3.0, f"d{i}b": 2.0} for i in range(12)}
    report = analyse(evaluate({"a": run}, qrels=model, k=3), audit=human)
    hit = {r.label: r for r in report.audit.runs}["Hit@3"]
    assert hit.corrected == (pytest.approx(11 / 12), pytest.approx(0.753336, abs=1e-6), 1.0)
    assert hit.model[2] == 1.0 and hit.human[2] == 1.0  # every audited query hits: no spread, no band past 1


def _holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: sorted ascending, p_(i) * (m - i + 1), a running
    maximum, capped at 1 (Holm 1979)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def test_corrected_verdicts_are_adjusted_over_the_family_as_the_model_verdicts_are():
    from ragreport.api import analyse, evaluate

    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(11)
    model, human, runs = {}, {}, {"a": {}, "b": {}, "c": {}}
    for q in range(80):
        qid = f"q{q}"
        model[qid] = {f"d{q}-{d}": int(rng.integers(0, 3)) for d in range(6)}
        model[qid][f"d{q}-0"] = 2
        if q < 30:
            human[qid] = {d: (g if rng.random() < 0.7 else int(rng.integers(0, 3))) for d, g in model[qid].items()}
        for name in runs:
            runs[name][qid] = {
                f"d{q}-{d}": float(rng.random()) + (0.6 if name == "b" and d == 0 else 0) for d in range(8)
            }
    report = analyse(evaluate(runs, qrels=model, k=5), audit=human, permutations=500)
    found = report.audit.comparisons
    assert len(found) == len(report.comparison.comparisons) == 2 * len(COMPARED)  # two runs x the family
    z = stats.norm.ppf(0.975)
    p_values = []
    for c in found:
        theta, low, high = c.corrected
        se = (high - low) / (2 * z)
        p_values.append(1.0 if se == 0 and theta == 0 else 2 * stats.norm.sf(abs(theta) / se))
        assert c.p == pytest.approx(p_values[-1], rel=1e-9, abs=1e-300)
    for c, p_adj in zip(found, _holm(p_values)):
        assert c.p_adjusted == pytest.approx(p_adj, rel=1e-9, abs=1e-300)
        low, high = c.corrected[1], c.corrected[2]
        clear = low > 0 or high < 0
        expected = (
            "unclear"
            if not clear
            else ("better" if low > 0 else "worse")
            if p_adj < 0.05
            else ("band above 0" if low > 0 else "band below 0")
        )
        if -0.02 < low and high < 0.02:  # inside the margin (--min-effect 0.02): negligible
            expected = {"better": "better below margin", "worse": "worse below margin"}.get(expected, "equivalent")
        assert c.verdict == expected
    # Never less strict than the band alone: a clear corrected verdict has its band clear of 0.
    assert all(c.corrected[1] > 0 or c.corrected[2] < 0 for c in found if c.verdict in ("better", "worse"))
    assert {c.verdict for c in found} & {"better", "worse"}  # the case is not vacuous


def test_a_family_member_the_audit_cannot_correct_counts_at_p_one():
    from test_agreement import _favoured

    from ragreport.api import analyse, evaluate
    from ragreport.scoring.measures import parse_measures

    # The family nDCG@3 and P@5 at K = 3: P@5 is at another cutoff, so the audit corrects nDCG@3
    # only; Holm over the family's two comparisons with P@5 at p = 1 gives nDCG@3 min(1, 2 p).
    model, human, runs = _favoured()
    summaries = evaluate(runs, qrels=model, k=3, measures=parse_measures(["P@5"]))
    report = analyse(summaries, audit=human, permutations=500, family=["nDCG@3", "P@5"])
    assert [c.metric for c in report.comparison.comparisons] == ["nDCG@3", "P@5"]
    assert [r.label for r in report.audit.runs] == ["nDCG@3", "nDCG@3"]  # runs a and b
    (found,) = report.audit.comparisons
    assert found.metric == "nDCG@3" and 0 < found.p < 0.5
    assert found.p_adjusted == pytest.approx(min(1.0, 2 * found.p), rel=1e-12)
