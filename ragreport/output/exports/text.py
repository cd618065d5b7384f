"""Plain-text layouts of the report: a terminal table and Markdown from the view, trec_eval's from the document.

The words and numbers are the view's (:mod:`ragreport.output.site.view`, worded by
:mod:`ragreport.output.site.wording`); here they are only aligned, wrapped and, for Markdown, escaped.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...core.escape import field, visible
from ...scoring.catalogue import IntervalMethod
from ..site.media import markdown_code
from ..site.media import markdown_text as _md_user  # the user's words (names, ids) as literal Markdown
from ..site.wording import gates as say
from ..site.wording import numbers as fmt
from .reportjson.migrate import query_rows

#: How report.json writes "no band" (a count's figure is a total).
_NO_BAND = IntervalMethod.NONE.value

if TYPE_CHECKING:
    from ..site.view.labels import LabelsView
    from ..site.view.model import ComparisonView, DriftView, ReadingsTable, ReportView, RunView
    from ..site.view.slices import SlicesView


def _run_block(run: RunView, width: int, view: ReportView, first: bool = True) -> str:
    """One run's table; the metrics' conventions are written beside the first run's figures only
    (every run of a report shares them)."""
    conf = run.confidence
    lines = [f"{visible(run.name)}  (K = {run.cutoffs})", *textwrap.wrap(run.counts_line, width), ""]
    w = max(9, *(len(_label(row.label, view)) for row in run.metrics))
    head = f"{'metric':<{w}} {'mean':>5}  {conf + ' band':<16} {'interval':<10} "
    indent = len(head)
    lines.append(head + ("convention" if first else "convention: as for the first run"))
    lines.append("-" * min(width, indent + 40))
    wrap_width = max(30, width - indent)
    for row in run.metrics:
        cell = row.cells[0]
        wrapped = (textwrap.wrap(row.convention, wrap_width) or [""]) if first else [""]
        figures = f"{cell.mean:>5}  {cell.band:<16} {cell.interval:<10} {wrapped[0]}".rstrip()
        lines.append(f"{_label(row.label, view):<{w}} {figures}")
        lines.extend(" " * indent + more for more in wrapped[1:])
    if run.measures:
        w = max(9, *(len(m.label) for m in run.measures))
        lines += [
            "",
            "Measures asked for by name:",
            f"{'measure':<{w}} {'mean':>7}  {conf + ' band':<16} {'interval':<10} trec_eval",
        ]
        for m in run.measures:
            lines.append(f"{m.label:<{w}} {m.mean:>7}  {m.band:<16} {m.interval:<10} {m.trec_eval or '-'}")
    return "\n".join(lines)


def _conventions_block(view: ReportView, width: int) -> str:
    """The report's conventions, once: each switch's sentence, a departure from the default flagged."""
    conv = view.conventions
    if conv is None:
        return ""
    lines = [f"{conv.title}:"]
    for switch in conv.switches:
        flag = f" [{conv.symbol} {switch.switch}, not the default]" if not switch.default else ""
        lines.extend(textwrap.wrap(switch.meaning + flag, width, initial_indent="* ", subsequent_indent="  "))
    return "\n".join(lines)


def gates_markdown(view: ReportView) -> list[str]:
    """The gate table in Markdown (the site's, summary.md's, the step summary's and the comment's)."""
    gates = view.gates
    if gates is None:
        return []
    rows = [
        # the rule as given, backticks and pipes too
        (f"**{r.result}**" if r.result == "FAIL" else r.result, markdown_code(r.rule), _md_user(r.run), r.metric)
        + (_md_user(r.figure),)
        for r in gates.rows
    ]
    return [f"**{gates.title}.** {_md_cell(gates.summary)}", "", *_md_table(gates.header, "lllll", rows), ""]


def _label(label: str, view: ReportView) -> str:
    """A metric label with the mark of a switch not at its default, when one changes it."""
    marked = view.conventions is not None and label in view.conventions.marks
    return label + (view.conventions.symbol if marked and view.conventions else "")


def _comparison_block(cmp: ComparisonView, width: int) -> str:
    lines = []
    for sentence in [*map(str, cmp.method), *cmp.notes]:
        lines.extend(textwrap.wrap(sentence, width))
    w = max(3, *(len(visible(r.run)) for r in cmp.rows))
    m = max(9, *(len(r.metric) for r in cmp.rows))  # a family (--metrics) may name longer labels
    lines += [
        "",
        f"{'run':<{w}} {'metric':<{m}} {'delta':>7}  {cmp.confidence + ' band':<18} {'p':>7} {'p adj.':>7}  "
        f"{'W/T/L':<11} {'d_z (band)':<24} verdict",
    ]
    for r in cmp.rows:
        lines.append(
            f"{visible(r.run):<{w}} {r.metric:<{m}} {r.delta:>7}  {r.band:<18} {r.p:>7} {r.p_adjusted:>7}  {r.wtl:<11} "
            f"{r.effect_text:<24} {r.verdict}"
        )
    return "\n".join(lines)


def _drift_block(drift: DriftView, width: int) -> str:
    text = "\n".join(line for sentence in drift.lines for line in textwrap.wrap(str(sentence), width))
    rows = drift.moved_rows
    if not rows:
        return text
    w = max(3, *(len(visible(r.run)) for r in rows))
    lines = [f"{'run':<{w}} {'metric':<9} {'then':>6} {'now':>6} {'change':>7}  {'band':<18} {'p adj':>7}  verdict"]
    for r in rows:
        figures = f"{r.then:>6} {r.now:>6} {r.delta:>7}  {r.band:<18} {r.p_adjusted:>7}"
        lines.append(f"{visible(r.run):<{w}} {r.metric:<9} {figures}  {r.verdict}")
    return "\n".join([text, *lines, *textwrap.wrap(drift.method or "", width)])


def _labels_block(labels: LabelsView, width: int) -> str:
    """The audit of the model's labels: its sentences, then each run's primary metric under the
    model's labels, the human labels (the audited queries) and corrected (every scored query), a
    line per run; a run whose name leaves the figures no room has its own line above them."""
    lines = [f"{labels.title}:"]
    for sentence in labels.lines:
        lines.extend(textwrap.wrap(sentence, width))
    rows = labels.terminal_rows
    if not rows:
        return "\n".join(lines)
    cols = [max(len(h), *(len(r[i + 1]) for r in rows)) for i, h in enumerate(labels.terminal_header)]
    figures = sum(cols) + 2 * (len(cols) - 1)
    names = [visible(r[0]) for r in rows]
    w = max(len(labels.terminal_metric), *map(len, names))
    apart = w + 2 + figures > width  # the names on their own lines, the figures indented under them
    w = 2 if apart else w

    def row(first: str, cells: tuple[str, ...]) -> str:
        return (f"{first:<{w}}  " + "  ".join(f"{c:<{n}}" for c, n in zip(cells, cols))).rstrip()

    lines.append("")
    for first, cells in [(labels.terminal_metric, labels.terminal_header), *zip(names, (r[1:] for r in rows))]:
        lines += [first, row("", cells)] if apart else [row(first, cells)]
    return "\n".join(lines)


def table(view: ReportView, width: int = 100) -> str:
    """The headline, then a readable terminal table per run: metric, mean, band, interval,
    convention (wrapped); then the comparison and the drift, when the report has them."""
    # The verdict first: the headline, a sentence per compared run (or the single run's).
    headline = "\n".join(
        line
        for h in view.headline
        for line in [
            *textwrap.wrap(h.sentence.render(visible), width),
            *(
                w
                for c in h.caveats
                for w in textwrap.wrap(c.text.render(visible), width, initial_indent="- ", subsequent_indent="  ")
            ),
            *(textwrap.wrap(h.note, width, initial_indent="  ", subsequent_indent="  ") if h.note else []),
        ]
    )
    headline += "".join("\n\n" + "\n".join(textwrap.wrap(note, width)) for note in _notes(view))
    if view.gates is not None:  # the summary alone: every command prints each check's line on stderr
        headline += f"\n\n{view.gates.title}: {view.gates.summary}"
    runs = [_run_block(run, width, view, i == 0) for i, run in enumerate(view.runs)]
    blocks = [headline, *runs, _conventions_block(view, width)]
    if view.comparison is not None and view.comparison.rows:
        blocks.append(_comparison_block(view.comparison, width))
    if view.labels is not None:
        blocks.append(_labels_block(view.labels, width))
    if view.drift is not None:
        blocks.append(_drift_block(view.drift, width))
    blocks += [_scores_block(t, width) for t in view.scores]
    if view.slices is not None:
        blocks.append(_slices_block(view.slices, width))
    # no control or bidi character of the user's reaches the terminal raw (an escape sequence, U+202E)
    return visible("\n\n".join(blocks) + "\n", keep_newlines=True)


def _notes(view: ReportView) -> list[str]:
    """What the headline says after its sentences: the judgments', the margin's and the conventions' notes."""
    notice = view.conventions.notice if view.conventions is not None else None
    return [note for note in (view.judgments_note, view.margin_note, notice) if note]


def _md_row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_table(header: Sequence[str], align: str, rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table's lines: ``align`` holds a letter per column, ``r`` right-aligned, else left."""
    rule = "|" + "".join("---:|" if a == "r" else "---|" for a in align)
    return [_md_row(*header), rule, *(_md_row(*row) for row in rows)]


def _md_cell(text: str) -> str:
    """Our own sentences inside a Markdown table cell: pipes escaped, one line, controls visible."""
    return visible(str(text).replace("|", "\\|").replace("\n", " "))


#: What the drift's block holds (:class:`Block`), as the note of a trimmed comment names it.
DRIFT = "the drift since the previous report"


@dataclass(frozen=True)
class Block:
    """A part of the Markdown report: ``what`` it holds (for the note of what a trimmed comment left
    out) and its ``lines``. ``keep`` orders what a trimmed comment drops first (lowest first);
    ``None`` is never dropped (the headline, the gates)."""

    what: str
    keep: int | None
    lines: tuple[str, ...]


def markdown_blocks(view: ReportView) -> list[Block]:
    """The Markdown report as blocks, in reading order (see :func:`markdown`)."""
    runs = view.runs
    first = runs[0]
    conf = first.confidence
    blocks: list[Block] = []
    lines: list[str] = []
    header: tuple[str, ...]  # each table's, and its rows
    rows: list[tuple[str, ...]]
    for h in view.headline:
        lines += [h.sentence.render(_md_user), ""]
        if h.caveats:
            lines += [f"- {c.text.render(_md_user)}" for c in h.caveats] + [""]
        if h.note:
            lines += [f"_{_md_cell(h.note)}_", ""]
    lines += [line for note in _notes(view) for line in (_md_cell(note), "")]
    if view.conventions is not None and view.conventions.notice:
        # what each departure does, here: summary.md and a comment have no conventions section
        lines += [f"- `{d.switch}`: {_md_cell(d.meaning)}" for d in view.conventions.departures] + [""]
    lines += gates_markdown(view)
    blocks.append(Block("the headline", None, tuple(lines)))
    if len(runs) == 1:
        rows = [
            (_label(row.label, view), c.mean, c.band, c.interval, _md_cell(row.convention))
            for row, c in ((row, row.cells[0]) for row in first.metrics)
        ]
        header = ("metric", "mean", f"{conf} band", "interval", "convention")
        lines = [f"### {_md_user(first.name)} (K = {first.cutoffs})", "", *_md_table(header, "lrlll", rows)]
    else:
        header = ("metric", *(_md_user(r.name) for r in runs), "interval")
        rows = [
            (_label(row.label, view), *(f"{c.mean} {c.band}" for c in row.cells), row.cells[0].interval)
            for row in view.metric_rows
        ]
        lines = [f"### {len(runs)} runs at K = {first.k} (mean and {conf} band)", ""]
        lines += _md_table(header, "l" + "r" * len(runs) + "l", rows)
    blocks.append(Block("the suite table", 6, tuple(lines)))
    lines = []
    suite_labels = {row.label for row in view.metric_rows}
    for run in runs:
        named = [m for m in run.measures if m.label not in suite_labels]  # the suite table has the others
        if named:
            header = ("measure", "mean", f"{conf} band", "interval", "trec_eval")
            rows = [(m.label, m.mean, m.band, m.interval, m.trec_eval) for m in named]
            lines += ["", f"Measures asked for by name ({_md_user(run.name)}):", "", *_md_table(header, "lrlll", rows)]
    if lines:
        blocks.append(Block("the measures asked for by name", 3, tuple(lines)))
    blocks.append(Block("how the bands were made", 4, ("", _md_cell(first.bands_line))))
    cmp = view.comparison
    if cmp is not None and cmp.rows:
        lines = ["", f"#### {cmp.heading.render(_md_user)}"]
        lines += [line for note in cmp.notes for line in ("", _md_user(note))]
        lines += [
            "",
            f"| run | metric | delta | {cmp.confidence} band | p | p ({_md_cell(cmp.correction)}) | W/T/L "
            "| d_z (band) | |",
            "|---|---|---:|---|---:|---:|---|---|---|",
        ]
        lines += [
            _md_row(_md_user(r.run), r.metric, r.delta, r.band, r.p, r.p_adjusted, r.wtl, r.effect_text, r.verdict)
            for r in cmp.rows
        ]
        blocks.append(Block("the comparison table", 5, tuple(lines)))
        method = [line for sentence in cmp.method for line in ("", sentence.render(_md_user))]
        blocks.append(Block("how the comparison was made", 2, tuple(method)))
    if view.drift is not None:
        lines = [line for sentence in view.drift.lines for line in ("", sentence.render(_md_user))]
        if view.drift.moved_rows:
            header = ("run", "metric", "then", "now", "change", f"{view.drift.confidence} band")
            header += (f"p ({_md_cell(view.drift.correction)})", "verdict")
            rows = [
                (_md_user(d.run), d.metric, d.then, d.now, d.delta, d.band, d.p_adjusted, d.verdict)
                for d in view.drift.moved_rows
            ]
            lines += ["", *_md_table(header, "llrrrlrl", rows), "", view.drift.method]
        blocks.append(Block(DRIFT, 4, tuple(lines)))
    if view.scores:  # the scores of --scores: their own tables, never rows of the ranked-list ones
        lines = []
        for t in view.scores:
            rows = [(_md_user(row[0]), _md_user(row[1]), *map(_md_cell, row[2:])) for row in t.rows]
            lines += ["", f"**{_md_cell(t.caption)}**", "", *_md_table(t.header, "l" * len(t.header), rows)]
        blocks.append(Block("the scores computed outside ragreport", 3, tuple(lines)))
    if view.slices is not None:
        blocks.append(Block("the slices by query metadata", 3, tuple(_slices_markdown(view.slices))))
    if view.labels is not None:
        labels = view.labels
        lines = ["", f"**{labels.title}.** " + " ".join(_md_user(line) for line in labels.lines), ""]
        lines += _md_table(labels.header, "llrrr", [(_md_user(row[0]), *row[1:]) for row in labels.rows])
        blocks.append(Block("the audit of the model's labels", 3, tuple(lines)))
    lines = []
    for run in runs:
        lines += ["", f"**{_md_user(run.name)}**: {_md_cell(run.counts_line)}."]
        for limit in run.limits:
            lines.append(f"- **{_md_user(limit.title)}.** {_md_user(limit.text)}")
    blocks.append(Block("each run's counts and honest limits", 1, tuple(lines)))
    return blocks


def _slices_markdown(sliced: SlicesView) -> list[str]:
    """Per key a table: value, queries, each run's figure with its band, each difference."""
    lines = ["", f"**{sliced.title}.** {sliced.lede}"]
    for sentence in sliced.opposite:
        lines += ["", sentence.render(_md_user)]
    for t in sliced.tables:
        headers = [
            _md_user(t.key),
            "queries",
            *(_md_user(r) for r in t.runs),
            *(_md_user(c) for c in t.compared),
            *((t.scores_header,) if t.scores_header else ()),
            sliced.examples_header,
        ]
        rows = []
        for row in t.rows:
            value = _md_user(row.value) + (f" ({sliced.small_note})" if row.small else "")
            cells = [f"{c.value} {c.band}" for c in row.figures]
            cells += [f"{c.mark} {c.value} {c.band} p {c.p_adjusted}".strip() for c in row.deltas]
            if t.scores_header:
                cells.append("; ".join(f"{_md_user(c.label)} {c.value} {c.band}" for c in row.scores))
            cells.append(", ".join(markdown_code(q) for q in row.examples))
            rows.append((value, str(row.queries), *cells))
        lines += ["", t.caption.render(_md_user), "", *_md_table(headers, "l" + "r" * (len(headers) - 1), rows)]
    return lines


def _scores_block(t: ReadingsTable, width: int) -> str:
    """A table of the scores of --scores (or their comparisons): its caption wrapped, then its
    columns aligned, each as wide as its widest cell."""
    rows = [t.header, *t.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(t.header))]
    lines = ["  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "-" * min(width, len(lines[0])))
    return "\n".join([*textwrap.wrap(t.caption, width), "", *lines])


def _slices_block(sliced: SlicesView, width: int) -> str:
    text = [line for sentence in sliced.opposite for line in textwrap.wrap(str(sentence), width)]
    for t in sliced.tables:
        text += ["", str(t.caption)]
        for row in t.rows:
            figures = "  ".join(f"{run} {c.value} {c.band}" for run, c in zip(t.runs, row.figures))
            deltas = "  ".join(f"{h}: {c.mark}{c.value} {c.band}".rstrip() for h, c in zip(t.compared, row.deltas))
            small = f" ({sliced.small_note})" if row.small else ""
            scores = "; ".join(f"{c.label} {c.value} {c.band}" for c in row.scores)
            scores = f"; {t.scores_header}: {scores}" if scores else ""
            line = f"{row.value}{small}, {row.queries} queries: {figures}  {deltas}".rstrip() + scores
            text += textwrap.wrap(line, width)
    return sliced.title + "\n" + "\n".join(text)


def markdown(view: ReportView) -> str:
    """Markdown fit for a pull-request comment or a CI job summary.

    The headline first (a sentence per compared run, or the single run's), the gates when asked
    for. One run: a table of metric, mean, band, interval and convention. Several runs: one table
    with the runs side by side. Then the comparison and the drift when the report has them, and
    each run's counts and its honest limits.
    """
    return _joined(markdown_blocks(view)) + "\n"


def _joined(blocks: list[Block]) -> str:
    # a last pass: no control or bidi character of the user's gets through in a sentence of ours either
    return visible("\n".join(line for block in blocks for line in block.lines), keep_newlines=True)


#: GitHub's limit on a comment's body, in characters.
COMMENT_LIMIT = 65_536


def comment(view: ReportView, limit: int = COMMENT_LIMIT, blocks: list[Block] | None = None) -> str:
    """The Markdown report (or ``blocks``, by default :func:`markdown_blocks`) as a pull-request
    comment of at most ``limit`` characters.

    When the whole report is longer, whole blocks are dropped, least needed first (the honest
    limits, how the comparison was made, the named measures, the drift, the comparison's table,
    the suite table; never the headline and the gates), never a part of a table, and a last line
    says what was left out and where it is.
    """
    blocks = markdown_blocks(view) if blocks is None else list(blocks)
    left_out: list[str] = []

    def text() -> str:
        return _joined(blocks) + ("\n\n" + say.comment_left_out(left_out) if left_out else "") + "\n"

    for block in sorted((b for b in blocks if b.keep is not None), key=lambda b: b.keep or 0):
        if len(text()) <= limit:
            break
        blocks.remove(block)
        left_out.append(block.what)
    result = text()
    if len(result) > limit:  # the headline and the gates alone are too long: cut at a line, said so
        kept = result[: limit - 200].rsplit("\n", 1)[0]
        result = kept + "\n\n" + say.comment_cut() + "\n"
    return result


#: Columns of a text chart's axis: odd, so that 0 of a difference has a column of its own.
CHART_WIDTH = 41
#: The ends a text chart's axis of differences may reach: the smallest that holds every band.
_REACHES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def _chart_rows(document: dict[str, Any]) -> tuple[str, list[tuple[str, float, float, float]], bool]:
    """What the comment's chart draws, on the primary metric: each run's change since the base
    where drift was measured; else each run's difference from the baseline; else each run's mean.
    Its caption, its rows (run, figure, band low, band high; a row without a band left out) and
    whether they are differences."""
    primary, k = document["primary"], document["runs"][0]["k"]
    conf = fmt.percent(document["runs"][0]["conventions"]["confidence"])
    drift = [r for r in (document.get("drift") or {}).get("rows") or () if r["metric"] == primary]
    compared = [c for c in document.get("comparisons") or () if c["metric"] == primary]
    if drift:
        found, caption = drift, say.chart_since_base(primary, conf)
    elif compared:
        found = compared
        caption = say.chart_against_baseline(primary, _md_user(str(document["comparison"]["baseline"])), conf)
    else:
        found = [{"run": r["name"], **r["metrics"].get(primary, {})} for r in document["runs"]]
        caption = say.chart_means(primary, conf, k)
    figure = "delta" if drift or compared else "mean"
    rows = [(str(r["run"]), r.get(figure), r.get("low"), r.get("high")) for r in found]
    return caption, [r for r in rows if None not in r], figure == "delta"


def text_chart(document: dict[str, Any], width: int = CHART_WIDTH) -> list[str]:
    """A chart drawn in ASCII inside a fenced block, so that it renders the same on GitHub and
    GitLab (and in a terminal): a line per run, its band ``[===]`` with the figure ``o`` on an axis
    of ``width`` columns, and its figures. Differences (:func:`_chart_rows`) lie on an axis from
    minus to plus the smallest of :data:`_REACHES` that holds every band, 0 marked ``|``; means on
    0 to 1. A figure on a column of the band's end shows ``o``; a band narrower than a column, ``o``
    alone. The fence is longer than any run of backticks in a run's name. Empty when no run has a
    band on the primary metric."""
    caption, rows, differences = _chart_rows(document)
    if not rows:
        return []
    ends = [abs(v) for _, *figures in rows for v in figures]
    reach = next((r for r in _REACHES if max(ends) <= r), max(ends)) if differences else 1.0
    low_end = -reach if differences else 0.0

    def column(value: float) -> int:
        return round((min(max(value, low_end), reach) - low_end) / (reach - low_end) * (width - 1))

    names = [visible(name) if len(visible(name)) <= 24 else visible(name)[:21] + "..." for name, *_ in rows]
    pad = max(len(n) for n in names)
    shown = fmt.signed if differences else fmt.decimal
    band = fmt.signed_band if differences else fmt.band
    lines = []
    for name, (_, figure, low, high) in zip(names, rows):
        axis = ["."] * width
        if differences:
            axis[column(0.0)] = "|"
        start, stop = column(low), column(high)
        for at in range(start, stop + 1):
            axis[at] = "="
        axis[start], axis[stop] = "[", "]"
        axis[column(figure)] = "o"
        lines.append(f"{name:<{pad}}  {''.join(axis)}  {shown(figure)} {band(low, high)}")
    left, right = (fmt.signed(low_end), fmt.signed(reach)) if differences else ("0", "1")
    middle = "0" if differences else ""
    gap = width - len(left) - len(right) - len(middle)
    scale = left + " " * (gap // 2) + middle + " " * (gap - gap // 2) + right
    lines.append(" " * (pad + 2) + scale)
    fence = "`" * max([3, *(len(run) + 1 for line in lines for run in re.findall("`+", line))])
    return [visible(caption), "", fence + "text", *lines, fence, ""]


def pr_comment(
    view: ReportView,
    document: dict[str, Any],
    *,
    mark: str,
    no_base: str | None,
    report_url: str | None,
    limit: int = COMMENT_LIMIT,
) -> str:
    """A pull request's comment that stands alone (``ragreport pr``), in this order: ``mark`` (the
    hidden line that finds it again) and the title; ``no_base`` (why the head is judged alone) when
    there is no base report; the verdicts and the gates; what changed since the base, metric by
    metric with bands (the drift, moved up); :func:`text_chart`; the rest of the Markdown report;
    the link to the full report. At most ``limit`` characters: trimmed as :func:`comment` trims,
    the chart and the change since the base dropped last, and the marker and the link always kept."""
    head = [mark, f"### {_md_user(view.title)}", ""]
    if no_base:
        head += [f"_{_md_cell(no_base)}_", ""]
    blocks = markdown_blocks(view)
    drift = [b for b in blocks if b.what == DRIFT]
    rest = [b for b in blocks[1:] if b.what != DRIFT]
    moved = [replace(b, keep=7, lines=(f"#### {say.CHANGED_SINCE_BASE}", *b.lines, "")) for b in drift]
    chart = text_chart(document)
    drawn = [Block("the chart", 8, tuple(chart))] if chart else []
    ordered = [Block("the title", None, tuple(head)), blocks[0], *moved, *drawn, *rest]
    link = ("\n" + say.comment_link(report_url) + "\n") if report_url else ""
    return comment(view, limit - len(link), ordered).rstrip("\n") + "\n" + link


def _trec_value(value: float | int | None, is_count: bool) -> str:
    if value is None:
        return "nan"
    return str(int(round(value))) if is_count else f"{value:6.4f}"


def trec_lines(document: dict[str, Any], per_query: bool) -> str:
    """trec_eval's layout: ``measure<pad 22><TAB>query or all<TAB>value`` (4 decimals, counts whole).

    Per-query lines (``per_query``, as ``trec_eval -q``) come first, queries in byte order, then the
    ``all`` lines: means over the scored queries, sums for the counts. With several runs, each
    block opens with a ``runid`` line.
    """
    lines: list[str] = []
    runs = document["runs"]
    for run in runs:
        measures = [
            (label, entry, entry["trec_eval"] or label.replace(" ", ""), entry["interval"] == _NO_BAND)
            for label, entry in run["measures"].items()
        ]
        # trec_eval prints no per-query line of num_q, nor of a geometric mean (gm_map)
        each = [(label, n, c) for label, e, n, c in measures if n != "num_q" and e.get("mean_of") != "geometric"]
        if len(runs) > 1:
            lines.append(f"{'runid':<22}\tall\t{field(run['name'])}")
        if per_query:
            for query in sorted((q for q in query_rows(document, run) if q["scored"]), key=lambda q: q["id"]):
                for label, name, is_count in each:
                    lines.append(f"{name:<22}\t{field(query['id'])}\t{_trec_value(query[label], is_count)}")
        for _label, entry, name, is_count in measures:
            value = entry["total"] if is_count else entry["mean"]
            lines.append(f"{name:<22}\tall\t{_trec_value(value, is_count)}")
    return "\n".join(lines) + "\n"
