"""The view of the audit of a model judge's labels (``--audit``; docs/conventions.md sections 25
and 25.10): the index's Labels section (the agreement's figures, the confusion matrix as a heat map,
the runs under both label sets, the comparisons corrected), a run page's Labels block, the terminal's
block and summary.md's. Every figure formatted and every word from
:mod:`ragreport.output.site.wording.labels`; the templates only lay it out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..media import isolated
from ..wording import labels as say
from .model import BandCell, Labelled

if TYPE_CHECKING:
    from ....analysis.pipeline import Analysis

#: The heat map's shades: a cell with pairs is shaded 1 (fewest) to this (most); 0 is empty.
SHADES = 5


@dataclass(frozen=True)
class HeatCell:
    """A cell of the confusion matrix: its count as written, its shade (0 to :data:`SHADES`), whether
    it is on the diagonal (the two label sets agree) and its title (both grades and the count)."""

    count: str
    shade: int
    agree: bool
    title: str


@dataclass(frozen=True)
class HeatRow:
    grade: str  # the model's grade, as the row's header
    cells: tuple[HeatCell, ...]
    total: str


@dataclass(frozen=True)
class Heatmap:
    """The confusion matrix of grades: a row per model grade, a column per human grade, totals."""

    caption: str
    how: str
    corner: tuple[str, str]  # what the rows are, what the columns are
    columns: tuple[str, ...]
    total_header: str
    rows: tuple[HeatRow, ...]
    totals: tuple[str, ...]  # each column's total, then every pair's


@dataclass(frozen=True)
class LabelsRow:
    """A run and metric: its audited queries, and its figure (or a compared run's difference from
    the baseline) under each label set and corrected; ``moved`` says so when a difference's
    corrected verdict is not the model's."""

    run: str
    metric: str
    queries: str
    model: BandCell
    human: BandCell
    corrected: BandCell
    moved: str = ""


@dataclass(frozen=True)
class LabelsGroup:
    """One run's rows of a long table (every metric), under a header row naming the run."""

    run: str
    rows: tuple[LabelsRow, ...]
    comparisons: tuple[LabelsRow, ...]


@dataclass(frozen=True)
class RunLabels:
    """A run page's Labels block: its own rows and the link to the index's section."""

    title: str
    lede: str
    link: str
    header: tuple[str, ...]
    rows: tuple[LabelsRow, ...]


@dataclass(frozen=True)
class LabelsView:
    """The audit of a model judge's labels as every output shows it.

    summary.md and a comment read ``title``, ``lines`` (the agreement's sentences) and ``rows``
    (each run and metric: its three figures, formatted, in the order of ``header``); the terminal
    reads ``title``, ``lines``, ``terminal_header`` and ``terminal_rows`` (the primary metric's);
    the index's section reads the rest (``page_lines``, not ``lines``); a run page reads its entry of ``by_run``.
    """

    title: str
    lines: tuple[str, ...]
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    page_lines: tuple[str, ...] = ()  # ``lines`` as the pages show them: the user's words isolated
    nav: str = say.LABELS_NAV
    lede: str = say.LABELS_LEDE
    agreement_title: str = say.AGREEMENT_TITLE
    facts: tuple[Labelled, ...] = ()
    confusion_title: str = say.CONFUSION_TITLE
    heatmap: Heatmap | None = None
    runs_title: str = say.RUNS_TITLE
    runs_caption: str = ""
    runs_header: tuple[str, ...] = say.RUNS_HEADER
    run_rows: tuple[LabelsRow, ...] = ()  # the primary metric's, a row per run
    comparisons_title: str = say.COMPARISONS_TITLE
    comparisons_caption: str = ""
    comparisons_header: tuple[str, ...] = say.COMPARISONS_HEADER
    comparison_rows: tuple[LabelsRow, ...] = ()  # the primary metric's
    # every metric, a group per run (its header row names it), behind "more" (empty: no other metric)
    runs_more: str = ""
    comparisons_more: str = ""
    groups: tuple[LabelsGroup, ...] = ()
    group_header: tuple[str, ...] = say.RUNS_HEADER[1:]
    group_comparisons_header: tuple[str, ...] = say.COMPARISONS_HEADER[1:]
    by_run: dict[str, RunLabels] = field(default_factory=dict)
    terminal_header: tuple[str, ...] = say.TERMINAL_HEADER
    terminal_metric: str = ""
    terminal_rows: tuple[tuple[str, str, str, str], ...] = ()  # run, then its three figures


def _shade(count: int, row: int) -> int:
    """A count's shade: 0 for none, else 1 to :data:`SHADES` by its share of its row (of the pairs
    the model gave that grade), so each row reads on its own whatever the grades' sizes."""
    return 0 if count <= 0 or row <= 0 else max(1, min(SHADES, math.ceil(SHADES * count / row)))


def heatmap(grades: Sequence[int], confusion: Sequence[Sequence[int]], pairs: int) -> Heatmap:
    """The confusion matrix as the heat map lays it out (rows model grades, columns human grades)."""
    names = [str(g) for g in grades]
    counts = [[int(c) for c in row] for row in confusion]
    rows = tuple(
        HeatRow(
            m,  # a header is the grade alone (the corner names the two sides): five grades fit a phone
            tuple(
                HeatCell(f"{c:,}", _shade(c, sum(row)), i == j, say.confusion_cell_title(m, h, c, sum(row)))
                for j, (h, c) in enumerate(zip(names, row))
            ),
            f"{sum(row):,}",
        )
        for i, (m, row) in enumerate(zip(names, counts))
    )
    columns = [sum(row[j] for row in counts) for j in range(len(names))]
    return Heatmap(
        caption=say.confusion_caption(pairs),
        how=say.CONFUSION_HOW,
        corner=say.CONFUSION_CORNER,
        columns=tuple(names),
        total_header=say.CONFUSION_TOTAL,
        rows=rows,
        totals=(*(f"{c:,}" for c in columns), f"{sum(columns):,}"),
    )


def _figure(figure: tuple[float, float, float]) -> BandCell:
    mean, low, high = figure
    return BandCell(say.figure_value(mean), say.figure_band(low, high))


def _clear(verdict: str) -> str:
    """A verdict as a decision: better, worse, or none (a band-only result is none)."""
    return verdict if verdict in ("better", "worse") else "unclear"


def _verdict(figure: tuple[float, float, float], verdict: str) -> BandCell:
    words, css = say.VERDICT_WORDS.get(verdict, say.VERDICT_WORDS["unclear"])
    delta, low, high = figure
    return BandCell(say.signed(delta), say.delta_band(low, high), verdict_class=css, verdict=words)


def labels_view(analysis: Analysis) -> LabelsView | None:
    """The audit's view, or None without ``--audit``."""
    audit = analysis.audit
    if audit is None:
        return None
    found, first = audit.agreement, analysis.summaries[0]
    confidence, k = first.conventions.confidence, first.k
    # The audit file's name is the user's word: isolated on the pages (FSI ... PDI, as the
    # headline's names are), so a U+202E in it cannot reverse the kappas after it; the terminal
    # and Markdown show its controls as escapes (their own final pass) and take it plain.
    source = isolated(audit.source)
    sentences = [
        say.agreement_sentence(
            shown,
            found.queries,
            found.pairs,
            (found.kappa, found.kappa_low, found.kappa_high),
            (found.weighted_kappa, found.weighted_low, found.weighted_high),
            found.disagreement,
            k,
            confidence,
        )
        for shown in (audit.source, source)
    ]
    tau = say.tau_sentence(audit.tau)
    lines, page_lines = ((sentence, *(() if tau is None else (tau,))) for sentence in sentences)
    rows = tuple(
        (r.run, r.label, say.figure(*r.model), say.figure(*r.human), say.figure(*r.corrected)) for r in audit.runs
    )
    kappas = (
        (say.FACT_KAPPA, found.kappa, found.kappa_low, found.kappa_high),
        (say.FACT_WEIGHTED, found.weighted_kappa, found.weighted_low, found.weighted_high),
    )
    facts = [Labelled(name, say.kappa_value(v), say.kappa_band(low, high, confidence)) for name, v, low, high in kappas]
    facts += [
        Labelled(say.FACT_PAIRS, f"{found.pairs:,}"),
        Labelled(say.FACT_QUERIES, f"{found.queries:,}", source),
        Labelled(
            say.FACT_DISAGREEMENT, say.disagreement_value(found.disagreement), say.disagreement_note(found.slots, k)
        ),
    ]
    if audit.tau is not None and audit.tau == audit.tau:
        facts.append(Labelled(say.FACT_TAU, say.signed(audit.tau), say.TAU_NOTE))
    primary = analysis.primary_label
    first_primary = {primary: 0}  # the primary metric first, the others in the audit's order
    ordered = sorted(audit.runs, key=lambda r: first_primary.get(r.label, 1))
    all_rows = tuple(
        LabelsRow(r.run, r.label, f"{r.queries:,}", _figure(r.model), _figure(r.human), _figure(r.corrected))
        for r in ordered
    )
    compared = tuple(
        LabelsRow(
            c.run,
            c.metric,
            f"{c.queries:,}",
            _verdict(c.model, c.model_verdict),
            # the human labels' verdict read off the band alone, as the corrected one is (conventions 25.5)
            _verdict(c.human, "better" if c.human[1] > 0 else "worse" if c.human[2] < 0 else "unclear"),
            _verdict(c.corrected, c.verdict),
            # a band on one side of 0 without a small adjusted p is no verdict: from one to none is no move
            say.VERDICT_MOVED if _clear(c.verdict) != _clear(c.model_verdict) else "",
        )
        for c in sorted(audit.comparisons, key=lambda c: first_primary.get(c.metric, 1))
    )
    names = [s.name for s in analysis.summaries]
    groups = tuple(
        LabelsGroup(name, tuple(r for r in all_rows if r.run == name), tuple(c for c in compared if c.run == name))
        for name in names
    )
    # the primary metric's rows open (every row when the audit does not hold it)
    run_rows = tuple(r for r in all_rows if r.metric == primary) or all_rows
    primary_compared = tuple(c for c in compared if c.metric == primary) or compared
    baseline = analysis.comparison.runs[0].baseline.name if analysis.comparison and analysis.comparison.runs else ""
    lede = say.run_labels_lede(source, found.queries)
    by_run = {
        g.run: RunLabels(say.RUN_LABELS_TITLE, lede, say.RUN_LABELS_LINK, say.RUNS_HEADER[1:], g.rows) for g in groups
    }
    metrics = len({r.label for r in audit.runs})
    terminal = tuple(
        (r.run, say.terminal_figure(*r.model), say.terminal_figure(*r.human), say.terminal_figure(*r.corrected))
        for r in audit.runs
        if r.label == primary
    )
    return LabelsView(
        say.LABELS_TITLE,
        lines,
        say.LABELS_HEADER,
        rows,
        facts=tuple(facts),
        heatmap=heatmap(found.grades, found.confusion.tolist(), found.pairs),
        runs_caption=say.runs_caption(confidence),
        run_rows=run_rows,
        comparisons_caption=say.comparisons_caption(isolated(baseline), confidence) if compared else "",
        page_lines=page_lines,
        comparison_rows=primary_compared,
        runs_more=say.runs_more(metrics) if len(all_rows) > len(run_rows) else "",
        comparisons_more=say.comparisons_more(metrics) if len(compared) > len(primary_compared) else "",
        groups=groups,
        by_run=by_run,
        terminal_metric=primary,
        terminal_rows=terminal,
    )
