"""Exports of the report document for other tools: CSV (spreadsheets, pandas, R) and a LaTeX table.

Both read the document (what report.json holds), so ``score`` and ``render`` print the same.
The words and marks they carry are in :mod:`ragreport.output.site.wording.exports`.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from ...core.escape import visible
from ...scoring.catalogue import COMPARED, JUDGED, SUITE, ValueKind, by_key
from ..site.wording import exports as say
from ..site.wording import numbers as fmt
from .reportjson.migrate import query_rows

# --- CSV --------------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """A number at full precision (Python's shortest round-trip form, ``repr``), None as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return value


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180: CRLF, quotes only where needed
    writer.writerows(rows)
    return out.getvalue()


def _figures(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every figure of a run in the document's order: the suite at each cutoff, then the named measures
    (once each: a measure named with --metrics that is also a suite figure, as nDCG@10, is not repeated)."""
    held = {**run.get("measures", {}), **run["metrics"]}
    return {label: held[label] for label in dict.fromkeys([*run["metrics"], *run.get("measures", {})])}


def csv_text(document: dict[str, Any], per_query: bool = False) -> str:
    """The report as CSV: a header row, then one row per run and metric (``run, metric, mean, low,
    high, interval, n``, n the queries the mean is over); with ``per_query`` one row per run, scored
    query and metric (``run, query, metric, value``). Ids and names are written as given (quoted
    where RFC 4180 needs it, never altered), numbers in full (``repr``), a missing figure empty."""
    if per_query:
        rows: list[list[Any]] = [list(say.CSV_QUERY_HEADER)]
        for run in document["runs"]:
            labels = list(_figures(run))
            for query in query_rows(document, run):
                if not query.get("scored"):
                    continue
                rows += [[run["name"], query["id"], label, _cell(query.get(label))] for label in labels]
        return _csv(rows)
    rows = [list(say.CSV_HEADER)]
    for run in document["runs"]:
        n = run["counts"]["scored"]
        for label, figure in _figures(run).items():
            rows.append(
                [run["name"], label, *(_cell(figure[key]) for key in ("mean", "low", "high")), figure["interval"], n]
            )
    return _csv(rows)


# --- OpenMetrics (GitLab's Metrics Reports) ---------------------------------------------------------

#: The gauges of ``--format openmetrics``, each a family with one sample per run and metric: its
#: name and what its HELP line says (the words in :mod:`ragreport.output.site.wording.exports`).
OPENMETRICS_FAMILIES = ("mean", "band_low", "band_high", "base_difference")


def _label_value(text: str) -> str:
    """A label's value as OpenMetrics quotes it: backslash, double quote and line feed escaped
    (the only three it escapes); a control or bidi character, or a lone surrogate no UTF-8 file can
    hold, shown first as a visible escape."""
    shown = visible(str(text)).encode("utf-8", "backslashreplace").decode("utf-8")
    return shown.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def openmetrics(document: dict[str, Any]) -> str:
    """The report as OpenMetrics text (GitLab's ``metrics.txt``): four gauges, ``ragreport_mean``,
    ``ragreport_band_low``, ``ragreport_band_high`` and ``ragreport_base_difference`` (the change
    since the previous report, ``--previous`` or ``pr --base``: only where drift was measured), each
    with one sample per run and metric labelled ``run`` and ``metric``, the figure in full
    (``repr``); a figure that could not be taken (None, NaN) has no sample. A count's figure is its
    total. Ends with ``# EOF``."""
    figures: dict[str, list[tuple[str, str, float | None]]] = {name: [] for name in OPENMETRICS_FAMILIES}
    for run in document["runs"]:
        for label, figure in _figures(run).items():
            mean = figure["total"] if figure.get("total") is not None else figure["mean"]
            for name, value in zip(OPENMETRICS_FAMILIES, (mean, figure.get("low"), figure.get("high"))):
                figures[name].append((run["name"], label, value))
    for row in (document.get("drift") or {}).get("rows") or ():
        figures["base_difference"].append((row["run"], row["metric"], row.get("delta")))
    lines = []
    for name in OPENMETRICS_FAMILIES:
        lines += [f"# TYPE ragreport_{name} gauge", f"# HELP ragreport_{name} {say.OPENMETRICS_HELP[name]}"]
        for run_name, label, value in figures[name]:
            if value is None or value != value:  # not taken, or NaN: no sample
                continue
            labels = f'run="{_label_value(run_name)}",metric="{_label_value(label)}"'
            lines.append(f"ragreport_{name}{{{labels}}} {float(value)!r}")
    return "\n".join([*lines, "# EOF"]) + "\n"


# --- LaTeX ------------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # After a row's \\ (a line break), "[2cm]" is read as its spacing and "*" as its star form, so
    # a run named "[2cm]" vanished and "*x" printed as "x": braced, they are plain text anywhere.
    "[": "{[}",
    "]": "{]}",
    "*": "{*}",
    # The default (OT1) font prints these as other glyphs (an inverted mark, a dash): named instead.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    """``text`` as LaTeX prints it literally: each of ``\\ & % $ # _ { } ~ ^ [ ] * < > |`` replaced,
    in one pass; a control or bidi character (a newline would end the row's paragraph) shown first as an escape."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in visible(text))


def _columns(document: dict[str, Any]) -> list[tuple[str, bool]]:
    """The table's columns: each suite metric at the report's K, then each named measure; with
    whether its best mean is marked (not for a diagnostic or a count, where more is not better)."""
    k = document["runs"][0]["k"]
    held = document["runs"][0]["metrics"]
    # Judged@K is P@K again where every run's judgments list relevant ids alone: not shown (20.2)
    suite = [m for m in SUITE if not (m is JUDGED and document.get("relevant_only"))]
    columns = [(metric.label(k), metric in COMPARED) for metric in suite if metric.label(k) in held]
    shown = {label for label, _ in columns}
    for measure in document.get("settings", {}).get("metrics", []):
        if measure["label"] not in shown:  # nDCG@10 named with --metrics is the suite's column already
            columns.append((measure["label"], by_key(measure["key"]).kind is not ValueKind.COUNT))
    return columns


def latex_table(document: dict[str, Any]) -> str:
    """A booktabs table of the runs (rows) by metrics at K (columns): each mean with its band
    under it in small type (a nested ``tabular``, so eight metrics fit a page's width), the best
    mean of each column in bold, and the comparison's clear verdicts against the baseline as
    superscripts (:data:`~ragreport.output.site.wording.exports.LATEX_MARKS`), explained under the table.
    Every name is escaped."""
    runs = document["runs"]
    columns = _columns(document)
    figures = [_figures(run) for run in runs]
    best = {}
    for label, marked in columns:
        means = [f[label]["mean"] for f in figures if label in f and f[label]["mean"] is not None]
        if marked and len(runs) > 1 and means:
            best[label] = fmt.decimal(max(means))  # ties at the shown precision are all bold
    verdicts = {(c["run"], c["metric"]): c["verdict"] for c in document.get("comparisons", [])}
    lines = [
        say.LATEX_PREAMBLE_NOTE,
        r"\begin{table}[htbp]",
        r"\centering",
        r"\small",
        r"\setlength{\tabcolsep}{4pt}",
        r"\begin{tabular}{l" + "r" * len(columns) + "}",
        r"\toprule",
        " & ".join([say.LATEX_RUN_HEADER] + [latex_escape(label) for label, _ in columns]) + r" \\",
        r"\midrule",
    ]
    for run, figure in zip(runs, figures):
        cells = [latex_escape(run["name"])]
        for label, _ in columns:
            entry = figure.get(label)
            if entry is None or entry["mean"] is None:
                cells.append(fmt.NA)
                continue
            mean = fmt.decimal(entry["mean"])
            text = rf"\textbf{{{mean}}}" if best.get(label) == mean else mean
            verdict = verdicts.get((run["name"], label))
            if verdict in say.LATEX_MARKS:
                text += f"$^{{{say.LATEX_MARKS[verdict]}}}$"
            if entry.get("low") is not None and entry.get("high") is not None:
                # the band under the mean, in a cell of its own tabular: a column as narrow as a figure
                band = r"{\scriptsize " + fmt.band(entry["low"], entry["high"]) + "}"
                text = r"\begin{tabular}[t]{@{}r@{}}" + text + r"\\ " + band + r"\end{tabular}"
            cells.append(text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    comparison = document.get("comparison")
    caption = say.latex_caption(
        runs[0]["k"],
        runs[0]["conventions"]["confidence"],
        [r["counts"]["scored"] for r in runs],
        bold=bool(best),
    )
    if comparison is not None:
        caption += " " + say.latex_marks_note(
            latex_escape(comparison["baseline"]), comparison["alpha"], comparison["correction"]
        )
    lines += [r"\caption{" + caption + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"
