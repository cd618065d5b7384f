"""Memory a step may take: an estimate checked against the memory available before allocating.

Where the memory a flag asks for depends on the data (bootstrap resamples x metric columns, ids
padded to the longest one), the step states its estimate first and is refused, in one line giving
the estimate and the limit, when that exceeds :data:`SHARE` of the memory available
(docs/conventions.md section 17).
"""

from __future__ import annotations

import os

from .errors import UsageError

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


def check_fits(estimate: float, what: str) -> None:
    """Refuse, before allocating, ``what`` when its ``estimate`` (bytes) exceeds :func:`memory_limit`:
    one line saying what needs how much, and the limit."""
    if estimate < FLOOR:
        return
    limit = memory_limit()
    if limit is not None and estimate > limit:
        raise UsageError(
            f"{what} would need about {size_text(estimate)} of memory; the limit is {size_text(limit)} "
            f"(half the {size_text(limit / SHARE)} available)"
        )
