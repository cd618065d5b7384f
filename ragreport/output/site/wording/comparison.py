"""The words of the comparison with the baseline and of the drift since a previous report."""

from __future__ import annotations

from collections.abc import Sequence

from .charts import outcome_title
from .numbers import Text, alpha, count, counted, decimal, listed, p_value, percent, said, signed, signed_band

# --- The comparison ---------------------------------------------------------------------------------

#: What report.json says about how the comparison was made (the data contract's wording).
TEST_METHOD = "two-sided paired randomization test (sign flips of the per-query differences)"
BAND_METHOD = "paired percentile bootstrap of the mean per-query difference (run minus baseline)"

#: Below this many shared queries a percentile band alone is not trusted for a verdict.
SMALL_PAIRING = 30

#: Each verdict's words and the CSS class of its row on the pages; ``{alpha}`` and ``{p}`` filled in.
VERDICTS = {
    "better": ("▲ better: band above 0, corrected p below {alpha}", "better"),
    "worse": ("▼ worse: band below 0, corrected p below {alpha}", "worse"),
    "better below margin": ("better, but below the margin: band inside (0, {margin})", "negligible"),
    "worse below margin": ("worse, but below the margin: band inside (-{margin}, 0)", "negligible"),
    "equivalent": ("practically the same: band inside ±{margin}", "equivalent"),
    "band above 0": ("band above 0, but corrected p {p}", "band-only"),
    "band below 0": ("band below 0, but corrected p {p}", "band-only"),
    "unclear": ("no clear difference", "unclear"),
}


def verdict(name: str, alpha_value: float, p_adjusted: float | None, margin: float | None = None) -> tuple[str, str]:
    """A comparison's verdict, and its row's CSS class on the pages (``margin``: ``--min-effect``)."""
    words, css = VERDICTS[name]
    return words.format(alpha=alpha(alpha_value), p=p_value(p_adjusted), margin=decimal(margin)), css


def effect_cell(effect: float | None, low: float | None, high: float | None) -> tuple[str, str]:
    """The standardised effect d_z and its band: ``("+0.420", "[+0.280, +0.570]")``; ``undefined``
    (and no band) when the differences do not vary (or there are fewer than 2), ``n/a`` for a bound
    the resamples leave open."""
    return (EFFECT_UNDEFINED, "") if effect is None else (signed(effect), signed_band(low, high))


#: The standardised effect when the differences do not vary (or fewer than 2 queries).
EFFECT_UNDEFINED = "undefined"


def difference_aria(delta: float, low: float, high: float) -> str:
    return f"difference {signed(delta)}, band {signed(low)} to {signed(high)}"


def against_baseline(baseline: str) -> Text:
    """The comparison's heading."""
    return said("Against the baseline {baseline}", baseline=baseline)


def comparison_caption(baseline: str, k: int, confidence: float, correction: str) -> str:
    return (
        f"Every run against {baseline} at K = {k}: the difference, its {percent(confidence)} band, p and p "
        f"corrected ({correction}), and queries won, tied and lost; under the difference and its band, the "
        "standardised effect d_z (the mean difference over the per-query differences' standard deviation) and "
        "its band."
    )


def comparison_method(
    baseline: str,
    k: int,
    confidence: float,
    resamples: int,
    seed: int,
    permutations: int,
    correction_meaning: str,
    n_comparisons: int,
    corrected: bool,
    family: Sequence[str] = (),
    left_out: Sequence[str] = (),
    summed: bool = False,
) -> tuple[Text, ...]:
    """How the comparison was made, sentence by sentence (``corrected``: the p-values are;
    ``family``: the measures ``--metrics`` chose to compare, ``left_out`` those it named that cannot be;
    ``summed``: the figures came from the partitioned engines' sums, docs/conventions.md section 29)."""
    conf = percent(confidence)
    if summed:  # weights and signs hashed from the query ids: the same figures however the queries were split
        band = (
            f"a paired Poisson bootstrap ({count(resamples)} resamples, seed {seed}): in every resample each query "
            "weighs the same in both runs, its weight hashed from its id."
        )
        flips = f"flipped {count(permutations)} times, each sign hashed from the query's id, "
    else:
        band = (
            f"a paired percentile bootstrap ({count(resamples)} resamples, seed {seed}): every resample draws the same "
            "queries for both runs."
        )
        flips = f"flipped at random {count(permutations)} times (every combination when there are fewer), "
    together = f" {n_comparisons} comparison{'s are' if n_comparisons != 1 else ' is'} corrected together."
    sentences = (
        said(
            f"Each run is compared with the baseline {{baseline}} on the queries both scored, at K = {k}. The delta "
            f"is the mean per-query difference (run minus baseline); its {conf} band is {band}",
            baseline=baseline,
        ),
        f"p comes from a two-sided paired randomization test: the signs of the per-query differences are "
        f"{flips}and p counts the observed difference among them, so it is never 0.",
        correction_meaning + (together if corrected else ""),
        f"A verdict notes where the band excludes 0; it reads better or worse only when the corrected p is "
        f"below {1 - confidence:g} too. Hit@K differences use the same paired bootstrap.",
        "Power: the smallest true difference a comparison would find with 80% probability is "
        "(t(1 - a/2) + t(0.8)) x s / sqrt(n), with s the spread of the n per-query differences, t Student's "
        f"quantiles on n - 1 degrees of freedom and a = {1 - confidence:g}"
        + (f" / {n_comparisons}, the correction's strictest step" if corrected else "")
        + " (Webber, Moffat and Zobel 2008; Sakai 2016). Every difference is tested again with the unjudged ids "
        "read as relevant and removed (condensed).",
    )
    more = (family_sentence(family, left_out),) if family else ()
    return tuple(t if isinstance(t, Text) else Text((t,)) for t in (*sentences, *more))


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def family_sentence(family: Sequence[str], left_out: Sequence[str] = ()) -> str:
    """What ``--metrics`` chose to compare, and what it named that cannot be compared."""
    said = (
        "The comparison family is the one --metrics named: "
        + (
            f"{family[0]} alone is compared and tested"
            if len(family) == 1
            else f"{_and(family)} are compared, tested and corrected together"
        )
        + "; the suite's other metrics are shown, not compared."
    )
    if left_out:
        said += (
            f" {_and(left_out)} {'has' if len(left_out) == 1 else 'have'} no per-query score to test "
            f"(a count or a diagnostic) and {'is' if len(left_out) == 1 else 'are'} not compared."
        )
    return said


def _some(ids: Sequence[str]) -> str:
    return ", ".join(ids[:10]) + (f" and {len(ids) - 10:,} more" if len(ids) > 10 else "") if ids else "none"


def pair_notes(
    run: str,
    base: str,
    n: int,
    only_baseline: Sequence[str],
    only_run: Sequence[str],
    same_labels: bool,
    judged_apart: Sequence[str] = (),
) -> list[str]:
    """What a reader must know before trusting one run's comparison with the baseline.

    ``n`` queries both scored and judged alike; ``only_baseline`` and ``only_run`` the ids only one
    of them scored; ``judged_apart`` those both scored against different judgments (left out).
    """
    if n == 0 and judged_apart:
        return [
            f"{run} was judged against another label set than {base}, and differently on every query both "
            f"scored ({_some(judged_apart)}): it is not compared."
        ]
    if n == 0:
        return [f"{run} shares no scored query with {base}: it is not compared."]
    notes = []
    if only_baseline or only_run:
        notes.append(
            f"{run} and {base} did not score the same queries: they are compared on the {n:,} both "
            f"scored. Left out: {len(only_baseline):,} scored only by {base} "
            f"({_some(only_baseline)}), {len(only_run):,} only by {run} ({_some(only_run)})."
        )
    if judged_apart:
        notes.append(
            f"{run} was judged against another label set than {base}: they are compared on the "
            f"{counted(n, 'query')} both judged alike (the same ids at the same grades), so that a difference is "
            f"retrieval's, not labelling's. Left out: {len(judged_apart):,} judged differently ({_some(judged_apart)})."
        )
    elif not same_labels:
        notes.append(f"{run} was judged against another label set than {base}, alike on every query compared.")
    if n < SMALL_PAIRING:
        notes.append(
            f"{run} is compared on only {n:,} queries: at this size a percentile band is too narrow, so "
            f"a band that excludes 0 reads as better or worse only when the corrected p agrees."
        )
    return notes


def movers_caption(gained: bool, primary: str, most: int) -> str:
    return f"{'Gained' if gained else 'Lost'} most on {primary} (up to {most} queries)"


#: What an empty table of movers says.
NO_MOVERS = "None."


def pair_heading(run: str, baseline: str) -> str:
    return f"{run} against {baseline}, query by query"


def scatter_label(run: str, baseline: str) -> str:
    return f"Per-query scores of {run} against {baseline}"


outcome_label = outcome_title  # the chart's title is its label too

# --- Drift ------------------------------------------------------------------------------------------

#: The drift's heading on the overview, and the history's heading of the newest report's drift.
SINCE_PREVIOUS = "Since the previous report"


def drift_previous(previous: str, previous_date: str | None) -> Text:
    """Which report the figures are compared with."""
    # the date is the previous report's own text: the user's words, escaped as every other
    return said("Previous report: {previous}, dated {date}.", previous=previous, date=previous_date or "unknown")


def drift_reason(reason: str) -> Text:
    """Why no drift can be claimed for a run (``reason`` names it: the user's words, quoted whole)."""
    return said(
        "No drift can be claimed {reason}. Figures on another query set or label set do not compare.", reason=reason
    )


#: What the figures then and now mean when the query set and label set are the same.
DRIFT_SAME = (
    "For the runs below, the query set and the label set are the same as then (their fingerprints "
    "match), so the change is the run's own."
)

#: Each drift verdict in words (``{alpha}`` the level, ``{p}`` the corrected p) and its CSS class,
#: read as the comparison's are: now against then.
DRIFT_VERDICTS = {
    "better": ("▲ higher now: band above 0, corrected p below {alpha}", "better"),
    "worse": ("▼ lower now: band below 0, corrected p below {alpha}", "worse"),
    "band above 0": ("band above 0, but corrected p {p}", "band-only"),
    "band below 0": ("band below 0, but corrected p {p}", "band-only"),
    "unclear": ("no clear change", "unclear"),
    # drift reads no margin: these are the comparison's, never a drift row's (one set of keys, VERDICT)
    "better below margin": ("▲ higher now, below the margin", "negligible"),
    "worse below margin": ("▼ lower now, below the margin", "negligible"),
    "equivalent": ("practically the same", "equivalent"),
}

#: A drift row with no verdict: a diagnostic (not tested), or no per-query scores then.
DRIFT_NOT_TESTED = "not tested (a diagnostic)"
DRIFT_NO_PAIRS = "no per-query scores then: no band"
DRIFT_OUTSIDE = "not tested (not in the comparison family, --metrics)"


def drift_verdict(
    name: str | None, alpha_value: float, p_adjusted: float | None, diagnostic: bool, *, outside: bool = False
) -> tuple[str, str]:
    """A drift row's verdict in words and its CSS class (``outside``: a metric ``--metrics`` left out
    of the comparison family)."""
    if name is None:
        return (DRIFT_OUTSIDE if outside else DRIFT_NOT_TESTED if diagnostic else DRIFT_NO_PAIRS), "unclear"
    words, css = DRIFT_VERDICTS[name]
    return words.format(alpha=alpha(alpha_value), p=p_value(p_adjusted)), css


def drift_method(confidence: float, correction: str, tests: int) -> str:
    return (
        f"Each change is the mean per-query difference (now minus then) over the queries scored both "
        f"times, with its {percent(confidence)} paired bootstrap band; p comes from a paired randomization "
        f"test and is corrected ({correction}) across the {count(tests)} tests of this section in which some "
        f"query's score moved (where none moved, p is 1 and cannot fall below any level). ▲ or ▼: clearly "
        f"higher or lower now (band off 0 and corrected p below the level), as in the comparison."
    )


def drift_unchanged(run: str, queries: int, metric: str, value: float) -> Text:
    """A run none of whose per-query scores moved, in one line."""
    return said("{run}: ", run=run) + (
        f"unchanged. No query's score moved on any metric ({count(queries)} queries scored both times); "
        f"{metric} is {decimal(value)}, as before."
    )


#: How many items of each kind of change a sentence lists (the count is always whole).
FIRST_SHOWN = 5


def drift_change(
    runs: Sequence[str],
    every: bool,
    queries_added: tuple[int, Sequence[str]],
    queries_removed: tuple[int, Sequence[str]],
    judgments_added: tuple[int, Sequence[str]],
    judgments_removed: tuple[int, Sequence[str]],
    regraded: tuple[int, Sequence[str]],
) -> Text:
    """What changed in the query set and label set of ``runs`` (``every``: all the report's runs):
    each kind a (count, first few as written) pair."""

    def part(label: str, counted: tuple[int, Sequence[str]]) -> str:
        n, first = counted
        more = ", …" if n > len(first) else ""
        return f"{count(n)} {label}" + (f" ({', '.join(first)}{more})" if first else "")

    whom = Text(("every run",)) if every and len(runs) > 1 else listed(runs, ", ", " and ")
    return (
        Text(("What changed for ",))
        + whom
        + f": queries {part('added', queries_added)}, {part('removed', queries_removed)}; judgments on the queries "
        f"judged both times {part('added', judgments_added)}, {part('removed', judgments_removed)}, "
        f"{part('regraded', regraded)}."
    )


def _joined(names: Sequence[str]) -> tuple[str, ...]:
    return listed(names, ", ", " and ").parts


def query_item(query: str, judgments: int) -> str:
    """A query added or removed, with its judgments: ``q7 with 30 judgments``."""
    return f"{query} with {counted(judgments, 'judgment')}"


def judgment_item(query: str, doc: str, grade: int) -> str:
    """A judgment as a change list shows it: ``q7/d12 at grade 2``."""
    return f"{query}/{doc} at grade {grade}"


def regrade_item(query: str, doc: str, then: int, now: int) -> str:
    """A regraded judgment: ``q7/d12 1 → 2``."""
    return f"{query}/{doc} {then} → {now}"


def drift_unlisted(run: str, sampled: bool = False) -> Text:
    """A run whose previous label set is not listed (a report from an earlier ragreport, or one that
    holds a sample of its queries: docs/conventions.md section 29.2)."""
    why = (
        "it holds the judgments of a sample of its queries alone"
        if sampled
        else "it was written by an earlier ragreport"
    )
    return said(
        f"The previous report does not list the judgments of {{run}} ({why}), so what "
        "changed cannot be shown beyond the fingerprints.",
        run=run,
    )


def drift_matrix_caption(k: int) -> str:
    return (
        f"Now minus then at K = {k}, per run and metric. ▲ or ▼: clearly higher or lower now; the "
        f"full rows, with both figures, are below."
    )


DRIFT_MORE = "Each figure then and now in full: band, p and verdict"


# --- All runs at once (docs/conventions.md section 27) -----------------------------------------------

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def ordinal(n: int) -> str:
    """``first`` to ``tenth`` in words, then ``11th``, ``21st``, ``22nd``, ``23rd``, ``111th``."""
    if n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def tiers_sentence(tiers: Sequence[Sequence[str]]) -> Text:
    """The tiers in a reader's words, best first: ``bm25s-k09b04 and bm25s-default are tied first;
    rankbm25 is third; tfidf fourth.``

    A tier's ordinal is its place in the order (one plus the runs in the tiers before it), so two
    tied first make the next run third. The verb is said in the first two clauses and understood
    after them (``tfidf fourth``; a tie there keeps ``tied``: ``C and D tied fourth``). One tier of
    every run reads ``A, B and C are tied: none is clearly better than another``.
    """
    if len(tiers) == 1 and len(tiers[0]) > 1:
        return Text(_joined(tiers[0])) + " are tied: none is clearly better than another."
    text, place = Text(()), 1
    for i, tier in enumerate(tiers):
        verb = ("are " if len(tier) > 1 else "is ") if i < 2 else ""
        text += Text(("; " if i else "", *_joined(tier))) + f" {verb}{'tied ' if len(tier) > 1 else ''}{ordinal(place)}"
        place += len(tier)
    return text + "."


PAIRS_HEADING = "Every run against every other"


def pairs_caption(metric: str) -> str:
    """The pairwise matrix's caption: short, as it scrolls with the table on a phone."""
    return f"{metric}: the row's run minus the column's"


def pairs_legend(confidence: float) -> str:
    """What a cell of the pairwise matrix holds and what its mark says, above the matrix."""
    return (
        f"The runs are ordered by their mean. Each cell is the row's run minus the column's: ▲ the row is "
        f"clearly better, ▼ clearly worse (the {percent(confidence)} band clears 0 and the corrected p is "
        f"below {1 - confidence:g}). Each run's rank comes with its {percent(confidence)} interval."
    )


def pairs_method(resamples: int, seed: int, permutations: int, correction_meaning: str, n_pairs: int) -> str:
    """How every pair and the ranks were made, in a sentence or three (the details, not the first screen)."""
    return (
        f"Every pair of runs is compared on the queries both scored, as against the baseline: a paired "
        f"percentile bootstrap ({count(resamples)} resamples, seed {seed}) and a paired randomization "
        f"test ({count(permutations)} sign flips). {correction_meaning} {n_pairs} pairs are corrected "
        f"together. Each run's rank interval comes from the same resamples: in each, the runs are ranked "
        f"by their mean over the drawn queries (tied means share the better rank)."
    )


def rank_cell(rank: int, low: int | None, high: int | None) -> str:
    """A run's rank with its interval: ``2 (1–3)``; ``1`` when the interval is that rank alone;
    the rank alone without an interval."""
    if low is None or high is None or low == high == rank:
        return str(rank)
    return f"{rank} ({low}–{high})"
