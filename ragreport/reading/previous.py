"""A report.json of an earlier build, read back for drift (``--previous``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.model import SCHEMA
from .files import read_text


def read_document(path: str | Path, schema: str, what: str, kind: str) -> tuple[dict[str, Any], str]:
    """A JSON document ragreport wrote: an object of this ``schema``, with its text (for line
    numbers); a one-line error naming the file and line otherwise (``what`` is expected of text that
    is not JSON, ``kind`` names the document whose schema differs)."""
    path = Path(path)
    text = read_text(path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, what, exc.msg) from None
    if not isinstance(document, dict) or document.get("schema") != schema:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputError(path, 1, f"{kind} with schema {schema!r}", repr(found))
    return document, text


def read_report(path: str | Path) -> dict[str, Any]:
    """A ``report.json`` written by ragreport: JSON, an object, this schema; a one-line error otherwise."""
    return read_document(path, SCHEMA, "a report.json written by ragreport build", "a report.json")[0]


def load_previous(path: str | Path) -> dict[str, Any]:
    """A ``report.json`` of an earlier build, checked for the keys drift needs."""
    path = Path(path)
    document = read_report(path)
    fingerprints = document.get("fingerprints")
    if not isinstance(fingerprints, dict) or not {"queries", "labels"} <= set(fingerprints):
        raise InputError(
            path,
            1,
            "top-level 'fingerprints' with 'queries' and 'labels' (a report from ragreport 0.1 or later)",
            "none",
        )
    if not isinstance(document.get("runs"), list):
        raise InputError(path, 1, "a 'runs' list", "none")
    return document
