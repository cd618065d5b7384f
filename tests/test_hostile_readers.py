"""Hostile input, second round (docs/conventions.md section 23.3): no hang and no silent loss in the
text and metadata readers (``--corpus``, ``--queries``, ``--query-meta``), integer options bounded
like the others, and the Python API's arguments checked as the command line's are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ragreport.api as api
from ragreport.cli import main
from ragreport.core.errors import ArgumentError, InputError, RagreportError
from ragreport.reading.querymeta import read_query_meta
from ragreport.reading.texts import read_corpus, read_queries

RUN = "".join(f"q{q} Q0 d{q}{i} {i + 1} {1 - i / 10:.2f} r\n" for q in range(3) for i in range(3))
QRELS = "".join(f"q{q} 0 d{q}{i} 1\n" for q in range(3) for i in range(2))


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "run.trec").write_text(RUN)
    (tmp_path / "qrels.txt").write_text(QRELS)
    os.mkfifo(tmp_path / "fifo")
    return tmp_path


# --- Special files: refused before they are opened (a FIFO would block the open) -------------------


@pytest.mark.parametrize("option", ["--corpus", "--queries", "--query-meta"])
def test_a_fifo_as_a_text_or_metadata_file_is_refused_without_hanging(files, option):
    argv = [sys.executable, "-m", "ragreport", "--no-config", "score", "run.trec", "--qrels", "qrels.txt"]
    result = subprocess.run(
        [*argv, option, "fifo", "--quiet"],
        capture_output=True,
        text=True,
        cwd=files,
        timeout=60,  # a hang fails the test
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().endswith("fifo: expected a regular file, got a FIFO (named pipe)"), result.stderr


@pytest.mark.parametrize("reader", [read_corpus, read_queries, read_query_meta])
def test_the_readers_refuse_a_device_and_a_fifo_in_process(files, reader):
    for special in (files / "fifo", Path("/dev/zero")):
        with pytest.raises(InputError, match="expected a regular file, got a"):
            reader(special)


# --- The quick id scan never matches a nested key; huge numbers and lone surrogates ------------------


def test_a_nested_id_before_the_documents_own_id_keeps_the_document(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    lines = [
        {"metadata": {"id": "other"}, "_id": "d1", "title": "T", "text": "kept"},
        {"_id": "d2", "text": "x", "links": [{"id": "d9"}]},
        {"id": "zzz", "_id": "d3", "text": "by _id, as the parse reads it"},
    ]
    corpus.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = read_corpus(corpus, wanted={"d1", "d2", "d3"})
    assert found["d1"].text == "kept" and found["d2"].text == "x" and found["d3"].text.startswith("by _id")
    assert set(read_corpus(corpus, wanted={"d9", "other", "zzz"})) == set()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"_id": "d1", "text": "t", "n": 1e400}', "finite numbers (a document), got 1e400"),
        ('{"_id": "d1", "text": "t", "n": NaN}', "finite numbers (a document), got NaN"),
        ('{"_id": "d1", "text": "\\ud800"}', "text without lone surrogate escapes"),
        ('{"_id": "d1", "title": "\\udfff x", "text": "t"}', "text without lone surrogate escapes"),
        ("[" * 5000, "JSON nested less deeply"),
        ('["d1"]', "a JSON object (a document), got a JSON list"),
    ],
)
def test_a_corpus_line_of_any_hostile_shape_is_one_error_naming_its_line(tmp_path, line, expected):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d0", "text": "fine"}\n' + line + "\n")
    with pytest.raises(InputError) as error:
        read_corpus(corpus)
    assert str(error.value).startswith(f"{corpus}:2: expected ") and expected in str(error.value)


def test_a_corpus_line_with_a_number_of_thousands_of_digits_is_read(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "t", "n": ' + "9" * 5000 + "}\n")
    assert read_corpus(corpus)["d1"].text == "t"


def test_a_queries_file_with_a_lone_surrogate_or_a_huge_number_names_its_line(tmp_path):
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "q1", "text": "fine"}\n{"_id": "q2", "text": "a\\ud83d"}\n')
    with pytest.raises(InputError, match=r"queries.jsonl:2: expected text without lone surrogate"):
        read_queries(queries)
    queries.write_text('{"_id": "q1", "text": "fine", "score": ' + "1" * 4400 + "}\n")
    assert read_queries(queries) == {"q1": "fine"}  # a number no reader reads: kept as its digits, no traceback


# --- Query metadata: a column named twice, numbers past 64 bits or a float ----------------------------


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "m.csv",
            "query_id,topic,topic\nq1,a,b\n",
            "m.csv:1: expected each column named once in the header, got 'topic' twice",
        ),
        (
            "m.tsv",
            "qid\tlang\tLang\tlang\nq1\ta\tb\tc\n",
            "m.tsv:1: expected each column named once in the header, got 'lang' twice",
        ),
        ("m.jsonl", '{"id": "q1", "n": NaN}\n', "m.jsonl:1: expected finite numbers (query metadata), got NaN"),
        ("m.jsonl", '{"id": "q1", "n": 1e400}\n', "m.jsonl:1: expected finite numbers (query metadata), got 1e400"),
        (
            "m.jsonl",
            '{"id": "q1", "n": 18446744073709551616}\n',
            "m.jsonl:1: expected a number within 64 bits for 'n', got an integer of 20 digits",
        ),
        (
            "m.jsonl",
            '{"id": "q1", "n": ' + "7" * 2000 + "}\n",
            "m.jsonl:1: expected a number within 64 bits for 'n', got an integer of 2000 digits",
        ),
        ("m.jsonl", '{"id": "q1", "topic": "\\udc00"}\n', "m.jsonl:1: expected text without lone surrogate escapes"),
    ],
)
def test_query_metadata_of_a_hostile_shape_is_one_error(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as error:
        read_query_meta(tmp_path / name)
    assert str(error.value).startswith(str(tmp_path / expected.split(":")[0])) and expected.split(":", 1)[1] in str(
        error.value
    )


@pytest.mark.parametrize("value", ["NaN", "1e400", "-Infinity", "99999999999999999999"])
def test_non_finite_or_huge_query_metadata_used_as_a_slice_is_one_line(files, capsys, value):
    (files / "meta.jsonl").write_text("".join(f'{{"id": "q{q}", "n": {value if q == 1 else q}}}\n' for q in range(3)))
    code = main(
        ["--no-config", "score", "run.trec", "--qrels", "qrels.txt", "--query-meta", "meta.jsonl", "--slice", "n"]
    )
    assert code == 2
    assert _one_error(capsys).startswith("ragreport: error: meta.jsonl:2: expected ")


# --- Integer options bounded like the others -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("99999999999999999999999", "at most 1,000,000, got '99999999999999999999999'"),
        ("1000001", "at most 1,000,000, got '1000001'"),
        ("1_0", "got '1_0'"),
        ("\u0665", "got '\u0665'"),
        ("\uff15", "got '\uff15'"),
        ("-1", "got '-1'"),
    ],
)
def test_text_queries_is_bounded_and_read_by_the_number_grammar(files, capsys, value, expected):
    with pytest.raises(SystemExit) as stop:
        main(["--no-config", "score", "run.trec", "--qrels", "qrels.txt", "--text-queries", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert (
        err.startswith("ragreport score: error: argument --text-queries: expected a whole number") and expected in err
    )


@pytest.mark.parametrize("flag", ["-k", "--kmax", "--permutations", "--keep", "--seed", "--resamples"])
@pytest.mark.parametrize("value", ["1_0", "\u0661\u0660", "\uff11\uff10"])
def test_every_integer_option_refuses_underscores_and_non_ascii_digits(capsys, flag, value):
    command = "publish" if flag == "--keep" else "score"
    argv = ["--no-config", command, *(["h"] if command == "publish" else []), "run.trec", flag, value]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and f"got '{value}'" in capsys.readouterr().err


# --- The Python API: arguments of the wrong type are one error naming the argument -----------------------

RUN_OBJECT = {"q1": {"d1": 1.0, "d2": 0.5}}
JUDGED = {"q1": {"d1": 1}}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"qrels": [1, 2]}, "qrels must be a path, a mapping {query_id: {doc_id: grade}} or a data frame, got a list"),
        ({"qrels": JUDGED, "k": 5.5}, "k must be a whole number, got 5.5 (float)"),
        ({"qrels": JUDGED, "k": [10, 5.5]}, "k must be a whole number, got 5.5 (float)"),
        ({"qrels": JUDGED, "k": True}, "k must be a whole number, got True (bool)"),
        ({"qrels": JUDGED, "k": "5"}, "k must be a whole number, got '5' (str)"),
        ({"qrels": JUDGED, "kmax": 20.5}, "kmax must be a whole number, got 20.5 (float)"),
        ({"qrels": {"q1": {"d1": 1.5}}}, "expected an integer grade for document 'd1', got 1.5"),
        ({"qrels": {"q1\ud800": {"d1": 1}}}, "got 'q1\\ud800' (holds U+D800)"),
    ],
)
def test_the_api_refuses_arguments_of_the_wrong_type_naming_them(arguments, expected):
    with pytest.raises(RagreportError) as error:
        api.evaluate({"r": RUN_OBJECT}, **arguments)
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_the_api_refuses_a_lone_surrogate_in_a_run_name_or_id_naming_the_run_and_query():
    with pytest.raises(RagreportError, match=r"^runs: expected a run name .*got 'r\\ud800' \(holds U\+D800\)"):
        api.evaluate({"r\ud800": RUN_OBJECT}, qrels=JUDGED)
    with pytest.raises(RagreportError, match=r"^run 'r', query 'q1': expected a document id .*'d\\udc00'"):
        api.evaluate({"r": {"q1": {"d\udc00": 1.0}}}, qrels=JUDGED)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"permutations": 5.5}, "permutations must be a whole number from 1 to 10,000,000, got 5.5 (float)"),
        ({"permutations": 0}, "permutations must be from 1 to 10,000,000, got 0"),
        ({"text_queries": 2.5}, "text_queries must be a whole number from 0 to 1,000,000, got 2.5 (float)"),
        ({"text_queries": 10**7}, "text_queries must be from 0 to 1,000,000, got 10,000,000"),
    ],
)
def test_analyse_refuses_counts_that_are_no_whole_numbers(arguments, expected):
    results = api.evaluate({"r": RUN_OBJECT}, qrels=JUDGED)
    with pytest.raises(ArgumentError) as error:
        api.analyse(results, **arguments)
    assert str(error.value) == expected


@pytest.mark.parametrize(
    ("value", "shown"),
    [("NaN", "nan"), ("1e400", "inf"), ("-Infinity", "-inf"), ("18446744073709551616", "18446744073709551616")],
)
def test_rag_jsonl_meta_a_slice_cannot_hold_is_refused_with_its_line(files, capsys, value, shown):
    lines = [
        '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"], "meta": {"n": 1}}',
        '{"id": "q2", "retrieved": ["d1"], "relevant": ["d1"], "meta": {"n": ' + value + "}}",
    ]
    (files / "rag.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["--no-config", "score", "rag.jsonl", "--slice", "n", "--quiet"]) == 2
    assert _one_error(capsys) == (
        f"ragreport: error: rag.jsonl:2: expected 'meta' numbers finite and within 64 bits for query 'q2', got {shown}"
    )
