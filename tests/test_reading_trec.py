"""reading.trec: TREC runs (ordered by score, ties by id descending) and qrels, and their errors."""

from __future__ import annotations

import pytest
from helpers import QRELS_LINE, RUN_LINE, grades_of, lists_of, load_error

from ragreport.core.model import Order
from ragreport.reading.registry import load_runs


def test_trec_run_is_ordered_by_score_then_docid_descending(write):
    run = write(
        "run.trec",
        "q1 Q0 d2 1 1.0 t\nq1 Q0 d3 2 1.0 t\nq1 Q0 d10 3 5 t\nq1 Q0 d1 4 1.0 t\n# a comment\n\nq0 Q0 x 1 0.1 t\n",
    )
    qrels = write("qrels.txt", "q1 0 d1 1\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert lists_of(loaded.run) == {"q1": ["d10", "d3", "d2", "d1"], "q0": ["x"]}
    (kept,) = load_runs([run], qrels=qrels, order=Order.FILE)
    assert lists_of(kept.run)["q1"] == ["d2", "d3", "d10", "d1"]


def test_trec_qrels_accept_integral_floats_and_identical_duplicates(write):
    qrels = write("qrels", "q1 0 d1 2.0\nq1 0 d1 2\nq1 0 d2 -1\n")
    run = write("run", "q1 Q0 d1 1 1 t\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert grades_of(loaded.judgments) == {"q1": {"d1": 2, "d2": -1}}


ERRORS = [
    # (file name, content, as, expected message fragment)
    (
        "run.txt",
        RUN_LINE + "q1 Q0 d2 2 1.0\n",
        "run",
        "run.txt:2: expected 6 fields 'qid Q0 docid rank score tag', got 5 fields",
    ),
    (
        "run.txt",
        "q1 0 d1 1\n",
        "run",
        "run.txt:1: expected 6 fields 'qid Q0 docid rank score tag', got 4 fields (this looks like qrels",
    ),
    (
        "run.txt",
        RUN_LINE + "q1 Q0 d2 2 high tag\n",
        "run",
        "run.txt:2: expected a numeric score for query 'q1' id 'd2' (field 5), got 'high'",
    ),
    ("run.txt", "q1 Q0 d2 2 nan tag\n", "run", "run.txt:1: expected a finite numeric score"),
    ("run.txt", "\n# only a comment\n", "run", "run.txt: expected at least one run line, got an empty file"),
    (
        "qrels.txt",
        QRELS_LINE + "q1 0 d2\n",
        "qrels",
        "qrels.txt:2: expected 4 fields 'qid iter docid grade', got 3 fields",
    ),
    ("qrels.txt", RUN_LINE, "qrels", "got 6 fields (this looks like a run: give it as a run, not as judgments)"),
    (
        "qrels.txt",
        QRELS_LINE + "q1 0 d2 1.7\n",
        "qrels",
        "qrels.txt:2: expected an integer grade for query 'q1' id 'd2' (field 4), got '1.7'",
    ),
    ("qrels.txt", "q1 0 d2 high\n", "qrels", "qrels.txt:1: expected an integer grade"),
    (
        "qrels.txt",
        "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n",
        "qrels",
        "qrels.txt:3: expected one grade per query and id (query 'q1' id 'd1' was graded 1 on line 1), got grade 2",
    ),
    ("qrels.txt", "", "qrels", "qrels.txt: expected at least one judgment line, got an empty file"),
]


@pytest.mark.parametrize("name, content, role, message", ERRORS, ids=[e[3][:50] for e in ERRORS])
def test_error_names_file_line_and_expectation(write, name, content, role, message):
    assert message in load_error(write, name, content, role)


def test_the_bytes_reader_keeps_its_columns_at_their_size(tmp_path):
    # Short lines first, long ones after: the first chunk's estimate of the lines to come falls
    # short, the columns grow by a quarter, and what is returned holds the lines read and no more
    # (a view of the grown block would keep its spare lines resident beside the run).
    from ragreport.reading import trecbytes

    lines = [f"q1 Q0 d{i} {i + 1} {100 - i}.5 r\n" for i in range(50)]
    lines += [f"q2 Q0 {'x' * 40}{i} {i + 1} {9 - i / 100} r\n" for i in range(200)]
    path = tmp_path / "run.trec"
    path.write_text("".join(lines))
    columns = trecbytes.read_columns(path, 6, id_column=2, number_column=4, integers=False, chunk_bytes=512)
    assert columns is not None
    assert len(columns.ids) == len(columns.numbers) == 250
    for column in (columns.ids, columns.numbers):
        assert column.base is None and column.nbytes == 250 * column.dtype.itemsize
    assert columns.ids[:2].tolist() == [b"d0", b"d1"] and columns.ids[-1] == b"x" * 40 + b"199"
    assert columns.numbers[0] == 100.5 and columns.numbers[-1] == 9 - 199 / 100
