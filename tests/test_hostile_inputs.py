"""Hostile inputs to the readers and engines: no silent wrong figure (issue 14, item 2).

Every case is checked against the rule of docs/conventions.md section 17, written by hand here:
ids without control or bidi characters, a byte-order mark dropped at a file's start, CR-only line
ends refused, RFC 4180 quoting in CSV/TSV, one number grammar, exp gain without overflow, trec_eval's
single-precision order under --compat trec_eval, Parquet values checked; and the three engines
(memory, stream, dask) agree on hostile-but-valid files.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from helpers import QRELS_LINE, RUN_LINE, grades_of, lists_of, same_but_bands

from ragreport.api import analyse, document, evaluate
from ragreport.core.errors import InputError
from ragreport.core.ids import FORBIDDEN_ID_CHARACTERS, forbidden_character, forbidden_in_utf8
from ragreport.core.model import TREC_EVAL, Conventions, Gain, Order
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.reading import registry
from ragreport.reading.memory import judgments_from_object, run_from_object
from ragreport.reading.registry import load_qrels, load_runs

# ---------------------------------------------------------------------------------------------
# Helpers


def _error(write, name: str, content: str, role: str, input_format: str | None = None) -> str:
    """The one-line InputError of loading ``content`` as a run or qrels, with no numpy warning on
    the way; a run read as ``input_format`` when given (a format detection never picks: msmarco)."""
    path = write(name, content)
    other = write("other_qrels.txt", QRELS_LINE) if role == "run" else write("other_run.txt", RUN_LINE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning instead of an error is a failure
        with pytest.raises(InputError) as caught:
            if role == "run":
                load_runs([path], qrels=None if name.endswith(".jsonl") else other, input_format=input_format)
            else:
                load_runs([other], qrels=path)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message
    return message


def _run(
    write, name: str, content: str, order: Order = Order.SCORE, input_format: str | None = None
) -> dict[str, list[str]]:
    path = write(name, content)
    qrels = None if name.endswith(".jsonl") else write("q.txt", QRELS_LINE)
    return lists_of(load_runs([path], qrels=qrels, order=order, input_format=input_format)[0].run)


def _qrels(write, name: str, content: str) -> dict[str, dict[str, int]]:
    return grades_of(load_qrels(write(name, content)))


def _figures(paths, qrels, conventions: Conventions = Conventions(resamples=50), **kwargs) -> dict:
    summaries = evaluate(paths, qrels=qrels, k=(1, 3), conventions=conventions, **kwargs)
    whole = document(analyse(summaries))
    return {
        key: [query_rows(whole, run) if key == "queries" else run[key] for run in whole["runs"]]
        for key in ("metrics", "sweep", "counts", "queries")
    }


# ---------------------------------------------------------------------------------------------
# Ids: one set of forbidden characters, in every format


#: (character, its U+ name) for a sample of every class of the set.
BAD = [
    ("\x00", "U+0000"),  # NUL: numpy would drop it at the end of an id
    ("\x01", "U+0001"),  # another C0 control
    ("\x1b", "U+001B"),  # ESC: terminal escapes
    ("\x1f", "U+001F"),  # unit separator: Python's str.split() takes it for a blank
    ("\x7f", "U+007F"),  # DEL
    ("\x85", "U+0085"),  # C1: NEL
    ("\u202e", "U+202E"),  # right-to-left override
    ("\u2066", "U+2066"),  # left-to-right isolate
    ("\u200f", "U+200F"),  # right-to-left mark
    ("\u061c", "U+061C"),  # Arabic letter mark
    ("\ufeff", "U+FEFF"),  # a byte-order mark inside an id
]


def _ids_cases():
    """(file name, content, role, line) with ``{c}`` where the bad character goes, in every format."""
    return [
        ("run.txt", "q1 Q0 d1 1 2 t\nq1{c} Q0 d2 2 1 t\n", "run", 2),  # TREC run, query id
        ("run.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d{c}2 2 1 t\n", "run", 2),  # TREC run, document id
        ("qrels.txt", "q1 0 d1 1\nq1{c} 0 d2 1\n", "qrels", 2),  # TREC qrels
        ("qrels.txt", "q1 0 d1 1\nq1 0 d{c}2 1\n", "qrels", 2),
        ("run.csv", "qid,docid,score\nq1,d1,1\nq1,d{c}2,0.5\n", "run", 3),  # CSV
        ("run.csv", "q1,d1,1\nq{c}1,d2,0.5\n", "run", 2),
        ("run.tsv", "qid\tdocid\tscore\nq1\td{c}1\t1\n", "run", 2),  # TSV
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td{c}1\t1\n", "qrels", 2),  # BEIR TSV
        ("r.jsonl", '{{"id": "q1{j}", "retrieved": ["d1"], "relevant": ["d1"]}}\n', "run", 1),  # JSONL
        (
            "r.jsonl",
            '{{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}}\n'
            '{{"id": "q2", "retrieved": ["d{j}1"], "relevant": ["d1"]}}\n',
            "run",
            2,
        ),
        ("r.jsonl", '{{"id": "q1", "retrieved": ["d1"], "relevant": ["d{j}1"]}}\n', "run", 1),
        ("r.jsonl", '{{"id": "q1", "retrieved": ["d1"], "relevant": {{"d{j}1": 2}}}}\n', "run", 1),
        ("run.json", '{{\n"q1": {{"d1": 1}},\n"q{j}2": {{"d1": 1}}\n}}', "run", 3),  # JSON map
        ("run.json", '{{\n"q1": {{\n"d1": 1,\n"d{j}2": 0.5}}\n}}', "run", 4),
        ("qrels.json", '{{\n"q1": {{\n"d{j}1": 1}}\n}}', "qrels", 3),
        ("qrels.json", '{{\n"q{j}1": {{}}\n}}', "qrels", 2),
    ]


@pytest.mark.parametrize("char, code", BAD, ids=[c for _, c in BAD])
@pytest.mark.parametrize("name, content, role, line", _ids_cases(), ids=lambda v: v if isinstance(v, str) else None)
def test_a_forbidden_character_in_an_id_is_refused_with_file_line_and_the_id_escaped(
    write, name, content, role, line, char, code
):
    text = content.format(c=char, j=json.dumps(char)[1:-1])
    message = _error(write, name, text, role)
    assert re.search(rf"{re.escape(name)}:{line}: expected [^,]*id[^,]* without control or bidi characters", message)
    assert f"(holds {code})" in message
    # The id is shown escaped: the character itself never reaches the message.
    assert char not in message
    assert repr(char)[1:-1] in message


# --- Every registered format: the table below must name each reader of the registry ---------


@dataclass(frozen=True)
class Written:
    """How to write a file of one format for the tests: ``run(qid, doc)`` and ``qrels(qid, doc)``
    give (file name, content, line) with a good row first and the row holding ``qid`` and ``doc``
    on ``line``; ``twice`` is (file name, content) with query q1 on two separate rows or records,
    and ``merged`` what it reads as, or the error that refuses it (a list-per-record format)."""

    run: Callable[[str, str], tuple[str, str, int]]
    qrels: Callable[[str, str], tuple[str, str, int]] | None
    twice: tuple[str, str]
    merged: dict[str, list[str]] | str


def _jq(text: str) -> str:
    return json.dumps(text)


#: Keyed by reader name: a new format in the registry fails
#: test_every_registered_format_has_a_way_to_be_written until it gets a row here.
FORMATS_WRITTEN: dict[str, Written] = {
    "trec": Written(
        run=lambda q, d: ("run.txt", f"q0 Q0 d0 1 2 t\n{q} Q0 {d} 1 1 t\n", 2),
        qrels=lambda q, d: ("qrels.txt", f"q0 0 d0 1\n{q} 0 {d} 1\n", 2),
        twice=("run.txt", "q1 Q0 d1 1 2 t\nq2 Q0 d2 1 1 t\nq1 Q0 d3 2 1 t\n"),
        merged={"q1": ["d1", "d3"], "q2": ["d2"]},  # rows of one query, as trec_eval reads them
    ),
    "csv": Written(
        run=lambda q, d: ("run.csv", f"qid,docid,score\nq0,d0,1\n{q},{d},0.5\n", 3),
        qrels=lambda q, d: ("qrels.tsv", f"query-id\tcorpus-id\tscore\nq0\td0\t1\n{q}\t{d}\t1\n", 3),
        twice=("run.csv", "q1,d1,2\nq2,d2,1\nq1,d3,1\n"),
        merged={"q1": ["d1", "d3"], "q2": ["d2"]},
    ),
    "json": Written(
        run=lambda q, d: ("run.json", f'{{\n"q0": {{"d0": 1}},\n{_jq(q)}: {{{_jq(d)}: 0.5}}\n}}', 3),
        qrels=lambda q, d: ("qrels.json", f'{{\n"q0": {{"d0": 1}},\n{_jq(q)}: {{{_jq(d)}: 1}}\n}}', 3),
        twice=("run.json", '{"q1": {"d1": 2},\n"q2": {"d2": 1},\n"q1": {"d3": 1}}'),
        merged='run.json:1: expected one value for key \'q1\', got {"d1": 2} and {"d3": 1}',  # the JSON rule
    ),
    "jsonl": Written(
        run=lambda q, d: (
            "r.jsonl",
            '{"id": "q0", "retrieved": ["d0"], "relevant": ["d0"]}\n'
            + json.dumps({"id": q, "retrieved": [d], "relevant": ["d0"]})
            + "\n",
            2,
        ),
        qrels=None,
        twice=(
            "r.jsonl",
            '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n'
            '{"id": "q2", "retrieved": ["d2"], "relevant": ["d2"]}\n'
            '{"id": "q1", "retrieved": ["d3"], "relevant": ["d3"]}\n',
        ),
        merged="r.jsonl:3: expected each query once (query 'q1' is also on line 1), got it again",
    ),
    "msmarco": Written(  # read by name only (--input-format msmarco): NAMED below
        run=lambda q, d: ("run.msmarco.tsv", f"q0\td0\t1\n{q}\t{d}\t1\n", 2),
        qrels=None,
        twice=("run.tsv", "q1\td1\t1\nq2\td2\t1\nq1\td3\t2\n"),
        merged={"q1": ["d1", "d3"], "q2": ["d2"]},
    ),
}
#: The formats detection never picks, read by name in the tests of every format.
NAMED = {"msmarco"}

#: The registry's formats but the RAG tools' presets: tables read through RAG JSONL's record rules
#: (jsonl's row above), each refusing bad ids on its own files in tests/test_rag_stacks.py.
REGISTERED = [reader.name for reader in registry.READERS if reader.table is None]


def test_every_registered_format_has_a_way_to_be_written():
    assert sorted(FORMATS_WRITTEN) == sorted(REGISTERED)
    for reader in registry.READERS:  # qrels exactly for the formats that hold them
        if reader.table is not None:
            continue
        assert (FORMATS_WRITTEN[reader.name].qrels is None) == (reader.read_qrels is None), reader.name


#: (format, role) for every registered reader: its runs, and its qrels when it holds them (a
#: reader missing from the table fails the test above, not the collection).
ROLES = [(fmt, "run") for fmt in REGISTERED] + [
    (fmt, "qrels") for fmt in REGISTERED if getattr(FORMATS_WRITTEN.get(fmt), "qrels", None) is not None
]


@pytest.mark.parametrize("char, code", BAD, ids=[c for _, c in BAD])
@pytest.mark.parametrize("where", ["query", "document"])
@pytest.mark.parametrize("fmt, role", ROLES)
def test_every_registered_format_refuses_a_forbidden_character_naming_file_and_line(
    write, fmt, role, where, char, code
):
    written = FORMATS_WRITTEN[fmt]
    make = written.run if role == "run" else written.qrels
    assert make is not None
    qid, doc = ("q1" + char, "d1") if where == "query" else ("q1", "d" + char + "1")
    name, content, line = make(qid, doc)
    message = _error(write, name, content, role, fmt if fmt in NAMED and role == "run" else None)
    assert re.search(rf"{re.escape(name)}:{line}: expected [^,]*id[^,]* without control or bidi characters", message)
    assert f"(holds {code})" in message
    assert char not in message  # shown escaped


@pytest.mark.parametrize("fmt", REGISTERED)
def test_every_registered_format_refuses_an_overlong_or_empty_id_naming_file_and_line(write, fmt):
    named = fmt if fmt in NAMED else None
    name, content, line = FORMATS_WRITTEN[fmt].run("q1", "z" * 3000)
    message = _error(write, name, content, "run", named)
    assert re.search(
        rf"{re.escape(name)}:{line}: expected [^,]*id[^,]* of at most 2,048 bytes, got 3,000 bytes", message
    )
    name, content, line = FORMATS_WRITTEN[fmt].run("", "d1")
    if fmt not in ("trec", "csv", "msmarco"):  # blanks cannot hold an empty id; CSV, MS MARCO: an empty field
        message = _error(write, name, content, "run", named)
        assert re.search(rf"{re.escape(name)}:{line}: expected [^,]*id[^,]* as a non-empty string", message), message


@pytest.mark.parametrize("fmt", REGISTERED)
def test_every_registered_format_merges_or_refuses_a_query_given_twice(write, fmt):
    written = FORMATS_WRITTEN[fmt]
    name, content = written.twice
    named = fmt if fmt in NAMED else None
    if isinstance(written.merged, dict):
        assert _run(write, name, content, input_format=named) == written.merged
    else:
        assert _error(write, name, content, "run", named).endswith(written.merged)


@pytest.mark.parametrize("char, code", [("\t", "U+0009"), ("\n", "U+000A"), ("\r", "U+000D")])
@pytest.mark.parametrize(
    "name, content, role, line",
    [
        ("r.jsonl", '{{"id": "q1{j}", "retrieved": ["d1"], "relevant": ["d1"]}}\n', "run", 1),
        ("run.json", '{{"q1": {{"d{j}1": 1}}}}', "run", 1),
        ("qrels.json", '{{"q{j}1": {{"d1": 1}}}}', "qrels", 1),
    ],
    ids=["jsonl", "json-run", "json-qrels"],
)
def test_tab_newline_and_cr_are_refused_where_a_format_can_carry_them(write, name, content, role, line, char, code):
    message = _error(write, name, content.format(c=char, j=json.dumps(char)[1:-1]), role)
    assert f"{name}:{line}: expected" in message and f"(holds {code})" in message


def test_a_quoted_csv_field_holding_a_tab_is_refused(write):
    assert "run.csv:1: expected a document id" in _error(write, "run.csv", 'q1,"d\t1",1\n', "run")


def test_a_quoted_csv_field_holding_a_line_end_is_an_unclosed_quote(write):
    message = _error(write, "run.csv", 'q1,"d\n1",1\n', "run")
    assert "run.csv:1: expected fields quoted as RFC 4180 has it" in message


def test_q1_and_q1_with_a_nul_never_collapse_into_one_query(write):
    message = _error(write, "run.txt", "q1 Q0 d1 1 2 t\nq1\x00 Q0 d2 1 2 t\n", "run")
    assert r"run.txt:2: expected a query id without control or bidi characters, got 'q1\x00' (holds U+0000)" in message


@pytest.mark.parametrize("char, code", BAD, ids=[c for _, c in BAD])
def test_in_memory_runs_and_judgments_refuse_the_same_characters(char, code):
    with pytest.raises(InputError, match=re.escape(f"(holds {code})")):
        run_from_object({f"q{char}": {"d1": 1.0}}, "r")
    with pytest.raises(InputError, match=re.escape(f"(holds {code})")):
        run_from_object({"q1": {f"d{char}": 1.0}}, "r")
    with pytest.raises(InputError, match=re.escape(f"(holds {code})")):
        judgments_from_object({"q1": {f"d{char}": 1}})


class _Frame:
    """The two members and the columns a data frame reader looks for."""

    def __init__(self, **columns):
        self._columns = columns
        self.columns = list(columns)

    def __getitem__(self, name):
        return self._columns[name]

    def to_dict(self):
        return self._columns


def test_in_memory_frames_refuse_them_too():
    with pytest.raises(InputError, match=re.escape("(holds U+0000)")):
        run_from_object(_Frame(query_id=["q1", "q1\x00"], doc_id=["d1", "d2"], score=[1.0, 2.0]), "r")
    with pytest.raises(InputError, match=re.escape("(holds U+202E)")):
        judgments_from_object(_Frame(query_id=["q1"], doc_id=["d\u202e"], relevance=[1]))


def test_allowed_characters_stay_part_of_the_id(write):
    # A no-break space, non-ASCII letters, a zero-width joiner, '#' inside an id: none is in the set.
    ids = ["d\u00a01", "dé", "d\u200d", "d#1", "d\u2028"]
    content = "".join(f"q1 Q0 {d} {i + 1} {10 - i} t\n" for i, d in enumerate(ids))
    assert _run(write, "run.txt", content) == {"q1": ids}


def test_the_bytes_check_and_the_text_check_name_the_same_characters():
    # Every code point of the Basic Multilingual Plane: the vectorised check over UTF-8 bytes (the
    # bytes reader's) flags exactly the characters of the stated set, tab, newline and CR aside.
    stated = set()
    for part in re.findall(r".-.|.", FORBIDDEN_ID_CHARACTERS, flags=re.S):
        lo, hi = (part[0], part[2]) if len(part) == 3 else (part, part)
        stated |= set(range(ord(lo), ord(hi) + 1))
    assert {0x00, 0x1F, 0x7F, 0x80, 0x9F, 0x61C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF} <= stated
    assert len(stated) == 32 + 1 + 32 + 3 + 5 + 4 + 1
    for point in range(0x10000):
        if 0xD800 <= point <= 0xDFFF:
            continue
        char = chr(point)
        expected = point in stated
        assert (forbidden_character("a" + char) is not None) == expected, hex(point)
        if expected:  # the line readers' prefilter: str.isprintable() is False for every one
            assert not char.isprintable(), hex(point)
        if point not in (9, 10, 13):
            in_bytes = forbidden_in_utf8(np.frombuffer(("a" + char + "b").encode(), dtype=np.uint8))
            assert in_bytes == expected, hex(point)


# ---------------------------------------------------------------------------------------------
# Byte-order mark: dropped at a file's start, in every reader


BOM = "\ufeff"


@pytest.mark.parametrize(
    "name, content",
    [
        ("run.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"),
        ("run.txt", "q1  Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n"),  # not strict: the line reader
        ("run.csv", "qid,docid,score\nq1,d1,2\nq1,d2,1\n"),
        ("run.csv", "q1,d1,2\nq1,d2,1\n"),
        ("r.jsonl", '{"id": "q1", "retrieved": ["d1", "d2"], "relevant": ["d1"]}\n'),
        ("run.json", '{"q1": {"d1": 2, "d2": 1}}'),
    ],
)
def test_a_byte_order_mark_at_the_start_of_a_run_is_dropped(write, name, content):
    assert _run(write, name, BOM + content) == {"q1": ["d1", "d2"]}


@pytest.mark.parametrize(
    "name, content",
    [
        ("qrels.txt", "q1 0 d1 2\nq1 0 d2 0\n"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n"),
        ("qrels.json", '{"q1": {"d1": 2, "d2": 0}}'),
    ],
)
def test_a_byte_order_mark_at_the_start_of_qrels_is_dropped(write, name, content):
    assert _qrels(write, name, BOM + content) == {"q1": {"d1": 2, "d2": 0}}


# ---------------------------------------------------------------------------------------------
# Line ends: LF and CRLF read alike; a CR alone refused, for runs and qrels alike


@pytest.mark.parametrize(
    "name, content, role",
    [
        ("run.txt", "q1 Q0 d1 1 2 t\rq1 Q0 d2 2 1 t\rq2 Q0 d3 1 1 t\r", "run"),
        ("run.txt", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\rq2 Q0 d3 1 1 t\n", "run"),
        ("qrels.txt", "q1 0 d1 1\rq1 0 d2 0\r", "qrels"),
        ("run.csv", "q1,d1,2\rq1,d2,1\r", "run"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\rq1\td1\t1\r", "qrels"),
        ("r.jsonl", '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\r{"id": "q2", "retrieved": []}\r', "run"),
        ("run.json", '{"q1":\r{"d1": 1}}', "run"),
        ("qrels.json", '{"q1":\r{"d1": 1}}', "qrels"),
    ],
)
def test_a_cr_alone_is_refused_naming_its_line(write, name, content, role):
    first_cr = content.index("\r")
    line = content.count("\n", 0, first_cr) + 1
    message = _error(write, name, content, role)
    assert f"{name}:{line}: expected lines ending in LF or CRLF, got a CR alone" in message


@pytest.mark.parametrize(
    "name, content",
    [
        ("run.txt", "q1 Q0 d1 1 2 t\r\nq1 Q0 d2 2 1 t\r\nq2 Q0 d3 1 1 t\r\n"),
        ("run.txt", "q1 Q0 d1 1 2 t\r\n# note\r\n\r\nq1  Q0 d2 2 1 t\r\nq2 Q0 d3 1 1 t"),
        ("run.csv", "qid,docid,score\r\nq1,d1,2\r\nq1,d2,1\r\nq2,d3,1\r\n"),
        ("r.jsonl", '{"id": "q1", "retrieved": ["d1", "d2"]}\r\n{"id": "q2", "retrieved": ["d3"]}\r\n'),
        ("run.json", '{\r\n"q1": {"d1": 2, "d2": 1},\r\n"q2": {"d3": 1}\r\n}\r\n'),
    ],
)
def test_crlf_reads_as_lf(write, name, content):
    if name.endswith(".jsonl"):
        path = write(name, content)
        assert lists_of(load_runs([path], qrels=write("q.txt", QRELS_LINE))[0].run) == {
            "q1": ["d1", "d2"],
            "q2": ["d3"],
        }
        return
    assert _run(write, name, content) == {"q1": ["d1", "d2"], "q2": ["d3"]}


# ---------------------------------------------------------------------------------------------
# CSV and TSV: RFC 4180 quoting


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("run.csv", 'qid,docid,score\nq1,"d,1",2\nq1,"say ""hi""",1\n', {"q1": ["d,1", 'say "hi"']}),
        ("run.csv", '"qid","docid","score"\n"q,1","d1","2"\n', {"q,1": ["d1"]}),
        ("run.csv", 'q1,"d,1",2\nq1,d2,1\n', {"q1": ["d,1", "d2"]}),  # no header: still 3 columns
        ("run.csv", 'q1,"d,1",1,2\nq1,d2,2,1\n', {"q1": ["d,1", "d2"]}),  # qid,docid,rank,score
        ("run.tsv", 'qid\tdocid\tscore\nq1\t"d,1"\t2\nq1\t"d\t2"\t1\n', None),  # the tab is refused
        ("run.csv", 'q1,d"1,2\n', {"q1": ['d"1']}),  # a quote inside an unquoted field is a character
    ],
)
def test_csv_quoting_follows_rfc_4180(write, name, content, expected):
    if expected is None:
        assert "(holds U+0009)" in _error(write, name, content, "run")
        return
    assert _run(write, name, content) == expected


def test_beir_tsv_qrels_read_quoted_fields(write):
    assert _qrels(write, "qrels.tsv", 'query-id\tcorpus-id\tscore\nq1\t"d,1"\t2\n"q""2"\td2\t1\n') == {
        "q1": {"d,1": 2},
        'q"2': {"d2": 1},
    }


@pytest.mark.parametrize("line", ['q1,"d1,2\n', 'q1,"d1"x,2\n', 'q1,"d1" ,2\n'])
def test_broken_quoting_is_one_error_naming_the_line(write, line):
    message = _error(write, "run.csv", "q0,d0,1\n" + line, "run")
    assert "run.csv:2: expected fields quoted as RFC 4180 has it" in message


# ---------------------------------------------------------------------------------------------
# Numbers: one grammar


BAD_NUMBERS = ["1_0", "nan", "NaN", "inf", "-Infinity", "0x10", "\u0661", "1e999", "1.2.3", "--1", "1e"]


@pytest.mark.parametrize("token", BAD_NUMBERS)
@pytest.mark.parametrize(
    "name, content",
    [
        ("run.txt", "q1 Q0 d0 1 1 t\nq1 Q0 d1 2 {t} t\n"),
        ("run.csv", "q1,d0,1\nq1,d1,{t}\n"),
        ("run.json", '{{\n"q1": {{\n"d1": "{t}"}}}}'),
    ],
    ids=["trec", "csv", "json-string"],
)
def test_a_score_outside_the_grammar_is_refused(write, name, content, token):
    line = 2 if not name.endswith(".json") else 3
    message = _error(write, name, content.format(t=token), "run")
    assert re.search(rf"{re.escape(name)}:{line}: expected a (finite )?numeric score", message), message


@pytest.mark.parametrize(
    "token",
    [
        "1_0",
        "nan",
        "inf",
        "0x10",
        "\u0661",
        "1.5",
        "9223372036854775808",
        "-9223372036854775809",
        "1e19",
        "99999999999999999999999",
    ],
)
@pytest.mark.parametrize(
    "name, content",
    [
        ("qrels.txt", "q1 0 d0 1\nq1 0 d1 {t}\n"),
        ("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\td0\t1\nq1\td1\t{t}\n"),
        ("qrels.json", '{{\n"q1": {{\n"d0": 1,\n"d1": "{t}"}}}}'),
    ],
    ids=["trec", "beir", "json-string"],
)
def test_a_grade_outside_the_grammar_or_64_bits_is_refused(write, name, content, token):
    line = {"qrels.txt": 2, "qrels.tsv": 3, "qrels.json": 4}[name]
    message = _error(write, name, content.format(t=token), "qrels")
    assert f"{name}:{line}: expected an integer grade" in message


@pytest.mark.parametrize("grade", ["9223372036854775808", "18446744073709551616", "-9223372036854775809", "1e30"])
def test_json_number_grades_beyond_64_bits_are_refused(write, grade):
    assert "expected an integer grade within signed 64 bits" in _error(
        write, "qrels.json", f'{{"q1": {{"d1": {grade}}}}}', "qrels"
    )
    assert "expected an integer grade within signed 64 bits" in _error(
        write, "r.jsonl", f'{{"id": "q1", "retrieved": ["d1"], "relevant": {{"d1": {grade}}}}}\n', "run"
    )
    with pytest.raises(InputError, match="within signed 64 bits"):
        judgments_from_object({"q1": {"d1": json.loads(grade)}})


@pytest.mark.parametrize("score", ["1e999", "-1e999", "NaN", "Infinity", "1" + "0" * 400])
def test_json_scores_that_are_not_finite_are_refused(write, score):
    assert "expected a finite numeric score" in _error(write, "run.json", f'{{"q1": {{"d1": {score}}}}}', "run")


@pytest.mark.parametrize(
    "name, content",
    [
        ("qrels.txt", "q1 0 a 9223372036854775807\nq1 0 b 9223372036854775806\nq1 0 c -9223372036854775808\n"),
        ("qrels.json", '{"q1": {"a": 9223372036854775807, "b": 9223372036854775806, "c": -9223372036854775808}}'),
        (
            "qrels.json",
            '{"q1": {"a": "9223372036854775807", "b": "9223372036854775806", "c": -9.223372036854775808e18}}',
        ),
    ],
)
def test_grades_at_the_ends_of_64_bits_are_read_exactly(write, name, content):
    assert _qrels(write, name, content) == {"q1": {"a": (1 << 63) - 1, "b": (1 << 63) - 2, "c": -(1 << 63)}}


@pytest.mark.parametrize("token, value", [("1e3", 1000), ("2.0", 2), ("+3", 3), ("-0", 0), ("1.5e1", 15)])
def test_grades_in_other_forms_of_the_grammar_are_read(write, token, value):
    assert _qrels(write, "qrels.txt", f"q1 0 d1 {token}\n") == {"q1": {"d1": value}}


@pytest.mark.parametrize(
    "tokens",
    [
        ("0.12345678901234567", "0.12345678901234566"),  # 17 digits: numpy's conversion in the bytes reader
        ("1e-3", "9.99e-4"),
        (".5", "5."),
        ("+2", "-2"),
    ],
)
def test_scores_read_the_same_by_the_bytes_reader_and_the_line_reader(write, tokens):
    from ragreport.reading.trec import parse_run, read_run_bytes

    content = "".join(f"q1 Q0 d{i} {i} {t} x\n" for i, t in enumerate(tokens))
    fast = read_run_bytes(write("run.txt", content))
    assert fast is not None
    slow = parse_run("run.txt", content)
    assert lists_of(fast) == lists_of(slow)
    expected = sorted(range(len(tokens)), key=lambda i: (-float(tokens[i]), -i))  # ties: id descending
    assert lists_of(fast) == {"q1": [f"d{i}" for i in expected]}


# ---------------------------------------------------------------------------------------------
# Exponential gain: no overflow for any grade the grammar allows


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_exp_gain_for_grades_past_a_doubles_range_end_to_end(write, engine):
    # docs/conventions.md section 17: grades 1024 (a) and 1023 (b), the list b, a.
    run = write("run.txt", "q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\n")
    qrels = write("qrels.txt", "q1 0 a 1024\nq1 0 b 1023\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summaries = evaluate(
            [run], qrels=qrels, k=2, conventions=Conventions(gain=Gain.EXP, resamples=50), engine=engine
        )
    ndcg = document(analyse(summaries))["runs"][0]["metrics"]["nDCG@2"]
    log3 = np.log2(3)
    assert ndcg["mean"] == pytest.approx((1 / 2 + 1 / log3) / (1 + 1 / (2 * log3)), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# --compat trec_eval: single-precision scores


def test_trec_eval_order_ties_scores_equal_in_single_precision(write):
    content = "q1 Q0 d1 1 1.0000000001 t\nq1 Q0 d2 2 1.0 t\nq1 Q0 d3 3 0.5 t\n"
    assert _run(write, "run.txt", content) == {"q1": ["d1", "d2", "d3"]}
    # 1.0000000001 and 1.0 are one float: a tie, broken by id descending.
    assert _run(write, "run.txt", content, Order.TREC_EVAL) == {"q1": ["d2", "d1", "d3"]}
    assert TREC_EVAL.order is Order.TREC_EVAL


def test_trec_eval_order_keeps_scores_that_differ_in_single_precision_apart(write):
    # 16777217 is no float: it rounds to 16777216, a tie; 16777218 is one, and stays above.
    content = "q1 Q0 a 1 16777217 t\nq1 Q0 b 2 16777216 t\nq1 Q0 c 3 16777218 t\n"
    assert _run(write, "run.txt", content, Order.TREC_EVAL) == {"q1": ["c", "b", "a"]}


def test_trec_eval_order_agrees_with_pytrec_eval_on_near_ties(write):
    pytrec_eval = pytest.importorskip("pytrec_eval") if not os.environ.get("CI") else __import__("pytrec_eval")
    rng = np.random.default_rng(11)
    run, qrels = {}, {}
    for q in range(40):
        base = rng.random(6)
        # Scores that differ only beyond single precision, and some that do not.
        scores = np.concatenate([base, base + rng.choice([1e-12, 1e-9, 1e-3], size=6)])
        docs = [f"d{i:02d}" for i in rng.permutation(12)]
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs[:6]}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_5", "ndcg_cut_10"}).evaluate(run)
    run_path = write("run.txt", "".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items()))
    qrels_path = write("qrels.txt", "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    summaries = evaluate([run_path], qrels=qrels_path, k=(5, 10, 12), conventions=TREC_EVAL)
    made = document(analyse(summaries))
    by_query = {row["id"]: row for row in query_rows(made, made["runs"][0])}
    for q, figures in expected.items():  # 12 ids a list: RR@12 is trec_eval's recip_rank
        assert by_query[q]["RR@12"] == pytest.approx(figures["recip_rank"], abs=1e-12), q
        assert by_query[q]["P@5"] == pytest.approx(figures["P_5"], abs=1e-12), q
        assert by_query[q]["nDCG@10"] == pytest.approx(figures["ndcg_cut_10"], abs=1e-12), q
    default, single = (
        lists_of(run_from_object(run, "r", Order.SCORE)),
        lists_of(run_from_object(run, "r", Order.TREC_EVAL)),
    )
    differ = sum(default[q] != single[q] for q in run)
    assert differ > 0  # the case is not vacuous: double precision would order some lists otherwise


# ---------------------------------------------------------------------------------------------
# Parquet partitions (the stream engine reads them)


def _parquet(tmp_path, name: str, **columns):
    pa = pytest.importorskip("pyarrow") if not os.environ.get("CI") else __import__("pyarrow")
    import pyarrow.parquet as pq

    folder = tmp_path / "parts"
    folder.mkdir(exist_ok=True)
    pq.write_table(pa.table(columns), folder / name)
    return folder


def _stream_error(tmp_path, folder) -> str:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_LINE)
    with pytest.raises(InputError) as caught:
        evaluate([folder], qrels=qrels, k=1, engine="stream")
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("bad, shown", [(float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_parquet_scores_that_are_not_finite_are_refused_naming_the_row(tmp_path, bad, shown):
    folder = _parquet(tmp_path, "p.parquet", query_id=["q1", "q1", "q1"], doc_id=["a", "b", "c"], score=[1.0, bad, 2.0])
    message = _stream_error(tmp_path, folder)
    assert message.endswith(f"p.parquet:2: expected a finite number in column 'score', got {shown}")


def test_parquet_text_scores_are_refused(tmp_path):
    folder = _parquet(tmp_path, "p.parquet", query_id=["q1"], doc_id=["a"], score=["0.5"])
    assert "p.parquet: expected a numeric 'score' column, got a column of string" in _stream_error(tmp_path, folder)


@pytest.mark.parametrize("column", ["query_id", "doc_id"])
def test_a_parquet_null_id_is_refused_not_read_as_none(tmp_path, column):
    ids = {"query_id": ["q1", "q1"], "doc_id": ["a", "b"]}
    ids[column] = [ids[column][0], None]
    folder = _parquet(tmp_path, "p.parquet", score=[1.0, 2.0], **ids)
    what = "query" if column == "query_id" else "document"
    assert f"p.parquet:2: expected a {what} id in column '{column}', got a null" in _stream_error(tmp_path, folder)


@pytest.mark.parametrize("char, code", BAD, ids=[c for _, c in BAD])
def test_parquet_ids_refuse_the_same_characters(tmp_path, char, code):
    folder = _parquet(tmp_path, "p.parquet", query_id=["q1", "q1"], doc_id=["a", f"q1{char}"], score=[1.0, 2.0])
    message = _stream_error(tmp_path, folder)
    assert f"p.parquet:2: expected a document id without control or bidi characters, got {repr('q1' + char)}" in message
    assert f"(holds {code})" in message


def test_parquet_empty_id_is_refused(tmp_path):
    folder = _parquet(tmp_path, "p.parquet", query_id=["", "q1"], doc_id=["a", "b"], score=[1.0, 2.0])
    assert "p.parquet:1: expected a query id in column 'query_id' as a non-empty string" in _stream_error(
        tmp_path, folder
    )


def test_parquet_ids_have_the_files_bound(tmp_path):
    # The gate's length rule (docs/conventions.md section 18), which Parquet partitions lacked.
    folder = _parquet(tmp_path, "p.parquet", query_id=["q1", "q1"], doc_id=["a", "z" * 3000], score=[1.0, 2.0])
    assert "p.parquet:2: expected an id of at most 2,048 bytes, got 3,000 bytes" in _stream_error(tmp_path, folder)


def test_parquet_integer_ids_and_ranks_are_read(tmp_path):
    folder = _parquet(tmp_path, "p.parquet", query_id=[1, 1, 2], doc_id=[7, 8, 9], rank=[2, 1, 1])
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 8 1\n2 0 9 1\n")
    summaries = evaluate([folder], qrels=qrels, k=1, engine="stream", conventions=Conventions(resamples=50))
    assert document(analyse(summaries))["runs"][0]["metrics"]["P@1"]["mean"] == 1.0  # rank 1 first: 8 for 1, 9 for 2


# ---------------------------------------------------------------------------------------------
# Engines agree on hostile-but-valid files


def _hostile_valid(tmp_path):
    """Runs that are valid but odd: a byte-order mark, CRLF line ends, comments and blank lines, runs
    of blanks, non-ASCII and no-break-space ids, exponents and 17-digit scores, ties; and qrels with
    a byte-order mark and CRLF."""
    rng = np.random.default_rng(5)
    lines = []
    for q in range(25):
        qid = ["q", "é", "q\u00a0"][q % 3] + str(q)
        for r in range(12):
            doc = ["d", "dé", "d#", "д"][r % 4] + str(int(rng.integers(0, 40)))
            score = [f"{rng.random():.17g}", f"{rng.random() * 1e-5:e}", "1", f"{rng.integers(0, 3)}.5"][r % 4]
            lines.append(f"{qid} Q0 {doc} {r + 1} {score} run")
    bom_run = tmp_path / "bom.trec"
    bom_run.write_bytes(("\ufeff" + "\n".join(lines) + "\n").encode())
    crlf_run = tmp_path / "crlf.trec"
    crlf_run.write_bytes(("# a comment\r\n\r\n" + "\r\n".join(lines[::-1]) + "\r\n").encode())
    blank_run = tmp_path / "blanks.trec"
    blank_run.write_bytes("\n".join(line.replace(" Q0 ", "  Q0\t") for line in lines).encode())
    judged = {(line.split()[0], line.split()[2]) for line in lines}
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(
        (
            "\ufeff"
            + "".join(f"{q} 0 {d} {int(rng.integers(-1, 4))}\r\n" for q, d in sorted(judged) if rng.random() < 0.5)
        ).encode()
    )
    return [bom_run, crlf_run, blank_run], qrels


def test_memory_and_stream_agree_on_hostile_but_valid_files(tmp_path):
    runs, qrels = _hostile_valid(tmp_path)
    memory = _figures(runs, qrels)
    stream = _figures(runs, qrels, engine="stream", partition_bytes=1 << 20)
    same_but_bands(memory, stream)  # the bands are the Poisson bootstrap's (docs/conventions.md section 29)
    for partition_bytes in (10, 700):  # 10: a cut after every query, the first right after the BOM's line
        assert stream == _figures(runs, qrels, engine="stream", partition_bytes=partition_bytes)
    queries = {row["id"] for row in memory["queries"][0]}
    assert len(queries) == 25 and not any(q.startswith("\ufeff") for q in queries)


def test_memory_and_stream_agree_under_trec_evals_single_precision_order(tmp_path):
    rng = np.random.default_rng(2)
    lines, qrels = [], []
    for q in range(20):
        base = rng.random(4)
        for i, score in enumerate(np.concatenate([base, base + 1e-10])):  # ties in single precision
            lines.append(f"q{q} Q0 d{int(rng.integers(0, 30))}x{i} {i + 1} {float(score)!r} t\n")
        qrels += [line.split()[0] + " 0 " + line.split()[2] + " 1\n" for line in lines[-8:] if rng.random() < 0.3]
    run = tmp_path / "run.trec"
    run.write_text("".join(lines))
    judged = tmp_path / "qrels.txt"
    judged.write_text("".join(qrels))
    single = Conventions(resamples=50, order=Order.TREC_EVAL)
    memory = _figures([run], judged, single)
    assert memory != _figures([run], judged)  # the order matters on this run
    same_but_bands(memory, _figures([run], judged, single, engine="stream", partition_bytes=300))


def test_the_byte_order_mark_never_reaches_a_query_id_in_the_stream_engine(tmp_path):
    from ragreport.scoring.partition import read_partition

    path = tmp_path / "bom.trec"
    for content in ("\ufeffq1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\n", "\ufeffq1  Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\n"):
        path.write_bytes(content.encode())
        size = path.stat().st_size
        for span in (None, (0, size), (0, size - len("q2 Q0 d1 1 2 t\n"))):
            run = read_partition(path, span, Order.SCORE)
            assert run.query_ids.tolist()[0] == "q1", (content, span)


def test_the_stream_engine_refuses_a_cr_alone_naming_the_files_line(tmp_path):
    run = tmp_path / "run.trec"
    run.write_bytes(b"q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq3 Q0 d1 1 2 t\rq3 Q0 d2 2 1 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_LINE)
    for partition_bytes in (10, 1 << 20):
        with pytest.raises(InputError, match=r"run.trec:3: expected lines ending in LF or CRLF, got a CR alone"):
            evaluate([run], qrels=qrels, k=1, engine="stream", partition_bytes=partition_bytes)


def test_the_stream_engine_refuses_a_forbidden_id_naming_the_files_line(tmp_path):
    run = tmp_path / "run.trec"
    run.write_bytes("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq3 Q0 d\u202e1 1 2 t\n".encode())
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS_LINE)
    for partition_bytes in (10, 1 << 20):
        with pytest.raises(InputError, match=r"run.trec:3: expected a document id .*\(holds U\+202E\)"):
            evaluate([run], qrels=qrels, k=1, engine="stream", partition_bytes=partition_bytes)


@pytest.mark.slow
def test_dask_agrees_with_stream_and_memory_on_hostile_but_valid_files(tmp_path):
    if not os.environ.get("CI"):  # in CI Dask is installed (the test extra): the test must run
        pytest.importorskip("dask.distributed")
    runs, qrels = _hostile_valid(tmp_path)
    assert _figures(runs, qrels, engine="stream") == _figures(runs, qrels, engine="dask", partition_bytes=700)
    single = Conventions(resamples=50, order=Order.TREC_EVAL)
    dask = _figures(runs, qrels, single, engine="dask", partition_bytes=700)
    assert _figures(runs, qrels, single, engine="stream") == dask
    same_but_bands(_figures(runs, qrels, single), dask)
    bad = tmp_path / "bad.trec"
    bad.write_bytes("q1 Q0 d1 1 2 t\nq2 Q0 d1 1 2 t\nq3 Q0 d\u202e1 1 2 t\rq3 Q0 d2 1 1 t\n".encode())
    with pytest.raises(InputError, match=r"bad.trec:3: expected (a document id|lines ending in LF)"):
        evaluate([bad], qrels=qrels, k=1, engine="dask", partition_bytes=10)


@pytest.mark.parametrize(
    "name, content, role, line",
    [
        ("run.json", '{\n"": {"d1": 1}}', "run", 2),
        ("run.json", '{\n"q1": {\n"": 1}}', "run", 3),
        ("qrels.json", '{\n"q1": {\n"": 1}}', "qrels", 3),
        ("qrels.json", '{\n"": {}}', "qrels", 2),
        ("r.jsonl", '{"id": "q1", "retrieved": ["d1"], "relevant": {"": 1}}\n', "run", 1),
        ("run.csv", "q1,,1\n", "run", 1),
    ],
)
def test_an_empty_id_is_refused_in_every_format(write, name, content, role, line):
    message = _error(write, name, content, role)
    assert re.search(rf"{re.escape(name)}:{line}: expected .*(non-empty|a document id)", message), message
    assert "empty" in message


def test_ascii_separators_stay_in_an_id_and_are_refused_in_blank_separated_csv(write):
    assert "(holds U+001C)" in _error(write, "run.csv", "q1 d\x1c1 2\n", "run")


@pytest.mark.parametrize("char, code", [("\x1f", "U+001F"), ("\x85", "U+0085"), ("\x1b", "U+001B")])
@pytest.mark.parametrize("name, template", [("run.csv", "q1,d1{c},2\n"), ("run.tsv", "q1\td1{c}\t2\n")])
def test_a_control_character_at_the_end_of_a_delimited_field_is_refused_not_stripped(write, name, template, char, code):
    assert f"(holds {code})" in _error(write, name, template.format(c=char), "run")


HUGE = "9" * 5000  # past the 4300 digits Python's int() converts


@pytest.mark.parametrize(
    "name, content, role, expected",
    [
        ("qrels.txt", f"q1 0 d1 {HUGE}\n", "qrels", "qrels.txt:1: expected an integer grade within signed 64 bits"),
        ("qrels.json", f'{{"q1": {{"d1": {HUGE}}}}}', "qrels", "qrels.json:1: expected an integer grade within"),
        ("r.jsonl", f'{{"id": "q1", "retrieved": [], "relevant": {{"d1": {HUGE}}}}}\n', "run", "r.jsonl:1: expected"),
        ("run.json", f'{{"q1": {{"d1": {HUGE}}}}}', "run", "run.json:1: expected a finite numeric score"),
        ("run.txt", f"q1 Q0 d1 1 {HUGE} t\n", "run", "run.txt:1: expected a finite numeric score"),
    ],
    ids=["trec-qrels", "json-qrels", "jsonl", "json-run", "trec-run"],
)
def test_numbers_of_thousands_of_digits_are_one_error(write, name, content, role, expected):
    assert expected in _error(write, name, content, role)
