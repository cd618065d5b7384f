"""The report document (report.json and `score --format json`)."""

from __future__ import annotations

import datetime as dt
import json

from helpers import judged_run

from ragreport.analysis.limits import limits
from ragreport.analysis.result import Analysis
from ragreport.api import score_and_summarise
from ragreport.core.model import SCHEMA, Conventions
from ragreport.output.document import report_document
from ragreport.reading.compact import query_rows

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
