"""The words of the history (``ragreport publish``): its page, its drift sentences and its trends."""

from __future__ import annotations

from collections.abc import Sequence

from .charts import trend_break_mark
from .comparison import DRIFT_NO_PAIRS, DRIFT_VERDICTS
from .numbers import Text, band_words, counted, decimal, listed, p_value, percent, said, short_hash, signed

#: The link from a published report's pages back to its history.
HISTORY_NAV = "History"
HISTORY_TITLE = "Evaluation history"
HISTORY_FIRST = "This is the history's first report: there is nothing earlier to compare it with."
HISTORY_HEADERS = ("report", "runs: primary metric with its band", "since the previous report", "query and label sets")
HISTORY_DATA_LINK = "history.json"
#: A set that differs from the report before it, as the history table marks it.
HISTORY_CHANGED = "changed"


def history_lede(reports: int, newest: str, date: str, published: str) -> Text:
    when = f"dated {date}" if date == published else f"dated {date}, published {published}"
    return said(f"{counted(reports, 'report')}, newest first. The newest is {{newest}}", newest=newest) + f", {when}."


def history_since(previous: str, *, kept: bool, replaced: bool) -> Text:
    """Which report a drift was measured against, and whether that report is still the one shown."""
    tail = ""
    if not kept:
        tail = " (no longer kept)"
    elif replaced:
        tail = " (as it was then: it has been published again since)"
    return said(f"Against {{previous}}{tail}:", previous=previous)


#: A drift verdict as the history says it: the drift's words, the tested ones shorter (no level).
HISTORY_DRIFT_WORDS = {
    **DRIFT_VERDICTS,
    "better": ("▲ higher now", "better"),
    "worse": ("▼ lower now", "worse"),
    "band above 0": ("higher by the band, but not confirmed by the corrected p ({p})", "band-only"),
    "band below 0": ("lower by the band, but not confirmed by the corrected p ({p})", "band-only"),
}


def history_drift(
    run: str,
    metric: str,
    then: float | None,
    now: float | None,
    delta: float | None,
    low: float | None,
    high: float | None,
    verdict_name: str | None,
    p_adjusted: float | None,
) -> tuple[Text, str]:
    """One run's drift on the primary metric in one sentence, and its CSS class."""
    if verdict_name is None:
        words, css = DRIFT_NO_PAIRS, "unclear"
    else:
        words, css = HISTORY_DRIFT_WORDS[verdict_name]
        words = words.format(p=p_value(p_adjusted))
    figures = f"{decimal(then)} then, {decimal(now)} now, {signed(delta)} ({band_words(low, high)})"
    return said("{run}: ", run=run) + f"{metric} {figures}: {words}.", css


def history_unchanged(run: str, metric: str, value: float | None) -> Text:
    return said("{run}: ", run=run) + f"every per-query score is as it was ({metric} {decimal(value)})."


def history_no_drift(reasons: Sequence[str]) -> Text:
    """Why no drift is shown (the drift's own sentences, which name the runs; the page escapes them)."""
    return Text(
        (f"No drift can be claimed {'; '.join(reasons)}. Figures on another query set or label set do not compare.",)
    )


def history_fingerprints(queries: str, labels: str) -> tuple[str, str]:
    return f"queries {short_hash(queries)}", f"labels {short_hash(labels)}"


def trend_title(metric: str) -> str:
    return f"{metric} across reports"


def score_trend_caption(confidence: float) -> str:
    """Above the external scores' trends: who computed them, and that a change of scale breaks a line."""
    return (
        f"Each run's mean of each score computed outside ragreport (--scores), in each report, with its "
        f"{percent(confidence)} band (Wilson's for 0/1 scores, else the bootstrap); ragreport computed the "
        f"means and bands only. A line breaks where the query set, the label set, K, a convention or the "
        f"score's scale changed."
    )


def trend_caption(metric: str, confidence: float) -> str:
    return (
        f"Each run's mean {metric} in each report, with its {percent(confidence)} band. Where the "
        f"query set, the label set, K or a convention changed between two reports, the line is broken "
        f"and the change is named: figures on either side do not compare."
    )


#: What can change between two reports so that their figures do not compare, in the order named.
TREND_BREAK_KINDS = ("query set", "label set", "K", "conventions", "scale")


def trend_break(before: str, after: str, kinds: Sequence[str], runs: Sequence[str], every: bool) -> Text:
    """A break of the trend lines explained: between which reports, what changed, for which runs."""
    what = trend_break_mark(kinds).removesuffix(" changed")
    return (
        said(f"Between {{before}} and {{after}} the {what} changed for ", before=before, after=after)
        + (Text(("every run",)) if every else listed(runs))
        + ": the line is broken there."
    )


def history_title(title: str) -> str:
    return f"{title}: history"
