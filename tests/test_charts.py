"""Chart figures are valid plotly figures with a band per line and the chosen K marked."""

from __future__ import annotations

import plotly.graph_objects as go
from helpers import judged_run

from ragreport.api import evaluate, score_and_summarise
from ragreport.core.model import Conventions
from ragreport.output.site.charts import index_sweep_figure, run_sweep_figure
from ragreport.scoring.catalogue import HIT, PRECISION, PRIMARY, SUITE


def _valid(figure):
    go.Figure(data=figure["data"], layout=figure["layout"])  # raises on any unknown property


def test_run_figure_has_a_panel_a_band_and_a_line_per_metric():
    summary = evaluate()[0]
    figure = run_sweep_figure(summary)
    _valid(figure)
    assert len(figure["data"]) == 2 * len(SUITE)
    bands, lines = figure["data"][0::2], figure["data"][1::2]
    assert all(b["fill"] == "toself" and b["hoverinfo"] == "skip" for b in bands)
    assert [line["name"] for line in lines] == [m.key for m in SUITE]
    hit = lines[SUITE.index(HIT)]
    assert hit["x"] == list(range(1, 11))
    assert round(hit["y"][4], 3) == 0.778 and [round(v, 3) for v in hit["customdata"][4]] == [0.453, 0.937]
    assert "Wilson band" in hit["hovertemplate"] and "bootstrap band" in lines[SUITE.index(PRECISION)]["hovertemplate"]
    assert all(shape["x0"] == 5 for shape in figure["layout"]["shapes"])
    assert len(figure["layout"]["shapes"]) == len(SUITE)


def test_index_figure_overlays_runs_with_a_metric_selector():
    summaries = evaluate()
    figure = index_sweep_figure(summaries)
    _valid(figure)
    buttons = figure["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == [f"{m.key}@K" for m in SUITE]
    shown = buttons[SUITE.index(PRIMARY)]["args"][0]["visible"]
    assert shown == [t["visible"] for t in figure["data"]]  # the primary metric is shown first
    assert sum(shown) == 2


def test_a_long_sweep_uses_a_log_axis():
    judged = judged_run([("q", [f"d{i}" for i in range(300)], {"d5": 1, "d250": 1})])
    figure = run_sweep_figure(score_and_summarise(judged, 100, Conventions(resamples=50), kmax=1000))
    _valid(figure)
    assert figure["layout"]["xaxis"]["type"] == "log"
    assert figure["data"][1]["x"][-1] == 1000 and 100 in figure["data"][1]["x"]


def test_a_sweep_to_100_is_drawn_by_cutoff_value():
    # 29 cutoffs (1-20, 25, 30, 40, ... 100) on a linear axis of K itself: the points sit at their
    # value (25 five units after 20, 100 at the end) and the ticks are plotly's own, by value, not
    # one every few points as for a sweep of every cutoff.
    judged = judged_run([("q", [f"d{i}" for i in range(120)], {"d5": 1, "d50": 1})])
    summary = score_and_summarise(judged, 10, Conventions(resamples=50))
    for figure in (run_sweep_figure(summary), index_sweep_figure([summary])):
        _valid(figure)
        axis = figure["layout"]["xaxis"]
        assert axis["type"] == "linear" and axis["range"] == [0.5, 100.5] and axis.get("dtick") is None
        assert figure["data"][1]["x"] == [*range(1, 21), 25, 30, 40, 50, 60, 70, 80, 90, 100]
    assert index_sweep_figure(evaluate())["layout"]["xaxis"]["dtick"] == 1  # the sample's 1-10: each K
