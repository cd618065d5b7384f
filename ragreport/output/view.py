"""The view model: what every human-facing output shows, built once from the analysis.

:func:`build_view` reads an :class:`~ragreport.analysis.result.Analysis` and returns a
:class:`ReportView` of frozen dataclasses holding already-formatted strings and plain values (the
words and formats come from :mod:`ragreport.output.wording`). The site's pages
(:mod:`ragreport.output.pages`), the terminal table, the Markdown and summary.md
(:mod:`ragreport.output.text`) lay it out and decide nothing. report.json is not built from it: it
is the data contract (:mod:`ragreport.output.document`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..analysis.dates import run_date
from ..analysis.status import Status
from ..core.ids import as_text
from ..core.model import Choice, Conventions
from ..scoring.catalogue import COMPARED, SUITE, IntervalMethod, Metric
from ..scoring.metrics import FIXED_RULES
from .charts import forest_figure, index_sweep_figure, outcome_figure, run_sweep_figure, scatter_figure
from .headline import HeadlineEntry, headline
from .queryview import query_view_data
from .slicing import SlicesView, opposite_sentence, slices_view
from .wording import comparison as say_comparison
from .wording import gates as say_gates
from .wording import headline as say_headline
from .wording import numbers as fmt
from .wording import report as say

if TYPE_CHECKING:
    from ..analysis.compare import ComparisonReport, RunComparison
    from ..analysis.drift import Drift
    from ..analysis.intervals import Interval
    from ..analysis.limits import Limit
    from ..analysis.result import Analysis
    from ..analysis.slices import SliceReport
    from ..analysis.summary import RunSummary
    from .gates import GateResult

#: The most queries a table of gains or losses lists.
MOST_MOVERS = 10


@dataclass(frozen=True)
class Bar:
    """A band drawn as SVG coordinates on a 0-100 axis: its start ``x``, width ``w``, mean mark ``m``."""

    x: str
    w: str
    m: str


@dataclass(frozen=True)
class Cell:
    """One mean with its band, formatted.

    ``mean``, ``low``, ``high``: three decimals or ``n/a``; ``band``: ``[low, high]``;
    ``interval``: the method's name as the pages show it (``Wilson``), ``method`` the method
    itself; ``bar``: the band drawn on the axis of its row (0 to 1 for one run; with several, from
    the lowest band end of the row's runs to the highest; None when a figure is missing);
    ``aria``: what a screen reader says for the bar.
    """

    mean: str
    low: str
    high: str
    band: str
    interval: str
    method: IntervalMethod
    bar: Bar | None
    aria: str


@dataclass(frozen=True)
class MetricRow:
    """One metric at one K: ``label`` (``nDCG@10``), ``name`` (``Normalised DCG``), the
    ``convention`` sentence, its trec_eval twin (``none`` without one), one cell per run and the
    header's ``tooltip`` (its name and plain sentence)."""

    label: str
    name: str
    convention: str
    trec_eval: str
    cells: tuple[Cell, ...]
    tooltip: str = ""


@dataclass(frozen=True)
class MeasureRow:
    """A measure asked for by name: ``mean`` (the total for a count), ``band`` (empty without
    one), ``interval`` (the method's name, ``none`` for a count) and its trec_eval name (empty
    without one)."""

    label: str
    mean: str
    band: str
    interval: str
    trec_eval: str


@dataclass(frozen=True)
class Switch:
    """A convention in force: its ``name``, the ``switch`` that sets it, what it ``meaning``s and
    the ``alternative`` another choice would give; ``default`` False when it is not the default."""

    name: str
    switch: str
    meaning: str
    alternative: str
    default: bool = True


@dataclass(frozen=True)
class Rule:
    """A rule no switch changes: its name and the sentence stating it."""

    name: str
    text: str


@dataclass(frozen=True)
class LimitView:
    """An honest limit: the stable ``key`` (tests and CSS), its ``title`` and full ``text``."""

    key: str
    title: str
    text: str


@dataclass(frozen=True)
class Labelled:
    """A label with its value, both as shown (a fact, a metadata row)."""

    label: str
    value: str


@dataclass(frozen=True)
class Column:
    """A run's two columns of a suite table: the ``mean`` header and the ``band`` header."""

    mean: str
    band: str


@dataclass(frozen=True)
class FigureCell:
    """One run's mean on one metric in the suite matrix: ``mean`` and its ``band``, both formatted;
    ``best`` when it is the highest mean of its column (several runs only); ``mark`` (``▲``, ``▼`` or
    empty) with ``mark_class`` (the comparison verdict's CSS class) and ``verdict`` (its words) when
    the comparison found the difference from the baseline clearly above or below zero; ``bar`` the
    band on the scale of its column (every run's band of that metric); ``aria`` what a screen reader
    says for the bar."""

    mean: str
    band: str
    best: bool
    mark: str
    mark_class: str
    verdict: str
    bar: Bar | None
    aria: str


@dataclass(frozen=True)
class FigureRow:
    """A run's row of the suite matrix: its ``name``, ``slug``, whether it is the ``baseline``."""

    name: str
    slug: str
    baseline: bool
    cells: tuple[FigureCell, ...]


@dataclass(frozen=True)
class SuiteMatrix:
    """The suite as one row per run and one column per metric (``metrics``, the labels), with the
    ``caption`` above and the ``key`` below (what bold and the marks mean; empty for one run);
    ``more`` names the expander holding the long form."""

    metrics: tuple[str, ...]
    rows: tuple[FigureRow, ...]
    caption: str
    key: str
    more: str = say.SUITE_MORE


@dataclass(frozen=True)
class DeltaCell:
    """One run against the baseline on one metric in the comparison matrix: the signed ``delta``,
    its ``mark`` (``▲``, ``▼`` or empty), ``verdict`` (words) and ``verdict_class`` (CSS)."""

    delta: str
    mark: str
    verdict: str
    verdict_class: str


@dataclass(frozen=True)
class DeltaRow:
    """A run's row of the comparison matrix."""

    run: str
    cells: tuple[DeltaCell | None, ...]


@dataclass(frozen=True)
class StatusOption:
    """A query status present in a run: its index in the table data, label, meaning and count."""

    value: int
    label: str
    meaning: str
    count: str


@dataclass(frozen=True)
class QueryTable:
    """The per-query table: ``data`` for the page's script (compact arrays: rows, top-K ids),
    the statuses present, the column ``headers`` with their ``titles`` (a metric's tooltip, else
    empty) and the number of queries (formatted)."""

    data: dict[str, Any]
    status_options: tuple[StatusOption, ...]
    headers: tuple[str, ...]
    total: str
    titles: tuple[str, ...] = ()
    filter_label: str = say.FILTER_LABEL
    print_note: str = ""


@dataclass(frozen=True)
class Link:
    """A sentence holding a link: ``before`` + link ``text`` (to ``anchor``) + ``after``."""

    anchor: str
    before: str
    text: str
    after: str


@dataclass(frozen=True)
class RunView:
    """One run as every output shows it.

    Identity: ``name``, ``slug`` (file-name safe, unique in the report), ``source`` (the file),
    ``k``, ``kmax`` (the sweep's last K), ``cutoffs`` (every K asked for, ``10, 20``), ``date``.
    Counts: ``counts`` (each formatted with separators), ``counts_line`` (one sentence), ``facts``.
    Figures: ``metrics`` (every metric at every K asked for, one cell each) with the ``columns``
    headers of its table, ``suite`` (the same as one row, a column per metric), ``measures``
    (asked for by name). Words: ``conventions`` (switches in force), ``rules`` (fixed),
    ``convention_text`` (each switch's meaning), ``bands_line``,
    ``limits``, ``limits_line``, ``meta`` (the metadata as given), ``notes`` (the metadata's
    Markdown notes, which the pages render), the captions, ``is_baseline`` and ``compare_link``
    (to the comparison, when there is one). Page-only data (None when the view was built without
    pages): ``figure`` (the K sweep, a plotly figure dict) and ``queries``.
    """

    name: str
    slug: str
    source: str
    k: int
    kmax: int
    cutoffs: str
    date: str
    counts: dict[str, str]
    counts_line: str
    fingerprints: dict[str, str]
    short_fingerprints: dict[str, str]
    facts: tuple[Labelled, ...]
    metrics: tuple[MetricRow, ...]
    columns: tuple[Column, ...]
    suite: SuiteMatrix
    measures: tuple[MeasureRow, ...]
    confidence: str
    conventions: tuple[Switch, ...]
    rules: tuple[Rule, ...]
    convention_text: tuple[str, ...]
    bands_line: str
    limits: tuple[LimitView, ...]
    limits_line: str
    meta: tuple[Labelled, ...]
    notes: str | None
    suite_caption: str
    sweep_caption: str
    table_caption: str
    is_baseline: bool
    compare_link: Link | None
    figure: dict[str, Any] | None
    queries: QueryTable | None


@dataclass(frozen=True)
class ComparisonRow:
    """One run against the baseline on one metric: ``delta`` (signed), ``band`` (signed ends),
    ``bar`` (the band on a -1..1 axis), ``p`` and ``p_adjusted``, ``wtl`` (won/tied/lost),
    ``verdict`` (words) and ``verdict_class`` (CSS), ``aria`` for the bar."""

    run: str
    metric: str
    delta: str
    band: str
    bar: Bar | None
    p: str
    p_adjusted: str
    wtl: str
    verdict: str
    verdict_class: str
    aria: str


@dataclass(frozen=True)
class Mover:
    """A query that gained or lost most: id, text, both scores and the change, formatted."""

    id: str
    query: str
    baseline: str
    run: str
    delta: str


@dataclass(frozen=True)
class PairView:
    """One run against the baseline, query by query.

    ``anchor`` is its section's id; ``notes`` what a reader must know first; when ``compared``
    (they share scored queries): ``queries`` (how many), the ``gains`` and ``losses``, their
    captions, the heading and chart labels, and the ``scatter`` and ``outcome`` figures (None when
    the view was built without pages); ``query_column`` is False when no query has text (TREC
    input), and the tables of movers leave that column out.
    """

    run: str
    anchor: str
    compared: bool
    notes: tuple[str, ...]
    queries: str = ""
    heading: str = ""
    gains: tuple[Mover, ...] = ()
    losses: tuple[Mover, ...] = ()
    gains_caption: str = ""
    losses_caption: str = ""
    scatter_label: str = ""
    outcome_label: str = ""
    scatter: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    query_column: bool = True


@dataclass(frozen=True)
class ComparisonView:
    """Every run against the baseline.

    ``heading`` and ``caption`` of the section; ``method`` (how it was made, sentence by
    sentence, the baseline's name quoted); ``notes``
    (every pair's); ``rows`` (one per run and metric); ``pairs`` (per run, query by query);
    ``correction`` (its name), ``confidence``, ``k``, ``primary`` (the metric movers rank by),
    ``metrics`` and ``matrix`` (the deltas, one row per run and one column per compared metric,
    under ``matrix_caption``; ``more`` names the expander of the full rows) and ``no_movers`` (what
    an empty table of movers says).
    """

    baseline: str
    baseline_anchor: str
    heading: fmt.Text
    caption: str
    confidence: str
    k: int
    primary: str
    correction: str
    method: tuple[fmt.Text, ...]
    notes: tuple[str, ...]
    rows: tuple[ComparisonRow, ...]
    pairs: tuple[PairView, ...]
    metrics: tuple[str, ...] = ()
    matrix: tuple[DeltaRow, ...] = ()
    matrix_caption: str = ""
    more: str = say.COMPARISON_MORE
    no_movers: str = say_comparison.NO_MOVERS


@dataclass(frozen=True)
class DriftRowView:
    """A metric then and now: both figures, the change with its band and ``bar``, p and corrected p,
    the queries paired and those whose score moved, the ``verdict`` (words) and its CSS class."""

    run: str
    metric: str
    then: str
    now: str
    delta: str
    band: str
    queries: str
    bar: Bar | None = None
    aria: str = ""
    p: str = fmt.NA
    p_adjusted: str = fmt.NA
    changed: str = "0"
    verdict: str = ""
    verdict_class: str = "unclear"


@dataclass(frozen=True)
class DriftView:
    """Drift since a previous report.

    ``previous_line`` names the previous report and its date; ``reasons`` say for which runs no
    drift can be claimed and why, and ``changes`` what changed in their query and label sets;
    ``notes`` what else a reader must know; ``same_line`` (None when no run is ``comparable``) what
    the figures mean and ``method`` how they were read; ``unchanged`` is a line per run none of
    whose scores moved; ``matrix`` the changed runs' deltas with marks (one column per metric of
    ``metrics``) and ``rows`` every figure in full. ``lines`` holds the sentences in the order every
    output shows them.
    """

    previous_line: fmt.Text
    comparable: bool
    reasons: tuple[fmt.Text, ...]
    notes: tuple[fmt.Text, ...]
    same_line: fmt.Text | None
    rows: tuple[DriftRowView, ...]
    changes: tuple[fmt.Text, ...] = ()
    method: str = ""
    unchanged: tuple[fmt.Text, ...] = ()
    metrics: tuple[str, ...] = ()
    matrix: tuple[DeltaRow, ...] = ()
    matrix_caption: str = ""
    more: str = say_comparison.DRIFT_MORE
    confidence: str = ""
    correction: str = ""
    unchanged_runs: tuple[str, ...] = ()

    @property
    def moved_rows(self) -> tuple[DriftRowView, ...]:
        """The rows of the runs that are not unchanged (the terminal and Markdown tables)."""
        quiet = set(self.unchanged_runs)
        return tuple(r for r in self.rows if r.run not in quiet)

    @property
    def lines(self) -> tuple[fmt.Text, ...]:
        return (
            self.previous_line,
            *self.reasons,
            *self.changes,
            *self.notes,
            *((self.same_line,) if self.same_line else ()),
            *self.unchanged,
        )


@dataclass(frozen=True)
class HeadlineView:
    """One headline sentence: the run it is about, its page's ``anchor`` on the index (its
    comparison, or the suite for a single run), the ``verdict`` CSS class and the sentence."""

    run: str
    anchor: str
    verdict_class: str
    sentence: fmt.Text


@dataclass(frozen=True)
class GlossaryEntry:
    """A word explained: the ``term`` (``nDCG@10``, ``late hit``), its ``name`` (may be empty) and
    the ``plain`` sentence."""

    term: str
    name: str
    plain: str


@dataclass(frozen=True)
class Glossary:
    """Every suite metric, every query status and the comparison's words, each explained."""

    title: str
    lede: str
    metrics: tuple[GlossaryEntry, ...]
    statuses: tuple[GlossaryEntry, ...]
    terms: tuple[GlossaryEntry, ...]


@dataclass(frozen=True)
class ConventionsView:
    """The report's conventions, stated once (every run of a report shares them).

    ``switches``: every switch with its meaning, a departure from the default flagged; ``rules``:
    what no switch changes; ``departures``: the switches not at their default; ``notice``: the
    sentence that says so at the top of the report (empty when every switch is at its default);
    ``marks``: metric label (``nDCG@10``) -> the tooltip of the mark beside every figure a
    departure changes.
    """

    title: str
    lede: str
    switches: tuple[Switch, ...]
    rules: tuple[Rule, ...]
    departures: tuple[Switch, ...]
    notice: str
    marks: dict[str, str]
    symbol: str = say.DEPARTURE_MARK


@dataclass(frozen=True)
class GateRow:
    """One gate check as the tables show it: ``result`` (PASS/FAIL), its CSS ``css``, the rule as
    given, the run and metric it read and what it read."""

    result: str
    css: str
    rule: str
    run: str
    metric: str
    figure: str


@dataclass(frozen=True)
class GatesView:
    """The gate table (``--fail-on``, ``--require``, ``--max-drop``) and its one-line ``summary``."""

    title: str
    header: tuple[str, ...]
    rows: tuple[GateRow, ...]
    summary: str
    failed: bool


def gates_view(results: Sequence[GateResult]) -> GatesView | None:
    """The gates' table, or None when no rule was asked for."""
    if not results:
        return None
    rows = tuple(
        GateRow("PASS" if r.passed else "FAIL", "pass" if r.passed else "fail", r.rule, r.run, r.metric, r.figure)
        for r in results
    )
    failed = sum(not r.passed for r in results)
    checks = sum(1 for r in results if r.run)  # a line that reads nothing (one run: no baseline) is no check
    return GatesView(
        say_gates.GATES_TITLE, say_gates.GATES_HEADER, rows, say_gates.gates_summary(failed, checks), failed > 0
    )


@dataclass(frozen=True)
class ReportView:
    """The whole report as every human-facing output shows it.

    ``title``, ``generator``, ``date`` (one date or a span), ``k``, ``confidence`` (``95%``),
    ``runs``, ``metric_rows`` (the runs side by side: one cell per run) with one of the ``columns``
    per run, ``suite`` (the same figures, one row per run and one column per metric), the index's
    ``lede`` and captions, ``figure`` (every run's K sweep; None without pages), ``primary`` (the
    metric the report leads with, ``nDCG@10``), the ``headline`` (a sentence per compared run, or
    the single run's) with the ``forest`` plot (None without pages) and its caption, the
    ``glossary``, ``comparison`` (None for one run) and ``drift`` (None without a previous report).
    """

    title: str
    generator: str
    date: str
    k: int
    confidence: str
    runs: tuple[RunView, ...]
    metric_rows: tuple[MetricRow, ...]
    columns: tuple[Column, ...]
    suite: SuiteMatrix
    lede: str
    suite_caption: str
    sweep_caption: str
    figure: dict[str, Any] | None
    primary: str
    headline: tuple[HeadlineView, ...]
    headline_caption: str
    forest: dict[str, Any] | None
    glossary: Glossary
    comparison: ComparisonView | None
    drift: DriftView | None
    conventions: ConventionsView | None = None
    gates: GatesView | None = None
    slices: SlicesView | None = None
    query_view: dict[str, Any] | None = None  # every query's lists side by side (pages only)

    @property
    def several(self) -> bool:
        return len(self.runs) > 1


#: The words the pages' fixed ids and a run's section ids are made of: a run named one of them
#: (or with one as a part that would line up with another id) gets a hashed slug instead.
_ID_WORDS = (
    "compare|conventions|drift|gates|glossary|headline|main|reports|runs|run|scored|since|suite|trend|"
    "trends|verdict|summary|queries|limits|metadata|chart|fig|h"
)
_UNSAFE_CLEAN = re.compile(rf"(?:{_ID_WORDS})|(?:run|compare)-.*|.*-(?:{_ID_WORDS})|.*-[0-9a-f]{{8}}|.*-[0-9]+|.*--.*")


def _keeps_its_name(base: str) -> bool:
    """Whether a clean name can be its own slug: no page id made from it (``run-S``, ``run-S-h``,
    ``S-summary``, ``compare-S``, ...) can equal another run's or a fixed id of the page, and it
    cannot be mistaken for a hashed or numbered slug."""
    return _UNSAFE_CLEAN.fullmatch(base) is None


def slug(name: str, taken: set[str]) -> str:
    """A file-name-safe slug of a run name, unique among ``taken``.

    A name that is already a clean slug stays as it is; any other gets a short hash of the name,
    so two names that clean up alike (``A/B`` and ``a b``) still get two files. A slug taken
    already (a clean name can spell another's hashed slug) gets ``-2``, ``-3``, ... until it is
    unique, so no two runs ever share a page or an anchor.
    """
    base = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-")[:40] or "run"
    if base != name or base in taken or not _keeps_its_name(base):
        base = f"{base}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


Scale = tuple[float, float]


def _scale(intervals: Sequence[Interval]) -> Scale:
    """The axis of one metric's bars in a table: from the lowest band end of its runs to the highest,
    padded a little, so the bands fill the bar instead of a few pixels of an axis from 0 to 1."""
    ends = [v for i in intervals for v in (i.low, i.high, i.mean) if not fmt.is_missing(v)]
    if not ends:
        return (0.0, 1.0)
    low, high = min(ends), max(ends)
    pad = max(high - low, 0.02) * 0.05
    return (low - pad, high + pad)


def _bar(low: float, high: float, mean: float, scale: Scale = (0.0, 1.0)) -> Bar | None:
    """A band on the axis ``scale`` (0 to 1 unless given), as SVG coordinates 0 to 100."""
    if any(fmt.is_missing(v) for v in (low, high, mean)):
        return None
    start, span = scale[0], (scale[1] - scale[0]) or 1.0

    def x(v: float) -> float:
        return 100 * max(0.0, min(1.0, (v - start) / span))

    return Bar(f"{x(low):.1f}", f"{max(x(high) - x(low), 0.6):.1f}", f"{x(mean) - 0.6:.1f}")


def _diverging_bar(low: float, high: float, mean: float, reach: float = 1.0) -> Bar | None:
    """A band on the axis from -``reach`` to ``reach``, as SVG coordinates 0 to 100 (0 at 50)."""
    if any(fmt.is_missing(v) for v in (low, high, mean)):
        return None

    def x(v: float) -> float:
        return 50 + 50 * max(-1.0, min(1.0, v / reach))

    return Bar(f"{x(low):.1f}", f"{max(x(high) - x(low), 0.6):.1f}", f"{x(mean) - 0.6:.1f}")


def _cell(interval: Interval, scale: Scale = (0.0, 1.0)) -> Cell:
    low, high, mean = interval.low, interval.high, interval.mean
    return Cell(
        mean=fmt.decimal(mean),
        low=fmt.decimal(low),
        high=fmt.decimal(high),
        band=fmt.band(low, high),
        interval=say.INTERVAL_NAMES[interval.method],
        method=interval.method,
        bar=_bar(low, high, mean, scale),
        aria=say.interval_aria(mean, low, high),
    )


def metric_rows(summaries: Sequence[RunSummary]) -> tuple[MetricRow, ...]:
    """One row per metric at every K asked for: its label, convention and one cell per run."""
    first = summaries[0]
    rows = []
    for cutoff in first.cutoffs:
        for metric in SUITE:
            label = metric.label(cutoff)
            scale = _scale([s.at_k[label] for s in summaries]) if len(summaries) > 1 else (0.0, 1.0)
            rows.append(
                MetricRow(
                    label=label,
                    name=metric.name,
                    convention=metric.convention(cutoff, first.conventions),
                    trec_eval=metric.trec_eval_name(cutoff) or "none",
                    cells=tuple(_cell(s.at_k[label], scale) for s in summaries),
                    tooltip=say.tooltip(metric.name, metric.plain),
                )
            )
    return tuple(rows)


def _is_best(mean: float, best: float | None) -> bool:
    return best is not None and not fmt.is_missing(mean) and mean >= best - 1e-12


def suite_matrix(
    summaries: Sequence[RunSummary],
    slugs: dict[str, str],
    verdicts: dict[tuple[str, str], tuple[str, str]],
    baseline: str | None,
    caption: str,
) -> SuiteMatrix:
    """The suite as one row per run and one column per metric at every K asked for: each mean with
    its band, the best of a column bold (several runs), a mark where ``verdicts`` ((run, metric) to
    (words, CSS class)) says the run is clearly better or worse than the baseline."""
    first = summaries[0]
    labels = [m.label(c) for c in first.cutoffs for m in SUITE]
    scale = {label: _scale([s.at_k[label] for s in summaries]) for label in labels}
    best: dict[str, float | None] = {}
    for label in labels:
        means = [s.at_k[label].mean for s in summaries if not fmt.is_missing(s.at_k[label].mean)]
        best[label] = max(means) if means and len(summaries) > 1 else None
    rows = []
    for s in summaries:
        cells = []
        for label in labels:
            i = s.at_k[label]
            words, css = verdicts.get((s.name, label), ("", ""))
            mark = say.MARKS_OF_VERDICT.get(css, "")
            cells.append(
                FigureCell(
                    mean=fmt.decimal(i.mean),
                    band=fmt.band(i.low, i.high),
                    best=_is_best(i.mean, best[label]),
                    mark=mark,
                    mark_class=css if mark else "",
                    verdict=words if mark else "",
                    # One run alone has nothing to be placed against: no bar.
                    bar=_bar(i.low, i.high, i.mean, scale[label]) if len(summaries) > 1 else None,
                    aria=say.interval_aria(i.mean, i.low, i.high),
                )
            )
        rows.append(FigureRow(s.name, slugs[s.name], s.name == baseline, tuple(cells)))
    key = say.suite_key(baseline is not None) if len(summaries) > 1 else ""
    return SuiteMatrix(metrics=tuple(labels), rows=tuple(rows), caption=caption, key=key)


def _measures(summary: RunSummary) -> tuple[MeasureRow, ...]:
    rows = []
    for i, measure in enumerate(summary.measures):
        interval = summary.measure_at[measure.label()]
        if measure.is_count:
            mean = fmt.count(int(summary.measure_values[i][summary.scores.scored].sum()))
        else:
            mean = fmt.decimal(interval.mean)
        band = "" if interval.method is IntervalMethod.NONE else fmt.band(interval.low, interval.high)
        rows.append(
            MeasureRow(
                label=measure.label(),
                mean=mean,
                band=band,
                interval=say.INTERVAL_NAMES[interval.method],
                trec_eval=measure.trec_eval_name(summary.conventions) or "",
            )
        )
    return tuple(rows)


def _choice_text(value: Any) -> str:
    if isinstance(value, Choice):
        return value.value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def query_table(
    summary: RunSummary,
    texts: Mapping[str, tuple[str, str]] | None = None,
    text_queries: Sequence[str] = (),
    differences: tuple[str, Mapping[str, float]] | None = None,
) -> QueryTable:
    """The per-query table as compact arrays for the page's script (rows and top-K details).

    With ``texts`` (id to title and text) the top-K details of ``text_queries`` show each
    document's title, a snippet and its text on demand; the other queries' details say why not.
    ``differences`` (a header and each paired query's difference from the baseline on the primary
    metric) adds a last column, which sorts like the others.
    """
    judged, scores, k = summary.judged, summary.scores, summary.k
    statuses = list(Status)
    status_index = {s: i for i, s in enumerate(statuses)}
    scored = scores.scored.tolist()
    metric_columns = []
    for metric in SUITE:
        values = scores.of(metric, k)
        if metric.kind.whole:
            metric_columns.append([int(v) if s else None for v, s in zip(values.tolist(), scored)])
        else:
            metric_columns.append([round(v, 6) if s else None for v, s in zip(values.tolist(), scored)])
    rows = []
    first = scores.first_relevant_rank.tolist()
    for q, (qid, text, relevant, length, repeats, status) in enumerate(
        zip(
            judged.query_ids.tolist(),
            judged.query_text,
            judged.relevant.tolist(),
            judged.retrieved.tolist(),
            judged.repeats.tolist(),
            summary.status,
        )
    ):
        rows.append(
            [qid, status_index[status], text, relevant, length, first[q] or None]
            + [col[q] for col in metric_columns]
            + [repeats]
        )

    lengths = judged.lengths
    keep = judged.slot_rank <= k
    mark = np.where(judged.repeat, 3, np.where(~judged.judged, 2, np.where(judged.grades >= judged.level, 0, 1)))[keep]
    docs = as_text(judged.doc_ids[keep])
    grades = [g if j else None for g, j in zip(judged.grades[keep].tolist(), judged.judged[keep].tolist())]
    marks = mark.tolist()
    bounds = np.concatenate([[0], np.cumsum(np.minimum(lengths, k))]).tolist()
    top = [[[docs[i], grades[i], marks[i]] for i in range(bounds[q], bounds[q + 1])] for q in range(judged.n_queries)]

    counts = {s: 0 for s in statuses}
    for s in summary.status:
        counts[s] += 1
    headers = [*say.QUERY_COLUMNS, *(m.label(k) for m in SUITE), "repeats"]
    if differences is not None:
        header, by_query = differences
        headers.append(header)
        for row in rows:
            value = by_query.get(row[0])
            row.append(None if value is None else round(value, 6))
    # How the page formats each column: ids and text as given, counts as integers, scores with 3 decimals.
    kinds = (
        ["id", "status", "text", "count", "count", "count"]
        + ["count" if m.kind.whole else "score" for m in SUITE]
        + ["count"]
        + (["delta"] if differences is not None else [])
    )
    # A column with no data at all (the query text of TREC input, which has none) is not shown.
    text_at = kinds.index("text")
    no_text = all(row[text_at] in (None, "") for row in rows)
    if no_text:
        del headers[text_at], kinds[text_at]
        for row in rows:
            del row[text_at]
    data = {
        "k": k,
        "columns": headers,
        "kinds": kinds,
        "statuses": [s.label for s in statuses],
        "marks": list(say.MARKS),
        "rows": rows,
        "top": top,
    }
    if texts is not None:
        chosen = set(text_queries)
        text_rows = [q for q, qid in enumerate(judged.query_ids.tolist()) if qid in chosen]
        shown = sorted({slot[0] for q in text_rows for slot in top[q] if slot[0] in texts})
        data["texts"] = {
            d: [texts[d][0], fmt.snippet(texts[d][1], fmt.SNIPPET_CHARS), fmt.snippet(texts[d][1], fmt.FULL_TEXT_CHARS)]
            for d in shown
        }
        data["text_rows"] = text_rows
        data["text_note"] = say.text_not_shown(len(chosen))
        data["text_missing"] = say.TEXT_MISSING
        data["full_text"] = say.FULL_TEXT
    options = tuple(
        StatusOption(i, s.label, s.meaning, fmt.count(counts[s])) for i, s in enumerate(statuses) if counts[s]
    )
    titles = [
        *(say.QUERY_COLUMN_TITLES.get(c, "") for c in say.QUERY_COLUMNS),
        *(say.tooltip(m.name, m.plain) for m in SUITE),
        "",
        *([say.DIFFERENCE_COLUMN_TITLE] if differences is not None else []),
    ]
    if no_text:
        del titles[text_at]
    return QueryTable(
        data=data,
        status_options=options,
        headers=tuple(headers),
        total=fmt.count(judged.n_queries),
        titles=tuple(titles),
        filter_label=say.FILTER_LABEL_NO_TEXT if no_text else say.FILTER_LABEL,
        print_note=say.query_table_print_note(judged.n_queries),
    )


def run_view(
    summary: RunSummary,
    slug_name: str,
    run_limits: Sequence[Limit],
    today: _dt.date,
    *,
    pages: bool,
    baseline: str | None,
    verdicts: dict[tuple[str, str], tuple[str, str]] | None = None,
    texts: Mapping[str, tuple[str, str]] | None = None,
    text_queries: Sequence[str] = (),
    differences: tuple[str, Mapping[str, float]] | None = None,
) -> RunView:
    """One run's view; ``baseline`` names the comparison's baseline (None without a comparison) and
    ``verdicts`` its verdicts ((run, metric) to (words, CSS class))."""
    c = summary.counts.as_dict()
    conv = summary.conventions
    k, kmax = summary.k, int(summary.sweep.cutoffs[-1])
    switches = _switches(conv)
    suite_caption, sweep_caption, table_caption = say.run_captions(c["scored"], k, kmax, conv.confidence)
    is_baseline = baseline is not None and summary.name == baseline
    link = None
    if baseline is not None:
        anchor = "compare" if is_baseline else f"compare-{slug_name}"
        link = Link(anchor, *say.compare_link(is_baseline))
    meta = summary.judged.meta
    return RunView(
        name=summary.name,
        slug=slug_name,
        source=say.shown_source(summary.judged.source),
        k=k,
        kmax=kmax,
        cutoffs=say.cutoffs_text(summary.cutoffs),
        date=run_date(summary, today).isoformat(),
        counts={key: fmt.count(value) for key, value in c.items()},
        counts_line=say.counts_line(c),
        fingerprints={"queries": summary.query_fingerprint, "labels": summary.label_fingerprint},
        short_fingerprints={
            "queries": fmt.short_hash(summary.query_fingerprint),
            "labels": fmt.short_hash(summary.label_fingerprint),
        },
        facts=tuple(Labelled(label, value) for label, value in say.fact_items(c, k, kmax)),
        metrics=metric_rows([summary]),
        columns=(Column(say.mean_header(summary.name, False), say.band_header(conv.confidence)),),
        suite=suite_matrix([summary], {summary.name: slug_name}, verdicts or {}, baseline, say.MATRIX_CAPTION),
        measures=_measures(summary),
        confidence=fmt.percent(conv.confidence),
        conventions=tuple(switches),
        rules=tuple(Rule(name, text) for name, text in FIXED_RULES),
        convention_text=tuple(choice.meaning for _, choice in conv.choices()),
        bands_line=say.bands_line(conv.confidence, conv.resamples, conv.seed),
        limits=tuple(LimitView(limit.key, limit.title, limit.text) for limit in run_limits),
        limits_line=say.limits_line(len(run_limits)),
        meta=tuple(Labelled(key, _choice_text(value)) for key, value in meta.as_dict().items() if key != "notes"),
        notes=meta.notes or None,
        suite_caption=suite_caption,
        sweep_caption=sweep_caption,
        table_caption=table_caption,
        is_baseline=is_baseline,
        compare_link=link,
        figure=run_sweep_figure(summary) if pages else None,
        queries=query_table(summary, texts, text_queries, differences) if pages else None,
    )


def _movers(
    rc: RunComparison, ids: list[str], texts: list[str | None], sign: int, primary: Metric
) -> tuple[Mover, ...]:
    m = rc.labels.index(primary.label(rc.baseline.k))
    delta = rc.run_scores[:, m] - rc.baseline_scores[:, m]
    order = np.argsort(-sign * delta, kind="stable")
    out = []
    for i in order[:MOST_MOVERS]:
        if sign * delta[i] <= 1e-12:
            break
        out.append(
            Mover(
                ids[i],
                texts[i] or "",
                fmt.decimal(float(rc.baseline_scores[i, m])),
                fmt.decimal(float(rc.run_scores[i, m])),
                fmt.signed(float(delta[i])),
            )
        )
    return tuple(out)


def _pair_notes(rc: RunComparison) -> list[str]:
    pairing = rc.pairing
    return say_comparison.pair_notes(
        rc.run.name, rc.baseline.name, len(pairing.query_ids), pairing.only_baseline, pairing.only_run, rc.same_labels
    )


def _delta_cell(row: ComparisonRow | None) -> DeltaCell | None:
    if row is None:
        return None
    return DeltaCell(row.delta, say.MARKS_OF_VERDICT.get(row.verdict_class, ""), row.verdict, row.verdict_class)


def comparison_view(
    comparison: ComparisonReport, slugs: dict[str, str], primary_metric: Metric, *, pages: bool
) -> ComparisonView:
    """The comparison section: how it was made, the table, and per run the per-query view
    (``primary_metric`` ranks the movers and opens the scatter)."""
    base = comparison.runs[0].baseline
    conv = base.conventions
    primary = primary_metric.label(base.k)
    rows: list[ComparisonRow] = []
    pairs: list[PairView] = []
    notes: list[str] = []
    ends = [abs(v) for rc in comparison.runs for c in rc.comparisons for v in (c.low, c.high, c.delta)]
    reach = max([v for v in ends if not fmt.is_missing(v)], default=0.0) * 1.05 or 1.0
    for rc in comparison.runs:
        for c in rc.comparisons:
            words, css = say_comparison.verdict(c.verdict, c.alpha, c.p_adjusted)
            rows.append(
                ComparisonRow(
                    run=c.run,
                    metric=c.metric,
                    delta=fmt.signed(c.delta),
                    band=fmt.signed_band(c.low, c.high),
                    bar=_diverging_bar(c.low, c.high, c.delta, reach),
                    p=fmt.p_value(c.p),
                    p_adjusted=fmt.p_value(c.p_adjusted),
                    wtl=f"{c.wins}/{c.ties}/{c.losses}",
                    verdict=words,
                    verdict_class=css,
                    aria=say_comparison.difference_aria(c.delta, c.low, c.high),
                )
            )
        pair_notes = tuple(_pair_notes(rc))
        notes += pair_notes
        anchor = f"compare-{slugs[rc.run.name]}"
        if not rc.comparisons:
            pairs.append(PairView(run=rc.run.name, anchor=anchor, compared=False, notes=pair_notes))
            continue
        ids = rc.pairing.query_ids.tolist()
        text_of = dict(zip(rc.run.judged.query_ids.tolist(), rc.run.judged.query_text))
        texts = [text_of.get(q) for q in ids]
        pairs.append(
            PairView(
                run=rc.run.name,
                anchor=anchor,
                compared=True,
                notes=pair_notes,
                queries=fmt.count(len(ids)),
                heading=say_comparison.pair_heading(rc.run.name, comparison.baseline),
                gains=_movers(rc, ids, texts, +1, primary_metric),
                losses=_movers(rc, ids, texts, -1, primary_metric),
                gains_caption=say_comparison.movers_caption(True, primary, MOST_MOVERS),
                losses_caption=say_comparison.movers_caption(False, primary, MOST_MOVERS),
                scatter_label=say_comparison.scatter_label(rc.run.name, comparison.baseline),
                outcome_label=say_comparison.outcome_label(rc.run.name),
                scatter=scatter_figure(rc, ids, primary_metric) if pages else None,
                outcome=outcome_figure(rc) if pages else None,
                query_column=any(texts),
            )
        )
    metrics = tuple(dict.fromkeys(r.metric for r in rows))
    by_run: dict[str, dict[str, ComparisonRow]] = {}
    for r in rows:
        by_run.setdefault(r.run, {})[r.metric] = r
    matrix = tuple(DeltaRow(run, tuple(_delta_cell(cells.get(m)) for m in metrics)) for run, cells in by_run.items())
    meaning = comparison.correction.meaning
    return ComparisonView(
        baseline=comparison.baseline,
        baseline_anchor=f"compare-{slugs[comparison.baseline]}",
        heading=say_comparison.against_baseline(comparison.baseline),
        caption=say_comparison.comparison_caption(
            comparison.baseline, base.k, conv.confidence, comparison.correction.value
        ),
        confidence=fmt.percent(conv.confidence),
        k=base.k,
        primary=primary,
        correction=comparison.correction.value,
        method=say_comparison.comparison_method(
            comparison.baseline,
            base.k,
            conv.confidence,
            conv.resamples,
            conv.seed,
            comparison.permutations,
            meaning,
            len(comparison.comparisons),
            corrected=comparison.correction.value != "none",
            family=comparison.labels if comparison.named else (),
            left_out=tuple(m.label() for m in comparison.left_out),
        ),
        notes=tuple(notes),
        rows=tuple(rows),
        pairs=tuple(pairs),
        metrics=metrics,
        matrix=matrix,
        matrix_caption=say.delta_matrix_caption(comparison.baseline, base.k),
    )


def _counted(items: tuple, written: Any) -> tuple[int, list[str]]:
    """A count and the first few items of a change list, each written as the list shows it."""
    return len(items), [written(*item) for item in items[: say_comparison.FIRST_SHOWN]]


def drift_view(found: Drift, primary: str) -> DriftView:
    """The drift section: sentences, one line per unchanged run, the delta matrix of the others
    and every row in full (``primary`` is the metric an unchanged run's line quotes)."""
    diagnostics = {m.label(found.k) for m in SUITE if m not in COMPARED}
    outside = {m.label(found.k) for m in COMPARED if m.label(found.k) not in found.family}
    rows_shown = [r for r in found.rows if r.run not in found.unchanged]
    ends = [abs(v) for r in rows_shown for v in (r.low, r.high, r.delta) if v is not None and not fmt.is_missing(v)]
    reach = max(ends, default=0.0) * 1.05 or 1.0
    rows = []
    for r in found.rows:
        words, css = say_comparison.drift_verdict(
            r.verdict, found.alpha, r.p_adjusted, r.metric in diagnostics, outside=r.metric in outside
        )
        has_band = r.low is not None and r.high is not None and r.delta is not None
        rows.append(
            DriftRowView(
                run=r.run,
                metric=r.metric,
                then=fmt.decimal(r.then),
                now=fmt.decimal(r.now),
                delta=fmt.signed(r.delta),
                band=fmt.signed_band(r.low, r.high) if has_band else fmt.NA,
                queries=fmt.count(r.queries),
                bar=_diverging_bar(r.low, r.high, r.delta, reach) if has_band else None,  # type: ignore[arg-type]
                aria=say_comparison.difference_aria(r.delta, r.low, r.high) if has_band else "",  # type: ignore[arg-type]
                p=fmt.p_value(r.p),
                p_adjusted=fmt.p_value(r.p_adjusted),
                changed=fmt.count(r.changed),
                verdict=words,
                verdict_class=css,
            )
        )
    shown = [v for v, r in zip(rows, found.rows) if r.run not in found.unchanged]
    metrics = tuple(dict.fromkeys(r.metric for r in shown))
    by_run: dict[str, dict[str, DriftRowView]] = {}
    for v in shown:
        by_run.setdefault(v.run, {})[v.metric] = v
    matrix = tuple(
        DeltaRow(
            run,
            tuple(
                None
                if cells.get(m) is None
                else DeltaCell(
                    cells[m].delta,
                    say.MARKS_OF_VERDICT.get(cells[m].verdict_class, ""),
                    cells[m].verdict,
                    cells[m].verdict_class,
                )
                for m in metrics
            ),
        )
        for run, cells in by_run.items()
    )
    unchanged = []
    for name in found.unchanged:
        lead = next(r for r in found.rows if r.run == name and r.metric == primary) if primary else None
        first = lead or next(r for r in found.rows if r.run == name)
        unchanged.append(say_comparison.drift_unchanged(name, first.queries, first.metric, first.now))
    changes = tuple(
        say_comparison.drift_change(
            c.runs,
            len(c.runs) == found.runs,
            _counted(c.queries_added, say_comparison.query_item),
            _counted(c.queries_removed, say_comparison.query_item),
            _counted(c.judgments_added, say_comparison.judgment_item),
            _counted(c.judgments_removed, say_comparison.judgment_item),
            _counted(c.regraded, say_comparison.regrade_item),
        )
        for c in found.changes
    )
    return DriftView(
        previous_line=say_comparison.drift_previous(found.source, found.previous_date),
        comparable=found.comparable,
        reasons=tuple(say_comparison.drift_reason(r) for r in found.reasons),
        # drift's notes name the user's runs: quoted whole
        notes=tuple(fmt.Text((fmt.Quoted(n),)) for n in found.notes),
        same_line=fmt.Text((say_comparison.DRIFT_SAME,)) if found.comparable else None,
        rows=tuple(rows),
        changes=changes + tuple(say_comparison.drift_unlisted(run) for run in found.unlisted),
        method=say_comparison.drift_method(1.0 - found.alpha, found.correction.value, found.tested)
        if found.tested
        else "",
        unchanged=tuple(unchanged),
        unchanged_runs=found.unchanged,
        metrics=metrics,
        matrix=matrix,
        matrix_caption=say_comparison.drift_matrix_caption(found.k) if matrix else "",
        confidence=fmt.percent(1.0 - found.alpha),
        correction=found.correction.value,
    )


def build_view(
    analysis: Analysis, *, title: str | None = None, pages: bool = True, gates: Sequence[GateResult] = ()
) -> ReportView:
    """Everything the site, the terminal table and the Markdown show, for every run.

    ``pages`` False leaves out what only the site draws (the charts and the per-query table), for
    the terminal and Markdown, which would not use them.
    """
    summaries, today = analysis.summaries, analysis.today
    taken: set[str] = set()
    slugs = {s.name: slug(s.name, taken) for s in summaries}
    comparison = (
        comparison_view(analysis.comparison, slugs, analysis.primary, pages=pages)
        if analysis.comparison is not None
        else None
    )
    baseline = comparison.baseline if comparison is not None else None
    verdicts = {(r.run, r.metric): (r.verdict, r.verdict_class) for r in comparison.rows} if comparison else {}
    differences = per_query_differences(analysis) if pages else {}
    runs = tuple(
        run_view(
            s,
            slugs[s.name],
            lim,
            today,
            pages=pages,
            baseline=baseline,
            verdicts=verdicts,
            texts=analysis.doc_texts,
            text_queries=analysis.text_queries,
            differences=differences.get(s.name),
        )
        for s, lim in zip(summaries, analysis.limits)
    )
    first = summaries[0]
    confidence = first.conventions.confidence
    sliced = None
    if analysis.slices is not None:
        sliced = slices_view(analysis.slices, tuple(s.name for s in summaries), baseline, confidence)
        runs = tuple(_with_slice_limits(r, analysis.slices, baseline) for r in runs)
    entries = headline(analysis)
    date = say.date_span([r.date for r in runs])
    lede, suite_caption, sweep_caption = say.report_captions(len(runs), first.k, date, first.conventions.confidence)
    return ReportView(
        title=title or say.report_title([s.name for s in summaries]),
        generator=f"ragreport {__version__}",
        date=date,
        k=first.k,
        confidence=fmt.percent(first.conventions.confidence),
        runs=runs,
        metric_rows=metric_rows(summaries),
        columns=tuple(
            Column(say.mean_header(s.name, len(summaries) > 1), say.band_header(s.conventions.confidence))
            for s in summaries
        ),
        suite=suite_matrix(summaries, slugs, verdicts, baseline, say.MATRIX_CAPTION),
        lede=lede,
        suite_caption=suite_caption,
        sweep_caption=sweep_caption,
        figure=index_sweep_figure(summaries, analysis.primary) if pages else None,
        primary=analysis.primary_label,
        headline=tuple(_headline_view(e, slugs) for e in entries),
        headline_caption=say_headline.headline_caption(
            len(summaries) > 1, analysis.primary_label, baseline, confidence
        ),
        forest=_forest(entries, analysis.primary_label, baseline) if pages else None,
        glossary=_glossary(first.k, confidence),
        comparison=comparison,
        drift=drift_view(analysis.drift, analysis.primary_label) if analysis.drift is not None else None,
        conventions=conventions_view(summaries),
        gates=gates_view(gates),
        slices=sliced,
        query_view=query_view_data(analysis, analysis.doc_texts) if pages else None,
    )


def per_query_differences(analysis: Analysis) -> dict[str, tuple[str, dict[str, float]]]:
    """Per compared run: the column header and each paired query's difference from the baseline on
    the primary metric, for its per-query table."""
    found: dict[str, tuple[str, dict[str, float]]] = {}
    if analysis.comparison is None:
        return found
    label = analysis.primary_label
    for run in analysis.comparison.runs:
        deltas = run.differences(label)
        if deltas is not None:
            found[run.run.name] = (say.difference_column(label, run.baseline.name), deltas)
    return found


def _with_slice_limits(run: RunView, report: SliceReport, baseline: str | None) -> RunView:
    """The run's honest limits with each slice where it goes against its overall difference."""
    found = [o for o in report.opposite if o.comparison.run == run.name]
    if not found:
        return run
    added = tuple(
        LimitView(
            "slice-opposite",
            say.SLICE_OPPOSITE_TITLE,
            str(opposite_sentence(o, baseline)),
        )
        for o in found
    )
    limits = run.limits + added
    return dataclasses.replace(run, limits=limits, limits_line=say.limits_line(len(limits)))


def _switches(conv: Conventions) -> list[Switch]:
    """Every switch in force with its meaning, each departure from the default flagged, then the bands."""
    departed = {name for name, _ in conv.departures()}
    switches = [
        Switch(
            say.switch_name(name),
            say.switch_flag(name, choice.value),
            choice.meaning,
            choice.alternative,
            default=name not in departed,
        )
        for name, choice in conv.choices()
    ]
    switches.append(Switch("Bands", *say.bands_switch(conv.confidence, conv.resamples, conv.seed)))
    return switches


def conventions_view(summaries: Sequence[RunSummary]) -> ConventionsView:
    """The report's conventions, stated once, and the marks beside the figures a departure changes."""
    first = summaries[0]
    conv = first.conventions
    switches = _switches(conv)
    departures = tuple(s for s in switches if not s.default)
    flags = [s.switch for s in departures]
    marks: dict[str, str] = {}
    departed = conv.departures()
    for cutoff in first.cutoffs:
        for metric in SUITE:
            changed_by = [say.switch_flag(name, choice.value) for name, choice in departed if metric.changed_by(name)]
            if changed_by:
                marks[metric.label(cutoff)] = say.departure_mark_title(changed_by)
    return ConventionsView(
        title=say.CONVENTIONS_TITLE,
        lede=say.conventions_lede(len(summaries)),
        switches=tuple(switches),
        rules=tuple(Rule(name, text) for name, text in FIXED_RULES),
        departures=departures,
        notice=say.departure_notice(flags) if flags else "",
        marks=marks,
    )


def _headline_view(entry: HeadlineEntry, slugs: dict[str, str]) -> HeadlineView:
    if entry.baseline is None:
        anchor, css = "suite", "single"
    else:
        anchor = f"compare-{slugs[entry.run]}"
        css = "unclear" if entry.verdict is None else say_comparison.VERDICTS[entry.verdict][1]
    return HeadlineView(entry.run, anchor, css, entry.sentence)


def _forest(entries: Sequence[HeadlineEntry], metric: str, baseline: str | None) -> dict[str, Any]:
    """The forest plot: each compared run's difference with its band, or the single run's figure."""
    if baseline is None:
        return forest_figure(
            [e.run for e in entries],
            [e.value for e in entries],
            [e.low for e in entries],
            [e.high for e in entries],
            title=say_headline.forest_title(metric, None),
            axis=metric,
            difference=False,
        )
    return forest_figure(
        [e.run for e in entries],
        [e.delta for e in entries],
        [e.low for e in entries],
        [e.high for e in entries],
        title=say_headline.forest_title(metric, baseline),
        axis=say_headline.FOREST_AXIS_DIFFERENCE.format(metric=metric),
        difference=True,
    )


def _glossary(k: int, confidence: float) -> Glossary:
    """Every suite metric at K, every query status and the comparison's words, explained."""
    return Glossary(
        title=say.GLOSSARY_TITLE,
        lede=say.GLOSSARY_LEDE,
        metrics=tuple(GlossaryEntry(*say.glossary_metric(m.key, k, m.name, m.plain)) for m in SUITE),
        statuses=tuple(GlossaryEntry(s.label, "", s.plain) for s in Status),
        terms=tuple(GlossaryEntry(term, "", text) for term, text in say.glossary_terms(confidence)),
    )
