"""Runs and judgments held in memory: the dictionaries pytrec_eval and ranx use, and data frames.

- A run is ``{query_id: {doc_id: score}}``, or a data frame with the columns ``query_id``,
  ``doc_id`` and ``score`` (one row per retrieved id). Its lists are ordered like a TREC run's
  unless ``Order.FILE`` keeps the dictionary's (or the frame's) order. Queries keep their order of
  first appearance.
- Judgments are ``{query_id: {doc_id: grade}}`` (a query may map to ``{}``), or a data frame with
  the columns ``query_id``, ``doc_id`` and ``relevance``.

Ids are strings; an integer stands for its decimal text (``7`` is ``"7"``), and two keys that name
one id (``7`` and ``"7"``) are an error; ids keep the id rule (docs/conventions.md section 17).
Scores are finite numbers, grades integers within signed 64 bits (``2.0`` is 2). Every error is
raised before anything is scored, as one line naming the run (or the judgments), the query and
what was expected: ``run 'bm25', query 'q1': expected a number for document 'd3', got 'abc'``.

A data frame is recognised by what it has (``columns`` and ``to_dict``), so pandas is never
imported here. The objects built are those the file readers build, so an in-memory run gives
exactly the figures of the same run written to a TREC file.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.budget import MAX_ID_BYTES, id_array
from ..core.errors import InputError, UsageError, shorten
from ..core.ids import all_allowed, first_appearance
from ..core.model import Judgments, Order, Run
from .gate import all_pass, passed, problem
from .rows import GRADE_MAX, GRADE_MIN, ranked_run

#: What a run may be given as, in the errors that refuse anything else.
RUN_FORMS = "a mapping {query_id: {doc_id: score}} or a data frame with columns query_id, doc_id, score"
JUDGMENT_FORMS = "a mapping {query_id: {doc_id: grade}} or a data frame with columns query_id, doc_id, relevance"

#: The name of an in-memory run given alone, not in a mapping of names.
SINGLE_NAME = "run"


class ObjectError(InputError, ValueError):
    """A run or judgments in memory that are not what was expected; ``where`` names the run (or the
    judgments) and the query, as a file's error names its file and line. Also a ``ValueError``, as
    Python code expects of a bad argument."""

    def __init__(self, where: str, expected: str, got: str | None = None):
        super().__init__(where, None, expected, got)


def is_frame(value: Any) -> bool:
    """A data frame (pandas, or any object with ``columns`` and ``to_dict``), told without importing one."""
    return hasattr(value, "columns") and hasattr(value, "to_dict") and not isinstance(value, Mapping)


def is_in_memory(value: Any) -> bool:
    """A run or judgments held in memory (a mapping or a data frame), not a path to a file."""
    return isinstance(value, Mapping) or is_frame(value)


def _kind(value: Any) -> str:
    """What was found, for an error: a value's ``repr`` (cut short), or its type for a container."""
    if isinstance(value, str):
        return shorten(value)
    if isinstance(value, (numbers.Number, np.bool_)) or value is None:
        return shorten(str(value), quote=False)
    return f"a {type(value).__name__}"


def _id(value: Any, where: str, what: str) -> str:
    """An id: a non-empty string, or an integer standing for its decimal text; by the id rule of
    every reader (:func:`~ragreport.reading.gate.problem`)."""
    if isinstance(value, str):
        found = problem(value, what)
        if found is not None:
            raise ObjectError(where, *found)
        return str(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        if abs(int(value)) >= 10**MAX_ID_BYTES:
            raise ObjectError(where, f"{what} of at most {MAX_ID_BYTES:,} bytes", "a longer integer")
        return str(int(value))
    raise ObjectError(where, f"{what} as a string (or an integer)", _kind(value))


def _score(value: Any, where: str, doc: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ObjectError(where, f"a number for document {doc!r}", _kind(value))
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ObjectError(where, f"a finite number for document {doc!r}", _kind(value))
    return number


def _grade(value: Any, where: str, doc: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ObjectError(where, f"an integer grade for document {doc!r}", _kind(value))
    if isinstance(value, numbers.Integral):
        grade = int(value)
    else:
        number = float(value)
        if not math.isfinite(number) or not number.is_integer():
            raise ObjectError(where, f"an integer grade for document {doc!r}", _kind(value))
        grade = int(number)
    if not GRADE_MIN <= grade <= GRADE_MAX:
        raise ObjectError(where, f"an integer grade within signed 64 bits for document {doc!r}", _kind(value))
    return grade


def _distinct(seen: dict[str, Any], key: str, raw: Any, where: str, what: str) -> None:
    if key in seen:
        raise ObjectError(where, f"distinct {what}s", f"{seen[key]!r} and {raw!r}, which both are {key!r}")
    seen[key] = raw


def _queries(value: Mapping, where: str, inner: str) -> Iterator[tuple[str, str, Mapping]]:
    """(query id, what its errors name, its mapping) of each query of ``{query_id: {doc_id: inner}}``."""
    seen: dict[str, Any] = {}
    for raw_q, per_query in value.items():
        qid = _id(raw_q, where, "a query id")
        _distinct(seen, qid, raw_q, where, "query id")
        at = f"{where}, query {qid!r}"
        if not isinstance(per_query, Mapping):
            raise ObjectError(at, f"a mapping of document ids to {inner}", _kind(per_query))
        yield qid, at, per_query


def _doc_ids(raw_docs: Iterable[Any], at: str) -> Iterator[str]:
    """Each document id, checked one by one (lazily: an error names the first value at fault)."""
    given: dict[str, Any] = {}
    for raw_d in raw_docs:
        doc = _id(raw_d, at, "a document id")
        _distinct(given, doc, raw_d, at, "document id")
        yield doc


def _columns(frame: Any, names: Sequence[str], where: str, forms: str) -> list[list[Any]]:
    """The frame's columns ``names`` as lists of Python values (``Series.tolist()`` gives those)."""
    found = [str(c) for c in list(frame.columns)]
    if any(name not in found for name in names):
        raise ObjectError(where, forms, f"a data frame with columns {found}")
    columns = [frame[name] for name in names]
    return [column.tolist() if hasattr(column, "tolist") else list(column) for column in columns]


#: Number types taken as they are, checked for finiteness in one array operation; any other value
#: (text, a bool, a Decimal) is checked one by one, which names it in the error.
_PLAIN_NUMBERS = frozenset({float, int, np.float64, np.float32, np.int64, np.int32})


def _plain_ids(values: list[Any], bounded: bool = True) -> bool:
    """Every value a ``str`` that keeps the id rule (:func:`~ragreport.reading.gate.all_pass`):
    taken as they are (the usual case, vectorised passes). Not ``bounded``: lengths are left to
    :func:`~ragreport.core.budget.id_array`, which refuses an id past the bound (a run's ids)."""
    if not all(type(v) is str for v in values):
        return False
    return all_pass(values) if bounded else "" not in values and all_allowed(values)


def _plain_scores(values: list[Any]) -> np.ndarray | None:
    """The scores as an array when every one is a plain finite number, else None (check each)."""
    if not all(type(v) in _PLAIN_NUMBERS for v in values):
        return None
    try:
        array = np.asarray(values, dtype=np.float64)
    except OverflowError:
        return None
    return array if np.isfinite(array).all() else None


def _frame_run(value: Any, name: str, where: str, order: Order) -> Run:
    queries, docs, scores = _columns(value, ("query_id", "doc_id", "score"), where, RUN_FORMS)
    if not queries:
        raise ObjectError(where, "at least one query", "none")
    plain = _plain_scores(scores) if _plain_ids(queries) and _plain_ids(docs, bounded=False) else None
    if plain is None:  # checked one by one, naming the first value at fault
        rows = []
        for raw_q, raw_d, raw_s in zip(queries, docs, scores):
            qid = _id(raw_q, where, "a query id")
            doc = _id(raw_d, f"{where}, query {qid!r}", "a document id")
            rows.append((qid, doc, _score(raw_s, f"{where}, query {qid!r}", doc)))
        queries, docs, scores = (list(column) for column in zip(*rows))
        plain = np.asarray(scores, dtype=np.float64)
    query_ids = np.array(queries, dtype=str)
    firsts, query_index = first_appearance(query_ids)
    qids = query_ids[firsts].tolist()
    return passed(
        ranked_run(name, f"{where} (in memory)", qids, id_array(docs, where), plain, order, query_index=query_index)
    )


def run_from_object(value: Any, name: str, order: Order = Order.SCORE) -> Run:
    """The run ``name`` from a mapping ``{query_id: {doc_id: score}}`` or a data frame (see the module)."""
    where = f"run {name!r}"
    if is_frame(value):
        return _frame_run(value, name, where, order)
    if not isinstance(value, Mapping):
        raise ObjectError(where, RUN_FORMS, _kind(value))
    qids: list[str] = []
    counts: list[int] = []
    all_docs: list[str] = []
    all_scores: list[np.ndarray] = []
    for qid, at, ranked in _queries(value, where, "scores"):
        raw_docs, raw_scores = list(ranked.keys()), list(ranked.values())
        docs = raw_docs if _plain_ids(raw_docs, bounded=False) else list(_doc_ids(raw_docs, at))
        scores = _plain_scores(raw_scores)
        if scores is None:
            scores = np.array([_score(v, at, d) for d, v in zip(docs, raw_scores)], dtype=np.float64)
        qids.append(qid)
        counts.append(len(docs))
        all_docs.extend(docs)
        all_scores.append(scores)
    if not qids:
        raise ObjectError(where, "at least one query", "none")
    return passed(
        ranked_run(
            name,
            f"{where} (in memory)",
            qids,
            id_array(all_docs, where),  # ids past 2,048 bytes refused, wide ones kept as bytes
            np.concatenate(all_scores),
            order,
            counts=np.asarray(counts, dtype=np.int64),
        )
    )


def judgments_from_object(value: Any, where: str = "judgments") -> Judgments:
    """Judgments from a mapping ``{query_id: {doc_id: grade}}`` or a data frame (see the module);
    ``where`` names them in an error (the argument they were given as: ``audit``)."""
    per_query: dict[str, dict[str, int]] = {}
    if is_frame(value):
        first_row: dict[tuple[str, str], int] = {}
        columns = _columns(value, ("query_id", "doc_id", "relevance"), where, JUDGMENT_FORMS)
        for row, (raw_q, raw_d, raw_g) in enumerate(zip(*columns)):
            qid = _id(raw_q, where, "a query id")
            at = f"{where}, query {qid!r}"
            doc = _id(raw_d, at, "a document id")
            grade = _grade(raw_g, at, doc)
            graded = per_query.setdefault(qid, {})
            if doc in graded and graded[doc] != grade:
                raise ObjectError(
                    at,
                    f"one grade per document (document {doc!r} is graded {graded[doc]} in row {first_row[qid, doc]})",
                    f"grade {grade} in row {row}",
                )
            first_row.setdefault((qid, doc), row)
            graded[doc] = grade
    elif isinstance(value, Mapping):
        for qid, at, graded_in in _queries(value, where, "grades"):
            grades = per_query.setdefault(qid, {})
            if _plain_ids(list(graded_in)) and all(
                type(g) is int and GRADE_MIN <= g <= GRADE_MAX for g in graded_in.values()
            ):
                grades.update(graded_in)  # text ids and int grades, the usual case: taken as they are
                continue
            for doc, raw_g in zip(_doc_ids(graded_in, at), graded_in.values()):
                grades[doc] = _grade(raw_g, at, doc)
    else:
        raise ObjectError(where, JUDGMENT_FORMS, _kind(value))
    if not per_query:
        raise ObjectError(where, "at least one judged query", "none")
    return passed(
        Judgments.from_lists(
            [(q, list(g), list(g.values())) for q, g in per_query.items()], source="judgments (in memory)"
        )
    )


def named_inputs(inputs: Any) -> list[tuple[str | None, Any]]:
    """``inputs`` as (name, run) pairs, a run being a path or an in-memory run, and the name None
    where the run is not named by the caller.

    - a path (``str`` or ``Path``): that one file;
    - a mapping of names to runs (paths or in-memory): each run under its key's name;
    - one in-memory run (a mapping ``{query_id: {doc_id: score}}`` or a data frame): named ``run``;
    - a list or tuple of runs (paths or in-memory): not named by the caller;
      :func:`~ragreport.reading.registry.load_inputs` names a path's run as the file readers do
      (its metadata's ``name``, else its stem) and an in-memory run by its metadata's ``name``,
      else ``run-1``, ``run-2``, ... after its position in the list.
    """
    if isinstance(inputs, (str, Path)):
        return [(None, inputs)]
    if is_frame(inputs):
        return [(SINGLE_NAME, inputs)]
    if isinstance(inputs, Mapping):
        # Runs by name, not one run: every value a path, a data frame, or a non-empty mapping of mappings.
        by_name = bool(inputs) and all(
            isinstance(item, (str, Path))
            or is_frame(item)
            or (isinstance(item, Mapping) and bool(item) and all(isinstance(v, Mapping) for v in item.values()))
            for item in inputs.values()
        )
        if not by_name:
            return [(SINGLE_NAME, inputs)]
        return [(_id(key, "runs", "a run name"), item) for key, item in inputs.items()]
    if isinstance(inputs, Sequence):
        for i, item in enumerate(inputs, start=1):
            if not (isinstance(item, (str, Path)) or is_in_memory(item)):
                raise UsageError(f"runs, item {i}: expected a path, {RUN_FORMS}, got {_kind(item)}")
        return [(None, item) for item in inputs]
    raise UsageError(
        f"runs: expected a path, {RUN_FORMS}, a mapping of run names to runs or a list of runs, got {_kind(inputs)}"
    )
