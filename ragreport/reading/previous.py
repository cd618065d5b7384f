"""A report.json of an earlier build, read back for drift (``--previous``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.model import SCHEMA
from .files import read_text


def read_report(path: str | Path) -> dict[str, Any]:
    """A ``report.json`` written by ragreport: JSON, an object, this schema; a one-line error otherwise."""
    path = Path(path)
    text = read_text(path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, "a report.json written by ragreport build", exc.msg) from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputError(path, 1, f"a report.json with schema {SCHEMA!r}", repr(found))
    return document


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
