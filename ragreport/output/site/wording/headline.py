"""The headline: the verdict first, in words a stakeholder reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .numbers import Quoted, Text, count, decimal, p_value, percent, signed

# --- The headline: the verdict first, in words a stakeholder reads ---------------------------------

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

HEADLINE_TITLE = "The verdict"
#: The link from a headline sentence to the figures behind it.
HEADLINE_DETAILS = "The details"
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
    band = (
        "its band undefined"
        if entry.effect_low is None or entry.effect_high is None
        else f"band {signed(entry.effect_low)} to {signed(entry.effect_high)}"
    )
    return (
        f"Standardised effect on {entry.metric}: d_z {signed(entry.effect)} ({band}), the mean difference over "
        "the per-query differences' standard deviation."
    )


def margin_note(margin: float, metric: str) -> str:
    """Said once under the headline of a comparison: the margin the verdicts weigh differences against."""
    return f"A difference under {margin:g} {metric} is treated as negligible."


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
    hidden: Mapping[str, Any] | None = None,
    margin: float | None = None,
) -> Text:
    """One run against the baseline in one sentence: the figures, the difference with its band, the
    queries won and lost, and the verdict in words. ``shared``: the queries both scored, said when
    the two runs did not score the same ones (each figure is then over its own run's queries, the
    difference over the shared ones). ``hidden``: the figures of a ``slice`` caveat, said in the
    same sentence ("clearly better overall, but clearly worse where ...")."""
    on = "" if shared is None else f" on the {_queries(shared)} both scored"
    verdict = headline_verdict(verdict_name, p_adjusted, margin)
    tail: tuple[str, ...] = (f"{verdict}.",)
    if hidden is not None:
        tail = (f"{verdict} overall, but ", *slice_clause(hidden, confidence), ".")
    return Text(
        (
            Quoted(run),
            f" scores {decimal(value)} {metric} against ",
            Quoted(baseline),
            f"'s {decimal(baseline_value)}: {signed(delta)}{on} ({percent(confidence)} band {signed(low)} to "
            f"{signed(high)}), better on {_queries(wins)} and worse on {count(losses)} — ",
            *tail,
        )
    )


def audited_queries(n: int) -> str:
    """ "the 40 audited queries" (one: "the 1 audited query")."""
    return f"the {count(n)} audited quer{'y' if n == 1 else 'ies'}"


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
    on = "" if shared is None else f" on the {_queries(shared)} both scored"
    verdict = headline_verdict(verdict_name, p_adjusted, margin)
    tail: tuple[str, ...] = (f"{verdict}.",)
    if hidden is not None:
        tail = (f"{verdict} overall, but ", *slice_clause(hidden, confidence), ".")
    band = percent(confidence)
    return Text(
        (
            Quoted(run),
            f" scores {decimal(value)} {metric} against ",
            Quoted(baseline),
            f"'s {decimal(base_value)} once corrected by {audited_queries(audited)}: {signed(delta)} ({band} "
            f"band {signed(low)} to {signed(high)}) — ",
            *tail,
            f" On the model's labels alone: {decimal(m_value)} against {decimal(m_base)}, {signed(m_delta)}{on} "
            f"({band} band {signed(m_low)} to {signed(m_high)}), better on {_queries(wins)} and worse on "
            f"{count(losses)}.",
        )
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
#: The first screen's parts, as a screen reader and the details' summary name them.
FIRST_CAVEATS_TITLE = "What could change the decision"
FIRST_DETAILS = "The figures behind these lines"
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
    figures = f" on {metric}: {signed(delta)}, {percent(confidence)} band {signed(low)} to {signed(high)}."
    if verdict_name in ("better", "worse"):
        return Text((Quoted(run), f" is {LINE_VERDICTS[verdict_name]} than ", Quoted(baseline), figures))
    if verdict_name in ("better below margin", "worse below margin"):
        way = verdict_name.split()[0]
        return Text((Quoted(run), f" is {way} than ", Quoted(baseline), ", but by less than the margin", figures))
    if verdict_name == "equivalent":
        return Text((Quoted(run), " and ", Quoted(baseline), " are practically the same", figures))
    return Text((Quoted(run), " and ", Quoted(baseline), " show no clear difference", figures))


def summary_tiers(metric: str, tiers: Text) -> Text:
    """The first line of a report of three or more runs: the tiers on the primary metric ("On
    nDCG@10, bm25 and dense are tied first; tfidf is third.")."""
    return Text((f"On {metric}, ", *tiers.parts))


def summary_best(run: str, metric: str, value: float | None) -> Text:
    """The first line of a report of three or more runs, when no tiers are drawn."""
    return Text((f"Highest {metric}: ", Quoted(run), f" ({decimal(value)})."))


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


def _short_ids(run: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
    names: list[str] = []
    for i, missed in enumerate(figures["missed"]):
        names += ([" and "] if i else []) + [Quoted(str(missed["run"]))]
    one = len(figures["missed"]) == 1
    return (
        *names,
        f" match{'es' if one else ''} no judged id: {'its' if one else 'their'} ids may be spelled "
        "otherwise than the judgments' (doc-17, D17).",
    )


def _short_labels(run: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
    said = LINE_VERDICTS.get(figures["model_verdict"], LINE_VERDICTS["unclear"])
    now = LINE_VERDICTS.get(figures["verdict"], LINE_VERDICTS["unclear"])
    return (
        Quoted(run),
        f": {said} on the model's labels, {now} once corrected by {audited_queries(int(figures['queries']))}.",
    )


def _short_slice(run: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
    way = LINE_VERDICTS[figures["verdict"]]
    return (
        Quoted(run),
        f" is {way} where ",
        Quoted(str(figures["key"])),
        " is ",
        Quoted(str(figures["value"])),
        f" ({_queries(int(figures['queries']))}), {signed(figures['delta'])}.",
    )


#: How a line says each reading of unjudged ids.
READING_IFS = {
    "condensed": "if the unjudged ids are left out",
    "unjudged_at_rate": "if unjudged ids are relevant at the rate judged ones are",
    "unjudged_relevant": "if every unjudged id is relevant",
}


def _short_unjudged(run: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
    flip = figures["flips"][0]
    now = LINE_VERDICTS.get(flip["verdict"], LINE_VERDICTS["unclear"])
    return (Quoted(run), f": {READING_IFS[flip['reading']]}, it is {now} ({signed(flip['delta'])}).")


def _short_power(run: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
    n, seen = int(figures["queries"]), figures.get("detectable")
    if seen is None:
        clause = f"{_queries(n)} are too few to show a difference of any size"
    else:
        clause = f"{_queries(n)} can only show differences of {decimal(seen)} or more"
    needed = figures.get("queries_needed")
    tail = "" if needed is None else f"; about {count(int(needed))} would show {decimal(figures['min_effect'])}"
    return (Quoted(run), f": {clause}{tail}.")


#: Each caveat kind in one short line of the first screen (at most :data:`LINE_MOST` characters
#: with a run name of 30): the full sentence is in the details.
SHORT_CAVEATS: dict[str, Callable[[str, Mapping[str, Any]], tuple[str, ...]]] = {
    "ids": _short_ids,
    "labels": _short_labels,
    "slice": _short_slice,
    "unjudged": _short_unjudged,
    "power": _short_power,
}


def short_caveat(kind: str, run: str, figures: Mapping[str, Any]) -> Text:
    """A caveat on the first screen, in one line naming the run it is about."""
    return Text(SHORT_CAVEATS[kind](run, figures))


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
#: What a screen reader calls the list of caveats under a headline.
CAVEATS_TITLE = "What could overturn it"


def slice_clause(figures: Mapping[str, Any], confidence: float) -> tuple[str, ...]:
    """ "clearly worse where topic is networking (100 queries): -0.275 (95% band -0.329 to -0.218)"."""
    more = int(figures.get("more", 0))
    others = f", and {count(more)} more slice{'' if more == 1 else 's'} go the same way" if more else ""
    return (
        f"{HEADLINE_VERDICTS[figures['verdict']]} where ",
        Quoted(str(figures["key"])),
        " is ",
        Quoted(str(figures["value"])),
        f" ({_queries(int(figures['queries']))}): {signed(figures['delta'])} ({percent(confidence)} band "
        f"{signed(figures['low'])} to {signed(figures['high'])}){others}",
    )


def _slice_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    first, *rest = slice_clause(figures, confidence)
    return Text((f"The average hides it: {first}", *rest, "."))


def _unjudged_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    k = int(figures["k"])
    sentences: list[tuple[str, ...]] = []
    mostly = figures.get("mostly", ())
    if mostly:
        runs: list[str] = []
        for i, run in enumerate(mostly):
            runs += (["; "] if i else []) + [
                Quoted(str(run["run"])),
                f" {unjudged_amount(int(run['unjudged']), int(run['slots']))}",
            ]
        sentences.append(
            (
                f"Most of the filled top-{k} slots hold ids nobody judged, so the figures rest on few labels: ",
                *runs,
                ".",
            )
        )
    said = [
        f"{READING_NAMES[f['reading']].format(k=k)} it is {signed(f['delta'])} ({percent(confidence)} band "
        f"{signed(f['low'])} to {signed(f['high'])}), "
        + headline_verdict(f["verdict"], f["p_adjusted"], figures.get("min_effect"))
        for f in figures.get("flips", ())
    ]
    if said:
        sentences.append(("The verdict depends on the unjudged ids: " + "; ".join(said) + ".",))
    parts: list[str] = []
    for i, sentence in enumerate(sentences):
        parts += ([" "] if i else []) + list(sentence)
    return Text(tuple(parts))


def power_clause(queries: int, detectable: float | None, power: float) -> str:
    """ "with 300 queries this comparison could only detect differences of 0.031 or more (80% power)"."""
    if detectable is None:
        return (
            f"with {_queries(queries)} this comparison could not detect a difference of any size at the corrected level"
        )
    return (
        f"with {_queries(queries)} this comparison could only detect differences of {decimal(detectable)} or "
        f"more ({power:.0%} power)"
    )


def _power_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    needed = figures.get("queries_needed")
    tail = (
        ""
        if needed is None
        else f"; detecting {decimal(figures['min_effect'])} would take about {_queries(int(needed))}"
    )
    clause = power_clause(int(figures["queries"]), figures.get("detectable"), float(figures["power"]))
    return Text((f"No clear difference does not mean the same: {clause}{tail}.",))


def _ids_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    parts: list[str] = []
    for i, run in enumerate(figures["missed"]):
        n = int(run["queries"])
        parts += [" " if i else "", Quoted(str(run["run"]))]
        parts.append(
            f" retrieves no judged id on {'its one query' if n == 1 else f'any of its {count(n)} queries'}: its "
            "figures are 0, whether it missed every time or spells the ids otherwise than the judgments "
            "(doc-17 against D17)."
        )
    return Text(tuple(parts))


def _labels_sentence(figures: Mapping[str, Any], confidence: float) -> Text:
    # the model's verdict as a decision: a band-only one (or none) is no clear difference
    said = HEADLINE_VERDICTS[figures["model_verdict"] if figures["model_verdict"] in ("better", "worse") else "unclear"]
    verdict = figures["verdict"] if figures["verdict"] in HEADLINE_VERDICTS else "unclear"
    now = headline_verdict(verdict, figures.get("p_adjusted"), figures.get("min_effect"))
    return Text(
        (
            f"{said[0].upper()}{said[1:]} on the model's labels; once corrected by "
            f"{audited_queries(int(figures['queries']))}, {now} "
            f"({signed(figures['delta'])}, {percent(confidence)} band {signed(figures['low'])} to "
            f"{signed(figures['high'])}).",
        )
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
    """A caveat in one sentence (or two), from its figures."""
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
        return Text(
            (Quoted(run), " and ", Quoted(baseline), " were judged differently on every query both scored: ")
            + ("they cannot be compared.",)
        )
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
    "unjudged": "The main limit: {unjudged} of its top-{k} results were never judged and count as not relevant, "
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
    template = HEADLINE_SCOPE if key is None else HEADLINE_LIMITS[key]
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
            f"({percent(confidence)} band {decimal(c_low)} to {decimal(c_high)})"
        )
    return Text(
        (
            Quoted(run),
            f" scores {decimal(value)} {metric} ({percent(confidence)} band {decimal(low)} to {decimal(high)}) "
            f"over {count(scored)} scored quer{'y' if scored == 1 else 'ies'}"
            + labels
            + ("" if halving is None else f"; {count(halving)} (four times as many) would halve the band")
            + f". {limit}",
        )
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


SCORED_FINGERPRINTS = "Full fingerprints (sha256)"
