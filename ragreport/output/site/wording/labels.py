"""The words of the audit of a model judge's labels (``--audit``; docs/conventions.md section 25)."""

from __future__ import annotations

from .numbers import band, band_words, counted, decimal, percent, signed, signed_band

LABELS_TITLE = "Labels: the model judge, audited"
LABELS_HEADER = ("run", "metric", "model's labels (audited)", "human labels (audited)", "corrected (all)")


def _kappa(value: float, low: float, high: float, confidence: float) -> str:
    if value != value:  # NaN: undefined
        return "undefined (one class only)"
    return f"{decimal(value)} ({band_words(low, high, confidence, decimal)})"


def agreement_sentence(
    source: str,
    queries: int,
    pairs: int,
    kappa: tuple[float, float, float],
    weighted: tuple[float, float, float],
    disagreement: float | None,
    k: int,
    confidence: float,
) -> str:
    """ "Audited by human.qrels on 40 queries: on the 1,200 pairs both judged, ..."."""
    text = (
        f"Audited by {source} on {queries:,} queries: on the {pairs:,} pairs both judged, Cohen's kappa "
        f"{_kappa(*kappa, confidence)}, quadratically weighted kappa {_kappa(*weighted, confidence)}"
    )
    if disagreement is not None:
        text += f"; the two label sets read {disagreement:.1%} of the top-{k} slots on audited queries differently"
    return text + "."


def tau_sentence(tau: float | None) -> str | None:
    """Kendall's tau of the runs' orderings, with three or more runs."""
    if tau is None or tau != tau:
        return None
    return f"Kendall's tau between the runs' orderings under the two label sets: {signed(tau)}."


def figure(mean: float, low: float, high: float) -> str:
    """ "0.512 (0.480 to 0.544)"; a dash where undefined."""
    if mean != mean:
        return "–"
    return f"{decimal(mean)} ({decimal(low)} to {decimal(high)})"


# --- The site's Labels section (the index) and a run page's Labels block --------------------------

#: The pages' navigation link to the index's Labels section.
LABELS_NAV = "Labels"
#: The section's first words: what it measures and where the figures come from.
LABELS_LEDE = (
    "The --qrels are a model judge's labels; the audit gives human labels for a sample of queries. "
    "How far the two agree, the runs under each, and each figure corrected by the audit "
    "(prediction-powered: the model's labels everywhere, the audited queries' human-minus-model difference added)."
)
AGREEMENT_TITLE = "Agreement on the pairs both judged"
CONFUSION_TITLE = "Grades given, model by human"
RUNS_TITLE = "The runs under both label sets"
COMPARISONS_TITLE = "The comparisons, corrected"

#: The agreement's figures, each a fact card: its name.
FACT_KAPPA = "Cohen's kappa (relevant or not)"
FACT_WEIGHTED = "Weighted kappa (grades, quadratic)"
FACT_PAIRS = "Pairs both judged"
FACT_QUERIES = "Audited queries"
FACT_DISAGREEMENT = "Top-K slots read differently"
FACT_TAU = "Kendall's tau of the runs' orderings"


def kappa_value(value: float) -> str:
    """A kappa as its fact card shows it: ``0.623``, or why there is none."""
    return "undefined" if value != value else decimal(value)


def kappa_band(low: float, high: float, confidence: float) -> str:
    """The kappa's band under its figure: ``95% band [0.512, 0.701]``."""
    if low != low or high != high:
        return "no band (one class only)"
    return f"{percent(confidence)} band {band(low, high)}"


def disagreement_value(share: float | None) -> str:
    return "–" if share is None or share != share else f"{share:.1%}"


def disagreement_note(slots: int, k: int) -> str:
    """Under the slot disagreement: what it is a share of."""
    return f"of {slots:,} top-{k} slots on audited queries" if slots else "no top-K slot on an audited query"


TAU_NOTE = "1 is the same order under both"


def confusion_caption(pairs: int) -> str:
    return f"The {pairs:,} pairs both judged, by the model's grade (rows) and the human grade (columns)."


#: How to read the heat map, under it.
CONFUSION_HOW = (
    "Read a row across: the pairs the model gave that grade, by the grade the human gave. The diagonal "
    "(outlined) is where the two agree; a count right of it is a pair the human graded higher, left of it "
    "lower. A cell is darker the larger its share of its row; every count is written in its cell."
)
#: The heat map's corner, a line each: which way is which.
CONFUSION_CORNER = ("model's grade ↓", "human grade →")
CONFUSION_TOTAL = "all"


def confusion_cell_title(model: str, human: str, count: int, row: int) -> str:
    """A cell's title: both grades, its count and its share of the row."""
    share = f" ({count / row:.0%} of the model's grade {model})" if row else ""
    return f"model grade {model}, human grade {human}: {counted(count, 'pair')}{share}"


def runs_caption(confidence: float) -> str:
    return (
        f"Each run's metrics on the audited queries under the model's labels and the human labels, and "
        f"corrected over every scored query; each with its {percent(confidence)} band (normal)."
    )


#: The Labels table's columns, the audited queries after the metric.
RUNS_HEADER = (*LABELS_HEADER[:2], "audited queries", *LABELS_HEADER[2:])


def comparisons_caption(baseline: str, confidence: float) -> str:
    return (
        f"Each compared run's difference from the baseline {baseline}: under the model's labels (every paired "
        f"query, the comparison's own verdict), under the human labels (the audited paired queries) and "
        f"corrected, each with its {percent(confidence)} band and verdict (the human labels' read off its band alone)."
    )


def runs_more(metrics: int) -> str:
    """The expander of every metric's rows under the primary metric's table."""
    return f"Every run under both label sets, all {metrics} metrics"


def comparisons_more(metrics: int) -> str:
    return f"Every comparison corrected, all {metrics} metrics"


COMPARISONS_HEADER = ("run", "metric", "audited queries", "model's labels", "human labels (audited)", "corrected")

#: A verdict in the Labels tables, short: its words and its CSS class.
VERDICT_WORDS = {
    "better": ("▲ better", "better"),
    "worse": ("▼ worse", "worse"),
    "band above 0": ("band above 0, not significant", "band-only"),
    "band below 0": ("band below 0, not significant", "band-only"),
    "unclear": ("no clear difference", "unclear"),
    "better below margin": ("▲ better, below the margin", "negligible"),
    "worse below margin": ("▼ worse, below the margin", "negligible"),
    "equivalent": ("practically the same", "equivalent"),
}

#: Beside a corrected verdict that differs from the model's.
VERDICT_MOVED = "the audit changes the verdict"


def figure_value(mean: float) -> str:
    return "–" if mean != mean else decimal(mean)


def figure_band(low: float, high: float) -> str:
    """A figure's band in the Labels tables: ``[0.480, 0.544]``; empty where undefined."""
    return "" if low != low or high != high else band(low, high)


def delta_band(low: float, high: float) -> str:
    return "" if low != low or high != high else signed_band(low, high)


RUN_LABELS_TITLE = "Labels: this run under the audit"


def run_labels_lede(source: str, queries: int) -> str:
    return (
        f"Its metrics on the {queries:,} queries audited by {source}, under both label sets, and corrected; "
        "the agreement and every run side by side: "
    )


RUN_LABELS_LINK = "the Labels section"


# --- The terminal's block --------------------------------------------------------------------------

#: The terminal block's columns (the figures are mean and band).
TERMINAL_HEADER = ("model (audited)", "human (audited)", "corrected (all)")


def terminal_figure(mean: float, low: float, high: float) -> str:
    """ "0.512 [0.480, 0.544]" (20 characters); a dash where undefined."""
    if mean != mean:
        return "–"
    return f"{decimal(mean)} {band(low, high)}"
