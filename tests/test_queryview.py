"""The query view's data (ragreport/output/site/queryview.py) on runs written out by hand."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from conftest import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ragreport.analysis.compare import family_values
from ragreport.api import analyse, evaluate
from ragreport.core.errors import RagreportError
from ragreport.core.ids import as_text
from ragreport.output.site.queryview import query_view_data, text_table
from ragreport.output.site.view.cells import rounded
from ragreport.output.site.wording import report as say
from ragreport.output.site.wording.numbers import SNIPPET_CHARS, snippet
from ragreport.scoring.catalogue import COMPARED, Measure

QRELS = {"q1": {"a": 2, "b": 0, "z": 1}, "q2": {"c": 1}}
BASE = {"q1": {"x": 3.0, "a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
CAND = {"q1": {"a": 3.0, "b": 2.0, "y": 1.0}}  # q2 missing from the candidate


def decoded(data):
    """The query view's data as the page's script reads it (its JSON, decoded), each query made one
    object again from the columns (as the script's ``query(i)`` does)."""
    data = json.loads(json.dumps(data))
    columns = data["queries"]
    chosen = set(columns["with_text"])
    data["queries"] = [
        {
            **{key: columns[key][i] for key in ("id", "text", "judged", "relevant", "unshown", "unshown_count")},
            "tops": [top[i] for top in columns["tops"]],
            "values": [values[i] for values in columns["values"]],
            "with_text": i in chosen,
            **({"meta": columns["meta"][i]} if "meta" in columns and columns["meta"][i] is not None else {}),
        }
        for i in range(len(columns["id"]))
    ]
    return data


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


UNSHOWN_RELEVANT = 20


def plain_query_view(analysis, texts=None):
    """The query view written the plain way: a dict per query, one id at a time."""
    summaries = analysis.summaries
    k = summaries[0].k
    comparison = analysis.comparison
    measures = list(comparison.family) if comparison is not None else [Measure(m.key, k) for m in COMPARED]
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    position = {q: i for i, q in enumerate(every)}
    n = len(every)
    numbers: dict[str, int] = {}
    tops: list[list[list[int] | None]] = []
    values: list[list[list[float] | None]] = []
    query_text: list[str | None] = [None] * n
    grades: list[dict[str, int]] = [{} for _ in range(n)]
    seen_labels: list[tuple[np.ndarray, ...]] = []
    for summary in summaries:
        judged = summary.judged
        places = np.array([position[q] for q in judged.query_ids.tolist()], dtype=np.int64)
        shown = as_text(judged.doc_ids[judged.top_slots(k, judged.in_run)])
        top: list[list[int] | None] = [None] * n
        at = 0
        for place, listed, length in zip(places.tolist(), judged.in_run.tolist(), judged.lengths.tolist()):
            if listed:
                count = min(length, k)
                top[place] = [numbers.setdefault(d, len(numbers)) for d in shown[at : at + count]]
                at += count
        tops.append(top)
        rows = np.flatnonzero(summary.scores.scored)
        figures: list[list[float] | None] = [None] * n
        for place, row in zip(places[rows].tolist(), rounded(family_values(summary, rows, measures))):
            figures[place] = row
        values.append(figures)
        for place, text in zip(places.tolist(), judged.query_text):
            if text and query_text[place] is None:
                query_text[place] = text
        # Runs judged by one label set hold the same judgments: read once.
        labels = (judged.judgment_query, judged.judgment_grades, judged.judgment_doc_ids)
        if any(all(np.array_equal(a, b) for a, b in zip(labels, seen)) for seen in seen_labels):
            continue
        seen_labels.append(labels)
        ids = as_text(judged.judgment_doc_ids)
        for place, doc, grade in zip(places[judged.judgment_query].tolist(), ids, judged.judgment_grades.tolist()):
            grades[place].setdefault(doc, grade)

    level = summaries[0].judged.level
    chosen = set(analysis.text_queries)
    meta = analysis.query_meta or {}
    items = []
    for place, query in enumerate(every):
        shown_here = {d for top in tops for d in top[place] or ()}
        judged_here = sorted((numbers[d], g) for d, g in grades[place].items() if numbers.get(d) in shown_here)
        unshown = sorted(d for d, g in grades[place].items() if g >= level and numbers.get(d) not in shown_here)
        item: dict[str, Any] = {
            "id": query,
            "text": query_text[place],
            "judged": [list(pair) for pair in judged_here],
            "relevant": sum(g >= level for g in grades[place].values()),
            "unshown": unshown[:UNSHOWN_RELEVANT],
            "unshown_count": len(unshown),
            "tops": [top[place] for top in tops],
            "values": [figures[place] for figures in values],
            "with_text": query in chosen,
        }
        if meta.get(query):  # only where there is some: a report may hold 100,000 queries
            item["meta"] = [[key, value] for key, value in meta[query].items()]
        items.append(item)
    return {
        "k": k,
        "level": level,
        "runs": [s.name for s in summaries],
        "baseline": comparison.baseline if comparison is not None else None,
        "primary": analysis.primary_label,
        "metrics": [m.label() for m in measures],
        "docs": list(numbers),
        "with_texts": bool(texts),
        "marks": list(say.MARKS),
        "words": say.QUERY_VIEW_WORDS,
        "queries": items,
    }


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_the_query_view_is_the_plain_one_written_a_query_at_a_time(data):
    """The query view's arrays (numbering by first appearance, judgments by sorts) give what a
    plain loop over queries and ids gives, on runs of up to 12 queries (so that "q10" sorts
    before "q2"), shared and unshown ids, several grades for one id and queries only one run lists."""
    ids = st.sampled_from([f"d{i}" for i in range(8)] + ["é", "Z"])
    queries = st.sampled_from([f"q{i}" for i in range(12)])
    run = st.dictionaries(
        queries, st.dictionaries(ids, st.floats(0, 1), min_size=1, max_size=6), min_size=1, max_size=8
    )
    qrels = data.draw(st.dictionaries(queries, st.dictionaries(ids, st.integers(0, 3), max_size=6), min_size=1))
    runs = {"base": data.draw(run), "cand": data.draw(run)}
    k = data.draw(st.integers(1, 4))
    try:
        report = analyse(evaluate(runs, qrels=qrels, k=k), baseline="base", permutations=50)
    except RagreportError:  # runs and judgments that never meet are refused, as they should be
        assume(False)
    assert decoded(query_view_data(report)) == json.loads(json.dumps(plain_query_view(report)))
