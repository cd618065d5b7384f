"""Honest limits (docs/conventions.md section 8): statements written from a run's own data and metadata.

Each rule looks at one :class:`~ragreport.analysis.summary.RunSummary` and returns a :class:`Limit` when
it applies, or ``None``; the report shows only those that apply, each with the run's own figures.

The day a run is tied to (:func:`run_date`) and the day a report is built (:func:`build_day`) are
here too: the limits date runs, and so do the pages.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import UsageError
from ..core.model import Denominator, LabelSource, Missing, NoRelevant, RetrieverKind
from ..scoring.catalogue import COMPARED, JUDGED, PRECISION, RECALL, SUITE, IntervalMethod

if TYPE_CHECKING:
    from .summary import RunSummary


#: Below this many scored queries the report says outright that the sample is small.
SMALL_QUERY_COUNT = 50


@dataclass(frozen=True)
class Limit:
    """One statement: a stable key (tests and CSS use it), a short title and the full text."""

    key: str
    title: str
    text: str

    def as_dict(self) -> dict[str, str]:
        return {"key": self.key, "title": self.title, "text": self.text}


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _ids(found: tuple[int, tuple[str, ...]]) -> str:
    """``q1, q2, q3, q4, q5 and 12 more`` of :attr:`Facts.ids`' (how many, the first ones)."""
    many, first = found
    return ", ".join(first) + (f" and {many - len(first):,} more" if many > len(first) else "")


def unjudged_share(summary: RunSummary) -> tuple[int, int]:
    """(unjudged, filled) top-K slots of the scored queries, repeats aside."""
    filled, unjudged, _ = summary.facts.slots
    return unjudged, filled


def unjudged_in_top_k(summary: RunSummary, today: _dt.date) -> Limit | None:
    """Unjudged ids in the filled top-K slots, pooled over the scored queries, and the Judged@K mean.

    The two differ on purpose: the pooled share sets empty slots aside, Judged@K divides each
    query by K (an empty slot is unjudged there), then averages over the queries. Not a limit of
    judgments that list relevant ids alone: their other ids are not relevant by design (the report
    says so once, docs/conventions.md section 20.2).
    """
    unjudged, slots = unjudged_share(summary)
    if unjudged == 0 or summary.judged.relevant_only:
        return None
    k = summary.k
    text = (
        f"{unjudged:,} of the {slots:,} filled top-{k} slots of the scored queries (repeats aside; "
        f"{100.0 * unjudged / slots:.1f}%) {'holds an id' if unjudged == 1 else 'hold ids'} that nobody judged. "
        f"They count as not relevant, so if any of them is relevant, "
        f"Precision@{k}, Recall@{k} and nDCG@{k} are understated; an incomplete judged pool also "
        f"undercounts R and can misplace the ideal ranking behind nDCG. {JUDGED.label(k)}, the mean share "
        f"of each scored query's top {k} that holds a judged id (an empty slot or a repeat counting as "
        f"unjudged), is {summary.at_k[JUDGED.label(k)].mean:.3f}."
    )
    if summary.judged.meta.pool_depth is not None:
        text += f" The metadata gives a judging pool depth of {summary.judged.meta.pool_depth}."
    return Limit("unjudged", "Scores trust the labels", text)


def judge_error(summary: RunSummary, today: _dt.date) -> Limit | None:
    """A model judge, or any judge whose error rate the metadata states."""
    meta = summary.judged.meta
    model = meta.label_source is LabelSource.MODEL
    if not model and meta.judge_error_rate is None:
        return None
    who = f" ({meta.judge})" if meta.judge else ""
    if model:
        text = f"The labels come from a model judge{who}: its mistakes carry into every figure here."
    else:
        source = "people" if meta.label_source is LabelSource.HUMAN else "the judges"
        text = f"The labels come from {source}{who}, and the metadata states that they err."
    if meta.judge_error_rate is not None:
        labelled = summary.facts.slots[2]
        expected = meta.judge_error_rate * labelled
        shown = f"{expected:,.0f}" if expected >= 10 else f"{expected:.1f}"
        text += (
            f" At the error rate the metadata states ({meta.judge_error_rate:.1%}), about {shown} of the "
            f"{labelled:,} judged top-{summary.k} slots may carry a wrong label."
        )
    else:
        text += " The metadata gives no error rate for it, so its effect cannot be sized."
    return Limit("judge_error", "Labels from a model judge" if model else "Labels with a stated error rate", text)


def scope(summary: RunSummary, today: _dt.date) -> Limit:
    c = summary.counts
    n_labels = summary.facts.labels
    text = (
        f"Every figure holds for K = {summary.k}, for this query set ({_plural(c.queries, 'query', 'queries')}, "
        f"{summary.query_fingerprint[:19]}…), this label set ({_plural(n_labels, 'judgment')}, "
        f"{summary.label_fingerprint[:19]}…) and the run of {run_date(summary, today).isoformat()}. "
        f"Retrieval drift shows only when the same frozen query set is scored again later; one run "
        f"cannot show it."
    )
    return Limit("scope", "Tied to its K, its labels, its queries and its day", text)


def k_dependence(summary: RunSummary, today: _dt.date) -> Limit | None:
    sweep = summary.sweep
    if len(sweep.cutoffs) < 2 or summary.counts.scored == 0:
        return None
    first, last = int(sweep.cutoffs[0]), int(sweep.cutoffs[-1])
    r, p = sweep.mean[RECALL.key], sweep.mean[PRECISION.key]
    if summary.conventions.denominator is Denominator.RELEVANT:
        rule = "Under the default denominator Recall never falls as K grows, while Precision tends to"
    else:
        rule = "Recall@K and Precision@K both move with K (under --denominator min Recall can fall too)"
    if f"{r[0]:.3f}{p[0]:.3f}" != f"{r[-1]:.3f}{p[-1]:.3f}":
        rule += (
            f": here Recall goes from {r[0]:.3f} at K = {first} to {r[-1]:.3f} at K = {last}, and "
            f"Precision from {p[0]:.3f} to {p[-1]:.3f}"
        )
    text = (
        f"{rule}. A gain quoted without its K is not evidence, and runs compare only on the same queries at the same K."
    )
    return Limit("k_dependence", "Every figure depends on K", text)


def query_weights(summary: RunSummary, today: _dt.date) -> Limit | None:
    scored = summary.counts.scored
    if not scored:
        return None
    single, several, most = summary.facts.relevant
    k = summary.k
    text = (
        f"Averages weigh every query equally: of the {_plural(scored, 'scored query', 'scored queries')}, "
        f"{single:,} {'has' if single == 1 else 'have'} a single relevant id and {several:,} "
        f"{'has' if several == 1 else 'have'} several (up to {most:,})."
    )
    over = summary.facts.ids["over_k"]
    if over[0]:
        one = over[0] == 1
        text += (
            f" {_plural(over[0], 'query', 'queries')} ({_ids(over)}) {'has' if one else 'have'} more "
            f"relevant ids than K = {k}"
        )
        if summary.conventions.denominator is Denominator.RELEVANT:
            text += f": {'its' if one else 'their'} Recall@{k} and AP@{k} can never reach 1."
        else:
            text += "; they can reach 1 only because the min(R, K) denominator forgives the relevant ids beyond K."
    return Limit("query_weights", "Every query weighs the same", text)


def union_scored(summary: RunSummary, today: _dt.date) -> Limit | None:
    kind = summary.judged.meta.retriever_kind
    steps = summary.steps
    several = kind in (RetrieverKind.MULTI_HOP, RetrieverKind.AGENTIC)
    if not several and steps is None:
        return None
    said = f"The metadata says the retriever is {kind.value}" if several and kind else "The run gives its steps"
    text = (
        f"{said}: it has no single top-K. What was scored is the "
        f"union of what it pulled, in the order it was scored, cut at K = {summary.k}; a different merge of its "
        f"steps would give different figures."
    )
    if steps is not None:  # the run gave its hops: what the later ones added, from the step figures
        text += (
            f" Over its {len(steps.found)} steps, {steps.found[-1] - steps.found[0]} of the {steps.found[-1]} relevant "
            f"ids in the top {summary.k} were found only by a later hop than the first."
        )
    return Limit("union", "No single top-K", text)


def band_width(summary: RunSummary, today: _dt.date) -> Limit | None:
    n = summary.counts.scored
    if n == 0:
        return None
    # The retrieval metrics' bands (the comparison family): a diagnostic's band says nothing about
    # how precise they are.
    retrieval = {m.label(cutoff) for m in COMPARED for cutoff in summary.cutoffs}
    widths = {label: iv.high - iv.low for label, iv in summary.at_k.items() if label in retrieval}
    narrow = min(widths, key=lambda label: widths[label])
    wide = max(widths, key=lambda label: widths[label])
    spread = f"at K = {summary.k} the bands run from {widths[narrow]:.3f} wide ({narrow}) to "
    spread += f"{widths[wide]:.3f} wide ({wide})"
    share = next((m for m in summary.suite if m.interval is IntervalMethod.WILSON), None)
    if share is not None:
        hit = summary.at_k[share.label(summary.k)]
        spread += f"; {share.label(summary.k)} lies somewhere between {hit.low:.3f} and {hit.high:.3f}"
    spread += "."
    if n < SMALL_QUERY_COUNT:
        return Limit(
            "small_sample",
            f"Only {n} scored quer{'y' if n == 1 else 'ies'}",
            f"{_plural(n, 'scored query', 'scored queries')} certify very little: {spread} "
            f"Differences smaller than the bands are not evidence.",
        )
    return Limit("band_width", "How wide the bands are", f"With {n:,} scored queries, {spread}")


def excluded(summary: RunSummary, today: _dt.date) -> Limit | None:
    none_relevant, unjudged = summary.facts.ids["no_relevant"], summary.facts.ids["unjudged"]
    if not none_relevant[0] and not unjudged[0]:
        return None
    parts = []
    averaged_in = summary.conventions.no_relevant is NoRelevant.ZERO
    if none_relevant[0]:
        one = none_relevant[0] == 1
        fate = (
            "averaged in as 0 on every retrieval metric (--no-relevant zero), which pulls every mean down"
            if averaged_in
            else "left out of every average"
        )
        parts.append(
            f"{_plural(none_relevant[0], 'judged query', 'judged queries')} ({_ids(none_relevant)}) "
            f"{'has' if one else 'have'} no id judged relevant and {'is' if one else 'are'} {fate}: the "
            f"corpus may hold no answer, a finding of its own."
        )
    if unjudged[0]:
        one = unjudged[0] == 1
        parts.append(
            f"{_plural(unjudged[0], 'query', 'queries')} of the run ({_ids(unjudged)}) "
            f"{'has' if one else 'have'} no judgments at all and {'is' if one else 'are'} left out of "
            f"every average: nobody judged {'it' if one else 'them'}."
        )
    title = "Queries with no relevant id" if not unjudged[0] else "Queries that cannot be scored"
    return Limit("excluded", title, " ".join(parts))


def missing(summary: RunSummary, today: _dt.date) -> Limit | None:
    ids = summary.facts.ids["missing"]
    if not ids[0]:
        return None
    if summary.conventions.missing is Missing.ZERO:
        how = "each is scored as an empty list, 0 on every metric (trec_eval -c)"
    else:
        how = "they are left out of every average (trec_eval without -c), which flatters the run"
    return Limit(
        "missing",
        "Judged queries the run lacks",
        f"The run has no entry for {_plural(ids[0], 'judged query', 'judged queries')} ({_ids(ids)}): {how}.",
    )


def repeats(summary: RunSummary, today: _dt.date) -> Limit | None:
    c = summary.counts
    if c.repeats == 0:
        return None
    ids = summary.facts.ids["repeats"]
    return Limit(
        "repeats",
        "Repeated ids",
        f"{_plural(c.repeats, 'repeated id')} in {_plural(c.queries_with_repeats, 'query', 'queries')} "
        f"({_ids(ids)}) {'keeps its slot' if c.repeats == 1 else 'keep their slots'} and "
        f"score{'s' if c.repeats == 1 else ''} nothing, costing Precision like a wrong id; trec_eval would "
        f"refuse this run.",
    )


def absent(summary: RunSummary, today: _dt.date) -> Limit | None:
    """Suite metrics a stored report does not hold: it was made before they were added to the suite
    (docs/conventions.md section 26). Its pages leave them out; said once, here."""
    left_out = [m.label(summary.k) for m in SUITE if m not in summary.scores.metrics]
    if not left_out:
        return None
    return Limit(
        "absent",
        f"No {', '.join(left_out)}",
        f"The report.json this report was rendered from was made before {', '.join(left_out)} joined the "
        f"suite: its pages leave {'it' if len(left_out) == 1 else 'them'} out. Build the report again from "
        "its run files to show every metric.",
    )


#: Every rule, in the order the report lists what applies.
RULES: tuple[Callable[[RunSummary, _dt.date], Limit | None], ...] = (
    absent,
    unjudged_in_top_k,
    judge_error,
    scope,
    k_dependence,
    query_weights,
    union_scored,
    band_width,
    excluded,
    missing,
    repeats,
)


def limits(summary: RunSummary, today: _dt.date) -> tuple[Limit, ...]:
    """The statements that apply to ``summary``; ``today`` dates a run whose metadata has no date."""
    found = (rule(summary, today) for rule in RULES)
    return tuple(limit for limit in found if limit is not None)


def run_date(summary: RunSummary, fallback: _dt.date) -> _dt.date:
    """The day the run is tied to: its metadata ``date``, else ``fallback``."""
    meta_date = summary.judged.meta.date
    if isinstance(meta_date, _dt.datetime):
        return meta_date.date()
    return meta_date or fallback


def build_day(env: Mapping[str, str] | None = None) -> _dt.date:
    """``SOURCE_DATE_EPOCH`` as a UTC date when set (reproducible builds), else today."""
    source = os.environ if env is None else env
    epoch = source.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc).date()
        except (ValueError, OverflowError, OSError):
            raise UsageError(f"SOURCE_DATE_EPOCH must be a whole number of seconds, got {epoch!r}") from None
    return _dt.date.today()
