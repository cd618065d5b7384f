"""A result's figures as rows (ragreport/output/exports/records.py): one per run and metric, or per run,
query and metric; values checked against hand-worked figures; pandas only when asked for."""

from __future__ import annotations

import sys

import pytest

from ragreport.api import evaluate
from ragreport.output.exports.records import QUERY_COLUMNS, SUMMARY_COLUMNS, data_frame, query_records, summary_records
from ragreport.output.site.wording import exports as say
from ragreport.scoring.catalogue import SUITE

# q1: d1 relevant at rank 1; q2: d4 relevant at rank 2; q3 judged with nothing relevant (left out).
RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}
QRELS = {"q1": {"d1": 1}, "q2": {"d4": 1}, "q3": {"d9": 0}}
# Wilson at 95% for 2 successes in 2 trials: low = 1 / (1 + z^2 / n) with z = 1.959964, n = 2.
WILSON_2_OF_2 = 1 / (1 + 1.959964**2 / 2)


@pytest.fixture(scope="module")
def results():
    return evaluate({"bm25": RUN}, qrels=QRELS, k=2)


def test_one_row_per_run_and_metric_with_hand_worked_figures(results):
    rows = summary_records(results)
    assert [r["metric"] for r in rows] == [m.label(2) for m in SUITE]  # the suite, in its order
    assert all(tuple(r) == SUMMARY_COLUMNS for r in rows)
    by = {r["metric"]: r for r in rows}
    assert by["P@2"] == {
        "run": "bm25",
        "metric": "P@2",
        "mean": 0.5,
        "low": 0.5,
        "high": 0.5,
        "interval": "bootstrap",
        "n": 2,
    }
    assert by["RR@2"]["mean"] == 0.75 and 0.5 <= by["RR@2"]["low"] <= by["RR@2"]["high"] <= 1.0
    assert by["AP@2"]["mean"] == 0.75  # q1: 1, q2: (1/2) / 1
    assert by["Hit@2"]["interval"] == "wilson" and by["Hit@2"]["high"] == 1.0
    assert by["Hit@2"]["low"] == pytest.approx(WILSON_2_OF_2, abs=1e-6)
    # nDCG@2: q1 1; q2 (1 / log2 3) / 1
    assert by["nDCG@2"]["mean"] == pytest.approx((1 + 1 / 1.5849625007211562) / 2)


def test_one_row_per_run_query_and_metric_with_none_for_a_query_left_out(results):
    rows = query_records(results)
    assert all(tuple(r) == QUERY_COLUMNS for r in rows)
    assert len(rows) == 3 * len(SUITE)  # every judged or retrieved query, every metric
    cell = {(r["query"], r["metric"]): r for r in rows}
    assert [r["query"] for r in rows[: len(SUITE)]] == ["q1"] * len(SUITE)  # a query's metrics together
    assert cell["q1", "RR@2"]["value"] == 1.0 and cell["q2", "RR@2"]["value"] == 0.5
    assert cell["q2", "Hit@2"]["value"] == 1 and isinstance(cell["q2", "Hit@2"]["value"], int)
    assert cell["q3", "P@2"] == {"run": "bm25", "query": "q3", "metric": "P@2", "value": None, "status": "excluded"}
    assert cell["q2", "P@2"]["status"] == "full"


def test_several_cutoffs_and_runs_each_get_their_rows():
    results = evaluate({"a": RUN, "b": {"q1": {"d2": 1.0}, "q3": {"d9": 1.0}}}, qrels=QRELS, k=[2, 1])
    rows = summary_records(results)
    # run by run, the suite at the first cutoff, then at the second
    assert [(r["run"], r["metric"]) for r in rows][: len(SUITE) + 1] == [("a", m.label(2)) for m in SUITE] + [
        ("a", SUITE[0].label(1))
    ]
    assert len(rows) == 2 * 2 * len(SUITE)
    b = {r["metric"]: r for r in rows if r["run"] == "b"}
    assert (
        b["P@1"]["mean"] == 0.0 and b["P@1"]["n"] == 2
    )  # q2 is missing from b: scored as 0; q3 (d9, judged 0) has no relevant id


def test_a_figure_with_no_band_is_none_not_nan():
    from ragreport.scoring.measures import parse_measures

    results = evaluate({"a": RUN}, qrels=QRELS, k=2, measures=parse_measures(["NumRet"]))
    num_ret = [r for r in summary_records(results) if r["metric"] == "NumRet"]
    assert num_ret == [
        {"run": "a", "metric": "NumRet", "mean": 2.0, "low": None, "high": None, "interval": "none", "n": 2}
    ]


def test_without_pandas_to_dataframe_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed, even where it is
    with pytest.raises(ImportError) as caught:
        data_frame([], SUMMARY_COLUMNS)
    assert str(caught.value) == say.PANDAS_MISSING
    assert "pip install pandas" in str(caught.value) and "to_records()" in str(caught.value)


def test_with_pandas_a_frame_of_the_rows(results):
    pytest.importorskip("pandas")
    frame = data_frame(query_records(results), QUERY_COLUMNS)
    assert list(frame.columns) == list(QUERY_COLUMNS) and len(frame) == 3 * len(SUITE)
    assert frame[frame["metric"] == "RR@2"]["value"].mean() == 0.75  # the excluded query is NaN, skipped
