"""reading.registry: one list of formats; detection by name, then by content, in registry order."""

from __future__ import annotations

import dataclasses
import json
import textwrap

import numpy as np
import pytest
from helpers import lists_of

from ragreport.cli import build_parser
from ragreport.core.errors import InputError, UsageError
from ragreport.core.model import Judgments, Order, Run
from ragreport.reading import registry
from ragreport.reading.files import HEAD
from ragreport.reading.reader import Reader
from ragreport.reading.registry import (
    FORMATS,
    READERS,
    detect_file_format,
    detect_format,
    load_qrels,
    load_runs,
    sample_path,
)
from ragreport.reading.rows import run_from_slots


def test_format_detection_by_content(write):
    assert detect_format("x.txt", '{"id": "a", "retrieved": []}\n') == "jsonl"
    assert detect_format("x.txt", '{"q1": {"d1": 1.0}}') == "json"
    assert detect_format("x.txt", "# comment\nq1 Q0 d1 1 1.0 tag\n") == "trec"
    assert detect_format("x.ndjson.gz", "") == "jsonl"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("qid,docid,score\nq1,d1,0.5\n", "csv"),
        ("q1,d1,0.5\n", "csv"),
        ("q1,d1,1,0.5\n", "csv"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\n", "csv"),
        ("q1 0 d1 1\n", "trec"),
        ('{"q1": {"d1": 1.0}}\n', "json"),
        ('{"q1": {"d1": 1.0}}\n{"q2": {}}\n', "jsonl"),  # two values: lines, whatever their keys
        ('{"qid": "q1", "retrieved": []}', "jsonl"),  # one object, but a query's line
    ],
)
def test_detection_asks_the_readers_in_registry_order(text, expected):
    assert detect_format("x", text) == expected


@pytest.mark.parametrize(
    "name, expected",
    [("r.jsonl", "jsonl"), ("r.ndjson", "jsonl"), ("r.JSON", "json"), ("r.csv.gz", "csv"), ("r.tsv", "csv")],
)
def test_a_name_ending_decides_before_the_content(name, expected):
    assert detect_format(name, "q1 Q0 d1 1 1.0 tag\n") == expected


def test_an_empty_file_names_what_it_should_hold():
    with pytest.raises(InputError, match="x: expected at least one judgment line, got an empty file"):
        detect_format("x", "# nothing\n\n", "judgment line")


def test_a_large_file_is_detected_from_its_head_unless_json_must_be_parsed_whole(write):
    lines = "".join(f"q{i} Q0 d{i} 1 1.0 tag\n" for i in range(HEAD // 10))
    assert detect_file_format(write("big", lines)) == ("trec", None)
    big_map = json.dumps({f"q{i}": {"d1": 1.0} for i in range(HEAD // 10)})
    fmt, text = detect_file_format(write("big_map", big_map))
    assert fmt == "json" and text == big_map  # the whole text was read to tell it from JSONL: kept
    assert detect_file_format(write("big.jsonl", big_map)) == ("jsonl", None)  # the name decides


def test_input_format_overrides_detection(write):
    path = write("run.json", json.dumps({"id": "a", "retrieved": ["d1"], "relevant": ["d1"]}) + "\n")
    (loaded,) = load_runs([path], input_format="jsonl")
    assert lists_of(loaded.run) == {"a": ["d1"]}


def test_an_unknown_input_format(write):
    with pytest.raises(
        UsageError,
        match="^input_format must be one of jsonl, trec, json, csv, msmarco, llamaindex, mlflow, openinference, rank_eval, got 'xml'$",
    ):
        load_runs([write("r.trec", "q1 Q0 d1 1 1 t\n")], input_format="xml")


def test_qrels_as_json_lines_are_refused(write):
    with pytest.raises(
        InputError, match="q.jsonl: expected qrels as TREC lines, BEIR TSV or a JSON object, got JSON lines"
    ):
        load_qrels(write("q.jsonl", '{"id": "a", "retrieved": []}\n'))


def test_the_registry_is_the_one_list_of_formats():
    # --input-format's order, as users see it: the file formats, then the RAG tools' presets
    assert FORMATS == ("jsonl", "trec", "json", "csv", "msmarco", "llamaindex", "mlflow", "openinference", "rank_eval")
    assert len(set(FORMATS)) == len(FORMATS)
    assert [r.name for r in READERS if r.sniff is None] == ["trec"]  # exactly one catch-all
    extensions = [e for r in READERS for e in r.extensions]
    assert len(set(extensions)) == len(extensions)
    for name in FORMATS:  # --input-format's choices
        assert build_parser().parse_args(["score", "--input-format", name]).input_format == name
    with pytest.raises(SystemExit):
        build_parser().parse_args(["score", "--input-format", "xml"])
    assert all(isinstance(r, Reader) and dataclasses.is_dataclass(r) for r in READERS)


def test_a_new_format_is_one_reader_and_one_registry_line(write, monkeypatch):
    def read_run(path, text, order, own_judgments):
        ids = (text or path.read_text()).split()
        lines = [1] * len(ids)
        return run_from_slots(
            path.stem, path, ["q1"], [0] * len(ids), ids, None, order, query_lines=[1], slot_lines=lines
        ), None

    lines = Reader(
        name="ids",
        extensions=(".ids",),
        sniff=lambda first, text, complete: first.startswith("IDS"),
        read_run=read_run,
        read_qrels=None,
        label="id lists",
    )
    monkeypatch.setattr(registry, "READERS", (*READERS, lines))
    qrels = write("q", "q1 0 d2 1\n")
    assert [x.run.doc_ids.tolist() for x in load_runs([write("r.ids", "d1 d2\n")], qrels=qrels)] == [["d1", "d2"]]
    assert detect_format("r", "IDS d1\n") == "ids"
    assert load_runs([write("r2", "d3\n")], qrels=qrels, input_format="ids")[0].run.name == "r2"
    # Its ids pass the gate without a line of its own: the builder checks them.
    with pytest.raises(
        InputError,
        match=r"r3.ids:1: expected a document id for query 'q1' without control or bidi "
        r"characters, got 'd\\x1b1' \(holds U\+001B\)",
    ):
        load_runs([write("r3.ids", "d0 d\x1b1\n")], qrels=qrels)


def test_a_reader_that_builds_its_run_past_the_gate_is_refused(write, monkeypatch):
    # A run made by hand skips the id rule: the registry refuses it (an internal error, which the
    # reader's first test meets), so no format can accept an id the rule refuses.
    def read_run(path, text, order, own_judgments):
        return Run("x", np.array(["q\u202e1"]), np.array([0, 1]), np.array(["d\x1b1"])), None

    def read_qrels(path, text):
        return Judgments.from_lists([("q1", ["d1"], [1])])

    hand = Reader(
        name="hand",
        extensions=(".hand",),
        sniff=lambda first, text, complete: False,
        read_run=read_run,
        read_qrels=read_qrels,
        label="hand-made",
    )
    monkeypatch.setattr(registry, "READERS", (*READERS, hand))
    with pytest.raises(RuntimeError, match="the 'hand' reader returned a run its ids did not pass the gate"):
        load_runs([write("r.hand", "x\n")], qrels=write("q", "q1 0 d1 1\n"))
    with pytest.raises(RuntimeError, match="the 'hand' reader returned judgments its ids did not pass the gate"):
        load_qrels(write("q.hand", "x\n"))


def test_every_registered_reader_passes_what_it_reads_through_the_gate(write):
    # One file per reader (the registry's, whatever it holds): what comes back carries the mark.
    from test_hostile_inputs import FORMATS_WRITTEN

    from ragreport.reading.gate import has_passed

    for reader in (r for r in READERS if r.table is None):  # the presets': tests/test_rag_stacks.py
        written = FORMATS_WRITTEN[reader.name]
        name, content, _ = written.run("q1", "d1")
        run, own = reader.read_run(write(name, content), None, Order.SCORE, True)
        assert has_passed(run), reader.name
        assert own is None or has_passed(own), reader.name
        if reader.read_qrels is not None:
            name, content, _ = written.qrels("q1", "d1")
            assert has_passed(reader.read_qrels(write(name, content), None)), reader.name


# --- loading: every run with its judgments, metadata and a unique name; the sample by default ---

RUN_LINE = "q1 Q0 d1 1 1.0 tag\n"


def test_trec_run_without_qrels(write):
    with pytest.raises(UsageError, match="needs judgments: give them with --qrels FILE"):
        load_runs([write("run.txt", RUN_LINE)])


def test_two_runs_with_one_name(write, tmp_path):
    line = '{"id": "a", "retrieved": [], "relevant": ["x"]}\n'
    first, second = write("a/run.jsonl", line), write("b/run.jsonl", line)
    with pytest.raises(UsageError, match="two runs are named 'run'"):
        load_runs([first, second])


def test_loaded_arrays_are_read_only(write):
    (loaded,) = load_runs([write("r.jsonl", '{"id": "a", "retrieved": ["x"], "relevant": ["x"]}\n')])
    with pytest.raises(ValueError):
        loaded.judgments.grades[0] = 5
    assert isinstance(loaded.run.offsets, np.ndarray)


def test_no_input_is_the_preloaded_sample_with_a_source_alike_on_every_machine():
    (loaded,) = load_runs([])
    assert sample_path().is_file()
    assert loaded.run.name == "sample"
    assert loaded.run.source == "preloaded sample (ragreport/sample/sample.jsonl)"


# --- CONTRIBUTING's example reader, run as it is written ---


def _contributing_reader():
    """The code block of CONTRIBUTING.md's "Recipe: add an input format", executed as a module."""
    import re
    import types
    from pathlib import Path

    text = (Path(__file__).parent.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    recipe = text.split("## Recipe: add an input format", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", recipe, flags=re.S)
    module = types.ModuleType("ragreport_contributing_lists")
    exec(compile(textwrap.dedent(block), "CONTRIBUTING.md", "exec"), module.__dict__)
    return module.READER


@pytest.mark.parametrize(
    "content, expected",
    [
        (
            "LISTS q1 d1 d2\nLISTS q\u202e2 d1\n",
            r"r.lists:2: expected a query id without control or bidi characters, got 'q\u202e2' (holds U+202E)",
        ),
        (
            "LISTS q1 d1\nLISTS q2 d1 d\x1b2\n",
            r"r.lists:2: expected a document id for query 'q2' without control or bidi characters, got 'd\x1b2' "
            "(holds U+001B)",
        ),
        (
            "LISTS q1 d1\nLISTS q2 d2\nLISTS q1 d3\n",
            "r.lists:3: expected each query once (query 'q1' is also on line 1), got it again",
        ),
        (
            "LISTS q1 d1\nLISTS q2 " + "z" * 3000 + "\n",
            "r.lists:2: expected an id of at most 2,048 bytes, got 3,000 bytes ('" + "z" * 56 + "...)",
        ),
        ("LISTS q1 d1\nnope\n", "r.lists:2: expected 'LISTS qid docid ...', got 'nope'"),
    ],
    ids=["bidi-query-id", "esc-in-id", "query-twice", "overlong-id", "malformed"],
)
def test_the_contributing_example_reader_is_safe_as_written(write, monkeypatch, content, expected):
    reader = _contributing_reader()
    monkeypatch.setattr(registry, "READERS", (*READERS, reader))
    qrels = write("q.trec", "q1 0 d1 1\n")
    with pytest.raises(InputError) as refused:
        load_runs([write("r.lists", content)], qrels=qrels)
    message = str(refused.value)
    assert "\n" not in message and "\x1b" not in message and "\u202e" not in message
    assert message.endswith(expected)  # one line: the file, the line, what was expected


def test_the_contributing_example_reader_reads_its_lists(write, monkeypatch):
    reader = _contributing_reader()
    monkeypatch.setattr(registry, "READERS", (*READERS, reader))
    (loaded,) = load_runs([write("r.lists", "LISTS q1 d2 d1\nLISTS q2 d3\n")], qrels=write("q.trec", "q1 0 d1 1\n"))
    assert lists_of(loaded.run) == {"q1": ["d2", "d1"], "q2": ["d3"]}  # the file's order
    assert detect_format("x", "LISTS q1 d1\n") == "lists"
