"""trec_eval's order within each query (score down, ties by id down in byte order), and
ir_measures' order for RR@k (ties by id up), checked against a plain sort of (query, -score, id)
tuples; RR@10 under ``--order ir_measures_rr`` against ir_measures itself."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragreport.reading import ordering
from ragreport.reading.ordering import order_in_place


def _expected(offsets, ids, scores, ascending=False):
    out = []
    for q in range(len(offsets) - 1):
        rows = range(offsets[q], offsets[q + 1])
        key = [ids[i].encode() if isinstance(ids[i], str) else ids[i] for i in range(len(ids))]
        if ascending:  # ir_measures' msmarco provider: sorted(..., key=lambda x: (-x[1], x[0]))
            ranked = sorted(rows, key=lambda i: (-scores[i], key[i]))
        else:
            ranked = sorted(rows, key=lambda i: (scores[i], key[i]), reverse=True)
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
    ascending=st.booleans(),
)
def test_order_matches_a_plain_sort(monkeypatch, block, lists, presorted, as_bytes, ascending):
    monkeypatch.setattr(ordering, "BLOCK_SLOTS", block)
    if presorted:  # the usual file: each list by falling score, ties in any order
        lists = [sorted(rows, key=lambda r: -r[1]) for rows in lists]
    offsets = np.concatenate(([0], np.cumsum([len(rows) for rows in lists]))).astype(np.int64)
    flat = [r for rows in lists for r in rows]
    ids = np.array([i for i, _ in flat] or [""], dtype=str)[: len(flat)]
    if as_bytes:
        ids = np.array([i.encode() for i in ids.tolist()], dtype="S") if len(flat) else np.zeros(0, "S1")
    scores = np.array([s for _, s in flat], dtype=np.float64)
    expected = _expected(offsets, ids.tolist(), scores.tolist(), ascending)
    order_in_place(offsets, ids, scores, ascending=ascending)
    assert ids.tolist() == expected


def test_ties_beyond_the_first_eight_bytes_are_sorted_on_the_whole_id():
    ids = np.array([b"prefix00-a", b"prefix00-c", b"prefix00-b", b"prefix00"], dtype="S10")
    order_in_place(np.array([0, 4]), ids, np.ones(4))
    assert ids.tolist() == [b"prefix00-c", b"prefix00-b", b"prefix00-a", b"prefix00"]


def test_ties_beyond_the_first_eight_bytes_ascending():
    ids = np.array([b"prefix00-a", b"prefix00-c", b"prefix00-b", b"prefix00"], dtype="S10")
    order_in_place(np.array([0, 4]), ids, np.ones(4), ascending=True)
    assert ids.tolist() == [b"prefix00", b"prefix00-a", b"prefix00-b", b"prefix00-c"]


def test_rr_at_10_under_ir_measures_rr_is_ir_measures(tmp_path, monkeypatch, capsys):
    """A run where most scores tie: RR@10 per query as ir_measures computes it (its msmarco
    provider, ties by id ascending), and not under trec_eval's rule, which puts other ids first."""
    import ir_measures
    from test_trec_eval import ours

    from ragreport.core.model import Conventions, Order

    rng = np.random.default_rng(37)
    run, qrels = [], []
    for q in range(40):
        docs = [f"d{d:03d}" for d in rng.choice(200, size=30, replace=False)]
        for d, score in zip(docs, rng.integers(0, 3, size=30)):  # scores 0, 1, 2: ties everywhere
            run.append(f"q{q} Q0 {d} 0 {score} r\n")
        for d in rng.choice(docs, size=3, replace=False):
            qrels.append(f"q{q} 0 {d} {int(rng.integers(1, 3))}\n")
    (tmp_path / "run.trec").write_text("".join(run))
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    theirs = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [ir_measures.RR @ 10],
            ir_measures.read_trec_qrels(str(tmp_path / "qrels.txt")),
            ir_measures.read_trec_run(str(tmp_path / "run.trec")),
        )
    }
    at = {order: Conventions(order=order) for order in (Order.IR_MEASURES_RR, Order.SCORE)}
    got = {order: ours(tmp_path / "run.trec", tmp_path / "qrels.txt", ["RR@10"], c)["RR@10"] for order, c in at.items()}
    assert len(theirs) == 40
    for q, value in theirs.items():
        assert got[Order.IR_MEASURES_RR][q] == pytest.approx(value, abs=1e-12), q
    differs = sum(abs(got[Order.SCORE][q] - value) > 1e-12 for q, value in theirs.items())
    assert differs >= 10  # the tie rule matters on this run: trec_eval's order gives other figures
    # The same from a config file's order, through the command line's trec_eval layout.
    from ragreport.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ragreport.toml").write_text('order = "ir_measures_rr"\n')
    assert main(["score", "--qrels", "qrels.txt", "run.trec", "--metrics", "RR@10", "--format", "trec"]) == 0
    line = capsys.readouterr().out.split()
    assert float(line[line.index("all") + 1]) == pytest.approx(sum(theirs.values()) / 40, abs=5e-5)
