"""Every number format and every sentence a reader sees, in one place: pure functions and constants.

The view model (:mod:`ragreport.output.view`) calls these once per report; the site, the terminal
table, the Markdown and summary.md only lay out what comes back. Nothing here reads a file, prints,
or imports the analysis: arguments are plain values (numbers, strings, sequences), so a wording or a
format is changed here and every output follows.

Text taken from the user's files (run names, ids, paths) is marked with :class:`Quoted` inside a
:class:`Text`, so that each renderer can escape it its own way (Markdown escapes only those parts;
HTML escapes everything anyway).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..core.escape import os_text
from ..scoring.kinds import IntervalMethod

#: In place of each chart of the single file, when the browser cannot unpack its plotly.js.
PLOTLY_UNSUPPORTED = (
    "The chart needs a newer browser: this one cannot unpack the plotly.js this file carries "
    "(it has no DecompressionStream); every figure is also in the tables."
)
#: In place of each chart of the single file, when its plotly.js was unpacked but did not run.
PLOTLY_FAILED = "The chart needs plotly.js, which this file carries but which did not run."

#: What a missing figure reads as, everywhere.
NA = "n/a"


# --- Text with the user's words marked -------------------------------------------------------------


class Quoted(str):
    """A piece of text taken from the user's files (a run name, an id, a path), never ours."""


@dataclass(frozen=True)
class Text:
    """A sentence as pieces: our words (``str``) and the user's (:class:`Quoted`).

    ``str(text)`` is the plain sentence (terminal, HTML, where the template escapes it);
    ``text.render(quote)`` passes only the user's pieces through ``quote`` (Markdown escaping).
    """

    parts: tuple[str, ...]

    def __str__(self) -> str:
        return "".join(self.parts)

    def render(self, quote: Callable[[str], str]) -> str:
        return "".join(quote(p) if isinstance(p, Quoted) else p for p in self.parts)

    @property
    def pieces(self) -> tuple[tuple[str, bool], ...]:
        """(piece, taken from the user's files) pairs, for a template that styles the user's words."""
        return tuple((p, isinstance(p, Quoted)) for p in self.parts)


# --- Numbers ----------------------------------------------------------------------------------------


def is_missing(value: float | None) -> bool:
    """None or NaN: a figure that could not be taken."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def snippet(text: str, most: int) -> str:
    """``text`` up to ``most`` characters, cut at a space where one is near, with an ellipsis."""
    if len(text) <= most:
        return text
    cut = text.rfind(" ", most - 40, most)
    return text[: cut if cut > 0 else most].rstrip() + "…"


#: What a page shows of a document's text: a snippet, and the text on demand up to a length.
SNIPPET_CHARS = 240
FULL_TEXT_CHARS = 4_000


def decimal(value: float | None) -> str:
    """Three decimals, or ``n/a`` for a missing value: every mean, band end and score."""
    return NA if is_missing(value) else f"{value:.3f}"


def signed(value: float | None) -> str:
    """A difference with its sign and three decimals (``+0.012``), or ``n/a``; one that rounds
    to zero is ``0.000`` (never ``-0.000``)."""
    if is_missing(value):
        return NA
    text = f"{value:+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text


def p_value(p: float | None) -> str:
    """A p-value: three decimals, ``< 0.001`` below that, ``n/a`` when missing."""
    if p is None or math.isnan(p):
        return NA
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def band(low: float | None, high: float | None) -> str:
    """A band as ``[low, high]`` with three decimals, ``n/a`` for a missing end."""
    return f"[{decimal(low)}, {decimal(high)}]"


def signed_band(low: float | None, high: float | None) -> str:
    """A band on a difference: ``[-0.010, +0.034]``, ``n/a`` for a missing end."""
    return f"[{signed(low)}, {signed(high)}]"


def count(n: int) -> str:
    """A whole number with thousands separators: ``12,345``."""
    return f"{n:,}"


def percent(confidence: float) -> str:
    """A confidence level as a whole percentage: ``95%``."""
    return f"{confidence:.0%}"


def alpha(value: float) -> str:
    """The level a corrected p is read at, as short as it goes: ``0.05``."""
    return f"{value:g}"


#: How each interval method is named wherever a table shows it.
INTERVAL_NAMES = {IntervalMethod.WILSON: "Wilson", IntervalMethod.BOOTSTRAP: "bootstrap", IntervalMethod.NONE: "none"}


# --- A run ------------------------------------------------------------------------------------------


def shown_source(source: str) -> str:
    """A run's file as the outputs show it: as given when relative; an absolute path only by its file
    name, so no report carries the layout of the machine that built it."""
    if source.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", source) or source.startswith("\\\\"):
        source = re.split(r"[\\/]", source)[-1]
    return os_text(source)  # a file name that is not UTF-8: its stray bytes as \xff


def report_title(names: Sequence[str]) -> str:
    """The report's title when none is given."""
    return f"Retrieval report: {names[0]}" if len(names) == 1 else f"Retrieval report: {len(names)} runs"


def date_span(dates: Sequence[str]) -> str:
    """One date, or the first to the last of several (ISO dates sort as text)."""
    ordered = sorted(set(dates))
    return ordered[-1] if len(ordered) == 1 else f"{ordered[0]} to {ordered[-1]}"


def cutoffs_text(cutoffs: Sequence[int]) -> str:
    """Every cutoff asked for, the report's K first: ``10, 20``."""
    return ", ".join(str(k) for k in cutoffs)


def counts_line(c: Mapping[str, int]) -> str:
    """The edge-rule counts of a run in one sentence (the terminal and Markdown)."""
    parts = [
        f"{count(c['queries'])} queries",
        f"{count(c['scored'])} scored",
        f"{count(c['excluded_no_relevant'])} excluded (no relevant id)",
        *(
            [f"{count(c['no_relevant_as_zero'])} with no relevant id averaged in as 0"]
            if c.get("no_relevant_as_zero")
            else []
        ),
        f"{count(c['missing_from_run'])} judged but missing from the run",
        f"{count(c['repeats'])} repeated id{'s' if c['repeats'] != 1 else ''} in "
        f"{count(c['queries_with_repeats'])} quer{'ies' if c['queries_with_repeats'] != 1 else 'y'}",
    ]
    return ", ".join(parts)


def fact_items(c: Mapping[str, int], k: int, kmax: int) -> list[tuple[str, str]]:
    """The run page's headline counts as (label, value)."""
    return [
        ("queries", count(c["queries"])),
        ("scored", count(c["scored"])),
        ("no relevant id (excluded)", count(c["excluded_no_relevant"])),
        ("judged, missing from run", count(c["missing_from_run"])),
        ("repeated ids", count(c["repeats"])),
        ("K (sweep to)", f"{k} ({kmax})"),
    ]


def bands_line(confidence: float, resamples: int, seed: int) -> str:
    """How the bands were made, in one sentence."""
    return (
        f"Hit@K carries the Wilson score interval at {percent(confidence)} with the query as the trial; "
        f"every other mean a percentile bootstrap over the scored queries, {count(resamples)} resamples "
        f"with seed {seed}, reproducible to the last digit."
    )


def bands_switch(confidence: float, resamples: int, seed: int) -> tuple[str, str, str]:
    """The switches behind the bands, what they mean and what another choice would do."""
    return (
        f"--confidence {confidence:g} --resamples {resamples} --seed {seed}",
        bands_line(confidence, resamples, seed),
        "Another seed moves a bootstrap band slightly; more resamples steady it.",
    )


#: The conventions, stated once per report.
CONVENTIONS_TITLE = "Conventions"
#: The mark beside a figure that a switch not at its default changes.
DEPARTURE_MARK = "†"
NOT_DEFAULT = "not the default"


def conventions_lede(runs: int) -> str:
    whom = "Every run of this report is" if runs > 1 else "The run is"
    return (
        f"{whom} scored under these conventions. Each says what it does and what the other choice "
        f"would do; a switch not at its default is flagged, and the figures it changes carry {DEPARTURE_MARK}."
    )


def departure_notice(flags: Sequence[str]) -> str:
    """The sentence at the top of a report scored with switches not at their defaults."""
    return (
        f"Not the default conventions: {', '.join(flags)}. The figures these switches change are marked "
        f"{DEPARTURE_MARK}; what each does is said with the conventions."
    )


def departure_mark_title(flags: Sequence[str]) -> str:
    """The tooltip of a figure's mark: the switches not at their default that change it."""
    return f"Scored under {', '.join(flags)} ({NOT_DEFAULT})"


#: A run page's pointer to the report's conventions, stated once on the overview.
RUN_CONVENTIONS = "This run is scored under the report's conventions, stated once on the overview"


def switch_name(name: str) -> str:
    """A convention's field name as a heading: ``no_relevant`` -> ``No relevant``."""
    return name.replace("_", " ").capitalize()


def switch_flag(name: str, value: str) -> str:
    """The command-line switch that sets a convention: ``--no-relevant exclude``."""
    return f"--{name.replace('_', '-')} {value}"


def limits_line(n: int) -> str:
    """How many honest limits a run has, as the index lists it."""
    return f"{n} honest limits"


def interval_aria(mean: float, low: float, high: float) -> str:
    """What a screen reader says for a mean and its band drawn as a bar."""
    if any(is_missing(v) for v in (mean, low, high)):
        return "not available"
    return f"{decimal(mean)}, band {decimal(low)} to {decimal(high)}"


def run_captions(scored: int, k: int, kmax: int, confidence: float) -> tuple[str, str, str]:
    """The run page's captions: the suite table, the K sweep and the per-query table."""
    conf = percent(confidence)
    return (
        f"Means over the {count(scored)} scored queries at K = {k}, each with its {conf} "
        f"band, the interval that made it and the convention behind it.",
        f"Every metric at every K from 1 to {kmax} with its {conf} band; the dotted line "
        f"marks K = {k}. Hover a point for its mean and band.",
        f"Every query at K = {k}. Sort by any column; filter by status or id; open a row for "
        f"its top {k} ids, each marked relevant, judged non-relevant, unjudged or repeat.",
    )


def report_captions(n_runs: int, k: int, date: str, confidence: float) -> tuple[str, str, str]:
    """The index's lede and its captions: the suite table and the K sweep."""
    conf = percent(confidence)
    return (
        (
            f"{n_runs} run{'s' if n_runs != 1 else ''} scored at K = {k}, dated {date}. Every mean "
            f"carries its {conf} band and the convention that produced it."
        ),
        f"Means at K = {k} with their {conf} bands" + (", runs side by side." if n_runs > 1 else "."),
        (
            f"Every run's mean at each K with its {conf} band; choose the metric "
            f"from the menu. The dotted line marks K = {k}."
        ),
    )


def mean_header(name: str, several: bool) -> str:
    """The suite table's mean column: ``mean``, or ``name: mean`` with runs side by side."""
    return f"{name}: mean" if several else "mean"


def band_header(confidence: float) -> str:
    return f"{percent(confidence)} band"


#: The suite matrix's caption (one row per run, one column per metric) and the delta matrix's.
MATRIX_CAPTION = "Each run's mean per metric, its band beneath in small type."


def suite_key(compared: bool) -> str:
    """What bold and the marks of the suite matrix mean."""
    marks = " ▲ or ▼: clearly above or below the baseline (the comparison's verdict)." if compared else ""
    return "Bold: the highest mean of its column." + marks


def delta_matrix_caption(baseline: str, k: int) -> str:
    return (
        f"Run minus {baseline} at K = {k}, per metric. ▲ or ▼: clearly better or worse (band off 0 "
        f"and corrected p below the level); the full rows are below."
    )


#: The expanders below the matrices: the long form of each.
SUITE_MORE = "Each figure in full: band, interval, convention and trec_eval name"
COMPARISON_MORE = "Each comparison in full: band, p, corrected p, won/tied/lost and verdict"

#: The suite matrix's mark of each comparison verdict (by its CSS class); no mark otherwise.
MARKS_OF_VERDICT = {"better": "▲", "worse": "▼"}

#: The per-query table's filter: with query text, and for input without any (TREC).
FILTER_LABEL = "Id or query text"
FILTER_LABEL_NO_TEXT = "Id"


def query_table_print_note(n: int) -> str:
    """What a printed per-query table says of its rows."""
    return (
        f"On paper this table holds the rows shown on screen when it was printed (every one of the "
        f"{count(n)} unless filtered); report.json holds all {count(n)}."
    )


#: Marks of the ids in a query's top K (the per-query table).
MARKS = ("relevant", "judged non-relevant", "unjudged", "repeat")
#: The per-query table's fixed columns, before the metrics.
QUERY_COLUMNS = ("id", "status", "query", "R", "retrieved", "first relevant rank")
#: Tooltips of the per-query table's fixed columns that need one (the glossary explains each status).
DIFFERENCE_COLUMN_TITLE = (
    "The query's score minus the baseline's on the primary metric; blank where one of the two did not score it."
)


def difference_column(metric: str, baseline: str) -> str:
    """The per-query table's column of differences from the baseline."""
    return f"{metric} minus {baseline}"


QUERY_COLUMN_TITLES = {
    "status": "Where the query stands at K: full, partial, late hit, complete miss and the rest (see the glossary).",
    "R": "How many ids were judged relevant for the query.",
    "first relevant rank": "The rank of the first relevant id in the list, if any.",
}


def compare_link(is_baseline: bool) -> tuple[str, str, str]:
    """The run page's link to the comparison: (words before, link text, words after)."""
    if is_baseline:
        return ("It is the baseline of ", "the comparison", ".")
    return ("", "How it compares with the baseline", ".")


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
    "band above 0": ("band above 0, but corrected p {p}", "band-only"),
    "band below 0": ("band below 0, but corrected p {p}", "band-only"),
    "unclear": ("no clear difference", "unclear"),
}


def verdict(name: str, alpha_value: float, p_adjusted: float | None) -> tuple[str, str]:
    """A comparison's verdict, and its row's CSS class on the pages."""
    words, css = VERDICTS[name]
    return words.format(alpha=alpha(alpha_value), p=p_value(p_adjusted)), css


def difference_aria(delta: float, low: float, high: float) -> str:
    return f"difference {signed(delta)}, band {signed(low)} to {signed(high)}"


def against_baseline(baseline: str) -> Text:
    """The comparison's heading."""
    return Text(("Against the baseline ", Quoted(baseline)))


def comparison_caption(baseline: str, k: int, confidence: float, correction: str) -> str:
    return (
        f"Every run against {baseline} at K = {k}: the difference, its {percent(confidence)} band, p and p "
        f"corrected ({correction}), and queries won, tied and lost."
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
) -> tuple[Text, ...]:
    """How the comparison was made, sentence by sentence (``corrected``: the p-values are;
    ``family``: the measures ``--metrics`` chose to compare, ``left_out`` those it named that cannot be)."""
    conf = percent(confidence)
    said = (
        Text(
            (
                "Each run is compared with the baseline ",
                Quoted(baseline),
                " on the queries both scored, at K = "
                f"{k}. The delta is the mean per-query difference (run minus baseline); its {conf} band "
                f"is a paired percentile bootstrap ({count(resamples)} resamples, seed "
                f"{seed}): every resample draws the same queries for both runs.",
            )
        ),
        f"p comes from a two-sided paired randomization test: the signs of the per-query differences are "
        f"flipped at random {count(permutations)} times (every combination when there are fewer), "
        f"and p counts the observed difference among them, so it is never 0.",
        correction_meaning
        + (
            f" {n_comparisons} comparison{'s are' if n_comparisons != 1 else ' is'} corrected together."
            if corrected
            else ""
        ),
        f"A verdict notes where the band excludes 0; it reads better or worse only when the corrected p is "
        f"below {1 - confidence:g} too. Hit@K differences use the same paired bootstrap.",
    )
    more = (family_sentence(family, left_out),) if family else ()
    return tuple(t if isinstance(t, Text) else Text((t,)) for t in (*said, *more))


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


def pair_notes(
    run: str, base: str, n: int, only_baseline: Sequence[str], only_run: Sequence[str], same_labels: bool
) -> list[str]:
    """What a reader must know before trusting one run's comparison with the baseline.

    ``n`` queries both scored; ``only_baseline`` and ``only_run`` the ids only one of them scored.
    """
    if n == 0:
        return [f"{run} shares no scored query with {base}: it is not compared."]
    notes = []
    if only_baseline or only_run:

        def some(ids: Sequence[str]) -> str:
            return ", ".join(ids[:10]) + (f" and {len(ids) - 10:,} more" if len(ids) > 10 else "") if ids else "none"

        notes.append(
            f"{run} and {base} did not score the same queries: they are compared on the {n:,} both "
            f"scored. Left out: {len(only_baseline):,} scored only by {base} "
            f"({some(only_baseline)}), {len(only_run):,} only by {run} "
            f"({some(only_run)})."
        )
    if not same_labels:
        notes.append(
            f"{run} was judged against another label set than {base} (their label fingerprints differ): "
            f"its differences mix retrieval and labelling."
        )
    if n < SMALL_PAIRING:
        notes.append(
            f"{run} is compared on only {n:,} queries: at this size a percentile band is too narrow, so "
            f"a band that excludes 0 reads as better or worse only when the corrected p agrees."
        )
    return notes


def movers_caption(gained: bool, primary: str, most: int) -> str:
    """The caption of a table of the queries that moved most."""
    return f"{'Gained' if gained else 'Lost'} most on {primary} (up to {most} queries)"


#: What an empty table of movers says.
NO_MOVERS = "None."


def pair_heading(run: str, baseline: str) -> str:
    return f"{run} against {baseline}, query by query"


def scatter_label(run: str, baseline: str) -> str:
    return f"Per-query scores of {run} against {baseline}"


def outcome_label(run: str) -> str:
    return f"Queries won, tied and lost by {run}"


# --- Drift ------------------------------------------------------------------------------------------


def drift_previous(previous: str, previous_date: str | None) -> Text:
    """Which report the figures are compared with."""
    # the date is the previous report's own text: the user's words, escaped as every other
    return Text(("Previous report: ", Quoted(previous), ", dated ", Quoted(previous_date or "unknown"), "."))


def drift_reason(reason: str) -> Text:
    """Why no drift can be claimed for a run (``reason`` names it: the user's words, quoted whole)."""
    return Text(
        ("No drift can be claimed ", Quoted(reason), ". Figures on another query set or label set do not compare.")
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
        if outside:
            return DRIFT_OUTSIDE, "unclear"
        return (DRIFT_NOT_TESTED if diagnostic else DRIFT_NO_PAIRS), "unclear"
    words, css = DRIFT_VERDICTS[name]
    return words.format(alpha=alpha(alpha_value), p=p_value(p_adjusted)), css


def drift_method(confidence: float, correction: str, tests: int) -> str:
    """How the drift was read."""
    return (
        f"Each change is the mean per-query difference (now minus then) over the queries scored both "
        f"times, with its {percent(confidence)} paired bootstrap band; p comes from a paired randomization "
        f"test and is corrected ({correction}) across the {count(tests)} tests of this section in which some "
        f"query's score moved (where none moved, p is 1 and cannot fall below any level). ▲ or ▼: clearly "
        f"higher or lower now (band off 0 and corrected p below the level), as in the comparison."
    )


def drift_unchanged(run: str, queries: int, metric: str, value: float) -> Text:
    """A run none of whose per-query scores moved, in one line."""
    return Text(
        (
            Quoted(run),
            f": unchanged. No query's score moved on any metric ({count(queries)} queries scored both "
            f"times); {metric} is {decimal(value)}, as before.",
        )
    )


#: How many items of each kind of change a sentence lists (the count is always whole).
FIRST_SHOWN = 5


def _first(items: Sequence[str], total: int) -> str:
    shown = ", ".join(items)
    return f" ({shown}{', …' if total > len(items) else ''})" if items else ""


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
        return f"{count(n)} {label}{_first(first, n)}"

    whom: tuple[str, ...] = ("every run",) if every and len(runs) > 1 else _joined(runs)
    return Text(
        (
            "What changed for ",
            *whom,
            ": queries "
            + ", ".join((part("added", queries_added), part("removed", queries_removed)))
            + "; judgments on the queries judged both times "
            + ", ".join(
                (part("added", judgments_added), part("removed", judgments_removed), part("regraded", regraded))
            )
            + ".",
        )
    )


def _joined(names: Sequence[str]) -> tuple[str, ...]:
    """Run names joined with commas and a final "and", each quoted."""
    out: list[str] = []
    for i, name in enumerate(names):
        if i:
            out.append(" and " if i == len(names) - 1 else ", ")
        out.append(Quoted(name))
    return tuple(out)


def query_item(query: str, judgments: int) -> str:
    """A query added or removed, with its judgments: ``q7 with 30 judgments``."""
    return f"{query} with {count(judgments)} judgment{'s' if judgments != 1 else ''}"


def judgment_item(query: str, doc: str, grade: int) -> str:
    """A judgment as a change list shows it: ``q7/d12 at grade 2``."""
    return f"{query}/{doc} at grade {grade}"


def regrade_item(query: str, doc: str, then: int, now: int) -> str:
    """A regraded judgment: ``q7/d12 1 → 2``."""
    return f"{query}/{doc} {then} → {now}"


def drift_unlisted(run: str) -> Text:
    """A run whose previous label set is not listed (a report from an earlier ragreport)."""
    return Text(
        (
            "The previous report does not list the judgments of ",
            Quoted(run),
            " (it was written by an earlier ragreport), so what changed cannot be shown beyond the fingerprints.",
        )
    )


def drift_matrix_caption(k: int) -> str:
    return (
        f"Now minus then at K = {k}, per run and metric. ▲ or ▼: clearly higher or lower now; the "
        f"full rows, with both figures, are below."
    )


DRIFT_MORE = "Each figure then and now in full: band, p and verdict"


# --- Charts -----------------------------------------------------------------------------------------


def run_sweep_title(name: str, confidence: float) -> str:
    return f"K sweep of {name}: each metric with its {percent(confidence)} band"


INDEX_SWEEP_TITLE = "K sweep of every run, one metric at a time"


def scatter_title(k: int, run: str, baseline: str) -> str:
    return f"Per query at K = {k}: {run} against {baseline}"


def scatter_note(run: str) -> str:
    return f"above the line: {run} scores higher"


def outcome_title(run: str) -> str:
    return f"Queries won, tied and lost by {run}"


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


def short_hash(fingerprint: str) -> str:
    """A fingerprint as the first screen shows it: ``sha256:8cd2d2b78ead``; the full one stays a click away."""
    algorithm, _, digest = fingerprint.partition(":")
    return f"{algorithm}:{digest[:12]}" if digest else fingerprint[:19]


SCORED_FINGERPRINTS = "Full fingerprints (sha256)"


# --- The glossary -----------------------------------------------------------------------------------

GLOSSARY_TITLE = "Words used in this report"
GLOSSARY_LEDE = (
    "What each metric, each query status and each verdict means, in one sentence. K is the cutoff: "
    "the number of top results a reader sees."
)
GLOSSARY_LINK = "What these words mean"

#: Terms of the comparison, explained.
GLOSSARY_TERMS = (
    (
        "band",
        "The range the true figure very likely lies in, given these queries ({confidence} of such bands hold it); "
        "a difference whose band is clear of 0 is one the data supports.",
    ),
    (
        "corrected p",
        "How often a difference this large would turn up by chance alone, adjusted for the many comparisons "
        "made at once; below {alpha} confirms the band.",
    ),
    ("clearly better / clearly worse", "The band is clear of 0 and the corrected p confirms it."),
    (
        "better / worse by the band",
        "The band is clear of 0 but the corrected p does not confirm it: a hint, not a finding.",
    ),
    ("no clear difference", "The band includes 0: these queries cannot tell the runs apart on this metric."),
)


def glossary_metric(key: str, k: int, name: str, plain: str) -> tuple[str, str, str]:
    """A metric's glossary entry: (its label at K, its name, its plain sentence)."""
    return f"{key}@{k}", name, plain


def glossary_terms(confidence: float) -> tuple[tuple[str, str], ...]:
    return tuple(
        (term, text.format(confidence=percent(confidence), alpha=alpha(round(1 - confidence, 10))))
        for term, text in GLOSSARY_TERMS
    )


def tooltip(name: str, plain: str) -> str:
    """A header's tooltip: the metric's name and its plain sentence."""
    return f"{name} — {plain}"


# --- Gates ------------------------------------------------------------------------------------------

#: What ``--fail-on worse`` reads when the report has one run.
GATE_NO_COMPARISON = "one run: no baseline to be worse than"
#: What ``--max-drop`` names when it reads the drift since ``--previous``.
GATE_PREVIOUS = "the previous report"
GATES_TITLE = "Gates"
GATES_HEADER = ("result", "rule", "run", "metric", "what it read")


def gate_verdict_figure(
    verdict: str, delta: float | None, low: float | None, high: float | None, p_adjusted: float | None
) -> str:
    """What ``--fail-on worse`` read: the comparison's verdict with its difference, band and p."""
    words = GATE_VERDICTS[verdict]
    return f"{words}: {signed(delta)}, band {signed(low)} to {signed(high)}, corrected p {p_value(p_adjusted)}"


#: A comparison's verdict as a gate line names it (the p follows in the line).
GATE_VERDICTS = {
    "better": "clearly better",
    "worse": "clearly worse",
    "band above 0": "band above 0 only",
    "band below 0": "band below 0 only",
    "unclear": "no clear difference",
}


def step_summary_heading(title: str) -> str:
    """The heading of what ragreport appends to a CI job's summary."""
    return f"ragreport: {title}"


def gate_against_previous(figure: str) -> str:
    """What ``--fail-on worse`` read of the drift since the previous report."""
    return f"against the previous report: {figure}"


def gate_bound_figure(read_as: str, value: float | None, mean: float | None) -> str:
    """What ``--require`` read: the band's bound (or the mean) it compared."""
    if read_as.startswith(("mean", "total")):
        return f"{read_as} {decimal(value)}"
    return f"{read_as} {decimal(value)} (mean {decimal(mean)})"


def gate_drop_figure(other: str | None, low: float | None, delta: float | None, high: float | None) -> str:
    """What ``--max-drop`` read: the paired band of the difference against ``other``."""
    return f"against {other}: band {signed(low)} to {signed(high)} (difference {signed(delta)})"


def gate_result_line(passed: bool, rule: str, run: str, metric: str, figure: str) -> str:
    """One line per gate: PASS or FAIL, the rule, the run and metric, the figure it read."""
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


def comment_cut() -> str:
    return (
        "_Cut here to fit GitHub's 65,536-character limit on a comment: the headline and the gates alone "
        "are longer. The report's site and summary.md hold everything._"
    )


# --- Notebooks ----------------------------------------------------------------------------------

#: to_dataframe() without pandas installed.
PANDAS_MISSING = (
    "to_dataframe() needs pandas, which is not installed (pip install pandas); "
    "to_records() gives the same rows as a list of dicts"
)


# --- Exports: CSV and LaTeX (ragreport.output.export) -------------------------------------------------

CSV_HEADER = ("run", "metric", "mean", "low", "high", "interval", "n")
CSV_QUERY_HEADER = ("run", "query", "metric", "value")

LATEX_PREAMBLE_NOTE = (
    r"% ragreport table: needs \usepackage{booktabs}; wider than the text? use table* or wrap the"
    "\n"
    r"% tabular in \resizebox{\linewidth}{!}{...} (\usepackage{graphicx})"
)
LATEX_RUN_HEADER = "Run"
#: The superscript of each clear verdict against the baseline (LaTeX math).
LATEX_MARKS = {"better": r"\uparrow", "worse": r"\downarrow"}
#: A correction's name in a sentence.
CORRECTION_NAMES = {"holm": "Holm's method", "bonferroni": "Bonferroni's method", "none": "nothing"}


def latex_caption(k: int, confidence: float, scored: Sequence[int], *, bold: bool) -> str:
    """What the LaTeX table's figures are (no user text)."""
    counts = sorted(set(scored))
    over = f"{count(counts[0])} scored queries" if len(counts) == 1 else "each run's scored queries"
    text = (
        f"Mean at K = {k} over {over}, with its {percent(confidence)} band in brackets "
        f"(percentile bootstrap; Wilson for Hit@{k})."
    ).replace("%", r"\%")
    if bold:
        text += " Bold: the best mean of each column."
    return text


def latex_marks_note(baseline: str, alpha_value: float, correction: str) -> str:
    """What the superscripts say; ``baseline`` already escaped for LaTeX."""
    return (
        rf"$^{{{LATEX_MARKS['better']}}}$ clearly better, $^{{{LATEX_MARKS['worse']}}}$ clearly worse than "
        f"{baseline}: the paired band of the difference excludes 0 and the p of a two-sided paired "
        f"randomization test, corrected by {CORRECTION_NAMES.get(correction, correction)}, is below "
        f"{alpha(alpha_value)}."
    )


# --- The history (ragreport publish) ----------------------------------------------------------------

#: The link from a published report's pages back to its history.
HISTORY_NAV = "History"
HISTORY_TITLE = "Evaluation history"
HISTORY_SINCE_TITLE = "Since the previous report"
HISTORY_VERDICT_TITLE = "The newest report's verdict"
HISTORY_REPORTS_TITLE = "Every report"
HISTORY_TRENDS_TITLE = "Every metric across reports"
HISTORY_FIRST = "This is the history's first report: there is nothing earlier to compare it with."
HISTORY_HEADERS = ("report", "runs: primary metric with its band", "since the previous report", "query and label sets")
HISTORY_DATA_LINK = "history.json"
#: A set that differs from the report before it, as the history table marks it.
HISTORY_CHANGED = "changed"


def history_lede(reports: int, newest: str, date: str, published: str) -> Text:
    plural = "report" if reports == 1 else "reports"
    when = f"dated {date}" if date == published else f"dated {date}, published {published}"
    return Text((f"{count(reports)} {plural}, newest first. The newest is ", Quoted(newest), f", {when}."))


def history_since(previous: str, *, kept: bool, replaced: bool) -> Text:
    """Which report a drift was measured against, and whether that report is still the one shown."""
    tail = ""
    if not kept:
        tail = " (no longer kept)"
    elif replaced:
        tail = " (as it was then: it has been published again since)"
    return Text(("Against ", Quoted(previous), f"{tail}:"))


#: A drift verdict as the history says it, short.
HISTORY_DRIFT_WORDS = {
    "better": ("▲ higher now", "better"),
    "worse": ("▼ lower now", "worse"),
    "band above 0": ("higher by the band, but not confirmed by the corrected p ({p})", "band-only"),
    "band below 0": ("lower by the band, but not confirmed by the corrected p ({p})", "band-only"),
    "unclear": ("no clear change", "unclear"),
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
    return (
        Text(
            (
                Quoted(run),
                f": {metric} {decimal(then)} then, {decimal(now)} now, {signed(delta)} "
                f"(band {signed(low)} to {signed(high)}): {words}.",
            )
        ),
        css,
    )


def history_unchanged(run: str, metric: str, value: float | None) -> Text:
    return Text((Quoted(run), f": every per-query score is as it was ({metric} {decimal(value)})."))


def history_no_drift(reasons: Sequence[str]) -> Text:
    """Why no drift is shown (the drift's own sentences, which name the runs; the page escapes them)."""
    return Text(
        (f"No drift can be claimed {'; '.join(reasons)}. Figures on another query set or label set do not compare.",)
    )


def history_new_run(run: str) -> Text:
    return Text((Quoted(run), ": new in this report."))


def history_fingerprints(queries: str, labels: str) -> tuple[str, str]:
    return f"queries {short_hash(queries)}", f"labels {short_hash(labels)}"


def trend_title(metric: str) -> str:
    return f"{metric} across reports"


TREND_AXIS = "report, oldest to newest"


def trend_caption(metric: str, confidence: float) -> str:
    return (
        f"Each run's mean {metric} in each report, with its {percent(confidence)} band. Where the "
        f"query set, the label set, K or a convention changed between two reports, the line is broken "
        f"and the change is named: figures on either side do not compare."
    )


#: Above the other metrics' trends: the caption of the first holds for them all.
TRENDS_LEDE = (
    "Every other metric the reports hold, drawn the same way; a break is listed under a chart only "
    "where it is not the one above."
)


#: What can change between two reports so that their figures do not compare, in the order named.
TREND_BREAK_KINDS = ("query set", "label set", "K", "conventions")


def trend_break_mark(kinds: Sequence[str]) -> str:
    """The chart's short note at a break: ``label set changed``."""
    sets = [k for k in kinds if k.endswith(" set")]
    rest = [k for k in kinds if not k.endswith(" set")]
    named = []
    if sets:
        named.append(" and ".join(s.removesuffix(" set") for s in sets) + (" sets" if len(sets) > 1 else " set"))
    named += rest
    return " and ".join(named) + " changed"


def trend_break(before: str, after: str, kinds: Sequence[str], runs: Sequence[str], every: bool) -> Text:
    """A break of the trend lines explained: between which reports, what changed, for which runs."""
    who: tuple[str, ...]
    if every:
        who = ("every run",)
    else:
        who = tuple(p for i, run in enumerate(runs) for p in ((", " if i else ""), Quoted(run)) if p)
    return Text(
        (
            "Between ",
            Quoted(before),
            " and ",
            Quoted(after),
            f" the {trend_break_mark(kinds).removesuffix(' changed')} changed for ",
            *who,
            ": the line is broken there.",
        )
    )


def history_title(title: str) -> str:
    return f"{title}: history"


# --- Writing outputs: what --out, --single-file and publish refuse, and filesystem errors ---------


def refusing_to_replace(target: str, found: str, option: str = "--out", advice: bool = True) -> str:
    return f"refusing to replace {target}: {found}" + (f"; choose another {option} or remove it" if advice else "")


def refusing_to_publish(folder: str, found: str, advice: bool = True) -> str:
    return f"refusing to publish into {folder}: {found}" + ("; choose another folder or remove it" if advice else "")


def not_written_by(path: str, command: str) -> str:
    return f"{path} was not written by ragreport {command}"


def changed_since(path: str, command: str) -> str:
    return f"{path} was changed since ragreport {command} wrote it"


def marker_proves_nothing(path: str, reason: str) -> str:
    return f"its marker {path} {reason}, so it proves no earlier ragreport run"


OUT_IS_LINK = "it is a symbolic link; give the folder it points to"
OUT_IS_FILE = "it is a file, not a folder"
OUT_IS_MOUNT = "it is a mount point, which a build cannot replace (it swaps folders by rename); give a folder inside it"
OUT_HOLDS_CWD = "it is the current folder or holds it; give a folder below it, such as site"


def not_a_folder(path: str, link: bool = False) -> str:
    return f"{path} is a symbolic link that leads to no folder" if link else f"{path} is a file, not a folder"


def empty_path(option: str) -> str:
    return f"{option} is empty; give a name"


def another_writer(target: str, lock: str, seconds: float) -> str:
    return f"another ragreport run is writing {target} (it holds {lock}); waited {seconds:g} s, try again when it ends"


def cannot_write(target: str, reason: str, existed: bool) -> str:
    kept = "the previous one is untouched" if existed else "nothing was left behind"
    return f"cannot write {target}: {reason}; {kept}"


def cannot_restore(target: str, reason: str, where: str) -> str:
    return (
        f"cannot write {target}: {reason}, and the previous one could not be put back: it is in {where} "
        f"(the next run puts it back)"
    )


def history_changed(index: str) -> str:
    return f"{index} changed while this publish ran (another publish?); nothing was written, publish again"


# --- Slices by query metadata ------------------------------------------------------------------------

SLICES_TITLE = "Slices by query metadata"
SLICE_OPPOSITE_TITLE = "A slice goes the other way"


def slices_lede(primary: str, confidence: float, correction: str, small: int, compared: bool) -> str:
    """How the slices were read."""
    text = (
        f"The queries cut by each metadata key: per value, the queries it holds and each run's mean "
        f"{primary} with its {percent(confidence)} band"
    )
    if compared:
        text += (
            f"; each run's paired difference from the baseline over the queries both scored in the "
            f"slice, with its band and a randomization p corrected ({correction}) across every slice "
            f"comparison of the report"
        )
    return text + f". A slice of fewer than {small} queries is marked too small to read."


def slice_caption(key: str, primary: str) -> Text:
    return Text(("The queries by ", Quoted(key), f": {primary} per value"))


SLICE_SMALL = "too few queries to read"
#: The slice table's column of queries to open first (largest differences, or lowest scores).
SLICE_EXAMPLES = "queries to open"
SLICE_VALUE_HEADER = "value"
SLICE_QUERIES_HEADER = "queries"


def slice_delta_header(run: str, baseline: str) -> str:
    return f"{run} minus {baseline}"


def slice_opposite(
    run: str,
    baseline: str,
    key: str,
    value: str,
    queries: int,
    metric: str,
    delta: float,
    low: float,
    high: float,
    overall: float,
) -> Text:
    """A slice whose difference goes against the overall one, band clear of 0: the average hides it."""
    direction = "lower" if delta < 0 else "higher"
    overall_direction = "higher" if overall > 0 else "lower"
    return Text(
        (
            "Where ",
            Quoted(key),
            " is ",
            Quoted(value),
            f" ({count(queries)} queries), ",
            Quoted(run),
            f" scores {direction} than ",
            Quoted(baseline),
            f" on {metric}: {signed(delta)} (band {signed(low)} to {signed(high)}), though it scores "
            f"{overall_direction} overall ({signed(overall)}). The average hides it.",
        )
    )


# --- The documents' text (--corpus) ---------------------------------------------------------------


def text_not_shown(queries: int) -> str:
    """Under a query's top K when the documents' text is shown for other queries only."""
    return (
        f"The documents' text is shown for the {count(queries)} queries the report points at most "
        f"(the largest differences from the baseline, or a single run's lowest scores; --text-queries); "
        f"this query's top K shows ids only."
    )


TEXT_MISSING = "not in the corpus"
FULL_TEXT = "full text"


# --- The query view ---------------------------------------------------------------------------------

QUERY_VIEW_TITLE = "One query, every run"
#: In place of the query view, when the browser cannot unpack its data.
QUERY_VIEW_UNSUPPORTED = (
    "The query view needs a newer browser: this one cannot unpack its data (it has no "
    "DecompressionStream); every figure is also in the run pages' tables."
)
QUERIES_NAV = "Queries"
#: The words the query view's script shows (it lays them out; they are said here).
QUERY_VIEW_WORDS = {
    "ask": "Query id",
    "open": "Open",
    "unknown": "No query of this report has that id.",
    "pick": "Open a query: give its id, or follow a query id from any table of the report.",
    "no_text": "The documents' text is shown for the queries the report points at most (--text-queries); "
    "this query's lists show ids only.",
    "metric": "metric",
    "minus": "minus",
    "not_scored": "not scored",
    "not_in_run": "not in this run",
    "nothing": "nothing retrieved",
    "new": "new",
    "up": "up",
    "down": "down",
    "relevant_count": "relevant ids",
    "relevant_one": "relevant id",
    "unshown": "Relevant ids no run shows in its top K",
    "and_more": "and {n} more",
    "moved": "Arrows give the move against the baseline's top K: ▲ up, ▼ down, new where the baseline did not show it.",
    "full_text": "full text",
    "top": "top {k}",
}
# --- The last line of defence (cli.main) -----------------------------------------------------------

#: Printed after the traceback of an exception ragreport did not foresee.
INTERNAL_ERROR = (
    "internal error: this is a bug in ragreport, not in your input; please report it with the command "
    "line and the traceback above"
)


def unreadable_input(kind: str, message: str) -> str:
    """One line for an error Python raised on an input no reader refused first (see cli.UNREADABLE)."""
    return (
        f"an input could not be read ({kind}: {message}); check the files given, and report it if they are well-formed"
    )


def system_error(reason: str, filename: object = None) -> str:
    """One line for an operating-system error no part of ragreport turned into its own message."""
    return f"{filename}: {reason}" if filename is not None else reason


#: When an allocation failed: the inputs or the options asked for more memory than there is.
OUT_OF_MEMORY = (
    "out of memory: the inputs or the options (--resamples, --permutations, -k, --kmax) ask for more "
    "memory than this machine has; lower them or score on a larger machine"
)
