"""The marker file of a folder ragreport wrote, and the manifest it carries (docs/conventions.md section 16).

A build's site holds ``.ragreport-site`` and a history ``.ragreport-history``. The marker is what
lets a later build or publish replace the folder, so it has to prove an earlier run: it is a
regular file (never a symbolic link) whose first line is a versioned header, followed by one line
per file that run wrote, ``SHA256  PATH`` (the layout of ``sha256sum``), sorted by path. A marker
that is empty, a link, a folder, too large, or whose lines do not parse proves nothing.

The markers of ragreport 0.x before the manifest (one fixed sentence, no file list) are still
recognised as *legacy* markers; what they allow is decided by the writers (``--out``: only a folder
holding exactly the files an old build writes; a history: adopted, see
:mod:`ragreport.output.site.writing`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

#: A marker larger than this is not one (a manifest line is about 100 bytes).
MARKER_LIMIT = 16 * 1024 * 1024
_LINE = re.compile(r"([0-9a-f]{64})  (\S(?:.*\S)?)")


@dataclass(frozen=True)
class Marker:
    """A marker read back: ``files`` maps each relative path it lists to its SHA-256 (hex); a
    legacy marker lists none (``legacy`` is True)."""

    files: Mapping[str, str]
    legacy: bool = False


class NotAMarker(Exception):  # noqa: N818 - a reason, shown inside the writers' one-line refusals
    """Why a file is not a marker: ``reason`` completes "FILE ..." (``is a symbolic link``)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """The SHA-256 of a regular file's bytes, read in blocks; ``""`` for anything else. A symbolic link
    is not followed (:class:`OSError`)."""
    hasher = hashlib.sha256()
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            return ""  # a FIFO or a device: matches no digest
        for block in iter(lambda: stream.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def safe_relative(path: str) -> bool:
    """A path a manifest may list: relative, '/'-separated, no '.', '..' or empty part, no control
    character."""
    if not path or path.startswith("/") or any(ord(c) < 32 or ord(c) == 127 for c in path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def manifest_text(header: str, files: Mapping[str, str]) -> bytes:
    """The marker's bytes: ``header``, then ``SHA256  PATH`` per file (path -> hex digest), sorted."""
    lines = [header]
    for path in sorted(files):
        if not safe_relative(path):
            raise ValueError(f"a manifest cannot list {path!r}")
        lines.append(f"{files[path]}  {path}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def read_marker(path: Path, header: str, legacy: str) -> Marker:
    """The marker at ``path``: its manifest, or :class:`NotAMarker` saying why it proves nothing.

    ``header`` is the first line the current version writes; ``legacy`` the whole text of the marker
    older versions wrote. A missing file raises :class:`FileNotFoundError`.
    """
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise NotAMarker("is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise NotAMarker("is not a regular file")
    if info.st_size == 0:
        raise NotAMarker("is empty")
    if info.st_size > MARKER_LIMIT:
        raise NotAMarker(f"is larger than a marker ({info.st_size} bytes)")
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as stream:
        data = stream.read(MARKER_LIMIT + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotAMarker("is not text ragreport wrote") from None
    if text == legacy:
        return Marker({}, legacy=True)
    lines = text.split("\n")
    if lines[0] != header or lines[-1] != "":
        raise NotAMarker("does not start with the line ragreport writes")
    files: dict[str, str] = {}
    for line in lines[1:-1]:
        match = _LINE.fullmatch(line)
        if match is None or not safe_relative(match[2]) or match[2] in files:
            raise NotAMarker(f"has a line that is not 'SHA256  PATH': {line[:60]!r}")
        files[match[2]] = match[1]
    if list(files) != sorted(files):
        raise NotAMarker("lists its files out of order")
    return Marker(files)
