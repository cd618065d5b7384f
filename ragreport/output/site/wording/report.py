"""The words of a report's pages: a run, the suite tables, the glossary, the slices, the documents'
text and the query view."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .gates import GATE_VERDICTS
from .numbers import Text, alpha, band_words, count, counted, decimal, is_missing, percent, said, signed

if TYPE_CHECKING:
    from ....analysis.shown import Shown

#: In place of each chart of the single file, when the browser cannot unpack its plotly.js.
PLOTLY_UNSUPPORTED = (
    "The chart needs a newer browser: this one cannot unpack the plotly.js this file carries "
    "(it has no DecompressionStream); every figure is also in the tables."
)
#: In place of each chart of the single file, when its plotly.js was unpacked but did not run.
PLOTLY_FAILED = "The chart needs plotly.js, which this file carries but which did not run."

#: How each interval method is named wherever a table shows it.
#: Keyed by the method's value (``IntervalMethod.WILSON.value``), so that the words import no catalogue.
INTERVAL_NAMES = {"wilson": "Wilson", "bootstrap": "bootstrap", "none": "none"}


# --- A run ------------------------------------------------------------------------------------------


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
    zero = c.get("no_relevant_as_zero")
    parts = [
        f"{count(c['queries'])} queries",
        f"{count(c['scored'])} scored",
        f"{count(c['excluded_no_relevant'])} excluded (no relevant id)",
        *([f"{count(zero)} with no relevant id averaged in as 0"] if zero else []),
        f"{count(c['missing_from_run'])} judged but missing from the run",
        f"{counted(c['repeats'], 'repeated id')} in {counted(c['queries_with_repeats'], 'query')}",
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


def switch_name(name: str) -> str:
    """A convention's field name as a heading: ``no_relevant`` -> ``No relevant``."""
    return name.replace("_", " ").capitalize()


def switch_flag(name: str, value: str) -> str:
    """The command-line switch that sets a convention: ``--no-relevant exclude``."""
    return f"--{name.replace('_', '-')} {value}"


def limits_line(n: int) -> str:
    return f"{n} honest limits"


def interval_aria(mean: float, low: float, high: float) -> str:
    """What a screen reader says for a mean and its band drawn as a bar."""
    if any(is_missing(v) for v in (mean, low, high)):
        return "not available"
    return f"{decimal(mean)}, {band_words(low, high, end=decimal)}"


def run_captions(scored: int, k: int, kmax: int, confidence: float, sampled: bool = False) -> tuple[str, str, str]:
    """The run page's captions: the suite table, the K sweep and the per-query table (of the
    queries listed, when ``sampled``)."""
    conf = percent(confidence)
    return (
        f"Means over the {count(scored)} scored queries at K = {k}, each with its {conf} "
        f"band, the interval that made it and the convention behind it.",
        f"Every metric at K from 1 to {kmax} with its {conf} band; the dotted line "
        f"marks K = {k}. Hover a point for its mean and band.",
        f"{'Each listed' if sampled else 'Every'} query at K = {k}. Sort by any column; filter by status or id; "
        f"open a row for its top {k} ids, each marked relevant, judged non-relevant, unjudged or repeat.",
    )


def report_captions(n_runs: int, k: int, date: str, confidence: float) -> tuple[str, str, str]:
    """The index's lede and its captions: the suite table and the K sweep."""
    conf = percent(confidence)
    return (
        f"{n_runs} run{'s' if n_runs != 1 else ''} scored at K = {k}, dated {date}. Every mean "
        f"carries its {conf} band and the convention that produced it.",
        f"Means at K = {k} with their {conf} bands" + (", runs side by side." if n_runs > 1 else "."),
        f"Every run's mean at each K with its {conf} band; choose the metric "
        f"from the menu. The dotted line marks K = {k}.",
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
    return (
        f"On paper this table holds the rows shown on screen when it was printed (every one of the "
        f"{count(n)} unless filtered); report.json holds all {count(n)}."
    )


#: What holds the sampled queries, as :func:`sample_note` begins: a run's table, the query view.
TABLE_LISTING = "This table shows"
VIEW_LISTING = "This view holds"


def sample_note(listing: str, shown: Shown) -> Text:
    """The sentence above a listing of the sampled queries (docs/conventions.md section 29.1):
    ``listing`` is what holds them ("This table shows", "This view holds")."""
    if shown.compared == 0:
        ends = f"the {count(shown.wins)} highest and the {count(shown.losses)} lowest {shown.metric}"
    elif shown.compared == 1:
        ends = f"the {count(shown.wins)} largest wins and the {count(shown.losses)} largest losses against {{base}}"
    else:
        ends = (
            f"each run's largest wins and losses against {{base}} (up to {count(shown.each)} of each, "
            f"{counted(shown.wins + shown.losses, 'query')} in all)"
        )
    if shown.compared:
        ends += f" on {shown.metric}"
    if shown.cited:
        pointed = "movers, slice examples, texts" + (", audited queries" if shown.audited else "")
        ends += f", {counted(shown.cited, 'other query')} the report points to ({pointed})"
    kept = "report.json holds them all." if shown.stored_all else "report.json holds the same ones, and every figure."
    return said(
        f"{listing} {count(len(shown.ids))} of the {count(shown.total)} queries: {ends} and "
        f"{count(shown.drawn)} drawn at random (the same for every run). {kept}",
        **({"base": shown.baseline or ""} if shown.compared else {}),
    )


def sampled_print_note(shown: Shown) -> str:
    return (
        f"On paper this table holds the rows shown on screen when it was printed (every one of the "
        f"{count(len(shown.ids))} listed unless filtered); "
        + (f"report.json holds all {count(shown.total)}." if shown.stored_all else "report.json holds the same ones.")
    )


def unknown(shown: Shown) -> str:
    """The query view's words for an id it does not hold, once it holds a sample."""
    return (
        f"No query this view holds has that id: it holds {count(len(shown.ids))} of the "
        f"{count(shown.total)} queries; "
        + ("report.json holds them all." if shown.stored_all else "so does report.json: the run files hold the others.")
    )


#: Marks of the ids in a query's top K (the per-query table).
MARKS = ("relevant", "judged non-relevant", "unjudged", "repeat")
#: The per-query table's fixed columns, before the metrics.
QUERY_COLUMNS = ("id", "status", "query", "R", "retrieved", "first relevant rank")
DIFFERENCE_COLUMN_TITLE = (
    "The query's score minus the baseline's on the primary metric; blank where one of the two did not score it."
)


def difference_column(metric: str, baseline: str) -> str:
    return f"{metric} minus {baseline}"


#: Tooltips of the per-query table's fixed columns that need one (the glossary explains each status).
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


# --- The glossary -----------------------------------------------------------------------------------

GLOSSARY_TITLE = "Words used in this report"
GLOSSARY_LEDE = (
    "What each metric, each query status and each verdict means, in one sentence. K is the cutoff: "
    "the number of top results a reader sees."
)

GLOSSARY_TERMS = {
    "band": "The range the true figure very likely lies in, given these queries ({confidence} of such bands hold "
    "it); a difference whose band is clear of 0 is one the data supports.",
    "corrected p": "How often a difference this large would turn up by chance alone, adjusted for the many "
    "comparisons made at once; below {alpha} confirms the band.",
    "clearly better / clearly worse": "The band is clear of 0 and the corrected p confirms it.",
    "better / worse by the band": "The band is clear of 0 but the corrected p does not confirm it: a hint, not a "
    "finding.",
    "no clear difference": "The band includes 0: these queries cannot tell the runs apart on this metric.",
    "practically the same": "The whole band lies within the margin (--min-effect): any difference is too small to "
    "matter (an equivalence test: two one-sided tests).",
    "better / worse, below the margin": "A difference was found, but the whole band lies within the margin: real "
    "and too small to matter.",
    "effect (d_z)": "The mean difference over the standard deviation of the per-query differences: how large it "
    "is against the spread between queries.",
}


def glossary_metric(key: str, k: int, name: str, plain: str) -> tuple[str, str, str]:
    return f"{key}@{k}", name, plain


def glossary_terms(confidence: float) -> tuple[tuple[str, str], ...]:
    return tuple(
        (term, text.format(confidence=percent(confidence), alpha=alpha(round(1 - confidence, 10))))
        for term, text in GLOSSARY_TERMS.items()
    )


def tooltip(name: str, plain: str) -> str:
    return f"{name} — {plain}"


# --- Slices by query metadata ------------------------------------------------------------------------

SLICES_TITLE = "Slices by query metadata"
SLICE_OPPOSITE_TITLE = "A slice goes the other way"


def slices_lede(primary: str, confidence: float, correction: str, small: int, compared: bool) -> str:
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
    return said(f"The queries by {{key}}: {primary} per value", key=key)


SLICE_SMALL = "too few queries to read"
#: The slice table's column of each run's mean of each score computed outside ragreport (--scores).
SLICE_SCORES_HEADER = "scores computed outside ragreport, per run"
#: The slice table's column of queries to open first (largest differences, or lowest scores).
SLICE_EXAMPLES = "queries to open"


def slice_delta_header(run: str, baseline: str) -> str:
    return f"{run} minus {baseline}"


def slice_figures_header(primary: str) -> str:
    """The stacked column of each run's figure on the primary metric in one slice."""
    return f"{primary} per run"


def slice_deltas_header(baseline: str) -> str:
    """The stacked column of each compared run's difference from the baseline in one slice."""
    return f"minus {baseline}"


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
    return said(
        f"Where {{key}} is {{value}} ({count(queries)} queries), {{run}} scores {direction} than {{baseline}} on "
        f"{metric}: {signed(delta)} ({band_words(low, high)}), though it scores {overall_direction} overall "
        f"({signed(overall)}). The average hides it.",
        key=key,
        value=value,
        run=run,
        baseline=baseline,
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

#: In place of the documents' text where the browser cannot unpack the report's text table.
TEXTS_UNSUPPORTED = (
    "The documents' text needs a newer browser: this one cannot unpack it (it has no DecompressionStream)."
)
QUERIES_NAV = "Queries"
#: The per-query table's words, which the page's script fills in (``{k}``, ``{id}``, ...).
QUERY_TABLE_WORDS = {
    "nothing": "Nothing was retrieved for this query.",
    "top": "Top {k} for query {id}",
    "heads": ["rank", "mark", "grade", "id"],
    "show": "Show the top {k} for query {id}",
    "rows": "Rows {start}\u2013{stop} of {total}",
    "filtered": " (filtered from {all})",
    "none": "No query matches.",
}
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
    "meta": "Metadata",
    "detail": "Description and narrative",
    "baseline": "(baseline)",
}


# --- The readings of unjudged ids (docs/conventions.md section 20.2) --------------------------------

#: The readings' column headers, the default one first.
READING_HEADERS = (
    "unjudged as not relevant (default)",
    "unjudged as relevant (bound)",
    "unjudged removed (condensed)",
    "unjudged relevant at the judged rate",
)
READINGS_RUN_HEADER = ("run", "metric")


def scores_caption(source: str, judges: Sequence[str], scales: Sequence[tuple[str, str, str]]) -> str:
    """Who computed the scores of --scores (not ragreport), and the scale each is shown on."""
    by = f" (judge: {', '.join(judges)})" if judges else ""
    shown = "; ".join(f"{name} {scale}, {how}" for name, scale, how in scales)
    return (
        f"Scores computed outside ragreport, read from {source}{by}: ragreport computed none of them, only "
        f"their means, bands and comparisons. Each mean is on the scale the score was given on ({shown}); "
        f"bands are Wilson's for 0/1 scores, else the bootstrap over the queries the file scores. They are "
        f"not part of the ranked-list figures."
    )


SCORES_HEADER = ("Run", "Score", "Scale", "Mean", "Band", "Queries scored")
SCORES_COMPARISON_HEADER = ("Run", "Score", "Difference", "Band", "Corrected p", "Verdict", "Won/tied/lost")


def scores_comparison_caption(baseline: str, scale_margins: str) -> str:
    return (
        f"Each run's scores against {baseline}'s over the queries both were scored on: the mean paired "
        f"difference on the score's own scale, its paired bootstrap band, and the randomization test's p "
        f"corrected across these score comparisons alone (a family apart from the ranked-list metrics'); "
        f"the margin of a negligible difference is --min-effect of each scale's width ({scale_margins})."
    )


def steps_caption(k: int, hops: int, found: int, later: int) -> str:
    """What the table of a multi-hop run's steps shows, and what the later hops found."""
    return (
        f"What each of the run's {hops} retrieval steps added: Recall@{k} and Hit@{k} of the union of hops 1 to h, "
        f"in order of first appearance, cut at K = {k}, with their bands (bootstrap for Recall, Wilson for Hit). "
        f"Of the {found} relevant ids in the top {k}, {later} were found only by a later hop than the first."
    )


def steps_header(k: int) -> tuple[str, ...]:
    return ("After hops", f"Recall@{k}", "band", f"Hit@{k}", "band", f"Relevant ids in the top {k}")


def readings_caption(k: int) -> str:
    return (
        f"Every mean at K = {k} under four readings of the ids nobody judged: as not relevant (every "
        f"figure of the report), as relevant at the lowest relevant grade (R growing by them: a bound, "
        f"not a likely figure), removed before the cut at {k} (trec_eval -J), and as relevant as often as "
        f"the run's judged ids at the same rank are."
    )


def readings_comparison_caption(k: int) -> str:
    return (
        f"Each difference from the baseline under the readings of unjudged ids at K = {k}, with its "
        "verdict; a verdict is robust to unjudged ids when it holds with them removed and with them read "
        "as relevant at the judged rate. Every unjudged id read as relevant is a bound, never a caveat."
    )


#: A verdict in a cell of the readings' table: a gate line's words, the clear ones shorter.
READING_VERDICTS = {**GATE_VERDICTS, "better": "better", "worse": "worse", "unclear": "unclear"}


def reading_delta_cell(delta: float | None, verdict: str) -> str:
    return f"{signed(delta)} ({READING_VERDICTS[verdict]})"
