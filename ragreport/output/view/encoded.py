"""Large lists of the pages' data written as JSON text column by column, not as Python objects.

A per-query table of 100,000 rows as lists of lists is millions of Python objects, built once and
walked again by :func:`json.dumps`. Here a column's cells are formatted in one pass each
(:func:`cells`), rows and lists are joined from them (:func:`rows`, :func:`grouped`), and the result
is an :class:`Encoded` text that :func:`dumps` writes where the value would stand. The bytes are
those :func:`json.dumps` gives of the same value (``ensure_ascii=False``, compact separators, no
NaN): each cell is written as it writes that Python value (``repr`` of a float, the same string
escapes), so a page is the same, byte for byte (``tests/test_encoded.py`` checks the two forms
against each other, ``tests/test_golden.py`` the pages).
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import struct
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import repeat
from json.encoder import encode_basestring
from typing import Any

import numpy as np

from ...core.apart import Apart


class Encoded:
    """A value already written as compact JSON (``text``); :func:`dumps` writes it as it is."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def value(self) -> Any:
        """The value the text holds (for tests and the rare reader of the view)."""
        return json.loads(self.text)

    def __repr__(self) -> str:
        return f"Encoded({len(self.text):,} characters)"


class EncodedParts(Encoded):
    """A list already written as compact JSON in parts, each a run of its items: its ``text`` is
    ``[`` + the parts joined by commas + ``]``, joined only when asked for; :func:`packed_ascii`
    streams the parts instead (docs/conventions.md section 22.25). No part is empty (no parts:
    ``[]``)."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts

    @property
    def text(self) -> str:  # type: ignore[override]
        return "[" + ",".join(self.parts) + "]"

    def pieces(self) -> Iterator[str]:
        """The text in pieces: the brackets, the parts and the commas between them."""
        yield "["
        for number, part in enumerate(self.parts):
            yield ("," + part) if number else part
        yield "]"

    def __repr__(self) -> str:
        return f"EncodedParts({len(self.parts)} parts)"


def _plain(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _float(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"Out of range float values are not JSON compliant: {value!r}")
    return float.__repr__(value)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _none(value: None) -> str:
    return "null"


_SCALARS: dict[type, Callable[[Any], str]] = {
    float: _float,
    int: int.__repr__,
    str: encode_basestring,
    bool: _bool,
    type(None): _none,
}


def scalar(value: Any) -> str:
    """One value as :func:`json.dumps` writes it (a container or another type through it)."""
    write = _SCALARS.get(type(value))
    return write(value) if write is not None else _plain(value)


def cells(values: Iterable[Any]) -> list[str]:
    """Each value written as :func:`scalar` writes it, in one pass."""
    return list(map(scalar, values))


def rounded(values: Iterable[float | None], digits: int = 6) -> list[str]:
    """Each value as ``round(value, digits)`` is written (None as ``null``)."""
    return ["null" if v is None else scalar(round(v, digits)) for v in values]


def _present(written: list[str], present: np.ndarray | None) -> list[str]:
    """``written`` (one cell per True of ``present``) with ``null`` at every False."""
    if present is None:
        return written
    out = np.full(len(present), "null", dtype=object)
    out[present] = written
    return out.tolist()


def _finite(values: np.ndarray) -> None:
    if not np.isfinite(values).all():
        raise ValueError("Out of range float values are not JSON compliant")


def integers(values: np.ndarray, present: np.ndarray | None = None, *, truncate: bool = False) -> list[str]:
    """Each value of an array of whole numbers, ``null`` where ``present`` is False; with
    ``truncate``, floats are written as ``int(value)`` (else as they are)."""
    shown = values if present is None else values[present]
    if truncate and shown.dtype.kind == "f":
        _finite(shown)
        shown = shown.astype(np.int64)
    if shown.dtype.kind not in "iu":
        return _present(cells(shown.tolist()), present)
    return _present(whole_text(shown).split(",") if len(shown) else [], present)


def decimals(values: np.ndarray, present: np.ndarray | None = None, digits: int = 6) -> list[str]:
    """Each value of an array as ``round(value, digits)`` is written, ``null`` where ``present``
    is False."""
    shown = values if present is None else values[present]
    if shown.dtype.kind != "f":
        return _present(rounded(shown.tolist(), digits), present)
    _finite(shown)
    shown = shown.astype(np.float64, copy=False)
    # Scores take few distinct values (P@10 eleven): each distinct value (by its bits, so that -0.0
    # stays apart from 0.0) is written once.
    distinct, back = np.unique(shown.view(np.int64), return_inverse=True)
    written = list(map(float.__repr__, map(round, distinct.view(np.float64).tolist(), repeat(digits))))
    return _present(np.array(written, dtype=object)[back.reshape(-1)].tolist(), present)


def texts(values: Iterable[str | None]) -> list[str]:
    """Each string written with JSON's escapes, None as ``null``."""
    listed = values if isinstance(values, list) else list(values)
    if None not in listed:
        return list(map(encode_basestring, listed))
    return ["null" if v is None else encode_basestring(v) for v in listed]


def rows(columns: Sequence[Sequence[str]]) -> Encoded:
    """A list of rows (lists) from columns of written cells, all of one length."""
    if not columns or not len(columns[0]):
        return Encoded("[]")
    return Encoded("[[" + "],[".join(map(",".join, zip(*columns))) + "]]")


def grouped(items: Sequence[str], bounds: Sequence[int] | np.ndarray) -> list[str]:
    """The lists ``items[bounds[i]:bounds[i + 1]]``, each written as a JSON list."""
    if isinstance(bounds, np.ndarray):
        bounds = bounds.tolist()
    return ["[" + ",".join(items[a:b]) + "]" for a, b in zip(bounds[:-1], bounds[1:])]


def listed(items: Sequence[str]) -> Encoded:
    """A list of values already written."""
    return Encoded("[" + ",".join(items) + "]")


#: Whole numbers written this many at a time by :func:`whole_list`.
_WHOLE_CHUNK = 1 << 16


def whole_text(values: np.ndarray) -> str:
    """An array of whole numbers (any integer dtype) written as ``",".join(map(repr, values.tolist()))``
    writes them, made as bytes by array operations: each number's row of a byte matrix holds its
    sign, its digits right-aligned (one pass per decimal place over every number) and a comma, and
    the bytes each row shows (its sign if negative, its digits from its first one, its comma but
    the last) are read off in order. A digit shows where what is left of the number before it is
    taken is above zero (and the last digit always). The same text as Python's ``repr`` of each
    number."""
    if not len(values):
        return ""
    negative = values < 0 if values.dtype.kind == "i" else np.zeros(len(values), dtype=bool)
    if negative.any():
        signed = values.astype(np.int64)
        magnitude = signed.astype(np.uint64)  # a negative number's own bits, mended below
        # -v as ~v + 1: no overflow at -2^63
        magnitude[negative] = (~signed[negative]).astype(np.uint64) + np.uint64(1)
    else:
        magnitude = values
    top = int(magnitude.max())
    places = len(str(top))
    # The narrowest type that holds every magnitude: numpy's int32 loops are the fastest.
    kind = np.int32 if top < 2**31 else np.int64 if top < 2**63 else np.uint64
    left = magnitude.astype(kind)
    ten = kind(10)
    matrix = np.empty((len(left), places + 2), dtype=np.uint8)
    shown = np.empty((len(left), places + 2), dtype=bool)
    matrix[:, 0], shown[:, 0] = ord("-"), negative
    matrix[:, -1], shown[:, -1] = ord(","), True
    shown[-1, -1] = False
    for place in range(places):
        column = places - place
        if place:
            np.greater(left, 0, out=shown[:, column])
        else:
            shown[:, column] = True
        shifted = left // ten
        matrix[:, column] = left - shifted * ten + 48
        left = shifted
    return matrix[shown].tobytes().decode("ascii")


def whole_list(values: np.ndarray) -> Encoded:
    """An array of whole numbers as the JSON list :func:`json.dumps` writes of ``values.tolist()``
    (:func:`whole_text`), written a chunk at a time: a million numbers held as one text of a few
    MB, not as a million Python integers until the page is rendered (docs/conventions.md section
    22.25)."""
    if values.dtype.kind not in "iu":
        raise TypeError(f"whole numbers expected, not {values.dtype}")
    pieces = [whole_text(values[i : i + _WHOLE_CHUNK]) for i in range(0, len(values), _WHOLE_CHUNK)]
    return Encoded("[" + ",".join(pieces) + "]")


def _key(key: Any) -> str:
    """A mapping's key as :func:`dumps` writes it beside encoded values, with its colon."""
    if not isinstance(key, str):
        raise TypeError(f"keys must be str beside encoded values, not {type(key).__name__}")
    return encode_basestring(key) + ":"


def dumps(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``, with every
    :class:`Encoded` inside ``value`` (in dicts, lists and tuples) written as its text."""
    if isinstance(value, Encoded):
        return value.text
    if isinstance(value, Mapping):
        if not _holds_encoded(value):
            return _plain(value)
        parts = []
        for key, item in value.items():
            parts.append(_key(key) + dumps(item))
        return "{" + ",".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        if not _holds_encoded(value):
            return _plain(value)
        return "[" + ",".join(map(dumps, value)) + "]"
    return _plain(value)


#: Values that hold nothing inside them (by their exact type: a subclass is looked into).
_FLAT = frozenset({str, int, float, bool, type(None)})


def _holds_encoded(value: Any) -> bool:
    if isinstance(value, Encoded):
        return True
    if isinstance(value, Mapping):
        items: Iterable[Any] = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return False
    # The items' types first, in one pass of C (a column of 100,000 numbers or strings holds no
    # encoded value); only the others are looked into.
    if set(map(type, items)) <= _FLAT:
        return False
    return any(_holds_encoded(v) for v in items if type(v) not in _FLAT)


#: The query view's data block is gzipped at level 5 (docs/conventions.md section 22.11): at
#: 100,000 queries (29 MB of JSON) it packs in 0.38 s of CPU to 5.97 MB, where level 9 takes 1.04
#: s for 5.63 MB; the browser inflates either as fast. The documents' text (prose, which level 9
#: packs a fifth smaller than level 5) stays at :data:`PACK_LEVEL`.
QUERY_VIEW_LEVEL = 5

#: Every other packed block's gzip level.
PACK_LEVEL = 9


def packed(value: Any, level: int = PACK_LEVEL) -> str:
    """:func:`dumps` of ``value`` gzipped (at ``level``, mtime 0: the same bytes every build) in
    base64, for a data block the page's script inflates with the browser's DecompressionStream:
    about a fifth of the plain size."""
    return packed_ascii(value, level).decode("ascii")


def _pieces(value: Any) -> Iterator[str]:
    """:func:`dumps` of ``value`` in pieces: a mapping holding an :class:`EncodedParts` value
    (the query view's) is written key by key and that value part by part, so that its whole text
    is never made."""
    if not (isinstance(value, Mapping) and any(isinstance(v, EncodedParts) for v in value.values())):
        yield dumps(value)
        return
    yield "{"
    for at, (key, item) in enumerate(value.items()):
        yield ("," if at else "") + _key(key)
        if isinstance(item, EncodedParts):
            yield from item.pieces()
        else:
            yield dumps(item)
    yield "}"


def packed_ascii(value: Any, level: int = PACK_LEVEL) -> bytes:
    """:func:`packed`'s text as ASCII bytes (its one maker), compressed piece by piece as :func:`dumps` writes it
    (:func:`_pieces`): the JSON text (29 MB for the query view of 100,000 queries) is never held
    whole, nor its UTF-8 bytes. The bytes are :func:`packed`'s: gzip's header for ``level`` and
    mtime 0 (what ``gzip.compress`` writes before its deflate stream, on any Python), the raw
    deflate stream of the same bytes at the same level (zlib's output does not depend on how its
    input is split), then the CRC-32 and length of the bytes."""
    header = gzip.compress(b"", compresslevel=level, mtime=0)[:10]
    deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    out = [header]
    crc, size = 0, 0
    for piece in _pieces(value):
        data = piece.encode("utf-8")
        crc = zlib.crc32(data, crc)
        size += len(data)
        out.append(deflate.compress(data))
    out.append(deflate.flush())
    out.append(struct.pack("<LL", crc, size & 0xFFFFFFFF))
    return base64.b64encode(b"".join(out))


class PackedBlock(dict):
    """A data block the page holds packed (:func:`packed`): :meth:`packed` gives its text."""

    def packed(self) -> str:
        raise NotImplementedError


class PackedApart(PackedBlock):
    """A data block made and packed in a forked child process (:class:`~ragreport.core.apart.Apart`:
    by the parent itself where there is no fork or the child fails) while the parent builds the
    rest: ``make()`` gives the block, ``shown`` (a few of its keys) is what the pages read of it
    before its text (docs/conventions.md section 22.25). :meth:`packed` is :func:`packed` of the
    block at ``level``."""

    def __init__(
        self, make: Callable[[], Mapping[str, Any]], shown: Mapping[str, Any], level: int, queries: int
    ) -> None:
        super().__init__(shown)
        self._apart = Apart(lambda: packed_ascii(make(), level), queries)

    def packed(self) -> str:
        return self._apart.result().decode("ascii")


class PackedAhead(PackedBlock):
    """A data block (a dict, not to be changed once made) whose :func:`packed` text is made on a
    thread of its own from the moment the block is: zlib lets go of the GIL while it compresses, so
    the rest of the view and the other pages are built meanwhile (docs/conventions.md section
    22.11). :meth:`packed` waits for the text; it is the text :func:`packed` gives of the same
    dict at the same ``level``, byte for byte."""

    def __init__(self, value: Mapping[str, Any], level: int = PACK_LEVEL) -> None:
        super().__init__(value)
        self._level = level
        self._text: str | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._pack, name="ragreport-pack", daemon=True)
        self._thread.start()

    def _pack(self) -> None:
        try:
            self._text = packed_ascii(self, self._level).decode("ascii")
        except BaseException as exc:  # raised again in the thread that asks for the text
            self._error = exc

    def packed(self) -> str:
        """The packed text (waiting for the thread to finish it)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._text is not None
        return self._text
