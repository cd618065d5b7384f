"""scoring/readings.py: the unjudged ids read as relevant, checked against a plain per-query
reading of the same lists (docs/conventions.md section 20.2)."""

from __future__ import annotations

import numpy as np
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.core.model import Judgments, Run
from ragreport.scoring.join import join
from ragreport.scoring.readings import _with_level_grades, unjudged_as_relevant

QUERY = st.tuples(
    st.lists(st.integers(1, 4), max_size=6),  # a query's positive grades
    st.integers(0, 5),  # the grades of ``level`` it gains
)


@settings(max_examples=examples(500), deadline=None)
@given(queries=st.lists(QUERY, max_size=8), level=st.integers(1, 4))
def test_the_level_grades_go_in_each_ideal_list_in_order(queries, level):
    grades = [sorted(g, reverse=True) for g, _ in queries]
    extra = np.array([e for _, e in queries], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(g) for g in grades])]).astype(np.int64)
    flat = np.array([v for g in grades for v in g], dtype=np.int64)
    new_offsets, out = _with_level_grades(offsets, flat, extra, level)
    expected = [sorted(g + [level] * e, reverse=True) for g, (_, e) in zip(grades, queries)]
    assert np.diff(new_offsets).tolist() == [len(e) for e in expected]
    assert out.tolist() == [v for e in expected for v in e]


LIST = st.lists(st.sampled_from(["a", "b", "c", "d", "u1", "u2", "u3"]), max_size=8)


@settings(max_examples=examples(500), deadline=None)
@given(lists=st.lists(LIST, min_size=1, max_size=5), level=st.integers(1, 2), k=st.integers(1, 6))
def test_read_as_relevant_matches_a_plain_reading_of_each_list(lists, level, k):
    """a, b, c, d judged (grades 2, 1, 0, 1), u1-u3 never: in each top k the first occurrence of an
    unjudged id becomes relevant at the level; R grows by them; the first relevant rank is the
    first slot relevant at the level that is not a repeat."""
    judged_grades = {"a": 2, "b": 1, "c": 0, "d": 1}
    queries = [f"q{i}" for i in range(len(lists))]
    run = Run.from_lists("r", [(q, ids) for q, ids in zip(queries, lists)])
    judgments = Judgments.from_lists([(q, list(judged_grades), list(judged_grades.values())) for q in queries])
    read = unjudged_as_relevant(join(run, judgments, level), k)
    for i, ids in enumerate(lists):
        top, seen, fresh, first = ids[:k], set(), 0, 0
        for rank, d in enumerate(top, 1):
            repeat = d in seen
            seen.add(d)
            relevant = (d not in judged_grades and not repeat) or (
                d in judged_grades and not repeat and judged_grades[d] >= level
            )
            fresh += d not in judged_grades and not repeat
            if relevant and not first:
                first = rank
        r = sum(g >= level for g in judged_grades.values())
        assert int(read.relevant[i]) == r + fresh
        assert int(read.first_relevant[i]) == first
        ideal = read.ideal_grades[read.ideal_offsets[i] : read.ideal_offsets[i + 1]].tolist()
        assert ideal == sorted([g for g in judged_grades.values() if g > 0] + [level] * fresh, reverse=True)


def _pooled_run(queries: int, depth: int, seed: int, parts=(slice(None),)):
    """Lists of ``depth`` ids from a pool of 300, 40 of them judged per query (grades 0 to 2), a
    repeat here and there: unjudged ids at many ranks. Joined once per slice of ``parts``."""
    rng = np.random.default_rng(seed)
    lists, labels = [], []
    for q in range(queries):
        ids = [f"d{i}" for i in rng.choice(300, size=depth, replace=False)]
        if q % 5 == 0:
            ids[depth // 2] = ids[1]
        lists.append((f"q{q}", ids))
        judged = rng.choice(300, size=40, replace=False)
        labels.append((f"q{q}", [f"d{i}" for i in judged], rng.integers(0, 3, size=40).tolist()))
    return [join(Run.from_lists("r", lists[at]), Judgments.from_lists(labels[at])) for at in parts]


def test_the_rate_reading_from_packed_ranks_and_summed_counts_is_the_whole_runs():
    """What the partitioned engines do (docs/conventions.md section 29): each partition packs its
    queries' unjudged ranks and counts its judged and relevant ids by rank; the counts add up to
    the whole run's, and the rate reading made of the packed ranks with the summed rates is
    :func:`at_rate`'s, past the 52 ranks one word holds."""
    from ragreport.core.model import Conventions
    from ragreport.scoring.readings import (
        at_rate,
        rank_counts,
        rank_rates,
        rate_weights,
        rates_of,
        score_readings,
        unjudged_ranks,
    )

    judged, *halves = _pooled_run(30, 120, 4, (slice(None), slice(0, 13), slice(13, None)))
    cutoffs = [110, 5, 53, 52]
    depth = max(cutoffs)
    counts = rank_counts(halves[0], depth) + rank_counts(halves[1], depth)
    assert np.array_equal(counts, rank_counts(judged, depth))
    assert np.array_equal(rates_of(counts), rank_rates(judged, depth))
    assert counts[0, 60] > 0 and rates_of(counts)[60] > 0  # ranks past the first word read

    packed = unjudged_ranks(judged, depth)
    assert packed.shape == (30, 3) and np.all(packed == np.rint(packed))
    read = score_readings(judged, cutoffs, Conventions())
    default = read["unjudged_at_rate"] - read["unjudged_at_rate"]  # a zero array of the right shape
    bound = np.ones_like(default)
    expected = at_rate(judged, cutoffs, default, bound)[0]  # 0 + w (1 - 0): the weights themselves
    weights = rate_weights(packed, rates_of(counts), cutoffs)
    np.testing.assert_allclose(weights, expected, rtol=0, atol=1e-15)
    assert (weights[:, 0] != weights[:, 3]).any()  # the ranks of the second word count at 110
