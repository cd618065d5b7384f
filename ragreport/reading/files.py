"""A file's bytes and text, and the lines of it that hold data, for every reader.

Any file may be gzip-compressed, whatever its name: gzip's magic bytes decide. Text is UTF-8, a
byte-order mark dropped. Every problem is an :class:`~ragreport.core.errors.InputError` naming
the file (and the line, for text that is not UTF-8).
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import InputError, os_text

#: Bytes of a file's head that format detection looks at.
HEAD = 1 << 16

#: The blanks that separate fields and make a line blank: ASCII ones only, as trec_eval's
#: C reader and the bytes-level reader see them (a no-break space belongs to an id).
BLANKS = " \t\r\n\f\v"
_FIELD = re.compile(r"[^ \t\r\n\f\v]+")
_SEPARATORS = re.compile("[\x1c-\x1f]")


#: What each kind of file that is not a regular file is called in an error.
_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def special_kind(path: str | Path) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a folder (a device, a
    FIFO, a socket: files that can be endless, or block a reader or a writer), else None.
    Symbolic links are followed."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None  # missing or unreadable: opening it says so
    return next((name for test, name in _KINDS if test(mode)), None)


def refuse_special(path: Path) -> None:
    """Refuse, before opening it, a file that is a device, a FIFO or a socket (docs/conventions.md
    section 18): ``/dev/zero`` never ends, a FIFO blocks until someone writes to it."""
    kind = special_kind(path)
    if kind is not None:
        raise InputError(path, None, "a regular file", kind)


@contextmanager
def read_errors(path: Path) -> Iterator[None]:
    """Opening or reading ``path`` failing as one error naming the file."""
    try:
        yield
    except FileNotFoundError:
        raise InputError(path, None, "a readable file", "no such file") from None
    except IsADirectoryError:  # --qrels, --meta, --previous: a file; a run's folder is told apart before
        raise InputError(path, None, "a file", "a folder") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(path, None, "a complete gzip file", str(exc)) from None
    except OSError as exc:
        raise InputError(path, None, "a readable file", exc.strerror or str(exc)) from None


def raw_bytes(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes (the first ``limit`` when given), gunzipped when it starts with gzip's magic."""
    refuse_special(path)
    with read_errors(path), path.open("rb") as handle:
        magic = handle.read(2)
        handle.seek(0)
        if magic == b"\x1f\x8b":
            with gzip.open(handle) as unzipped:
                return unzipped.read() if limit is None else unzipped.read(limit)
        if path.name.endswith(".gz"):
            raise InputError(path, None, "gzip data (the name ends in .gz)", "a file without gzip's header")
        return handle.read() if limit is None else handle.read(limit)


#: The most bytes a small file (metadata, config: a few hundred bytes) may hold, unpacked.
SMALL_FILE = 1 << 20


def read_text(path: str | Path, limit: int | None = None) -> str:
    """The file's text, gunzipped when it starts with gzip's magic bytes, decoded as UTF-8; a file
    of more than ``limit`` bytes (unpacked) is refused."""
    path = Path(path)
    raw = raw_bytes(path, None if limit is None else limit + 1)
    if limit is not None and len(raw) > limit:
        raise InputError(path, None, f"a file of at most {limit:,} bytes", "a larger one")
    return decode_text(path, raw)


_LONE_CR = re.compile("\r(?!\n)")


def decode_text(path: Path, raw: bytes, lines_before: int = 0, at_start: bool = True) -> str:
    """``raw`` (bytes of ``path`` after ``lines_before`` lines; its start when ``at_start``) as
    text: UTF-8, a byte-order mark at the file's start dropped, lines ending at ``\\n`` or
    ``\\r\\n``. A CR-only line ending (old Mac) is an error, in every format (docs/conventions.md
    section 17): read as blanks it would merge lines, and drop all but the first of a run's."""
    try:
        text = raw.decode("utf-8-sig" if at_start else "utf-8")
    except UnicodeDecodeError as exc:
        line = lines_before + raw[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "UTF-8 text", f"byte 0x{raw[exc.start]:02x}") from None
    lone = _LONE_CR.search(text) if "\r" in text else None
    if lone is not None:
        line = lines_before + text.count("\n", 0, lone.start()) + 1
        raise InputError(
            path, line, "lines ending in LF or CRLF", "a CR alone (old Mac line endings: convert them to LF)"
        )
    return text


def text_of(path: Path, text: str | None) -> str:
    """``text`` when the caller already read the file (detection may have), else the file's text."""
    return text if text is not None else read_text(path)


def head_text(head: bytes) -> str:
    """The first :data:`HEAD` bytes of a file as text: a character cut in two, or a stray byte, is
    dropped (reading the whole file later names the line of a byte that is not UTF-8)."""
    return head[:HEAD].decode("utf-8-sig", "ignore")


def _split_plain(line: str) -> list[str]:
    return line.split() if line.isascii() else _FIELD.findall(line)


def split_fields(line: str) -> list[str]:
    """The blank-separated fields of a line (``str.split()`` would also split on Unicode spaces and
    on the ASCII separators U+001C-U+001F, which then vanish instead of being refused in an id)."""
    return _FIELD.findall(line) if _SEPARATORS.search(line) else _split_plain(line)


def field_splitter(text: str) -> Callable[[str], list[str]]:
    """:func:`split_fields` for the lines of ``text``, the separators looked for once in the whole text."""
    return split_fields if _SEPARATORS.search(text) else _split_plain


#: The hint an error gives when qrels have as many fields as a run has (--qrels and --audit alike).
RUN_AS_QRELS = " (this looks like a run: give it as a run, not as judgments)"


def field_count(fields: list[str], hint_at: int, hint: str) -> str:
    """How many ``fields`` a line has, as an error's ``got``; with ``hint`` when they are ``hint_at``."""
    return f"{len(fields)} field{'s' if len(fields) != 1 else ''}{hint if len(fields) == hint_at else ''}"


def data_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) for every line that is neither blank nor a ``#`` comment. Lines
    end at ``\\n`` (``\\r\\n`` too) only: a JSON string may hold U+2028, a line end to ``splitlines``."""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip(BLANKS)
        if stripped and not stripped.startswith("#"):
            yield number, line.rstrip("\r")


def first_data_line(text: str) -> tuple[int, str] | None:
    """The first of :func:`data_lines`, looked for in the head of ``text`` first (a long file is
    not split into lines to find it); None when there is none."""
    return next(data_lines(text[:HEAD]), None) or next(data_lines(text), None)


def first_line_of(path: Path, text: str | None) -> tuple[int, str] | None:
    """The file's first data line: from ``text`` when already read, else from its head."""
    return first_data_line(text if text is not None else head_text(raw_bytes(path, HEAD)))


def bare_name(path: Path) -> str:
    """The file's name without a ``.gz`` ending: the name that tells its format."""
    return path.name.removesuffix(".gz")


def stem(path: Path) -> str:
    """The name a run gets from its file when its metadata names none: the name without its
    extension (``.gz`` aside); a dot file keeps its whole name."""
    bare = os_text(bare_name(path))  # a file name that is not UTF-8 names its run with \xff escapes
    return bare.rsplit(".", 1)[0] if "." in bare.lstrip(".") else bare
