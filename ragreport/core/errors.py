"""Errors a user can act on: which file, which line, what was expected, what was found."""

from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

# --- Characters shown as escapes (core/escape.py says why; here so that errors import nothing) ----

#: Bidirectional controls: marks, embeddings, overrides and isolates (Unicode's Bidi_Control).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: C0 and C1 controls and DEL, the line and paragraph separators, and the bidi controls.
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")
_UNSAFE_KEEP_NEWLINES = re.compile(f"[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control, separator and bidi character shown as an escape (``\\x1b``,
    ``\\u202e``); with ``keep_newlines``, ``\\n`` stays a line break (a whole output's final pass)."""
    text = str(text)
    pattern = _UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def os_text(text: str) -> str:
    """A name the operating system gave (a file name, an argument) as text every output can hold: a
    byte that was not UTF-8 (Python keeps it as a lone surrogate) shown as ``\\xff``."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def os_text_problem(text: str) -> str | None:
    """The shown form of ``text`` when it holds a byte that was not UTF-8, else None."""
    shown = os_text(text)
    return None if shown == text else shown


class RagreportError(Exception):
    """Base class: every error ragreport raises on purpose. The CLI prints it as one line."""


class InputError(RagreportError):
    """A file that cannot be read as what it was given as.

    The message names the file, the 1-based line (``None`` when the problem is the file as a
    whole), what was expected there and what was found.
    """

    def __init__(
        self, path: str | Path, line: int | None, expected: str, got: str | None = None, field: str | None = None
    ):
        self.path = visible(str(path))  # a file name may hold a newline: the error stays one line
        self.line = line
        self.expected = expected
        self.got = got
        #: The field of a stored document (``runs[0].name``) where the line cannot say it.
        self.field = None if field is None else visible(field)
        where = self.path if line is None else f"{self.path}:{line}"
        if self.field is not None:
            where += f": {self.field}"
        message = f"{where}: expected {expected}"
        if got is not None:
            message += f", got {got}"
        super().__init__(message)


class UsageError(RagreportError):
    """Arguments that do not fit together (two runs with one name, K above Kmax, ...)."""


@dataclass(frozen=True)
class Argument:
    """An argument named in an :class:`ArgumentError`'s message, by its keyword in the library
    (``permutations``, ``slice_by``), with the value it was given when the message shows it."""

    name: str
    value: object = None


class _Spelled(Exception):
    """A message of text and :class:`Argument` parts, spelled by :meth:`spelled`: the library's
    keywords from the library, the flags from the command line."""

    def __init__(self, *parts: str | Argument):
        self.parts = parts
        super().__init__(self.spelled())

    def spelled(self, flag: Callable[[str], str] | None = None) -> str:
        """The message with each argument as ``flag`` spells it (``--permutations``, a value after a
        space), or without ``flag`` as a Python keyword (a value as ``name='value'``)."""
        out = []
        for part in self.parts:
            if not isinstance(part, Argument):
                out.append(part)
            elif flag is None:
                out.append(part.name if part.value is None else f"{part.name}={part.value!r}")
            else:
                out.append(flag(part.name) if part.value is None else f"{flag(part.name)} {part.value}")
        return "".join(out)


class ArgumentError(_Spelled, UsageError, ValueError):
    """A value an argument cannot take, or arguments that do not fit together, named as the
    caller spells them. Also a ``ValueError``, as Python code expects of a bad argument.

    The message is made of text and :class:`Argument` parts. Raised from the library it names each
    argument by its keyword (``permutations must be from 1 to 100,000, got 0``; a value as
    ``engine='dask'``); the command line shows the same message with its flags
    (``--permutations must be ...``, ``--engine dask``) through :meth:`spelled`, given its one
    mapping of keywords to flags.

    Examples
    --------
    >>> error = ArgumentError(Argument("scheduler"), " is for ", Argument("engine", "dask"))
    >>> str(error)
    "scheduler is for engine='dask'"
    >>> error.spelled(lambda name: "--" + name)
    '--scheduler is for --engine dask'
    >>> error.argument
    'scheduler'
    """

    def __reduce__(self):  # pickled with its parts (a Dask worker's error keeps its arguments)
        return (type(self), self.parts)

    @property
    def argument(self) -> str:
        """The first argument the message names."""
        return next(p.name for p in self.parts if isinstance(p, Argument))


class WriteError(RagreportError):
    """An output that could not be written (read-only folder, full disk, ...); what was there before
    is left as it was, or the message says where it is."""


class RagreportWarning(_Spelled, UserWarning):
    """Something a user must know that does not stop the work (a text file that gives the text of only
    some queries, a run whose ids meet no judged id, a file's labels set aside): one line, naming the
    file or the run. Made of text and :class:`Argument` parts, spelled as :class:`ArgumentError`'s
    message is: the library's keywords from the library, the flags on the command line.

    Examples
    --------
    >>> found = RagreportWarning("the runs' own labels are set aside (", Argument("labels", "own"), " reads them)")
    >>> str(found)
    "the runs' own labels are set aside (labels='own' reads them)"
    >>> found.spelled(lambda name: "--" + name)
    "the runs' own labels are set aside (--labels own reads them)"
    """

    def spelled(self, flag: Callable[[str], str] | None = None) -> str:
        """The line with each argument as ``flag`` spells it, as :meth:`ArgumentError.spelled`."""
        return one_line(super().spelled(flag))


#: Where :func:`warn` sends a line: None in the library (Python's warnings, a
#: :class:`RagreportWarning`), the command line's printer under :func:`warnings_to`. A context
#: variable, not a global filter: two commands in two threads each keep their own.
_PRINTER: ContextVar[Callable[[RagreportWarning], None] | None] = ContextVar("ragreport_printer", default=None)


def warn(*parts: str | Argument) -> None:
    """Warn of ``parts`` as one line: a :class:`RagreportWarning` from the library, a
    ``ragreport: warning: ...`` line on stderr from the command line (:func:`warnings_to`)."""
    found = RagreportWarning(*parts)
    printer = _PRINTER.get()
    if printer is None:
        warnings.warn(found, stacklevel=3)  # the caller of the function that warns
    else:
        printer(found)


@contextmanager
def warnings_to(printer: Callable[[RagreportWarning], None]) -> Iterator[None]:
    """Every :func:`warn` within the block goes to ``printer`` instead of Python's warnings."""
    token = _PRINTER.set(printer)
    try:
        yield
    finally:
        _PRINTER.reset(token)


def one_line(error: BaseException | str) -> str:
    """An error's message as the one line the CLI prints: a newline, a control or bidi character
    (from a file name, a run name, a value) shown as an escape (``\\x0a``)."""
    return visible(str(error))


def shorten(text: str, limit: int = 60, quote: bool = True) -> str:
    """A found value (its ``repr`` when ``quote``), cut to ``limit`` characters and to one line."""
    shown = repr(text) if quote else text.replace("\n", " ")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def whole_number(value: object, what: str | Argument, low: int | None = None, high: int | None = None) -> int:
    """``value`` when it is a whole number (an ``int`` or a numpy integer, not a bool, a float or
    text), from ``low`` to ``high`` when they are given, else a one-line :class:`ArgumentError`
    naming ``what``: the API's ``k=5.5`` or ``permutations=True`` is refused as the command line
    refuses ``-k 5.5``."""
    span = "" if low is None or high is None else f" from {low:,} to {high:,}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or type(value).__name__ == "bool_":
        got = f"{shorten(repr(value), quote=False)} ({type(value).__name__})"
        raise ArgumentError(what, f" must be a whole number{span}, got {got}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise ArgumentError(what, f" must be{span}, got {shorten(f'{number:,}', quote=False)}")
    return number
