"""The words the page templates lay out: headings, column headers, labels and the few sentences
built around the view's figures.

The templates reach this module as ``words`` (:func:`ragreport.output.site.pages.install`) and hold no
English of their own (``tests/test_templates.py`` fails on a text node a template hard-codes). The
view's own words (captions, verdicts, the headline) come with the view; these are the page's frame.
Words another part of the wording states already are imported here under their own names, never
written twice.
"""

from __future__ import annotations

from .comparison import SINCE_PREVIOUS as SINCE_PREVIOUS
from .report import CONVENTIONS_TITLE as CONVENTIONS_TITLE
from .report import NOT_DEFAULT as NOT_DEFAULT

# --- Every page -------------------------------------------------------------------------------------

#: The first link of every page, for a keyboard or a screen reader.
SKIP_LINK = "Skip to the report"
#: What a screen reader calls the pages' navigation.
NAV_LABEL = "Pages"
#: The navigation's link to the report's first page.
OVERVIEW_NAV = "Overview"
GLOSSARY_LINK = "What these words mean"
#: In place of a chart where plotly.js did not load (a site's assets folder missing).
CHARTS_MISSING = "The chart needs plotly.js, which did not load."
#: The verdict first, under it the link to the figures behind it and the list of caveats.
HEADLINE_TITLE = "The verdict"
HEADLINE_DETAILS = "The details"
CAVEATS_TITLE = "What could overturn it"
#: The first screen's parts, as a screen reader and the details' summary name them.
FIRST_CAVEATS_TITLE = "What could change the decision"
FIRST_DETAILS = "The figures behind these lines"


def footer(generator: str, date: str) -> str:
    return f"Built by {generator}. Report dated {date}. Opens offline: no server, no network, no CDN."


# --- Column headers ----------------------------------------------------------------------------------

COL_RUN = "run"
COL_METRIC = "metric"
COL_INTERVAL = "interval"
COL_CONVENTION = "convention"
COL_TREC_EVAL = "trec_eval"
#: The long-form suite table's one column of every run's mean and band, a line per run.
COL_PER_RUN = "each run's mean and band"
COL_ID = "id"
COL_QUERY = "query"
COL_QUERIES = "queries"
COL_CHANGE = "change"
COL_DELTA = "delta"
COL_BAND = "band"
COL_P = "p"
COL_WON_TIED_LOST = "won/tied/lost"
#: The standardised effect d_z with its band (docs/conventions.md section 10).
COL_EFFECT = "d_z"
COL_THEN = "then"
COL_NOW = "now"
COL_PAIRED = "queries paired"
COL_MOVED = "moved"
COL_VERDICT = "verdict"


def band_column(confidence: str) -> str:
    """A band's column at its level: ``95% band`` (``confidence`` already formatted)."""
    return f"{confidence} {COL_BAND}"


def corrected_p_column(correction: str) -> str:
    """The corrected p's column: ``p (holm)``."""
    return f"{COL_P} ({correction})"


def slice_p(p_adjusted: str) -> str:
    """A slice's corrected p beside its band: `` · p 0.012``."""
    return f" · {COL_P} {p_adjusted}"


# --- The overview -------------------------------------------------------------------------------------

SCORED_TITLE = "What was scored"
SCORED_FINGERPRINTS = "Full fingerprints (sha256)"
SCORED_CAPTION = "Each run, its queries and the fingerprints of its query set and label set (sha256)."
COL_SCORED = "scored"
COL_NO_RELEVANT = "no relevant id"
COL_MISSING = "missing from run"
COL_REPEATS = "repeats"
COL_K = "K"
COL_DATE = "date"
COL_FINGERPRINTS = "fingerprints"
#: Before a run's fingerprint of its query set, and of its label set.
FINGERPRINT_QUERIES = "queries"
FINGERPRINT_LABELS = "labels"


def suite_title(k: int) -> str:
    return f"Suite figures at K = {k}"


#: The K sweep's section, on the overview and on each run's page.
SWEEP_TITLE = "K sweep"
PR_TITLE = "Precision-recall curve"
#: The section of the scores of --scores, on the overview and on each run's page.
SCORES_TITLE = "Scores computed outside ragreport"
DRIFT_CAPTION = (
    "Each figure then and now; the change carries a paired bootstrap band over the queries both reports scored."
)
RUNS_TITLE = "Runs"
#: What each run's page holds, as the overview's list of runs says it, around its honest limits.
RUN_HOLDS = ": per-query table, conventions,"
RUN_HOLDS_END = ", metadata."


# --- A run's page -------------------------------------------------------------------------------------

RUN_FROM = "Run from"
#: A run page's pointer to the report's conventions, stated once on the overview.
RUN_CONVENTIONS = "This run is scored under the report's conventions, stated once on the overview"


def run_scored(k: int, date: str) -> str:
    """The rest of a run page's first sentence, after its file."""
    return f", scored at K = {k}, dated {date}."


def run_summary_title(k: int) -> str:
    return f"Summary at K = {k}"


PER_QUERY_TITLE = "Per query"
STATUS_LABEL = "Status"


def every_status(total: str) -> str:
    """The status filter's first choice, with the number of queries."""
    return f"every status ({total})"


FILTER_PLACEHOLDER = "filter"
#: Shown while the per-query table has columns out of view to the right; it scrolls them in.
MORE_COLUMNS = "More columns \u2192"
#: The pairwise matrix's own columns, and what its diagonal cell (a run against itself) says to a screen reader.
PAIRS_MEAN = "mean"
PAIRS_RANK = "rank (interval)"
PAIRS_SELF = "the run itself"
#: The hidden header of the column of buttons that open a query's top K.
DETAILS_HEADER = "details"
PAGE_PREVIOUS = "Previous"
PAGE_NEXT = "Next"
TABLE_NEEDS_SCRIPT = "The per-query table needs JavaScript; report.json holds every row."
LIMITS_TITLE = "Honest limits"
METADATA_TITLE = "Metadata and notes"
METADATA_CAPTION = "As given in the run's metadata file."
NO_METADATA = "No metadata was given for this run (see"
#: The option that gives a run's metadata, named in that sentence.
NO_METADATA_OPTION = "--meta"
NOTES_TITLE = "Notes"


# --- The history page ---------------------------------------------------------------------------------

#: The history page's link to the newest report.
HISTORY_OPEN_NEWEST = "Open the newest report"
HISTORY_VERDICT_TITLE = "The newest report's verdict"
HISTORY_REPORTS_TITLE = "Every report"
HISTORY_TRENDS_TITLE = "Every metric across reports"
#: Above the trends of the scores computed outside ragreport (--scores), never mixed with its own.
HISTORY_SCORES_TITLE = "Scores computed outside ragreport, across reports"
#: Above the other metrics' trends: the caption of the first holds for them all.
TRENDS_LEDE = (
    "Every other metric the reports hold, drawn the same way; a break is listed under a chart only "
    "where it is not the one above."
)


def history_gates(failed: int, total: int) -> str:
    """A report's gates as the history's table of reports says them."""
    return f"gates: {failed} of {total} failed"


# --- The query view -----------------------------------------------------------------------------------

QUERY_VIEW_TITLE = "One query, every run"
#: In place of the query view, when the browser cannot unpack its data.
QUERY_VIEW_UNSUPPORTED = (
    "The query view needs a newer browser: this one cannot unpack its data (it has no "
    "DecompressionStream); every figure is also in the run pages' tables."
)
