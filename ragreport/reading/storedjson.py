"""A JSON document ragreport wrote and reads back (report.json, history.json): strict JSON, finite
numbers only, no lone surrogate, of the expected schema; a one-line error naming the file otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import InputError
from .files import read_text
from .jsontext import decode


def read_document(path: str | Path, schema: str | tuple[str, ...], what: str, kind: str) -> tuple[dict[str, Any], str]:
    """A JSON document ragreport wrote: an object of this ``schema`` (or of one of these), with its
    text (for line numbers); a one-line error naming the file and line otherwise (``what`` is
    expected of text that is not JSON, ``kind`` names the document whose schema differs)."""
    path = Path(path)
    text = read_text(path)
    # ragreport never writes NaN or an infinity: one is a forged or damaged report.
    finite = f"{what}: finite numbers only"
    document = decode(path, text, None, what, finite=finite, strict_keys=False, long_digits=False)
    schemas = (schema,) if isinstance(schema, str) else schema
    if not isinstance(document, dict) or document.get("schema") not in schemas:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        named = " or ".join(repr(s) for s in schemas)
        raise InputError(path, 1, f"{kind} with schema {named}", repr(found))
    return document, text
