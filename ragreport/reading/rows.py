"""Rows into runs and judgments, for every reader: each value parsed by one rule and error in
every format (:func:`parse_id`, :func:`parse_score`, :func:`parse_grade`), the rows gathered into a
run (:func:`run_from_slots`, :class:`RunRows`, :func:`run_from_columns`) or judgments
(:class:`JudgmentCollector`, :func:`judgments_from_lists`) by builders that pass every id through
the gate (:mod:`ragreport.reading.gate`) with its line: a reader checks no id itself.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..core.budget import MAX_ID_BYTES, id_array
from ..core.errors import InputError, shorten
from ..core.grammar import NUMBER
from ..core.ids import as_text, first_appearance
from ..core.model import Judgments, Order, Run, RunMeta
from .gate import Lines, check_rows, first_problem, line_at, passed, problem
from .ordering import order_in_place

_INTEGER = re.compile(r"[+-]?[0-9]+")
#: Grades are signed 64-bit integers: the arrays that hold them.
GRADE_MIN, GRADE_MAX = -(1 << 63), (1 << 63) - 1


def parse_grade(token: Any, path: Path | str, line: int | None, what: str) -> int:
    """An integer grade: ``2``, ``2.0`` or ``"2"``; ``1.7``, ``1_0``, booleans, text and grades
    beyond signed 64 bits are errors. Text follows the one number grammar (docs/conventions.md
    section 17: Python's own ``int`` and ``float`` would also take ``1_0``, ``nan``, blanks)."""
    wide = f"an integer grade within signed 64 bits for {what}"
    if isinstance(token, bool):
        raise InputError(path, line, f"an integer grade for {what}", str(token).lower())
    if isinstance(token, float) and math.isinf(token):
        raise InputError(path, line, wide, "a number past a double's range")
    if isinstance(token, int):
        value = token
    else:  # a float is read as its text: 2.0 is "2.0", NaN "nan"
        text = token if isinstance(token, str) else str(token)
        if _INTEGER.fullmatch(text):
            if len(text.lstrip("+-").lstrip("0")) > 19:  # past 64 bits (and past what int() converts)
                raise InputError(path, line, wide, shorten(text))
            value = int(text)
        else:
            number = float(text) if NUMBER.fullmatch(text) else math.nan
            if not math.isfinite(number) or not number.is_integer():
                raise InputError(path, line, f"an integer grade for {what}", shorten(text))
            value = int(number)
    if not GRADE_MIN <= value <= GRADE_MAX:
        raise InputError(path, line, wide, shorten(str(token), quote=False))
    return value


def parse_score(token: Any, path: Path | str, line: int | None, what: str) -> float:
    """A finite number: ``0.5``, ``"1e-3"``, ``2``; NaN, infinities, ``1_0``, booleans and text are errors."""
    if isinstance(token, bool):
        raise InputError(path, line, f"a numeric score for {what}", str(token).lower())
    if isinstance(token, (int, float)):
        try:
            value = float(token)
        except OverflowError:  # an integer beyond a double's range
            value = math.inf
    else:
        text = token if isinstance(token, str) else str(token)
        if not NUMBER.fullmatch(text):
            try:  # what Python's float makes of it words the error: "inf" is not finite
                loose = float(text)
            except ValueError:
                loose = 0.0
            finite = "a numeric" if math.isfinite(loose) else "a finite numeric"
            raise InputError(path, line, f"{finite} score for {what}", shorten(text))
        value = float(text)
    if not math.isfinite(value):
        raise InputError(path, line, f"a finite numeric score for {what}", shorten(str(token)))
    return value


def check_ids(ids: Sequence[str], path: Path | str, lines: Lines, what: str) -> None:
    """The id rule (:func:`~ragreport.reading.gate.first_problem`) over many ids named ``what``:
    one vectorised pass when all keep it (the usual case)."""
    found = first_problem(ids, what)
    if found is not None:
        raise InputError(path, line_at(lines, found[0]), *found[1:])


def parse_id(value: Any, path: Path | str, line: int | None, what: str) -> str:
    """An id from a JSON value: a non-empty string, or an integer (``7`` is the id ``"7"``),
    checked by the id rule under the reader's name for it (``'id'``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, line, f"{what} as a string", shorten(json.dumps(value)))
    if isinstance(value, int) and abs(value) >= 10**MAX_ID_BYTES:
        raise InputError(path, line, f"{what} of at most {MAX_ID_BYTES:,} bytes", "a longer integer")
    found = problem(str(value), what)  # the id rule, named as the reader names the id
    if found is not None:
        raise InputError(path, line, *found)
    return str(value)


def group_by_query(
    query_index: np.ndarray | None, counts: np.ndarray, *columns: np.ndarray | None
) -> tuple[np.ndarray, tuple[np.ndarray | None, ...]]:
    """CSR offsets from per-query ``counts``, and ``columns`` gathered stably by ``query_index`` (None:
    already grouped)."""
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
    descending, ascending under ``Order.IR_MEASURES_RR``; scores rounded to single precision
    first under ``Order.TREC_EVAL``) unless ``scores`` is None or ``order`` is ``FILE``."""
    if counts is None:
        assert query_index is not None  # one of the two is given
        counts = np.bincount(query_index, minlength=len(qids))
    offsets, (grouped_docs, grouped_scores) = group_by_query(query_index, counts, docs, scores)
    assert grouped_docs is not None  # docs is an array, so its gathered copy is one too
    if grouped_scores is not None and order.by_score:
        keys = np.asarray(grouped_scores, dtype=np.float64)
        if order is Order.TREC_EVAL:  # trec_eval's C float: scores equal in single precision tie
            with np.errstate(over="ignore"):  # beyond a float's range: infinite, as in C
                keys = keys.astype(np.float32).astype(np.float64)
        order_in_place(offsets, grouped_docs, keys, ascending=order is Order.IR_MEASURES_RR)
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
    *,
    query_lines: Lines,
    slot_lines: Lines,
    query_meta: tuple[Mapping[str, object] | None, ...] = (),
    doc_text: Mapping[str, str] | None = None,
    meta: RunMeta | None = None,
    steps: np.ndarray | None = None,
) -> Run:
    """A run from the lists a text reader gathered, one slot per row (see :func:`ranked_run`), its
    ids passed through the gate first. ``qids_in_order`` holds each query once, in file order (a
    query given twice is refused); ``query_lines[i]`` is the line of query ``i``'s first row and
    ``slot_lines[j]`` that of slot ``j`` (sequences, or functions finding it when an error needs it).
    ``meta`` is what the reader says of its reading (the run's file metadata joins it on loading);
    ``steps`` a multi-hop run's list lengths after each hop (:attr:`~ragreport.core.model.Run.steps`)."""
    check_rows(source, qids_in_order, query_lines, slot_docs, slot_lines, slot_query)
    run = ranked_run(
        name,
        str(source),
        qids_in_order,
        id_array(slot_docs, str(source)),
        None if slot_scores is None else np.asarray(slot_scores, dtype=np.float64),
        order,
        query_index=np.asarray(slot_query, dtype=np.int64),
        query_text=query_text,
    )
    if query_meta or doc_text or meta or steps is not None:
        run = replace(run, query_meta=query_meta, doc_text=doc_text, meta=meta or run.meta, steps=steps)
    return passed(run)


class RunRows:
    """A run's rows gathered one at a time with the line of each, for a text format of one row per
    retrieved id (TREC, CSV): queries in order of first appearance, the rows of one query merged."""

    def __init__(self) -> None:
        self.qids: dict[str, int] = {}
        self.query_lines: list[int] = []
        self.slot_query: list[int] = []
        self.slot_docs: list[str] = []
        self.slot_scores: list[float] = []
        self.slot_lines: list[int] = []

    def add(self, qid: str, doc: str, score: float, line: int) -> None:
        if qid not in self.qids:
            self.qids[qid] = len(self.qids)
            self.query_lines.append(line)
        self.slot_query.append(self.qids[qid])
        self.slot_docs.append(doc)
        self.slot_scores.append(score)
        self.slot_lines.append(line)

    def run(self, name: str, source: Path, order: Order, ranked: bool = True, meta: RunMeta | None = None) -> Run:
        """The run, by :func:`run_from_slots`; not ``ranked``: in file order, the scores unused."""
        return run_from_slots(
            name,
            source,
            list(self.qids),
            self.slot_query,
            self.slot_docs,
            self.slot_scores if ranked else None,
            order,
            query_lines=self.query_lines,
            slot_lines=self.slot_lines,
            meta=meta,
        )


def run_from_columns(
    name: str,
    query_ids: Sequence[str] | np.ndarray,
    doc_ids: Sequence[str] | np.ndarray,
    scores: Sequence[float] | np.ndarray | None = None,
    order: Order = Order.SCORE,
    source: str = "",
    lines: Lines = lambda index: index + 1,
) -> Run:
    """A run from three columns, one row per retrieved id (a data frame's, a Parquet file's), by
    array work alone: queries in order of first appearance, rows of one query merged, each list
    ranked as :func:`ranked_run` does. Ids may be text or UTF-8 bytes; an error names ``lines``
    (by default the row, counted from 1). Ids are checked as arrays, which cannot hold a trailing
    NUL: a caller whose ids may end in one checks them before (Parquet on its Arrow columns)."""
    queries = np.asarray(query_ids).astype(str)
    docs = np.asarray(doc_ids)
    if docs.dtype.kind not in "SU":
        docs = docs.astype(str)
    firsts, query_index = first_appearance(queries)
    distinct = queries[firsts]
    check_rows(
        source,
        distinct.tolist(),
        lambda i: line_at(lines, int(firsts[i])),
        as_text(docs),
        lines,
        query_index,
        once=False,
    )
    return passed(
        ranked_run(
            name, source, distinct, docs, None if scores is None else np.asarray(scores), order, query_index=query_index
        )
    )


def judgments_from_lists(
    source: Path | str, per_query: list[tuple[str, list[str], list[int]]], query_lines: Lines
) -> Judgments:
    """Judgments from one record per query (``(qid, ids, grades)``, each id once), as a
    list-per-line format gives them (RAG JSONL's ``relevant``); ``query_lines[i]``: the line of
    record ``i``. Every id passes the gate; a query given twice is refused."""
    qids = [q for q, _, _ in per_query]
    docs = [d for _, ds, _ in per_query for d in ds]
    doc_query = [i for i, (_, ds, _) in enumerate(per_query) for _ in ds]
    check_rows(source, qids, query_lines, docs, lambda j: line_at(query_lines, doc_query[j]), doc_query)
    return passed(Judgments.from_lists(per_query, source=str(source)))


class JudgmentCollector:
    """Gathers (query, id, grade) with the line each came from; rejects conflicting grades; its
    ids pass the gate when the judgments are built (:meth:`judgments`).

    A pair given twice with one grade is one judgment (qrels files repeat lines); with two
    grades it is an error naming both lines. A query's judgments may be on many lines.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.queries: dict[str, dict[str, tuple[int, int | None]]] = {}
        self.query_lines: list[int | None] = []

    def add_query(self, qid: str, line: int | None = None) -> None:
        """A judged query, even one with no judged id (a JSON ``{qid: {}}``)."""
        if qid not in self.queries:
            self.queries[qid] = {}
            self.query_lines.append(line)

    def add(self, qid: str, doc: str, grade: int, line: int | None) -> None:
        self.add_query(qid, line)
        per_query = self.queries[qid]
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

    def judgments(self, empty: tuple[int | None, str, str] | None = None) -> Judgments:
        """The judgments, their ids passed through the gate; kept as
        :func:`~ragreport.core.budget.id_array` keeps them. ``empty``: the error (line, expected,
        got) of a file that judges no query."""
        if empty is not None and not self.queries:
            raise InputError(self.path, *empty)
        qids = list(self.queries)
        docs = [d for per_query in self.queries.values() for d in per_query]
        lines = [line for per_query in self.queries.values() for _, line in per_query.values()]
        lengths = [len(per_query) for per_query in self.queries.values()]
        doc_query = np.repeat(np.arange(len(qids)), lengths)
        check_rows(self.path, qids, self.query_lines, docs, lines, doc_query, once=False)
        grades = [g for per_query in self.queries.values() for g, _ in per_query.values()]
        judgments = Judgments(
            query_ids=np.array(qids, dtype=str),
            offsets=np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64),
            doc_ids=id_array(docs, str(self.path)),
            grades=np.array(grades, dtype=np.int64),
            source=str(self.path),
        )
        for array in (judgments.query_ids, judgments.offsets, judgments.doc_ids, judgments.grades):
            array.setflags(write=False)  # read-only, as Judgments.from_lists keeps its arrays
        return passed(judgments)
