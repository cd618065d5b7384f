"""Memory a step may take: an estimate checked against the memory available before allocating;
the longest id, and ids as arrays whose padding that bound keeps small.

Where the memory a flag asks for depends on the data (bootstrap resamples x metric columns, ids
padded to the longest one), the step states its estimate first and is refused, in one line giving
the estimate and the limit, when that exceeds :data:`SHARE` of the memory available
(docs/conventions.md section 18).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from .errors import Argument, ArgumentError, InputError, UsageError, shorten
from .ids import MAX_ID_BYTES as MAX_ID_BYTES  # the id rule's bound, kept in core/ids.py
from .ids import id_too_long as id_too_long

#: The share of the available memory one allocation may take: the rest is for everything else.
SHARE = 0.5
#: Estimates below this are never checked (nor is the system asked).
FLOOR = 64 << 20
_MEMINFO = "/proc/meminfo"


def available_memory() -> int | None:
    """Bytes of memory available now: Linux's MemAvailable, else the free physical pages; None
    when the system says neither (then nothing is refused)."""
    try:
        with open(_MEMINFO, "rb") as handle:
            for line in handle.read(1 << 16).splitlines():
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def memory_limit() -> int | None:
    """Bytes one allocation may take: :data:`SHARE` of :func:`available_memory`."""
    available = available_memory()
    return None if available is None else int(available * SHARE)


def size_text(size: float) -> str:
    """Bytes for people: ``1.5 GiB``, ``12.0 MiB``, ``900 bytes``."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit}"
    return f"{int(size):,} bytes"


def check_fits(estimate: float, what: str | tuple[str | Argument, ...]) -> None:
    """Refuse, before allocating, ``what`` when its ``estimate`` (bytes) exceeds :func:`memory_limit`:
    one line saying what needs how much, and the limit. ``what`` may name an argument
    (``(Argument("resamples"), " 100,000 over ...")``): then the error is an :class:`ArgumentError`."""
    if estimate < FLOOR:
        return
    limit = memory_limit()
    if limit is not None and estimate > limit:
        problem = (
            f" would need about {size_text(estimate)} of memory; the limit is {size_text(limit)} "
            f"(half the {size_text(limit / SHARE)} available)"
        )
        if isinstance(what, tuple):
            raise ArgumentError(*what, problem)
        raise UsageError(what + problem)


# --- Bounds on ids (docs/conventions.md section 18; the longest id: core/ids.py) -------------------
#: Ids are kept padded to the longest one (numpy's fixed-width strings): past this many characters
#: they are kept as UTF-8 bytes (``'S'``), a byte a character instead of 'U''s four.
WIDE_ID = 64


def id_array(values: Sequence[str], source: str) -> np.ndarray:
    """Ids as a fixed-width array: ``'U'`` as before when every id is short; past :data:`WIDE_ID`
    characters, UTF-8 bytes (``'S'``), after checking that ``len(values)`` ids padded to the
    longest fit in memory (:func:`check_fits`). An id longer than
    :data:`MAX_ID_BYTES` is refused (readers name its line before this)."""
    longest = max(map(len, values), default=0)
    if longest <= WIDE_ID:
        return np.array(values, dtype=str) if len(values) else np.zeros(0, dtype="U1")
    encoded = [v.encode("utf-8", "surrogatepass") for v in values]
    widest = max(map(len, encoded))
    if widest > MAX_ID_BYTES:
        at = next(i for i, e in enumerate(encoded) if len(e) == widest)
        raise InputError(
            source, None, f"ids of at most {MAX_ID_BYTES:,} bytes", f"an id of {widest:,} bytes ({shorten(values[at])})"
        )
    check_fits(len(values) * widest, f"{source}: {len(values):,} ids padded to the longest ({widest:,} bytes)")
    return np.array(encoded, dtype=f"S{widest}")
