"""Bytes made in a forked child process while the parent goes on (docs/conventions.md section 22.25).

Building the pages is pure Python, so two threads would take turns; two processes run side by
side. :class:`Apart` forks a child that makes the bytes and sends them back through a pipe, read
by a thread of the parent as they come; :meth:`Apart.result` waits for them. The child makes the
very bytes the parent would (the same code on the same data); where ``fork`` is not offered (not
Linux), for small work, or when the child fails, the parent makes them itself, so that any error
is its own, raised as usual.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable

#: Below this many queries in a report, its bytes are made in place: forking costs more than it
#: saves.
APART_QUERIES = 10_000


def can_fork() -> bool:
    """Whether :class:`Apart` forks here: Linux, with ``os.fork``."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


class Apart:
    """``make()``'s bytes, made in a forked child from now on, or by :meth:`result` itself (no
    ``fork`` here, or a report of fewer than :data:`APART_QUERIES` ``queries``)."""

    def __init__(self, make: Callable[[], bytes], queries: int) -> None:
        self._make = make
        self._pid: int | None = None
        self._chunks: list[bytes] = []
        self._reader: threading.Thread | None = None
        if queries < APART_QUERIES or not can_fork():
            return
        read, write = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12 warns of fork in a process with threads (BLAS's idle ones): the child
            # runs Python alone and leaves by os._exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child (its bytes are checked in the parent)
            os.close(read)
            code = 1
            try:
                view = memoryview(make())
                while view:
                    view = view[os.write(write, view) :]
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid = pid
        self._reader = threading.Thread(target=self._read, args=(read,), name="ragreport-apart", daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(1 << 20):
                self._chunks.append(chunk)

    def result(self) -> bytes:
        """The bytes: the child's once it has exited cleanly, else made here."""
        if self._pid is None or self._reader is None:
            return self._make()
        self._reader.join()
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if os.waitstatus_to_exitcode(status) != 0:
            return self._make()
        data = b"".join(self._chunks)
        self._chunks = []
        return data
