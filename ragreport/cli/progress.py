"""Progress lines on stderr for a command that takes a while."""

from __future__ import annotations

import sys
import threading
import time

from ..core.errors import one_line


class Progress:
    """A progress line per stage on ``stream``, once the work has taken ``delay`` seconds.

    Short runs print nothing; past ``delay`` the stage under way is printed, and every stage
    after it as it starts. Silent when ``quiet`` or when the stream is not a terminal.
    """

    def __init__(self, stream=None, *, quiet: bool = False, delay: float = 2.0):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.started = time.monotonic()
        self.stage: str | None = None
        self.live = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(delay, self._wake) if self.enabled else None
        if self.timer is not None:
            self.timer.daemon = True
            self.timer.start()

    def _show(self) -> None:
        stage = one_line(self.stage or "")  # a stage may name a run: its controls shown as escapes
        print(f"ragreport: {stage}... ({time.monotonic() - self.started:.1f} s)", file=self.stream, flush=True)

    def _wake(self) -> None:
        with self.lock:
            self.live = True
            if self.stage is not None:
                self._show()

    def __call__(self, stage: str) -> None:
        with self.lock:
            self.stage = stage
            if self.live:
                self._show()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
