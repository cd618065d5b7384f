"""A report.json of an earlier build, read back for drift (``--previous``)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..core.errors import InputError, shorten
from ..core.model import SCHEMA
from .files import read_text
from .jsontext import TOO_DEEP, TOO_LONG, check_surrogates


def read_document(path: str | Path, schema: str, what: str, kind: str) -> tuple[dict[str, Any], str]:
    """A JSON document ragreport wrote: an object of this ``schema``, with its text (for line
    numbers); a one-line error naming the file and line otherwise (``what`` is expected of text that
    is not JSON, ``kind`` names the document whose schema differs)."""
    path = Path(path)
    text = read_text(path)
    try:
        document = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, what, exc.msg) from None
    except _Constant as exc:  # ragreport never writes NaN or an infinity: a forged or damaged report
        raise InputError(path, _line_of_word(text, exc.word), f"{what}: finite numbers only", exc.word) from None
    except RecursionError:
        raise InputError(path, None, *TOO_DEEP) from None
    except ValueError:
        raise InputError(path, None, *TOO_LONG) from None
    check_surrogates(path, text, document)
    if not isinstance(document, dict) or document.get("schema") != schema:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputError(path, 1, f"{kind} with schema {schema!r}", repr(found))
    return document, text


class _Constant(Exception):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


def _no_constant(word: str) -> Any:
    raise _Constant(word)


def _finite_float(word: str) -> float:
    value = float(word)
    if not math.isfinite(value):  # 1e400: beyond a float
        raise _Constant(word)
    return value


def _line_of_word(text: str, word: str) -> int | None:
    found = re.search(rf"[:\[,]\s*{re.escape(word)}(?![0-9A-Za-z.])", text)
    return None if found is None else text.count("\n", 0, found.end()) + 1


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
    check_drift_fields(path, document)
    return document


# ---------------------------------------------------------------------------------------------
# The fields drift reads, checked once here: a report.json edited by hand (or forged) is one line
# naming the file and the field, never a traceback in the middle of the drift.


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", str: "text", int: "an integer", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an integer beyond a float's range
        return False


def _is_grade(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _judgments_problem(value: Any, where: str) -> tuple[str, str, Any] | None:
    if not isinstance(value, dict):
        return where, "an object {query: {id: grade}}", value
    for query, graded in value.items():
        if not isinstance(graded, dict):
            return f"{where}.{query}", "an object {id: grade}", graded
        for doc, grade in graded.items():
            if not _is_grade(grade):
                return f"{where}.{query}.{doc}", "an integer grade within 64 bits", grade
    return None


def _run_problem(run: Any, where: str) -> tuple[str, str, Any] | None:
    if not isinstance(run, dict):
        return where, "an object", run
    if not isinstance(run.get("name"), str):
        return f"{where}.name", "text", run.get("name")
    prints = run.get("fingerprints", {})
    if not isinstance(prints, dict):
        return f"{where}.fingerprints", "an object", prints
    for key in ("queries", "labels"):
        if key in prints and not isinstance(prints[key], str):
            return f"{where}.fingerprints.{key}", "text", prints[key]
    if "k" in run and not _is_grade(run["k"]):
        return f"{where}.k", "an integer", run["k"]
    for key in ("conventions", "metrics"):
        if key in run and not isinstance(run[key], dict):
            return f"{where}.{key}", "an object", run[key]
    for label, figure in run.get("metrics", {}).items():
        if not isinstance(figure, dict):
            return f"{where}.metrics.{label}", "an object", figure
        if figure.get("mean") is not None and not _is_number(figure["mean"]):
            return f"{where}.metrics.{label}.mean", "a finite number or null", figure["mean"]
    if "judgments" in run:
        found = _judgments_problem(run["judgments"], f"{where}.judgments")
        if found is not None:
            return found
    queries = run.get("queries", [])
    if not isinstance(queries, list):
        return f"{where}.queries", "a list", queries
    for i, row in enumerate(queries):
        if not isinstance(row, dict):
            return f"{where}.queries[{i}]", "an object", row
        if not isinstance(row.get("id"), str):
            return f"{where}.queries[{i}].id", "text", row.get("id")
        for label, value in row.items():
            if label not in ("id", "query", "status", "scored") and value is not None and not _is_number(value):
                if "@" in label:  # a figure
                    return f"{where}.queries[{i}].{label}", "a finite number or null", value
    return None


def drift_problem(document: dict[str, Any]) -> tuple[str, str, Any] | None:
    """The first field drift reads that is not as ragreport writes it, as (field, expected, found);
    None when every one is."""
    if document.get("date") is not None and not isinstance(document["date"], str):
        return "date", "text", document["date"]
    prints = document.get("fingerprints")
    if not isinstance(prints, dict):
        return "fingerprints", "an object", prints
    for key in ("queries", "labels"):
        if not isinstance(prints.get(key), str):
            return f"fingerprints.{key}", "text", prints.get(key)
    if "judgments" in document:
        found = _judgments_problem(document["judgments"], "judgments")
        if found is not None:
            return found
    if not isinstance(document.get("runs"), list):
        return "runs", "a list", document.get("runs")
    for i, run in enumerate(document["runs"]):
        found = _run_problem(run, f"runs[{i}]")
        if found is not None:
            return found
    return None


def check_drift_fields(path: str | Path, document: dict[str, Any]) -> None:
    """Refuse a report whose fields drift reads are not as ragreport writes them, naming the field."""
    found = drift_problem(document)
    if found is not None:
        field, expected, value = found
        raise InputError(path, None, f"{shorten(field, quote=False)} as {expected}", _kind(value))
