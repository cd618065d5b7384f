"""The slices section of the view (:mod:`ragreport.analysis.slices` laid out for people): per key
a table of values, each with its queries, each run's primary figure with its band and each
compared run's paired difference from the baseline; and the slices that go against the overall
difference, in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..wording import comparison as say_comparison
from ..wording import numbers as fmt
from ..wording import report as say
from .model import BandCell

if TYPE_CHECKING:
    from ....analysis.slices import Opposite, SliceComparison, SliceReport


@dataclass(frozen=True)
class SliceRow:
    value: str
    queries: str  # the count, as every count is shown (1,000)
    small: bool
    figures: tuple[BandCell, ...]
    deltas: tuple[BandCell, ...]
    examples: tuple[str, ...] = ()  # query ids to open first
    scores: tuple[BandCell, ...] = ()  # each run's mean of each external score (--scores)


@dataclass(frozen=True)
class SliceTable:
    key: str
    anchor: str
    caption: fmt.Text
    runs: tuple[str, ...]
    compared: tuple[str, ...]  # the headers of the difference columns
    rows: tuple[SliceRow, ...]
    #: The stacked layout's two headers (each run's figure, each compared run's difference, one
    #: line per run in one cell: the table fits the page) and the compared runs' names.
    figures_header: str = ""
    deltas_header: str = ""
    compared_runs: tuple[str, ...] = ()
    #: The column of the scores computed outside ragreport, apart from the ranked-list figures
    #: ("": the report has none).
    scores_header: str = ""


@dataclass(frozen=True)
class SlicesView:
    title: str
    lede: str
    small_note: str
    opposite: tuple[fmt.Text, ...]
    tables: tuple[SliceTable, ...]
    examples_header: str = say.SLICE_EXAMPLES


def opposite_sentence(found: Opposite, baseline: str | None) -> fmt.Text:
    """A slice that goes against the overall difference, in words (the section and the run's limits)."""
    c = found.comparison
    return say.slice_opposite(
        c.run,
        baseline or "",
        found.slice.key,
        found.slice.value,
        found.slice.queries,
        c.metric,
        c.delta,
        c.low,
        c.high,
        found.overall,
    )


def _delta(c: SliceComparison | None) -> BandCell:
    """A compared run's difference from the baseline in one slice (``n/a`` where it was not compared)."""
    if c is None:
        return BandCell(fmt.NA, "")
    css = say_comparison.VERDICTS[c.verdict][1]
    band = fmt.signed_band(c.low, c.high)
    return BandCell(fmt.signed(c.delta), band, fmt.p_value(c.p_adjusted), css, say.MARKS_OF_VERDICT.get(css, ""))


def slices_view(report: SliceReport, runs: tuple[str, ...], baseline: str | None, confidence: float) -> SlicesView:
    """The section, from the analysis' slices; ``runs`` in the report's order."""
    primary = report.primary
    compared = tuple(r for r in runs if baseline is not None and r != baseline)
    tables: list[SliceTable] = []
    for key in report.keys:
        rows = []
        for s in (s for s in report.slices if s.key == key):
            figures = tuple(
                BandCell(fmt.decimal(i.mean), fmt.band(i.low, i.high)) for i in (s.runs[r][primary] for r in runs)
            )
            by_run = {c.run: c for c in s.comparisons}
            deltas = tuple(_delta(by_run.get(r)) for r in compared)
            scores = tuple(
                BandCell(fmt.decimal(f.mean), fmt.band(f.low, f.high), label=f"{r} {name}")
                for r in runs
                for name, f in s.scores.get(r, {}).items()
            )
            rows.append(SliceRow(s.value, fmt.count(s.queries), s.small, figures, deltas, s.examples, scores))
        tables.append(
            SliceTable(
                key,
                f"slice-{len(tables) + 1}",
                say.slice_caption(key, primary),
                runs,
                tuple(say.slice_delta_header(r, baseline) for r in compared if baseline is not None),
                tuple(rows),
                say.slice_figures_header(primary),
                say.slice_deltas_header(baseline) if baseline is not None and compared else "",
                compared,
                say.SLICE_SCORES_HEADER if any(row.scores for row in rows) else "",
            )
        )
    opposite = tuple(opposite_sentence(o, baseline) for o in report.opposite)
    return SlicesView(
        say.SLICES_TITLE,
        say.slices_lede(primary, confidence, report.correction.value, report.small, bool(compared)),
        say.SLICE_SMALL,
        opposite,
        tuple(tables),
    )
