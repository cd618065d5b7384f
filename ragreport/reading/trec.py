"""TREC runs and qrels: whitespace-separated fields, one row per line.

- Run: ``qid Q0 docid rank score tag`` per line. The rank column is ignored (the score orders
  the list, ties by id descending, as trec_eval does) and text after the sixth field is ignored.
- Qrels: ``qid iter docid grade`` per line; ``iter`` is ignored; grades are integers (``2.0`` is
  2), negative ones included; a (query, id) pair given twice must have one grade.

Ids and numbers follow docs/conventions.md section 17. Blank lines and ``#`` comment lines are
skipped. Most files are read by the bytes-level reader (:mod:`ragreport.reading.trecbytes`); one
it does not accept (runs of spaces, a malformed line, a character no id may hold) is read line by
line here, which names the line at fault in every error. TREC is the catch-all format: a file no
other reader claims is read as TREC.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.errors import InputError
from ..core.ids import has_duplicates, hash_ids
from ..core.model import Judgments, Order, Run
from . import trecbytes
from .files import RUN_AS_QRELS, data_lines, field_count, field_splitter, stem, text_of
from .gate import passed
from .reader import Reader
from .rows import JudgmentCollector, RunRows, group_by_query, parse_grade, parse_score, ranked_run


def read_run_bytes(
    path: str | Path, order: Order = Order.SCORE, name: str = "", span: tuple[int, int] | None = None
) -> Run | None:
    """A strictly laid out TREC run (bytes ``span`` of it: a partition) read by
    :mod:`ragreport.reading.trecbytes`, ids kept as UTF-8 bytes; None when it is not strict, and
    :func:`parse_run` reads it line by line."""
    path = Path(path)
    columns = trecbytes.read_columns(path, 6, id_column=2, number_column=4, integers=False, span=span)
    if columns is None:
        return None
    qids, line_query, counts = trecbytes.query_index(columns)
    # The gate's rule was checked on the bytes (trecbytes: forbidden_in_utf8, fields of 1 to 64 bytes).
    run = ranked_run(
        name or stem(path), str(path), qids, columns.ids, columns.numbers, order, query_index=line_query, counts=counts
    )
    return passed(run)


def read_qrels_bytes(path: str | Path, span: tuple[int, int] | None = None) -> Judgments | None:
    """Strictly laid out TREC qrels (bytes ``span`` of them) read by :mod:`ragreport.reading.trecbytes`;
    None when the file is not strict or names a (query, id) pair twice (the line-by-line reader
    then decides)."""
    path = Path(path)
    columns = trecbytes.read_columns(path, 4, id_column=2, number_column=3, integers=True, span=span)
    if columns is None:
        return None
    qids, line_query, counts = trecbytes.query_index(columns)
    offsets, (docs, grades) = group_by_query(line_query, counts, columns.ids, columns.numbers.astype(np.int64))
    assert docs is not None and grades is not None  # both columns are arrays
    if has_duplicates(hash_ids(docs, query=np.repeat(np.arange(len(qids)), np.diff(offsets)))):
        return None
    return passed(  # the gate's rule, checked on the bytes (see read_run_bytes)
        Judgments(query_ids=np.array(qids, dtype=str), offsets=offsets, doc_ids=docs, grades=grades, source=str(path))
    )


def parse_run(path: str | Path, text: str, order: Order = Order.SCORE, name: str = "") -> Run:
    """A TREC run from its text, line by line (the rank column, text after the sixth field, ``#``
    lines and blank lines ignored, as trec_eval does)."""
    path = Path(path)
    rows = RunRows()
    split = field_splitter(text)
    for number, line in data_lines(text):
        fields = split(line)
        if len(fields) < 6:
            got = field_count(fields, 4, " (this looks like qrels: give it with --qrels)")
            raise InputError(path, number, "6 fields 'qid Q0 docid rank score tag'", got)
        qid, _, doc, _, score_text = fields[:5]
        rows.add(qid, doc, parse_score(score_text, path, number, f"query {qid!r} id {doc!r} (field 5)"), number)
    if not rows.qids:
        raise InputError(path, None, "at least one run line", "an empty file")
    return rows.run(name or stem(path), path, order)


def read_run(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
    """A TREC run, by the bytes-level reader when it can (even when the text is at hand: it is the
    faster of the two), else line by line. A TREC run carries no judgments."""
    run = read_run_bytes(path, order)
    return (run if run is not None else parse_run(path, text_of(path, text), order)), None


def read_qrels(path: Path, text: str | None) -> Judgments:
    """TREC qrels, by the bytes-level reader when it can, else line by line."""
    judgments = read_qrels_bytes(path)
    if judgments is not None:
        return judgments
    text = text_of(path, text)
    collector = JudgmentCollector(path)
    split = field_splitter(text)
    for number, line in data_lines(text):
        fields = split(line)
        if len(fields) != 4:
            raise InputError(path, number, "4 fields 'qid iter docid grade'", field_count(fields, 6, RUN_AS_QRELS))
        qid, _, doc, grade_text = fields
        collector.add(qid, doc, parse_grade(grade_text, path, number, f"query {qid!r} id {doc!r} (field 4)"), number)
    return collector.judgments((None, "at least one judgment line", "an empty file"))


READER = Reader(name="trec", extensions=(), sniff=None, read_run=read_run, read_qrels=read_qrels, label="TREC lines")
