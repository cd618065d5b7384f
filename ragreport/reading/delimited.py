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
import functools
import re
from pathlib import Path

import numpy as np

from ..core.errors import InputError, shorten
from ..core.model import Judgments, Order, Run, RunMeta
from .files import BLANKS, RUN_AS_QRELS, data_lines, field_count, first_line_of, split_fields, stem, text_of
from .reader import Reader
from .rows import JudgmentCollector, RunRows, parse_grade, parse_score

#: Header names of a query column and a document column: BEIR's, ranx data frames',
#: ir_datasets' TSV exports' (Parquet partitions name their columns alike).
QUERY_COLUMNS = ("qid", "query_id", "query-id", "q_id", "query")
DOC_COLUMNS = ("docid", "doc_id", "corpus-id", "corpus_id", "pid", "passage_id", "doc_no", "docno")


_QUOTED = re.compile(r'"[^"]*"')
_RANK = re.compile(r"[0-9]{1,15}")


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


def _run_lines(path: Path, text: str | None) -> tuple[list[tuple[int, str]], str | None]:
    """A run's data lines (an empty file refused) and the delimiter its first line shows."""
    lines = list(data_lines(text_of(path, text)))
    if not lines:
        raise InputError(path, None, "at least one run line", "an empty file")
    return lines, _delimiter(lines[0][1])


def sniff(first_line: str, text: str, complete: bool) -> bool:
    """A header, or a single field with two or three commas (``q1,d1,0.5``: a CSV run without one)."""
    line = first_line.strip()
    return header(line) is not None or (len(line.split()) == 1 and line.count(",") in (2, 3))


#: The metadata line a run read with ranks in its third column shows on its page.
RANKS_NOTE = "third column"


def _read_ranks(path: Path, rows: RunRows, order: Order, guess: bool) -> bool:
    """Whether a headerless three-column run's third column holds ranks (low first) rather than
    scores (high first). A query whose values are all equal (a list of one) reads the same either
    way and decides nothing; each other query reads as ranks when it runs 1, 2, 3, ... in file
    order, as scores when it falls or holds a fraction. Ranks when every deciding query reads as
    ranks and at least one query runs 1, 2, 3, ... (a list of one holding 1 counts); else scores. With ``guess``
    (the format was detected, not named), a run whose deciding queries read both ways, or as
    neither (integers rising from 0, shuffled), is refused, naming the flag that picks each
    reading; without it (``--input-format csv``), it is read as scores. Under ``--order file`` the
    column orders nothing: scores, no question. Vectorised over the rows."""
    if not order.by_score or not rows.slot_scores:
        return False
    query, value = np.asarray(rows.slot_query), np.asarray(rows.slot_scores)
    grouping = np.argsort(query, kind="stable")  # each query's values in file order
    query, value = query[grouping], value[grouping]
    count = np.bincount(query)
    position = np.arange(len(value)) - np.repeat(np.cumsum(count) - count, count)
    same, rise = query[1:] == query[:-1], np.diff(value)
    queries = len(count)

    def any_of(flags: np.ndarray, at: np.ndarray = query) -> np.ndarray:
        return np.bincount(at, weights=flags, minlength=queries) > 0

    deciding = any_of(same & (rise != 0), query[1:])
    ranks = ~any_of(value != position + 1)
    scores = ~any_of(same & (rise > 0), query[1:]) | any_of(value != np.floor(value))
    if np.all(ranks | ~deciding) and ranks.any():
        return True
    if np.all(scores | ~deciding) or not guess:
        return False
    neither = np.flatnonzero(deciding & ~ranks & ~scores)
    shown: tuple[int, ...]
    if len(neither):
        shown = (int(neither[0]),)
        got = "integers that are neither 1, 2, 3, ... nor falling"
    else:
        shown = (int(np.flatnonzero(deciding & ranks)[0]), int(np.flatnonzero(deciding & scores)[0]))
        got = "ranks in one query and scores in another"
    qids = list(rows.qids)

    def values(i: int) -> str:
        head = ", ".join(f"{v:g}" for v in value[query == i][:4])
        return f"query {qids[i]!r}: {head}{', ...' if count[i] > 4 else ''}"

    raise InputError(
        path,
        rows.query_lines[max(shown)],
        "a third column of ranks (1, 2, 3, ... within each query) or of scores (falling within each "
        "query, or with fractions)",
        f"{got} ({'; '.join(values(i) for i in shown)}): --input-format msmarco reads it as ranks, "
        "--input-format csv as scores",
    )


def read_run(
    path: Path, text: str | None, order: Order, own_judgments: bool, guess: bool = False
) -> tuple[Run, Judgments | None]:
    """A CSV/TSV run (see the module); it carries no judgments. Without a header, a third column
    of ranks is told from one of scores by :func:`_read_ranks` (``guess``: the format was detected)."""
    lines, delimiter = _run_lines(path, text)
    names = header(lines[0][1])
    headed = names is not None
    if names is None:
        width = len(_fields(path, lines[0][0], lines[0][1], delimiter))
        if width not in (3, 4):
            expected = "3 columns 'qid,docid,score', 4 'qid,docid,rank,score' or a header naming them"
            raise InputError(path, lines[0][0], expected, f"{width} columns")
        names = ["qid", "docid", "score"] if width == 3 else ["qid", "docid", "rank", "score"]
    else:
        lines = lines[1:]
    width = len(names)
    columns = {
        "qid": next(i for i, n in enumerate(names) if n in QUERY_COLUMNS),
        "docid": next(i for i, n in enumerate(names) if n in DOC_COLUMNS),
    }
    columns.update((column, names.index(column)) for column in ("score", "rank") if column in names)
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
    meta = None
    if not headed and width == 3 and _read_ranks(path, rows, order, guess):
        rows.slot_scores = [-v for v in rows.slot_scores]  # low ranks first, as a header's rank column
        meta = RunMeta(extra=((RANKS_NOTE, "read as ranks: it runs 1, 2, 3, ... within each query"),))
    return rows.run(stem(path), path, order, ranked="score" in columns or "rank" in columns, meta=meta), None


def read_msmarco(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
    """An MS MARCO run (``--input-format msmarco``): ``qid pid rank`` lines without a header, tabs
    (or commas, or blanks) between them, as Pyserini's ``--output-format msmarco`` and the MS
    MARCO baselines write them. The rank, an integer from 0 up, orders each list (low first, ties
    by id descending); a line of any other shape is refused."""
    lines, delimiter = _run_lines(path, text)
    rows = RunRows()
    for number, line in lines:
        fields = _fields(path, number, line, delimiter)
        if len(fields) != 3:
            raise InputError(path, number, "3 columns 'qid pid rank' (MS MARCO)", f"{len(fields)} columns")
        qid, doc, rank = fields
        if not qid or not doc:
            raise InputError(path, number, "a query id and a passage id", "an empty field")
        if not _RANK.fullmatch(rank):
            raise InputError(path, number, f"a rank (an integer from 0 up) for query {qid!r} id {doc!r}", shorten(rank))
        rows.add(qid, doc, -float(rank), number)
    meta = RunMeta(extra=((RANKS_NOTE, "read as ranks: --input-format msmarco"),))
    return rows.run(stem(path), path, order, meta=meta), None


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
    return collector.judgments((None, "at least one judgment line", "an empty file"))


READER = Reader(
    name="csv",
    extensions=(".csv", ".tsv"),
    sniff=sniff,
    read_run=read_run,
    read_qrels=read_qrels,
    label="CSV or TSV lines",
    read_detected=functools.partial(read_run, guess=True),  # a third column that reads both ways refused
)

#: MS MARCO's run layout, by name only: detection reads such a file as CSV/TSV, which tells its
#: ranks by their 1, 2, 3, ... (:func:`_read_ranks`).
MSMARCO = Reader(
    name="msmarco",
    extensions=(),
    sniff=lambda first_line, text, complete: False,
    read_run=read_msmarco,
    read_qrels=None,
    label="MS MARCO run lines 'qid pid rank'",
)
