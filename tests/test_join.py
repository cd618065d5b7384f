"""join(): grades, judged and repeat flags per slot; the query universe and its order."""

from __future__ import annotations

from helpers import judged_run


def test_slots_get_grades_judged_and_repeat_flags():
    judged = judged_run([("q", ["a", "x", "a", "b"], {"a": 2, "b": 0, "c": 1})])
    assert judged.grades.tolist() == [2, 0, 2, 0]
    assert judged.judged.tolist() == [True, False, True, True]
    assert judged.repeat.tolist() == [False, False, True, False]
    assert judged.relevant.tolist() == [2]
    assert judged.ideal_grades.tolist() == [2, 1]


def test_query_universe_is_run_order_then_judged_only_queries():
    judged = judged_run([("r2", ["a"], {"a": 1}), ("r1", ["b"], None)], extra_judged=[("j", {"z": 1})])
    assert list(judged.query_ids) == ["r2", "r1", "j"]
    assert judged.in_run.tolist() == [True, True, False]
    assert judged.has_judgments.tolist() == [True, False, True]
    assert judged.lengths.tolist() == [1, 1, 0]
    assert judged.relevant.tolist() == [1, 0, 1]


def test_the_same_id_in_two_queries_is_not_a_repeat_and_grades_do_not_leak():
    judged = judged_run([("q1", ["a"], {"a": 1}), ("q2", ["a"], {"b": 1})])
    assert judged.repeat.tolist() == [False, False]
    assert judged.grades.tolist() == [1, 0] and judged.judged.tolist() == [True, False]


def test_empty_run_lists_and_empty_judgments():
    judged = judged_run([("q", [], {})])
    assert judged.n_queries == 1 and len(judged.doc_ids) == 0 and judged.relevant.tolist() == [0]
