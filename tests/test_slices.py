"""Slices by per-query metadata (ragreport/analysis/slices.py), on runs whose figures are worked by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.analysis.compare import Correction, Family, compare
from ragreport.analysis.slices import slice_groups, slice_keys, slices
from ragreport.api import evaluate
from ragreport.core.errors import UsageError
from ragreport.core.ids import as_bytes
from ragreport.reading.querymeta import read_query_meta
from ragreport.scoring.catalogue import PRECISION, Measure

P1, HIT1 = Measure("P", 1), Measure("Hit", 1)
Z = 1.959963984540054  # the 97.5th percentile of the standard normal


def topic(q: int) -> str:
    return "billing" if q < 5 else "shipping"


def runs_and_meta():
    """15 queries, one relevant id each. The baseline finds it on top for the 5 billing queries and
    misses it on the 10 shipping ones; the candidate does the opposite: +1/3 P@1 overall, -1 on
    billing, +1 on shipping."""
    qrels = {f"q{q}": {f"d{q}": 1} for q in range(15)}
    top, miss = {}, {}
    for q in range(15):
        top[f"q{q}"] = {f"d{q}": 2.0, f"x{q}": 1.0}
        miss[f"q{q}"] = {f"x{q}": 2.0, f"d{q}": 1.0}
    base = {q: (top if topic(int(q[1:])) == "billing" else miss)[q] for q in qrels}
    cand = {q: (miss if topic(int(q[1:])) == "billing" else top)[q] for q in qrels}
    summaries = evaluate({"base": base, "cand": cand}, qrels=qrels, k=1)
    meta = {f"q{q}": {"topic": topic(q), "length": q % 3, "lang": "en"} for q in range(15)}
    return summaries, meta


def test_default_keys_are_strings_with_two_to_fifty_values():
    _, meta = runs_and_meta()
    assert slice_keys(meta) == ("topic",)  # length is a number, lang has one value
    assert slice_keys(meta, ["length", "topic"]) == ("length", "topic")
    assert slice_keys({"q1": {"id": "v1"}}) == ()  # one value
    many = {f"q{i}": {"kind": f"v{i}"} for i in range(51)}
    assert slice_keys(many) == ()  # 51 values: too many to slice by default
    with pytest.raises(UsageError, match="^slice_by 'tpoic' is not a key of any query's metadata"):
        slice_keys(meta, ["tpoic"])


def test_each_slice_gives_each_runs_mean_with_its_band():
    summaries, meta = runs_and_meta()
    report = slices(summaries, meta, ["topic"], [P1, HIT1], P1)
    billing, shipping = report.slices
    assert (billing.key, billing.value, billing.queries, shipping.value, shipping.queries) == (
        "topic",
        "billing",
        5,
        "shipping",
        10,
    )
    assert billing.small and shipping.small  # under 30 queries
    base = billing.runs["base"]["P@1"]
    assert (base.mean, base.low, base.high, base.queries) == (1.0, 1.0, 1.0, 5)  # every resample is all 1s
    assert shipping.runs["base"]["P@1"].mean == 0.0 and shipping.runs["cand"]["P@1"].mean == 1.0
    # Hit@1 takes Wilson's band: 5 of 5 gives (1 / (1 + z^2 / 5)) to 1
    hit = billing.runs["base"]["Hit@1"]
    assert hit.low == pytest.approx(1 / (1 + Z**2 / 5)) and hit.high == pytest.approx(1.0)
    assert billing.comparisons == ()  # no comparison given: figures only
    # one run: the first run's lowest primary scores (all 1 on billing for the baseline: ties by id)
    assert billing.examples == ("q0", "q1", "q2") and shipping.examples == ("q10", "q11", "q12")


def test_a_slice_that_goes_against_the_overall_difference_is_found():
    summaries, meta = runs_and_meta()
    family = Family((P1,), PRECISION)
    comparison = compare(summaries, family=family, permutations=10_000)
    overall = comparison.comparisons[0]
    assert overall.delta == pytest.approx(1 / 3)  # 10 gained, 5 lost, of 15
    report = slices(summaries, meta, ["topic"], [P1], P1, comparison, Correction.HOLM, 10_000)
    (billing_c,), (shipping_c,) = (s.comparisons for s in report.slices)
    # every billing query loses 1: the band is [-1, -1]; the exact sign-flip p over 5 queries is
    # 2 / 2^5 = 0.0625; shipping gains 1 on 10 queries, p = 2 / 2^10. Holm over the two:
    # 2 x 2/1024 = 0.00390625 for shipping, max(0.00390625, 0.0625) = 0.0625 for billing.
    assert (billing_c.delta, billing_c.low, billing_c.high, billing_c.queries) == (-1.0, -1.0, -1.0, 5)
    assert billing_c.p == pytest.approx(0.0625) and billing_c.p_adjusted == pytest.approx(0.0625)
    assert shipping_c.p == pytest.approx(2 / 1024) and shipping_c.p_adjusted == pytest.approx(4 / 1024)
    assert billing_c.verdict == "band below 0" and shipping_c.verdict == "better"
    # each slice's queries to open first: its largest differences (ties by id)
    assert [s.examples for s in report.slices] == [("q0", "q1", "q2"), ("q10", "q11", "q12")]
    (found,) = report.opposite
    assert (found.slice.value, found.comparison.run, found.overall) == ("billing", "cand", pytest.approx(1 / 3))


def test_queries_without_the_key_are_in_no_slice_and_unjudged_ones_are_not_counted():
    summaries, meta = runs_and_meta()
    partial = {q: fields for q, fields in meta.items() if q not in ("q0", "q1")}
    partial["q-unjudged"] = {"topic": "billing"}
    (billing, _) = slices(summaries, partial, ["topic"], [P1], P1).slices
    assert billing.queries == 3 and billing.runs["base"]["P@1"].queries == 3


def test_numbers_and_booleans_name_slices_when_asked():
    summaries, meta = runs_and_meta()
    report = slices(summaries, meta, ["length"], [P1], P1)
    assert [(s.value, s.queries) for s in report.slices] == [("0", 5), ("1", 5), ("2", 5)]
    lengths = {s.value: s.runs["cand"]["P@1"].mean for s in report.slices}
    # q0..q14 by q % 3: each length holds queries of both topics
    expected = {str(r): np.mean([0.0 if q < 5 else 1.0 for q in range(15) if q % 3 == r]) for r in range(3)}
    assert lengths == pytest.approx(expected)
    assert not any(math.isnan(v) for v in lengths.values())


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(
            st.characters(min_codepoint=48, max_codepoint=0x4E00, exclude_categories=("Cs",)), min_size=1, max_size=4
        ),
        st.dictionaries(
            st.sampled_from(["topic", "lang", "n"]),
            st.one_of(st.sampled_from(["a", "b", "1", "é"]), st.integers(0, 2), st.booleans(), st.just(1.0)),
        ),
        max_size=30,
    ),
    st.data(),
)
def test_metadata_by_column_slices_as_the_mapping_does(tmp_path_factory, meta, data):
    """The file read by column gives the keys and the slices its mapping of mappings gives: ids
    sorted as text, 1 and "1" one slice, a query without the key in none of its slices."""
    meta = {q.strip(): fields for q, fields in meta.items() if q.strip()}
    path = tmp_path_factory.mktemp("meta") / "meta.jsonl"
    path.write_text("".join(json.dumps({"qid": q, **fields}) + "\n" for q, fields in meta.items()), encoding="utf-8")
    table = read_query_meta(path)
    assert dict(table.items()) == meta
    judged = np.unique(as_bytes(np.array(data.draw(st.lists(st.sampled_from(sorted(meta) or ["x"]))) or ["x"])))
    keys = ("topic", "lang", "n")
    assert slice_groups(table, keys, judged) == slice_groups(meta, keys, judged)
    assert slice_keys(table) == slice_keys(meta)
