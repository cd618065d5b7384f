"""Per-query metadata from a file of its own (``--query-meta``), for runs whose format carries none
(TREC runs): the keys slices cut by.

- CSV or TSV with a header: the query id's column is the first of ``query_id``, ``qid``, ``id``,
  ``query-id``, ``_id`` the header names, else the first column; every other column is a key, its
  cells the values (text; an empty cell: the query has no value for that key). A column with no
  name is not a key: it is the row number pandas' ``to_csv`` writes first unless told not to. The delimiter is
  the tab when the header holds one, else the comma; quoting follows RFC 4180.
- JSONL: one object per line with the id under one of those keys; the other keys are the
  metadata, or the keys of its ``meta`` object when it has one (as RAG JSONL lines carry them).
  Values are JSON scalars (text, numbers, booleans); lists and objects are refused.

A query listed twice is an error; so is a line without an id. Every error names the file and line.

The file is held by column (:class:`QueryMetaTable`): each key's distinct values once, a code per
query, the ids as one sorted array. A million queries of one key take 11 MB, not the 500 MB of a
mapping of mappings (docs/conventions.md section 29.3).
"""

from __future__ import annotations

import csv
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from ..core.errors import InputError, shorten
from ..core.ids import as_bytes, as_text
from .files import read_text
from .jsontext import LongDigits, load_json_line

#: The names of a query id's column or key, in the order they are looked for.
ID_NAMES = ("query_id", "qid", "id", "query-id", "_id")


@dataclass(frozen=True, eq=False)
class QueryMetaTable(Mapping[str, Mapping[str, object]]):
    """Per-query metadata by column, read as ``{query id: {key: value}}`` (a query's mapping made
    when asked for): ``ids`` the query ids (sorted UTF-8 bytes), ``names`` the keys, ``distinct`` each
    key's distinct values, ``codes`` a ``(queries, keys)`` matrix of indices into them (-1: the
    query has no value for the key)."""

    ids: np.ndarray
    names: tuple[str, ...]
    distinct: tuple[tuple[object, ...], ...]
    codes: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[str]:
        return iter(as_text(self.ids))

    def _row(self, query: object) -> int | None:
        if not isinstance(query, str) or not len(self.ids):
            return None
        key = np.array([query.encode("utf-8", "surrogatepass")], dtype="S")
        at = int(np.searchsorted(self.ids, key[0]))
        return at if at < len(self.ids) and self.ids[at] == key[0] else None

    def __contains__(self, query: object) -> bool:
        return self._row(query) is not None

    def __getitem__(self, query: str) -> dict[str, object]:
        at = self._row(query)
        if at is None:
            raise KeyError(query)
        return self._fields(self.codes[at].tolist())

    def items(self) -> Iterator[tuple[str, dict[str, object]]]:  # type: ignore[override]
        """Every query's id and mapping, row by row (no search per query)."""
        for query, codes in zip(as_text(self.ids), self.codes.tolist()):
            yield query, self._fields(codes)

    def _fields(self, codes: list[int]) -> dict[str, object]:
        return {key: self.distinct[j][c] for j, (key, c) in enumerate(zip(self.names, codes)) if c >= 0}

    def column(self, key: str) -> tuple[np.ndarray, tuple[object, ...]]:
        """``key``'s code for every query (-1: none) and its distinct values."""
        j = self.names.index(key)
        return self.codes[:, j], self.distinct[j]


#: Ids held as Python text at a time while a file is read: a million of them would take 60 MB.
_BLOCK = 1 << 16


def _lines(text: str) -> Iterator[str]:
    """``text.split("\\n")``, a line at a time (a million-line list of lines would take 60 MB)."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


class _Columns:
    """The table as its rows are read: each query's id and line, each key's codes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = 0
        self.ids: list[str] = []  # the last ids read, until a block of them is made bytes
        self.blocks: list[np.ndarray] = []
        self.lines = array("q")
        self.keys: dict[str, int] = {}
        self.codes: list[array] = []
        self.seen: list[dict[tuple[type, object], int]] = []
        self.values: list[list[object]] = []

    def add(self, query: str, number: int, fields: Mapping[str, object]) -> None:
        row = self.rows
        self.rows += 1
        self.ids.append(query)
        if len(self.ids) == _BLOCK:
            self.blocks.append(as_bytes(np.array(self.ids, dtype=str)))
            self.ids = []
        self.lines.append(number)
        for key, value in fields.items():
            j = self.keys.get(key)
            if j is None:
                j = self.keys[key] = len(self.keys)
                self.codes.append(array("i"))
                self.seen.append({})
                self.values.append([])
            # by type as well: 1, 1.0, True and "1" are four values; -0.0 is not 0.0
            seen = self.seen[j]
            code = seen.setdefault((type(value), repr(value) if isinstance(value, float) else value), len(seen))
            if code == len(self.values[j]):
                self.values[j].append(value)
            column = self.codes[j]
            column.extend(array("i", [-1]) * (row - len(column)))
            column.append(code)

    def sorted_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """The ids read so far, sorted, and their order; a query listed twice refused naming its
        second line (the first such line in the file)."""
        blocks = self.blocks + ([as_bytes(np.array(self.ids, dtype=str))] if self.ids else [])
        ids = np.concatenate(blocks) if blocks else np.zeros(0, dtype="S1")
        order = np.argsort(ids, kind="stable")
        ids = ids[order]
        twice = np.flatnonzero(ids[1:] == ids[:-1])
        if len(twice):
            lines = np.frombuffer(self.lines, dtype=np.int64)[order]
            at = twice[np.argmin(lines[twice + 1])]
            query = as_text(ids[at : at + 1])[0]
            first = int(lines[at])
            raise InputError(
                self.path, int(lines[at + 1]), f"each query once ({query!r} is also on line {first})", "it again"
            )
        return ids, order

    def table(self) -> QueryMetaTable:
        """The table, its ids sorted (:meth:`sorted_ids`)."""
        ids, order = self.sorted_ids()
        self.ids, self.blocks = [], []
        codes = np.full((self.rows, len(self.keys)), -1, dtype=np.int32)
        for j, column in enumerate(self.codes):
            codes[: len(column), j] = np.frombuffer(column, dtype=np.int32)
        return QueryMetaTable(ids, tuple(self.keys), tuple(map(tuple, self.values)), codes[order])


def _scalar(value: object, path: Path, line: int, key: str) -> object:
    if isinstance(value, LongDigits) or (
        isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63
    ):
        got = f"an integer of {len(value.lstrip('-')) if isinstance(value, str) else len(str(abs(value)))} digits"
        raise InputError(path, line, f"a number within 64 bits for {key!r}", got)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value  # floats are finite: load_json_line refused NaN, infinities and 1e400
    raise InputError(path, line, f"a text, number or boolean for {key!r}", f"a JSON {type(value).__name__}")


def _jsonl(path: Path, text: str, found: _Columns) -> None:
    for number, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        record = load_json_line(path, number, line, "query metadata")
        id_key = next((k for k in ID_NAMES if k in record), None)
        if id_key is None:
            raise InputError(path, number, f"a query id under one of {', '.join(ID_NAMES)}", ", ".join(record))
        raw = record.pop(id_key)
        if isinstance(raw, bool) or not isinstance(raw, (str, int)) or not str(raw).strip():
            raise InputError(path, number, "a query id (text or an integer)", shorten(repr(raw)))
        nested = record.get("meta")
        fields: dict = nested if isinstance(nested, dict) else record
        found.add(
            str(raw).strip(),
            number,
            {str(k): _scalar(v, path, number, str(k)) for k, v in fields.items() if v is not None and k != "meta"},
        )


def _delimited(path: Path, text: str, found: _Columns) -> None:
    lines = _lines(text)
    header_line, first = next(((i, line) for i, line in enumerate(lines) if line.strip()), (None, ""))
    if header_line is None:
        return
    delimiter = "\t" if "\t" in first else ","
    reader = csv.reader(chain([first], lines), delimiter=delimiter, strict=True)
    try:
        header = [h.strip() for h in next(reader)]
        twice = next((h for i, h in enumerate(header) if h in header[:i]), None)
        if twice is not None:  # one of the two columns would be dropped without a word
            raise InputError(path, header_line + 1, "each column named once in the header", f"{twice!r} twice")
        id_column = next((header.index(n) for n in ID_NAMES if n in header), 0)
        for row in reader:
            number = header_line + reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(path, number, f"{len(header)} columns, as the header has", f"{len(row)}")
            query = row[id_column].strip()
            if not query:
                raise InputError(path, number, f"a query id in column {header[id_column]!r}", "an empty cell")
            found.add(
                query,
                number,
                {k: v.strip() for i, (k, v) in enumerate(zip(header, row)) if i != id_column and k and v.strip()},
            )
    except csv.Error as exc:
        raise InputError(path, header_line + reader.line_num, "CSV or TSV as RFC 4180 quotes it", str(exc)) from None


def read_query_meta(path: str | Path) -> QueryMetaTable:
    """``{query id: {key: value}}``, held by column, from a ``--query-meta`` file (the module's
    docstring says which)."""
    path = Path(path)
    text = read_text(path)
    first = next((line for line in _lines(text) if line.strip()), "")
    found = _Columns(path)
    try:
        (_jsonl if first.lstrip().startswith("{") else _delimited)(path, text, found)
    except InputError:
        found.sorted_ids()  # a query listed twice on an earlier line is the first error
        raise
    return found.table()
