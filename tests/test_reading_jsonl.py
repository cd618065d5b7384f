"""reading.jsonl: RAG JSONL and RAGAS rows, their judgments on the line or from --qrels, their errors."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import grades_of, lists_of, load_error

from ragreport.core.errors import InputError, RagreportWarning
from ragreport.core.model import Order
from ragreport.reading.registry import load_runs


def test_jsonl_with_every_id_key_graded_and_plain_relevant(write):
    path = write(
        "run.jsonl",
        "\n".join(
            [
                json.dumps({"id": "a", "retrieved": ["d1", "d2"], "relevant": ["d2"], "query": "what?"}),
                json.dumps({"query_id": "b", "retrieved": ["d3"], "relevant": {"d3": 2, "d4": 0}, "meta": {"x": 1}}),
                json.dumps({"qid": 7, "retrieved": [], "relevant": []}),
            ]
        )
        + "\n",
    )
    (loaded,) = load_runs([path])
    assert loaded.run.name == "run"
    assert lists_of(loaded.run) == {"a": ["d1", "d2"], "b": ["d3"], "7": []}
    assert loaded.run.query_text == ("what?", None, None)
    assert grades_of(loaded.judgments) == {"a": {"d2": 1}, "b": {"d3": 2, "d4": 0}, "7": {}}


def test_jsonl_judgments_from_qrels(write):
    run = write("run.jsonl", json.dumps({"id": "q1", "retrieved": ["d1"]}) + "\n")
    qrels = write("qrels", "q1 0 d1 3\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert grades_of(loaded.judgments) == {"q1": {"d1": 3}}


ERRORS = [
    # (file name, content, as, expected message fragment)
    ("r.jsonl", '{"id": "a", "retrieved": []\n', "run", "r.jsonl:1: expected one JSON object per line"),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": []}\n[1, 2]\n',
        "run",
        "r.jsonl:2: expected a JSON object per line, got a JSON list",
    ),
    (
        "r.jsonl",
        '{"id": "a", "relevant": []}\n',
        "run",
        "r.jsonl:1: expected a 'retrieved' list of ids for query 'a', got no 'retrieved' key",
    ),
    ("r.jsonl", '{"retrieved": []}\n', "run", "r.jsonl:1: expected a query id under 'id', 'query_id' or 'qid'"),
    ("r.jsonl", '{"id": "", "retrieved": []}\n', "run", "r.jsonl:1: expected 'id' as a non-empty string"),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": "d1", "relevant": []}\n',
        "run",
        "r.jsonl:1: expected 'retrieved' as a list of ids for query 'a', got a JSON str",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [null], "relevant": []}\n',
        "run",
        "r.jsonl:1: expected every retrieved id of query 'a' as a string, got 'null'",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": []}\n',
        "run",
        "r.jsonl:1: expected 'relevant' ids for query 'a' (or give --qrels), got no 'relevant' key",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": "d1"}\n',
        "run",
        "r.jsonl:1: expected 'relevant' as a list of ids or an object {id: grade}",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": {"d1": 1.5}}\n',
        "run",
        "r.jsonl:1: expected an integer grade for query 'a' id 'd1', got '1.5'",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": {"d1": 1, "d1": 2}}\n',
        "run",
        "r.jsonl:1: expected one value for key 'd1', got 1 and 2",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": []}\n\n{"id": "a", "retrieved": [], "relevant": []}\n',
        "run",
        "r.jsonl:3: expected each query once (query 'a' is also on line 1)",
    ),
    (
        "r.jsonl",
        '{"id": "a", "retrieved": [], "relevant": [], "query": 3}\n',
        "run",
        "r.jsonl:1: expected 'query' as text for query 'a', got a JSON int",
    ),
    ("r.jsonl", "", "run", "r.jsonl: expected at least one JSON line, got an empty file"),
]


@pytest.mark.parametrize("name, content, role, message", ERRORS, ids=[e[3][:50] for e in ERRORS])
def test_error_names_file_line_and_expectation(write, name, content, role, message):
    assert message in load_error(write, name, content, role)


def test_jsonl_relevant_together_with_qrels_is_set_aside_with_a_note(write):
    # the qrels win (tests/test_own_labels.py has the rest: --labels own, the comparisons)
    run = write("r.jsonl", '{"id": "a", "retrieved": [], "relevant": ["x"]}\n')
    with pytest.warns(RagreportWarning, match=r"^the 'relevant' labels of .*r.jsonl \(1 row\) are set aside"):
        (loaded,) = load_runs([run], qrels=write("q", "q1 0 d1 1\n"))
    assert loaded.judgments.query_ids.tolist() == ["q1"]


def test_jsonl_lines_that_only_parse_together_are_still_refused_line_by_line(write):
    # "[" + ",".join(lines) + "]" would read these two lines as three values: each line decides.
    path = write(
        "run.jsonl",
        '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}, {}\n'
        '{"id": "q2", "retrieved": ["d1"], "relevant": ["d1"]}\n',
    )
    with pytest.raises(InputError, match=r"run.jsonl:1: expected one JSON object per line, got Extra data"):
        load_runs([path])


def test_ragas_rows_with_context_text_and_no_ids_get_ids_from_their_text(tmp_path):
    from ragreport.reading.jsonl import context_id, read_run

    path = tmp_path / "ragas.jsonl"
    rows = [
        {
            "user_input": "capital?",
            "retrieved_contexts": ["Paris is the capital.", "Lyon."],
            "reference_contexts": ["  Paris is   the capital. "],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run, judgments = read_run(path, None, Order.FILE, True)
    paris = "ctx-" + hashlib.sha256(b"Paris is the capital.").hexdigest()[:12]
    assert context_id("Paris is the capital.") == context_id(" Paris  is the\ncapital. ") == paris
    assert run.doc_ids.tolist() == [paris, context_id("Lyon.")]
    assert judgments.doc_ids.tolist() == [paris]  # the reference's text is the first context's
    assert run.doc_text == {paris: "Paris is the capital.", context_id("Lyon."): "Lyon."}
    assert run.query_text == ("capital?",)


def test_context_ids_with_their_text_and_inline_contexts(tmp_path):
    from ragreport.reading.jsonl import read_run

    path = tmp_path / "rows.jsonl"
    rows = [
        {
            "user_input": "q",
            "retrieved_context_ids": ["a", "b"],
            "retrieved_contexts": ["text a", "text b"],
            "reference_context_ids": ["a"],
        },
        {"id": "q2", "retrieved": ["c", "d"], "relevant": ["c"], "contexts": {"c": "text c"}},
        {"id": "q3", "retrieved": ["e"], "relevant": ["e"], "contexts": ["text e"]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    run, _ = read_run(path, None, Order.FILE, True)
    assert run.doc_text == {"a": "text a", "b": "text b", "c": "text c", "e": "text e"}


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            {"id": "q", "retrieved": ["a", "b"], "relevant": ["a"], "contexts": ["only one"]},
            "'contexts' as an object of id to text, or a list aligned with 'retrieved', for query 'q', got a JSON list of 1",
        ),
        (
            {"id": "q", "retrieved": ["a"], "relevant": ["a"], "contexts": {"a": 3}},
            "the text of context 'a' of query 'q', got a JSON int",
        ),
        (
            {"retrieved_context_ids": ["a", "b"], "retrieved_contexts": ["x"]},
            "'retrieved_contexts' aligned with 'retrieved_context_ids', got lists of two lengths",
        ),
        ({"retrieved_contexts": "Paris"}, "'retrieved_contexts' as a list of text"),
    ],
)
def test_bad_contexts_are_one_line(tmp_path, row, expected):
    from ragreport.reading.jsonl import read_run

    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError) as error:
        read_run(path, None, Order.FILE, True)
    assert f"rows.jsonl:1: expected {expected}" in str(error.value)
