"""join(): grades, judged and repeat flags per slot; the query universe and its order."""

from __future__ import annotations

import numpy as np
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


def test_hash_collisions_never_pass_for_a_match(monkeypatch):
    """With a hash that gives every id of a query the same value, the ids decide: same result."""
    queries = [("q1", ["a", "b", "a", "c"], {"b": 2, "c": 0, "z": 1}), ("q2", ["b", "x"], {"x": 1})]
    honest = judged_run(queries)
    import ragreport.scoring.join as join_module

    monkeypatch.setattr(
        join_module, "hash_ids", lambda ids, query=None: np.zeros(len(ids), np.uint64) + np.asarray(query, np.uint64)
    )
    weak = judged_run(queries)
    for field in ("grades", "judged", "repeat", "relevant", "first_relevant", "repeats", "relevant_retrieved"):
        assert getattr(weak, field).tolist() == getattr(honest, field).tolist(), field
    assert honest.grades.tolist() == [0, 2, 0, 0, 0, 1] and honest.repeat.tolist() == [
        False,
        False,
        True,
        False,
        False,
        False,
    ]


def test_head_keeps_the_top_and_the_whole_list_facts():
    judged = judged_run([("q1", ["a", "b", "a", "c"], {"c": 1}), ("q2", ["x"], {"x": 1})])
    top = judged.head(2)
    assert top.lengths.tolist() == [2, 1] and top.doc_ids.tolist() == ["a", "b", "x"]
    assert top.retrieved.tolist() == [4, 1] and top.repeats.tolist() == [1, 0]
    assert top.first_relevant.tolist() == [4, 1] and top.relevant_retrieved.tolist() == [1, 1]


def test_grades_near_the_ends_of_64_bits_stay_exact_integers():
    # numpy would promote uint64 (2^62 and up) with int8 to float64, where 2^62 and 2^62 - 1 are one value.
    top = (1 << 63) - 1
    judged = judged_run([("q", ["a", "b", "c"], {"a": top, "b": top - 1, "c": -(1 << 63)})])
    assert judged.grades.dtype == np.int64
    assert judged.grades.tolist() == [top, top - 1, -(1 << 63)]


def test_grades_take_the_narrowest_type_that_holds_them():
    # One byte a slot for a usual scale (-1 to 3); wider only when a grade needs it, every grade exact.
    usual = judged_run([("q", ["a", "b", "c", "z"], {"a": 3, "b": 0, "c": -1})])
    assert usual.grades.dtype == np.int8 and usual.grades.tolist() == [3, 0, -1, 0]
    edges = {127: np.int8, -128: np.int8, 128: np.int16, -129: np.int16, 40_000: np.int32, -(1 << 31) - 1: np.int64}
    for grade, kind in edges.items():
        judged = judged_run([("q", ["a", "b"], {"a": grade, "b": 1})])
        assert judged.grades.dtype == kind and judged.grades.tolist() == [grade, 1]


def test_repeats_are_found_by_a_search_a_block_at_a_time(monkeypatch):
    # Blocks of 3 keys over lists with many repeats (more than np.isin's few dozen): the same
    # flags as a plain per-list walk, every later occurrence of an id marked, the first never.
    from ragreport.scoring import join as join_module

    monkeypatch.setattr(join_module, "_LOOKUP_BLOCK", 3)
    rng = np.random.default_rng(5)
    lists = [(f"q{i}", [f"d{d}" for d in rng.integers(0, 6, size=int(rng.integers(0, 12)))], {}) for i in range(40)]
    judged = judged_run(lists)
    expected = []
    for _, ids, _ in lists:
        seen: set[str] = set()
        for doc in ids:
            expected.append(doc in seen)
            seen.add(doc)
    assert judged.repeat.tolist() == expected and sum(expected) > 60


def test_lookup_finds_keys_in_deep_buckets_in_slot_order(monkeypatch):
    # Keys that differ only above the bucket bits share buckets (several keys deep); with small
    # blocks the hits of each block are put in slot order there. Checked against a dict.
    import ragreport.scoring.join as join_module

    monkeypatch.setattr(join_module, "_LOOKUP_BLOCK", 7)
    rng = np.random.default_rng(3)
    j_keys = np.unique(rng.integers(0, 6, 40).astype(np.uint64) + (rng.integers(0, 50, 40).astype(np.uint64) << 40))
    slot_keys = np.concatenate([j_keys[rng.integers(0, len(j_keys), 60)], np.arange(9, 30, dtype=np.uint64) << 40])
    rng.shuffle(slot_keys)
    hit, match = join_module._lookup(slot_keys, j_keys)
    where = {int(k): i for i, k in enumerate(j_keys.tolist())}
    expected = [(s, where[int(k)]) for s, k in enumerate(slot_keys.tolist()) if int(k) in where]
    assert list(zip(hit.tolist(), match.tolist())) == expected
    assert len(expected) >= 60


def test_judgments_in_the_runs_order_or_not_join_alike():
    # Judgments listing the run's first queries in its order take the short way; the same labels
    # in another order the dict's: every slot and every query gets the same.
    rows = [("q1", ["a", "b"], {"b": 1}), ("q2", ["c", "a"], {"a": 2, "c": 0}), ("q3", ["d"], None)]
    same_order = judged_run(rows)
    from ragreport.core.model import Judgments, Run
    from ragreport.scoring.join import join

    run = Run.from_lists("t", [(q, r) for q, r, _ in rows])
    reversed_labels = Judgments.from_lists([("q2", ["a", "c"], [2, 0]), ("q1", ["b"], [1])])
    other_order = join(run, reversed_labels)
    assert same_order.query_ids.tolist() == other_order.query_ids.tolist() == ["q1", "q2", "q3"]
    assert same_order.grades.tolist() == other_order.grades.tolist() == [0, 1, 0, 2, 0]
    assert same_order.judged.tolist() == other_order.judged.tolist() == [False, True, True, True, False]
    assert same_order.relevant.tolist() == other_order.relevant.tolist() == [1, 1, 0]
    assert same_order.has_judgments.tolist() == other_order.has_judgments.tolist() == [True, True, False]
