"""JSON decoding shared by the JSON readers (runs, qrels, JSONL lines) and run metadata.

Python's ``json`` keeps the last value of a key given twice; a run or a qrels file that does so
most likely holds a mistake, so :func:`no_conflicting_keys` refuses two different values (the
same value twice is harmless and kept).
"""

from __future__ import annotations

import json
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
    if not isinstance(data, dict):
        raise InputError(path, 1, what, f"a JSON {type(data).__name__}")
    return data
