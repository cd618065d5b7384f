"""A history of published reports (``ragreport publish``), in one module: its folder's layout and
its labels' rule, its index (``history.json``) read back and written, its entries, its trend lines,
its page rendered and the folder written atomically, and a history opened before any run is read.

``ragreport publish`` adds one report to a history folder::

    DIR/index.html            the history page: every report, newest first, the trends, the drift
    DIR/history.json          the same index as data (schema ``ragreport-history/1``)
    DIR/assets/plotly.min.js  one copy for every page of every report
    DIR/reports/LABEL/        one report's site (its pages load ../../assets/plotly.min.js)
    DIR/.ragreport-history    the marker: this folder is a history, publish may rewrite it

Each report is summarised once, when it is published, into an entry of ``history.json``
(:func:`history_entry`): its runs' figures at K with their bands, fingerprints, conventions, the
drift against the report before it. The history page and the trend charts are made from the
entries alone, so an earlier report is never read again, let alone modified.

Trend lines (:func:`trend_lines`) join a run's figures across consecutive reports only where
they compare: the same query set, label set, K and figure conventions. Elsewhere the line is
broken and the break is named, so that no one reads a change of test set as a change of quality.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ... import __version__
from ...core.errors import Argument, ArgumentError, InputError, UsageError
from ...core.manifest import NotAMarker, file_digest, manifest_text, read_marker
from ...core.manifest import digest as manifest_digest
from ...core.model import FIGURE_CONVENTIONS
from ...reading.schema import check
from ...reading.storedjson import read_document
from ..site.charts import trend_figure
from ..site.pages import figure
from ..site.render import HISTORY_SUMMARY, PLOTLY_ASSET, _render, assets, environment, plotly_js
from ..site.wording import comparison as say_comparison
from ..site.wording import history as say
from ..site.wording import messages as say_messages
from ..site.wording import numbers as fmt
from ..site.writing import (
    entries,
    folder_problem,
    guarded,
    is_regular,
    make_readable,
    recover_before_reading,
    stage,
    swap,
    target_path,
)
from .reportjson.read import load_previous
from .reportjson.schema import ENTRY, HISTORY

# --- The folder's layout and the labels' rule --------------------------------------------------

HISTORY_MARKER = ".ragreport-history"
#: The first line of a history's marker; the lines below it list every file publish wrote and keeps
#: (ragreport.core.manifest).
HISTORY_HEADER = (
    "ragreport-history/2: written by `ragreport publish`; publish replaces or removes only the files "
    "listed below, unchanged, and keeps every other file."
)
#: The whole marker of histories published before the manifest: it lists nothing.
HISTORY_LEGACY = "This folder is a history written by `ragreport publish`; publish rewrites its index.\n"
#: What publish says of a folder that holds files but no marker.
NOT_A_HISTORY = f"it is not a ragreport history (no {HISTORY_MARKER} file inside)"
HISTORY_FILE = "history.json"
HISTORY_SCHEMA = "ragreport-history/1"
#: Where each report of a history lives, relative to the history's folder.
REPORTS = "reports"
#: A label is a folder name and a segment of a web address on any system: no space, no slash, no
#: leading dot, nothing a URL would have to escape.
LABEL_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
LABEL_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters"


def valid_label(label: object) -> bool:
    return isinstance(label, str) and LABEL_PATTERN.fullmatch(label) is not None


def history_href(path: object, label: object) -> str | None:
    """The link a history row may carry: ``reports/LABEL/index.html`` for the row's own valid label,
    when the stored ``path`` is exactly that; anything else (``javascript:``, ``https://...``, ``..``,
    another report's folder) is no link, and the row shows its label as text."""
    if not valid_label(label):
        return None
    own = f"{REPORTS}/{label}/index.html"
    return own if path == own else None


# --- history.json read back ------------------------------------------------------------


def load_history(folder: str | Path) -> list[dict[str, Any]]:
    """The entries of the history in ``folder``, newest first; ``[]`` for a missing or empty folder.

    A folder holding anything but a ragreport history (no marker file) is refused, as ``--out`` is,
    so that publishing never writes into someone else's files; so is one whose marker proves no
    earlier publish (empty, a link, forged; docs/conventions.md section 16). Every entry must name
    a label and its report folder must exist: a history whose pages would link to nothing is
    reported, not published over.
    """
    folder = Path(folder)
    if not os.path.lexists(folder):
        return []
    if folder.is_symlink() or not folder.is_dir():
        found = say_messages.OUT_IS_LINK if folder.is_symlink() else "it is a file, not a history folder"
        raise UsageError(say_messages.refusing_to_publish(str(folder), found, advice=False))
    marker = folder / HISTORY_MARKER
    try:
        read_marker(marker, HISTORY_HEADER, HISTORY_LEGACY)
    except FileNotFoundError:
        if any(folder.iterdir()):
            raise UsageError(say_messages.refusing_to_publish(str(folder), NOT_A_HISTORY)) from None
        return []
    except NotAMarker as exc:
        reason = f"its marker {marker} {exc.reason}, so it proves no earlier ragreport publish"
        raise UsageError(say_messages.refusing_to_publish(str(folder), reason)) from None
    path = folder / HISTORY_FILE
    if not path.is_file():
        raise InputError(path, 1, f"the history's index (the folder has {HISTORY_MARKER})", "no such file")
    document, text = read_document(
        path, HISTORY_SCHEMA, "the history index ragreport publish writes", "a history index"
    )
    reports = document.get("reports")
    needed = ENTRY["required"]  # the keys every entry holds (the rest are read where they are shown)
    for index, entry in enumerate(reports if isinstance(reports, list) else []):  # a missing key: as before
        if not isinstance(entry, dict) or not all(key in entry for key in needed):
            raise InputError(path, 1, f"report {index + 1} with {', '.join(needed)}", repr(entry)[:60])
    check(document, HISTORY, path)  # every field the history page reads, as publish writes it
    assert isinstance(reports, list)
    seen: set[str] = set()
    lines, written = {}, text.splitlines()
    for entry in reports:
        label = entry["label"]
        needle = f'"label": {json.dumps(str(label), ensure_ascii=False)}'  # the line naming it (else 1)
        line = lines[str(label)] = next((n for n, text in enumerate(written, start=1) if needle in text), 1)
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


#: The relative path from a report's folder (reports/LABEL/) back to the history's.
ROOT = "../../"


# --- Labels and places ---------------------------------------------------------------------------


def check_label(label: str) -> str:
    if not valid_label(label):
        raise ArgumentError(Argument("label"), f" {label!r}: a label names a folder and a web address: {LABEL_RULE}")
    return label


def choose_label(given: str | None, date: str, entries: Sequence[Mapping[str, Any]]) -> str:
    """``given`` (which replaces the report of that label), else the report's date made unique
    (``2026-12-01``, then ``2026-12-01-2``...). A given label that differs from a published one
    only by case is refused: on macOS and Windows both would be one folder."""
    taken = {str(e["label"]).lower(): str(e["label"]) for e in entries}
    if given is not None:
        check_label(given)
        same = taken.get(given.lower())
        if same is not None and same != given:
            raise ArgumentError(Argument("label"), f" {given!r}: the history has {same!r}, which differs only by case")
        return given
    label, n = date, 2
    while label.lower() in taken:
        label, n = f"{date}-{n}", n + 1
    return check_label(label)


def previous_entry(entries: Sequence[Mapping[str, Any]], label: str | None) -> Mapping[str, Any] | None:
    """The report a new report of ``label`` is measured against: the one published before it (the
    newest, for a new label; the next older, for a label published again)."""
    labels = [e["label"] for e in entries]
    at = labels.index(label) + 1 if label in labels else 0
    return entries[at] if at < len(entries) else None


def place(entries: Sequence[dict[str, Any]], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries with ``entry`` in its place, newest first: a label published again keeps its
    place (replacing that report only); a new one comes first."""
    labels = [e["label"] for e in entries]
    if entry["label"] in labels:
        at = labels.index(entry["label"])
        return [*entries[:at], entry, *entries[at + 1 :]]
    return [entry, *entries]


def keep_newest(entries: Sequence[dict[str, Any]], keep: int | None) -> tuple[list[dict[str, Any]], list[str]]:
    """The newest ``keep`` entries (all without ``keep``), and the labels of those dropped."""
    if keep is None:
        return list(entries), []
    if keep < 1:
        raise ArgumentError(Argument("keep", keep), ": keep at least 1 report")
    return list(entries[:keep]), [str(e["label"]) for e in entries[keep:]]


# --- The entry of one report ---------------------------------------------------------------------


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _figures(figures: Mapping[str, Any], *more: str) -> dict[str, dict[str, Any]]:
    """Each figure's mean with its band (and the keys ``more``, an external score's ``scale``, so
    that a trend never joins means given on different scales)."""
    return {label: {key: m.get(key) for key in ("mean", "low", "high", *more)} for label, m in figures.items()}


def history_entry(
    document: Mapping[str, Any], label: str, report_digest: str, previous_digest: str | None
) -> dict[str, Any]:
    """What the history keeps of one report document: enough for its row, its points on the trend
    lines and its drift sentence, without ever reading the report again.

    ``report_digest`` is the sha256 of the report's report.json; ``previous_digest`` that of the
    report its drift was measured against (so the page can say when that report was replaced).
    """
    settings = document.get("settings", {})
    primary = document.get("primary")
    drift = document.get("drift")
    kept_drift = None
    if isinstance(drift, dict):
        kept_drift = {
            "previous": drift.get("previous"),
            "previous_digest": previous_digest,
            "comparable": drift.get("comparable"),
            "reasons": drift.get("reasons", []),
            "notes": drift.get("notes", []),
            "unchanged": drift.get("unchanged", []),
            "rows": [r for r in drift.get("rows", []) if r.get("metric") == primary],
        }
    gates = document.get("gates") or []
    return {
        "label": label,
        "path": f"{REPORTS}/{label}/index.html",
        "date": document.get("date"),
        "published": settings.get("today"),
        "title": settings.get("title"),
        "digest": report_digest,
        "primary": primary,
        "confidence": settings.get("conventions", {}).get("confidence"),
        "fingerprints": document.get("fingerprints"),
        "runs": [
            {
                "name": run["name"],
                "k": run["k"],
                "fingerprints": run.get("fingerprints"),
                "conventions": {key: run.get("conventions", {}).get(key) for key in FIGURE_CONVENTIONS},
                # the run's figures at its K (the suite's and the named measures')
                "metrics": _figures(
                    {
                        **{label: m for label, m in run.get("metrics", {}).items() if label.endswith(f"@{run['k']}")},
                        **(run.get("measures") or {}),
                    }
                ),
                # the scores computed outside ragreport (--scores), kept apart: their own trends
                **({"scores": _figures(run["scores"], "scale")} if run.get("scores") else {}),
            }
            for run in document.get("runs", [])
        ],
        "headline": [
            {
                "run": h.get("run"),
                "verdict": h.get("verdict"),
                "baseline": h.get("baseline"),
                "sentence": h["sentence"],
                # what could overturn it, but a slice, which the sentence says itself
                "caveats": [
                    str(c["sentence"])
                    for c in h.get("caveats") or []
                    if isinstance(c, dict) and c.get("kind") != "slice" and isinstance(c.get("sentence"), str)
                ],
            }
            for h in document.get("headline", [])
        ],
        "drift": kept_drift,
        "gates": {"failed": sum(1 for g in gates if not g.get("passed")), "total": len(gates)} if gates else None,
    }


# --- Trends ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Break:
    """Between the reports at ``position - 1`` and ``position`` (oldest first), the ``kinds`` of
    change (:data:`~ragreport.output.site.wording.history.TREND_BREAK_KINDS`) that break ``runs``' lines."""

    position: int
    kinds: tuple[str, ...]
    runs: tuple[str, ...]
    every: bool


@dataclass(frozen=True)
class TrendLine:
    """One run's figures of one metric across the reports, oldest first (None where the report has
    no such figure), cut into ``segments`` of positions that compare."""

    run: str
    means: tuple[float | None, ...]
    lows: tuple[float | None, ...]
    highs: tuple[float | None, ...]
    segments: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Trend:
    metric: str
    labels: tuple[str, ...]  # the reports, oldest first
    lines: tuple[TrendLine, ...]
    breaks: tuple[Break, ...]


def _changes(then: Mapping[str, Any], now: Mapping[str, Any]) -> tuple[str, ...]:
    """What differs between a run's two reports so that its figures do not compare."""
    prints = (then.get("fingerprints") or {}, now.get("fingerprints") or {})
    read = [
        ("query set", prints, "queries"),
        ("label set", prints, "labels"),
        ("K", (then, now), "k"),
        ("conventions", (then, now), "conventions"),
    ]
    return tuple(kind for kind, (before, after), key in read if before.get(key) != after.get(key))


def trend_lines(entries: Sequence[Mapping[str, Any]], key: str = "metrics") -> list[Trend]:
    """A :class:`Trend` per metric, over ``entries`` (newest first, as the history keeps them);
    ``key="scores"``: per external score (``--scores``) instead, where a change of the score's
    scale breaks the line too."""
    reports = list(reversed(entries))
    labels = tuple(str(e["label"]) for e in reports)
    runs_at = [{r["name"]: r for r in e["runs"]} for e in reports]
    trends = []
    # every metric any report holds: the newest report's primary first, then as the reports list them
    primary = [entries[0]["primary"]] if key == "metrics" and entries and entries[0].get("primary") else []
    held = [m for e in entries for run in e["runs"] for m in run.get(key) or {}]
    for metric in dict.fromkeys([*primary, *held]):
        names = list(dict.fromkeys(n for at in runs_at for n, r in at.items() if metric in (r.get(key) or {})))
        lines = []
        breaking: dict[int, dict[tuple[str, ...], list[str]]] = {}
        for name in names:
            points = [(at.get(name, {}).get(key) or {}).get(metric) for at in runs_at]
            segments: list[list[int]] = []
            for i, point in enumerate(points):
                if point is None or point.get("mean") is None:
                    continue
                adjacent = bool(segments) and segments[-1][-1] == i - 1
                kinds = _changes(runs_at[i - 1][name], runs_at[i][name]) if adjacent else ()
                # a score given on another scale since (0-1, then 1-5): its means do not compare
                if adjacent and (points[i - 1] or {}).get("scale") != point.get("scale"):
                    kinds = (*kinds, "scale")
                if adjacent and not kinds:  # the point before compares: the line goes on
                    segments[-1].append(i)
                    continue
                if kinds:
                    breaking.setdefault(i, {}).setdefault(kinds, []).append(name)
                segments.append([i])
            means, lows, highs = (
                tuple(None if p is None else p.get(x) for p in points) for x in ("mean", "low", "high")
            )
            lines.append(TrendLine(name, means, lows, highs, tuple(tuple(s) for s in segments)))
        breaks = []
        for position in sorted(breaking):
            both = [n for n in names if n in runs_at[position - 1] and n in runs_at[position]]
            for kinds, broken in breaking[position].items():
                breaks.append(Break(position, kinds, tuple(broken), every=len(broken) == len(both) > 1))
        trends.append(Trend(metric, labels, tuple(lines), tuple(breaks)))
    return trends


# --- The page --------------------------------------------------------------------------------------


def _drift_lines(entry: Mapping[str, Any], by_label: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    drift = entry.get("drift")
    if drift is None:
        return {"since": None, "href": None, "lines": [{"text": fmt.Text((say.HISTORY_FIRST,)), "css": "unclear"}]}
    previous = str(drift.get("previous"))
    shown = by_label.get(previous)
    since = say.history_since(
        previous,
        kept=shown is not None,
        replaced=shown is not None and shown.get("digest") != drift.get("previous_digest"),
    )
    lines = []
    if drift.get("reasons"):
        lines.append({"text": say.history_no_drift(drift["reasons"]), "css": "unclear"})
    unchanged = set(drift.get("unchanged", []))
    for row in drift.get("rows", []):
        if row["run"] in unchanged:
            lines.append({"text": say.history_unchanged(row["run"], row["metric"], row.get("now")), "css": "unclear"})
            continue
        figures = (row.get(key) for key in ("then", "now", "delta", "low", "high", "verdict", "p_adjusted"))
        text, css = say.history_drift(row["run"], row["metric"], *figures)
        lines.append({"text": text, "css": css})
    lines += [{"text": fmt.Text((str(note),)), "css": "unclear"} for note in drift.get("notes", [])]
    return {"since": since, "href": f"#report-{previous}" if shown is not None else None, "lines": lines}


def _row(entry: Mapping[str, Any], older: Mapping[str, Any] | None, by_label: Mapping[str, Any]) -> dict[str, Any]:
    primary = entry.get("primary")
    figures = [(run["name"], run.get("metrics", {}).get(primary) or {}) for run in entry["runs"]]
    runs = [
        {"name": n, "mean": fmt.decimal(f.get("mean")), "band": fmt.band(f.get("low"), f.get("high"))}
        for n, f in figures
    ]
    before = (older or {}).get("fingerprints") or {}
    now = entry.get("fingerprints") or {}
    prints = None
    if now.get("queries") and now.get("labels"):
        queries, labels = say.history_fingerprints(str(now["queries"]), str(now["labels"]))
        prints = {"queries": queries, "labels": labels, "queries_full": now["queries"], "labels_full": now["labels"]}
    return {
        "label": entry["label"],
        "anchor": f"report-{entry['label']}",
        "href": history_href(entry.get("path"), entry["label"]),  # only its own report, else none
        "date": entry.get("date"),
        "published": entry.get("published"),
        "title": entry.get("title"),
        "primary": primary,
        "runs": runs,
        "prints": prints,
        "queries_changed": older is not None and before.get("queries") != now.get("queries"),
        "labels_changed": older is not None and before.get("labels") != now.get("labels"),
        "drift": _drift_lines(entry, by_label),
        "gates": entry.get("gates"),
    }


def _trend_context(trend: Trend, confidence: float) -> dict[str, Any]:
    labels = trend.labels
    return {
        "metric": trend.metric,
        "trend": trend,  # the site draws it (trend.trend_figure)
        "caption": say.trend_caption(trend.metric, confidence),
        "figure_label": say.trend_title(trend.metric),
        "breaks": [
            say.trend_break(labels[b.position - 1], labels[b.position], b.kinds, b.runs, b.every) for b in trend.breaks
        ],
    }


def history_title(entries: Sequence[Mapping[str, Any]]) -> str:
    """The newest report's title (``--title``) with "history", or a plain "Evaluation history"."""
    title = entries[0].get("title") if entries else None
    return say.history_title(str(title)) if title else say.HISTORY_TITLE


def history_context(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the history page shows: the newest report's drift and verdict, the primary trend,
    every report newest first, then every metric's trend."""
    newest = entries[0]
    confidence = float(newest.get("confidence") or 0.95)
    by_label = {str(e["label"]): e for e in entries}
    trends = [_trend_context(t, confidence) for t in trend_lines(entries)]
    for other in trends[1:]:
        other["caption"] = None  # the first chart's caption holds for all
        if [str(b) for b in other["breaks"]] == [str(b) for b in trends[0]["breaks"]]:
            other["breaks"] = []
    rows = [_row(e, entries[i + 1] if i + 1 < len(entries) else None, by_label) for i, e in enumerate(entries)]
    return {
        "title": history_title(entries),
        "generator": f"ragreport {__version__}",
        "date": newest.get("date"),
        "lede": say.history_lede(
            len(entries), str(newest["label"]), str(newest.get("date")), str(newest.get("published"))
        ),
        "newest": rows[0],
        "verdict": [
            {
                "text": fmt.Text((str(h["sentence"]),)),
                "css": "unclear" if not h.get("verdict") else say_comparison.VERDICTS[h["verdict"]][1],
                "caveats": [fmt.Text((str(c),)) for c in h.get("caveats") or []],
            }
            for h in newest.get("headline", [])
            if h.get("baseline")
        ],
        "rows": rows,
        "primary_trend": trends[0] if trends else None,
        "other_trends": trends[1:],
        "score_trends": [_trend_context(t, confidence) for t in trend_lines(entries, "scores")],
        "scores_caption": say.score_trend_caption(confidence),
        "headers": say.HISTORY_HEADERS,
        "changed": say.HISTORY_CHANGED,
    }


# --- A history opened for publish, before any run is read -----------------------------------


@dataclass(frozen=True)
class History:
    """A history folder opened for :func:`ragreport.api.publish`, checked before any run is read.

    Attributes
    ----------
    folder : pathlib.Path
        The history's folder.
    entries : tuple of dict
        Its entries (``history.json``), newest first.
    label : str or None
        The label asked for (None: the report's date, made unique).
    previous : dict or None
        The report.json of the report a new one is measured against.
    previous_label, previous_digest : str or None
        That report's label and the digest of its report.json.
    index : bytes or None
        ``history.json``'s bytes as read (``b""``: none), so that a publish that ran meanwhile
        is noticed.

    See Also
    --------
    open_history : makes it.

    Examples
    --------
    A new history has no entries, and so nothing to measure drift against:

    >>> import pathlib, tempfile
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "new")
    >>> history.entries, history.previous, history.previous_basis
    ((), None, None)
    """

    folder: Path
    entries: tuple[dict[str, Any], ...]
    label: str | None
    previous: dict[str, Any] | None
    previous_label: str | None
    previous_digest: str | None
    index: bytes | None = None

    def __repr__(self) -> str:
        """One line: ``History(folder='eval', reports=3, label='v4', previous='v3')``."""
        return (
            f"History(folder={str(self.folder)!r}, reports={len(self.entries)}, label={self.label!r}, "
            f"previous={self.previous_label!r})"
        )

    @property
    def previous_basis(self) -> tuple[dict, str] | None:
        """What :func:`analyse` takes to measure the drift since the previous report."""
        return None if self.previous is None or self.previous_label is None else (self.previous, self.previous_label)


def open_history(folder: str | Path, label: str | None = None) -> History:
    """The history in ``folder``, checked before any run is read; a new one when missing or empty.

    The drift of the report to publish is measured against the report published before it: the
    newest one, or for a ``label`` published again the one older than that label.

    Parameters
    ----------
    folder : path
        The history's folder (``ragreport publish DIR``).
    label : str, optional
        The new report's label (its folder and address under ``reports/``); default its date,
        made unique. A label published already replaces that report.

    Returns
    -------
    History
        The folder, its entries and the report the new one is measured against
        (:attr:`History.previous_basis`).

    Raises
    ------
    ragreport.core.errors.UsageError
        A folder that is not a history, or a broken ``history.json``.
    ragreport.core.errors.ArgumentError
        A ``label`` that cannot name a folder and a web address.

    See Also
    --------
    ragreport.api.publish : adds a report to it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "history")
    >>> history.entries, history.previous_basis
    ((), None)
    >>> open_history(history.folder, label="no/slash")
    Traceback (most recent call last):
    ...
    ragreport.core.errors.ArgumentError: label 'no/slash': a label names a folder and a web address: ...
    """
    folder = target_path(folder, "publish DIR")
    problem = folder_problem(folder)
    if problem is not None:
        raise UsageError(say_messages.refusing_to_publish(str(folder), problem, advice=False))
    recover_before_reading(folder)  # a history a killed publish left aside is put back first
    entries = tuple(load_history(folder))
    if label is not None:
        check_label(label)
    before = previous_entry(entries, label)
    previous = previous_label = previous_digest = None
    if before is not None:
        previous_label = str(before["label"])
        path = folder / REPORTS / previous_label / "report.json"
        previous = load_previous(path)
        previous_digest = digest(path.read_bytes())
    index_path = folder / HISTORY_FILE
    index = index_path.read_bytes() if index_path.is_file() else b""
    return History(folder, entries, label, previous, previous_label, previous_digest, index)


# --- A history of reports (ragreport publish) ------------------------------------------------------


def render_history(entries: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
    """The history's own files: its page, its index as data and the shared plotly.js (the marker is
    made by :func:`write_history`)."""
    context = history_context(entries)
    for trend in [context["primary_trend"], *context["other_trends"], *context["score_trends"]]:
        if trend is not None:
            trend["figure"] = figure(trend_figure(trend.pop("trend"), say.trend_title(trend["metric"])))
    page = {
        "home": "index.html",
        "nav": [{"href": "index.html", "text": say.HISTORY_NAV, "current": True}],
        "downloads": [{"href": HISTORY_FILE, "text": say.HISTORY_DATA_LINK}],
    }
    title = history_title(entries)
    index = {
        "schema": HISTORY_SCHEMA,
        "generator": f"ragreport {__version__}",
        "title": title,
        "reports": list(entries),
    }
    scripts: list[dict[str, Any]] = [
        {"src": PLOTLY_ASSET, "inline": None, "block": None},
        {"src": None, "inline": Markup(assets().js), "block": None},
    ]
    return {
        "index.html": _render(environment(), "history.html", site=context, page=page, scripts=scripts, external=True),
        HISTORY_FILE: (json.dumps(index, ensure_ascii=False, allow_nan=False, indent=1) + "\n").encode("utf-8"),
        PLOTLY_ASSET: plotly_js().encode("utf-8"),
    }


def _link_or_copy(source: str, target: str) -> None:
    """A hard link (instant, no space; a published file is never written again) or, where the file
    system has none, a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


#: The files of a legacy history (no manifest) that publish adopts as its own: its page, index and
#: plotly.js, and in each report folder the files a report of a history holds.
LEGACY_HISTORY_FILE = re.compile(
    rf"index\.html|{re.escape(HISTORY_FILE)}|{re.escape(PLOTLY_ASSET)}"
    rf"|{REPORTS}/[^/]+/(?:index\.html|queries\.html|report\.json|{re.escape(HISTORY_SUMMARY)}|run-[a-z0-9_-]+\.html)"
)


def _history_manifest(folder: Path) -> dict[str, str]:
    """What publish wrote in ``folder`` (relative path -> digest), from its marker; a legacy history's
    files of the names publish writes are adopted. A marker that proves nothing is refused."""
    marker = folder / HISTORY_MARKER
    try:
        found = read_marker(marker, HISTORY_HEADER, HISTORY_LEGACY)
    except FileNotFoundError:
        raise UsageError(say_messages.refusing_to_publish(str(folder), NOT_A_HISTORY)) from None
    except NotAMarker as exc:
        reason = say_messages.marker_proves_nothing(str(marker), exc.reason)
        raise UsageError(say_messages.refusing_to_publish(str(folder), reason)) from None
    if not found.legacy:
        return dict(found.files)
    adopted = {}
    for relative, entry in entries(folder):
        label = relative.split("/")[1] if relative.startswith(f"{REPORTS}/") and relative.count("/") >= 2 else None
        if LEGACY_HISTORY_FILE.fullmatch(relative) and is_regular(entry) and (label is None or valid_label(label)):
            adopted[relative] = file_digest(folder / relative)
    return adopted


def _history_problem(folder: Path, manifest: Mapping[str, str], touched: Sequence[str]) -> str | None:
    """The first of the paths publish would replace or remove that it did not write (or that was
    changed since), or None."""
    for relative in touched:
        path = folder / relative
        if relative not in manifest or path.is_symlink() or not path.is_file():
            return say_messages.not_written_by(
                str(path) + ("/" if path.is_dir() and not path.is_symlink() else ""), "publish"
            )
        if file_digest(path) != manifest[relative]:
            return say_messages.changed_since(str(path), "publish")
    return None


def _linked_folder(folder: Path, files: Sequence[str], gone: Sequence[str]) -> str | None:
    """The first folder on the way to a file publish writes (``assets/``, ``reports/``,
    ``reports/LABEL/``), or a report folder it replaces or prunes, that is a symbolic link, worded
    (None: none is). Writing through it would write outside the history; replacing it would drop
    a link publish did not make."""
    folders = {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)} | set(gone)
    for relative in sorted(folders):
        if (folder / relative).is_symlink():
            return say_messages.link_inside(str(folder / relative))
    return None


def write_history(
    folder: str | Path, files: Mapping[str, bytes], replaced: Sequence[str] = (), index: bytes | None = None
) -> Path:
    """Write the history atomically: a new folder beside ``folder`` holding what ``folder`` holds
    (hard links: the earlier reports are neither modified nor copied) minus the report folders
    ``replaced`` (labels published again, or pruned) and the files rewritten, plus ``files`` and the
    marker listing every file publish wrote; then it takes ``folder``'s place (docs/conventions.md
    section 16). A failure at any point leaves ``folder`` as it was.

    Publish replaces or removes only files its marker lists, unchanged; everything else in the
    folder (a CNAME, .nojekyll, pages of one's own) is kept. ``index``: the bytes of ``history.json``
    the entries were read from (``b""``: there was none); when another publish changed it meanwhile,
    this one is refused.
    """
    folder = target_path(folder, "publish DIR")
    problem = folder_problem(folder)
    if problem is not None:
        raise UsageError(say_messages.refusing_to_publish(str(folder), problem, advice=False))
    with guarded(folder) as existed:
        kept: dict[str, str] = {}
        gone = {f"{REPORTS}/{label}" for label in replaced}
        current = folder / HISTORY_FILE
        if index is not None and (current.read_bytes() if current.is_file() else b"") != index:
            raise UsageError(say_messages.history_changed(str(current)))
        if existed and next(entries(folder), None) is not None:

            def dropped(relative: str) -> bool:  # rewritten, or in a report folder replaced or pruned
                return relative in files or any(relative.startswith(g + "/") for g in gone)

            manifest = _history_manifest(folder)
            touched = [relative for relative, _ in entries(folder) if relative != HISTORY_MARKER and dropped(relative)]
            problem = _linked_folder(folder, list(files), sorted(gone)) or _history_problem(folder, manifest, touched)
            if problem is not None:
                raise UsageError(say_messages.refusing_to_publish(str(folder), problem))
            kept = {p: h for p, h in manifest.items() if not dropped(p) and os.path.lexists(folder / p)}
        written = {p: d for p, d in files.items() if p != HISTORY_MARKER}
        marker = manifest_text(HISTORY_HEADER, {**kept, **{p: manifest_digest(d) for p, d in written.items()}})
        everything = {**written, HISTORY_MARKER: marker}
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.publishing-", dir=folder.parent))
        try:
            target = staging / "history"
            if existed:
                gone_paths = {Path(g) for g in gone}

                def ignore(directory: str, names: list[str]) -> set[str]:
                    here = Path(directory).relative_to(folder)
                    return {n for n in names if here / n in gone_paths or (here / n).as_posix() in everything}

                shutil.copytree(folder, target, ignore=ignore, copy_function=_link_or_copy, symlinks=True)
            else:
                target.mkdir()
            stage(everything, target)
            make_readable(target)
            swap(target, folder, staging / "retired")
        finally:
            if os.path.lexists(folder):  # else the previous history is in staging: the next run puts it back
                shutil.rmtree(staging, ignore_errors=True)
    return folder
