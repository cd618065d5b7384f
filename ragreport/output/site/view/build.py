"""Build the view model from the analysis: :func:`build_view` reads an
:class:`~ragreport.analysis.pipeline.Analysis` and returns a :class:`~.model.ReportView`.

report.json is not built from it: it is the data contract (:mod:`ragreport.output.exports.reportjson.write`)."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .... import __version__
from ....analysis.caveats import RULES
from ....analysis.limits import Limit
from ....analysis.summary import Status
from ....scoring.metrics import FIXED_RULES
from ..charts import forest_figure, has_pr_curve, index_sweep_figure, pr_figure, pr_points
from ..headline import HeadlineEntry, headline, single_sentence
from ..media import isolated
from ..queryview import QueryView, text_table
from ..wording import charts as say_charts
from ..wording import comparison as say_comparison
from ..wording import gates as say_gates
from ..wording import headline as say_headline
from ..wording import numbers as fmt
from ..wording import page as say_page
from ..wording import report as say
from .cells import metric_rows, readings_table, scores_tables, suite_matrix
from .comparison import comparison_view, pairs_view
from .drift import drift_view
from .labels import labels_view
from .model import (
    CaveatView,
    Column,
    ConventionsView,
    FirstScreen,
    GateRow,
    GatesView,
    Glossary,
    GlossaryEntry,
    HeadlineView,
    ReportView,
    Rule,
    RunLine,
)
from .run import _switches, run_view, slug
from .slices import opposite_sentence, slices_view

if TYPE_CHECKING:
    from ....analysis.pipeline import Analysis
    from ....analysis.ranking import Ranking
    from ....analysis.slices import SliceReport
    from ....analysis.summary import RunSummary
    from ...exports.gates import GateResult


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


def build_view(
    analysis: Analysis,
    *,
    title: str | None = None,
    pages: bool = True,
    gates: Sequence[GateResult] = (),
) -> ReportView:
    """Everything the site, the terminal table and the Markdown show, for every run.

    ``pages`` False leaves out what only the site draws (the charts and the per-query table), for
    the terminal and Markdown, which would not use them.
    """
    summaries = analysis.summaries
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
    sample = analysis.sample if pages else None  # past PAGE_QUERIES, the queries listed (29.1)
    # First: made in a child process for a large report while the rest is built (22.25).
    query_view = QueryView(analysis, sample) if pages else None
    texts = text_table(analysis.doc_texts) if pages else None
    entries = headline(analysis)
    views = tuple(_headline_view(e, slugs) for e in entries)
    headlines = {v.run: v for v in views}
    runs = tuple(
        run_view(
            s,
            slugs[s.name],
            (*lim, *_slice_limits(s.name, analysis.slices, baseline)),
            analysis,
            pages=pages,
            baseline=baseline,
            verdicts=verdicts,
            differences=differences.get(s.name),
            verdict=headlines.get(s.name) or _own_headline(s, lim, analysis),
            sample=sample,
        )
        for s, lim in zip(summaries, analysis.limits)
    )
    first = summaries[0]
    confidence = first.conventions.confidence
    date = say.date_span([r.date for r in runs])
    margin = "" if baseline is None else say_headline.margin_note(analysis.min_effect, analysis.primary_label)
    lede, suite_caption, sweep_caption = say.report_captions(len(runs), first.k, date, confidence)
    return ReportView(
        title=title or say.report_title([s.name for s in summaries]),
        generator=f"ragreport {__version__}",
        date=date,
        k=first.k,
        confidence=fmt.percent(confidence),
        runs=runs,
        metric_rows=metric_rows(summaries),
        columns=tuple(
            Column(say.mean_header(s.name, len(summaries) > 1), say.band_header(s.conventions.confidence))
            for s in summaries
        ),
        suite=suite_matrix(summaries, verdicts, baseline),
        lede=lede,
        suite_caption=suite_caption,
        sweep_caption=sweep_caption,
        figure=index_sweep_figure(summaries, analysis.primary) if pages else None,
        primary=analysis.primary_label,
        headline=views,
        headline_caption=say_headline.headline_caption(  # plain text (a figcaption, an aria-label): isolated
            len(summaries) > 1,
            analysis.primary_label,
            None if baseline is None else isolated(baseline),
            confidence,
            any(e.corrected_by is not None for e in entries),
        ),
        forest=_forest(entries, analysis.primary_label, baseline, analysis.ranking) if pages else None,
        glossary=Glossary(
            title=say.GLOSSARY_TITLE,
            lede=say.GLOSSARY_LEDE,
            metrics=tuple(GlossaryEntry(*say.glossary_metric(m.key, first.k, m.name, m.plain)) for m in first.suite),
            statuses=tuple(GlossaryEntry(s.label, "", s.plain) for s in Status),
            terms=tuple(GlossaryEntry(term, "", text) for term, text in say.glossary_terms(confidence)),
        ),
        comparison=comparison,
        drift=drift_view(analysis.drift, analysis.primary_label) if analysis.drift is not None else None,
        conventions=conventions_view(summaries),
        gates=gates_view(gates),
        slices=None
        if analysis.slices is None
        else slices_view(analysis.slices, tuple(s.name for s in summaries), baseline, confidence),
        query_view=query_view,
        pr_figure=pr_figure(summaries, say_charts.INDEX_PR_TITLE) if pages and has_pr_curve(summaries) else None,
        pr_caption=say_charts.pr_caption(confidence, len(pr_points(first))),
        texts=texts,
        readings=readings_table(summaries),
        scores=scores_tables(analysis.scores),
        labels=labels_view(analysis),
        judgments_note=say_headline.RELEVANT_ONLY_NOTE if analysis.relevant_only else "",
        first_screen=first_screen(
            entries, slugs, confidence, analysis.ranking, margin, len(analysis.comparison.comparisons)
        )
        if margin and analysis.comparison is not None
        else None,
        pairs=pairs_view(analysis.ranking) if analysis.ranking is not None else None,
        margin_note=margin,
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


def _slice_limits(run: str, report: SliceReport | None, baseline: str | None) -> tuple[Limit, ...]:
    """The run's slices that go against its overall difference, as honest limits."""
    found = [o for o in (report.opposite if report is not None else ()) if o.comparison.run == run]
    return tuple(Limit("slice-opposite", say.SLICE_OPPOSITE_TITLE, str(opposite_sentence(o, baseline))) for o in found)


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
        for metric in first.suite:
            changed_by = [say.switch_flag(name, choice.value) for name, choice in departed if metric.changed_by(name)]
            if changed_by:
                marks[metric.label(cutoff)] = say.departure_mark_title(changed_by)
    return ConventionsView(
        title=say.CONVENTIONS_TITLE,
        lede=say.conventions_lede(len(summaries)),
        switches=switches,
        rules=tuple(Rule(name, text) for name, text in FIXED_RULES),
        departures=departures,
        notice=say.departure_notice(flags) if flags else "",
        marks=marks,
        symbol=say.DEPARTURE_MARK,
    )


def _own_headline(summary: RunSummary, limits: Sequence[Limit], analysis: Analysis) -> HeadlineView:
    """A run page's first words when no headline compares it (the baseline): what it scores, as a
    single run's headline says it, with its most important limit."""
    _, sentence = single_sentence(summary, limits, analysis.primary_label, analysis.audit)
    return HeadlineView(summary.name, "compare", "single", sentence)


def _verdict_class(verdict: str | None) -> str:
    """A verdict's CSS class (a run that could not be compared has none: "unclear")."""
    return "unclear" if verdict is None else say_comparison.VERDICTS[verdict][1]


def _headline_view(entry: HeadlineEntry, slugs: dict[str, str]) -> HeadlineView:
    if entry.baseline is None:
        anchor, css = "suite", "single"
    else:
        anchor, css = f"compare-{slugs[entry.run]}", _verdict_class(entry.verdict)
    caveats = tuple(CaveatView(c.kind, text) for c, text in entry.more)
    effect = "" if entry.baseline is None or entry.delta is None else say_headline.effect_sentence(entry)
    return HeadlineView(entry.run, anchor, css, entry.sentence, caveats, entry.readings_note, effect)


def first_screen(
    entries: Sequence[HeadlineEntry],
    slugs: dict[str, str],
    confidence: float,
    ranking: Ranking | None = None,
    margin: str = "",
    compared: int = 0,
) -> FirstScreen:
    """The decision in a few lines: the summary (the tiers of every run when there are three or
    more, else the compared run's verdict), a line a run (highest primary figure first, the
    baseline among them) and a line a caveat that could change it (the kinds' order of
    :data:`~ragreport.analysis.caveats.RULES`, said once however many comparisons raise it). The
    summary is followed by the ``margin`` a difference is weighed against, in words. With a
    ranking the lines read its pairs' verdicts (:func:`_screen_verdict`), and the details say how
    they differ from the sentences, which weigh the ``compared`` comparisons with the baseline."""
    first = entries[0]
    base, metric = str(first.baseline), first.metric
    lines = [RunLine(base, "suite", fmt.decimal(first.baseline_value), "", "", say_headline.BASELINE_MARK, "single")]
    for e in entries:
        shown = say_headline.line_figures(e.delta, e.low, e.high)
        verdict = _screen_verdict(e, ranking)
        words = say_headline.NOT_COMPARED if verdict is None else say_headline.LINE_VERDICTS[verdict]
        anchor = f"compare-{slugs[e.run]}"
        lines.append(RunLine(e.run, anchor, fmt.decimal(e.value), *shown, words, _verdict_class(verdict)))
    values = {e.run: e.value for e in entries} | {base: first.baseline_value}
    if ranking is not None:  # the ranking's order: ties by the runs' order, as its tiers read
        lines.sort(key=lambda line: ranking.order.index(line.run))
    else:
        lines.sort(key=lambda line: (fmt.is_missing(values[line.run]), -(values[line.run] or 0.0)))
    if len(entries) == 1 and first.verdict is not None:
        summary = say_headline.summary_pair(
            first.run, base, metric, first.verdict, first.delta, first.low, first.high, confidence
        )
    elif ranking is not None:
        summary = say_headline.summary_tiers(metric, say_comparison.tiers_sentence(ranking.tiers))
    else:
        summary = say_headline.summary_best(lines[0].run, metric, values[lines[0].run])
    order = list(RULES)
    said: dict[str, tuple[int, CaveatView]] = {}
    for e in entries:
        for c, _ in e.caveats:
            figures = _still_changes(c.kind, c.figures, _screen_verdict(e, ranking))
            if figures is not None:
                text = say_headline.short_caveat(c.kind, e.run, figures)
                said.setdefault(str(text), (order.index(c.kind), CaveatView(c.kind, text)))
    caveats = tuple(view for _, view in sorted(said.values(), key=lambda item: item[0]))
    header = (
        say_page.COL_RUN,
        metric,
        say_headline.difference_header(base, fmt.percent(confidence)),
        say_headline.VERDICT_HEADER,
    )
    caption = say_headline.run_lines_caption(metric, base, fmt.percent(confidence))
    note = "" if ranking is None else say_headline.screen_family_note(metric, len(ranking.pairs), base, compared)
    return FirstScreen(summary, margin, header, caption, tuple(lines), caveats, note)


def _still_changes(kind: str, figures: Mapping[str, Any], verdict: str | None) -> Mapping[str, Any] | None:
    """A caveat's figures as the first screen weighs them against the verdict it shows (a pair's,
    with a ranking): a reading of unjudged ids that gives that very verdict changes nothing and is
    left out, and so is what the test could have detected beside a verdict that is not "no clear
    difference"; None when nothing is left."""
    if kind == "unjudged":
        flips = [f for f in figures["flips"] if f["verdict"] != verdict]
        return {**figures, "flips": flips} if flips else None
    if kind == "power" and verdict != "unclear":
        return None
    return figures


def _screen_verdict(entry: HeadlineEntry, ranking: Ranking | None) -> str | None:
    """The verdict the first screen shows for a run against the baseline: with three or more runs,
    that of their pair in the ranking (the same difference and band, corrected over every pair on
    the primary metric as the tiers are: docs/conventions.md section 27), so that the lines, the
    plot and the tiers agree; else, and when an audit's corrected figures lead, the headline's."""
    if ranking is None or entry.baseline is None or entry.corrected_by is not None:
        return entry.verdict
    pair = ranking.pair(entry.run, entry.baseline)
    return entry.verdict if pair is None or pair.verdict is None else pair.verdict


def _forest(
    entries: Sequence[HeadlineEntry], metric: str, baseline: str | None, ranking: Ranking | None = None
) -> dict[str, Any]:
    """The forest plot: each compared run's difference with its band, or the single run's figure;
    in the ranking's order (best first), as the first screen's lines are."""
    compared = baseline is not None
    if ranking is not None:
        entries = sorted(entries, key=lambda e: ranking.order.index(e.run))
    return forest_figure(
        [e.run for e in entries],
        [e.delta if compared else e.value for e in entries],
        [e.low for e in entries],
        [e.high for e in entries],
        # plotly reads HTML
        title=say_headline.forest_title(metric, None if baseline is None else isolated(html.escape(baseline))),
        axis=say_headline.FOREST_AXIS_DIFFERENCE.format(metric=metric) if compared else metric,
        difference=compared,
        verdicts=[_verdict_class(_screen_verdict(e, ranking)) for e in entries] if compared else None,
    )
