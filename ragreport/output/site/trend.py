"""The history page's chart: each run's mean of one metric across a history's reports, with its
band, the line broken where the reports stop being comparable (plotly figures as plain data, in the
style of :mod:`ragreport.output.site.charts`)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .charts import CONFIG, TITLE_AT_TOP, colour
from .wording import charts as say

if TYPE_CHECKING:
    from ..exports.history import Trend


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
            means = [line.means[i] for i in segment]
            lows = [line.lows[i] for i in segment]
            highs = [line.highs[i] for i in segment]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "x": [labels[i] for i in segment],
                    "y": means,
                    "name": name,
                    "legendgroup": name,
                    "showlegend": s == 0,
                    "line": {"color": line_colour, "width": 2},
                    "marker": {"size": 7, "color": line_colour},
                    "error_y": {
                        "type": "data",
                        "symmetric": False,
                        "array": [None if h is None or m is None else h - m for m, h in zip(means, highs)],
                        "arrayminus": [None if lo is None or m is None else m - lo for m, lo in zip(means, lows)],
                        "color": line_colour,
                        "thickness": 1.5,
                        "width": 4,
                    },
                    "customdata": [[lo, hi] for lo, hi in zip(lows, highs)],
                    "hovertemplate": (
                        f"{name}<br>%{{x}}: %{{y:.3f}}<br>band %{{customdata[0]:.3f}} to "
                        "%{customdata[1]:.3f}<extra></extra>"
                    ),
                }
            )
    shapes, annotations = [], []
    for b in trend.breaks:
        shapes.append(
            {
                "type": "line",
                "x0": b.position - 0.5,
                "x1": b.position - 0.5,
                "y0": 0,
                "y1": 1,
                "yref": "paper",
                "line": {"dash": "dash", "width": 1.5, "color": "#888888"},
            }
        )
        annotations.append(
            {
                "x": b.position - 0.5,
                "y": 1,
                "yref": "paper",
                "text": html.escape(say.trend_break_mark(b.kinds)),
                "showarrow": False,
                "xanchor": "center",
                "yanchor": "bottom",
                "font": {"size": 11},
            }
        )
    layout: dict[str, Any] = {
        "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 15}, **TITLE_AT_TOP},
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
        "shapes": shapes,
        "annotations": annotations,
        "legend": {"orientation": "h", "y": -0.3, "yanchor": "top"},
        "margin": {"l": 56, "r": 16, "t": 64, "b": 40},
        "hovermode": "closest",
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "height": 380,
    }
    return {"data": traces, "layout": layout, "config": CONFIG}
