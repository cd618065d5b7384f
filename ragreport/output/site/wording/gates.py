"""The words of the gates (``--fail-on``, ``--require``, ``--max-drop``) and of a pull-request comment."""

from __future__ import annotations

from collections.abc import Sequence

from .headline import LINE_VERDICTS
from .numbers import band_words, counted, decimal, p_value, signed

# --- Gates ------------------------------------------------------------------------------------------

#: What ``--fail-on worse`` reads when the report has one run.
GATE_NO_COMPARISON = "one run: no baseline to be worse than"
#: What ``--fail-on slice-worse`` says when there is no slice comparison to read.
GATE_NO_SLICES = "no slice of two runs large enough to read: nothing to be worse on"
#: What ``--max-drop`` names when it reads the drift since ``--previous``.
GATE_PREVIOUS = "the previous report"
GATES_TITLE = "Gates"
GATES_HEADER = ("result", "rule", "run", "metric", "what it read")


def gate_verdict_figure(
    verdict: str, delta: float | None, low: float | None, high: float | None, p_adjusted: float | None
) -> str:
    """What ``--fail-on worse`` read: the comparison's verdict, then the difference, band and p it rests on."""
    words = GATE_VERDICTS[verdict]
    return f"verdict {words}: difference {signed(delta)}, {band_words(low, high)}, corrected p {p_value(p_adjusted)}"


#: A comparison's verdict as a gate line names it (the p follows in the line): a first screen's line,
#: with a band-only verdict said as one.
GATE_VERDICTS = {**LINE_VERDICTS, "band above 0": "band above 0 only", "band below 0": "band below 0 only"}


def gate_corrected(queries: int) -> str:
    """Said after a figure a gate read corrected by the audit (``--audit``; docs/conventions.md 25.8)."""
    return f" (corrected by the audit of {counted(queries, 'query')})"


def gate_against_previous(figure: str) -> str:
    """What ``--fail-on worse`` read of the drift since the previous report."""
    return f"against the previous report: {figure}"


#: What a gate line says of a figure that could not be taken (it passes no gate).
GATE_NOT_TAKEN = "n/a (a figure that could not be taken passes no gate)"


def gate_compared(shown: str, relation: str, limit: str) -> str:
    """A figure held to a threshold with the relation that holds: ``0.390 < 0.40``."""
    return f"{shown} {relation} {limit}"


def gate_bound_figure(read_as: str, compared: str, mean: float | None, mean_rule: str | None) -> str:
    """What ``--require`` read: the figure it compared (``read_as``: the band's bound, the mean or a
    count's total) held to the threshold (:func:`gate_compared`); after a bound, the mean, and when the
    mean would have passed a failed bound, the rule that gates the mean (``mean_rule``)."""
    if read_as.startswith(("mean", "total")):
        return f"{read_as} {compared}"
    hint = f"; to gate the mean: {mean_rule}" if mean_rule else ""
    return f"{read_as} {compared} (mean {decimal(mean)}{hint})"


def gate_drop_figure(
    other: str | None, compared: str, delta: float | None, low: float | None, high: float | None
) -> str:
    """What ``--max-drop`` read: the lower bound of the paired band of the difference against
    ``other``, held to minus the drop (``compared``), then the difference and its band."""
    return f"against {other}: lower band bound {compared} (difference {signed(delta)}, {band_words(low, high)})"


def gate_margin_figure(
    compared: str, margin: float, delta: float | None, low: float | None, high: float | None, passed: bool
) -> str:
    """What ``--fail-on worse-than-margin`` read: the lower bound of the paired band held to minus the
    margin (``compared``: ``-0.031 <= -0.02``), the margin, then the difference and its band."""
    said = "" if passed else f"; a drop of {margin:g} or more cannot be ruled out"
    difference = f"difference {signed(delta)}, {band_words(low, high)}"
    return f"lower band bound {compared}, minus the margin {margin:g} ({difference}){said}"


def gate_slice_figure(key: str, value: str, queries: int, words: str) -> str:
    """What ``--fail-on slice-worse`` read on one slice."""
    return f"where {key} is {value} ({counted(queries, 'query')}): {words}"


def gate_underpowered(queries: int, detectable: float | None) -> str:
    """Said after a ``--max-drop`` figure when the comparison found no clear difference and could not
    have detected a drop that size (never beside a clear difference: that one was detected)."""
    if detectable is None:
        return f"; underpowered: with {queries:,} queries no difference is detectable at the corrected level"
    return (
        f"; underpowered: with {queries:,} queries this comparison could only detect differences of "
        f"{decimal(detectable)} or more (80% power)"
    )


def gate_result_line(passed: bool, rule: str, run: str, metric: str, figure: str) -> str:
    where = f"{run} {metric}: " if run else ""
    return f"{'PASS' if passed else 'FAIL'}  {rule}  {where}{figure}"


def gates_summary(failed: int, total: int) -> str:
    """The gate table's one line: how many checks failed, and what that does to the exit status."""
    if not total:
        return "No gate check applies to this report."
    checks = f"{total} gate check{'s' if total != 1 else ''}"
    if failed:
        return f"{failed} of {checks} failed: the command exits with status 1."
    return f"All {checks} passed." if total > 1 else "The gate check passed."


# --- Pull-request comments ---------------------------------------------------------------------------


def comment_left_out(parts: Sequence[str]) -> str:
    """The last line of a comment trimmed to GitHub's limit: what was left out and where it is."""
    return (
        f"_Left out to fit GitHub's 65,536-character limit on a comment: {', '.join(parts)}. "
        f"The report's site and summary.md hold everything._"
    )


def comment_link(url: str) -> str:
    """The comment's last line: where the whole report opens (``pr --report-url``)."""
    return f"**[Open the full report]({url})**: every figure, chart and query."


#: The heading of a pull request's comment over the drift since the base's report.
CHANGED_SINCE_BASE = "What changed since the base"


def chart_since_base(metric: str, confidence: str) -> str:
    """The caption of a pull request's text chart of each run's change since the base."""
    return (
        f"{metric}: each run's change since the base, with its {confidence} band (`[===]`; `o` the change, "
        "`|` no change):"
    )


def chart_against_baseline(metric: str, baseline: str, confidence: str) -> str:
    return (
        f"{metric}: each run's difference from the baseline {baseline}, with its {confidence} band "
        "(`[===]`; `o` the difference, `|` no difference):"
    )


def chart_means(metric: str, confidence: str, k: int) -> str:
    return f"{metric}: each run's mean with its {confidence} band (`[===]`; `o` the mean), on 0 to 1:"


def comment_cut() -> str:
    return (
        "_Cut here to fit GitHub's 65,536-character limit on a comment: the headline and the gates alone "
        "are longer. The report's site and summary.md hold everything._"
    )
