"""A JSON document ragreport wrote and reads back (report.json, history.json): strict JSON, finite
numbers only, no lone surrogate, of the expected schema; a one-line error naming the file otherwise."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from .files import read_text
from .jsontext import TOO_DEEP, TOO_LONG, NotFinite, check_surrogates, finite_float, refuse_constant


def read_document(path: str | Path, schema: str | tuple[str, ...], what: str, kind: str) -> tuple[dict[str, Any], str]:
    """A JSON document ragreport wrote: an object of this ``schema`` (or of one of these), with its
    text (for line numbers); a one-line error naming the file and line otherwise (``what`` is
    expected of text that is not JSON, ``kind`` names the document whose schema differs)."""
    path = Path(path)
    text = read_text(path)
    try:
        document = json.loads(text, parse_constant=refuse_constant, parse_float=finite_float)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, what, exc.msg) from None
    except NotFinite as exc:  # ragreport never writes NaN or an infinity: a forged or damaged report
        raise InputError(path, _line_of_word(text, exc.word), f"{what}: finite numbers only", exc.word) from None
    except RecursionError:
        raise InputError(path, None, *TOO_DEEP) from None
    except ValueError:
        raise InputError(path, None, *TOO_LONG) from None
    check_surrogates(path, text, document)
    schemas = (schema,) if isinstance(schema, str) else schema
    if not isinstance(document, dict) or document.get("schema") not in schemas:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        named = " or ".join(repr(s) for s in schemas)
        raise InputError(path, 1, f"{kind} with schema {named}", repr(found))
    return document, text


def _line_of_word(text: str, word: str) -> int | None:
    found = re.search(rf"[:\[,]\s*{re.escape(word)}(?![0-9A-Za-z.])", text)
    return None if found is None else text.count("\n", 0, found.end()) + 1
