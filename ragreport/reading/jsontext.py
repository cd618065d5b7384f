"""JSON decoding shared by the JSON readers (runs, qrels, JSONL lines), run metadata and the
documents ragreport reads back (:func:`decode`).

Python's ``json`` keeps the last value of a key given twice; a run or a qrels file that does so
most likely holds a mistake, so :func:`no_conflicting_keys` refuses two different values (the
same value twice is harmless and kept).

Nothing read here can fail later, when a report is written: JSON nested deeper than Python's
parser goes, and a lone surrogate escape (``"\\ud800"``, which no UTF-8 file can hold) are refused
where they are read, with the file and line.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.errors import InputError, shorten


class ConflictingKey(Exception):
    """A JSON object gave ``key`` two different values (``shown``: both, as an error's ``got``)."""

    def __init__(self, key: str, first: Any, second: Any) -> None:
        super().__init__(key)
        self.key = key
        self.shown = f"{shorten(json.dumps(first), quote=False)} and {shorten(json.dumps(second), quote=False)}"


def no_conflicting_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for :func:`json.loads`: the object, or :class:`ConflictingKey`."""
    out = dict(pairs)
    if len(out) == len(pairs):  # the usual case: no key twice
        return out
    out = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise ConflictingKey(key, out[key], value)
        out[key] = value
    return out


class LongDigits(str):
    """A JSON integer too long to convert (``int()`` raises past 4,300 digits), kept as its digits:
    as an id it is refused by its length, as a grade or a score as out of range, never a traceback."""


def json_integer(digits: str) -> int | str:
    """A ``parse_int`` hook for :func:`json.loads`: the integer, or :class:`LongDigits` past 1,000 digits."""
    return int(digits) if len(digits) <= 1000 else LongDigits(digits)


class NotFinite(Exception):
    """A JSON number ragreport refuses (``NaN``, ``Infinity``, ``1e400``), raised while parsing;
    ``args[0]`` is the number as written."""


def finite_float(word: str) -> float:
    """A ``parse_float`` and ``parse_constant`` hook: the number, :class:`NotFinite` for ``NaN``,
    ``Infinity`` and ``1e400`` (beyond a float)."""
    value = float(word)
    if not math.isfinite(value):
        raise NotFinite(word)
    return value


def line_of(text: str, *keys: str) -> int | None:
    """Line of the first JSON key ``keys[-1]`` found after each earlier key in turn (best effort)."""
    position = 0
    for key in keys:
        found = text.find(json.dumps(key), position)
        if found < 0:
            return None
        position = found
    return text.count("\n", 0, position) + 1


def _line_of_word(text: str, word: str) -> int | None:
    found = re.search(rf"[:\[,]\s*{re.escape(word)}(?![0-9A-Za-z.])", text)
    return None if found is None else text.count("\n", 0, found.end()) + 1


def decode(
    path: Path,
    text: str,
    line: int | None,
    expected: str,
    *,
    obj: str | None = None,
    finite: str | None = None,
    strict_keys: bool = True,
    long_digits: bool = True,
) -> Any:
    """``text`` decoded; every problem one error naming the file and ``line`` (None: the line the
    problem is on, where it can be told). ``expected``: what text that is not JSON should be;
    ``obj``: what a value that is not an object should be (None: any value); ``finite``: what
    ``NaN``, ``Infinity`` and ``1e400`` are refused as (None: they are read); ``strict_keys``: a key
    of two values refused (:class:`ConflictingKey`); ``long_digits``: an integer of more than 1,000
    digits kept as :class:`LongDigits` (else refused). A lone surrogate escape is refused."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=no_conflicting_keys if strict_keys else None,
            parse_int=json_integer if long_digits else None,
            parse_constant=finite_float if finite else None,
            parse_float=finite_float if finite else None,
        )
    except json.JSONDecodeError as exc:
        raise InputError(path, line or exc.lineno, expected, exc.msg) from None
    except ConflictingKey as exc:
        raise InputError(path, line or line_of(text, exc.key), f"one value for key {exc.key!r}", exc.shown) from None
    except NotFinite as exc:
        raise InputError(path, line or _line_of_word(text, exc.args[0]), str(finite), exc.args[0]) from None
    except RecursionError:
        raise InputError(
            path, line, "JSON nested less deeply", "nesting deeper than the JSON parser goes (about 1,000 levels)"
        ) from None
    except ValueError:  # not a JSONDecodeError (caught above): an integer longer than Python converts
        raise InputError(path, line, "numbers of at most 4,300 digits", "a longer integer") from None
    if obj is not None and not isinstance(value, dict):
        raise InputError(path, line or 1, obj, f"a JSON {type(value).__name__}")
    check_surrogates(path, text, value, line)
    return value


def typed(value: Any, kind: type | tuple[type, ...], path: Path, line: int | None, expected: str) -> Any:
    """``value`` when it is of ``kind``, else the error that names the JSON type found."""
    if not isinstance(value, kind):
        raise InputError(path, line, expected, f"a JSON {type(value).__name__}")
    return value


def load_json_object(path: Path, text: str, what: str) -> dict[str, Any]:
    """The JSON object ``text`` holds; ``what`` says what it should be in the errors."""
    if not text.strip():
        raise InputError(path, None, what, "an empty file")
    return decode(path, text, None, f"valid JSON ({what})", obj=what)


def load_json_line(path: Path, number: int, line: str, what: str) -> dict[str, Any]:
    """One JSONL line of a text or metadata file (``--corpus``, ``--queries``, ``--query-meta``) as
    an object (a key given twice keeps its last value), every problem naming the file and line; an
    integer of more than 1,000 digits is kept as :class:`LongDigits`, refused where a number is read."""
    expected, obj, finite = f"one JSON object per line ({what})", f"a JSON object ({what})", f"finite numbers ({what})"
    return decode(path, line, number, expected, obj=obj, finite=finite, strict_keys=False)


#: A ``\\uD800``-``\\uDFFF`` escape: a pair of them (group 1: one character), or one alone.
_SURROGATE_ESCAPE = re.compile(
    r"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_surrogates(path: Path, text: str, value: Any, line: int | None = None) -> None:
    """Refuse a decoded value holding a lone surrogate escape: no UTF-8 output could hold it."""
    if "\\u" not in text or not _SURROGATE_ESCAPE.search(text):
        return
    found = next((s for s, _ in walk(value, keys=True) if isinstance(s, str) and _SURROGATE.search(s)), None)
    if found is not None:
        if line is None:
            lone = next((m for m in _SURROGATE_ESCAPE.finditer(text) if m.group(1) is None), None)
            line = None if lone is None else text.count("\n", 0, lone.start()) + 1
        raise InputError(path, line, "text without lone surrogate escapes (\\ud800-\\udfff)", shorten(found))


def walk(value: Any, keys: bool = False) -> Iterator[tuple[Any, int]]:
    """Every item of a decoded value (lists and objects, their ``keys`` too), with its level (the
    value itself is 0)."""
    todo = [(value, 0)]
    while todo:
        item, level = todo.pop()
        yield item, level
        if isinstance(item, dict):
            if keys:
                todo.extend((key, level + 1) for key in item)
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend((v, level + 1) for v in item)


def non_finite(value: Any) -> float | None:
    """The first NaN or infinity in a decoded value (lists and objects too), else None."""
    return next((x for x, _ in walk(value) if isinstance(x, float) and not math.isfinite(x)), None)


def depth(value: Any) -> int:
    """How deeply a decoded value nests lists and objects (a scalar is 0)."""
    return max((level + 1 for x, level in walk(value) if isinstance(x, (dict, list, tuple))), default=0)


def unfit_number(value: Any) -> float | int | str | None:
    """The first number in a decoded value (lists and objects too) that metadata cannot hold: NaN,
    an infinity, an integer outside 64 bits or one of more than 1,000 digits; else None."""
    return next(
        (
            x
            for x, _ in walk(value)
            if isinstance(x, LongDigits)
            or (isinstance(x, float) and not math.isfinite(x))
            or (isinstance(x, int) and not isinstance(x, bool) and not -(2**63) <= x < 2**63)
        ),
        None,
    )
