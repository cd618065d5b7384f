"""Honest limits: each statement appears only when it applies, with the run's own figures."""

from __future__ import annotations

import datetime as dt

from helpers import judged_run

from ragreport.analysis.caveats import unjudged_share
from ragreport.analysis.limits import limits
from ragreport.api import score_and_summarise
from ragreport.core.model import Conventions, Denominator, LabelSource, Missing, NoRelevant, RetrieverKind, RunMeta

TODAY = dt.date(2026, 11, 30)


def _summary(queries, meta=RunMeta(), conventions=Conventions(), k=2, extra_judged=()):
    judged = judged_run(queries, extra_judged=extra_judged)
    judged = type(judged)(**{**judged.__dict__, "meta": meta})
    return score_and_summarise(judged, k, conventions)


def _by_key(summary):
    return {limit.key: limit for limit in limits(summary, TODAY)}


CLEAN = [(f"q{i}", ["a", "b"], {"a": 1, "b": 0}) for i in range(60)]


def test_a_clean_large_run_gets_only_the_statements_that_always_apply():
    found = _by_key(_summary(CLEAN))
    assert list(found) == ["scope", "k_dependence", "query_weights", "band_width"]
    assert "With 60 scored queries" in found["band_width"].text
    assert "the run of 2026-11-30" in found["scope"].text


def test_unjudged_share_counts_top_k_slots_and_names_the_pool_depth():
    queries = [("q1", ["a", "x", "y"], {"a": 1}), ("q2", ["b", "c"], {"b": 1, "c": 0})]
    found = _by_key(_summary(queries, meta=RunMeta(pool_depth=10)))
    assert found["unjudged"].text.startswith(
        "1 of the 4 filled top-2 slots of the scored queries (repeats aside; 25.0%) holds an id that nobody judged"
    )
    assert "pool depth of 10" in found["unjudged"].text
    # Judged@2: q1 has a judged, x not (1/2); q2 has both judged (2/2).
    assert "Judged@2, the mean share of each scored query's top 2 that holds a judged id" in found["unjudged"].text
    assert "is 0.750." in found["unjudged"].text


def test_the_top_k_slots_counted_are_the_scored_queries_first_k_slots():
    """The slots' flags by a plain loop over the scored queries and their first K ranks: a repeat,
    a list shorter than K, a query not scored (nothing relevant) left out."""
    queries = [
        ("q1", ["a", "x", "a", "y"], {"a": 1}),
        ("q2", ["b"], {"b": 1}),
        ("q3", ["u", "v"], {"u": 0}),
        ("q4", ["c", "d", "e", "f"], {"c": 0, "e": 2}),
    ]
    summary = _summary(queries, k=3)
    judged = summary.judged
    flags, repeats = [], []
    for q in range(judged.n_queries):
        if not summary.scores.scored[q]:
            continue
        for slot in range(judged.offsets[q], min(judged.offsets[q + 1], judged.offsets[q] + 3)):
            flags.append(bool(judged.judged[slot]))
            repeats.append(bool(judged.repeat[slot]))
    assert flags == [True, False, True, True, True, False, True]
    assert repeats == [False, False, True, False, False, False, False]
    filled = [f for f, r in zip(flags, repeats) if not r]
    assert summary.facts.slots == (len(filled), filled.count(False), filled.count(True)) == (6, 2, 4)
    assert unjudged_share(summary) == (2, 6)


def test_model_judge_with_and_without_an_error_rate():
    with_rate = _by_key(
        _summary(CLEAN, meta=RunMeta(label_source=LabelSource.MODEL, judge="judge-x", judge_error_rate=0.1))
    )["judge_error"]
    assert with_rate.title == "Labels from a model judge"
    assert "model judge (judge-x)" in with_rate.text
    assert "(10.0%), about 12 of the 120 judged top-2 slots" in with_rate.text
    without = _by_key(_summary(CLEAN, meta=RunMeta(label_source=LabelSource.MODEL)))["judge_error"].text
    assert "no error rate" in without
    assert "judge_error" not in _by_key(_summary(CLEAN, meta=RunMeta(label_source=LabelSource.HUMAN)))


def test_a_stated_error_rate_counts_for_human_judges_too_and_small_counts_keep_a_decimal():
    found = _by_key(_summary(CLEAN[:3], meta=RunMeta(label_source=LabelSource.HUMAN, judge_error_rate=0.08)))
    assert found["judge_error"].title == "Labels with a stated error rate"
    assert "come from people" in found["judge_error"].text and "about 0.5 of the 6 judged" in found["judge_error"].text


def test_union_statement_for_multi_hop_and_agentic_only():
    for kind in (RetrieverKind.MULTI_HOP, RetrieverKind.AGENTIC):
        found = _by_key(_summary(CLEAN, meta=RunMeta(retriever_kind=kind)))
        assert f"retriever is {kind.value}" in found["union"].text
    assert "union" not in _by_key(_summary(CLEAN, meta=RunMeta(retriever_kind=RetrieverKind.SINGLE)))


def test_queries_with_more_relevant_ids_than_k_under_both_denominators():
    queries = CLEAN[:3] + [("big", ["a", "b", "c"], {"a": 1, "b": 1, "c": 1})]
    relevant = _by_key(_summary(queries))["query_weights"].text
    assert "3 have a single relevant id and 1 has several (up to 3)" in relevant
    assert "1 query (big) has more relevant ids than K = 2: its Recall@2 and AP@2 can never reach 1." in relevant
    minimum = _by_key(_summary(queries, conventions=Conventions(denominator=Denominator.MIN)))["query_weights"].text
    assert "min(R, K) denominator forgives" in minimum


def test_small_sample_names_the_band_widths():
    found = _by_key(_summary(CLEAN[:5]))
    assert "small_sample" in found and "band_width" not in found
    assert found["small_sample"].title == "Only 5 scored queries"


def test_excluded_missing_and_repeats():
    queries = [("q1", ["a", "a"], {"a": 1}), ("none", ["x"], {"x": 0}), ("nobody", ["y"], None)]
    found = _by_key(_summary(queries, extra_judged=[("gone", {"z": 1}), ("gone-too", {"z": 0})]))
    assert "2 judged queries (none, gone-too) have no id judged relevant and are left out of every average" in (
        found["excluded"].text
    )
    assert "1 query of the run (nobody) has no judgments at all and is left out" in found["excluded"].text
    zero = _by_key(
        _summary(queries, conventions=Conventions(no_relevant=NoRelevant.ZERO), extra_judged=[("gone", {"z": 1})])
    )["excluded"].text
    assert "1 judged query (none) has no id judged relevant and is averaged in as 0 on every retrieval metric" in zero
    assert "no entry for 1 judged query (gone): each is scored as an empty list" in found["missing"].text
    assert "1 repeated id in 1 query (q1) keeps its slot and scores nothing" in found["repeats"].text
    skipped = _by_key(
        _summary(queries, conventions=Conventions(missing=Missing.SKIP), extra_judged=[("gone", {"z": 1})])
    )
    assert "left out of every average (trec_eval without -c)" in skipped["missing"].text


def test_k_dependence_quotes_the_sweep():
    text = _by_key(_summary([("q", ["a", "x", "b"], {"a": 1, "b": 1})]))["k_dependence"].text
    assert "Recall goes from 0.500 at K = 1 to 1.000 at K = 10" in text
    assert "Precision from 1.000 to 0.200" in text


def test_long_id_lists_are_cut():
    queries = [(f"z{i}", ["x"], {"x": 0}) for i in range(8)] + CLEAN[:2]
    assert "(z0, z1, z2, z3, z4 and 3 more)" in _by_key(_summary(queries))["excluded"].text


def test_k_dependence_without_movement_quotes_no_figures():
    text = _by_key(_summary([("q", ["x", "y"], {"a": 1}), ("r", ["a"], {"a": 1})], k=1))["k_dependence"].text
    assert "here Recall goes" in text
    flat = _by_key(_summary([("q", ["a"] + [f"x{i}" for i in range(12)], {"a": 1})], k=1))
    assert "here Recall goes from 1.000 at K = 1 to 1.000" in flat["k_dependence"].text  # Precision moved
