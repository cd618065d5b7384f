"""report.json's compact form (schema ``ragreport/2``, docs/conventions.md section 22.4), read back.

A report.json of schema ``ragreport/2`` writes every query id once (top-level ``query_ids``), every
document id once (``doc_ids``: the runs' stored lists and the judgments index it) and the statuses
once (``statuses``); each run's per-query figures as columns (``runs[].queries``: one list per field,
in the order of ``id``, which holds indices into ``query_ids``), its condensed figures as columns
too (``runs[].condensed``), its stored lists as indices into ``doc_ids`` and the judgments as
``{"queries": [query index], "ids": [[doc index]], "grades": [[grade]]}``.

:func:`query_rows` and :func:`judgment_map` give back what a report of schema ``ragreport/1`` held
(one object per query; ``{query: {id: grade}}``), and :func:`expanded` the whole document in that
older shape, which is what ``render`` and ``--previous`` read (both schemas are read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.model import SCHEMA, SCHEMA_V1
from .schema import Spec, check

#: The schemas of report.json ragreport reads, the current one first.
SCHEMAS = (SCHEMA, SCHEMA_V1)

#: The tables a report of schema ``ragreport/2`` writes once, at its top level.
TABLES = ("query_ids", "doc_ids", "statuses")


def is_compact(document: dict[str, Any]) -> bool:
    """Whether ``document`` is of the compact schema (``ragreport/2``)."""
    return document.get("schema") == SCHEMA


def _texts(document: dict[str, Any], key: str) -> list[str]:
    table = document.get(key)
    if not isinstance(table, list) or not all(isinstance(t, str) for t in table):
        raise TypeError(f"'{key}' is not a list of text")
    return table


def _picked(table: list[str], indices: Any, what: str, null: bool = False) -> list[Any]:
    """``table[i]`` for each index (null kept where ``null``); an index out of range is an error."""
    if not isinstance(indices, list):
        raise TypeError(f"'{what}' is not a list")
    size = len(table)
    if not all((type(i) is int and 0 <= i < size) or (null and i is None) for i in indices):
        bad = next(i for i in indices if not ((type(i) is int and 0 <= i < size) or (null and i is None)))
        raise ValueError(f"'{what}' holds {bad!r}, not an index into the {size:,} entries of its table")
    return [None if i is None else table[i] for i in indices]


def query_rows(document: dict[str, Any], run: dict[str, Any]) -> list[dict[str, Any]]:
    """A run's per-query rows, one object per query, as schema ``ragreport/1`` wrote them: ``id``,
    ``scored``, ``status``, the counts, every figure, ``query`` where the run has its text and
    ``condensed`` (``{label: value}``) where a condensed figure differs from the default one."""
    queries = run["queries"]
    if isinstance(queries, list):  # schema ragreport/1: rows already
        return queries
    if not isinstance(queries, dict) or not all(isinstance(c, list) for c in queries.values()):
        raise TypeError("'queries' is not an object of columns")
    n = len(queries["id"])
    for name, column in queries.items():
        if len(column) != n:
            raise ValueError(f"column {name!r} holds {len(column):,} values for {n:,} queries")
    columns = dict(queries)
    columns["id"] = _picked(_texts(document, "query_ids"), queries["id"], "queries.id")
    if "status" in columns:
        columns["status"] = _picked(_texts(document, "statuses"), queries["status"], "queries.status", null=True)
    text = columns.pop("query", None)
    names = list(columns)
    rows = [dict(zip(names, cells)) for cells in zip(*columns.values())] if names else []
    if text is not None:
        for row, words in zip(rows, text):
            if words is not None:
                row["query"] = words
    condensed = run.get("condensed")
    if condensed is not None:
        if not isinstance(condensed, dict):
            raise TypeError("'condensed' is not an object of columns")
        for label, column in condensed.items():
            default = columns.get(label)
            if not isinstance(column, list) or len(column) != n or default is None:
                raise ValueError(f"'condensed' column {label!r} is not one value per query of a stored figure")
            for row, value, plain in zip(rows, column, default):
                if value is not None and value != plain:
                    row.setdefault("condensed", {})[label] = value
    return rows


def judgment_map(document: dict[str, Any], judgments: Any) -> dict[str, dict[str, int]]:
    """A label set as ``{query: {id: grade}}`` (the top-level ``judgments`` or a run's own)."""
    if not is_compact(document):
        return judgments
    if not isinstance(judgments, dict):
        raise TypeError("'judgments' is not an object")
    queries = _picked(_texts(document, "query_ids"), judgments["queries"], "judgments.queries")
    ids, grades = judgments["ids"], judgments["grades"]
    if not isinstance(ids, list) or not isinstance(grades, list) or not len(ids) == len(grades) == len(queries):
        raise ValueError("'judgments' holds lists of different lengths")
    table = _texts(document, "doc_ids")
    out: dict[str, dict[str, int]] = {}
    for q, docs, marks in zip(queries, ids, grades):
        if not isinstance(marks, list) or len(marks) != len(docs):
            raise ValueError(f"the judgments of query {q!r} hold {len(marks)} grades for {len(docs)} ids")
        out[q] = dict(zip(_picked(table, docs, "judgments.ids"), marks))
    return out


def listed_ids(document: dict[str, Any], lists: dict[str, Any]) -> list[list[str]]:
    """A run's stored lists as ids: indices into the top-level ``doc_ids`` (``ragreport/2``), into
    the run's own ``lists.doc_ids`` (``ragreport/1`` from issue 24 on), or the ids themselves."""
    if "doc_ids" in lists:
        table = lists["doc_ids"]
        if not isinstance(table, list) or not all(isinstance(d, str) for d in table):
            raise TypeError("'doc_ids' is not a list of text")
    elif is_compact(document):
        table = _texts(document, "doc_ids")
    else:
        return lists["ids"]
    if not isinstance(lists["ids"], list):
        raise TypeError("'ids' is not a list")
    return [_picked(table, entry, "lists.ids") for entry in lists["ids"]]


def expanded(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` in the shape of schema ``ragreport/1``: rows per query, judgments as
    ``{query: {id: grade}}``, the stored lists as ids (a document of that schema as it is)."""
    if not is_compact(document):
        return document
    out = {key: value for key, value in document.items() if key not in TABLES}
    out["schema"] = SCHEMA_V1  # the shape it now has
    out["judgments"] = judgment_map(document, document["judgments"])
    runs = []
    for run in document["runs"]:
        kept = {key: value for key, value in run.items() if key != "condensed"}
        kept["queries"] = query_rows(document, run)
        if "judgments" in run:
            kept["judgments"] = judgment_map(document, run["judgments"])
        lists = run.get("lists")
        if isinstance(lists, dict) and "ids" in lists:
            kept["lists"] = {**lists, "ids": listed_ids(document, lists)}
        runs.append(kept)
    out["runs"] = runs
    return out


def read_back(document: dict[str, Any], path: str | Path, spec: Spec) -> dict[str, Any]:
    """A report.json of either schema as read from ``path`` (``ragreport/2`` checked against its
    declaration ``spec``, reading/documents.py's COMPACT, then read back by :func:`expanded`), in the
    shape of ``ragreport/1``; a one-line error naming the file otherwise."""
    if not is_compact(document):
        return document
    check(document, spec, path)  # the tables and columns, as declared
    try:
        return expanded(document)
    except (KeyError, TypeError, ValueError, IndexError) as exc:  # a hand-edited or forged document
        raise InputError(path, 1, f"a report.json of schema {SCHEMA!r} as ragreport writes it", str(exc)) from None
