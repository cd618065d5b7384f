"""Delimited files: CSV/TSV runs and BEIR's TSV qrels.

- Run: ``qid,docid,score`` or ``qid,docid,rank,score`` (commas, else tabs, else blanks), with or
  without a header. A header names the columns (``qid``/``query_id``/``query-id``,
  ``docid``/``doc_id``/``corpus-id``, ``score``, ``rank``) in any order. Without a score the rank
  orders each list (low first); with a score the TREC rule applies (score high to low, ties by
  id descending), unless ``--order file``.
- Qrels: BEIR's TSV, a ``query-id corpus-id score`` header then three tab-separated columns, the
  score an integer grade. A ``.tsv`` qrels file without that header holds TREC qrels (MS MARCO's
  ``qrels.dev.tsv``): the catch-all format reads it.

With commas or tabs, fields may be quoted as RFC 4180 has it (``q1,"d,1",0.5``; a doubled quote
inside quotes is one quote). Ids and numbers follow docs/conventions.md section 17. Blank lines
and ``#`` comment lines are skipped. The format is detected from a ``.csv`` or
``.tsv`` name, or from a first line that is such a header or holds two or three commas and no
blank.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from ..core.errors import InputError
from ..core.model import Judgments, Order, Run
from .files import BLANKS, RUN_AS_QRELS, data_lines, field_count, first_line_of, split_fields, stem, text_of
from .reader import Reader
from .rows import JudgmentCollector, RunRows, parse_grade, parse_score

#: Header names of a query column and a document column: BEIR's, ranx data frames',
#: ir_datasets' TSV exports' (Parquet partitions name their columns alike).
QUERY_COLUMNS = ("qid", "query_id", "query-id", "q_id", "query")
DOC_COLUMNS = ("docid", "doc_id", "corpus-id", "corpus_id", "pid", "passage_id", "doc_no", "docno")


_QUOTED = re.compile(r'"[^"]*"')


def _delimiter(line: str) -> str | None:
    """``,`` when the line holds a comma outside quotes, else a tab when it holds one, else None (blanks)."""
    bare = _QUOTED.sub("", line) if '"' in line else line
    return "," if "," in bare else ("\t" if "\t" in bare else None)


def _split_line(line: str, delimiter: str | None) -> list[str]:
    """The fields of a line, each stripped of ASCII blanks (``str.strip()`` would also take U+001C-U+001F,
    U+0085 and Unicode spaces off an id's ends). With a comma or a tab, a field may be quoted
    as RFC 4180 has it (a comma inside quotes, a quote doubled inside them); a quote that is not closed, or text after a
    closing quote, is a :class:`csv.Error`."""
    if delimiter is None:
        return split_fields(line)
    if '"' not in line:
        return [f.strip(BLANKS) for f in line.split(delimiter)]
    fields = next(csv.reader([line], delimiter=delimiter, strict=True, skipinitialspace=True))
    return [f.strip(BLANKS) for f in fields]


def _fields(path: Path, number: int, line: str, delimiter: str | None) -> list[str]:
    """:func:`_split_line`, its quoting errors named by file and line."""
    try:
        return _split_line(line, delimiter)
    except csv.Error as exc:
        raise InputError(path, number, "fields quoted as RFC 4180 has it", str(exc)) from None


def header(line: str) -> list[str] | None:
    """The column names of a header line (one naming a query column and a document column), else None."""
    try:
        names = [f.lower() for f in _split_line(line, _delimiter(line))]
    except csv.Error:
        return None
    if any(n in QUERY_COLUMNS for n in names) and any(n in DOC_COLUMNS for n in names):
        return names
    return None


def sniff(first_line: str, text: str, complete: bool) -> bool:
    """A header, or a single field with two or three commas (``q1,d1,0.5``: a CSV run without one)."""
    line = first_line.strip()
    return header(line) is not None or (len(line.split()) == 1 and line.count(",") in (2, 3))


def read_run(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
    """A CSV/TSV run (see the module); it carries no judgments."""
    lines = list(data_lines(text_of(path, text)))
    if not lines:
        raise InputError(path, None, "at least one run line", "an empty file")
    delimiter = _delimiter(lines[0][1])
    names = header(lines[0][1])
    if names is not None:
        columns = {
            "qid": next(i for i, n in enumerate(names) if n in QUERY_COLUMNS),
            "docid": next(i for i, n in enumerate(names) if n in DOC_COLUMNS),
        }
        columns.update((column, names.index(column)) for column in ("score", "rank") if column in names)
        lines, width = lines[1:], len(names)
    else:
        width = len(_fields(path, lines[0][0], lines[0][1], delimiter))
        if width not in (3, 4):
            raise InputError(
                path,
                lines[0][0],
                "3 columns 'qid,docid,score', 4 'qid,docid,rank,score' or a header naming them",
                f"{width} columns",
            )
        columns = dict(
            zip(("qid", "docid", "score") if width == 3 else ("qid", "docid", "rank", "score"), range(width))
        )
    rows = RunRows()
    for number, line in lines:
        fields = _fields(path, number, line, delimiter)
        if len(fields) != width:
            raise InputError(path, number, f"{width} columns as on the first line", f"{len(fields)} columns")
        qid, doc = fields[columns["qid"]], fields[columns["docid"]]
        if not qid or not doc:
            raise InputError(path, number, "a query id and a document id", "an empty field")
        if "score" in columns:
            key = parse_score(fields[columns["score"]], path, number, f"query {qid!r} id {doc!r}")
        elif "rank" in columns:  # the rank orders the list, low first
            key = -parse_score(fields[columns["rank"]], path, number, f"the rank of query {qid!r} id {doc!r}")
        else:
            key = 0.0
        rows.add(qid, doc, key, number)
    return rows.run(stem(path), path, order, ranked="score" in columns or "rank" in columns), None


def read_qrels(path: Path, text: str | None) -> Judgments | None:
    """BEIR TSV qrels: a ``query-id corpus-id score`` header, then three columns (tab-separated;
    blank-separated when a line has no tab). None when the first line is no header (TREC qrels in a
    ``.tsv`` file: the catch-all TREC reader then reads them, fast, without this text)."""
    first = first_line_of(path, text)
    if first is None or header(first[1]) is None:
        return None
    collector = JudgmentCollector(path)
    for number, line in list(data_lines(text_of(path, text)))[1:]:  # the header names the columns: BEIR's order
        fields = _fields(path, number, line, "\t") if "\t" in line else split_fields(line)
        if len(fields) != 3:
            raise InputError(path, number, "3 columns 'query-id corpus-id score'", field_count(fields, 6, RUN_AS_QRELS))
        qid, doc, grade_text = fields
        collector.add(qid, doc, parse_grade(grade_text, path, number, f"query {qid!r} id {doc!r} (field 4)"), number)
    if not collector.queries:
        raise InputError(path, None, "at least one judgment line", "an empty file")
    return collector.judgments()


READER = Reader(
    name="csv",
    extensions=(".csv", ".tsv"),
    sniff=sniff,
    read_run=read_run,
    read_qrels=read_qrels,
    label="CSV or TSV lines",
)
