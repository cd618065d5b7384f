"""The drift since a previous report, laid out for people."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....scoring.catalogue import COMPARED, SUITE
from ..wording import comparison as say_comparison
from ..wording import numbers as fmt
from .cells import delta_matrix, difference_row, reach
from .model import DriftView

if TYPE_CHECKING:
    from ....analysis.drift import Drift, LabelChange


def _counted(change: LabelChange, kind: str, written: Any) -> tuple[int, list[str]]:
    """A count and the first few items of a change list, each written as the list shows it."""
    return change.count(kind), [written(*item) for item in getattr(change, kind)[: say_comparison.FIRST_SHOWN]]


def drift_view(found: Drift, primary: str) -> DriftView:
    """The drift section: sentences, one line per unchanged run, the delta matrix of the others
    and every row in full (``primary`` is the metric an unchanged run's line quotes)."""
    diagnostics = {m.label(found.k) for m in SUITE if m not in COMPARED}
    outside = {m.label(found.k) for m in COMPARED if m.label(found.k) not in found.family}
    axis = reach([(r.low, r.high, r.delta) for r in found.rows if r.run not in found.unchanged])
    rows = [
        difference_row(
            r.run,
            r.metric,
            (r.delta, r.low, r.high),
            (r.p, r.p_adjusted),
            say_comparison.drift_verdict(
                r.verdict, found.alpha, r.p_adjusted, r.metric in diagnostics, outside=r.metric in outside
            ),
            axis,
            then=fmt.decimal(r.then),
            now=fmt.decimal(r.now),
            queries=fmt.count(r.queries),
            changed=fmt.count(r.changed),
        )
        for r in found.rows
    ]
    metrics, matrix = delta_matrix([v for v in rows if v.run not in found.unchanged])
    unchanged = []
    for name in found.unchanged:
        lead = next(r for r in found.rows if r.run == name and r.metric == primary) if primary else None
        first = lead or next(r for r in found.rows if r.run == name)
        unchanged.append(say_comparison.drift_unchanged(name, first.queries, first.metric, first.now))
    changes = tuple(
        say_comparison.drift_change(
            c.runs,
            len(c.runs) == found.runs,
            _counted(c, "queries_added", say_comparison.query_item),
            _counted(c, "queries_removed", say_comparison.query_item),
            _counted(c, "judgments_added", say_comparison.judgment_item),
            _counted(c, "judgments_removed", say_comparison.judgment_item),
            _counted(c, "regraded", say_comparison.regrade_item),
        )
        for c in found.changes
    )
    return DriftView(
        previous_line=say_comparison.drift_previous(found.source, found.previous_date),
        reasons=tuple(say_comparison.drift_reason(r) for r in found.reasons),
        # drift's notes name the user's runs: quoted whole
        notes=tuple(fmt.Text((fmt.Quoted(n),)) for n in found.notes),
        same_line=fmt.Text((say_comparison.DRIFT_SAME,)) if found.comparable else None,
        rows=tuple(rows),
        changes=changes + tuple(say_comparison.drift_unlisted(run, found.previous_sampled) for run in found.unlisted),
        method=say_comparison.drift_method(1.0 - found.alpha, found.correction.value, found.tested)
        if found.tested
        else "",
        unchanged=tuple(unchanged),
        unchanged_runs=found.unchanged,
        metrics=metrics,
        matrix=matrix,
        matrix_caption=say_comparison.drift_matrix_caption(found.k) if matrix else "",
        confidence=fmt.percent(1.0 - found.alpha),
        correction=found.correction.value,
        more=say_comparison.DRIFT_MORE,
    )
