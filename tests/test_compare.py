"""Comparisons: paired bootstrap, randomization test, corrections, intersections."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import judged_run

from ragreport.analysis.compare import (
    Correction,
    QueryPairing,
    ReadingDelta,
    adjust,
    compare,
    pair_queries,
    paired_bands,
    randomization_test,
    standardised_effect,
    verdict_of,
)
from ragreport.api import score_and_summarise
from ragreport.core.errors import UsageError
from ragreport.core.model import Conventions
from ragreport.scoring.catalogue import COMPARED, NDCG


def _summary(name, queries, k=3, conventions=Conventions()):
    return score_and_summarise(judged_run(queries, name=name), k, conventions)


def _exact_p(d):
    """|mean| of every sign vector against the observed one, by brute force."""
    observed = abs(sum(d)) / len(d)
    flips = [abs(sum(s * x for s, x in zip(signs, d))) / len(d) for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(f >= observed - 1e-12 for f in flips) / len(flips)


# --- Corrections, by hand ------------------------------------------------------------------------


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04; running max 0.03, 0.06, 0.06
    assert adjust([0.01, 0.04, 0.03], Correction.HOLM).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert adjust([0.2, 0.5, 0.01, 0.9], Correction.HOLM).tolist() == pytest.approx([0.6, 1.0, 0.04, 1.0])


def test_bonferroni_and_none_by_hand():
    assert adjust([0.01, 0.04, 0.5], Correction.BONFERRONI).tolist() == pytest.approx([0.03, 0.12, 1.0])
    assert adjust([0.01, 0.04], Correction.NONE).tolist() == [0.01, 0.04]


# --- Randomization test -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "d",
    [[0.5, 0.2, -0.1, 0.3, 0.4], [1, 1, 1, 1], [0.1, -0.1], [0.0, 0.0, 0.3], [0.25, -0.5, 0.75, 0.1, -0.2, 0.6, 0.33]],
)
def test_small_samples_are_enumerated_exactly(d):
    assert randomization_test(np.array(d)).tolist() == [pytest.approx(_exact_p(d))]


def test_monte_carlo_p_is_close_to_the_exact_one_and_reproducible():
    rng = np.random.default_rng(3)
    d = rng.normal(0.08, 0.3, size=16)  # 65,536 sign vectors: more than 10,000, so drawn at random
    exact = _exact_p(d.tolist())
    p = randomization_test(d, permutations=10_000, seed=0)[0]
    assert abs(p - exact) < 0.015
    assert randomization_test(d, permutations=10_000, seed=0)[0] == p
    assert p > 0


def test_p_is_never_zero_and_columns_are_independent():
    d = np.column_stack([np.full(40, 0.1), np.zeros(40)])
    p = randomization_test(d, permutations=1000, seed=1)
    assert p[0] == pytest.approx(1 / 1001) and p[1] == 1.0


# --- Whole comparisons --------------------------------------------------------------------------

QUERIES = [(f"q{i:02d}", ["a", "b", "c", "d"], {"abcd"[i % 4]: 1, "abcd"[(i + 1) % 4]: 2}) for i in range(40)]


def test_a_run_compared_with_itself_gives_zero_band_and_p_one():
    base = _summary("base", QUERIES)
    same = _summary("same", QUERIES)
    report = compare([base, same])
    for c in report.comparisons:
        assert (c.delta, c.low, c.high, c.p, c.p_adjusted) == (0.0, 0.0, 0.0, 1.0, 1.0)
        assert (c.wins, c.ties, c.losses, c.queries) == (0, 40, 0, 40)
        # the band [0, 0] lies inside +-0.02: the two one-sided tests find them the same
        assert c.verdict == "equivalent"
        assert c.effect is None and c.effect_low is None and c.effect_high is None  # no spread: d_z undefined


def test_a_run_better_on_every_query_gets_a_band_above_zero_and_a_small_p():
    worse = [(q, ["x", "y", "z"] + r, g) for q, r, g in QUERIES]  # relevant ids pushed down
    report = compare([_summary("worse", worse), _summary("better", QUERIES)])
    ndcg = next(c for c in report.comparisons if c.metric == "nDCG@3")
    assert ndcg.low > 0 and ndcg.p < 0.001 and ndcg.p_adjusted < 0.01 and ndcg.verdict == "better"
    assert (ndcg.wins, ndcg.losses) == (40, 0)
    assert ndcg.delta == pytest.approx(
        np.mean(_summary("better", QUERIES).scores.of(NDCG, 3)) - np.mean(_summary("worse", worse).scores.of(NDCG, 3))
    )


def test_paired_bootstrap_matches_a_naive_loop():
    rng = np.random.default_rng(5)
    shuffled = [(q, list(rng.permutation(list(r))), g) for q, r, g in QUERIES]
    base, run = _summary("base", QUERIES), _summary("run", shuffled)
    report = compare([base, run])
    pairing = pair_queries(base, run)
    b = np.array([base.scores.of(m, 3)[pairing.baseline_rows] for m in COMPARED])
    r = np.array([run.scores.of(m, 3)[pairing.run_rows] for m in COMPARED])
    n = len(pairing.query_ids)
    draws = np.random.default_rng(0)
    means = []
    for _ in range(1000):  # one resample at a time, the same queries for both runs
        idx = np.minimum((draws.random(n) * n).astype(int), n - 1)
        means.append([(r[m, idx] - b[m, idx]).mean() for m in range(len(COMPARED))])
    low, high = np.percentile(np.array(means), [2.5, 97.5], axis=0)
    assert [c.metric for c in report.comparisons] == [m.label(3) for m in COMPARED]
    for m, c in enumerate(report.comparisons):
        assert c.low == pytest.approx(low[m], abs=1e-12) and c.high == pytest.approx(high[m], abs=1e-12)


def test_runs_on_different_query_sets_are_compared_on_the_intersection():
    base = _summary("base", QUERIES[:30])
    run = _summary("run", QUERIES[10:])
    pairing = pair_queries(base, run)
    assert len(pairing.query_ids) == 20 and pairing.query_ids[0] == "q10"
    assert pairing.only_baseline == tuple(f"q{i:02d}" for i in range(10))
    assert pairing.only_run == tuple(f"q{i:02d}" for i in range(30, 40))
    assert all(c.queries == 20 for c in compare([base, run]).comparisons)


def test_holm_runs_over_every_comparison_of_the_report():
    a, b, c = _summary("a", QUERIES), _summary("b", QUERIES[::-1]), _summary("c", QUERIES)
    report = compare([a, b, c], correction=Correction.BONFERRONI)
    family = 2 * len(COMPARED)  # two runs against the baseline, every metric of the comparison family
    assert len(report.comparisons) == family
    for comparison in report.comparisons:
        assert comparison.p_adjusted == pytest.approx(min(1.0, comparison.p * family))


def test_baseline_by_name_and_errors():
    a, b = _summary("a", QUERIES), _summary("b", QUERIES)
    assert compare([a, b], baseline="b").baseline == "b"
    assert compare([a]) is None
    with pytest.raises(UsageError, match="^baseline 'z' names no run"):
        compare([a, b], baseline="z")
    apart = compare([_summary("x", QUERIES[:5]), _summary("y", QUERIES[5:10]), _summary("z", QUERIES[:5])])
    assert [len(rc.comparisons) for rc in apart.runs] == [0, len(COMPARED)]  # y shares nothing with x: not compared
    assert len(apart.comparisons) == len(COMPARED)


def test_the_exact_enumeration_runs_in_blocks_with_the_same_p(monkeypatch):
    import ragreport.analysis.randomization as signs_module

    # 12 equal differences: only the two all-same-sign vectors of 2^12 reach the mean: p = 2/4096
    d = np.ones((12, 1))
    assert randomization_test(d, permutations=4096)[0] == 2 / 4096
    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 120)  # blocks of 10 sign vectors: 410 blocks
    blocks = list(signs_module._sign_blocks(12, 4096, 0))
    assert len(blocks) == 410 and max(len(b) for b in blocks) == 10 and sum(len(b) for b in blocks) == 4096
    assert randomization_test(d, permutations=4096)[0] == 2 / 4096


def test_permutations_are_bounded():
    from ragreport.analysis.randomization import MAX_PERMUTATIONS

    assert MAX_PERMUTATIONS == 10_000_000
    with pytest.raises(UsageError, match="^permutations must be from 1 to 10,000,000, got 10,000,001$"):
        randomization_test(np.ones(3), permutations=10_000_001)


def test_a_run_comparisons_per_query_differences_on_one_member():
    from ragreport.analysis.compare import compare
    from ragreport.api import evaluate

    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    base = {"q1": {"x": 2.0, "a": 1.0}, "q2": {"b": 1.0}}
    cand = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 1.0}}
    (run,) = compare(evaluate({"base": base, "cand": cand}, qrels=qrels, k=2), permutations=100).runs
    # q1: RR 1/2 -> 1; q2: 1 -> 1
    assert run.differences("RR@2") == {"q1": 0.5, "q2": 0.0}
    assert run.differences("P@7") is None


def test_runs_of_the_same_queries_pair_as_their_ids_sorted():
    """pair_queries' short way (the same query ids in the same rows, the same scored ones): the
    shared queries in id order with their rows, as the sets of ids give them when the rows differ."""
    from ragreport.api import evaluate

    qrels = {f"q{i}": {"d1": 1} for i in (3, 1, 10, 2)} | {"q0": {"d9": 0}}  # q0: no relevant id
    runs = {name: {q: {"d1": 1.0, "d2": 0.5} for q in ("q10", "q2", "q3", "q1", "q0")} for name in ("a", "b")}
    a, b = evaluate(runs, qrels=qrels, k=2)
    pairing = pair_queries(a, b)
    assert pairing.query_ids.tolist() == ["q1", "q10", "q2", "q3"]  # q0 is not scored (no relevant id)
    assert a.judged.query_ids[pairing.baseline_rows].tolist() == pairing.query_ids.tolist()
    assert b.judged.query_ids[pairing.run_rows].tolist() == pairing.query_ids.tolist()
    assert pairing.same_queries
    # The same runs with their queries in another order: the long way, the same pairing.
    runs["b"] = {q: runs["b"][q] for q in ("q1", "q0", "q3", "q10", "q2")}
    a, c = evaluate(runs, qrels=qrels, k=2)
    other = pair_queries(a, c)
    assert other.query_ids.tolist() == pairing.query_ids.tolist() and other.same_queries
    assert c.judged.query_ids[other.run_rows].tolist() == pairing.query_ids.tolist()


# --- The standardised effect and the margin ---------------------------------------------------------


def test_standardised_effect_by_hand():
    # (0.1, 0.2, 0.3, -0.05): mean 0.1375; squares of the deviations 0.00140625 + 0.00390625 + 0.02640625
    # + 0.03515625 = 0.066875, / 3 = 0.02229167, sd 0.1493039; d_z = 0.1375 / 0.1493039 = 0.920940
    d = np.array([0.1, 0.2, 0.3, -0.05])
    assert float(standardised_effect(d.mean(), (d**2).mean(), 4)) == pytest.approx(0.920940, abs=1e-6)
    # all equal: sd 0, so +inf for a non-zero mean and NaN for zeros; one query: NaN
    assert float(standardised_effect(np.float64(0.3), np.float64(0.09), 5)) == np.inf
    assert np.isnan(standardised_effect(np.float64(0.0), np.float64(0.0), 5))
    assert np.isnan(standardised_effect(np.float64(0.5), np.float64(0.25), 1))


def test_a_comparison_carries_d_z_worked_by_hand():
    # P@2 of new minus base on q1..q3: (0, +1, -0.5) (test_headline's runs): mean 1/6; deviations
    # -1/6, 5/6, -2/3, squares summing to 42/36, / 2 = 21/36: sd sqrt(21)/6; d_z = 1/sqrt(21) = 0.218218
    base = [("q1", ["x", "a"], {"a": 1}), ("q2", ["x", "y"], {"b": 1, "c": 1}), ("q3", ["d", "y"], {"d": 1})]
    new = [("q1", ["a", "x"], {"a": 1}), ("q2", ["b", "c"], {"b": 1, "c": 1}), ("q3", ["x", "y"], {"d": 1})]
    report = compare([_summary("base", base, k=2), _summary("new", new, k=2)])
    p2 = next(c for c in report.comparisons if c.metric == "P@2")
    assert p2.effect == pytest.approx(0.218218, abs=1e-6)
    # 3 queries: a resample drawing one query thrice (1 in 9) has no spread, so the band is undefined
    assert p2.effect_low is None and p2.effect_high is None
    assert p2.as_dict()["effect"] == p2.effect and "effect_low" in p2.as_dict()


def test_the_effect_band_covers_a_planted_d_z_about_95_percent_of_the_time():
    """Normal paired differences with d_z = 0.3 (mean 0.03, sd 0.1), n = 200: the 95% band from the
    delta's own resamples covers 0.3 in about 95% of 400 seeded replicates."""
    rng = np.random.default_rng(2013)
    n, covered, replicates = 200, 0, 400
    ids = np.array([f"q{i:03d}" for i in range(n)])
    rows = np.arange(n)
    # a pairing that is not every run's query set: paired_bands draws afresh (no summaries read)
    pairing = QueryPairing(ids, rows, rows, only_baseline=("left out",), only_run=())
    for r in range(replicates):
        d = rng.normal(0.03, 0.1, size=(n, 1))
        conventions = Conventions(resamples=1000, seed=r)
        runs = SimpleNamespace(conventions=conventions, sums=None)  # figures of the memory engine
        ((_, low, high, effect, e_low, e_high),) = paired_bands(runs, [(runs, pairing, d)], [NDCG], conventions)
        assert low[0] < d.mean() < high[0] and e_low[0] < effect[0] < e_high[0]
        covered += e_low[0] <= 0.3 <= e_high[0]
    assert 0.91 <= covered / replicates <= 0.98


@pytest.mark.parametrize(
    ("low", "high", "p", "verdict"),
    [
        (0.03, 0.08, 0.001, "better"),  # clear of 0 and confirmed, not inside the margin
        (0.005, 0.03, 0.001, "better"),  # reaches past +0.02: cannot be called negligible
        (-0.08, -0.03, 0.001, "worse"),
        (0.002, 0.004, 0.001, "better below margin"),  # the case: +0.002 on 50,000 queries
        (-0.019, -0.001, 0.001, "worse below margin"),
        (-0.01, 0.015, 0.8, "equivalent"),  # the two one-sided tests: the band inside (-0.02, +0.02)
        (0.002, 0.01, 0.2, "equivalent"),  # clear of 0 by the band only, and inside the margin
        (-0.02, 0.01, 0.8, "unclear"),  # a bound on -0.02 is not inside it
        (-0.05, 0.05, 0.9, "unclear"),
        (0.01, 0.05, 0.09, "band above 0"),  # a reader's "no clear difference"
        (-0.05, -0.01, 0.09, "band below 0"),
    ],
)
def test_the_verdicts_against_the_margin(low, high, p, verdict):
    assert verdict_of(low, high, p, 0.05, 0.02) == verdict
    assert ReadingDelta(0.0, low, high, p, 0.05, 0.02).verdict == verdict  # the same rule under a reading


def test_without_a_margin_the_verdicts_are_those_of_before():
    assert verdict_of(0.002, 0.004, 0.001, 0.05) == "better"
    assert verdict_of(-0.01, 0.015, 0.8, 0.05) == "unclear"
    assert verdict_of(0.002, 0.01, 0.2, 0.05) == "band above 0"
