"""The words the charts carry: their titles, axes and marks (:mod:`ragreport.output.site.charts`)."""

from __future__ import annotations

from collections.abc import Sequence

from .numbers import percent


def run_sweep_title(name: str, confidence: float) -> str:
    return f"K sweep of {name}: each metric with its {percent(confidence)} band"


INDEX_SWEEP_TITLE = "K sweep of every run, one metric at a time"

#: The precision-recall curve (interpolated precision at trec_eval's recall levels).
PR_X = "recall level"
PR_Y = "interpolated precision"
PR_HOVER = "recall %{x:.1f}: %{y:.3f}"
INDEX_PR_TITLE = "Precision-recall curves of every run"


def run_pr_title(name: str, confidence: float) -> str:
    return f"{name}: precision by recall, {percent(confidence)} band"


def pr_caption(confidence: float, levels: int) -> str:
    return (
        f"Interpolated precision at {levels} recall levels (trec_eval's iprec_at_recall): the best "
        f"precision at or past each share of the relevant ids found, mean over the scored queries "
        f"with its {percent(confidence)} band."
    )


def scatter_title(k: int, run: str, baseline: str) -> str:
    return f"Per query at K = {k}: {run} against {baseline}"


def scatter_note(run: str) -> str:
    return f"above the line: {run} scores higher"


def outcome_title(run: str) -> str:
    return f"Queries won, tied and lost by {run}"


TREND_AXIS = "report, oldest to newest"


def trend_break_mark(kinds: Sequence[str]) -> str:
    """The chart's short note at a break: ``label set changed``."""
    sets = [k for k in kinds if k.endswith(" set")]
    rest = [k for k in kinds if not k.endswith(" set")]
    named = []
    if sets:
        named.append(" and ".join(s.removesuffix(" set") for s in sets) + (" sets" if len(sets) > 1 else " set"))
    named += rest
    return " and ".join(named) + " changed"
