"""The preloaded sample: every figure of docs/conventions.md section 7, written out, through the CLI's JSON."""

from __future__ import annotations

import json

import pytest

from ragreport.cli import main
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.scoring.catalogue import SUITE


def _document(capsys, *args):
    assert main(["score", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def sample():
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(["score", "--format", "json"]) == 0
    document = json.loads(buffer.getvalue())
    return {**document["runs"][0], "queries": query_rows(document, document["runs"][0])}


def _query(run, qid):
    return next(q for q in run["queries"] if q["id"] == qid)


def test_ten_queries_q08_excluded_nine_scored(sample):
    assert sample["k"] == 5
    assert [q["id"] for q in sample["queries"]] == [f"q{i:02d}" for i in range(1, 11)]
    assert sample["counts"]["queries"] == 10
    assert sample["counts"]["scored"] == 9
    assert sample["counts"]["excluded_no_relevant"] == 1
    q08 = _query(sample, "q08")
    assert q08["scored"] is False and q08["status"] == "excluded" and q08["relevant"] == 0
    assert all(q08[label] is None for label in sample["metrics"])


def test_statuses(sample):
    status = {q["id"]: q["status"] for q in sample["queries"]}
    assert sorted(q for q, s in status.items() if s == "full") == ["q01", "q02", "q05", "q07", "q10"]
    assert sorted(q for q, s in status.items() if s == "partial") == ["q04", "q09"]
    assert status["q06"] == "complete miss"
    assert status["q03"] == "late hit"


def test_q07_both_relevant_at_ranks_1_and_2_ap_1(sample):
    q07 = _query(sample, "q07")
    assert q07["relevant"] == 2 and q07["first_relevant_rank"] == 1
    assert q07["AP@5"] == 1.0 and q07["R@5"] == 1.0


def test_q02_single_relevant_at_rank_3_ap_0_333(sample):
    q02 = _query(sample, "q02")
    assert q02["relevant"] == 1 and q02["first_relevant_rank"] == 3
    assert round(q02["AP@5"], 3) == 0.333


def test_q10_repeat_is_a_non_relevant_slot_p_0_4(sample):
    q10 = _query(sample, "q10")
    assert q10["repeats"] == 1 and q10["status"] == "full"
    assert q10["P@5"] == 0.4  # it would be 0.6 if the repeat at rank 2 scored
    assert sample["counts"]["repeats"] == 1 and sample["counts"]["queries_with_repeats"] == 1


def test_q04_finds_3_of_4_and_q09_2_of_6(sample):
    assert _query(sample, "q04")["R@5"] == 0.75
    assert round(_query(sample, "q09")["R@5"], 3) == 0.333


def test_q09_recall_by_min_denominator_is_0_400(capsys):
    made = _document(capsys, "--denominator", "min")
    run = {**made["runs"][0], "queries": query_rows(made, made["runs"][0])}
    assert round(_query(run, "q09")["R@5"], 3) == 0.400


def test_q06_complete_miss_and_q03_late_hit_at_rank_6(sample, capsys):
    q06, q03 = _query(sample, "q06"), _query(sample, "q03")
    assert q06["Hit@5"] == 0 and q06["first_relevant_rank"] is None
    assert q03["Hit@5"] == 0 and q03["first_relevant_rank"] == 6
    made = _document(capsys, "-k", "6")
    at6 = {**made["runs"][0], "queries": query_rows(made, made["runs"][0])}
    assert _query(at6, "q03")["Hit@6"] == 1


def test_recall_at_5_averages_0_676(sample):
    assert round(sample["metrics"]["R@5"]["mean"], 3) == 0.676
    assert sample["metrics"]["R@5"]["interval"] == "bootstrap"


def test_hit_at_5_is_7_of_9_with_wilson_band_0_453_to_0_937(sample):
    hit = sample["metrics"]["Hit@5"]
    assert round(hit["mean"], 3) == 0.778
    assert (round(hit["low"], 3), round(hit["high"], 3)) == (0.453, 0.937)
    assert hit["interval"] == "wilson"


def test_sweep_hit_at_10_is_0_889(sample):
    sweep = sample["sweep"]
    assert sweep["k"] == list(range(1, 11))
    assert round(sweep["Hit"]["mean"][sweep["k"].index(10)], 3) == 0.889


def test_every_mean_has_a_band_that_holds_it(sample):
    for label, entry in sample["metrics"].items():
        assert entry["low"] <= entry["mean"] + 1e-12 <= entry["high"] + 2e-12, label
    for metric in SUITE:
        assert len(sample["sweep"][metric.key]["low"]) == 10


def test_sample_metadata_is_loaded(sample):
    assert sample["name"] == "sample"
    assert sample["meta"]["label_source"] == "human"
    assert sample["meta"]["date"] == "2026-11-02"
