"""The headline: the verdict first, in words a stakeholder reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .numbers import Text, band_words, count, counted, decimal, listed, p_value, percent, said, signed

#: Each comparison verdict as the headline says it; ``{p}`` is the corrected p.
HEADLINE_VERDICTS = {
    "better": "clearly better",
    "worse": "clearly worse",
    "better below margin": "better, but by less than the margin ({margin}): the whole band lies under it",
    "worse below margin": "worse, but by less than the margin ({margin}): the whole band lies under it",
    "equivalent": "practically the same: the whole band lies within ±{margin} (two one-sided tests)",
    "band above 0": "no clear difference: better by the band, but not confirmed by the corrected p ({p})",
    "band below 0": "no clear difference: worse by the band, but not confirmed by the corrected p ({p})",
    "unclear": "no clear difference",
}

#: The forest plot's axis when its rows are differences: short enough for a phone's width (the
#: chart's title names the baseline).
FOREST_AXIS_DIFFERENCE = "{metric}, run minus baseline"


def headline_verdict(name: str, p_adjusted: float | None, margin: float | None = None) -> str:
    """A comparison's verdict in a manager's words; ``margin`` the ``--min-effect`` a negligible
    verdict is read against."""
    return HEADLINE_VERDICTS[name].format(p=p_value(p_adjusted), margin=decimal(margin))


def effect_sentence(entry: Any) -> str:
    """A compared run's standardised effect on its page, beside the difference (a headline entry:
    ``metric``, ``effect``, ``effect_low``, ``effect_high``)."""
    if entry.effect is None:
        return f"Standardised effect on {entry.metric}: undefined (the per-query differences do not vary)."
    undefined = entry.effect_low is None or entry.effect_high is None
    band = "its band undefined" if undefined else band_words(entry.effect_low, entry.effect_high)
    return (
        f"Standardised effect on {entry.metric}: d_z {signed(entry.effect)} ({band}), the mean difference over "
        "the per-query differences' standard deviation."
    )


def margin_note(margin: float, metric: str) -> str:
    """Said once under the headline of a comparison: the margin the verdicts weigh differences against."""
    return f"A difference under {margin:g} {metric} is treated as negligible."


def _verdict_tail(
    verdict_name: str,
    p_adjusted: float | None,
    margin: float | None,
    hidden: Mapping[str, Any] | None,
    confidence: float,
) -> Text:
    """A headline's verdict in words, and the slice the average hides (``hidden``) in the same sentence."""
    verdict = headline_verdict(verdict_name, p_adjusted, margin)
    if hidden is None:
        return Text((f"{verdict}.",))
    return Text((f"{verdict} overall, but ",)) + slice_clause(hidden, confidence) + "."


def _both_scored(shared: int | None) -> str:
    return "" if shared is None else f" on the {counted(shared, 'query')} both scored"


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
    hidden: Mapping[str, Any] | None = None,
    margin: float | None = None,
) -> Text:
    """One run against the baseline in one sentence: the figures, the difference with its band, the
    queries won and lost, and the verdict in words. ``shared``: the queries both scored, said when
    the two runs did not score the same ones (each figure is then over its own run's queries, the
    difference over the shared ones). ``hidden``: the figures of a ``slice`` caveat, said in the
    same sentence ("clearly better overall, but clearly worse where ...")."""
    return said(
        f"{{run}} scores {decimal(value)} {metric} against {{baseline}}'s {decimal(baseline_value)}: {signed(delta)}"
        f"{_both_scored(shared)} ({band_words(low, high, confidence)}), better on {counted(wins, 'query')} and "
        f"worse on {count(losses)} — ",
        run=run,
        baseline=baseline,
    ) + _verdict_tail(verdict_name, p_adjusted, margin, hidden, confidence)


def audited_queries(n: int) -> str:
    """ "the 40 audited queries" (one: "the 1 audited query")."""
    return f"the {counted(n, 'audited query')}"


def headline_corrected_sentence(
    run: str,
    baseline: str,
    metric: str,
    corrected: tuple[float, float, float, float, float],
    verdict_name: str,
    p_adjusted: float | None,
    audited: int,
    model: tuple[float | None, float | None, float, float, float],
    wins: int,
    losses: int,
    confidence: float,
    shared: int | None = None,
    hidden: Mapping[str, Any] | None = None,
    margin: float | None = None,
) -> Text:
    """A compared run's headline with an audit (docs/conventions.md section 25.7): the corrected
    figures and difference first, said to be corrected by the audited queries, with the verdict read
    off them; then the same on the model's labels alone, with the queries won and lost. Each tuple
    is (run's figure, baseline's, difference, low, high)."""
    value, base_value, delta, low, high = corrected
    m_value, m_base, m_delta, m_low, m_high = model
    return (
        said(
            f"{{run}} scores {decimal(value)} {metric} against {{baseline}}'s {decimal(base_value)} once corrected "
            f"by {audited_queries(audited)}: {signed(delta)} ({band_words(low, high, confidence)}) — ",
            run=run,
            baseline=baseline,
        )
        + _verdict_tail(verdict_name, p_adjusted, margin, hidden, confidence)
        + f" On the model's labels alone: {decimal(m_value)} against {decimal(m_base)}, {signed(m_delta)}"
        f"{_both_scored(shared)} ({band_words(m_low, m_high, confidence)}), better on {counted(wins, 'query')} "
        f"and worse on {count(losses)}."
    )


# --- The first screen: a line of summary, a line a run, a line a caveat (issue 38) -----------------

#: A verdict in a run's line on the first screen: a few words and no test's name (the sentence in
#: the details says the rest).
LINE_VERDICTS = {
    "better": "clearly better",
    "worse": "clearly worse",
    "better below margin": "better, below the margin",
    "worse below margin": "worse, below the margin",
    "equivalent": "practically the same",
    "band above 0": "no clear difference",
    "band below 0": "no clear difference",
    "unclear": "no clear difference",
}
BASELINE_MARK = "baseline"
VERDICT_HEADER = "verdict"
NOT_COMPARED = "cannot be compared"
#: The most characters a line of the first screen may take, run names included.
LINE_MOST = 160


def summary_pair(
    run: str,
    baseline: str,
    metric: str,
    verdict_name: str,
    delta: float | None,
    low: float | None,
    high: float | None,
    confidence: float,
) -> Text:
    """The first line of a two-run report: the compared run's verdict against the baseline with its
    difference and band ("rankbm25 is clearly worse than bm25 on nDCG@10: -0.121, 95% band -0.164 to
    -0.081.")."""
    figures = f" on {metric}: {signed(delta)}, {band_words(low, high, confidence)}."
    return said(PAIR_LINES.get(verdict_name, PAIR_UNCLEAR) + figures, run=run, baseline=baseline)


#: The first line of a two-run report by verdict, before its figures (``{run}``, ``{baseline}``: the names).
PAIR_LINES = {
    "better": "{run} is clearly better than {baseline}",
    "worse": "{run} is clearly worse than {baseline}",
    "better below margin": "{run} is better than {baseline}, but by less than the margin",
    "worse below margin": "{run} is worse than {baseline}, but by less than the margin",
    "equivalent": "{run} and {baseline} are practically the same",
}
PAIR_UNCLEAR = "{run} and {baseline} show no clear difference"


def summary_tiers(metric: str, tiers: Text) -> Text:
    """The first line of a report of three or more runs: the tiers on the primary metric ("On
    nDCG@10, bm25 and dense are tied first; tfidf is third.")."""
    return Text((f"On {metric}, ", *tiers.parts))


def summary_best(run: str, metric: str, value: float | None) -> Text:
    """The first line of a report of three or more runs, when no tiers are drawn."""
    return said(f"Highest {metric}: {{run}} ({decimal(value)}).", run=run)


def difference_header(baseline: str, confidence: str) -> str:
    """The run lines' difference column: "vs bm25 (95% band)"."""
    return f"vs {baseline} ({confidence} band)"


def run_lines_caption(metric: str, baseline: str, confidence: str) -> str:
    """The run lines' columns in a sentence (a phone shows them without their header)."""
    return f"{metric} · vs {baseline} ({confidence} band)"


def screen_family_note(metric: str, pairs: int, baseline: str, compared: int) -> str:
    """Why a line above may read more firmly than its sentence below, when several runs are ranked."""
    return (
        f"The lines above weigh {metric} alone, corrected over the {count(pairs)} pairs of runs as the ranking "
        f"is; the sentences below weigh every metric against {baseline}, {count(compared)} comparisons "
        "corrected together, and may read more cautiously."
    )


def line_figures(delta: float | None, low: float | None, high: float | None) -> tuple[str, str]:
    """A run line's difference and its band ("+0.013", "-0.027 to +0.053")."""
    if delta is None:
        return "", ""
    return signed(delta), f"{signed(low)} to {signed(high)}"


def _short_ids(run: str, figures: Mapping[str, Any]) -> Text:
    one = len(figures["missed"]) == 1
    return listed([str(missed["run"]) for missed in figures["missed"]], " and ") + (
        f" match{'es' if one else ''} no judged id: {'its' if one else 'their'} ids may be spelled "
        "otherwise than the judgments' (doc-17, D17)."
    )


def _short_labels(run: str, figures: Mapping[str, Any]) -> Text:
    said_then = LINE_VERDICTS.get(figures["model_verdict"], LINE_VERDICTS["unclear"])
    now = LINE_VERDICTS.get(figures["verdict"], LINE_VERDICTS["unclear"])
    audited = audited_queries(int(figures["queries"]))
    return said(f"{{run}}: {said_then} on the model's labels, {now} once corrected by {audited}.", run=run)


def _short_slice(run: str, figures: Mapping[str, Any]) -> Text:
    return said(
        f"{{run}} is {LINE_VERDICTS[figures['verdict']]} where {{key}} is {{value}} "
        f"({counted(int(figures['queries']), 'query')}), {signed(figures['delta'])}.",
        run=run,
        key=str(figures["key"]),
        value=str(figures["value"]),
    )


#: How a line says each reading of unjudged ids.
READING_IFS = {
    "condensed": "if the unjudged ids are left out",
    "unjudged_at_rate": "if unjudged ids are relevant at the rate judged ones are",
    "unjudged_relevant": "if every unjudged id is relevant",
}


def _short_unjudged(run: str, figures: Mapping[str, Any]) -> Text:
    flip = figures["flips"][0]
    now = LINE_VERDICTS.get(flip["verdict"], LINE_VERDICTS["unclear"])
    return said(f"{{run}}: {READING_IFS[flip['reading']]}, it is {now} ({signed(flip['delta'])}).", run=run)


def _short_power(run: str, figures: Mapping[str, Any]) -> Text:
    n, seen = counted(int(figures["queries"]), "query"), figures.get("detectable")
    if seen is None:
        clause = f"{n} are too few to show a difference of any size"
    else:
        clause = f"{n} can only show differences of {decimal(seen)} or more"
    needed = figures.get("queries_needed")
    tail = "" if needed is None else f"; about {count(int(needed))} would show {decimal(figures['min_effect'])}"
    return said(f"{{run}}: {clause}{tail}.", run=run)


#: Each caveat kind in one short line of the first screen (at most :data:`LINE_MOST` characters
#: with a run name of 30): the full sentence is in the details.
SHORT_CAVEATS: dict[str, Callable[[str, Mapping[str, Any]], Text]] = {
    "ids": _short_ids,
    "labels": _short_labels,
    "slice": _short_slice,
    "unjudged": _short_unjudged,
    "power": _short_power,
}


def short_caveat(kind: str, run: str, figures: Mapping[str, Any]) -> Text:
    """A caveat on the first screen, in one line naming the run it is about."""
    return SHORT_CAVEATS[kind](run, figures)


# --- Caveats: what could overturn a verdict (docs/conventions.md section 20.4) -----------------------

#: How each reading of unjudged ids is named in a sentence.
READING_NAMES = {
    "unjudged_relevant": "with every unjudged id in the top {k} read as relevant",
    "condensed": "with the unjudged ids removed before the cut at {k} (condensed)",
    "unjudged_at_rate": "with the unjudged ids in the top {k} read as relevant as often as judged ids at the same "
    "ranks are",
}
#: Said once when every run's judgments list relevant ids alone (docs/conventions.md section 20.2).
RELEVANT_ONLY_NOTE = (
    "The judgments list only relevant ids, so every other id counts as not relevant, as the collection intends."
)


def slice_clause(figures: Mapping[str, Any], confidence: float) -> Text:
    """ "clearly worse where topic is networking (100 queries): -0.275 (95% band -0.329 to -0.218)"."""
    more = int(figures.get("more", 0))
    others = f", and {counted(more, 'more slice')} go the same way" if more else ""
    return said(
        f"{HEADLINE_VERDICTS[figures['verdict']]} where {{key}} is {{value}} "
        f"({counted(int(figures['queries']), 'query')}): {signed(figures['delta'])} "
        f"({band_words(figures['low'], figures['high'], confidence)}){others}",
        key=str(figures["key"]),
        value=str(figures["value"]),
    )


def _slice_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    return Text(("The average hides it: ",)) + slice_clause(figures, confidence) + "."


def _unjudged_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    k = int(figures["k"])
    text = Text(())
    mostly = figures.get("mostly", ())
    if mostly:
        text += f"Most of the filled top-{k} slots hold ids nobody judged, so the figures rest on few labels: "
        for i, run in enumerate(mostly):
            amount = unjudged_amount(int(run["unjudged"]), int(run["slots"]))
            text += said(f"{'; ' if i else ''}{{run}} {amount}", run=str(run["run"]))
        text += "."
    said_flips = [
        f"{READING_NAMES[f['reading']].format(k=k)} it is {signed(f['delta'])} "
        f"({band_words(f['low'], f['high'], confidence)}), "
        + headline_verdict(f["verdict"], f["p_adjusted"], figures.get("min_effect"))
        for f in figures.get("flips", ())
    ]
    if said_flips:
        text += f"{' ' if mostly else ''}The verdict depends on the unjudged ids: {'; '.join(said_flips)}."
    return text


def _power_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    """ "... with 300 queries this comparison could only detect differences of 0.031 or more (80% power)"."""
    n, detectable = counted(int(figures["queries"]), "query"), figures.get("detectable")
    clause = f"with {n} this comparison could " + (
        "not detect a difference of any size at the corrected level"
        if detectable is None
        else f"only detect differences of {decimal(detectable)} or more ({float(figures['power']):.0%} power)"
    )
    needed = figures.get("queries_needed")
    if needed is not None:
        clause += f"; detecting {decimal(figures['min_effect'])} would take about {counted(int(needed), 'query')}"
    return Text((f"No clear difference does not mean the same: {clause}.",))


def _ids_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    text = Text(())
    for i, run in enumerate(figures["missed"]):
        n = int(run["queries"])
        text += said(
            f"{' ' if i else ''}{{run}} retrieves no judged id on "
            f"{'its one query' if n == 1 else f'any of its {count(n)} queries'}: its figures are 0, whether it "
            "missed every time or spells the ids otherwise than the judgments (doc-17 against D17).",
            run=str(run["run"]),
        )
    return text


def _labels_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    # the model's verdict as a decision: a band-only one (or none) is no clear difference
    said = HEADLINE_VERDICTS[figures["model_verdict"] if figures["model_verdict"] in ("better", "worse") else "unclear"]
    verdict = figures["verdict"] if figures["verdict"] in HEADLINE_VERDICTS else "unclear"
    now = headline_verdict(verdict, figures.get("p_adjusted"), figures.get("min_effect"))
    return Text(()) + (
        f"{said[0].upper()}{said[1:]} on the model's labels; once corrected by "
        f"{audited_queries(int(figures['queries']))}, {now} "
        f"({signed(figures['delta'])}, {band_words(figures['low'], figures['high'], confidence)})."
    )


#: Each caveat kind's sentence from its figures (and the report's confidence): one entry a kind.
CAVEAT_SENTENCES: dict[str, Callable[[Mapping[str, Any], float], Text]] = {
    "ids": _ids_sentence,
    "labels": _labels_sentence,
    "slice": _slice_sentence,
    "unjudged": _unjudged_sentence,
    "power": _power_sentence,
}


def caveat_sentence(kind: str, figures: Mapping[str, Any], confidence: float) -> Text:
    return CAVEAT_SENTENCES[kind](figures, confidence)


def robust_sentence(run_deltas: Sequence[tuple[str, float]], k: int) -> str:
    """The sentence under the headline when unjudged ids are in play and no plausible reading of them
    changes the verdict (each given with its difference)."""
    said = "; ".join(f"{READING_NAMES[name].format(k=k)}, {signed(delta)}" for name, delta in run_deltas)
    return f"The verdict holds under every plausible reading of the unjudged ids ({said})."


def headline_not_compared(run: str, baseline: str, judged_apart: bool = False) -> Text:
    """The headline of a run that shares no scored query with the baseline, or (``judged_apart``)
    none judged alike: every query both scored was judged differently by their two label sets."""
    if judged_apart:
        template = "{run} and {baseline} were judged differently on every query both scored: they cannot be compared."
    else:
        template = "{run} shares no scored query with {baseline}: it cannot be compared."
    return said(template, run=run, baseline=baseline)


#: Each limit as the headline says it after "The main limit: ", in the order a single run's headline
#: picks the first that applies; ``{n}`` scored queries, ``{k}`` the cutoff.
HEADLINE_LIMITS = {
    "small_sample": "only {n} scored queries, so the band is wide and a difference smaller than it is not evidence.",
    "unjudged": "{unjudged} of its top-{k} results were never judged and count as not relevant, so the figure "
    "may be understated.",
    "judge_error": "the labels come from a judge that makes mistakes, and they carry into every figure.",
    "missing": "the run has no answer for some judged queries, which count as empty.",
    "excluded": "some queries have no answer marked relevant and are not scored as the others are.",
    "union": "the retriever has no single top {k}; what was scored is the union of its steps.",
    "repeats": "the run repeats some results, which score nothing.",
}
HEADLINE_LIMIT_PRIORITY = tuple(HEADLINE_LIMITS)
#: What the headline says when no limit of the priority list applies.
HEADLINE_SCOPE = "It holds for this query set, this label set and K = {k} only."


def unjudged_amount(unjudged: int, filled: int) -> str:
    """How many of the filled top-K slots are unjudged, never "some" when it is all: "all 5,000",
    "4,100 of 5,000 (82.0%)"."""
    if filled and unjudged == filled:
        return f"all {count(filled)}"
    share = f" ({100.0 * unjudged / filled:.1f}%)" if filled else ""
    return f"{count(unjudged)} of {count(filled)}{share}"


def headline_limit(
    keys: Sequence[str], scored: int, k: int, *, unjudged: int = 0, filled: int = 0
) -> tuple[str | None, str]:
    """The most important honest limit of a run (the first of :data:`HEADLINE_LIMIT_PRIORITY` among
    ``keys``, the limits that apply) as (its key, one sentence); (None, the scope) when none does.
    ``unjudged`` of the ``filled`` top-K slots of the scored queries hold unjudged ids."""
    key = next((key for key in HEADLINE_LIMIT_PRIORITY if key in keys), None)
    template = HEADLINE_SCOPE if key is None else "The main limit: " + HEADLINE_LIMITS[key]
    return key, template.format(n=count(scored), k=k, unjudged=unjudged_amount(unjudged, filled))


def headline_single(
    run: str,
    metric: str,
    value: float | None,
    low: float | None,
    high: float | None,
    scored: int,
    confidence: float,
    limit: str,
    halving: int | None = None,
    corrected: tuple[int, float, float, float] | None = None,
) -> Text:
    """A single run's headline: its primary figure with its band (and the scored queries that would
    halve it: a band narrows as 1 / sqrt(queries)), then its most important limit. With
    ``corrected`` (the audited queries and the corrected mean with its band; docs/conventions.md
    section 25.7) the figure is said to be the model's labels', and the corrected one follows it."""
    labels = ""
    if corrected is not None:
        audited, c_value, c_low, c_high = corrected
        labels = (
            f" on the model's labels; once corrected by {audited_queries(audited)}, {decimal(c_value)} "
            f"({band_words(c_low, c_high, confidence, decimal)})"
        )
    halves = "" if halving is None else f"; {count(halving)} (four times as many) would halve the band"
    return (
        said(
            f"{{run}} scores {decimal(value)} {metric} ({band_words(low, high, confidence, decimal)}) over "
            f"{counted(scored, 'scored query')}{labels}{halves}. ",
            run=run,
        )
        + limit
    )


def headline_caption(
    several: bool, metric: str, baseline: str | None, confidence: float, corrected: bool = False
) -> str:
    """What the forest plot under the headline shows (``corrected``: the differences the audit
    corrected, which the headline leads with; docs/conventions.md section 25.7)."""
    if several:
        how = " once corrected by the audit of the model's labels" if corrected else ""
        return (
            f"Each run's difference in {metric} from {baseline}{how}, with its {percent(confidence)} band; "
            f"a band clear of the line at 0 is a difference the data supports."
        )
    return f"{metric} with its {percent(confidence)} band."


def forest_title(metric: str, baseline: str | None) -> str:
    return f"Difference in {metric} from {baseline}" if baseline is not None else f"{metric} with its band"
