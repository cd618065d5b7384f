"""The stored documents' declared shape, checked field by field where they are read.

A ``history.json`` read back by ``publish``, and a ``report.json`` given to ``render`` or as
``--previous``, may have been edited by hand or forged. Each is checked against one declaration
before any of it is used: every field of a wrong type, out of its range, missing where required,
or a run named twice, is one line naming the file and the field path (``history.json:
reports[0].runs[1].metrics.nDCG@10.mean: expected a number, got "x"``), never a traceback in the
middle of a page (docs/conventions.md section 23.2).

The declarations are data: a spec is a dict with a ``type`` (``object``, ``list``, ``map``,
``either``, ``integer``, ``number``, ``text``, ``boolean``, ``choice``, ``date``, ``any``) and what
that type takes, made by the small constructors below, so that a field added to a document is one
line added to its spec. An object's keys not in its ``fields`` are allowed (a newer writer may add
some) unless ``others`` gives their spec. Numbers were read by the one grammar already (NaN,
infinities and numbers beyond a float refused); an integer field is also held within its range,
64 bits by default.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..core.errors import InputError

Spec = Mapping[str, Any]

INT64 = (-(2**63), 2**63 - 1)
#: The deepest cutoff a stored document may name: as a measure name's (docs/conventions.md section 19).
MAX_CUTOFF = 1_000_000


def leaf(kind: str, null: bool = False, said: str = "", **more: Any) -> dict[str, Any]:
    """A spec of type ``kind``; ``said``: what an error says was expected (by default the type's name)."""
    said = said or _SAID.get(kind, kind)
    return {"type": kind, "null": null, "said": said + (" or null" if null else ""), **more}


_SAID = {
    "text": "text",
    "boolean": "true or false",
    "date": "a date as YYYY-MM-DD",
    "object": "an object",
    "list": "a list",
    "map": "an object",
}


def integer(low: int = INT64[0], high: int = INT64[1], null: bool = False) -> dict[str, Any]:
    if (low, high) == INT64:
        said = "an integer within 64 bits"
    else:
        said = f"an integer from {low:,} up" if high == INT64[1] else f"an integer from {low:,} to {high:,}"
    return leaf("integer", null, said, min=low, max=high)


def number(low: float | None = None, high: float | None = None, null: bool = False) -> dict[str, Any]:
    said = "a number" + (f" from {low:g} to {high:g}" if low is not None and high is not None else "")
    return leaf("number", null, said, min=low, max=high)


def choice(*choices: str, null: bool = False) -> dict[str, Any]:
    return leaf("choice", null, "one of " + ", ".join(repr(c) for c in choices), choices=choices)


def obj(
    fields: Mapping[str, Spec],
    required: tuple[str, ...] = (),
    others: Spec | None = None,
    null: bool = False,
    keyed: tuple[tuple[str, Spec], ...] = (),
) -> dict[str, Any]:
    """An object: ``fields`` checked when present, ``required`` ones present; any other key of spec
    ``others`` (None: not checked), or of the spec of the first ``keyed`` part its name holds."""
    return leaf("object", null, fields=dict(fields), required=required, others=others, keyed=keyed)


def either(*options: Spec, null: bool = False) -> dict[str, Any]:
    """A value any one of ``options`` admits (the last one names what was expected when none does)."""
    return leaf("either", null, options=options)


def listing(items: Spec, unique: str | None = None, null: bool = False, least: int = 0) -> dict[str, Any]:
    return leaf("list", null, items=items, unique=unique, least=least)


def mapping(values: Spec, null: bool = False) -> dict[str, Any]:
    return leaf("map", null, values=values)


TEXT = leaf("text")
TEXT_OR_NULL = leaf("text", null=True)
NUMBER_OR_NULL = number(null=True)
BOOLEAN = leaf("boolean")
BOOLEAN_OR_NULL = leaf("boolean", null=True)
COUNT = integer(0)
COUNT_OR_NULL = integer(0, null=True)
DATE = leaf("date")
DATE_OR_NULL = leaf("date", null=True)
ANY = leaf("any", null=True)
GRADE = integer()
CUTOFF = integer(1, MAX_CUTOFF)


def shown(value: Any) -> str:
    """A found value as an error shows it: JSON for a scalar (cut to 40 characters), the kind of a container."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _field(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


#: Integers a fast pass admits as numbers without converting them (float() of one cannot overflow).
_EXACT = 2**63


def _all_plain(items: Any, spec: Spec) -> bool:
    """Whether every one of ``items`` surely passes a leaf ``spec`` (the fast path for long lists of
    ids, counts and grades: one C-speed pass; False sends the items one by one, which names the
    first wrong one)."""
    kind = spec["type"]
    if kind == "any":
        return True
    if kind == "text":
        return all(type(item) is str for item in items)
    if kind == "boolean":
        return all(type(item) is bool for item in items)
    if kind == "integer" and spec["min"] >= INT64[0] and spec["max"] <= INT64[1]:
        low, high = spec["min"], spec["max"]
        return all(type(item) is int and low <= item <= high for item in items)
    if kind == "number":  # the per-query figures: floats (and nulls where a query is not scored)
        low = -math.inf if spec.get("min") is None else spec["min"]
        high = math.inf if spec.get("max") is None else spec["max"]
        null = bool(spec.get("null"))
        return all(
            (type(item) is float and math.isfinite(item) and low <= item <= high)
            or (type(item) is int and -_EXACT < item < _EXACT and low <= item <= high)
            or (item is None and null)
            for item in items
        )
    return False


def problem(value: Any, spec: Spec, path: str = "") -> tuple[str, str, str] | None:
    """The first field of ``value`` that ``spec`` does not admit, as (field path, expected, found);
    None when every one is admitted."""
    stack: list[tuple[Any, Spec, str]] = [(value, spec, path)]
    while stack:
        value, spec, path = stack.pop()
        found = _one(value, spec, path, stack)
        if found is not None:
            return found
    return None


def _wrong(path: str, spec: Spec, value: Any) -> tuple[str, str, str]:
    """What an error says of a value ``spec`` does not admit (made only then: the check passes
    hundreds of thousands of values)."""
    return path, spec["said"], shown(value)


def _date(value: Any) -> bool:
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _integer(value: Any, spec: Spec) -> bool:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # 2.0: an integer, as the number grammar reads a grade
    return isinstance(value, int) and not isinstance(value, bool) and spec["min"] <= value <= spec["max"]


def _number(value: Any, spec: Spec) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        real = float(value)
    except OverflowError:  # an integer beyond a float
        return False
    low, high = spec["min"], spec["max"]
    return math.isfinite(real) and (low is None or real >= low) and (high is None or real <= high)


#: Whether a value (not None) is of a spec's type, and in its range.
_ADMITS: dict[str, Callable[[Any, Spec], bool]] = {
    "text": lambda value, spec: isinstance(value, str),
    "date": lambda value, spec: isinstance(value, str) and _date(value),
    "choice": lambda value, spec: isinstance(value, str) and value in spec["choices"],
    "boolean": lambda value, spec: isinstance(value, bool),
    "integer": _integer,
    "number": _number,
    "list": lambda value, spec: isinstance(value, list),
    "object": lambda value, spec: isinstance(value, dict),
    "map": lambda value, spec: isinstance(value, dict),
}


def _one(value: Any, spec: Spec, path: str, stack: list[tuple[Any, Spec, str]]) -> tuple[str, str, str] | None:
    """The problem with ``value`` itself, its items (a list's, a map's, an object's) pushed on ``stack``."""
    kind = spec["type"]
    if value is None:
        return None if spec["null"] or kind == "any" else (path, spec["said"], "null")
    if kind == "any":
        return None
    if kind == "either":
        found = [problem(value, option, path) for option in spec["options"]]
        if None in found:
            return None
        inside = [f for f in found if f is not None and f[0] != path]  # the option of the value's kind
        return inside[0] if inside else (path, " or ".join(o["said"] for o in spec["options"]), shown(value))
    if not _ADMITS[kind](value, spec):
        return _wrong(path, spec, value)
    if kind == "list":
        if len(value) < spec["least"]:
            return path, "a list of at least one item", "an empty list"
        unique = spec["unique"]
        if unique is not None:
            seen: dict[Any, int] = {}
            for i, item in enumerate(value):
                key = item if unique == "" else item.get(unique) if isinstance(item, dict) else None
                if isinstance(key, str):
                    if key in seen:
                        where = f"{path}[{i}]" + (f".{unique}" if unique else "")
                        again = f"{shown(key)} again (also {path}[{seen[key]}])"
                        return where, f"a {unique or 'value'} listed once", again
                    seen[key] = i
        if not _all_plain(value, spec["items"]):
            stack.extend((item, spec["items"], f"{path}[{i}]") for i, item in reversed(list(enumerate(value))))
    elif kind == "map":
        if not _all_plain(value.values(), spec["values"]):
            stack.extend((item, spec["values"], _field(path, str(key))) for key, item in reversed(list(value.items())))
    elif kind == "object":
        missing = next((key for key in spec["required"] if key not in value), None)
        if missing is not None:
            return _field(path, missing), "this key", "none"
        later = []
        for key, item in value.items():
            sub = spec["fields"].get(key)
            if sub is None:
                sub = next((spec_ for part, spec_ in spec["keyed"] if part in str(key)), spec["others"])
            if sub is not None:
                later.append((item, sub, _field(path, str(key))))
        stack.extend(reversed(later))
    return None


def check(value: Any, spec: Spec, file: str | Any, path: str = "") -> None:
    """Refuse ``value`` with one line naming ``file`` and the first field ``spec`` does not admit."""
    found = problem(value, spec, path)
    if found is not None:
        field, expected, got = found
        raise InputError(file, None, expected, got, field=field or "the document")
