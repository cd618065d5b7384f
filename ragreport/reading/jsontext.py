"""JSON decoding shared by the JSON readers (runs, qrels, JSONL lines) and run metadata.

Python's ``json`` keeps the last value of a key given twice; a run or a qrels file that does so
most likely holds a mistake, so :func:`no_conflicting_keys` refuses two different values (the
same value twice is harmless and kept).

Nothing read here can fail later, when a report is written: JSON nested deeper than Python's
parser goes, and a lone surrogate escape (``"\\ud800"``, which no UTF-8 file can hold) are refused
where they are read, with the file and line (:func:`decode_problem`, :func:`lone_surrogate_line`).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..core.errors import InputError, shorten


class ConflictingKey(Exception):
    """A JSON object gave ``key`` two different values."""

    def __init__(self, key: str, first: Any, second: Any) -> None:
        super().__init__(key)
        self.key, self.first, self.second = key, first, second

    def shown(self) -> str:
        """The two values, as an error's ``got``."""
        return f"{shorten(json.dumps(self.first), quote=False)} and {shorten(json.dumps(self.second), quote=False)}"


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


def line_of(text: str, *keys: str) -> int | None:
    """Line of the first JSON key ``keys[-1]`` found after each earlier key in turn (best effort)."""
    position = 0
    for key in keys:
        found = text.find(json.dumps(key), position)
        if found < 0:
            return None
        position = found
    return text.count("\n", 0, position) + 1


#: What a JSON text nested deeper than Python's parser goes (about 1,000 levels) is called in errors.
TOO_DEEP = ("JSON nested less deeply", "nesting deeper than the JSON parser goes (about 1,000 levels)")

#: A JSON integer longer than Python converts (4,300 digits) is called this in errors.
TOO_LONG = ("numbers of at most 4,300 digits", "a longer integer")

_SURROGATE_ESCAPE = re.compile(r"\\u[dD]([89abAB]|[c-fC-F])[0-9a-fA-F]{2}")


def lone_surrogate(value: Any) -> str | None:
    """The first string (or key) in a decoded JSON value that holds a lone surrogate, else None."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if not item.isascii() and any("\ud800" <= c <= "\udfff" for c in item):
                return item
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return None


def lone_surrogate_line(text: str) -> int | None:
    """The line of the first ``\\uD800``-``\\uDFFF`` escape in ``text`` that is not half of a pair."""
    matches = list(_SURROGATE_ESCAPE.finditer(text))
    for i, match in enumerate(matches):
        high = match.group(1).lower() in "89ab"
        follows = i + 1 < len(matches) and matches[i + 1].start() == match.end()
        if high and follows and matches[i + 1].group(1).lower() in "cdef":
            continue  # a pair: one character
        previous = matches[i - 1] if i else None
        after_high = previous is not None and previous.end() == match.start() and previous.group(1).lower() in "89ab"
        if not high and after_high:
            continue  # the second half of a pair
        return text.count("\n", 0, match.start()) + 1
    return None


def check_surrogates(path: Path, text: str, value: Any, line: int | None = None) -> None:
    """Refuse a decoded value holding a lone surrogate escape: no UTF-8 output could hold it."""
    if "\\u" not in text or not _SURROGATE_ESCAPE.search(text):
        return
    found = lone_surrogate(value)
    if found is not None:
        where = line if line is not None else lone_surrogate_line(text)
        raise InputError(path, where, "text without lone surrogate escapes (\\ud800-\\udfff)", shown(found))


def shown(text: str) -> str:
    """A found string as an error shows it: its repr, cut short (a surrogate shows as ``\\ud800``)."""
    return shorten(text)


def non_finite(value: Any) -> float | None:
    """The first NaN or infinity in a decoded value (lists and objects too), else None."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return item
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return None


def depth(value: Any) -> int:
    """How deeply a decoded value nests lists and objects (a scalar is 0)."""
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level + 1)
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            deepest = max(deepest, level + 1)
            todo.extend((v, level + 1) for v in item)
    return deepest


def load_json_object(path: Path, text: str, what: str) -> dict[str, Any]:
    """The JSON object ``text`` holds; ``what`` says what it should be in the errors."""
    if not text.strip():
        raise InputError(path, None, what, "an empty file")
    try:
        data = json.loads(text, object_pairs_hook=no_conflicting_keys, parse_int=json_integer)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"valid JSON ({what})", exc.msg) from None
    except ConflictingKey as exc:
        raise InputError(path, line_of(text, exc.key), f"one value for key {exc.key!r}", exc.shown()) from None
    except RecursionError:
        raise InputError(path, None, *TOO_DEEP) from None
    except ValueError:  # not a JSONDecodeError (caught above): an integer too long to convert
        raise InputError(path, None, *TOO_LONG) from None
    if not isinstance(data, dict):
        raise InputError(path, 1, what, f"a JSON {type(data).__name__}")
    check_surrogates(path, text, data)
    return data


class NotFinite(Exception):
    """A JSON number ragreport refuses (``NaN``, ``Infinity``, ``1e400``), raised while parsing by
    :func:`refuse_constant` and :func:`finite_float`; ``word`` is the number as written."""

    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


def refuse_constant(word: str) -> Any:
    raise NotFinite(word)


def finite_float(word: str) -> float:
    value = float(word)
    if not math.isfinite(value):  # 1e400: beyond a float
        raise NotFinite(word)
    return value


def load_json_line(path: Path, number: int, line: str, what: str) -> dict[str, Any]:
    """One JSONL line of a text or metadata file (``--corpus``, ``--queries``, ``--query-meta``)
    as an object, every problem one line naming the file and line: not JSON, not an object, nested
    past the parser, ``NaN``/``Infinity``/``1e400``, an integer of more than 1,000 digits (kept as
    :class:`LongDigits`, refused where a number is read), or a lone surrogate escape."""
    try:
        record = json.loads(line, parse_constant=refuse_constant, parse_float=finite_float, parse_int=json_integer)
    except json.JSONDecodeError as exc:
        raise InputError(path, number, f"one JSON object per line ({what})", exc.msg) from None
    except NotFinite as exc:
        raise InputError(path, number, f"finite numbers ({what})", exc.word) from None
    except RecursionError:
        raise InputError(path, number, *TOO_DEEP) from None
    except ValueError:
        raise InputError(path, number, *TOO_LONG) from None
    if not isinstance(record, dict):
        raise InputError(path, number, f"a JSON object ({what})", f"a JSON {type(record).__name__}")
    check_surrogates(path, line, record, number)
    return record


def unfit_number(value: Any) -> float | int | str | None:
    """The first number in a decoded value (lists and objects too) that metadata cannot hold: NaN,
    an infinity, an integer outside 64 bits or one of more than 1,000 digits; else None."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, LongDigits):
            return item
        if isinstance(item, float) and not math.isfinite(item):
            return item
        if isinstance(item, int) and not isinstance(item, bool) and not -(2**63) <= item < 2**63:
            return item
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
    return None
