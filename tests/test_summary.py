"""summarise(): counts, statuses, the sweep grid, bands at K, fingerprints, the missing switch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import examples
from helpers import judged_run
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.analysis.summary import Status, fingerprint, summarise
from ragreport.api import score_and_summarise
from ragreport.core.errors import UsageError
from ragreport.core.model import Conventions, Missing
from ragreport.scoring.catalogue import HIT, SUITE, IntervalMethod
from ragreport.scoring.metrics import score


def _mixed():
    return judged_run(
        [
            ("full", ["a", "b"], {"a": 1}),
            ("none", ["x", "x"], {"x": 0}),
            ("miss", ["y"], {"a": 1}),
            ("unjudged", ["z"], None),
        ],
        extra_judged=[("absent", {"a": 2})],
    )


def test_counts_and_statuses():
    summary = score_and_summarise(_mixed(), 1, Conventions())
    assert summary.counts.as_dict() == {
        "queries": 5,
        "scored": 3,
        "excluded_no_relevant": 2,
        "no_relevant_as_zero": 0,
        "missing_from_run": 1,
        "unjudged_in_run": 1,
        "repeats": 1,
        "queries_with_repeats": 1,
    }
    assert summary.status == (Status.FULL, Status.EXCLUDED, Status.COMPLETE_MISS, Status.EXCLUDED, Status.MISSING)


def test_missing_zero_averages_the_absent_query_as_zero_and_skip_leaves_it_out():
    zero = score_and_summarise(_mixed(), 1, Conventions())
    skip = score_and_summarise(_mixed(), 1, Conventions(missing=Missing.SKIP))
    assert zero.at_k["P@1"].mean == pytest.approx(1 / 3)
    assert skip.at_k["P@1"].mean == pytest.approx(1 / 2)
    assert skip.counts.scored == 2 and skip.counts.missing_from_run == 1


def test_partial_and_late_hit():
    judged = judged_run([("p", ["a", "x", "b"], {"a": 1, "b": 1}), ("late", ["x", "a"], {"a": 1})])
    assert score_and_summarise(judged, 1, Conventions()).status == (Status.PARTIAL, Status.LATE_HIT)


def test_default_kmax_is_max_10_2k_and_k_above_kmax_is_refused():
    judged = judged_run([("q", ["a"], {"a": 1})])
    assert score_and_summarise(judged, 8, Conventions()).sweep.cutoffs[-1] == 16
    assert score_and_summarise(judged, 3, Conventions()).sweep.cutoffs[-1] == 10
    with pytest.raises(UsageError, match=r"^kmax \(4\) must be at least K \(5\)$"):
        score_and_summarise(judged, 5, Conventions(), kmax=4)


def test_hit_uses_wilson_and_the_rest_the_bootstrap_at_every_k():
    judged = judged_run([(f"q{i}", ["a", "b"], {"b" if i % 3 else "a": 1}) for i in range(12)])
    summary = score_and_summarise(judged, 2, Conventions())
    assert {label: iv.method for label, iv in summary.at_k.items()} == {m.label(2): m.interval for m in SUITE}
    assert HIT.interval is IntervalMethod.WILSON
    assert [m for m in SUITE if m.interval is IntervalMethod.WILSON] == [HIT]
    # Hit@1 is 4 of 12: its band is Wilson's, at K = 1 of the sweep as well.
    assert summary.sweep.low["Hit"][0] == pytest.approx(0.1381, abs=1e-4)
    assert summary.sweep.high["Hit"][0] == pytest.approx(0.6093, abs=1e-4)


def test_bands_do_not_depend_on_the_order_queries_come_in():
    queries = [(f"q{i:02d}", ["a", "b", "c"], {"abc"[i % 3]: 1, "b": i % 2}) for i in range(25)]
    forward = score_and_summarise(judged_run(queries), 2, Conventions())
    backward = score_and_summarise(judged_run(queries[::-1]), 2, Conventions())
    assert forward.at_k == backward.at_k


def test_no_scored_query_gives_nan_not_an_error():
    summary = score_and_summarise(judged_run([("q", ["a"], {"a": 0})]), 1, Conventions())
    assert summary.counts.scored == 0 and np.isnan(summary.at_k["P@1"].mean)


def test_fingerprints_follow_the_sorted_ids_and_triples():
    one = score_and_summarise(judged_run([("a", ["x"], {"x": 1}), ("b", [], {"y": 2})]), 1, Conventions())
    two = score_and_summarise(judged_run([("b", [], {"y": 2}), ("a", ["z"], {"x": 1})]), 1, Conventions())
    three = score_and_summarise(judged_run([("a", ["x"], {"x": 2}), ("b", [], {"y": 2})]), 1, Conventions())
    assert one.query_fingerprint == two.query_fingerprint == fingerprint(["a", "b"])
    assert one.label_fingerprint == two.label_fingerprint != three.label_fingerprint
    assert one.query_fingerprint.startswith("sha256:") and len(one.query_fingerprint) == 71


def test_the_label_fingerprint_is_the_sha256_of_the_sorted_lines_written_out():
    """Lines query<TAB>id<TAB>grade, sorted by code point (é, U+00E9, after z; 中, U+4E2D, after é;
    the emoji last) and joined by newlines, written out here: the digest label_fingerprint makes
    from bytes (numpy's sort of UTF-8, the lines hashed 2 at a time) is that of these lines."""
    import dataclasses
    import hashlib

    from ragreport.analysis import summary
    from ragreport.core.ids import as_bytes

    judged = judged_run(
        [("q2", ["é"], {"é": 3, "z": -1}), ("q1", [], {"中": 12, "a😀": 0, "a": 1})], extra_judged=[("q3", {"b": 2})]
    )
    lines = ["q1\ta\t1", "q1\ta😀\t0", "q1\t中\t12", "q2\tz\t-1", "q2\té\t3", "q3\tb\t2"]
    expected = "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    assert summary.fingerprint(summary.label_lines(judged)) == expected
    for chunk in (1 << 16, 2, 1):
        summary._HASHED_LINES = chunk
        try:
            assert summary.label_fingerprint(judged) == expected
            for kind in (object, np.str_, np.bytes_):
                ids = judged.judgment_doc_ids
                as_kind = np.array(as_bytes(ids).tolist(), dtype=np.bytes_) if kind is np.bytes_ else ids
                if kind is not np.bytes_:
                    as_kind = np.array([b.decode() if isinstance(b, bytes) else b for b in ids.tolist()], dtype=kind)
                other = dataclasses.replace(judged, judgment_doc_ids=as_kind, query_ids=judged.query_ids.astype(object))
                assert summary.label_fingerprint(other) == expected
        finally:
            summary._HASHED_LINES = 1 << 16
    assert score_and_summarise(judged, 1, Conventions()).label_fingerprint == expected
    nothing = judged_run([("q", ["a"], None)])
    assert summary.label_fingerprint(nothing) == summary.fingerprint([]) == "sha256:" + hashlib.sha256(b"").hexdigest()


@settings(max_examples=examples(100), deadline=None)
@given(
    st.dictionaries(
        st.text(alphabet="qé1", min_size=1, max_size=3),
        st.dictionaries(st.text(alphabet="az中😀9", min_size=1, max_size=4), st.integers(-20, 300), max_size=6),
        min_size=1,
        max_size=6,
    )
)
def test_the_label_fingerprint_is_python_s_sort_of_the_lines(labels):
    import hashlib

    from ragreport.analysis.summary import label_fingerprint

    judged = judged_run([(q, [], grades) for q, grades in labels.items()])
    lines = sorted(f"{q}\t{d}\t{g}" for q, grades in labels.items() for d, g in grades.items())
    assert label_fingerprint(judged) == "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def test_under_no_relevant_zero_the_counts_say_averaged_in_not_excluded():
    from ragreport.core.model import NoRelevant

    summary = score_and_summarise(_mixed(), 1, Conventions(no_relevant=NoRelevant.ZERO))
    assert summary.counts.scored == 4 and summary.counts.excluded_no_relevant == 1  # 'unjudged' stays out
    assert summary.counts.no_relevant_as_zero == 1
    assert summary.status[1] is Status.NO_RELEVANT


def test_summarise_bands_the_scores_it_is_given_and_refuses_a_cutoff_they_lack():
    judged = judged_run([("a", ["x", "y"], {"y": 1}), ("b", ["z"], {"z": 2})])
    scores = score(judged, [1, 2, 3], Conventions())
    summary = summarise(judged, scores, (2, 1), Conventions())
    assert summary.k == 2 and summary.cutoffs == (2, 1)
    assert summary.at_k["P@2"].mean == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert summary.at_k["Hit@1"].mean == pytest.approx(1 / 2)
    assert summary.sweep.cutoffs.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="no column"):
        summarise(judged, scores, (5,), Conventions())
    with pytest.raises(ValueError, match="without their values"):
        summarise(judged, scores, (1,), Conventions(), measures=(object(),))  # type: ignore[arg-type]


QUERY_FACTS = st.tuples(
    st.lists(st.sampled_from("abcdexyz"), min_size=1, max_size=7),  # a list, repeats allowed
    st.one_of(st.none(), st.dictionaries(st.sampled_from("abcdefg"), st.integers(0, 2), max_size=4)),
)


@settings(max_examples=examples(300), deadline=None)
@given(queries=st.lists(QUERY_FACTS, min_size=1, max_size=16), cut=st.integers(0, 16), k=st.integers(1, 4))
def test_facts_add_over_partitions_as_the_whole_runs(queries, cut, k):
    """What the counts and the limits read (docs/conventions.md section 29): two partitions'
    facts added are the whole run's, the first ids of each kind in query order; and they are the
    counts of a plain loop over the queries."""
    from ragreport.analysis.summary import EXAMPLE_IDS, query_facts, query_status

    triples = [(f"q{i:02d}", ids, grades) for i, (ids, grades) in enumerate(queries)]
    cut = min(cut, len(triples))

    def facts(part):
        judged = judged_run(part)
        scores = score(judged, [k], Conventions())
        return judged, query_facts(judged, scores, k, query_status(judged, scores, k))

    judged, whole = facts(triples)
    parts = [facts(p)[1] for p in (triples[:cut], triples[cut:]) if p]
    assert sum(parts[1:], parts[0]) == whole
    graded = [(q, ids, g or {}) for q, ids, g in triples]
    relevant = {q: sum(v >= 1 for v in g.values()) for q, _, g in graded}
    scored = [q for q, _, g in graded if relevant[q] > 0]
    no_relevant = [q for q, _, g in triples if g is not None and relevant[q] == 0]
    repeats = [q for q, ids, _ in triples if len(set(ids)) < len(ids)]
    over = [q for q in scored if relevant[q] > k]
    for kind, expected in (("no_relevant", no_relevant), ("repeats", repeats), ("over_k", over)):
        assert whole.ids[kind] == (len(expected), tuple(expected[:EXAMPLE_IDS])), kind
    filled = unjudged = 0
    for q, ids, g in graded:
        if relevant[q] > 0:
            firsts = [d for i, d in enumerate(ids[:k]) if d not in ids[:i]]
            filled += len(firsts)
            unjudged += sum(d not in g for d in firsts)
    assert whole.slots == (filled, unjudged, filled - unjudged)
    assert whole.labels == sum(len(g) for _, _, g in graded)
    assert sum(whole.statuses) == len(triples)


def test_the_label_sets_fingerprints_made_a_range_at_a_time_are_the_whole_ones(monkeypatch):
    """The label lines cut by ranges of query ids, each range sorted and hashed in turn, hash as the
    whole set sorted at once (a prefix sorts first: q1 before q10; UTF-8 ids sort by code point)."""
    from ragreport.analysis import summary
    from ragreport.core.ids import as_bytes
    from ragreport.core.model import Judgments, Run
    from ragreport.scoring.join import join
    from ragreport.scoring.partition import judgments_for

    ids = ["q1", "q10", "q2", "q100", "é1", "e1", "q1x", "z", "Q1"]
    rng = np.random.default_rng(2)
    judgments = Judgments.from_lists(
        [(q, [f"d{i}" for i in rng.choice(20, size=rng.integers(1, 6), replace=False)], []) for q in ids]
    )
    judgments = Judgments(
        judgments.query_ids, judgments.offsets, judgments.doc_ids, rng.integers(-1, 4, size=len(judgments.doc_ids))
    )
    whole = join(Run.empty(), judgments)
    expected = (summary.fingerprint(summary.judged_query_ids(whole)), summary.label_fingerprint(whole))
    every = np.sort(as_bytes(judgments.query_ids))
    for ranges in (1, 2, 3, 64):
        monkeypatch.setattr(summary, "_RANGES", ranges)
        for cut in (1, 4, 9):  # the judgments given in parts of `cut` queries, in file order
            parts = [judgments_for(judgments, ids[i : i + cut]) for i in range(0, len(ids), cut)]
            assert summary.judgments_fingerprints(parts, every) == expected
