"""Per-query metadata from a file of its own (``--query-meta``), for runs whose format carries none
(TREC runs): the keys slices cut by.

- CSV or TSV with a header: the query id's column is the first of ``query_id``, ``qid``, ``id``,
  ``query-id``, ``_id`` the header names, else the first column; every other column is a key, its
  cells the values (text; an empty cell: the query has no value for that key). The delimiter is
  the tab when the header holds one, else the comma; quoting follows RFC 4180.
- JSONL: one object per line with the id under one of those keys; the other keys are the
  metadata, or the keys of its ``meta`` object when it has one (as RAG JSONL lines carry them).
  Values are JSON scalars (text, numbers, booleans); lists and objects are refused.

A query listed twice is an error; so is a line without an id. Every error names the file and line.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..core.errors import InputError, shorten
from .files import read_text
from .jsontext import LongDigits, load_json_line

#: The names of a query id's column or key, in the order they are looked for.
ID_NAMES = ("query_id", "qid", "id", "query-id", "_id")


def _scalar(value: object, path: Path, line: int, key: str) -> object:
    if isinstance(value, LongDigits) or (
        isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63
    ):
        got = f"an integer of {len(value.lstrip('-')) if isinstance(value, str) else len(str(abs(value)))} digits"
        raise InputError(path, line, f"a number within 64 bits for {key!r}", got)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value  # floats are finite: load_json_line refused NaN, infinities and 1e400
    raise InputError(path, line, f"a text, number or boolean for {key!r}", f"a JSON {type(value).__name__}")


def _jsonl(path: Path, text: str) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    where: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        record = load_json_line(path, number, line, "query metadata")
        id_key = next((k for k in ID_NAMES if k in record), None)
        if id_key is None:
            raise InputError(path, number, f"a query id under one of {', '.join(ID_NAMES)}", ", ".join(record))
        raw = record.pop(id_key)
        if isinstance(raw, bool) or not isinstance(raw, (str, int)) or not str(raw).strip():
            raise InputError(path, number, "a query id (text or an integer)", shorten(repr(raw)))
        query = str(raw).strip()
        if query in where:
            raise InputError(path, number, f"each query once ({query!r} is also on line {where[query]})", "it again")
        where[query] = number
        nested = record.get("meta")
        fields: dict = nested if isinstance(nested, dict) else record
        found[query] = {
            str(k): _scalar(v, path, number, str(k)) for k, v in fields.items() if v is not None and k != "meta"
        }
    return found


def _delimited(path: Path, text: str) -> dict[str, dict[str, object]]:
    lines = text.split("\n")
    header_line = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_line is None:
        return {}
    delimiter = "\t" if "\t" in lines[header_line] else ","
    reader = csv.reader(lines[header_line:], delimiter=delimiter, strict=True)
    found: dict[str, dict[str, object]] = {}
    where: dict[str, int] = {}
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
            if query in where:
                raise InputError(
                    path, number, f"each query once ({query!r} is also on line {where[query]})", "it again"
                )
            where[query] = number
            found[query] = {k: v.strip() for i, (k, v) in enumerate(zip(header, row)) if i != id_column and v.strip()}
    except csv.Error as exc:
        raise InputError(path, header_line + reader.line_num, "CSV or TSV as RFC 4180 quotes it", str(exc)) from None
    return found


def read_query_meta(path: str | Path) -> dict[str, dict[str, object]]:
    """``{query id: {key: value}}`` from a ``--query-meta`` file (the module's docstring says which)."""
    path = Path(path)
    text = read_text(path)
    first = next((line for line in text.split("\n") if line.strip()), "")
    if first.lstrip().startswith("{"):
        return _jsonl(path, text)
    return _delimited(path, text)
