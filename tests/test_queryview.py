"""The query view's data (ragreport/output/queryview.py) on runs written out by hand."""

from __future__ import annotations

import json

import pytest

from ragreport.api import analyse, evaluate
from ragreport.output.queryview import query_view_data, text_table
from ragreport.output.wording.numbers import SNIPPET_CHARS, snippet

QRELS = {"q1": {"a": 2, "b": 0, "z": 1}, "q2": {"c": 1}}
BASE = {"q1": {"x": 3.0, "a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
CAND = {"q1": {"a": 3.0, "b": 2.0, "y": 1.0}}  # q2 missing from the candidate


def decoded(data):
    """The query view's data as the page's script reads it (its JSON, decoded)."""
    return json.loads(json.dumps(data))


@pytest.fixture
def data():
    report = analyse(evaluate({"base": BASE, "cand": CAND}, qrels=QRELS, k=3), baseline="base", permutations=100)
    return decoded(query_view_data(report, {"a": ("Title A", "text of a")}))


def test_every_query_with_each_runs_top_k_as_the_run_files_rank_it(data):
    assert data["runs"] == ["base", "cand"] and data["baseline"] == "base" and data["k"] == 3
    docs = data["docs"]
    q1, q2 = data["queries"]
    assert (q1["id"], q2["id"]) == ("q1", "q2")
    assert [[docs[i] for i in top] for top in q1["tops"]] == [["x", "a", "b"], ["a", "b", "y"]]
    assert [docs[i] for i in q2["tops"][0]] == ["c"] and q2["tops"][1] is None  # not in the candidate


def test_judgments_of_the_shown_ids_and_the_relevant_ones_no_run_shows(data):
    docs = data["docs"]
    q1 = data["queries"][0]
    assert sorted((docs[i], g) for i, g in q1["judged"]) == [("a", 2), ("b", 0)]
    assert q1["relevant"] == 2 and q1["unshown"] == ["z"] and q1["unshown_count"] == 1


def test_each_runs_figures_per_query(data):
    q1 = data["queries"][0]
    at = data["metrics"].index("P@3")
    assert q1["values"][0][at] == pytest.approx(1 / 3) and q1["values"][1][at] == pytest.approx(1 / 3)
    rr = data["metrics"].index("RR@3")
    assert q1["values"][0][rr] == pytest.approx(0.5) and q1["values"][1][rr] == pytest.approx(1.0)


def test_text_only_where_given_and_for_the_chosen_queries(data):
    assert "texts" not in data and data["with_texts"] is True  # the text is the report's one table
    assert [q["with_text"] for q in data["queries"]] == [False, False]  # no --corpus: no query chosen


def test_the_text_table_holds_each_text_once_with_where_its_snippet_ends():
    # 60 words of 4 letters and a space: 300 characters; the snippet (240) ends at the last space
    # between 200 and 240, the one at 239, and keeps the 239 characters before it.
    long = " ".join(["word"] * 60)
    table = text_table({"b": ("", long), "a": ("Title A", "text of a")})
    assert table == {
        "ids": ["a", "b"],
        "titles": ["Title A", ""],
        "texts": ["text of a", long],
        "snippet": [None, 239],
    }
    assert long[:239] + "…" == snippet(long, SNIPPET_CHARS)  # the script's cut is the report's
    huge = "x " * 3000  # 6,000 characters: a page keeps what it shows on demand, 4,000 and an ellipsis
    assert len(text_table({"h": ("", huge)})["texts"][0]) == 3_999 + 1
    assert text_table({}) is None and text_table(None) is None


def test_each_query_carries_its_metadata_as_the_slices_read_it():
    report = analyse(
        evaluate({"base": BASE, "cand": CAND}, qrels=QRELS, k=3),
        baseline="base",
        permutations=100,
        query_meta={"q1": {"topic": "billing"}, "q2": {"topic": "refunds"}},
        slice_by=["topic"],
    )
    data = decoded(query_view_data(report))
    assert [q["meta"] for q in data["queries"]] == [[["topic", "billing"]], [["topic", "refunds"]]]
    plain = decoded(query_view_data(analyse(evaluate({"base": BASE}, qrels=QRELS, k=3))))
    assert [q.get("meta") for q in plain["queries"]] == [None, None] and "meta" not in plain["queries"][0]
