"""A history of published reports: its labels, its index entries, its trend lines and its page's context.

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

:mod:`ragreport.output.site.render` draws the page from :func:`history_context` and writes the folder.

Trend lines (:func:`trend_lines`) join a run's figures across consecutive reports only where
they compare: the same query set, label set, K and figure conventions. Elsewhere the line is
broken and the break is named, so that no one reads a change of test set as a change of quality.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import __version__
from ...core.errors import Argument, ArgumentError
from ...core.history import HISTORY_SCHEMA, LABEL_RULE, REPORTS, valid_label
from ...core.model import FIGURE_CONVENTIONS
from ..site.media import history_href
from ..site.wording import comparison as say_comparison
from ..site.wording import history as say
from ..site.wording import numbers as fmt

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


def previous_entry(entries: Sequence[Mapping[str, Any]], label: str) -> Mapping[str, Any] | None:
    """The report a new report of ``label`` is measured against: the one published before it (the
    newest, for a new label; the next older, for a label published again)."""
    labels = [e["label"] for e in entries]
    if label in labels:
        at = labels.index(label) + 1
        return entries[at] if at < len(entries) else None
    return entries[0] if entries else None


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


def _figures(run: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The run's figures at its K (the suite's and the named measures'), each mean with its band."""
    k = run["k"]
    picked = {label: m for label, m in run.get("metrics", {}).items() if label.endswith(f"@{k}")}
    picked.update(run.get("measures") or {})
    return {label: {"mean": m.get("mean"), "low": m.get("low"), "high": m.get("high")} for label, m in picked.items()}


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
                "metrics": _figures(run),
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
    before, after = then.get("fingerprints") or {}, now.get("fingerprints") or {}
    found = []
    if before.get("queries") != after.get("queries"):
        found.append("query set")
    if before.get("labels") != after.get("labels"):
        found.append("label set")
    if then.get("k") != now.get("k"):
        found.append("K")
    if then.get("conventions") != now.get("conventions"):
        found.append("conventions")
    return tuple(found)


def _metric_order(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every metric any report holds: the newest report's primary first, then as the reports list them."""
    order: dict[str, None] = {}
    if entries and entries[0].get("primary"):
        order[entries[0]["primary"]] = None
    for entry in entries:
        for run in entry["runs"]:
            order.update(dict.fromkeys(run.get("metrics", {})))
    return list(order)


def trend_lines(entries: Sequence[Mapping[str, Any]]) -> list[Trend]:
    """A :class:`Trend` per metric, over ``entries`` (newest first, as the history keeps them)."""
    reports = list(reversed(entries))
    labels = tuple(str(e["label"]) for e in reports)
    runs_at = [{r["name"]: r for r in e["runs"]} for e in reports]
    trends = []
    for metric in _metric_order(entries):
        names = list(dict.fromkeys(n for at in runs_at for n, r in at.items() if metric in r.get("metrics", {})))
        lines = []
        breaking: dict[int, dict[tuple[str, ...], list[str]]] = {}
        for name in names:
            points = [at.get(name, {}).get("metrics", {}).get(metric) for at in runs_at]
            segments: list[list[int]] = []
            for i, point in enumerate(points):
                if point is None or point.get("mean") is None:
                    continue
                joined = False
                if segments and segments[-1][-1] == i - 1:
                    kinds = _changes(runs_at[i - 1][name], runs_at[i][name])
                    if kinds:
                        breaking.setdefault(i, {}).setdefault(kinds, []).append(name)
                    else:
                        segments[-1].append(i)
                        joined = True
                if not joined:
                    segments.append([i])
            lines.append(
                TrendLine(
                    name,
                    tuple(None if p is None else p.get("mean") for p in points),
                    tuple(None if p is None else p.get("low") for p in points),
                    tuple(None if p is None else p.get("high") for p in points),
                    tuple(tuple(s) for s in segments),
                )
            )
        breaks = []
        for position in sorted(breaking):
            both = [n for n in names if n in runs_at[position - 1] and n in runs_at[position]]
            for kinds, broken in breaking[position].items():
                breaks.append(Break(position, kinds, tuple(broken), every=len(broken) == len(both) > 1))
        trends.append(Trend(metric, labels, tuple(lines), tuple(breaks)))
    return trends


# --- The page --------------------------------------------------------------------------------------


def _short_prints(prints: Mapping[str, Any] | None) -> dict[str, str] | None:
    if not prints or not prints.get("queries") or not prints.get("labels"):
        return None
    queries, labels = say.history_fingerprints(str(prints["queries"]), str(prints["labels"]))
    return {"queries": queries, "labels": labels, "queries_full": prints["queries"], "labels_full": prints["labels"]}


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
        text, css = say.history_drift(
            row["run"],
            row["metric"],
            row.get("then"),
            row.get("now"),
            row.get("delta"),
            row.get("low"),
            row.get("high"),
            row.get("verdict"),
            row.get("p_adjusted"),
        )
        lines.append({"text": text, "css": css})
    lines += [{"text": fmt.Text((str(note),)), "css": "unclear"} for note in drift.get("notes", [])]
    return {"since": since, "href": f"#report-{previous}" if shown is not None else None, "lines": lines}


def _row(entry: Mapping[str, Any], older: Mapping[str, Any] | None, by_label: Mapping[str, Any]) -> dict[str, Any]:
    primary = entry.get("primary")
    runs = []
    for run in entry["runs"]:
        figure_ = run.get("metrics", {}).get(primary) or {}
        runs.append(
            {
                "name": run["name"],
                "mean": fmt.decimal(figure_.get("mean")),
                "band": fmt.band(figure_.get("low"), figure_.get("high")),
            }
        )
    prints = _short_prints(entry.get("fingerprints"))
    before = (older or {}).get("fingerprints") or {}
    now = entry.get("fingerprints") or {}
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
    explained = [
        say.trend_break(trend.labels[b.position - 1], trend.labels[b.position], b.kinds, b.runs, b.every)
        for b in trend.breaks
    ]
    return {
        "metric": trend.metric,
        "trend": trend,  # the site draws it (trend.trend_figure)
        "caption": say.trend_caption(trend.metric, confidence),
        "figure_label": say.trend_title(trend.metric),
        "breaks": explained,
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
        "headers": say.HISTORY_HEADERS,
        "changed": say.HISTORY_CHANGED,
    }


def history_json(entries: Sequence[Mapping[str, Any]]) -> bytes:
    document = {
        "schema": HISTORY_SCHEMA,
        "generator": f"ragreport {__version__}",
        "title": history_title(entries),
        "reports": list(entries),
    }
    return (json.dumps(document, ensure_ascii=False, allow_nan=False, indent=1) + "\n").encode("utf-8")
