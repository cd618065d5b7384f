"""How the process asks glibc to keep freed memory, and when it hands it back.

numpy makes one temporary per operation. By default glibc serves a block above 128 kB from a fresh
mapping and hands the heap's free top back to the system once 128 kB are free there, so the same
megabytes are mapped, paged in and zeroed again and again (docs/conventions.md section 22.7).
:func:`keep_freed_memory` has glibc keep them for reuse instead; ``score`` and ``build`` set it.

Kept memory is resident memory: what one stage of a build freed (the reader's buffers, the join's
keys, a score's sums) stays counted beside the arrays the next stages hold, and a block freed under
one still in use is never trimmed. ``build`` therefore also asks for :func:`hand_back` at the end
of each stage (``keep_freed_memory(hand_back=True)``): glibc's ``malloc_trim`` returns every free
page, so the next stage starts from what is live (docs/conventions.md section 22.14). The figures
do not depend on any of this; where glibc is not found (not Linux, musl) nothing is done.
"""

from __future__ import annotations

import os
import sys
from functools import cache

#: glibc's mallopt parameters (malloc.h) and the values :func:`keep_freed_memory` sets: blocks up to
#: 32 MB from the heap, up to 256 MB of its free top kept, 16 MB more asked for each time it grows,
#: and one arena for every thread (what the reader's threads free, the others reuse).
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -2, -3, -8
KEPT_MEMORY = (
    (_M_MMAP_THRESHOLD, 32 << 20),
    (_M_TRIM_THRESHOLD, 256 << 20),
    (_M_TOP_PAD, 16 << 20),
    (_M_ARENA_MAX, 1),
)

_handing_back = False
_kept = False


@cache
def _libc() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        libc.mallopt  # noqa: B018 - glibc's, not musl's or a static build's
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def keep_freed_memory(*, hand_back: bool = False, small_pages: bool = False) -> None:
    """Let glibc keep the memory numpy's temporaries free, for the next ones to reuse (the
    settings of :data:`KEPT_MEMORY`); with ``hand_back``, :func:`hand_back` then returns the free
    pages at the end of each stage; with ``small_pages``, :func:`small_pages_for_numpy`. Only
    where glibc is found; the figures do not depend on it."""
    global _handing_back, _kept
    libc = _libc()
    if libc is None:
        return
    for parameter, value in KEPT_MEMORY:
        libc.mallopt(parameter, value)  # type: ignore[attr-defined]
    _handing_back, _kept = hand_back, True
    if small_pages:
        small_pages_for_numpy()


def small_pages_for_numpy() -> bool:
    """Stop numpy advising the kernel to back its arrays of 4 MB and more with 2 MB pages
    (``madvise(MADV_HUGEPAGE)``, numpy's default on Linux 4.6 and later), unless the user chose
    with ``NUMPY_MADVISE_HUGEPAGE``; returns whether it was stopped. On the virtual machines the
    benchmarks ran on (fresh ones, as CI runners are), a 2 MB page first touched cost four times
    what its 512 small pages cost (80 MB paged in: 0.15 s against 0.04 s), and a build pages in some 3 GB
    over its stages: the wide pair's build 0.95x without the advice (docs/conventions.md section
    22.26). The pages hold the same bytes: nothing else changes."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return False
    import numpy as np

    core = getattr(np, "_core", None) or getattr(np, "core", None)  # numpy 2, numpy 1
    setter = getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)
    if setter is None:
        return False
    setter(False)
    return True


def keep_freed_memory_here() -> None:
    """:func:`keep_freed_memory` in a Dask worker scoring a partition. Dask starts its workers
    with ``MALLOC_TRIM_THRESHOLD_=65536``, so each partition's temporaries were paged in afresh
    (about 165,000 page faults and 0.3 s of system time a 32 MB partition of msmarco, 4 times the
    partition's own work). Anywhere else nothing is done: a process that set it already (``score``,
    ``build``) keeps its own settings, and a program using the library keeps glibc's."""
    if not _kept and _in_dask_worker():
        keep_freed_memory()


def _in_dask_worker() -> bool:
    """Whether this code runs in a Dask worker (``distributed`` is then loaded already)."""
    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return False
    return True


def hand_back() -> None:
    """At the end of a stage: every free page of the heap returned to the system (glibc's
    ``malloc_trim``), when :func:`keep_freed_memory` asked for it; otherwise nothing (glibc's own
    rules stand). The arrays still held are untouched; the next stage's temporaries are paged in
    afresh, once."""
    if not _handing_back:
        return
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)  # type: ignore[attr-defined]
