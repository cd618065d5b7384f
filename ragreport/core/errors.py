"""Errors a user can act on: which file, which line, what was expected, what was found."""

from __future__ import annotations

from pathlib import Path

from .escape import visible


class RagreportError(Exception):
    """Base class: every error ragreport raises on purpose. The CLI prints it as one line."""


class InputError(RagreportError):
    """A file that cannot be read as what it was given as.

    The message names the file, the 1-based line (``None`` when the problem is the file as a
    whole), what was expected there and what was found.
    """

    def __init__(self, path: str | Path, line: int | None, expected: str, got: str | None = None):
        self.path = visible(str(path))  # a file name may hold a newline: the error stays one line
        self.line = line
        self.expected = expected
        self.got = got
        where = self.path if line is None else f"{self.path}:{line}"
        message = f"{where}: expected {expected}"
        if got is not None:
            message += f", got {got}"
        super().__init__(message)


class UsageError(RagreportError):
    """Arguments that do not fit together (two runs with one name, K above Kmax, ...)."""


def one_line(error: BaseException | str) -> str:
    """An error's message as the one line the CLI prints: a newline, a control or bidi character
    (from a file name, a run name, a value) shown as an escape (``\\x0a``)."""
    return visible(str(error))


def shorten(text: str, limit: int = 60, quote: bool = True) -> str:
    """A found value (its ``repr`` when ``quote``), cut to ``limit`` characters and to one line."""
    shown = repr(text) if quote else text.replace("\n", " ")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."
