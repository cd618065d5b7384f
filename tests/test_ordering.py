"""trec_eval's order within each query (score down, ties by id down in byte order), checked
against a plain sort of (query, -score, id) tuples."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragreport.reading import ordering
from ragreport.reading.ordering import order_in_place


def _expected(offsets, ids, scores):
    out = []
    for q in range(len(offsets) - 1):
        rows = range(offsets[q], offsets[q + 1])
        ranked = sorted(
            rows, key=lambda i: (scores[i], ids[i].encode() if isinstance(ids[i], str) else ids[i]), reverse=True
        )
        out += [ids[i] for i in ranked]
    return out


_id = st.one_of(
    st.text("ab9", min_size=1, max_size=3),
    st.text("ab9", min_size=1, max_size=3).map(lambda t: "msmarco_passage_" + t),
    st.text("xé€", min_size=1, max_size=12),
)


@pytest.mark.parametrize("block", [3, 1 << 19])
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lists=st.lists(
        st.lists(st.tuples(_id, st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0])), max_size=25), min_size=1, max_size=6
    ),
    presorted=st.booleans(),
    as_bytes=st.booleans(),
)
def test_order_matches_a_plain_sort(monkeypatch, block, lists, presorted, as_bytes):
    monkeypatch.setattr(ordering, "BLOCK_SLOTS", block)
    if presorted:  # the usual file: each list by falling score, ties in any order
        lists = [sorted(rows, key=lambda r: -r[1]) for rows in lists]
    offsets = np.concatenate(([0], np.cumsum([len(rows) for rows in lists]))).astype(np.int64)
    flat = [r for rows in lists for r in rows]
    ids = np.array([i for i, _ in flat] or [""], dtype=str)[: len(flat)]
    if as_bytes:
        ids = np.array([i.encode() for i in ids.tolist()], dtype="S") if len(flat) else np.zeros(0, "S1")
    scores = np.array([s for _, s in flat], dtype=np.float64)
    expected = _expected(offsets, ids.tolist(), scores.tolist())
    order_in_place(offsets, ids, scores)
    assert ids.tolist() == expected


def test_ties_beyond_the_first_eight_bytes_are_sorted_on_the_whole_id():
    ids = np.array([b"prefix00-a", b"prefix00-c", b"prefix00-b", b"prefix00"], dtype="S10")
    order_in_place(np.array([0, 4]), ids, np.ones(4))
    assert ids.tolist() == [b"prefix00-c", b"prefix00-b", b"prefix00-a", b"prefix00"]
