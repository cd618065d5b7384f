"""The view's figures with their bands and bars: a metric's row of cells, the suite matrix."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ....scoring.catalogue import READ, READINGS
from ..wording import headline as say_headline
from ..wording import numbers as fmt
from ..wording import report as say
from ..wording.comparison import difference_aria
from .model import Bar, Cell, DeltaCell, DeltaRow, DifferenceRow, FigureRow, MetricRow, ReadingsTable, SuiteMatrix

if TYPE_CHECKING:
    from ....analysis.intervals import Interval
    from ....analysis.scores import ExternalScores
    from ....analysis.summary import RunSummary


Scale = tuple[float, float]


def rounded(values: np.ndarray, digits: int = 6) -> Any:
    """An array of finite doubles as nested lists of ``round(value, digits)`` (Python's rounding,
    as the pages' data shows per-query figures). Each distinct value (by its bits: -0.0 stays apart
    from 0.0) is rounded once: scores take few values (P@10 eleven)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError("Out of range float values are not JSON compliant")
    distinct, back = np.unique(values.view(np.int64), return_inverse=True)
    shown = np.array([round(v, digits) for v in distinct.view(np.float64).tolist()], dtype=object)
    return shown[back.reshape(values.shape)].tolist()


def _scale(intervals: Sequence[Interval]) -> Scale:
    """The axis of one metric's bars in a table: from the lowest band end of its runs to the highest,
    padded a little, so the bands fill the bar instead of a few pixels of an axis from 0 to 1."""
    ends = [v for i in intervals for v in (i.low, i.high, i.mean) if not fmt.is_missing(v)]
    if not ends:
        return (0.0, 1.0)
    low, high = min(ends), max(ends)
    pad = max(high - low, 0.02) * 0.05
    return (low - pad, high + pad)


def _bar(low: float, high: float, mean: float, scale: Scale | None = (0.0, 1.0), reach: float = 0.0) -> Bar | None:
    """A band as SVG coordinates 0 to 100: on the axis ``scale`` (0 to 1 unless given; None draws
    no bar), or with a ``reach`` on the axis from -``reach`` to ``reach`` (0 at 50)."""
    if scale is None or any(fmt.is_missing(v) for v in (low, high, mean)):
        return None
    start, span = scale[0], (scale[1] - scale[0]) or 1.0

    def x(v: float) -> float:
        if reach:
            return 50 + 50 * max(-1.0, min(1.0, v / reach))
        return 100 * max(0.0, min(1.0, (v - start) / span))

    return Bar(f"{x(low):.1f}", f"{max(x(high) - x(low), 0.6):.1f}", f"{x(mean) - 0.6:.1f}")


def reach(triples: Sequence[Sequence[float | None]]) -> float:
    """The half-width of a section's axis of differences: its largest end, 5% more (1 with none)."""
    return max((abs(v) for t in triples for v in t if not fmt.is_missing(v)), default=0.0) * 1.05 or 1.0  # type: ignore[arg-type]


def difference_row(
    run: str,
    metric: str,
    figures: tuple[float | None, float | None, float | None],
    p: tuple[float | None, float | None],
    verdict: tuple[str, str],
    axis: float,
    **more: str,
) -> DifferenceRow:
    """A difference (``figures``: delta, low, high) with its ``p`` and adjusted p, its ``verdict``
    (words, CSS class) and its bar on the axis of half-width ``axis``; no band without every end."""
    delta, low, high = figures
    (p_value, p_adjusted), (words, css) = p, verdict
    if low is None or high is None or delta is None:
        band, bar, aria = fmt.NA, None, ""
    else:
        band, bar, aria = (
            fmt.signed_band(low, high),
            _bar(low, high, delta, reach=axis),
            difference_aria(delta, low, high),
        )
    p_shown, adjusted = fmt.p_value(p_value), fmt.p_value(p_adjusted)
    return DifferenceRow(run, metric, fmt.signed(delta), band, bar, aria, p_shown, adjusted, words, css, **more)


def delta_matrix(rows: Sequence[DifferenceRow]) -> tuple[tuple[str, ...], tuple[DeltaRow, ...]]:
    """Rows of differences as the metrics, in the order first met, and a matrix row per run (None
    where a run has no row for a metric)."""
    metrics = tuple(dict.fromkeys(r.metric for r in rows))
    by_run: dict[str, dict[str, DifferenceRow]] = {}
    for r in rows:
        by_run.setdefault(r.run, {})[r.metric] = r

    def cell(r: DifferenceRow | None) -> DeltaCell | None:
        if r is None:
            return None
        return DeltaCell(r.delta, say.MARKS_OF_VERDICT.get(r.verdict_class, ""), r.verdict, r.verdict_class)

    return metrics, tuple(DeltaRow(run, tuple(cell(cells.get(m)) for m in metrics)) for run, cells in by_run.items())


def _cell(interval: Interval, scale: Scale | None = (0.0, 1.0), **marks: Any) -> Cell:
    """``interval`` formatted, its bar on ``scale`` (None: no bar); ``marks`` the suite matrix's."""
    low, high, mean = interval.low, interval.high, interval.mean
    return Cell(
        mean=fmt.decimal(mean),
        low=fmt.decimal(low),
        high=fmt.decimal(high),
        band=fmt.band(low, high),
        interval=say.INTERVAL_NAMES[interval.method.value],
        bar=_bar(low, high, mean, scale),
        aria=say.interval_aria(mean, low, high),
        **marks,
    )


def metric_rows(summaries: Sequence[RunSummary]) -> tuple[MetricRow, ...]:
    """One row per metric at every K asked for: its label, convention and one cell per run."""
    first = summaries[0]
    rows = []
    for cutoff in first.cutoffs:
        for metric in first.suite:
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


def suite_matrix(
    summaries: Sequence[RunSummary],
    verdicts: dict[tuple[str, str], tuple[str, str]],
    baseline: str | None,
) -> SuiteMatrix:
    """The suite as one row per run and one column per metric at every K asked for: each mean with
    its band, the best of a column bold (several runs), a mark where ``verdicts`` ((run, metric) to
    (words, CSS class)) says the run is clearly better or worse than the baseline."""
    first = summaries[0]
    labels = [m.label(c) for c in first.cutoffs for m in first.suite]
    several = len(summaries) > 1
    # One run alone has nothing to be placed against: no bar, no bold.
    scale = {label: _scale([s.at_k[label] for s in summaries]) if several else None for label in labels}
    best = {label: math.inf for label in labels}  # the least mean that is a column's best (within 1e-12)
    for label in labels:
        means = [s.at_k[label].mean for s in summaries if not fmt.is_missing(s.at_k[label].mean)]
        if means and several:
            best[label] = max(means) - 1e-12
    rows = []
    for s in summaries:
        cells = []
        for label in labels:
            i = s.at_k[label]
            words, css = verdicts.get((s.name, label), ("", ""))
            mark = say.MARKS_OF_VERDICT.get(css, "")
            top = not fmt.is_missing(i.mean) and i.mean >= best[label]
            marks = {"mark": mark, "mark_class": css if mark else "", "verdict": words if mark else ""}
            cells.append(_cell(i, scale[label], best=top, **marks))
        rows.append(FigureRow(s.name, tuple(cells)))
    key = say.suite_key(baseline is not None) if several else ""
    key = say.suite_key(baseline is not None) if len(summaries) > 1 else ""
    return SuiteMatrix(
        metrics=tuple(labels), rows=tuple(rows), caption=say.MATRIX_CAPTION, key=key, more=say.SUITE_MORE
    )


def readings_table(summaries) -> ReadingsTable | None:
    """Every mean at K under the readings of unjudged ids, a row per run and metric; None
    when some run was not read so (judgments of relevant ids alone, section 20.2)."""
    if not summaries or not all(s.reading_at for s in summaries):
        return None
    k = summaries[0].k
    rows = []
    for metric in (m for m in READ if m in summaries[0].suite):
        label = metric.label(k)
        for s in summaries:
            rows.append(
                (s.name, label, fmt.decimal(s.at_k[label].mean))
                + tuple(fmt.decimal(s.reading_at[name].get(label)) for name in READINGS)
            )
    return ReadingsTable(say.readings_caption(k), say.READINGS_RUN_HEADER + say.READING_HEADERS, tuple(rows))


def steps_table(summary: RunSummary) -> ReadingsTable | None:
    """A multi-hop run's figures after hops 1, 1-2, ... (:class:`~ragreport.analysis.summary.Steps`),
    a row per hop; None for a run of one step."""
    steps = summary.steps
    if steps is None:
        return None
    rows = tuple(
        ("1" if h == 0 else f"1-{h + 1}", fmt.decimal(r.mean), fmt.band(r.low, r.high))
        + (fmt.decimal(i.mean), fmt.band(i.low, i.high), fmt.count(found))
        for h, (r, i, found) in enumerate(zip(steps.recall, steps.hit, steps.found))
    )
    caption = say.steps_caption(steps.k, len(steps.found), steps.found[-1], steps.found[-1] - steps.found[0])
    return ReadingsTable(caption, say.steps_header(steps.k), rows)


def scores_tables(scores: ExternalScores | None, run: str | None = None) -> tuple[ReadingsTable, ...]:
    """The scores of ``--scores`` (:mod:`ragreport.analysis.scores`): a table of every run's (or
    ``run``'s) means and bands, each on its score's scale, and one of the comparisons with the
    baseline when there are any; none without scores. Never cells of the ranked-list tables."""
    if scores is None:
        return ()
    scales = [(name, s.text, s.how) for name, s in scores.scales.items()]
    rows = tuple(
        (f.run, f.name, scores.scales[f.name].text, fmt.decimal(f.interval.mean))
        + (fmt.band(f.interval.low, f.interval.high), f"{fmt.count(f.queries)} of {fmt.count(f.judged)}")
        for f in scores.figures
        if run in (None, f.run)
    )
    tables = [ReadingsTable(say.scores_caption(scores.source, scores.judges, scales), say.SCORES_HEADER, rows)]
    compared = tuple(
        (c.run, c.metric, fmt.signed(c.delta), fmt.signed_band(c.low, c.high), fmt.p_value(c.p_adjusted))
        + (say_headline.LINE_VERDICTS[c.verdict], f"{c.wins}/{c.ties}/{c.losses}")
        for c in scores.comparisons
        if run in (None, c.run, c.baseline)
    )
    if compared and scores.baseline is not None:
        margins = "; ".join(f"{name} {c.min_effect:g}" for name, c in {c.metric: c for c in scores.comparisons}.items())
        caption = say.scores_comparison_caption(scores.baseline, margins)
        tables.append(ReadingsTable(caption, say.SCORES_COMPARISON_HEADER, compared))
    return tuple(tables)
