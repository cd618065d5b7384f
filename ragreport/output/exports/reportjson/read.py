"""A stored report.json read back: checked for ``render`` (:func:`load_report`), each run turned back
into the typed :class:`~ragreport.core.model.Run` and :class:`~ragreport.core.model.Judgments` the
pipeline starts from (:func:`stored_run`: its stored top lists, scored again to the same figures by
the engines' head rule, :mod:`ragreport.scoring.partition`), and checked for drift, ``--previous``
(:func:`load_previous`).
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np

from ....core.errors import InputError
from ....core.model import (
    META_KEYS,
    SCHEMA,
    SCHEMA_V2,
    SCHEMA_V3,
    Conventions,
    Judgments,
    LabelSource,
    RetrieverKind,
    Run,
    RunMeta,
)
from ....reading.gate import check_rows, passed
from ....reading.schema import check
from ....reading.storedjson import read_document
from .migrate import SCHEMAS, listed_ids, read_back
from .schema import COMPACT, PACKED, PACKED4, PREVIOUS, RENDER, RENDER_RUN

REBUILD = "rebuild it with ragreport build to render it"


@dataclass(frozen=True)
class StoredRun:
    """One run of a stored report: its lists (cut to ``depth``), its judgments, and what the rows
    of report.json say of each whole list and of each query."""

    run: Run
    judgments: Judgments
    conventions: Conventions
    cutoffs: tuple[int, ...]
    sweep: tuple[int, ...]
    retrieved: np.ndarray
    repeats: np.ndarray
    relevant_retrieved: np.ndarray
    first_relevant: np.ndarray
    in_run: np.ndarray
    rows: list[dict[str, Any]]
    #: The K sweep as stored (``runs[].sweep``): each key's mean, low and high at each cutoff of
    #: ``sweep`` (null read as NaN), read as it is by render (docs/conventions.md section 22.17).
    sweep_figures: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    #: ``run`` with each list followed by the judged ids condensing it reads (``lists.next_judged``,
    #: schema ``ragreport/4``); None for a report of an older schema, whose condensed figures are stored.
    condensable: Run | None = None


def load_report(path: str | Path) -> dict[str, Any]:
    """A report.json, checked for everything ``render`` reads; a one-line error otherwise."""
    path = Path(path)
    document = read_report(path)
    for key in RENDER["required"]:  # what a report needs to be rendered again, at the top level and per run
        if key not in document:
            raise InputError(path, 1, f"top-level '{key}' (written before ragreport render; {REBUILD})", "none")
    runs = document["runs"]
    if not isinstance(runs, list) or not runs or not all(isinstance(r, dict) for r in runs):
        raise InputError(path, 1, "a non-empty 'runs' list of objects", repr(type(runs).__name__))
    for run in runs:
        for key in RENDER_RUN["required"]:
            if key not in run:
                name = run.get("name", "?")
                raise InputError(
                    path, 1, f"'{key}' in run {name!r} (written before ragreport render; {REBUILD})", "none"
                )
    check(document, RENDER, path)  # every field render reads, as ragreport writes it
    return document


def meta_from(stored: dict[str, Any]) -> RunMeta:
    """Run metadata from its report.json form (:meth:`RunMeta.as_dict`)."""
    known = {key: stored[key] for key in META_KEYS if key in stored}
    if "date" in known:
        known["date"] = _dt.date.fromisoformat(known["date"])
    for key, choices in (("label_source", LabelSource), ("retriever_kind", RetrieverKind)):
        known[key] = None if known.get(key) is None else choices(known[key])
    extra = tuple((key, value) for key, value in stored.items() if key not in META_KEYS)
    return RunMeta(**known, extra=extra)


def conventions_from(stored: dict[str, Any]) -> Conventions:
    """Conventions from their report.json form (:meth:`Conventions.as_dict`), each field made of
    its type; ``no_relevant`` and ``relevance_level``, absent before they existed, at their defaults."""
    kinds = get_type_hints(Conventions)
    return Conventions(
        **{name: kind(stored[name]) for name, kind in kinds.items() if name in stored or name not in _ADDED}
    )


#: The conventions a report written before they existed lacks.
_ADDED = ("no_relevant", "relevance_level")


def stored_run(document: dict[str, Any], run: dict[str, Any], source: str) -> StoredRun:
    """One run of ``document`` as a run cut to its stored depth, with the judgments it was scored on."""
    try:
        return _stored_run(document, run, str(source))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # any shape but ours
        raise InputError(
            source, 1, f"run {run.get('name')!r} as ragreport writes it ({REBUILD})", f"{type(exc).__name__}: {exc}"
        ) from None


#: The deepest cutoff a stored report may ask for (a forged one could ask for any): as a measure name's.
_MAX_STORED_CUTOFF = 1_000_000


def _stored_run(document: dict[str, Any], run: dict[str, Any], where: str) -> StoredRun:
    for key in ("name", "source"):
        if not isinstance(run[key], str):
            raise TypeError(f"'{key}' is {type(run[key]).__name__}, not text")
    if not run["cutoffs"] or not run["sweep"]["k"]:
        raise ValueError("no cutoff")
    for cutoff in [*run["cutoffs"], *run["sweep"]["k"]]:
        if isinstance(cutoff, bool) or not isinstance(cutoff, int) or not 1 <= cutoff <= _MAX_STORED_CUTOFF:
            raise ValueError(f"cutoff {cutoff!r} is not a whole number from 1 to {_MAX_STORED_CUTOFF:,}")
    if not set(run["cutoffs"]) <= set(run["sweep"]["k"]):
        raise ValueError(f"cutoffs {run['cutoffs']} are not all in its sweep {run['sweep']['k']}")
    rows = run["queries"]
    lists = run["lists"]
    ids = listed_ids(document, lists)
    if len(ids) != len(rows) or len(lists["relevant_retrieved"]) != len(rows):
        raise ValueError(f"'lists' holds {len(ids)} lists for {len(rows)} queries")
    stated = lists["in_run"]
    in_run = np.arange(len(rows)) < stated if isinstance(stated, int) else np.asarray(stated, dtype=bool)
    listed = [i for i in range(len(rows)) if in_run[i]]
    judgments_of = run["judgments"] if "judgments" in run else document["judgments"]
    # The judged queries in the rows' order: the join puts the judged queries a run lacks after
    # its own in judgment order, so this order gives back the rows' order.
    position = {str(row["id"]): i for i, row in enumerate(rows)}
    judged = sorted(judgments_of, key=lambda q: position.get(q, len(position)))
    condensable = None
    if "next_judged" in lists:  # ragreport/4: the judged ids condensing reads past each stored top
        after = lists["next_judged"]
        if len(after) != len(rows):
            raise ValueError(f"'lists.next_judged' holds {len(after)} lists for {len(rows)} queries")
        if any(after[i] for i in range(len(rows)) if not in_run[i]):
            raise ValueError("'lists.next_judged' holds ids for a query the run does not list")
        longer = [(str(rows[i]["id"]), [*ids[i], *after[i]]) for i in listed]
        condensable = Run.from_lists(run["name"], longer, source=run["source"])
    return StoredRun(
        run=Run.from_lists(
            run["name"],
            [(str(rows[i]["id"]), ids[i]) for i in listed],
            query_text=tuple(rows[i].get("query") for i in listed),
            meta=meta_from(run["meta"]),
            source=run["source"],
        ),
        judgments=judgments_from(judgments_of, "report.json", judged, where),
        conventions=conventions_from(run["conventions"]),
        cutoffs=tuple(int(c) for c in run["cutoffs"]),
        sweep=tuple(int(c) for c in run["sweep"]["k"]),
        retrieved=np.array([int(row["retrieved"]) for row in rows], dtype=np.int64),
        repeats=np.array([int(row["repeats"]) for row in rows], dtype=np.int64),
        relevant_retrieved=np.array([int(v) for v in lists["relevant_retrieved"]], dtype=np.int64),
        first_relevant=np.array([int(row["first_relevant_rank"] or 0) for row in rows], dtype=np.int64),
        in_run=in_run,
        rows=rows,
        sweep_figures=_sweep_figures(run["sweep"]),
        condensable=condensable,
    )


def judgments_from(
    labels: dict[str, dict[str, Any]], source: str, queries: list[str] | None = None, where: str | None = None
) -> Judgments:
    """Stored ``{query: {id: grade}}`` as judgments, the queries in the order of ``queries`` (default
    theirs), through the id gate every judgment file passes (a hand-edited U+202E or empty id is
    refused in one line naming ``where``, the report, default ``source``)."""
    per_query = [(str(q), list(labels[q]), [int(g) for g in labels[q].values()]) for q in queries or labels]
    docs = [d for _, ds, _ in per_query for d in ds]
    check_rows(
        where or source,
        [q for q, _, _ in per_query],
        None,
        docs,
        None,
        [i for i, (_, ds, _) in enumerate(per_query) for _ in ds],
    )
    return passed(Judgments.from_lists(per_query, source=source))


def _sweep_figures(sweep: dict[str, Any]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each metric of a stored sweep as three arrays (mean, low, high) over its cutoffs, null as
    NaN; a figure that is not a number, or a list of another length, names its field."""
    n = len(sweep["k"])
    out = {}
    for key, figures in sweep.items():
        if key == "k":
            continue
        if not isinstance(figures, dict):
            raise TypeError(f"'sweep.{key}' is not an object of mean, low and high")
        arrays = []
        for part in ("mean", "low", "high"):
            values = figures.get(part)
            if not isinstance(values, list) or len(values) != n:
                raise ValueError(f"'sweep.{key}.{part}' is not one figure for each of the sweep's {n} cutoffs")
            if not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values):
                raise TypeError(f"'sweep.{key}.{part}' holds something other than numbers and null")
            arrays.append(np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64))
        out[key] = (arrays[0], arrays[1], arrays[2])
    return out


def read_report(path: str | Path) -> dict[str, Any]:
    """A ``report.json`` written by ragreport: JSON, an object, of any schema (a compact one read
    back into the shape of ``ragreport/1``); a one-line error otherwise."""
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
    # the fields drift reads, checked once here: a hand-edited or forged report is one line naming
    # the file and the field, never a traceback in the middle of the drift
    check(document, PREVIOUS, path)
    return document
