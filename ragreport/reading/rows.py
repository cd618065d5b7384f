"""Rows into runs and judgments, for every reader.

A reader parses each row's values here (:func:`parse_id`, :func:`parse_score`,
:func:`parse_grade`: the same rules and the same errors in every format), then gathers the rows:
into a :class:`~ragreport.core.model.Run` by :func:`ranked_run` (grouped by query, each list put
in trec_eval's order), or into :class:`~ragreport.core.model.Judgments` by
:class:`JudgmentCollector` (one grade per query and id). :func:`run_from_columns` is the same for
columns a caller already has (a data frame's, a Parquet file's).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InputError, shorten
from ..core.ids import first_appearance
from ..core.model import Judgments, Order, Run
from .ordering import order_in_place

# ---------------------------------------------------------------------------------------------
# A row's values


def parse_grade(token: Any, path: Path, line: int | None, what: str) -> int:
    """An integer grade: ``2``, ``2.0`` or ``"2"``; ``1.7``, booleans and text are errors."""
    if isinstance(token, bool):
        raise InputError(path, line, f"an integer grade for {what}", str(token).lower())
    if isinstance(token, int):
        return _within_64_bits(token, token, path, line, what)
    value: float
    if isinstance(token, float):
        value = token
    else:
        try:
            return _within_64_bits(int(token), token, path, line, what)
        except (TypeError, ValueError):
            try:
                value = float(token)
            except (TypeError, ValueError):
                raise InputError(path, line, f"an integer grade for {what}", shorten(str(token))) from None
    if not math.isfinite(value) or not value.is_integer():
        raise InputError(path, line, f"an integer grade for {what}", shorten(str(token)))
    return _within_64_bits(int(value), token, path, line, what)


#: Grades are held as 64-bit integers.
GRADE_RANGE = (-(2**63), 2**63 - 1)


def _within_64_bits(grade: int, token: Any, path: Path, line: int | None, what: str) -> int:
    if not GRADE_RANGE[0] <= grade <= GRADE_RANGE[1]:
        raise InputError(path, line, f"an integer grade within 64 bits for {what}", shorten(str(token)))
    return grade


def parse_score(token: Any, path: Path, line: int | None, what: str) -> float:
    """A finite number: ``0.5``, ``"1e-3"``, ``2``; NaN, infinities, booleans and text are errors."""
    if isinstance(token, bool):
        raise InputError(path, line, f"a numeric score for {what}", str(token).lower())
    try:
        value = float(token)
    except (TypeError, ValueError):
        raise InputError(path, line, f"a numeric score for {what}", shorten(str(token))) from None
    if not math.isfinite(value):
        raise InputError(path, line, f"a finite numeric score for {what}", shorten(str(token)))
    return value


def parse_id(value: Any, path: Path, line: int | None, what: str) -> str:
    """An id from a JSON value: a non-empty string, or an integer (``7`` is the id ``"7"``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, line, f"{what} as a string", shorten(json.dumps(value)))
    text = str(value)
    if not text:
        raise InputError(path, line, f"{what} as a non-empty string", "an empty string")
    return text


# ---------------------------------------------------------------------------------------------
# Rows into a run


def group_by_query(
    query_index: np.ndarray | None, counts: np.ndarray, *columns: np.ndarray | None
) -> tuple[np.ndarray, tuple[np.ndarray | None, ...]]:
    """CSR offsets from per-query ``counts``, and ``columns`` gathered by ``query_index`` (stable:
    file order within a query; None means the rows already are grouped)."""
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    if query_index is None or len(query_index) == 0:
        return offsets, columns
    grouping = np.argsort(query_index, kind="stable")
    return offsets, tuple(None if c is None else c[grouping] for c in columns)


def ranked_run(
    name: str,
    source: str,
    qids: Sequence[str] | np.ndarray,
    docs: np.ndarray,
    scores: np.ndarray | None,
    order: Order,
    *,
    query_index: np.ndarray | None = None,
    counts: np.ndarray | None = None,
    query_text: tuple[str | None, ...] = (),
) -> Run:
    """A run from rows in file order: grouped by query (``query_index``, or already grouped in
    runs of ``counts``), then each query's ids put in ranking order (score high to low, ties by id
    descending) unless ``scores`` is None or ``order`` is ``FILE``."""
    if counts is None:
        if query_index is None:
            raise ValueError("ranked_run needs query_index or counts")
        counts = np.bincount(query_index, minlength=len(qids))
    offsets, (grouped_docs, grouped_scores) = group_by_query(query_index, counts, docs, scores)
    assert grouped_docs is not None  # docs is an array, so its gathered copy is one too
    if grouped_scores is not None and order is not Order.FILE:
        order_in_place(offsets, grouped_docs, np.asarray(grouped_scores, dtype=np.float64))
    return Run(
        name=name,
        query_ids=np.asarray(qids, dtype=str),
        offsets=offsets,
        doc_ids=grouped_docs,
        query_text=query_text or (None,) * len(qids),
        source=source,
    )


def run_from_slots(
    name: str,
    source: Path,
    qids_in_order: list[str],
    slot_query: list[int],
    slot_docs: list[str],
    slot_scores: list[float] | None,
    order: Order,
    query_text: tuple[str | None, ...] = (),
) -> Run:
    """A run from the lists a text reader gathered, one slot per row (see :func:`ranked_run`)."""
    return ranked_run(
        name,
        str(source),
        qids_in_order,
        np.array(slot_docs, dtype=str),
        None if slot_scores is None else np.asarray(slot_scores, dtype=np.float64),
        order,
        query_index=np.asarray(slot_query, dtype=np.int64),
        query_text=query_text,
    )


def run_from_columns(
    name: str,
    query_ids: Sequence[str] | np.ndarray,
    doc_ids: Sequence[str] | np.ndarray,
    scores: Sequence[float] | np.ndarray | None = None,
    order: Order = Order.SCORE,
    source: str = "",
) -> Run:
    """A run from three columns, one row per retrieved id (a data frame's, a Parquet file's).

    Queries keep their order of first appearance; each query's ids are put in ranking order (score
    high to low, ties by id descending) unless ``scores`` is None or ``order`` is ``FILE``. Ids may
    be text or UTF-8 bytes. All of it is array work: no Python loop over rows.
    """
    queries = np.asarray(query_ids).astype(str)
    docs = np.asarray(doc_ids)
    if docs.dtype.kind not in "SU":
        docs = docs.astype(str)
    firsts, query_index = first_appearance(queries)
    return ranked_run(
        name,
        source,
        queries[firsts],
        docs,
        None if scores is None else np.asarray(scores),
        order,
        query_index=query_index,
    )


# ---------------------------------------------------------------------------------------------
# Rows into judgments


class JudgmentCollector:
    """Gathers (query, id, grade) with the line each came from; rejects conflicting grades.

    A pair given twice with one grade is one judgment (qrels files repeat lines); with two
    grades it is an error naming both lines.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.queries: dict[str, dict[str, tuple[int, int | None]]] = {}

    def add_query(self, qid: str) -> None:
        """A judged query, even one with no judged id (a JSON ``{qid: {}}``)."""
        self.queries.setdefault(qid, {})

    def add(self, qid: str, doc: str, grade: int, line: int | None) -> None:
        per_query = self.queries.setdefault(qid, {})
        seen = per_query.get(doc)
        if seen is not None:
            if seen[0] != grade:
                raise InputError(
                    self.path,
                    line,
                    f"one grade per query and id (query {qid!r} id {doc!r} was graded {seen[0]} on line {seen[1]})",
                    f"grade {grade}",
                )
            return
        per_query[doc] = (grade, line)

    def judgments(self) -> Judgments:
        return Judgments.from_lists(
            [(q, list(d), [g for g, _ in d.values()]) for q, d in self.queries.items()],
            source=str(self.path),
        )
