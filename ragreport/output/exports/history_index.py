"""A published history's index (``history.json``), read back for the next ``ragreport publish``.

A history folder is what ``ragreport publish`` writes: ``reports/LABEL/`` per report, ``assets/``
shared by all, ``index.html`` (the history page), ``history.json`` (the index as data) and the
marker file ``.ragreport-history``. Only ``history.json`` is read back; the pages are made again
from it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ...core.errors import InputError, UsageError
from ...core.history import (
    ENTRY_KEYS,
    HISTORY_FILE,
    HISTORY_HEADER,
    HISTORY_LEGACY,
    HISTORY_MARKER,
    HISTORY_SCHEMA,
    LABEL_RULE,
    REPORTS,
    valid_label,
)
from ...core.manifest import NotAMarker, read_marker
from ...reading.schema import check
from ...reading.storedjson import read_document
from .reportjson.schema import HISTORY


def _line_of(text: str, label: str) -> int:
    """The line of ``history.json`` that names ``label`` (1 when it cannot be found)."""
    needle = json.dumps(label, ensure_ascii=False)
    for number, line in enumerate(text.splitlines(), start=1):
        if f'"label": {needle}' in line:
            return number
    return 1


def is_history(folder: Path) -> bool:
    """``folder`` holds a marker that proves an earlier publish (docs/conventions.md section 16); a
    marker that proves nothing (empty, a link, forged) is refused with what is wrong with it."""
    marker = folder / HISTORY_MARKER
    try:
        read_marker(marker, HISTORY_HEADER, HISTORY_LEGACY)
    except FileNotFoundError:
        return False
    except NotAMarker as exc:
        raise UsageError(
            f"refusing to publish into {folder}: its marker {marker} {exc.reason}, so it proves no earlier "
            f"ragreport publish; choose another folder or remove it"
        ) from None
    return True


def load_history(folder: str | Path) -> list[dict[str, Any]]:
    """The entries of the history in ``folder``, newest first; ``[]`` for a missing or empty folder.

    A folder holding anything but a ragreport history (no marker file) is refused, as ``--out`` is,
    so that publishing never writes into someone else's files. Every entry must name a label and
    its report folder must exist: a history whose pages would link to nothing is reported, not
    published over.
    """
    folder = Path(folder)
    if not os.path.lexists(folder):
        return []
    if folder.is_symlink():
        raise UsageError(f"refusing to publish into {folder}: it is a symbolic link; give the folder it points to")
    if not folder.is_dir():
        raise UsageError(f"refusing to publish into {folder}: it is a file, not a history folder")
    if not is_history(folder):
        if any(folder.iterdir()):
            raise UsageError(
                f"refusing to publish into {folder}: it is not a ragreport history (no {HISTORY_MARKER} "
                f"file inside); choose another folder or remove it"
            )
        return []
    path = folder / HISTORY_FILE
    if not path.is_file():
        raise InputError(path, 1, f"the history's index (the folder has {HISTORY_MARKER})", "no such file")
    document, text = read_document(
        path, HISTORY_SCHEMA, "the history index ragreport publish writes", "a history index"
    )
    reports = document.get("reports")
    for index, entry in enumerate(reports if isinstance(reports, list) else []):  # a missing key: as before
        if not isinstance(entry, dict) or not all(key in entry for key in ENTRY_KEYS):
            raise InputError(path, 1, f"report {index + 1} with {', '.join(ENTRY_KEYS)}", repr(entry)[:60])
    check(document, HISTORY, path)  # every field the history page reads, as publish writes it
    assert isinstance(reports, list)
    seen: set[str] = set()
    lines = {}
    for index, entry in enumerate(reports):
        if not isinstance(entry, dict) or not all(key in entry for key in ENTRY_KEYS):
            raise InputError(path, 1, f"report {index + 1} with {', '.join(ENTRY_KEYS)}", repr(entry)[:60])
        label = entry["label"]
        line = lines[str(label)] = _line_of(text, str(label))
        if not valid_label(label):
            raise InputError(path, line, f"a label of {LABEL_RULE}", repr(label))
        if label.lower() in seen:
            raise InputError(path, line, "a label listed once", repr(label))
        seen.add(label.lower())
    for entry in reports:  # every entry well formed: then the folders its page links to
        label = entry["label"]
        if not (folder / REPORTS / label / "index.html").is_file():
            raise InputError(
                path, lines[label], f"report {label!r} in {folder / REPORTS / label}", "no index.html there"
            )
    return reports
