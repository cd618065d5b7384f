"""report.json's bytes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def report_json(document: Mapping[str, Any], compact: bool = False) -> bytes:
    """report.json's bytes: one line of JSON, UTF-8, no NaN; ``compact``: no space after a comma
    or a colon (report.json itself, docs/conventions.md section 22.4; the shared documents' text
    keeps the default spacing)."""
    separators = (",", ":") if compact else (", ", ": ")
    return (json.dumps(document, ensure_ascii=False, allow_nan=False, separators=separators) + "\n").encode("utf-8")
