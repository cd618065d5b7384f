"""report.json's bytes, written as the document is made (docs/conventions.md section 22.13):
:class:`Columns`, a run's per-query figures made one column at a time, and :func:`report_json`,
which encodes a document part by part. A module of its own, importing nothing of the package, so
that the site's writer and the document's builder both read it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class Columns:
    """Columns made one at a time when report.json is written (:func:`report_json`
    encodes each and lets it go before the next is made), so the document's per-query figures are
    never all held as Python objects at once; :meth:`dict` makes them all (what the other readers of
    the document take)."""

    def __init__(self, make: Callable[[], Iterator[tuple[str, list[Any]]]]):
        self._make = make

    def items(self) -> Iterator[tuple[str, list[Any]]]:
        return self._make()

    def dict(self) -> dict[str, list[Any]]:
        return dict(self._make())


def report_json(document: Mapping[str, Any], compact: bool = False) -> bytes:
    """report.json's bytes: one line of JSON, UTF-8, no NaN; ``compact``: no space after a comma
    or a colon (report.json itself, docs/conventions.md section 22.4; the shared documents' text
    keeps the default spacing).

    Written as it is made: the top level key by key, each run entry by entry and each run's
    :class:`Columns` column by column, each part encoded to bytes and
    let go before the next is made (docs/conventions.md section 22.13). The bytes are those of one
    ``json.dumps`` of the whole document (a dict's JSON is its items' JSON joined)."""
    separators = (",", ":") if compact else (", ", ": ")
    item, key = separators
    parts: list[bytes] = []

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=separators)

    def streamed(value: Any) -> bool:
        return isinstance(value, Columns) or (
            isinstance(value, (dict, list)) and any(isinstance(v, (Columns, dict)) for v in _members(value))
        )

    def write(value: Any, depth: int) -> None:
        if depth > 3 or not streamed(value):
            parts.append(dumps(value).encode("utf-8"))
            return
        if isinstance(value, list):
            parts.append(b"[")
            for i, member in enumerate(value):
                if i:
                    parts.append(item.encode())
                write(member, depth + 1)
            parts.append(b"]")
            return
        parts.append(b"{")
        for i, (name, member) in enumerate(value.items()):
            parts.append(((item if i else "") + dumps(str(name)) + key).encode("utf-8"))
            write(member, depth + 1)
            del member  # a column's objects go once written
        parts.append(b"}")

    write(document, 0)
    parts.append(b"\n")
    return b"".join(parts)


def _members(value: Any) -> Any:
    """A dict's values or a list's items (looked at only as deep as report.json's runs reach)."""
    return value.values() if isinstance(value, dict) else value
