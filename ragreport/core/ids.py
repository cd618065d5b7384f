"""Ids as numpy string arrays: hashing them to integers, ordering them, turning them back into text.

Readers of text give ids as ``'U'`` arrays; the bytes-level TREC reader gives them as ``'S'``
arrays of UTF-8 bytes, four times smaller. Both order the same way: byte order of UTF-8 is code
point order, which is the ``strcmp`` order trec_eval breaks ties with.

Id work runs over blocks on two threads (:func:`thread_map`): numpy lets go of the GIL inside its
array loops (comparisons, gathers, sorts), so threads over independent blocks of a run keep both
cores busy without copying data to other processes.

Hashing is how ids are interned without sorting millions of strings: equal ids always get equal
hashes, so a hash lookup never misses a match; every match it finds is then checked against the
ids themselves, so a collision can never make two different ids equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

import numpy as np

T = TypeVar("T")
R = TypeVar("R")

#: Threads used by the reader, the ordering and the join.
THREADS = 2


def thread_map(function: Callable[[T], R], items: Iterable[T], threads: int = THREADS) -> list[R]:
    """``[function(item) for item in items]``, on ``threads`` threads when there is more than one item."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor  # on first use: small inputs never pay for it

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(function, items))


_OFFSET = np.uint64(0xCBF29CE484222325)
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(31)


def common_kind(*arrays: np.ndarray) -> list[np.ndarray]:
    """The arrays as one kind of string array: ``'S'`` (UTF-8) when any is ``'S'``, else ``'U'``.

    Converting the smaller side is cheap: it is the judgments or a small run.
    """
    if any(a.dtype.kind == "S" for a in arrays):
        return [a if a.dtype.kind == "S" else as_bytes(a) for a in arrays]
    return [np.asarray(a, dtype=str) for a in arrays]


def as_bytes(ids: np.ndarray) -> np.ndarray:
    """``ids`` as an ``'S'`` array of UTF-8 bytes (unchanged when it already is one)."""
    if ids.dtype.kind == "S":
        return ids
    if len(ids) == 0:
        return np.zeros(0, dtype="S1")
    try:
        return np.asarray(ids, dtype=str).astype("S")  # ASCII, done in C
    except UnicodeEncodeError:
        return np.array([i.encode("utf-8") for i in ids.tolist()], dtype="S")


def padded_words(ids: np.ndarray) -> np.ndarray:
    """``ids`` as a ``(n, words)`` matrix of little-endian 64-bit words, NUL-padded (a view when
    the item size is already a multiple of 8 bytes, as the bytes reader makes it)."""
    ids = np.ascontiguousarray(ids)
    item = ids.dtype.itemsize
    target = max(item, 8)
    target += -target % 8
    if target != item:
        unit = 4 if ids.dtype.kind == "U" else 1
        ids = ids.astype(f"{ids.dtype.kind}{target // unit}")
    return ids.view("<u8").reshape(len(ids), target // 8)


#: Ids hashed at a time (per thread): the temporaries stay in cache.
_HASH_BLOCK = 1 << 18


def hash_ids(ids: np.ndarray, query: np.ndarray | None = None) -> np.ndarray:
    """A 64-bit hash of every id (of every (query, id) pair when ``query`` is given).

    Words that are all padding are skipped, so the hash does not depend on the array's width; a
    ``'U'`` and an ``'S'`` array hash differently, so use :func:`common_kind` first. Computed in
    blocks on two threads.
    """
    words = padded_words(ids)
    out = np.empty(len(ids), dtype=np.uint64)
    queries = None if query is None else np.asarray(query)

    def block(start: int) -> None:
        end = min(start + _HASH_BLOCK, len(ids))
        h = out[start:end]
        np.bitwise_xor(words[start:end, 0], _OFFSET, out=h)
        if queries is not None:
            mixed_query = queries[start:end].astype(np.uint64)
            mixed_query *= _MULTIPLIER
            h ^= mixed_query
        h *= _MULTIPLIER
        h ^= h >> _SHIFT
        for j in range(1, words.shape[1]):
            column = words[start:end, j]
            mixed = (h ^ column) * _MULTIPLIER
            mixed ^= mixed >> _SHIFT
            np.copyto(h, mixed, where=column != 0)

    thread_map(block, range(0, len(ids), _HASH_BLOCK))
    return out


def has_duplicates(keys: np.ndarray) -> bool:
    """Whether any value of ``keys`` occurs twice (a sort: numpy's hash-based unique is slower here)."""
    ranked = np.sort(keys)
    return bool((ranked[1:] == ranked[:-1]).any())


def first_appearance(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each distinct value first occurs, in order of appearance, and every value's index
    among them (a sort, not a dict: ``values[firsts]`` are the distinct values in file order)."""
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.reshape(-1)]


def as_text(ids: np.ndarray) -> list[str]:
    """Python strings for a (small) slice of ids of either kind."""
    if ids.dtype.kind == "S":
        if ids.size and not (np.ascontiguousarray(ids).view(np.uint8) >= 128).any():
            # ASCII only (the usual ids): numpy's conversion decodes them in C, twice as fast.
            return ids.astype(np.str_).tolist()
        return [b.decode("utf-8", "replace") for b in ids.tolist()]
    return [str(i) for i in ids.tolist()]


# ---------------------------------------------------------------------------------------------
# What an id may hold (docs/conventions.md section 17)

#: The longest id, in UTF-8 bytes: URLs (2,048 characters, the sitemap protocol's limit and the
#: longest most software keeps), Wikipedia titles (255 bytes, BEIR's FEVER and HotpotQA), MS
#: MARCO's and BEIR's other ids (under 64 bytes) all fit. Longer ids are refused with FILE:LINE
#: (docs/conventions.md section 18).
MAX_ID_BYTES = 2048


def id_too_long(text: str) -> int | None:
    """The id's length in UTF-8 bytes when it exceeds :data:`MAX_ID_BYTES`, else None (cheap for
    short ids: no character takes more than four bytes)."""
    if len(text) * 4 <= MAX_ID_BYTES:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > MAX_ID_BYTES else None


#: The characters no id may hold: the C0 controls (U+0000-U+001F: NUL, tab, newline, CR, ...),
#: DEL (U+007F), the C1 controls (U+0080-U+009F), and the bidi controls: the marks U+200E, U+200F
#: and U+061C, the embeddings and overrides U+202A-U+202E and the isolates U+2066-U+2069; and
#: U+FEFF, a byte-order mark (dropped at a file's start, refused anywhere else). Such a
#: character either splits a line where a format cannot carry it, vanishes in numpy's arrays (a
#: trailing NUL), or makes two different ids look alike on a page or a terminal.
FORBIDDEN_ID_CHARACTERS = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff"
#: And a lone surrogate (U+D800-U+DFFF), which only an id given in memory can hold (UTF-8 files and
#: Arrow's text cannot; a JSON escape is refused where it is read): no output could write it
#: (docs/conventions.md section 23.3).
_FORBIDDEN = re.compile(f"[{FORBIDDEN_ID_CHARACTERS}\ud800-\udfff]")


def forbidden_character(text: str) -> str | None:
    """The first character of ``text`` that no id may hold, as ``U+XXXX``; None when there is none."""
    found = _FORBIDDEN.search(text)
    return None if found is None else f"U+{ord(found.group()):04X}"


def all_allowed(ids: Iterable[str]) -> bool:
    """Whether no id of ``ids`` holds a forbidden character (one regular-expression pass over all of them)."""
    return _FORBIDDEN.search("".join(ids)) is None


def forbidden_in_utf8(buf: np.ndarray) -> bool:
    """Whether UTF-8 bytes (a ``uint8`` array: a chunk of lines) hold a forbidden character other
    than the tab, the newline and the CR that separate fields and end lines (the readers check
    each id's text for those). Array work: the bytes reader then leaves the chunk to the line
    reader, which names the line."""
    # Few passes over the chunk: the bytes below 32 (one per line: its newline) are picked out and
    # looked at alone; the largest byte says whether there is any DEL or non-ASCII byte at all.
    low = buf < 32
    if low.any():
        found = buf[low]
        if ((found != 9) & (found != 10) & (found != 13)).any():
            return True
    return forbidden_from_del(buf)


def forbidden_from_del(buf: np.ndarray, top: int | None = None) -> bool:
    """Whether UTF-8 bytes hold DEL or a forbidden character of more than one byte (a C1 control,
    a bidi control, a byte-order mark): :func:`forbidden_in_utf8` without its look at the bytes
    below 32, for a caller that has checked those already (the bytes reader knows every byte below
    33 of a strict chunk to be a space, a tab or a newline). ``top``: ``buf.max()``, when known."""
    if not len(buf):
        return False
    if (int(buf.max()) if top is None else top) < 127:
        return False
    if (buf == 127).any():
        return True
    leads = np.flatnonzero((buf == 0xC2) | (buf == 0xD8) | (buf == 0xE2) | (buf == 0xEF))
    if not len(leads):
        return False
    padded = np.concatenate([buf, np.zeros(2, dtype=np.uint8)])
    lead, second, third = padded[leads], padded[leads + 1], padded[leads + 2]
    c1 = (lead == 0xC2) & (second >= 0x80) & (second <= 0x9F)
    arabic_mark = (lead == 0xD8) & (second == 0x9C)
    marks = (
        (lead == 0xE2) & (second == 0x80) & ((third == 0x8E) | (third == 0x8F) | ((third >= 0xAA) & (third <= 0xAE)))
    )
    isolates = (lead == 0xE2) & (second == 0x81) & (third >= 0xA6) & (third <= 0xA9)
    bom = (lead == 0xEF) & (second == 0xBB) & (third == 0xBF)
    return bool((c1 | arabic_mark | marks | isolates | bom).any())
