"""The one gate every id passes: what an id may hold, how long it may be, and that a query is given
once (docs/conventions.md sections 17 and 18), for every reader and engine.

The builders of :mod:`ragreport.reading.rows` hand every id to :func:`check_rows` with its line and
mark what they build (:func:`passed`); the registry refuses what a reader returns unmarked
(:func:`require`). The check is vectorised; only when one fails are the ids looked at one by one,
to name the first at fault with its line. The bytes-level TREC reader
(:func:`~ragreport.core.ids.forbidden_in_utf8`) and Parquet partitions (on Arrow columns) check the
same rule before ids become text; ``tests/test_hostile_inputs.py`` proves the character sets equal.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from ..core.errors import InputError, shorten
from ..core.ids import MAX_ID_BYTES, all_allowed, forbidden_character, id_too_long

if TYPE_CHECKING:
    from ..core.model import Judgments, Run

#: An id of at most this many characters is within :data:`~ragreport.core.ids.MAX_ID_BYTES`
#: (a character is at most four UTF-8 bytes): only longer ones are measured in bytes.
SURELY_SHORT = MAX_ID_BYTES // 4

#: The line of each row: a sequence (one line per row), a function of the row's index (a JSON
#: reader finds a key's line only when an error needs it), or None (no lines: the error names
#: the file alone).
Lines = Sequence[int | None] | Callable[[int], int | None] | None
#: What an id is called in an error: one name for all, or a function of the row's index.
What = str | Callable[[int], str]


def line_at(lines: Lines, index: int) -> int | None:
    """The line of row ``index``."""
    return None if lines is None else lines(index) if callable(lines) else lines[index]


def problem(text: str, what: str, long_what: str | None = None) -> tuple[str, str] | None:
    """``(expected, got)`` when ``text`` breaks the id rule, else None: empty, a character no id
    may hold (:data:`~ragreport.core.ids.FORBIDDEN_ID_CHARACTERS`, named ``U+XXXX`` beside the id
    escaped), or more than :data:`~ragreport.core.ids.MAX_ID_BYTES` bytes of UTF-8 (named
    ``long_what`` when given: a document id's length error says "an id")."""
    if not text:
        return f"{what} as a non-empty string", "an empty string"
    found = forbidden_character(text)
    if found is not None:
        return f"{what} without control or bidi characters", f"{shorten(text)} (holds {found})"
    size = id_too_long(text)
    if size is not None:
        return f"{long_what or what} of at most {MAX_ID_BYTES:,} bytes", f"{size:,} bytes ({shorten(text)})"
    return None


def all_pass(ids: Sequence[str]) -> bool:
    """Whether every id of ``ids`` keeps the rule (:func:`first_problem`)."""
    return first_problem(ids, "an id") is None


def first_problem(ids: Sequence[str], what: What, long_what: str | None = None) -> tuple[int, str, str] | None:
    """The first id of ``ids`` that breaks the rule, as ``(index, expected, got)``; None when all
    keep it. In the usual case two C-speed passes tell (the ids' text joined, their lengths): every
    character no id may hold is unprintable, so printable text needs no regular expression
    (tests/test_hostile_inputs.py)."""
    sizes = list(map(len, ids))
    joined = "".join(ids)
    candidates: Sequence[int] | range = range(len(ids))
    if min(sizes, default=1) > 0 and (joined.isprintable() or all_allowed((joined,))):
        if max(sizes, default=0) <= SURELY_SHORT:
            return None
        candidates = [i for i, size in enumerate(sizes) if size > SURELY_SHORT]
    for i in candidates:
        text = ids[i]
        if text and len(text) <= SURELY_SHORT and text.isprintable():
            continue  # C speed; every character an id may not hold is unprintable
        found = problem(text, what(i) if callable(what) else what, long_what)
        if found is not None:
            return i, *found
    return None


def check_rows(
    path: Path | str,
    query_ids: Sequence[str],
    query_lines: Lines,
    doc_ids: Sequence[str],
    doc_lines: Lines,
    doc_query: Sequence[int] | np.ndarray,
    *,
    once: bool = True,
) -> None:
    """The gate: every query id and document id keeps the id rule and, when ``once``, no query id
    is given twice (a format of one row per retrieved id merges its rows into queries before).
    ``query_lines[i]``: the line of query ``i``'s first row; ``doc_lines[i]``, ``doc_query[i]``: row
    ``i``'s line and query. The error names the earliest line at fault: ``run.trec:3: expected a
    document id for query 'q1' without control or bidi characters, got 'd\\x1b1' (holds U+001B)``."""
    found: list[tuple[int | None, int, InputError]] = []
    if once and len(set(query_ids)) != len(query_ids):
        first: dict[str, int] = {}
        again = next(i for i, qid in enumerate(query_ids) if first.setdefault(qid, i) != i)
        earlier = line_at(query_lines, first[query_ids[again]])
        also = f" is also on line {earlier}" if earlier is not None else " is given twice"
        line = line_at(query_lines, again)
        expected = f"each query once (query {query_ids[again]!r}{also})"
        found.append((line, 0, InputError(path, line, expected, "it again")))
    bad_query = first_problem(query_ids, "a query id")
    if bad_query is not None:
        line = line_at(query_lines, bad_query[0])
        found.append((line, 1, InputError(path, line, *bad_query[1:])))
    bad_doc = first_problem(doc_ids, lambda i: f"a document id for query {query_ids[doc_query[i]]!r}", "an id")
    if bad_doc is not None:
        line = line_at(doc_lines, bad_doc[0])
        found.append((line, 2, InputError(path, line, *bad_doc[1:])))
    if found:  # the earliest line at fault; one without a line last
        raise min(found, key=lambda item: (item[0] is None, item[0] or 0, item[1]))[2]


_Built = TypeVar("_Built", "Run", "Judgments")
#: What the builders built after :func:`check_rows`, by identity (held weakly: a run that is let go
#: leaves the table).
_PASSED: weakref.WeakValueDictionary[int, Run | Judgments] = weakref.WeakValueDictionary()


def passed(built: _Built) -> _Built:
    """``built``, marked as having passed the gate. Only the builders of
    :mod:`ragreport.reading.rows` and :mod:`ragreport.reading.memory`, and the bytes-level TREC
    reader (whose buffer check is the gate's vectorised twin), call this, after checking."""
    _PASSED[id(built)] = built
    return built


def has_passed(built: Run | Judgments) -> bool:
    """Whether ``built`` came out of a builder that checked its ids (:func:`passed`)."""
    return _PASSED.get(id(built)) is built


def require(built: Run | Judgments, reader: str, what: str) -> None:
    """Refuse a run or judgments a reader returned without passing the gate: a reader's bug (a
    :class:`RuntimeError`, an internal error), found by the reader's first test."""
    if not has_passed(built):
        raise RuntimeError(
            f"the {reader!r} reader returned {what} its ids did not pass the gate: build them with "
            "ragreport.reading.rows (run_from_slots, run_from_columns, judgments_from_lists, JudgmentCollector)"
        )
