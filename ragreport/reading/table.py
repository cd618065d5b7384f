"""Any table of ids: one row per query, its columns named by ``--columns`` (:mod:`ragreport.reading.columns`).

A table is read from (the layout decided by the name, ``.gz`` aside, else by the first byte):

- JSONL (``.jsonl``, ``.ndjson``; a first line opening an object): one object per line;
- JSON (``.json``; a first byte ``[``): an array of objects, or pandas' ``split`` layout
  ``{"columns": [...], "data": [[...], ...]}`` (there an error names the row, counted from 1, where
  the other layouts name the line);
- CSV/TSV (``.csv``, ``.tsv``; anything else): a header row naming the columns, commas (tabs in a
  ``.tsv`` file, or when the header holds a tab and no comma), RFC 4180 quoting;
- Parquet (``.parquet``; the bytes ``PAR1``): list columns as lists, through pyarrow
  (``pip install "ragreport[parquet]"``).

A list cell (``retrieved``, ``relevant``, ``scores``, ``grades``, ``steps``) is a list in JSON and
Parquet. In a CSV/TSV cell it is a JSON array (``["d1", "d2"]``), a Python list of strings and
numbers as pandas writes one (``['d1', 'd2']``), or ids separated by ``|``, else ``;``, else ``,``
(the first of them the cell holds; blanks around each id dropped; an empty cell an empty list).
An id holding one of them needs the JSON form.

Each row becomes a RAG JSONL record and follows its rules (:func:`~ragreport.reading.jsonl.parse_records`):
each query once, ids by the id rule, grades integers. A row without an id column gets one from
its query text or its row number (``--id-from``, :func:`~ragreport.reading.columns.text_id`).
``relevant`` on every row is the run's own judgments (set aside for ``--qrels`` as RAG JSONL's
are); on no row, the judgments come from ``--qrels``.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core.errors import InputError, UsageError, shorten
from ..core.model import Judgments, Order, Run
from .columns import ColumnMap, text_id
from .files import BLANKS, bare_name, raw_bytes, stem, text_of
from .jsonl import SCORES, json_lines, parse_records
from .jsontext import decode, typed
from .rows import parse_score

#: The separators of a list written in one CSV/TSV cell, in the order they are looked for.
SEPARATORS = ("|", ";", ",")
#: The extra that installs pyarrow, named by the error a Parquet file meets without it.
PARQUET_EXTRA = 'pip install "ragreport[parquet]"'

#: A table's rows: (the line of each, its values).
Rows = list[tuple[int, dict[str, Any]]]


def _json_rows(path: Path, text: str) -> Rows:
    """(line, object) of a JSON array of objects, or of pandas' ``split`` layout; the line of each
    row is where its value starts, found by decoding the array one item at a time."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        whole = decode(path, text, None, "a JSON array of objects, or an object with 'columns' and 'data'")
        if not (isinstance(whole, dict) and isinstance(whole.get("columns"), list) and "data" in whole):
            raise InputError(path, None, "a JSON array of objects, or an object with 'columns' and 'data'", "an object")
        columns, rows = whole["columns"], whole["data"]
        if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == len(columns) for r in rows):
            raise InputError(path, None, f"'data' as a list of rows of {len(columns)} values, as 'columns' names")
        return [(i, dict(zip(map(str, columns), row))) for i, row in enumerate(rows, 1)]
    decoder, start = json.JSONDecoder(), text.index("[") + 1
    items: Rows = []
    position = start
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] == "]":
            break
        line = text.count("\n", 0, position) + 1
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError as exc:
            raise InputError(path, line, "a JSON array of objects", str(exc).split(":")[0]) from None
        items.append((line, value))
    return items


def split_cell(cell: str) -> list[Any]:
    """A list written in one CSV/TSV cell (see the module): a JSON array, a Python literal list, or
    ids between separators. Raises ValueError for a cell opening ``[`` that is neither list."""
    text = cell.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            value = ast.literal_eval(text)  # pandas writes a list cell as Python's repr: ['d1', 'd2']
        if not isinstance(value, list):
            raise ValueError(text)
        return value
    separator = next((s for s in SEPARATORS if s in text), None)
    return [text] if separator is None else [part.strip() for part in text.split(separator)]


def _delimited_rows(path: Path, text: str) -> Rows:
    """(line, row) of a CSV/TSV table with a header; the line is where the row ends (a quoted cell
    may span lines). Blank lines are skipped; a line opening ``#`` is a row like any other (a
    question may start with one)."""
    first = next((line for line in io.StringIO(text) if line.strip(BLANKS)), None)  # no list of every line
    if first is None:
        raise InputError(path, None, "a header row and rows", "an empty file")
    tab = bare_name(path).lower().endswith(".tsv") or ("\t" in first and "," not in first)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if tab else ",", strict=True)
    header: list[str] | None = None
    rows: Rows = []
    try:
        for cells in reader:
            if not any(cell.strip(BLANKS) for cell in cells):
                continue
            if header is None:
                header = [name.strip(BLANKS) for name in cells]
            elif len(cells) != len(header):
                expected = f"{len(header)} cells, as the header names"
                raise InputError(path, reader.line_num, expected, f"{len(cells)} cells")
            else:
                rows.append((reader.line_num, dict(zip(header, cells))))
    except csv.Error as exc:
        raise InputError(path, reader.line_num, "cells quoted as RFC 4180 has it", str(exc)) from None
    return rows


def _parquet_rows(path: Path) -> Rows:
    """(row, values) of a Parquet file: list columns become lists (pyarrow converts them in C)."""
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise UsageError(f"{path}: reading Parquet needs pyarrow: {PARQUET_EXTRA}") from None
    try:
        table = parquet.read_table(path)
    except Exception as exc:  # pyarrow raises its own types for a file that is not Parquet
        raise InputError(path, None, "a Parquet file", shorten(str(exc), quote=False)) from None
    return list(enumerate(table.to_pylist(), 1))


def table_rows(path: Path, text: str | None = None) -> tuple[Rows, bool]:
    """The rows of a table file in any layout the module lists, and whether its cells are text (CSV/TSV)."""
    name = bare_name(path).lower()
    if name.endswith(".parquet") or (text is None and raw_bytes(path, 4) == b"PAR1"):
        return _parquet_rows(path), False
    text = text_of(path, text)
    head = text.lstrip()[:1]
    if name.endswith((".jsonl", ".ndjson")) or (head == "{" and not name.endswith(".json")):
        return json_lines(path, text), False
    if name.endswith(".json") or head in ("[", "{"):
        return _json_rows(path, text), False
    return _delimited_rows(path, text), True


def _list(value: Any, textual: bool, path: Path, line: int | None, column: str) -> list[Any]:
    """A list cell's values; text cells split (:func:`split_cell`)."""
    if textual and isinstance(value, str):
        try:
            return split_cell(value)
        except (ValueError, SyntaxError):
            pass
    if isinstance(value, (list, tuple)):
        return list(value)
    expected = f"{column!r} as a list (a JSON array, or ids separated by {' '.join(SEPARATORS)})"
    raise InputError(path, line, expected, shorten(str(value)[:60]))


def records(
    path: Path,
    rows: Rows,
    columns: ColumnMap,
    id_from: str = "query",
    textual: bool = False,
    own_judgments: bool = False,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each row as a RAG JSONL record (see the module), its columns found by ``columns``: a column
    the map names and the file lacks is one error naming it and the columns present; so is a
    ``relevant`` column lacking when the judgments must come from the rows (``own_judgments``)."""
    if not rows:
        return
    # the first row names the columns every row is read by
    present = list(typed(rows[0][1], dict, path, rows[0][0], "an object per row"))
    # A multi-hop retriever's rows give its hops (--columns steps=...) in place of one list.
    steps = columns.column("steps", present, path, required=True) if "steps" in columns.named else None
    retrieved = steps if steps is not None else columns.column("retrieved", present, path, required=True)
    assert retrieved is not None  # a required column is found or refused
    found = {role: columns.column(role, present, path, required=False) for role in ("scores", "grades")}
    found["relevant"] = columns.column("relevant", present, path, required=own_judgments, otherwise=" (or --qrels)")
    qid = columns.column("id", present, path, required=False) if id_from == "query" or "id" in columns.named else None
    query = columns.column("query", present, path, required=qid is None and id_from == "query")
    for row_number, (line, row) in enumerate(rows, 1):
        typed(row, dict, path, line, "an object per row")
        missing = next((c for c in (retrieved, qid, query, *found.values()) if c is not None and c not in row), None)
        if missing is not None:
            raise InputError(
                path, line, f"a {missing!r} value, as the first row has", f"keys {shorten(', '.join(row))}"
            )
        record: dict[str, Any] = {
            "steps" if steps else "retrieved": _list(row[retrieved], textual, path, line, retrieved)
        }
        text = row[query] if query is not None else None
        if text is not None:
            record["query"] = text
        if qid is not None:
            record["id"] = row[qid]
        elif id_from == "row":
            record["id"] = f"row-{row_number}"
        elif isinstance(text, str):
            record["id"] = text_id(text)
        else:
            raise InputError(path, line, f"the query text in {query!r} to make the row's id from", shorten(str(text)))
        if found["relevant"] is not None:
            relevant = _list(row[found["relevant"]], textual, path, line, found["relevant"])
            if found["grades"] is not None:
                grades = _list(row[found["grades"]], textual, path, line, found["grades"])
                if len(grades) != len(relevant):
                    raise InputError(
                        path, line, f"{found['grades']!r} aligned with {found['relevant']!r}", "two lengths"
                    )
                record["relevant"] = dict(zip(map(str, relevant), grades))
            else:
                record["relevant"] = relevant
        if found["scores"] is not None:
            scores = _list(row[found["scores"]], textual, path, line, found["scores"])
            if steps is not None or len(scores) != len(record["retrieved"]):
                raise InputError(path, line, f"{found['scores']!r} aligned with {retrieved!r}", "two lengths")
            record[SCORES] = [parse_score(s, path, line, f"a score in {found['scores']!r}") for s in scores]
        yield line, record


def read_table(
    path: Path,
    columns: ColumnMap,
    order: Order,
    own_judgments: bool,
    id_from: str = "query",
    text: str | None = None,
    rows: Callable[[Path, str | None], tuple[Rows, bool]] = table_rows,
) -> tuple[Run, Judgments | None]:
    """A run (and the judgments its rows carry) from a table file read with ``columns``
    (``rows``: how to get its rows; a preset's own shape)."""
    found, textual = rows(path, text)
    if not found:
        raise InputError(path, None, "at least one row", "an empty table")
    return parse_records(
        path,
        records(path, found, columns, id_from, textual, own_judgments),
        with_judgments=own_judgments,
        name=stem(path),
        order=order,
        what="row",
    )
