"""A report.json of an earlier build, read back for drift (``--previous``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ....core.errors import InputError
from ....core.model import SCHEMA, SCHEMA_V2, SCHEMA_V3
from ....reading.schema import check
from ....reading.storedjson import read_document
from .migrate import SCHEMAS, read_back
from .schema import COMPACT, PACKED, PACKED4, PREVIOUS


def read_report(path: str | Path) -> dict[str, Any]:
    """A ``report.json`` written by ragreport: JSON, an object, of either schema (the compact
    ``ragreport/2`` read back into the shape of ``ragreport/1``); a one-line error otherwise."""
    document = read_document(path, SCHEMAS, "a report.json written by ragreport build", "a report.json")[0]
    return read_back(document, path, {SCHEMA: PACKED4, SCHEMA_V3: PACKED, SCHEMA_V2: COMPACT})


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
# The fields drift reads, checked once here against their declaration (reportjson/schema.py): a
# report.json edited by hand (or forged) is one line naming the file and the field, never a
# traceback in the middle of the drift.


def check_drift_fields(path: str | Path, document: dict[str, Any], field: str = "") -> None:
    """Refuse a report whose fields drift reads are not as ragreport writes them, naming the field."""
    check(document, PREVIOUS, path, field)
