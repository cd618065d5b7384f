"""Drift since a previous report: the same frozen query set and label set, scored again later.

A previous ``report.json``'s run is comparable with the run of the same name only when its
query-set and label-set fingerprints both equal the run's now; otherwise the report says which one
differs, claims no drift for it, and (when the previous report lists its judgments) says what
changed: queries added and removed, judgments added, removed and regraded.

Each run found in both at the same K and conventions shows every suite metric then and now. With
per-query scores in both, the difference is read as a comparison with a baseline is
(:mod:`ragreport.analysis.compare`), the tested p-values corrected together across every run and
metric of the drift. A run none of whose per-query scores moved is marked ``unchanged``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.model import FIGURE_CONVENTIONS
from ..scoring.catalogue import COMPARED, SUITE, Metric
from .compare import Correction, adjust, scored_rows, verdict_of
from .intervals import bootstrap_interval
from .randomization import TIE, randomization_test
from .summary import judgment_map

if TYPE_CHECKING:  # annotations only
    from .summary import RunSummary

#: What a previous report written before a convention existed was scored under.
_EARLIER_DEFAULTS = {"no_relevant": "exclude", "relevance_level": 1}

#: How many items of each kind of change report.json lists (the counts are always whole).
FIRST_FEW = 20
CHANGE_FIELDS = ("queries_added", "queries_removed", "judgments_added", "judgments_removed", "regraded")


@dataclass(frozen=True)
class DriftRow:
    """One metric of one run, then and now: ``delta`` the mean per-query change over the
    ``queries`` scored both times (the change of the means when the previous report holds no
    per-query scores) with its paired bootstrap band ``low``-``high``; ``p``, ``p_adjusted`` and
    ``verdict`` as a comparison's (None for a metric not tested, or without per-query scores then);
    ``changed`` the queries whose score moved."""

    run: str
    metric: str
    then: float | None
    now: float
    delta: float | None
    low: float | None
    high: float | None
    queries: int
    p: float | None = None
    p_adjusted: float | None = None
    verdict: str | None = None
    changed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LabelChange:
    """What differs between the query set and label set of ``runs`` then and now (runs whose sets
    changed alike share one).

    ``queries_added``/``queries_removed`` are ``(query, judgments)`` (sorted by query), with the
    count of judgments the query brought or took away; ``judgments_added`` and ``judgments_removed``
    are ``(query, id, grade)`` on the queries judged both times; ``regraded`` is
    ``(query, id, then, now)``.
    """

    runs: tuple[str, ...]
    queries_added: tuple[tuple[str, int], ...]
    queries_removed: tuple[tuple[str, int], ...]
    judgments_added: tuple[tuple[str, str, int], ...]
    judgments_removed: tuple[tuple[str, str, int], ...]
    regraded: tuple[tuple[str, str, int, int], ...]
    #: How many of each kind there are, when the lists hold only the first few (a drift read back
    #: from report.json, which keeps :data:`FIRST_FEW`); None: the lists are whole.
    counts: Mapping[str, int] | None = field(default=None, compare=False)

    def count(self, kind: str) -> int:
        """How many changes of ``kind`` (a field's name) there are."""
        return len(getattr(self, kind)) if self.counts is None else self.counts[kind]

    def as_dict(self) -> dict[str, Any]:
        parts = {key: getattr(self, key) for key in CHANGE_FIELDS}
        return {
            "runs": list(self.runs),
            **{key: {"count": self.count(key), "first": [list(i) for i in v[:FIRST_FEW]]} for key, v in parts.items()},
        }


@dataclass(frozen=True)
class Drift:
    """What can be said about drift against one previous report.

    ``unchanged`` names the comparable runs none of whose per-query scores moved; ``changes`` says
    what differs for each run whose fingerprints do not match, when the previous report lists its
    judgments (``unlisted`` names the runs for which it does not).
    """

    source: str
    previous_date: str | None
    comparable: bool
    reasons: tuple[str, ...]
    notes: tuple[str, ...]
    rows: tuple[DriftRow, ...]
    unchanged: tuple[str, ...] = ()
    changes: tuple[LabelChange, ...] = ()
    unlisted: tuple[str, ...] = ()
    correction: Correction = Correction.HOLM
    alpha: float = 0.05
    tested: int = field(default=0)
    k: int = 0
    runs: int = 0  # how many runs this report has
    basis: Mapping[str, Any] | None = field(default=None, compare=False)  # see drift_basis
    family: tuple[str, ...] = ()  # the metrics tested (the comparison family's suite metrics at K)
    previous_sampled: bool = False  # the previous report holds a sample of its queries (section 29.2)

    def as_dict(self) -> dict[str, Any]:
        return {
            "previous": self.source,
            "previous_date": self.previous_date,
            "comparable": self.comparable,
            "reasons": list(self.reasons),
            "notes": list(self.notes),
            "correction": self.correction.value,
            "alpha": round(self.alpha, 10),
            "unchanged": list(self.unchanged),
            "changes": [c.as_dict() for c in self.changes],
            "rows": [r.as_dict() for r in self.rows],
            "basis": self.basis,
        }


def _per_query(run: Mapping[str, Any], label: str) -> dict[str, float]:
    return {q["id"]: q[label] for q in run.get("queries", []) if q.get("scored") and q.get(label) is not None}


def _differs(kind: str, then: str, now: str) -> str:
    return f"the {kind} set differs (then {then[:19]}…, now {now[:19]}…)"


def previous_judgments(previous: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, dict[str, int]] | None:
    """A previous run's label set as ``{query: {id: grade}}``: its own ``judgments`` when the report
    kept them per run, else the report's when the run's fingerprints are the report's; None when the
    report (written by an earlier ragreport) lists no judgments."""
    if is_sampled(previous):  # a sample's judgments: what changed cannot be listed
        return None
    own = run.get("judgments")
    if isinstance(own, dict):
        return own
    shared = previous.get("judgments")
    if isinstance(shared, dict) and run.get("fingerprints") == previous.get("fingerprints"):
        return shared
    return None


def label_change(
    runs: tuple[str, ...], then: Mapping[str, Mapping[str, int]], now: Mapping[str, Mapping[str, int]]
) -> LabelChange:
    """Queries added and removed (with their judgment counts); judgments added, removed and
    regraded on the queries judged both times; each sorted by query then id."""
    added, removed, regraded = [], [], []
    for q in sorted(set(then) & set(now)):
        before, after = then[q], now[q]
        for d in sorted(set(before) | set(after)):
            if d not in before:
                added.append((q, d, int(after[d])))
            elif d not in after:
                removed.append((q, d, int(before[d])))
            elif before[d] != after[d]:
                regraded.append((q, d, int(before[d]), int(after[d])))
    return LabelChange(
        runs,
        tuple((q, len(now[q])) for q in sorted(set(now) - set(then))),
        tuple((q, len(then[q])) for q in sorted(set(then) - set(now))),
        tuple(added),
        tuple(removed),
        tuple(regraded),
    )


def _runs_phrase(names: Sequence[str], every: int) -> str:
    if len(names) == every and every > 1:
        return f"every run ({', '.join(names)})"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def drift_basis(previous: Mapping[str, Any], summaries: Sequence[RunSummary]) -> dict[str, Any]:
    """What :func:`drift` reads of ``previous`` to judge ``summaries``, and nothing else: its date,
    fingerprints and (only where a run's sets differ) judgments; per run of the same name its K,
    conventions, fingerprints, suite means at K and the scored queries' suite values at K.

    ``drift(drift_basis(p, s), ...)`` equals ``drift(p, ...)``: report.json keeps it under
    ``drift.basis`` so that ``ragreport render`` gives the same drift without the previous file.
    """
    by_name = {s.name: s for s in summaries}
    runs: list[dict[str, Any]] = []
    shared = False
    sampled = is_sampled(previous)
    for run in previous["runs"]:
        if not isinstance(run, dict):
            continue
        kept: dict[str, Any] = {"name": run.get("name")}
        summary = by_name.get(str(run.get("name")))
        if summary is not None:
            kept.update((key, run[key]) for key in ("k", "conventions", "fingerprints") if key in run)
            prints = run.get("fingerprints", {})
            if (prints.get("queries"), prints.get("labels")) != (summary.query_fingerprint, summary.label_fingerprint):
                if isinstance(run.get("judgments"), dict):
                    if not sampled:
                        kept["judgments"] = run["judgments"]
                else:
                    shared = True
            elif run.get("k") == summary.k:
                labels = [metric.label(summary.k) for metric in SUITE]
                metrics = run.get("metrics", {})
                kept["metrics"] = {
                    label: {"mean": metrics[label].get("mean")}
                    for label in labels
                    if isinstance(metrics.get(label), dict)
                }
                kept["queries"] = [
                    {"id": q["id"], "scored": True, **{label: q[label] for label in labels if label in q}}
                    for q in ([] if sampled else run.get("queries", []))
                    if q.get("scored")
                ]
        runs.append(kept)
    basis: dict[str, Any] = {"date": previous.get("date"), "fingerprints": previous.get("fingerprints"), "runs": runs}
    if shared and "judgments" in previous and not sampled:
        basis["judgments"] = previous["judgments"]
    if sampled:
        basis["sampled"] = True
    return basis


def is_sampled(previous: Mapping[str, Any]) -> bool:
    """Whether a previous report (or its drift basis) holds a sample of its queries' rows and
    judgments (docs/conventions.md section 29.2): its runs drift by their means alone, and what
    changed in its labels is not listed."""
    return bool(previous.get("sampled"))


def drift(
    previous: Mapping[str, Any],
    source: str,
    summaries: Sequence[RunSummary],
    *,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    tested: Sequence[Metric] = COMPARED,
) -> Drift:
    """Each run against the run of the same name in ``previous``, when both fingerprints match.

    ``tested``: the suite metrics that get the paired test and the correction (the comparison
    family's, by default every compared metric); the others are shown, not tested.
    """
    sampled = is_sampled(previous)
    previous_runs = {
        r.get("name"): {**r, "queries": []} if sampled else r for r in previous["runs"] if isinstance(r, dict)
    }
    k = summaries[0].k if summaries else 0
    notes: list[str] = []
    absent: dict[str, None] = {}
    differing: dict[str, list[str]] = {}
    changed_alike: dict[tuple, list[str]] = {}
    unlisted: list[str] = []
    rows: list[DriftRow] = []
    comparable: list[str] = []
    unchanged: list[str] = []
    for summary in summaries:
        then = previous_runs.get(summary.name)
        if then is None:
            notes.append(f"{summary.name} is new: the previous report has no run of that name.")
            continue
        prints = then.get("fingerprints", {})
        now_prints = (("query", "queries", summary.query_fingerprint), ("label", "labels", summary.label_fingerprint))
        differs = [_differs(kind, str(prints.get(key)), now) for kind, key, now in now_prints if prints.get(key) != now]
        if differs:
            differing.setdefault(" and ".join(differs), []).append(summary.name)
            listed = previous_judgments(previous, then)
            if listed is None:
                unlisted.append(summary.name)
            else:
                found = label_change((summary.name,), listed, judgment_map(summary.judged))
                changed_alike.setdefault(tuple(getattr(found, f) for f in CHANGE_FIELDS), []).append(summary.name)
            continue
        if then.get("k") != summary.k:
            notes.append(
                f"{summary.name} was scored at K = {then.get('k')} then and K = {summary.k} now: "
                f"figures at different K do not compare."
            )
            continue
        was, now = then.get("conventions", {}), summary.conventions.as_dict()
        changed = [key for key in FIGURE_CONVENTIONS if was.get(key, _EARLIER_DEFAULTS.get(key)) != now[key]]
        if changed:
            notes.append(
                f"{summary.name} was scored under other conventions then ({', '.join(changed)}): "
                f"its figures do not compare."
            )
            continue
        # The metrics both reports hold: one made before a metric was added (or after one was
        # removed) drifts on the others, and says so once (docs/conventions.md section 26).
        figures = then.get("metrics")
        metrics = [m for m in summary.suite if not isinstance(figures, dict) or m.label(summary.k) in figures]
        absent.update((m.label(summary.k), None) for m in summary.suite if m not in metrics)
        found_rows, moved = _rows(then, summary, permutations, [m for m in tested if m in metrics], metrics)
        rows += found_rows
        comparable.append(summary.name)
        if not moved:
            unchanged.append(summary.name)
    # Runs whose sets changed alike (one qrels file for every run) are said once, together.
    every = len(summaries)
    reasons = [f"for {_runs_phrase(names, every)}, {what}" for what, names in differing.items()]
    changes = [LabelChange(tuple(names), *key) for key, names in changed_alike.items()]
    current = {s.name for s in summaries}
    notes += [
        f"{name} was in the previous report and is not in this one." for name in previous_runs if name not in current
    ]
    notes += [f"{label} is not in the previous report: it has no drift." for label in absent]
    alpha = 1.0 - summaries[0].conventions.confidence if summaries else 0.05
    # A test where no query's score moved has p = 1 whatever the correction, so it cannot reject and
    # is left out of the family the correction counts (Tarone's argument for tests that cannot reach
    # the level): an unchanged run does not make a changed one's p larger.
    family = [i for i, r in enumerate(rows) if r.p is not None and r.changed > 0]
    adjusted = dict(zip(family, adjust(np.array([rows[i].p for i in family]), correction).tolist()))
    for i, r in enumerate(rows):
        if r.p is not None and r.low is not None and r.high is not None:
            p = adjusted.get(i, 1.0)
            rows[i] = replace(r, p_adjusted=p, verdict=verdict_of(r.low, r.high, p, alpha))
    return Drift(
        source,
        previous.get("date"),
        bool(comparable),
        tuple(reasons),
        tuple(notes),
        tuple(rows),
        unchanged=tuple(unchanged),
        changes=tuple(changes),
        unlisted=tuple(unlisted),
        correction=correction,
        alpha=alpha,
        tested=len(family),
        k=k,
        runs=len(summaries),
        basis=drift_basis(previous, summaries),
        family=tuple(m.label(k) for m in tested if m.label(k) not in absent),
        previous_sampled=sampled,
    )


def _rows(
    then: Mapping[str, Any], summary: RunSummary, permutations: int, tested: Sequence[Metric], metrics: Sequence[Metric]
) -> tuple[list[DriftRow], bool]:
    """A comparable run's rows, their p-values not yet corrected, and whether any per-query score
    moved: every metric of ``metrics`` over the queries scored both times, with bands and, on the
    ``tested`` metrics, the randomization test; the change of the means without per-query scores."""
    labels = [metric.label(summary.k) for metric in metrics]
    then_means = [then.get("metrics", {}).get(label, {}).get("mean") for label in labels]
    now_means = [summary.at_k[label].mean for label in labels]
    now_rows = scored_rows(summary)
    before = [_per_query(then, label) for label in labels]
    common = sorted(set(now_rows).intersection(*(set(b) for b in before))) if before else []
    if not common:
        changes = [None if t is None else n - t for t, n in zip(then_means, now_means)]
        rows = [DriftRow(summary.name, *row, None, None, 0) for row in zip(labels, then_means, now_means, changes)]
        return rows, True
    conventions = summary.conventions
    picked = np.array([now_rows[q] for q in common], dtype=np.int64)
    now = np.stack([summary.scores.of(metric, summary.k)[picked] for metric in metrics], axis=1)
    differences = now - np.array([[b[q] for b in before] for q in common], dtype=np.float64)
    delta, low, high = bootstrap_interval(differences, conventions.resamples, conventions.seed, conventions.confidence)
    compared_at = [metrics.index(m) for m in tested]
    p_of = dict(
        zip(compared_at, randomization_test(differences[:, compared_at], permutations, conventions.seed).tolist())
    )
    changed = (np.abs(differences) > TIE).sum(axis=0)
    rows = []
    for i, label in enumerate(labels):
        figures = (float(delta[i]), float(low[i]), float(high[i]), len(common), p_of.get(i))
        rows.append(DriftRow(summary.name, label, then_means[i], now_means[i], *figures, changed=int(changed[i])))
    return rows, bool(changed.any()) or set(before[0]) != set(now_rows)
