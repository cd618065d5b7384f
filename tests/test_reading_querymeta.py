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
        # the first bad line is named: a query listed twice before a broken line
        ("m.jsonl", '{"qid": "a"}\n{"qid": "a"}\n{"qid": \n', r"m.jsonl:2: expected each query once"),
        ("m.csv", "qid,t\na,1\na,2\nb,1,extra\n", r"m.csv:3: expected each query once \('a' is also on line 2\)"),
    ],
)
def test_errors_name_the_file_and_line(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=expected):
        read_query_meta(path)


def test_held_by_column_each_value_once(tmp_path):
    path = tmp_path / "meta.jsonl"
    lines = ['{"qid": "q3", "n": 1}', '{"qid": "q1", "topic": "a", "n": 1.0}', '{"qid": "q2", "topic": "a", "n": "1"}']
    path.write_text("\n".join(lines + ['{"qid": "q0", "n": -0.0, "hard": true}', '{"qid": "q4", "n": 0.0}']) + "\n")
    table = read_query_meta(path)
    assert list(table) == ["q0", "q1", "q2", "q3", "q4"]  # sorted
    assert table.names == ("n", "topic", "hard")  # as first met
    codes, distinct = table.column("n")
    # 1, 1.0 and "1" stay three values of their own types; -0.0 keeps its sign
    assert [type(v).__name__ for v in distinct] == ["int", "float", "str", "float", "float"]
    assert str(distinct[3]) == "-0.0" and codes.tolist() == [3, 1, 2, 0, 4]
    assert table["q3"] == {"n": 1} and type(table["q1"]["n"]) is float and table["q0"]["hard"] is True
    assert "q9" not in table and "q1" in table and 1 not in table
    assert table.column("topic")[0].tolist() == [-1, 0, 0, -1, -1]
    with pytest.raises(KeyError):
        table["q9"]
    assert dict(table.items()) == {q: table[q] for q in table}


def test_a_query_twice_is_named_at_its_first_repeat_in_file_order(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("qid,topic\nb,1\na,2\nc,3\na,4\nb,5\n")
    with pytest.raises(InputError, match=r"m.csv:5: expected each query once \('a' is also on line 3\)"):
        read_query_meta(path)


def test_the_row_number_pandas_writes_first_is_not_a_key(tmp_path):
    # exactly as pandas' DataFrame.to_csv() writes a frame (index=True, its default): an unnamed
    # first column of row numbers, booleans as True/False, a missing value as an empty cell
    path = tmp_path / "meta.csv"
    path.write_text(",query_id,topic,hard\n0,q1,billing,True\n1,q2,shipping,False\n2,q3,,True\n")
    table = read_query_meta(path)
    assert table.names == ("topic", "hard")
    assert dict(table.items()) == {
        "q1": {"topic": "billing", "hard": "True"},
        "q2": {"topic": "shipping", "hard": "False"},
        "q3": {"hard": "True"},
    }
