"""The view model's frozen dataclasses: already-formatted strings and plain values (see the package)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..wording import numbers as fmt

if TYPE_CHECKING:
    from ....analysis.limits import Limit
    from ..queryview import QueryView
    from .labels import LabelsView
    from .slices import SlicesView


@dataclass(frozen=True)
class Bar:
    """A band drawn as SVG coordinates on a 0-100 axis: its start ``x``, width ``w``, mean mark ``m``."""

    x: str
    w: str
    m: str


@dataclass(frozen=True)
class Cell:
    """One mean with its band, formatted: ``mean``, ``low``, ``high`` (three decimals or ``n/a``),
    ``band`` (``[low, high]``), the ``bar`` (None when a figure is missing or not drawn) and its
    ``aria`` (what a screen reader says for it); ``interval`` is the method's name as the pages show
    it (``Wilson``).

    In a metric's row the bar is on the axis of its row (0 to 1 for one run; with several, from the
    lowest band end of the row's runs to the highest). In the suite matrix it is on the scale of its
    column (none for one run alone); ``best`` when the mean is the highest of its column (several
    runs only); ``mark`` (``▲``, ``▼`` or empty) with ``mark_class`` (the comparison verdict's CSS
    class) and ``verdict`` (its words) when the comparison found the difference from the baseline
    clearly above or below zero.
    """

    mean: str
    low: str
    high: str
    band: str
    interval: str
    bar: Bar | None
    aria: str
    best: bool = False
    mark: str = ""
    mark_class: str = ""
    verdict: str = ""


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
class Labelled:
    """A label with its value, both as shown (a fact, a metadata row), and a ``note`` under it."""

    label: str
    value: str
    note: str = ""


@dataclass(frozen=True)
class BandCell:
    """A figure or a difference in a small table: ``value`` and its ``band``, formatted; a
    difference's ``verdict`` (words), ``verdict_class`` (CSS), ``mark`` and ``p_adjusted``;
    ``label`` names the line in a stacked cell (an external score's: the run and the score)."""

    value: str
    band: str
    p_adjusted: str = ""
    verdict_class: str = ""
    mark: str = ""
    label: str = ""
    verdict: str = ""


@dataclass(frozen=True)
class Column:
    """A run's two columns of a suite table: the ``mean`` header and the ``band`` header."""

    mean: str
    band: str


@dataclass(frozen=True)
class FigureRow:
    """A run's row of the suite matrix."""

    name: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class SuiteMatrix:
    """The suite as one row per run and one column per metric (``metrics``, the labels), with the
    ``caption`` above and the ``key`` below (what bold and the marks mean; empty for one run);
    ``more`` names the expander holding the long form."""

    metrics: tuple[str, ...]
    rows: tuple[FigureRow, ...]
    caption: str
    key: str
    more: str = ""


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
    """A run's row of a matrix of differences (None where there is none); in the pairwise matrix
    its ``mean`` and its ``rank`` with the interval too."""

    run: str
    cells: tuple[DeltaCell | None, ...]
    mean: str = ""
    rank: str = ""


@dataclass(frozen=True)
class StatusOption:
    """A query status present in a run: its index in the table data, label, meaning and count."""

    value: int
    label: str
    meaning: str
    count: str


@dataclass(frozen=True)
class QueryTable:
    """The per-query table: ``data`` for the page's script (compact arrays: rows, top-K ids), the
    statuses present, the column ``headers`` with their ``titles`` (a metric's tooltip, else
    empty) and the number of queries (formatted); ``sample_note`` says which queries it lists when
    it lists a sample (docs/conventions.md section 29.1)."""

    data: dict[str, Any]
    status_options: tuple[StatusOption, ...]
    headers: tuple[str, ...]
    total: str
    titles: tuple[str, ...] = ()
    filter_label: str = ""
    print_note: str = ""
    sample_note: fmt.Text | None = None


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
    (asked for by name). Words: ``conventions`` (switches in force), ``rules`` (fixed), ``bands_line``,
    ``limits``, ``limits_line``, ``meta`` (the metadata as given), ``notes`` (the metadata's Markdown
    notes, which the pages render), the captions and ``compare_link`` (to the comparison, when there
    is one). Page-only data (None when the view was built without pages): ``figure`` (the K sweep,
    a plotly figure dict) and ``queries``; ``pr_figure`` (the precision-recall curve, when
    interpolated precision was scored at two recall levels or more, ``--metrics iprec_at_recall``)
    with ``pr_caption``.
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
    bands_line: str
    limits: tuple[Limit, ...]
    limits_line: str
    meta: tuple[Labelled, ...]
    notes: str | None
    suite_caption: str
    sweep_caption: str
    table_caption: str
    compare_link: Link | None
    figure: dict[str, Any] | None
    queries: QueryTable | None
    pr_figure: dict[str, Any] | None = None
    pr_caption: str = ""
    #: The page's first words: its headline against the baseline, or its figure and main limit
    verdict: HeadlineView | None = None
    readings: ReadingsTable | None = None  # its means at K under the readings of unjudged ids
    steps: ReadingsTable | None = None  # a multi-hop run's figures after each hop
    scores: tuple[ReadingsTable, ...] = ()  # its scores of --scores and their comparisons, apart


@dataclass(frozen=True)
class DifferenceRow:
    """A run's difference on one metric, from the baseline (the comparison) or from the previous
    report (the drift): ``delta`` (signed), ``band`` (signed ends), ``bar`` (the band on an axis
    from minus to plus the section's largest end; None without a band) with its ``aria``, ``p``
    and ``p_adjusted``, the ``verdict`` (words) and its ``verdict_class`` (CSS). A comparison's has
    ``wtl`` (won/tied/lost) and the ``effect`` d_z with its band below it; a drift's the figures
    ``then`` and ``now``, the ``queries`` paired and those whose score ``changed``."""

    run: str
    metric: str
    delta: str
    band: str
    bar: Bar | None
    aria: str
    p: str
    p_adjusted: str
    verdict: str
    verdict_class: str
    wtl: str = ""
    effect: str = ""
    effect_band: str = ""
    then: str = ""
    now: str = ""
    queries: str = ""
    changed: str = ""

    @property
    def effect_text(self) -> str:
        """d_z and its band on one line, as the text exports show it."""
        return f"{self.effect} {self.effect_band}".strip()


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

    ``anchor`` is its section's id; when ``compared`` (they share scored queries): the ``gains``
    and ``losses``, their captions, the heading and chart labels, and the ``scatter`` and
    ``outcome`` figures (None when the view was built without pages); ``query_column`` is False
    when no query has text (TREC input), and the tables of movers leave that column out.
    """

    run: str
    anchor: str
    compared: bool
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

    ``heading`` and ``caption`` of the section; ``method`` (how it was made, sentence by sentence,
    the baseline's name quoted); ``notes`` (every pair's); ``rows`` (one per run and metric);
    ``pairs`` (per run, query by query); ``correction`` (its name), ``confidence``, ``primary``
    (the metric movers rank by), ``metrics`` and ``matrix`` (the deltas, one row per run and one
    column per compared metric, under ``matrix_caption``; ``more`` names the expander of the full
    rows) and ``no_movers`` (what an empty table of movers says).
    """

    baseline: str
    heading: fmt.Text
    caption: str
    confidence: str
    primary: str
    correction: str
    method: tuple[fmt.Text, ...]
    notes: tuple[str, ...]
    rows: tuple[DifferenceRow, ...]
    pairs: tuple[PairView, ...]
    metrics: tuple[str, ...] = ()
    matrix: tuple[DeltaRow, ...] = ()
    matrix_caption: str = ""
    more: str = ""
    no_movers: str = ""
    readings: ReadingsTable | None = None  # each difference under the readings of unjudged ids


@dataclass(frozen=True)
class DriftView:
    """Drift since a previous report.

    ``previous_line`` names the previous report and its date; ``reasons`` say for which runs no
    drift can be claimed and why, and ``changes`` what changed in their query and label sets;
    ``notes`` what else a reader must know; ``same_line`` (None when no run is comparable) what
    the figures mean and ``method`` how they were read; ``unchanged`` is a line per run none of
    whose scores moved; ``matrix`` the changed runs' deltas with marks (one column per metric of
    ``metrics``) and ``rows`` every figure in full. ``lines`` holds the sentences in the order every
    output shows them.
    """

    previous_line: fmt.Text
    reasons: tuple[fmt.Text, ...]
    notes: tuple[fmt.Text, ...]
    same_line: fmt.Text | None
    rows: tuple[DifferenceRow, ...]
    changes: tuple[fmt.Text, ...] = ()
    method: str = ""
    unchanged: tuple[fmt.Text, ...] = ()
    metrics: tuple[str, ...] = ()
    matrix: tuple[DeltaRow, ...] = ()
    matrix_caption: str = ""
    more: str = ""
    confidence: str = ""
    correction: str = ""
    unchanged_runs: tuple[str, ...] = ()

    @property
    def moved_rows(self) -> tuple[DifferenceRow, ...]:
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
    comparison, or the suite for a single run), the ``verdict`` CSS class and the sentence; then
    the caveats it does not say itself (:class:`CaveatView`, most serious first), the sentence
    that the verdict holds under every reading of unjudged ids (``note``), when one is said, and
    the standardised effect (``effect``, a compared run's)."""

    run: str
    anchor: str
    verdict_class: str
    sentence: fmt.Text
    caveats: tuple[CaveatView, ...] = ()
    note: str | None = None
    effect: str = ""  # the standardised effect in words, shown on the run's page beside the difference


@dataclass(frozen=True)
class RunLine:
    """A run's line on the first screen: its name and the anchor of its comparison (or of the
    suite), its primary figure, its difference from the baseline and that difference's band (empty
    for the baseline), the verdict in a few words and its CSS class."""

    run: str
    anchor: str
    value: str
    delta: str
    band: str
    verdict: str
    verdict_class: str


@dataclass(frozen=True)
class FirstScreen:
    """What the index says before anything else when it compares runs: one ``summary`` line, one
    line a run (best first) under the ``header`` of their columns (said in the ``caption``), and
    one line a caveat that could change the decision, most serious first."""

    summary: fmt.Text
    margin: str  # the margin a difference is weighed against, in words, after the summary
    header: tuple[str, ...]
    caption: str  # the header in a sentence, where a phone shows no header
    lines: tuple[RunLine, ...]
    caveats: tuple[CaveatView, ...]
    family_note: str = ""  # with a ranking: how the lines' verdicts and the sentences' are weighed


@dataclass(frozen=True)
class ReadingsTable:
    """The figures under the readings of unjudged ids (docs/conventions.md section 20.2), as
    worded cells: a ``caption``, the ``header`` and the ``rows`` (a run, a metric, then a cell per
    reading)."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class CaveatView:
    """A caveat under a headline: its ``kind`` (a CSS class) and its sentence."""

    kind: str
    text: fmt.Text


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
    symbol: str = ""


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


@dataclass(frozen=True)
class PairsView:
    """Every run against every other (three or more runs): the ``tiers`` sentence, how it was made
    (``method``), and the matrix with its ``legend``: the ``runs`` by mean as its columns, a
    a :class:`DeltaRow` each."""

    heading: str
    tiers: fmt.Text
    method: fmt.Text
    caption: str
    legend: str  # what a cell and its mark say
    runs: tuple[str, ...]
    rows: tuple[DeltaRow, ...]
    more: str  # the cue to scroll for the columns out of view


@dataclass(frozen=True)
class ReportView:
    """The whole report as every human-facing output shows it.

    ``title``, ``generator``, ``date`` (one date or a span), ``k``, ``confidence`` (``95%``),
    ``runs``, ``metric_rows`` (the runs side by side: one cell per run) with one of the ``columns``
    per run, ``suite`` (the same figures, one row per run and one column per metric), the index's
    ``lede`` and captions, ``figure`` (every run's K sweep; None without pages), ``primary`` (the
    metric the report leads with, ``nDCG@10``), the ``headline`` (a sentence per compared run, or
    the single run's) with the ``forest`` plot (None without pages) and its caption, the
    ``glossary``, ``comparison`` (None for one run) and ``drift`` (None without a previous report);
    ``pr_figure``, every run's precision-recall curve (None without pages or interpolated precision).
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
    query_view: QueryView | None = None  # every query's lists side by side (pages only)
    pr_figure: dict[str, Any] | None = None  # every run's precision-recall curve (pages only)
    pr_caption: str = ""
    texts: dict[str, Any] | None = None  # the documents' text, once: queryview.text_table (pages only)
    readings: ReadingsTable | None = None  # every mean at K under the readings of unjudged ids
    scores: tuple[ReadingsTable, ...] = ()  # the scores of --scores and their comparisons, apart
    labels: LabelsView | None = None  # the audit of the model's labels (--audit)
    judgments_note: str = ""  # said once when every run's judgments list relevant ids alone
    first_screen: FirstScreen | None = None  # several runs: the decision in a few lines (issue 38)
    pairs: PairsView | None = None  # every run against every other (three or more runs)
    margin_note: str = ""  # said once under a comparison's headline: the margin of a negligible difference
