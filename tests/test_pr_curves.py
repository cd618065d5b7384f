"""Precision-recall curves (docs/conventions.md section 21.4): interpolated precision at the 11 recall
levels, per run on its page and every run together on the index, when the levels are scored."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import pytest

from ragreport.cli import main
from ragreport.scoring.measures import parse_measures

DATA = Path(__file__).parent / "data" / "trec_eval_test"


def test_iprec_at_recall_alone_is_trec_evals_eleven_levels():
    measures = parse_measures(["iprec_at_recall"])
    assert [m.label() for m in measures] == [f"IPrec@{level / 10}" for level in range(11)]
    assert [m.spelled("trec_eval", __import__("ragreport").Conventions()) for m in measures] == [
        f"iprec_at_recall_{level / 10:.2f}" for level in range(11)
    ]
    assert [m.label() for m in parse_measures(["IPrec(rel=2)"])][0] == "IPrec(rel=2)@0.0"


def _two_runs(tmp_path):
    other = tmp_path / "other.test"
    lines = (DATA / "results.test").read_text().splitlines()
    # the same lists under another run name: a second run for the index's overlay
    other.write_text("".join(f"{' '.join(line.split()[:5])} other\n" for line in reversed(lines)))
    return [str(DATA / "results.test"), str(other)]


@pytest.mark.slow
def test_the_curve_is_on_every_run_page_and_the_index_when_the_levels_are_scored(tmp_path):
    runs = _two_runs(tmp_path)
    out = tmp_path / "site"
    args = ["build", *runs, "--qrels", str(DATA / "qrels.test"), "--out", str(out)]
    assert main([*args, "--metrics", "nDCG@10,iprec_at_recall"]) == 0
    index = (out / "index.html").read_text()
    assert 'id="pr"' in index and "Precision-recall curves of every run" in index
    for page in ("run-results.html", "run-other.html"):
        assert 'id="' + page[4:-5] + '-pr"' in (out / page).read_text()
    plain = tmp_path / "plain"
    assert main(["build", *runs, "--qrels", str(DATA / "qrels.test"), "--out", str(plain)]) == 0
    assert 'id="pr"' not in (plain / "index.html").read_text()


def test_the_figure_holds_each_runs_means_and_bands_at_each_level():
    from ragreport import evaluate
    from ragreport.output.site.charts import has_pr_curve, pr_figure

    measures = parse_measures(["iprec_at_recall"])
    summaries = list(evaluate([DATA / "results.test"], qrels=DATA / "qrels.test", measures=measures))
    assert has_pr_curve(summaries)
    figure = pr_figure(summaries, "t")
    go.Figure(data=figure["data"], layout=figure["layout"])  # raises on an unknown property
    band, line = figure["data"]
    assert line["x"] == [level / 10 for level in range(11)]
    # the means are the measures' own (checked against trec_eval in test_paper_measures)
    assert line["y"] == [summaries[0].measure_at[m.label()].mean for m in measures]
    assert band["y"][:11] == [summaries[0].measure_at[m.label()].high for m in measures]
    assert not has_pr_curve([s for s in evaluate([DATA / "results.test"], qrels=DATA / "qrels.test")])
