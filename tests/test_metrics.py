"""Metric kernels: docs/conventions.md section 5 by hand, a naive reference loop, and catalogue-wide properties."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import examples
from helpers import judged_run
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import metrics_at

from ragreport.api import score_and_summarise
from ragreport.core.model import Conventions, Denominator, Gain
from ragreport.scoring.catalogue import (
    AVERAGE_PRECISION,
    CATALOGUE,
    COMPARED,
    CONTEXT_PRECISION,
    HIT,
    JUDGED,
    NDCG,
    PRECISION,
    RECALL,
    RECIPROCAL_RANK,
    SUITE,
    ValueKind,
)
from ragreport.scoring.metrics import score
from ragreport.scoring.sums import cumulative_dcg

# --- docs/conventions.md section 5 -------------------------------------------------------------------------


def test_dcg_of_grades_3_2_3_0_1_2_is_6_861():
    assert round(cumulative_dcg([[3, 2, 3, 0, 1, 2]])[0, 5], 3) == 6.861


def test_idcg_of_ideal_order_3_3_2_2_1_is_7_141():
    assert round(cumulative_dcg([[3, 3, 2, 2, 1, 0]])[0, 5], 3) == 7.141


def test_idcg_with_two_unretrieved_relevant_ids_is_8_740():
    assert round(cumulative_dcg([[3, 3, 3, 2, 2, 2]])[0, 5], 3) == 8.740


SIX = ["a", "b", "c", "d", "e", "f"]
SIX_GRADES = {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2}


def test_ndcg_at_6_is_0_961():
    scores = score(judged_run([("q", SIX, SIX_GRADES)]), [6], Conventions())
    assert round(float(scores.of(NDCG, 6)[0]), 3) == 0.961


def test_ndcg_at_6_with_two_unretrieved_relevant_ids_is_0_785():
    grades = dict(SIX_GRADES, g=3, h=2)
    scores = score(judged_run([("q", SIX, grades)]), [6], Conventions())
    assert round(float(scores.of(NDCG, 6)[0]), 3) == 0.785


def _ranked(relevant_ranks: list[int], length: int = 10) -> tuple[list[str], dict[str, int]]:
    docs = [f"d{i}" for i in range(1, length + 1)]
    return docs, {f"d{i}": 1 for i in relevant_ranks}


def test_ap_at_10_relevant_at_1_3_6_9_10_is_0_622():
    docs, grades = _ranked([1, 3, 6, 9, 10])
    scores = score(judged_run([("q", docs, grades)]), [10], Conventions())
    assert round(float(scores.of(AVERAGE_PRECISION, 10)[0]), 3) == 0.622


def test_ap_at_10_relevant_at_2_5_7_is_0_443():
    docs, grades = _ranked([2, 5, 7])
    scores = score(judged_run([("q", docs, grades)]), [10], Conventions())
    assert round(float(scores.of(AVERAGE_PRECISION, 10)[0]), 3) == 0.443


def test_map_at_10_of_the_two_is_0_533():
    one, two = _ranked([1, 3, 6, 9, 10]), _ranked([2, 5, 7])
    summary = score_and_summarise(judged_run([("q1", *one), ("q2", *two)]), 10, Conventions())
    assert round(summary.at_k["AP@10"].mean, 3) == 0.533


# --- Against a naive per-query loop --------------------------------------------------------------

DOCS = [f"d{i}" for i in range(12)]

query_strategy = st.tuples(
    st.lists(st.sampled_from(DOCS), max_size=15),  # repeats and short lists included
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), max_size=8),  # empty relevant sets too
)


@settings(max_examples=examples(300), deadline=None)
@given(
    queries=st.lists(query_strategy, min_size=1, max_size=6),
    cutoffs=st.lists(st.integers(1, 16), min_size=1, max_size=4),
    denominator=st.sampled_from(list(Denominator)),
    gain=st.sampled_from(list(Gain)),
)
def test_every_metric_matches_the_naive_loop(queries, cutoffs, denominator, gain):
    judged = judged_run([(f"q{i}", r, g) for i, (r, g) in enumerate(queries)])
    conventions = Conventions(denominator=denominator, gain=gain)
    scores = score(judged, cutoffs, conventions)
    for q, (retrieved, grades) in enumerate(queries):
        for c, k in enumerate(scores.cutoffs):
            expected = metrics_at(retrieved, grades, int(k), denominator.value, gain.value)
            # every metric with a naive twin (a later one has its own hand-worked test)
            checked = [(m, metric) for m, metric in enumerate(SUITE) if metric.key in expected]
            assert len(checked) >= 8
            for m, metric in checked:
                assert scores.values[m, q, c] == pytest.approx(expected[metric.key], abs=1e-12), (metric.key, k, q)
        assert bool(scores.scored[q]) == any(g >= 1 for g in grades.values())


# --- Properties over the whole catalogue --------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(queries=st.lists(query_strategy, min_size=1, max_size=6))
def test_every_score_lies_in_0_1_and_recall_and_hit_never_fall_as_k_grows(queries):
    judged = judged_run([(f"q{i}", r, g) for i, (r, g) in enumerate(queries)])
    scores = score(judged, range(1, 17), Conventions())
    assert np.all(scores.values >= 0) and np.all(scores.values <= 1 + 1e-12)
    for metric in SUITE:
        if metric.kind is ValueKind.BINARY:
            assert set(np.unique(scores.values[SUITE.index(metric)])) <= {0.0, 1.0}, metric.key
    for metric in (RECALL, HIT, RECIPROCAL_RANK):
        values = scores.values[SUITE.index(metric)]
        assert np.all(np.diff(values, axis=1) >= -1e-12), metric.key


@settings(max_examples=examples(100), deadline=None)
@given(grades=st.lists(st.integers(1, 3), min_size=1, max_size=8), k=st.integers(1, 10))
def test_the_ideal_ranking_scores_one(grades, k):
    docs = [f"d{i}" for i in range(len(grades))]
    order = sorted(range(len(grades)), key=lambda i: -grades[i])
    judged = judged_run([("q", [docs[i] for i in order], dict(zip(docs, grades)))])
    scores = score(judged, [k], Conventions(denominator=Denominator.MIN))
    for metric in (RECALL, HIT, RECIPROCAL_RANK, AVERAGE_PRECISION, NDCG, CONTEXT_PRECISION):
        assert scores.of(metric, k)[0] == pytest.approx(1.0), metric.key
    assert scores.of(PRECISION, k)[0] == pytest.approx(min(len(grades), k) / k)


def test_recall_under_relevant_denominator_cannot_reach_one_when_r_exceeds_k():
    docs = [f"d{i}" for i in range(6)]
    judged = judged_run([("q", docs, {d: 1 for d in docs})])
    relevant = score(judged, [5], Conventions()).of(RECALL, 5)[0]
    minimum = score(judged, [5], Conventions(denominator=Denominator.MIN)).of(RECALL, 5)[0]
    assert relevant == pytest.approx(5 / 6) and minimum == 1.0


def test_a_repeat_keeps_its_slot_and_scores_nothing():
    judged = judged_run([("q", ["a", "a", "b"], {"a": 2, "b": 1})])
    scores = score(judged, [3], Conventions())
    assert scores.of(PRECISION, 3)[0] == pytest.approx(2 / 3)
    # DCG: a at rank 1 (gain 2), the repeat nothing, b at rank 3 (gain 1 / log2 4).
    assert scores.of(NDCG, 3)[0] == pytest.approx((2 + 0.5) / (2 + 1 / np.log2(3)))
    assert list(judged.repeat) == [False, True, False]


def test_exponential_gain_weighs_high_grades_more():
    judged = judged_run([("q", ["b", "a"], {"a": 3, "b": 1})])
    linear = score(judged, [2], Conventions()).of(NDCG, 2)[0]
    exp = score(judged, [2], Conventions(gain=Gain.EXP)).of(NDCG, 2)[0]
    assert linear == pytest.approx((1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3)))
    assert exp == pytest.approx((1 + 7 / np.log2(3)) / (7 + 1 / np.log2(3)))


def test_exponential_gain_of_grades_past_a_doubles_range_by_hand():
    # docs/conventions.md section 17: grades 1024 (a) and 1023 (b), the list b, a. 2^1024 overflows
    # a double; the ratio is (2^1023 + 2^1024 / log2 3) / (2^1024 + 2^1023 / log2 3), the -1s lost
    # far below double precision, = (1/2 + 1/log2 3) / (1 + 1/(2 log2 3)).
    judged = judged_run([("q", ["b", "a"], {"a": 1024, "b": 1023})])
    with np.errstate(all="raise"):  # no overflow, no invalid operation on the way
        ndcg = score(judged, [1, 2], Conventions(gain=Gain.EXP))
    log3 = np.log2(3)
    assert ndcg.of(NDCG, 2)[0] == pytest.approx((1 / 2 + 1 / log3) / (1 + 1 / (2 * log3)), rel=1e-12)
    assert ndcg.of(NDCG, 1)[0] == pytest.approx(1 / 2, rel=1e-12)  # 2^1023 / 2^1024


@pytest.mark.parametrize("top", [1 << 62, (1 << 63) - 1])
def test_exponential_gain_at_the_largest_grades_stays_within_zero_and_one(top):
    # The top grade gains 2^top - 1, one below it half as much (to double precision), the rest nothing.
    judged = judged_run([("q", ["c", "b", "a"], {"a": top, "b": top - 1, "c": 1})])
    ndcg = score(judged, [3], Conventions(gain=Gain.EXP)).of(NDCG, 3)[0]
    assert ndcg == pytest.approx((1 / 2 / np.log2(3) + 1 / 2) / (1 + 1 / 2 / np.log2(3)), rel=1e-12)
    assert 0.0 <= ndcg <= 1.0


def test_scaled_exponential_gain_matches_the_plain_one_bit_for_bit_below_overflow():
    rng = np.random.default_rng(3)
    queries = [
        (f"q{i}", [f"d{j}" for j in rng.permutation(8)[:5]], {f"d{j}": int(rng.integers(-1, 40)) for j in range(8)})
        for i in range(30)
    ]
    judged = judged_run(queries)
    got = score(judged, [1, 3, 5], Conventions(gain=Gain.EXP)).of(NDCG, 5)
    for i, (_, retrieved, grades) in enumerate(queries):  # the plain formula, gains 2^g - 1 unscaled
        gains = [2.0 ** grades[d] - 1 if grades[d] >= 1 else 0.0 for d in retrieved]
        ideal = sorted((2.0**g - 1 for g in grades.values() if g >= 1), reverse=True)[:5]
        dcg = sum(g / np.log2(r + 2) for r, g in enumerate(gains))
        idcg = sum(g / np.log2(r + 2) for r, g in enumerate(ideal))
        assert got[i] == pytest.approx(dcg / idcg if idcg else 0.0, rel=1e-12)


def test_context_precision_equals_ap_only_when_every_relevant_id_is_within_k():
    judged = judged_run([("all", ["a", "x", "b"], {"a": 1, "b": 1}), ("some", ["a", "x", "y"], {"a": 1, "b": 1})])
    scores = score(judged, [3], Conventions())
    ap, cp = scores.of(AVERAGE_PRECISION, 3), scores.of(CONTEXT_PRECISION, 3)
    assert ap[0] == pytest.approx(cp[0]) == pytest.approx((1 + 2 / 3) / 2)
    assert cp[1] == 1.0 and ap[1] == 0.5


def test_first_relevant_rank_looks_past_the_deepest_cutoff():
    judged = judged_run([("q", ["x", "y", "z", "a"], {"a": 1}), ("none", ["x"], {"a": 1})])
    scores = score(judged, [2], Conventions())
    assert list(scores.first_relevant_rank) == [4, 0]


def test_every_entry_states_its_convention():
    for metric in CATALOGUE:
        for conventions in (Conventions(), Conventions(denominator=Denominator.MIN, gain=Gain.EXP)):
            text = metric.convention(5, conventions)
            assert text.endswith(".") and ("5" in text or not metric.in_suite), metric.key


def test_trec_eval_twins_by_hand():
    # The twin the report names beside each figure at K = 5 (trec_eval's own names).
    twins = {m.key: m.trec_eval_name(5) for m in SUITE if m.trec_eval}
    assert twins == {
        "P": "P_5",
        "R": "recall_5",
        "Hit": "success_5",
        "RR": "recip_rank",
        "AP": "map_cut_5",
        "nDCG": "ndcg_cut_5",
    }
    assert all(m.trec_eval_name(5) is None for m in SUITE if not m.trec_eval)


def test_scoring_a_subset_gives_the_suites_figures():
    judged = judged_run([("q", SIX, SIX_GRADES), ("r", ["b", "a"], {"a": 1, "z": 2})])
    everything = score(judged, [2, 6], Conventions())
    for metric in SUITE:
        alone = score(judged, [2, 6], Conventions(), [metric])
        assert alone.metrics == (metric,) and np.array_equal(alone.of(metric, 6), everything.of(metric, 6))


def test_cutoffs_must_be_positive():
    with pytest.raises(ValueError):
        score(judged_run([("q", ["a"], {"a": 1})]), [0], Conventions())


# --- Judged@K (docs/conventions.md section 12) --------------------------------------------------


def test_judged_at_5_counts_first_occurrences_of_any_grade_over_k():
    # Top 5: a (judged relevant), x (unjudged), b (judged, grade 0), a again (a repeat), an empty slot.
    scores = score(judged_run([("q", ["a", "x", "b", "a"], {"a": 1, "b": 0})]), [5], Conventions())
    assert scores.of(JUDGED, 5)[0] == pytest.approx(2 / 5)


def test_judged_at_5_worked_example_and_its_band():
    # A: a (2), x, a (repeat), b (0), c (-1) in the top 5 -> 3/5, with P@5 = 1/5 (d, relevant, is at rank 6).
    # B: e (1), y, then three empty slots -> 1/5. The mean is 0.4; the bootstrap band 0.2 to 0.6.
    judged = judged_run(
        [("A", ["a", "x", "a", "b", "c", "d"], {"a": 2, "b": 0, "c": -1, "d": 1}), ("B", ["e", "y"], {"e": 1, "f": 0})]
    )
    summary = score_and_summarise(judged, 5, Conventions())
    assert summary.scores.of(JUDGED, 5).tolist() == pytest.approx([0.6, 0.2])
    assert summary.scores.of(PRECISION, 5).tolist() == pytest.approx([0.2, 0.2])
    band = summary.at_k["Judged@5"]
    assert (band.mean, band.low, band.high) == pytest.approx((0.4, 0.2, 0.6))


def test_judged_on_the_sample_is_24_of_45():
    from ragreport.api import evaluate

    band = evaluate()[0].at_k["Judged@5"]
    assert round(band.mean, 3) == 0.533 and (round(band.low, 3), round(band.high, 3)) == (0.4, 0.644)


@settings(max_examples=examples(150), deadline=None)
@given(queries=st.lists(query_strategy, min_size=1, max_size=6), k=st.integers(1, 16))
def test_judged_is_never_below_precision(queries, k):
    # Every slot that counts for Precision holds a judged id.
    scores = score(judged_run([(f"q{i}", r, g) for i, (r, g) in enumerate(queries)]), [k], Conventions())
    assert np.all(scores.of(JUDGED, k) >= scores.of(PRECISION, k) - 1e-12)


def test_judged_is_a_diagnostic_in_the_suite_and_not_compared():
    assert JUDGED in SUITE and JUDGED not in COMPARED


# --- The relevance level (docs/conventions.md section 15) -----------------------------------------


def test_the_relevance_level_moves_relevance_and_leaves_gains_and_labels_alone():
    """a = 1, b = 2, c = 3, d = 0; the list a, b, x, c; K = 4.

    Level 2: relevant b (rank 2) and c (rank 4), R = 2: P@4 = 2/4, R@4 = 1, RR@4 = 1/2,
    AP@4 = (1/2 + 2/4) / 2 = 0.5, CP@4 = the same sum over 2 hits = 0.5. Level 1: R = 3, P@4 = 3/4,
    RR@4 = 1, AP@4 = (1/1 + 2/2 + 3/4) / 3 = 11/12. nDCG@4 gains every grade of 1 or more at either
    level: DCG = 1 + 2/log2(3) + 3/log2(5), IDCG = 3 + 2/log2(3) + 1/2. Judged@4 = 3/4 either way.
    """
    from ragreport.core.model import Judgments, Run
    from ragreport.scoring.join import join

    ndcg = (1 + 2 / np.log2(3) + 3 / np.log2(5)) / (3 + 2 / np.log2(3) + 0.5)
    expected = {
        1: {"P@4": 0.75, "R@4": 1.0, "Hit@4": 1.0, "RR@4": 1.0, "AP@4": 11 / 12, "nDCG@4": ndcg, "CP@4": 11 / 12},
        2: {"P@4": 0.5, "R@4": 1.0, "Hit@4": 1.0, "RR@4": 0.5, "AP@4": 0.5, "nDCG@4": ndcg, "CP@4": 0.5},
        3: {"P@4": 0.25, "R@4": 1.0, "Hit@4": 1.0, "RR@4": 0.25, "AP@4": 0.25, "nDCG@4": ndcg, "CP@4": 0.25},
    }
    run = Run.from_lists("t", [("q1", ["a", "b", "x", "c"])])
    judgments = Judgments.from_lists([("q1", ["a", "b", "c", "d"], [1, 2, 3, 0])])
    prints = set()
    for level, figures in expected.items():
        judged = join(run, judgments, level)
        assert judged.relevant.tolist() == [{1: 3, 2: 2, 3: 1}[level]]
        summary = score_and_summarise(judged, 4, Conventions(relevance_level=level))
        for label, value in figures.items():
            assert summary.at_k[label].mean == pytest.approx(value), (level, label)
        assert summary.at_k["Judged@4"].mean == pytest.approx(0.75)
        prints.add((summary.query_fingerprint, summary.label_fingerprint))
    assert len(prints) == 1  # the same labels: the same fingerprints at every level
    assert judged_run([("q1", ["a"], {"a": 1})]).level == 1  # the default level
