"""The bytes-level TREC reader: the strict layout it takes, what it hands back to the text reader,
numbers parsed exactly as strtod does, and chunk boundaries that cut through a query."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.core.ids import as_text
from ragreport.reading import trecbytes
from ragreport.reading.files import read_text
from ragreport.reading.trec import parse_run, read_qrels_bytes, read_run_bytes


def _columns(path, chunk_bytes=trecbytes.CHUNK_BYTES):
    return trecbytes.read_columns(path, 6, id_column=2, number_column=4, integers=False, chunk_bytes=chunk_bytes)


def test_reads_groups_ids_and_scores(write):
    path = write("run", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 -0.25 t\nq2 Q0 d3 1 +7 t\n")
    columns = _columns(path)
    assert as_text(columns.group_ids) == ["q1", "q2"] and columns.group_lengths.tolist() == [2, 1]
    assert as_text(columns.ids) == ["d1", "d2", "d3"]
    assert columns.numbers.tolist() == [2.5, -0.25, 7.0]


@pytest.mark.parametrize(
    "text",
    [
        "q1  Q0 d1 1 2.5 t\n",  # two spaces
        "q1 Q0 d1 1 2.5 t\rq1 Q0 d2 2 1 t\n",  # a lone carriage return
        "q1 Q0 d1 1 2.5 t extra\n",  # a seventh field
        "q1 Q0 d1 1 abc t\n",  # a score that is no number
        "q1 Q0 d1 1 nan t\n",  # not finite
        "q1 Q0 d1 1 2.5 t\n\ufeffq1 Q0 d2 1 2.5 t\n",  # a byte-order mark inside the file
        "q1\x7f Q0 d1 1 2.5 t\n",  # DEL
        "q1 Q0 d\u202e1 1 2.5 t\n",  # a bidi override
        "q1 Q0 d1 1 1_0 t\n",  # an underscore numpy would take
        "q1 Q0 d1 1 1e999 t\n",  # beyond a double
        " q1 Q0 d1 1 2.5 t\n",  # leading blank
    ],
)
def test_anything_but_the_strict_layout_goes_to_the_text_reader(write, text):
    assert _columns(write("run", text)) is None


def test_a_byte_order_mark_at_the_start_is_dropped(write):
    columns = _columns(write("run", "\ufeffq1 Q0 d1 1 2.5 t\n"))
    assert as_text(columns.group_ids) == ["q1"] and as_text(columns.ids) == ["d1"]


@pytest.mark.parametrize("grade", ["1234567890123456", "9223372036854775808", "2.0", "1e3"])
def test_grades_beyond_15_digits_or_not_plain_go_to_the_line_reader(write, grade):
    assert read_qrels_bytes(write("qrels", f"q1 0 d1 {grade}\n")) is None


def test_windows_line_ends_in_qrels_read_like_unix_ones(write):
    judgments = read_qrels_bytes(write("qrels", "q1 0 d1 2\r\nq1 0 d2 0\r\nq2 0 d3 1\r\n"))
    assert judgments.query_ids.tolist() == ["q1", "q2"]
    assert as_text(judgments.doc_ids) == ["d1", "d2", "d3"]
    assert judgments.grades.tolist() == [2, 0, 1]


def test_windows_line_ends_read_like_unix_ones(write):
    path = write("run", "q1 Q0 d1 1 2.5 t\r\nq1 Q0 d2 2 3 t\r\n")
    assert as_text(read_run_bytes(path).doc_ids) == ["d2", "d1"]


def test_the_text_reader_reads_what_the_bytes_reader_leaves(write):
    path = write("run", "q1  Q0 d1 1 2.5 t\r\nq1 Q0 d2 2 3 t\r\n")
    assert read_run_bytes(path) is None
    run = parse_run(path, read_text(path))
    assert as_text(run.doc_ids) == ["d2", "d1"]


def test_comment_and_blank_lines_are_dropped_as_the_line_reader_drops_them(write):
    path = write("run", "# header\nq1 Q0 d1 1 2.5 t\n\n#q1 Q0 d9 1 9 t\nq1 Q0 d2 2 1 t\n")
    fast = _columns(path)
    assert as_text(fast.ids) == ["d1", "d2"] and fast.group_lengths.tolist() == [2]
    assert _columns(write("only", "# nothing but a comment\n\n")) is None


def test_a_file_without_final_newline_or_with_trailing_blank_lines(write):
    for text in ("q1 Q0 d1 1 2.5 t", "q1 Q0 d1 1 2.5 t\n\n\n  \n"):
        assert as_text(_columns(write("run", text)).ids) == ["d1"]


def test_chunk_boundaries_cut_through_queries(write):
    lines = [f"q{q} Q0 doc{q}-{d} {d} {100 - d}.5 tag\n" for q in range(40) for d in range(30)]
    path = write("run", "".join(lines))
    columns = _columns(path, chunk_bytes=1000)
    assert as_text(columns.group_ids) == [f"q{q}" for q in range(40)]
    assert columns.group_lengths.tolist() == [30] * 40
    assert as_text(columns.ids) == [line.split()[2] for line in lines]


def test_gzip_and_utf8_ids(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress("q1 Q0 dé 1 2 t\nq1 Q0 d€ 2 1 t\n".encode()))
    run = read_run_bytes(path)
    assert run.doc_ids.dtype.kind == "S" and as_text(run.doc_ids) == ["dé", "d€"]


def test_invalid_utf8_is_left_to_the_text_reader(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"q1 Q0 d\xff 1 2 t\n")
    assert read_run_bytes(path) is None


def test_interleaved_queries_are_gathered_in_first_appearance_order(write):
    path = write("run", "q2 Q0 a 1 1 t\nq1 Q0 b 1 3 t\nq2 Q0 c 2 2 t\n")
    run = read_run_bytes(path)
    assert run.query_ids.tolist() == ["q2", "q1"] and run.offsets.tolist() == [0, 2, 3]
    assert as_text(run.doc_ids) == ["c", "a", "b"]


def test_qrels_with_a_repeated_pair_go_to_the_text_reader(write):
    assert read_qrels_bytes(write("qrels", "q1 0 d1 1\nq1 0 d1 1\n")) is None
    judgments = read_qrels_bytes(write("qrels", "q1 0 d1 -1\nq2 0 d1 3\n"))
    assert judgments.grades.tolist() == [-1, 3] and judgments.query_ids.tolist() == ["q1", "q2"]


def test_grades_must_be_integers(write):
    assert read_qrels_bytes(write("qrels", "q1 0 d1 1.5\n")) is None


_decimal = st.builds(
    lambda sign, whole, frac: f"{sign}{whole}{'.' + frac if frac is not None else ''}",
    st.sampled_from(["", "-", "+"]),
    st.text("0123456789", min_size=1, max_size=12),
    st.one_of(st.none(), st.text("0123456789", min_size=0, max_size=12)),
)
_number = st.one_of(
    _decimal, st.floats(allow_nan=False, allow_infinity=False).map(repr), st.integers(-(10**20), 10**20).map(str)
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_number, min_size=1, max_size=20))
def test_scores_parse_to_the_same_double_as_python_float(tmp_path_factory, numbers):
    path = tmp_path_factory.mktemp("n") / "run"
    path.write_text("".join(f"q1 Q0 d{i} {i} {n} t\n" for i, n in enumerate(numbers)))
    columns = _columns(path)
    assert columns is not None
    expected = np.array([float(n) for n in numbers])
    assert columns.numbers.tobytes() == expected.tobytes()  # bit for bit, -0.0 included


def test_both_readers_split_fields_on_ascii_blanks_only(write):
    lines = "q1 Q0 d\u00a0x 1 2 r\nq1 Q0 y 2 1 r\n"  # a no-break space inside an id
    fast = read_run_bytes(write("run", lines))
    slow_path = write("slow", "q1  Q0 z 3 0 r\n" + lines)  # two spaces send it to the line reader
    assert read_run_bytes(slow_path) is None
    slow = parse_run(slow_path, read_text(slow_path))
    assert as_text(fast.doc_ids) == as_text(slow.doc_ids)[:2] == ["d\u00a0x", "y"]


def test_a_special_file_is_left_to_the_line_reader_unopened(tmp_path):
    import os
    from pathlib import Path

    from ragreport.reading.trecbytes import read_columns

    os.mkfifo(tmp_path / "fifo")
    assert read_columns(tmp_path / "fifo", 6, 2, 4, integers=False) is None  # opened, it would block
    assert read_columns(Path("/dev/zero"), 6, 2, 4, integers=False) is None  # read, it would never end


@pytest.mark.parametrize("byte", [b for b in range(32) if b not in (9, 10)])
def test_a_control_byte_inside_an_id_goes_to_the_line_reader(write, byte):
    # The strict check counts the bytes below 33 as separators; a control byte inside an id is one
    # too many, so the chunk is not strict, and the full id check then refuses it.
    path = write("run", "q1 Q0 d1 1 2.5 t\nq1 Q0 d" + chr(byte) + "2 2 1.5 t\n")
    assert _columns(path) is None


def test_tabs_and_spaces_between_fields_are_both_strict(write):
    columns = _columns(write("run", "q1\tQ0 d1\t1 2.5\tt\nq1 Q0\td2 2\t1.5 t\n"))
    assert as_text(columns.ids) == ["d1", "d2"] and columns.numbers.tolist() == [2.5, 1.5]


@pytest.mark.parametrize(
    "score, value",
    [("12.3456789", 12.3456789), ("-0.000000001", -1e-09), ("123456789.5", 123456789.5), ("1234567.", 1234567.0)],
)
def test_scores_wider_than_one_word_parse_like_float(write, score, value):
    # Fields over 8 bytes are counted word by word: the point may sit in either word.
    columns = _columns(write("run", f"q1 Q0 d1 1 {score} t\nq1 Q0 d2 2 .5 t\n"))
    assert columns.numbers.tolist() == [value, 0.5]
