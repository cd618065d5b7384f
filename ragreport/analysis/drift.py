"""Drift since a previous report: the same frozen query set and label set, scored again later.

A run of a previous ``report.json`` is comparable with the run of the same name only when its
query-set and label-set fingerprints both equal the run's now; otherwise the report says which one
differs and claims no drift for it. For each run found in both at the same K and conventions, every
metric's figure then and now is shown with the difference; where both reports hold per-query
scores, the difference gets a paired bootstrap band over the queries scored in both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scoring.catalogue import SUITE
from .intervals import bootstrap_interval

if TYPE_CHECKING:  # annotations only
    from .summary import RunSummary

# Conventions that change figures; confidence, resamples and seed only change bands.
FIGURE_CONVENTIONS = ("denominator", "gain", "missing", "no_relevant", "order")


@dataclass(frozen=True)
class DriftRow:
    run: str
    metric: str
    then: float | None
    now: float
    delta: float | None
    low: float | None
    high: float | None
    queries: int

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Drift:
    """What can be said about drift against one previous report."""

    source: str
    previous_date: str | None
    comparable: bool
    reasons: tuple[str, ...]
    notes: tuple[str, ...]
    rows: tuple[DriftRow, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "previous": self.source,
            "previous_date": self.previous_date,
            "comparable": self.comparable,
            "reasons": list(self.reasons),
            "notes": list(self.notes),
            "rows": [r.as_dict() for r in self.rows],
        }


def _per_query(run: dict[str, Any], label: str) -> dict[str, float]:
    return {q["id"]: q[label] for q in run.get("queries", []) if q.get("scored") and q.get(label) is not None}


def _differs(kind: str, then: str, now: str) -> str:
    return f"the {kind} set differs (then {then[:19]}…, now {now[:19]}…)"


def drift(previous: dict[str, Any], source: str, summaries: Sequence[RunSummary]) -> Drift:
    """Each run against the run of the same name in ``previous``, when both fingerprints match."""
    previous_runs = {r.get("name"): r for r in previous["runs"] if isinstance(r, dict)}
    reasons, notes, rows = [], [], []
    comparable = False
    for summary in summaries:
        then = previous_runs.get(summary.name)
        if then is None:
            notes.append(f"{summary.name} is new: the previous report has no run of that name.")
            continue
        prints = then.get("fingerprints", {})
        differs = []
        if prints.get("queries") != summary.query_fingerprint:
            differs.append(_differs("query", str(prints.get("queries")), summary.query_fingerprint))
        if prints.get("labels") != summary.label_fingerprint:
            differs.append(_differs("label", str(prints.get("labels")), summary.label_fingerprint))
        if differs:
            reasons.append(f"for {summary.name}, " + " and ".join(differs))
            continue
        if then.get("k") != summary.k:
            notes.append(
                f"{summary.name} was scored at K = {then.get('k')} then and K = {summary.k} now: "
                f"figures at different K do not compare."
            )
            continue
        then_conventions = then.get("conventions", {})
        now_conventions = summary.conventions.as_dict()
        changed = [
            key
            for key in FIGURE_CONVENTIONS
            if then_conventions.get(key, "exclude" if key == "no_relevant" else None) != now_conventions[key]
        ]
        if changed:
            notes.append(
                f"{summary.name} was scored under other conventions then ({', '.join(changed)}): "
                f"its figures do not compare."
            )
            continue
        comparable = True
        rows += _rows(then, summary)
    current = {s.name for s in summaries}
    notes += [
        f"{name} was in the previous report and is not in this one." for name in previous_runs if name not in current
    ]
    return Drift(source, previous.get("date"), comparable, tuple(reasons), tuple(notes), tuple(rows))


def _rows(then: dict[str, Any], summary: RunSummary) -> list[DriftRow]:
    """Every metric at K, then and now; the change over the queries scored both times, with its band."""
    conventions = summary.conventions
    ids = summary.judged.query_ids.tolist()
    scored = summary.scores.scored.tolist()
    rows = []
    for metric in SUITE:
        label = metric.label(summary.k)
        now = summary.at_k[label].mean
        then_mean = then.get("metrics", {}).get(label, {}).get("mean")
        before = _per_query(then, label)
        current = summary.scores.of(metric, summary.k).tolist()
        after = {q: v for q, v, s in zip(ids, current, scored) if s}
        common = sorted(set(before) & set(after))
        delta: float | None
        band: tuple[float | None, float | None]
        if common:
            differences = np.array([after[q] - before[q] for q in common])
            mean, low, high = bootstrap_interval(
                differences, conventions.resamples, conventions.seed, conventions.confidence
            )
            delta, band = float(mean[0]), (float(low[0]), float(high[0]))
        else:
            delta = None if then_mean is None else now - then_mean
            band = (None, None)
        rows.append(DriftRow(summary.name, label, then_mean, now, delta, band[0], band[1], len(common)))
    return rows
