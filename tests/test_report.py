"""The report document (report.json and `score --format json`)."""

from __future__ import annotations

import datetime as dt
import json

from helpers import judged_run

from ragreport.analysis.limits import limits
from ragreport.analysis.pipeline import Analysis
from ragreport.api import score_and_summarise
from ragreport.core.model import SCHEMA, Conventions
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.output.exports.reportjson.write import report_document

DAY = dt.date(2026, 1, 1)


def _summary():
    return score_and_summarise(judged_run([("a", ["x", "y"], {"x": 1}), ("b", ["y"], {"y": 0})]), 2, Conventions())


def _analysis(*summaries):
    return Analysis(summaries, tuple(limits(s, DAY) for s in summaries), DAY)


def test_excluded_queries_have_null_metrics_and_the_document_is_strict_json():
    doc = report_document(_analysis(_summary()))
    assert doc["schema"] == SCHEMA and doc["date"] == "2026-01-01"
    run = doc["runs"][0]
    a, b = query_rows(doc, run)
    assert a["scored"] is True and a["P@2"] == 0.5 and a["Hit@2"] == 1 and a["first_relevant_rank"] == 1
    assert b["scored"] is False and b["status"] == "excluded" and all(b[m] is None for m in run["metrics"])
    json.dumps(doc, allow_nan=False)  # no NaN anywhere


def test_metric_entries_name_their_trec_eval_twin_and_convention():
    metrics = report_document(_analysis(_summary()))["runs"][0]["metrics"]
    assert metrics["nDCG@2"]["trec_eval"] == "ndcg_cut_2" and metrics["CP@2"]["trec_eval"] is None
    assert metrics["Hit@2"]["interval"] == "wilson" and "success_2" in metrics["Hit@2"]["convention"]


def test_top_level_fingerprints_comparisons_and_drift_keys():
    doc = report_document(_analysis(_summary()))
    assert set(doc["fingerprints"]) == {"queries", "labels"}
    assert doc["fingerprints"]["queries"] == doc["runs"][0]["fingerprints"]["queries"]
    assert doc["comparisons"] == [] and doc["comparison"] is None and doc["drift"] is None


def test_the_report_s_label_set_is_the_union_of_its_runs_each_counted_once():
    """Two runs judged by one qrels file (two readings of it: equal arrays, not the same object)
    and a third with other labels: the union by hand, and the fingerprints of its sorted lines."""
    import hashlib

    from ragreport.analysis.summary import distinct_label_sets, report_fingerprints, report_judgments

    shared = [("q1", ["a", "b"], {"a": 1, "b": 0}), ("q2", ["c"], {"c": 2})]
    first = score_and_summarise(judged_run(shared, name="one"), 2, Conventions())
    second = score_and_summarise(judged_run(shared, name="two"), 2, Conventions())
    other = score_and_summarise(judged_run([("q1", ["a"], {"a": 0, "d": 1})], name="three"), 2, Conventions())
    assert first.judged is not second.judged
    assert distinct_label_sets([first, second, other]) == [first, other]
    assert report_judgments([first, second, other]) == {"q1": {"a": 0, "b": 0, "d": 1}, "q2": {"c": 2}}
    lines = sorted({"q1\ta\t1", "q1\tb\t0", "q2\tc\t2", "q1\ta\t0", "q1\td\t1"})
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    assert report_fingerprints([first, second, other])["labels"] == f"sha256:{digest}"
    assert report_fingerprints([first, second]) == report_fingerprints([first])
