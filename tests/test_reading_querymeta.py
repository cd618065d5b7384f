"""Per-query metadata files (ragreport/reading/querymeta.py)."""

from __future__ import annotations

import pytest

from ragreport.core.errors import InputError
from ragreport.reading.querymeta import read_query_meta


def test_tsv_with_a_named_id_column_and_empty_cells(tmp_path):
    path = tmp_path / "meta.tsv"
    path.write_text("topic\tquery_id\tlang\nbilling\tq1\ten\n\tq2\tfr\n")
    assert read_query_meta(path) == {"q1": {"topic": "billing", "lang": "en"}, "q2": {"lang": "fr"}}


def test_csv_quoting_and_the_first_column_as_id(tmp_path):
    path = tmp_path / "meta.csv"
    path.write_text('query,topic\n301,"billing, refunds"\n302,"say ""hi"""\n')
    assert read_query_meta(path) == {"301": {"topic": "billing, refunds"}, "302": {"topic": 'say "hi"'}}


def test_jsonl_flat_or_with_a_meta_object(tmp_path):
    path = tmp_path / "meta.jsonl"
    path.write_text('{"qid": 7, "topic": "a", "hard": true}\n{"id": "q8", "meta": {"topic": "b"}, "x": 1}\n')
    assert read_query_meta(path) == {"7": {"topic": "a", "hard": True}, "q8": {"topic": "b"}}


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("m.tsv", "qid\ttopic\nq1\ta\nq1\tb\n", r"m.tsv:3: expected each query once \('q1' is also on line 2\)"),
        ("m.tsv", "qid\ttopic\nq1\ta\textra\n", r"m.tsv:2: expected 2 columns, as the header has, got 3"),
        ("m.csv", 'qid,topic\nq1,"open\n', r"m.csv:\d: expected CSV or TSV as RFC 4180 quotes it"),
        ("m.tsv", "qid\ttopic\n\ta\n", r"m.tsv:2: expected a query id in column 'qid'"),
        ("m.jsonl", '{"topic": "a"}\n', r"m.jsonl:1: expected a query id under one of"),
        ("m.jsonl", '{"qid": "q1", "topic": ["a"]}\n', r"m.jsonl:1: expected a text, number or boolean for 'topic'"),
        ("m.jsonl", '{"qid": "q1"}\n{"qid": \n', r"m.jsonl:2: expected one JSON object per line"),
    ],
)
def test_errors_name_the_file_and_line(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=expected):
        read_query_meta(path)
