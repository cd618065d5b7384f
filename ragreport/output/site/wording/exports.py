"""The words of the exports: CSV and LaTeX (:mod:`ragreport.output.exports.tables`) and the notebook records."""

from __future__ import annotations

from collections.abc import Sequence

from .numbers import alpha, count, percent

# --- Notebooks ----------------------------------------------------------------------------------

#: to_dataframe() without pandas installed.
PANDAS_MISSING = (
    "to_dataframe() needs pandas, which is not installed (pip install pandas); "
    "to_records() gives the same rows as a list of dicts"
)


# --- Exports: CSV and LaTeX (ragreport.output.exports.tables) -------------------------------------------------

CSV_HEADER = ("run", "metric", "mean", "low", "high", "interval", "n")
CSV_QUERY_HEADER = ("run", "query", "metric", "value")

#: The HELP line of each gauge of ``--format openmetrics`` (no backslash, no line feed: HELP escapes them).
OPENMETRICS_HELP = {
    "mean": "The run's mean of the metric over the scored queries (a count: its total).",
    "band_low": "The lower bound of the mean's confidence band.",
    "band_high": "The upper bound of the mean's confidence band.",
    "base_difference": "The mean now minus the mean in the previous (base) report, where both are comparable.",
}

LATEX_PREAMBLE_NOTE = (
    r"% ragreport table: needs \usepackage{booktabs}; wider than the text? use table* or wrap the"
    "\n"
    r"% tabular in \resizebox{\linewidth}{!}{...} (\usepackage{graphicx})"
)
LATEX_RUN_HEADER = "Run"
#: The superscript of each clear verdict against the baseline (LaTeX math).
#: A difference below the margin is marked as one above it: the mark says the test found it.
LATEX_MARKS = {
    "better": r"\uparrow",
    "worse": r"\downarrow",
    "better below margin": r"\uparrow",
    "worse below margin": r"\downarrow",
}
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
