"""The charts as plotly figure dictionaries (plain data; plotly.js draws them in the page): the K
sweep, the precision-recall curves, the comparison's scatter and forest plot, and the history's
trend (:func:`trend_figure`: each run's mean of one metric across the reports, the line broken
where they stop being comparable).

Figures are built as dicts rather than through ``plotly.graph_objects`` so that building a site
needs no plotly import on the hot path; the tests validate every figure with ``go.Figure``.
Text that comes from the user's files (run names) is HTML-escaped: plotly renders a small subset
of HTML in labels and decodes entities, so an escaped name shows as the text it is.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analysis.paired import GRID_BINS
from ...scoring.catalogue import IPREC, PRIMARY, Metric
from .media import isolated
from .wording import charts as say
from .wording import report as say_report

if TYPE_CHECKING:
    from ...analysis.compare import RunComparison
    from ...analysis.summary import RunSummary
    from ..exports.history import Trend


# Colour-blind-safe palette (Okabe and Ito, with two of Tol's for contrast on dark pages) for metrics on a
# run page and for runs on the index.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#882255", "#999933")


def colour(i: int) -> str:
    """The ``i``-th colour of :data:`PALETTE`, cycling: a ninth metric or run takes the first again."""
    return PALETTE[i % len(PALETTE)]


CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "showLink": False,
    "showSendToCloud": False,
    "modeBarButtonsToRemove": ["select2d", "lasso2d"],
}

GRID_COLUMNS = 3

#: A title pinned to the figure's top edge, so a menu placed above the plot (under the title) never
#: covers it.
TITLE_AT_TOP: dict[str, Any] = {"y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 10, "l": 8}}
#: Every figure's backgrounds: transparent, so that it reads on light and dark pages.
CLEAR = {"paper_bgcolor": "rgba(0,0,0,0)", "plot_bgcolor": "rgba(0,0,0,0)"}
GREY_RULE = {"width": 1.5, "color": "#888888"}


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _clean(values) -> list[float | None]:
    return [None if (v is None or (isinstance(v, float) and math.isnan(v))) else float(v) for v in values]


def _title(text: str, top: bool = True) -> dict[str, Any]:
    return {"text": text, "x": 0, "xanchor": "left", "font": {"size": 15}, **(TITLE_AT_TOP if top else {})}


def _rule(x: float, line: dict[str, Any]) -> dict[str, Any]:
    """A vertical line at ``x`` across the plot's height."""
    return {"type": "line", "x0": x, "x1": x, "y0": 0, "y1": 1, "yref": "paper", "line": line}


def _note(x: float, text: str, xanchor: str) -> dict[str, Any]:
    """A note standing on the plot's top edge at ``x``."""
    return {
        "x": x,
        "y": 1,
        "yref": "paper",
        "text": text,
        "showarrow": False,
        "xanchor": xanchor,
        "yanchor": "bottom",
        "font": {"size": 11},
    }


def _error_bars(values: Sequence, lows: Sequence, highs: Sequence, colour: str, thickness: float, width: int):
    """Each value's band as asymmetric error bars (None where a figure is missing)."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [None if v is None or h is None else h - v for v, h in zip(values, highs)],
        "arrayminus": [None if v is None or lo is None else v - lo for v, lo in zip(values, lows)],
        "color": colour,
        "thickness": thickness,
        "width": width,
    }


def _band_and_line(
    x: list, mean: list, low: list, high: list, name: str, colour: str, group: str, hover: str, size: int, **extra: Any
) -> list[dict[str, Any]]:
    """Two traces: the band as a filled polygon (no hover) and the mean with its band on hover (``hover``
    names the point and the band's method); ``extra`` ends both."""
    band = {
        "type": "scatter",
        "mode": "lines",
        "x": x + x[::-1],
        "y": high + low[::-1],
        "fill": "toself",
        "fillcolor": _rgba(colour, 0.16),
        "line": {"width": 0, "color": colour},
        "hoverinfo": "skip",
        "showlegend": False,
        "legendgroup": group,
        "name": f"{name} band",
        **extra,
    }
    line = {
        "type": "scatter",
        "mode": "lines+markers",
        "x": x,
        "y": mean,
        "name": name,
        "legendgroup": group,
        "line": {"color": colour, "width": 2},
        "marker": {"size": size, "color": colour},
        "customdata": [[lo, hi] for lo, hi in zip(low, high)],
        "hovertemplate": f"{name}<br>{hover} band %{{customdata[0]:.3f}} to %{{customdata[1]:.3f}}<extra></extra>",
        **extra,
    }
    return [band, line]


def _sweep(
    summary: RunSummary, metric: Metric, name: str, colour: str, group: str, visible: bool = True, axes=("x", "y")
) -> list[dict[str, Any]]:
    """A metric's mean against K with its band."""
    sweep, key = summary.sweep, metric.key
    hover = f"{key}@%{{x}}: %{{y:.3f}}<br>{say_report.INTERVAL_NAMES[metric.interval.value]}"
    # 4 decimals, a tenth of what the hover shows: a sweep to 100 holds 100 points a line, and full
    # floats (0.05383333333333254) would make it five times heavier than the sweep to 20 it replaced.
    mean, low, high = (
        [None if v is None else round(v, 4) for v in _clean(values[key])]
        for values in (sweep.mean, sweep.low, sweep.high)
    )
    ks = [int(k) for k in sweep.cutoffs]
    return _band_and_line(
        ks, mean, low, high, name, colour, group, hover, 4, visible=visible, xaxis=axes[0], yaxis=axes[1]
    )


def run_sweep_figure(summary: RunSummary) -> dict[str, Any]:
    """Small multiples: one panel per metric against K with its band, the chosen K marked in each."""
    traces: list[dict[str, Any]] = []
    rows = math.ceil(len(summary.suite) / GRID_COLUMNS)
    ks = [int(k) for k in summary.sweep.cutoffs]
    log = ks[-1] > 100
    layout: dict[str, Any] = {
        "title": _title(
            say.run_sweep_title(isolated(html.escape(summary.name)), summary.conventions.confidence), False
        ),
        "grid": {"rows": rows, "columns": GRID_COLUMNS, "pattern": "independent", "ygap": 0.32, "xgap": 0.12},
        "showlegend": False,
        "shapes": [],
        "annotations": [],
        "hovermode": "closest",
        "margin": {"l": 44, "r": 12, "t": 56, "b": 36},
        **CLEAR,
        "height": 250 * rows + 40,
    }
    for i, metric in enumerate(summary.suite):
        suffix = "" if i == 0 else str(i + 1)
        x, y = f"x{suffix}", f"y{suffix}"
        traces += _sweep(summary, metric, metric.key, colour(i), metric.key, axes=(x, y))
        layout[f"xaxis{suffix}"] = {
            "type": "log" if log else "linear",
            "zeroline": False,
            "range": None if log else [0.5, ks[-1] + 0.5],
            "title": {"text": "K", "standoff": 2},
        }
        layout[f"yaxis{suffix}"] = {"range": [0, 1.02], "zeroline": False}
        layout["shapes"].append(
            {
                "type": "line",
                "xref": x,
                "yref": f"{y} domain",
                "x0": summary.k,
                "x1": summary.k,
                "y0": 0,
                "y1": 1,
                "line": {"dash": "dot", "width": 1.2, "color": "#888888"},
            }
        )
        layout["annotations"].append(
            {
                "xref": f"{x} domain",
                "yref": f"{y} domain",
                "x": 0,
                "y": 1.02,
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "text": f"<b>{metric.key}@K</b> ({metric.name})",
                "font": {"size": 12},
            }
        )
    return {"data": traces, "layout": layout, "config": CONFIG}


def index_sweep_figure(summaries: Sequence[RunSummary], shown: Metric = PRIMARY) -> dict[str, Any]:
    """Every run overlaid, one metric at a time (``shown`` first), with a selector for the metric."""
    traces: list[dict[str, Any]] = []
    suite, first = summaries[0].suite, summaries[0]
    shown = shown if shown in suite else suite[0]
    for metric in suite:
        for r, summary in enumerate(summaries):
            name = html.escape(summary.name)
            traces += _sweep(summary, metric, name, colour(r), f"{metric.key}-{r}", visible=metric is shown)
    per_metric = 2 * len(summaries)
    buttons = []
    for m, metric in enumerate(suite):
        visible = [m * per_metric <= t < (m + 1) * per_metric for t in range(len(traces))]
        buttons.append({"label": f"{metric.key}@K", "method": "update", "args": [{"visible": visible}]})
    ks = [int(k) for k in first.sweep.cutoffs]
    log = ks[-1] > 100
    layout = {
        "title": _title(say.INDEX_SWEEP_TITLE),
        "xaxis": {
            "title": {"text": "K (cutoff)"},
            "type": "log" if log else "linear",
            "range": None if log else [0.5, ks[-1] + 0.5],
            # ticks by the cutoff's value, not its place in the sweep: past 20 the sweep is a grid
            # (25, 30, 40, ...) and plotly's own ticks (0, 20, 40, ...) space it truly
            "dtick": None if log or ks[-1] > 20 else max(1, ks[-1] // 10),
            "zeroline": False,
        },
        "yaxis": {"title": {"text": "mean over scored queries"}, "range": [0, 1.02], "zeroline": False},
        "shapes": [_rule(first.k, {"dash": "dot", **GREY_RULE})],
        "annotations": [_note(first.k, f"K = {first.k}", "left")],
        # Anchored: it grows down, not onto the axis title; 64 px under the plot, clear of the tick
        # labels and the axis title.
        "legend": {"orientation": "h", "y": -0.25, "yanchor": "top"},
        # Room at the top for the menu (top left, under the title: the mode bar appears top right on
        # hover and would cover it); at the bottom for the legend, inside a margin that holds a row of
        # run names: the page's script grows it to hold more rows (site.js settleLegend).
        "margin": {"l": 56, "r": 16, "t": 96, "b": 100},
        "hovermode": "closest",
        **CLEAR,
        "height": 454,
        # clear of the "K = 10" note standing on the plot's top edge, which a long sweep puts near
        # the left, under the menu
        "updatemenus": _menu(buttons, suite.index(shown), 1.09),
    }
    return {"data": traces, "layout": layout, "config": CONFIG}


def pr_points(summary: RunSummary) -> list[tuple[float, Any]]:
    """The run's interpolated precision at each recall level it was scored at (the measures
    ``IPrec@L`` at the run's own relevance level), as (level, interval), levels ascending."""
    points = [
        (float(m.value("recall")), summary.measure_at[m.label()])
        for m in summary.measures
        if m.metric is IPREC and m.rel is None
    ]
    return sorted(points, key=lambda point: point[0])


def has_pr_curve(summaries: Sequence[RunSummary]) -> bool:
    """Whether every run holds a precision-recall curve: at least two recall levels scored."""
    return bool(summaries) and all(len(pr_points(s)) >= 2 for s in summaries)


def pr_figure(summaries: Sequence[RunSummary], title: str) -> dict[str, Any]:
    """Interpolated precision against recall (trec_eval's 11 levels, or those scored), one line
    with its band per run, in the K sweep's style."""
    traces: list[dict[str, Any]] = []
    hover = f"{say.PR_HOVER}<br>{say_report.INTERVAL_NAMES['bootstrap']}"
    for r, summary in enumerate(summaries):
        points = pr_points(summary)
        levels = [level for level, _ in points]
        mean, low, high = (_clean([getattr(i, end) for _, i in points]) for end in ("mean", "low", "high"))
        traces += _band_and_line(levels, mean, low, high, html.escape(summary.name), colour(r), f"pr-{r}", hover, 5)
    layout = {
        "title": _title(title),
        "xaxis": {"title": {"text": say.PR_X}, "range": [-0.02, 1.02], "dtick": 0.1, "zeroline": False},
        "yaxis": {"title": {"text": say.PR_Y}, "range": [0, 1.02], "zeroline": False},
        "legend": {"orientation": "h", "y": -0.2},
        "margin": {"l": 56, "r": 16, "t": 48, "b": 40},
        "hovermode": "closest",
        "showlegend": len(summaries) > 1,
        **CLEAR,
        "height": 420,
    }
    return {"data": traces, "layout": layout, "config": CONFIG}


#: Above this many queries the per-query scatter becomes a grid of counts (a page stays light).
SCATTER_POINTS = 2000


def _count_grid(counts: np.ndarray, metric: str, base_name: str, run_name: str, visible: bool) -> dict[str, Any]:
    edges = np.linspace(0.0, 1.0, GRID_BINS + 1)
    centres = ((edges[:-1] + edges[1:]) / 2).round(4).tolist()
    return {
        "type": "heatmap",
        "name": metric,
        "x": centres,
        "y": centres,
        "z": [[int(c) or None for c in row] for row in counts],
        "visible": visible,
        "colorscale": "Blues",
        "showscale": True,
        "colorbar": {"title": {"text": "queries"}},
        "hovertemplate": (f"{base_name} about %{{x:.2f}}, {run_name} about %{{y:.2f}}: %{{z}} queries<extra></extra>"),
    }


def scatter_figure(comparison: RunComparison, ids: list[str], shown: Metric = PRIMARY) -> dict[str, Any]:
    """Per-query score of the baseline (x) against the run (y), one metric at a time (``shown``
    first), y = x drawn.

    Up to ``SCATTER_POINTS`` queries each is a point (hover names it); beyond, the plane is a
    20 x 20 grid of query counts, which stays readable and light at any size.
    """
    base, run = comparison.baseline, comparison.run
    base_name, run_name = html.escape(base.name), html.escape(run.name)
    traces = []
    # Past SCATTER_POINTS queries no point is named: the ids are escaped only where shown.
    safe_ids = [html.escape(q) for q in ids] if len(ids) <= SCATTER_POINTS else []
    labels = comparison.labels
    opened = shown.label(base.k)
    grids = comparison.grids() if comparison.queries > SCATTER_POINTS else None
    for m, label in enumerate(labels):
        if grids is not None:
            traces.append(_count_grid(grids[m], label, base_name, run_name, label == opened))
            continue
        xs, ys = comparison.baseline_scores[:, m], comparison.run_scores[:, m]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label,
                "x": [round(float(v), 6) for v in xs],
                "y": [round(float(v), 6) for v in ys],
                "customdata": safe_ids,
                "visible": label == opened,
                "marker": {"size": 7, "opacity": 0.55, "color": colour(m)},
                "hovertemplate": (
                    f"%{{customdata}}<br>{base_name}: %{{x:.3f}}<br>{run_name}: %{{y:.3f}}<extra></extra>"
                ),
            }
        )
    buttons = [
        {"label": label, "method": "update", "args": [{"visible": [i == m for i in range(len(labels))]}]}
        for m, label in enumerate(labels)
    ]
    layout = {
        "title": _title(say.scatter_title(base.k, isolated(run_name), isolated(base_name))),
        # The plane stays square by shrinking the wider axis's length ("domain"), not by widening its
        # range past the metric's 0 to 1 (plotly's default drew -0.3 to 1.35 on a wide page).
        "xaxis": {"title": {"text": base_name}, "range": [-0.03, 1.03], "zeroline": False, "constrain": "domain"},
        "yaxis": {
            "title": {"text": run_name},
            "range": [-0.03, 1.03],
            "zeroline": False,
            "scaleanchor": "x",
            "constrain": "domain",
        },
        "shapes": [
            {
                "type": "line",
                "x0": 0,
                "y0": 0,
                "x1": 1,
                "y1": 1,
                "line": {"dash": "dot", "width": 1, "color": "#888888"},
            }
        ],
        # Under the axis title, outside the plot: a point may lie anywhere on the plane.
        "annotations": [
            {
                "x": 1,
                "y": 0,
                "xref": "paper",
                "yref": "paper",
                "showarrow": False,
                "xanchor": "right",
                "yanchor": "top",
                "yshift": -60,
                "font": {"size": 11},
                "text": say.scatter_note(run_name),
            }
        ],
        "updatemenus": _menu(buttons, labels.index(opened), 1.06),
        "margin": {"l": 56, "r": 16, "t": 96, "b": 84},
        "height": 516,
        "hovermode": "closest",
        "showlegend": False,
        # A point is a query: the page's script opens its view on a click (the ids are customdata).
        "meta": {"opensQuery": True},
        **CLEAR,
    }
    return {"data": traces, "layout": layout, "config": CONFIG}


def outcome_figure(comparison: RunComparison) -> dict[str, Any]:
    """Wins, ties and losses over the queries, one bar per metric."""
    labels = [c.metric for c in comparison.comparisons]
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": name,
            "y": labels,
            "x": [getattr(c, name) for c in comparison.comparisons],
            "marker": {"color": bar_colour},
            "hovertemplate": f"%{{y}}: %{{x}} {name}<extra></extra>",
        }
        for name, bar_colour in (("wins", "#009E73"), ("ties", "#AAAAAA"), ("losses", "#D55E00"))
    ]
    layout = {
        "title": _title(say.outcome_title(isolated(html.escape(comparison.run.name))), False),
        "barmode": "stack",
        "xaxis": {"title": {"text": "queries"}},
        "yaxis": {"autorange": "reversed"},
        # the legend in the bars' order, left to right: wins, ties, losses (a stacked bar chart's
        # legend runs reversed unless told)
        # under the axis title, inside the figure (a margin that holds it: plotly would otherwise
        # grow the margin and move the plot's bottom up under the legend)
        "legend": {"orientation": "h", "y": -0.29, "yanchor": "top", "traceorder": "normal"},
        "margin": {"l": 70, "r": 16, "t": 48, "b": 100},
        "height": 360,
        **CLEAR,
    }
    return {"data": traces, "layout": layout, "config": CONFIG}


#: The forest plot's dot and band: the first colour of the palette, which reads on light and dark pages.
FOREST_COLOUR = PALETTE[0]
#: Each verdict's mark in the forest plot (by the verdict's CSS class): a colour and a shape, so that
#: the verdict reads without colour too (▲ better, ▼ worse, ◆ a band clear of 0 only, ▶ a
#: difference below the margin, ■ practically the same, ● unclear).
FOREST_MARKS = {
    "better": ("#009E73", "triangle-up"),
    "worse": ("#D55E00", "triangle-down"),
    "band-only": ("#E69F00", "diamond"),
    "negligible": ("#56B4E9", "triangle-right"),
    "equivalent": ("#8A8F96", "square"),
    "unclear": ("#8A8F96", "circle"),
}


def forest_figure(
    names: Sequence[str],
    values: Sequence[float | None],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    *,
    title: str,
    axis: str,
    difference: bool,
    verdicts: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One dot with its band per row on a shared horizontal axis, the first row on top.

    ``difference``: the rows are differences from a baseline (a zero line is drawn and the axis is
    centred on it); otherwise they are one run's values on the axis from 0 to 1. ``verdicts`` (each
    row's verdict CSS class) marks each row by :data:`FOREST_MARKS`, colour and shape.
    """
    x, lo, hi = _clean(values), _clean(lows), _clean(highs)
    sign = "+" if difference else ""
    if verdicts is None:
        marker: dict[str, Any] = {"size": 11, "color": FOREST_COLOUR}
    else:
        marks = [FOREST_MARKS.get(v, FOREST_MARKS["unclear"]) for v in verdicts]
        marker = {
            "size": 13,
            "color": [c for c, _ in marks],
            "symbol": [s for _, s in marks],
            "line": {"width": 1, "color": "#ffffff"},
        }
    trace = {
        "type": "scatter",
        "mode": "markers",
        "x": x,
        "y": [html.escape(n) for n in names],
        "name": axis,
        "marker": marker,
        "error_x": _error_bars(x, lo, hi, FOREST_COLOUR if verdicts is None else "#8A8F96", 2.5, 6),
        "customdata": [[a, b] for a, b in zip(lo, hi)],
        "hovertemplate": (
            f"%{{y}}: %{{x:{sign}.3f}}<br>band %{{customdata[0]:{sign}.3f}} to %{{customdata[1]:{sign}.3f}}"
            "<extra></extra>"
        ),
    }
    reach = max([0.05, *(abs(v) for v in (*lo, *hi) if v is not None)]) * 1.15
    layout: dict[str, Any] = {
        "title": _title(title, False),
        "xaxis": {"title": {"text": axis}, "range": [-reach, reach] if difference else [0, 1.02], "zeroline": False},
        "yaxis": {"autorange": "reversed", "automargin": True},
        "shapes": [_rule(0, GREY_RULE)] if difference else [],
        "showlegend": False,
        "hovermode": "closest",
        "margin": {"l": 16, "r": 16, "t": 40, "b": 44},
        "height": 110 + 36 * len(names),
        **CLEAR,
        # On a phone the page's script moves the run names above their rows (site.js fitRows),
        # so the names do not take half the width from the axis.
        "meta": {"labelsAbove": True},
    }
    return {"data": [trace], "layout": layout, "config": CONFIG}


def trend_figure(trend: Trend, title: str) -> dict[str, Any]:
    """Each run's mean of one metric across reports (oldest first), with its band as error bars.

    A run's line is drawn as one trace per segment of reports that compare (same legend entry);
    where it breaks, a dashed vertical rule between the two reports carries the change's name.
    """
    labels = [html.escape(label) for label in trend.labels]
    traces: list[dict[str, Any]] = []
    for n, line in enumerate(trend.lines):
        line_colour = colour(n)
        name = html.escape(line.run)
        for s, segment in enumerate(line.segments):
            means, lows, highs = ([values[i] for i in segment] for values in (line.means, line.lows, line.highs))
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "x": [labels[i] for i in segment],
                    "y": means,
                    "name": name,
                    "legendgroup": name,
                    "showlegend": s == 0,
                    "offsetgroup": str(n),  # a run's place beside the others at each report
                    "line": {"color": line_colour, "width": 2},
                    "marker": {"size": 7, "color": line_colour},
                    "error_y": _error_bars(means, lows, highs, line_colour, 1.5, 4),
                    "customdata": [[lo, hi] for lo, hi in zip(lows, highs)],
                    "hovertemplate": (
                        f"{name}<br>%{{x}}: %{{y:.3f}}<br>band %{{customdata[0]:.3f}} to "
                        "%{customdata[1]:.3f}<extra></extra>"
                    ),
                }
            )
    layout: dict[str, Any] = {
        "title": _title(title),
        "xaxis": {
            "title": {"text": say.TREND_AXIS},
            "type": "category",
            "categoryorder": "array",
            "categoryarray": labels,
            "range": [-0.5, len(labels) - 0.5],
            "automargin": True,
        },
        # Fitted to the figures and their bands (not 0 to 1): a trend is read in its changes.
        "yaxis": {"title": {"text": "mean with its band"}, "zeroline": False},
        "shapes": [_rule(b.position - 0.5, {"dash": "dash", **GREY_RULE}) for b in trend.breaks],
        "annotations": [
            _note(b.position - 0.5, html.escape(say.trend_break_mark(b.kinds)), "center") for b in trend.breaks
        ],
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top"},
        # The runs dodged sideways at each report, one offset group each across 60% of a report's
        # width: at one x their error bars (about equal figures) drew over each other.
        "scattermode": "group",
        "scattergap": 0.4,
        "margin": {"l": 56, "r": 16, "t": 64, "b": 40},
        "hovermode": "closest",
        **CLEAR,
        "height": 380,
    }
    return {"data": traces, "layout": layout, "config": CONFIG}


def _menu(buttons: list[dict[str, Any]], active: int, y: float) -> list[dict[str, Any]]:
    """A chart's dropdown of views at its top left, ``active`` the one shown first."""
    return [
        {
            "type": "dropdown",
            "buttons": buttons,
            "x": 0,
            "xanchor": "left",
            "y": y,
            "yanchor": "bottom",
            "active": active,
            "showactive": True,
        }
    ]
