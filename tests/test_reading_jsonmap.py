"""reading.jsonmap: pytrec_eval's and ranx's {qid: {docid: score}} runs and {qid: {docid: grade}} qrels."""

from __future__ import annotations

import json

import pytest
from helpers import grades_of, lists_of, load_error

from ragreport.reading.registry import load_runs


def test_json_dicts_like_pytrec_eval_and_ranx(write):
    run = write("run.json", json.dumps({"q1": {"a": 0.5, "b": 0.9, "c": 0.5}}))
    qrels = write("qrels.json", json.dumps({"q1": {"a": 1, "z": 2}}))
    (loaded,) = load_runs([run], qrels=qrels)
    assert lists_of(loaded.run) == {"q1": ["b", "c", "a"]}
    assert grades_of(loaded.judgments) == {"q1": {"a": 1, "z": 2}}


ERRORS = [
    # (file name, content, as, expected message fragment)
    (
        "run.json",
        '{"q1": {"d1": 1.0,\n "d2": "x"}}',
        "run",
        "run.json:2: expected a numeric score for query 'q1' id 'd2', got 'x'",
    ),
    ("run.json", '{"q1": [1, 2]}', "run", "run.json:1: expected query 'q1' to map ids to scores, got a JSON list"),
    ("run.json", '{"q1": {"d1": 1.0}', "run", "run.json:1: expected valid JSON (a run object {qid: {docid: score}})"),
    (
        "qrels.json",
        '{\n"q1": {"d1": true}}',
        "qrels",
        "qrels.json:2: expected an integer grade for query 'q1' id 'd1', got true",
    ),
    (
        "qrels.json",
        '{"q1": {"d1": 1,\n "d1": 0}}',
        "qrels",
        "qrels.json:1: expected one value for key 'd1', got 1 and 0",
    ),
    ("run.json", '{"q1": {"d1": 1.0},\n "q1": {"d2": 2.0}}', "run", "run.json:1: expected one value for key 'q1'"),
]


@pytest.mark.parametrize("name, content, role, message", ERRORS, ids=[e[3][:50] for e in ERRORS])
def test_error_names_file_line_and_expectation(write, name, content, role, message):
    assert message in load_error(write, name, content, role)
