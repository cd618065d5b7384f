"""report.json's compact forms read back: schemas ``ragreport/2``, ``/3`` and ``/4``
(docs/conventions.md sections 22.4, 22.13 and 22.17; their shapes declared in reportjson/schema.py).

``ragreport/2`` writes every query id, document id and status once, at the top level (``query_ids``,
``doc_ids``, ``statuses``), and indexes them: a run's per-query figures are columns (``runs[].queries``,
one list per field in the order of ``id``), its condensed figures too (``runs[].condensed``), its
stored lists lists of indices, a label set ``{"queries": [query index], "ids": [[doc index]],
"grades": [[grade]]}``. ``ragreport/3`` packs the stored lists and the label sets' ids, each one
string: the standard base-64 of the indices as little-endian unsigned integers of the width
``packed.dtype`` names (``<u1``, ``<u2`` or ``<u4``: the narrowest that holds every index), end to end
in query order, ``lengths`` beside (a stored list's left out when each is ``min(retrieved, depth)``)
and a label set's grades end to end; a run's ``id`` column is left out when it is ``0 .. n - 1`` and
its ``scored`` column when it is ``status != "excluded"``. ``ragreport/4`` cuts the stored lists to
the deepest cutoff asked for (``lists.depth``) and, in place of the condensed columns, writes
``lists.next_judged`` (packed as the lists): per query, the judged ids after its stored top that
condensing it to ``depth`` reads; the condensed means stay in ``runs[].metrics``.

:func:`unpacked` gives a ``/4`` or ``/3`` document in the form of ``/2``; :func:`query_rows`,
:func:`judgment_map` and :func:`listed_ids` give what ``ragreport/1`` held (one object per query,
``{query: {id: grade}}``, the lists as ids), and :func:`expanded` the whole document in that shape,
which ``render`` and ``--previous`` read.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ....core.errors import InputError
from ....core.model import SCHEMA, SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, Gain
from ....reading.schema import Spec, check
from ....scoring.catalogue import RBP, RBP_RESIDUAL, Measure

#: The schemas of report.json ragreport reads, the current one first.
SCHEMAS = (SCHEMA, SCHEMA_V3, SCHEMA_V2, SCHEMA_V1)

#: The schemas whose lists and label sets are packed (base-64 of ``packed.dtype``).
PACKED_SCHEMAS = (SCHEMA, SCHEMA_V3)

#: The widths of a packed index (``packed.dtype``): little-endian unsigned, 1, 2 or 4 bytes.
PACKED_DTYPES = ("<u1", "<u2", "<u4")

#: The tables a report of schema ``ragreport/2`` writes once, at its top level.
TABLES = ("query_ids", "doc_ids", "statuses")


def is_compact(document: dict[str, Any]) -> bool:
    """Whether ``document`` is of a compact schema (``ragreport/4``, ``/3`` or ``/2``)."""
    return document.get("schema") in (SCHEMA, SCHEMA_V3, SCHEMA_V2)


def packed_dtype(n_ids: int) -> str:
    """The narrowest little-endian unsigned integer that holds an index into ``n_ids`` ids."""
    return "<u1" if n_ids <= 1 << 8 else "<u2" if n_ids <= 1 << 16 else "<u4"


def pack(values: np.ndarray, dtype: str) -> str:
    """``values`` (whole numbers that fit ``dtype``) as the standard base-64 of their bytes."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def indices(document: Mapping[str, Any], text: Any, what: str = "a packed list") -> np.ndarray:
    """One packed string of a ``ragreport/3`` document, decoded: its indices as a numpy array
    (``np.frombuffer(base64.b64decode(text), document["packed"]["dtype"])``)."""
    packing = document["packed"]
    dtype = packing["dtype"] if isinstance(packing, dict) else None
    if dtype not in PACKED_DTYPES or packing.get("encoding") != "base64":
        raise ValueError(f"'packed' is {packing!r}, not base64 of one of {', '.join(PACKED_DTYPES)}")
    if not isinstance(text, str):
        raise TypeError(f"{_named(what)} is not text")
    try:
        data = base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"{_named(what)} is not base-64 ({exc})") from None
    width = np.dtype(dtype).itemsize
    if len(data) % width:
        raise ValueError(f"{_named(what)} holds {len(data):,} bytes, not a whole number of {width}-byte indices")
    return np.frombuffer(data, dtype)


def _named(what: str) -> str:
    return what if " " in what else f"'{what}'"


def _split(values: np.ndarray, lengths: Any, what: str) -> list[list[int]]:
    """``values`` cut into consecutive lists of ``lengths``, as plain lists of Python ints."""
    if not isinstance(lengths, list) or not all(type(n) is int and n >= 0 for n in lengths):
        raise TypeError(f"'{what}.lengths' is not a list of counts")
    if sum(lengths) != len(values):
        raise ValueError(f"'{what}' holds {len(values):,} indices for lengths that add up to {sum(lengths):,}")
    flat = values.tolist()
    ends = np.cumsum([0, *lengths]).tolist()
    return [flat[a:b] for a, b in zip(ends[:-1], ends[1:])]


def list_lengths(run: Mapping[str, Any]) -> list[int]:
    """A ``ragreport/3`` run's stored lists' lengths: ``lists.lengths``, or, where left out,
    ``min(retrieved, depth)`` of each query."""
    lists = run["lists"]
    if "lengths" in lists:
        return lists["lengths"]
    depth, retrieved = lists["depth"], run["queries"]["retrieved"]
    if type(depth) is not int or not isinstance(retrieved, list) or not all(type(r) is int for r in retrieved):
        raise TypeError("'lists.depth' and 'queries.retrieved' are not whole numbers")
    return [min(r, depth) for r in retrieved]


def run_lists(document: Mapping[str, Any], run: Mapping[str, Any]) -> list[list[int]]:
    """A ``ragreport/3`` run's stored lists, one list of indices into ``doc_ids`` per query."""
    return _split(indices(document, run["lists"]["ids"], "lists.ids"), list_lengths(run), "lists.ids")


def next_judged(document: Mapping[str, Any], run: Mapping[str, Any]) -> list[list[int]]:
    """A ``ragreport/4`` run's ``lists.next_judged``: per query, the judged ids (indices into
    ``doc_ids``) that follow its stored top and that condensing it to ``lists.depth`` reads, in
    order (docs/conventions.md section 22.17); none for a report of an older schema."""
    lists = run["lists"]
    if "next_judged" not in lists:
        return []
    after = lists["next_judged"]
    if not isinstance(after, Mapping):
        raise TypeError("'lists.next_judged' is not an object")
    lengths, depth = after["lengths"], lists["depth"]
    n = len(list_lengths(run))
    if isinstance(lengths, list) and len(lengths) != n:
        raise ValueError(f"'lists.next_judged.lengths' holds {len(lengths):,} counts for {n:,} queries")
    values = indices(document, after["ids"], "lists.next_judged.ids")
    size = len(_texts(document, "doc_ids"))
    past = values[values >= size]
    if len(past):
        raise ValueError(
            f"'lists.next_judged.ids' holds {int(past[0])!r}, not an index into the {size:,} entries of its table"
        )
    out = _split(values, lengths, "lists.next_judged")
    if type(depth) is not int or any(len(ids) > depth for ids in out):
        longest = max((len(ids) for ids in out), default=0)
        raise ValueError(f"'lists.next_judged' holds a list of {longest:,} ids, longer than 'lists.depth' ({depth!r})")
    return out


def label_lists(document: Mapping[str, Any], judgments: Mapping[str, Any]) -> tuple[list[list[int]], list[list[int]]]:
    """A ``ragreport/3`` label set's ids (indices into ``doc_ids``) and grades, one list per query."""
    lengths = judgments["lengths"]
    ids = _split(indices(document, judgments["ids"], "judgments.ids"), lengths, "judgments.ids")
    grades = judgments["grades"]
    if not isinstance(grades, list):
        raise TypeError("'judgments.grades' is not a list")
    return ids, _split(np.asarray(grades, dtype=object), lengths, "judgments.grades")


def _unpacked_run(document: Mapping[str, Any], run: dict[str, Any], labels: bool = False) -> dict[str, Any]:
    """One ``ragreport/3`` run in the form of ``ragreport/2``: ``id`` and ``scored`` written again
    where left out, the lists (and, with ``labels``, the run's own judgments) as lists of indices."""
    queries = run["queries"]
    if not isinstance(queries, dict):
        raise TypeError("'queries' is not an object of columns")
    status = _picked(_texts(document, "statuses"), queries["status"], "queries.status", null=True)
    columns = {
        "id": queries["id"] if "id" in queries else list(range(len(status))),
        "scored": queries["scored"] if "scored" in queries else [s != "excluded" for s in status],
        **queries,
    }
    kept = {**run, "queries": columns}
    if "lists" in run:  # (render says which run lacks them)
        lists = {key: value for key, value in run["lists"].items() if key != "lengths"}
        kept["lists"] = {**lists, "ids": run_lists(document, run)}
        if "next_judged" in lists:  # ragreport/4: one list of indices per query, as ``ids``
            kept["lists"]["next_judged"] = next_judged(document, run)
    if "judgments" in run and labels:
        kept["judgments"] = _unpacked_labels(document, run["judgments"])
    return kept


def unpacked(document: dict[str, Any]) -> dict[str, Any]:
    """A ``ragreport/4`` or ``ragreport/3`` document in the form of ``ragreport/2`` (every index a
    JSON number, the columns left out written again; a ``ragreport/4`` run's ``lists.next_judged``
    one list of indices per query, as ``lists.ids``); a document of another schema as it is."""
    if document.get("schema") not in PACKED_SCHEMAS:
        return document
    out = {key: value for key, value in document.items() if key != "packed"}
    out["schema"] = SCHEMA_V2
    out["judgments"] = _unpacked_labels(document, document["judgments"])
    out["runs"] = [_unpacked_run(document, run, labels=True) for run in document["runs"]]
    return out


def _unpacked_labels(document: Mapping[str, Any], judgments: Mapping[str, Any]) -> dict[str, Any]:
    """A ``ragreport/3`` label set in the form of ``ragreport/2``."""
    ids, grades = label_lists(document, judgments)
    return {"queries": judgments["queries"], "ids": ids, "grades": grades}


def _texts(document: Mapping[str, Any], key: str) -> list[str]:
    table = document.get(key)
    if not isinstance(table, list) or not all(isinstance(t, str) for t in table):
        raise TypeError(f"'{key}' is not a list of text")
    return table


def _picked(table: list[str], indices: Any, what: str, null: bool = False) -> list[Any]:
    """``table[i]`` for each index (null kept where ``null``); an index out of range is an error."""
    if not isinstance(indices, list):
        raise TypeError(f"'{what}' is not a list")
    size = len(table)
    for i in indices:
        if not ((type(i) is int and 0 <= i < size) or (null and i is None)):
            raise ValueError(f"'{what}' holds {i!r}, not an index into the {size:,} entries of its table")
    return [None if i is None else table[i] for i in indices]


def query_rows(document: dict[str, Any], run: dict[str, Any]) -> list[dict[str, Any]]:
    """A run's per-query rows, one object per query, as schema ``ragreport/1`` wrote them: ``id``,
    ``scored``, ``status``, the counts, every figure, ``query`` where the run has its text and, in
    a report of schema ``ragreport/3`` or older, ``condensed`` (``{label: value}``) where a
    condensed figure differs from the default one (``ragreport/4`` keeps the condensed means
    alone: ``render`` condenses the stored lists again, docs/conventions.md section 22.17)."""
    if document.get("schema") in PACKED_SCHEMAS:  # ragreport/4 and /3: the columns left out written again
        run = _unpacked_run(document, run)
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
    if document.get("schema") in PACKED_SCHEMAS:  # the ids packed, the grades end to end
        judgments = _unpacked_labels(document, judgments)
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
    if "doc_ids" not in lists and not is_compact(document):
        return lists["ids"]
    table = _texts(lists if "doc_ids" in lists else document, "doc_ids")
    if not isinstance(lists["ids"], list):
        raise TypeError("'ids' is not a list")
    return [_picked(table, entry, "lists.ids") for entry in lists["ids"]]


#: RBP's residual's key until RBP without ``rel`` became ir_measures' graded RBP (issue 37).
OLD_RESIDUAL = "RBPres"
#: The parts of a report that hold ids, texts and labels, never a measure's label.
_NO_LABELS = frozenset(
    ("judgments", "query_ids", "doc_ids", "statuses", "texts", "query_meta", "audit", "lists", "meta", "fingerprints")
)


def rbp_named_anew(document: dict[str, Any]) -> dict[str, Any]:
    """A report (in the shape of ``ragreport/1``) written while RBP without ``rel`` was binary at
    the report's relevance level L and its residual was ``RBPres``, with those measures named as
    they now are: ``RBP(rel=L)`` and ``RBP_resid(rel=L)`` (RBP without ``rel`` is graded now, as
    ir_measures' RBP, docs/conventions.md section 21.3), in its settings, its runs' figures and
    rows, and the comparisons, gates and drift that name them. Such a report names ``RBPres`` in
    its settings whenever it names RBP (the residual comes with RBP); any other is returned as it is.
    """
    settings: Any = document.get("settings")
    metrics = settings.get("metrics") if isinstance(settings, dict) else None
    if not isinstance(metrics, list) or not any(isinstance(m, dict) and m.get("key") == OLD_RESIDUAL for m in metrics):
        return document
    conventions = settings.get("conventions")
    level = conventions.get("relevance_level", 1) if isinstance(conventions, dict) else 1
    renamed: dict[str, str] = {}
    entries: dict[str, Any] = {}
    for entry in metrics:
        if isinstance(entry, dict) and entry.get("key") in (RBP.key, OLD_RESIDUAL):
            params = {"rel": level, **(entry.get("params") or {})}
            key = RBP_RESIDUAL.key if entry["key"] == OLD_RESIDUAL else RBP.key
            gain = None if entry.get("gain") is None else Gain(entry["gain"])
            label = Measure(key, entry.get("cutoff"), gain, tuple(sorted(params.items()))).label()
            renamed[entry.get("label", "")] = label
            entry = {**entry, "key": key, "label": label, "params": params}
        # two old names may now be one (RBP(p=0.9) and RBP(p=0.9,rel=1) at level 1): kept once
        entries.setdefault(str(entry.get("label")) if isinstance(entry, dict) else repr(entry), entry)

    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {renamed.get(k, k): v if k in _NO_LABELS else walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str) and key in ("metric", "family", "not_compared"):
            return renamed.get(value, value)
        return value

    out = walk({key: value for key, value in document.items() if key != "settings"})
    out["settings"] = {**settings, "metrics": list(entries.values())}
    return out


def expanded(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` in the shape of schema ``ragreport/1``: rows per query, judgments as
    ``{query: {id: grade}}``, the stored lists as ids (a document of that schema as it is), its
    measures named as they now are (:func:`rbp_named_anew`)."""
    if not is_compact(document):
        return rbp_named_anew(document)
    document = unpacked(document)
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
            if "next_judged" in lists:  # ragreport/4: the judged ids that follow, as ids too
                kept["lists"]["next_judged"] = listed_ids(document, {"ids": lists["next_judged"]})
        runs.append(kept)
    out["runs"] = runs
    return rbp_named_anew(out)


def read_back(document: dict[str, Any], path: str | Path, specs: Mapping[str, Spec]) -> dict[str, Any]:
    """A report.json of any schema as read from ``path`` (a compact one checked against its
    declaration in ``specs``, reportjson/schema.py's PACKED or COMPACT by schema, then read back by
    :func:`expanded`), in the shape of ``ragreport/1``; a one-line error naming the file otherwise."""
    if not is_compact(document):
        return rbp_named_anew(document)
    schema = document["schema"]
    check(document, specs[schema], path)  # the tables and columns, as declared
    try:
        return expanded(document)
    except (KeyError, TypeError, ValueError, IndexError) as exc:  # a hand-edited or forged document
        raise InputError(path, 1, f"a report.json of schema {schema!r} as ragreport writes it", str(exc)) from None
