"""The headline: the verdict first, in words a stakeholder reads."""

from __future__ import annotations

from collections.abc import Sequence

from .numbers import Quoted, Text, count, decimal, p_value, percent, signed

# --- The headline: the verdict first, in words a stakeholder reads ---------------------------------

#: Each comparison verdict as the headline says it; ``{p}`` is the corrected p.
HEADLINE_VERDICTS = {
    "better": "clearly better",
    "worse": "clearly worse",
    "band above 0": "better by the band, but not confirmed by the corrected p ({p})",
    "band below 0": "worse by the band, but not confirmed by the corrected p ({p})",
    "unclear": "no clear difference",
}

HEADLINE_TITLE = "The verdict"
#: The link from a headline sentence to the figures behind it.
HEADLINE_DETAILS = "The details"
#: The forest plot's axis when its rows are differences: short enough for a phone's width (the
#: chart's title names the baseline).
FOREST_AXIS_DIFFERENCE = "{metric}, run minus baseline"


def headline_verdict(name: str, p_adjusted: float | None) -> str:
    """A comparison's verdict in a manager's words."""
    return HEADLINE_VERDICTS[name].format(p=p_value(p_adjusted))


def _queries(n: int) -> str:
    return f"{count(n)} quer{'y' if n == 1 else 'ies'}"


def headline_sentence(
    run: str,
    baseline: str,
    metric: str,
    value: float | None,
    baseline_value: float | None,
    delta: float,
    low: float,
    high: float,
    wins: int,
    losses: int,
    verdict_name: str,
    p_adjusted: float | None,
    confidence: float,
    shared: int | None = None,
) -> Text:
    """One run against the baseline in one sentence: the figures, the difference with its band, the
    queries won and lost, and the verdict in words. ``shared``: the queries both scored, said when
    the two runs did not score the same ones (each figure is then over its own run's queries, the
    difference over the shared ones)."""
    on = "" if shared is None else f" on the {_queries(shared)} both scored"
    return Text(
        (
            Quoted(run),
            f" scores {decimal(value)} {metric} against ",
            Quoted(baseline),
            f"'s {decimal(baseline_value)}: {signed(delta)}{on} ({percent(confidence)} band {signed(low)} to "
            f"{signed(high)}), better on {_queries(wins)} and worse on {count(losses)} — "
            f"{headline_verdict(verdict_name, p_adjusted)}.",
        )
    )


def headline_not_compared(run: str, baseline: str) -> Text:
    """The headline of a run that shares no scored query with the baseline."""
    return Text((Quoted(run), " shares no scored query with ", Quoted(baseline), ": it cannot be compared."))


#: Which honest limit a single run's headline names, the first that applies in this order.
HEADLINE_LIMIT_PRIORITY = (
    "small_sample",
    "unjudged",
    "judge_error",
    "missing",
    "excluded",
    "union",
    "repeats",
)

#: Each limit as the headline says it, in one sentence; ``{n}`` scored queries, ``{k}`` the cutoff.
HEADLINE_LIMITS = {
    "small_sample": "The main limit: only {n} scored queries, so the band is wide and a difference smaller "
    "than it is not evidence.",
    "unjudged": "The main limit: some of its top-{k} results were never judged and count as not relevant, "
    "so the figure may be understated.",
    "judge_error": "The main limit: the labels come from a judge that makes mistakes, and they carry into "
    "every figure.",
    "missing": "The main limit: the run has no answer for some judged queries, which count as empty.",
    "excluded": "The main limit: some queries have no answer marked relevant and are not scored as the others are.",
    "union": "The main limit: the retriever has no single top {k}; what was scored is the union of its steps.",
    "repeats": "The main limit: the run repeats some results, which score nothing.",
}
#: What the headline says when no limit of the priority list applies.
HEADLINE_SCOPE = "It holds for this query set, this label set and K = {k} only."


def headline_limit(keys: Sequence[str], scored: int, k: int) -> tuple[str | None, str]:
    """The most important honest limit of a run (the first of :data:`HEADLINE_LIMIT_PRIORITY` among
    ``keys``, the limits that apply) as (its key, one sentence); (None, the scope) when none does."""
    key = next((key for key in HEADLINE_LIMIT_PRIORITY if key in keys), None)
    template = HEADLINE_SCOPE if key is None else HEADLINE_LIMITS[key]
    return key, template.format(n=count(scored), k=k)


def headline_single(
    run: str,
    metric: str,
    value: float | None,
    low: float | None,
    high: float | None,
    scored: int,
    confidence: float,
    limit: str,
) -> Text:
    """A single run's headline: its primary figure with its band, then its most important limit."""
    return Text(
        (
            Quoted(run),
            f" scores {decimal(value)} {metric} ({percent(confidence)} band {decimal(low)} to {decimal(high)}) "
            f"over {count(scored)} scored quer{'y' if scored == 1 else 'ies'}. {limit}",
        )
    )


def headline_caption(several: bool, metric: str, baseline: str | None, confidence: float) -> str:
    """What the forest plot under the headline shows."""
    if several:
        return (
            f"Each run's difference in {metric} from {baseline}, with its {percent(confidence)} band; "
            f"a band clear of the line at 0 is a difference the data supports."
        )
    return f"{metric} with its {percent(confidence)} band."


def forest_title(metric: str, baseline: str | None) -> str:
    return f"Difference in {metric} from {baseline}" if baseline is not None else f"{metric} with its band"


SCORED_FINGERPRINTS = "Full fingerprints (sha256)"
