"""What a build lets go of, and when (docs/conventions.md section 22.9): the sweep's per-query
scores after the comparison. It may not change a figure or a byte of the site."""

from __future__ import annotations

import numpy as np
from test_resampling import _runs

from ragreport.analysis.pipeline import release_sweep
from ragreport.api import analyse, evaluate
from ragreport.output.exports.reportjson.write import report_document
from ragreport.output.site.render import prepare, render_site
from ragreport.output.site.view.build import build_view
from ragreport.scoring.catalogue import SUITE


def _analysis():
    runs, qrels = _runs(25, 3)
    return analyse(evaluate(runs, qrels=qrels, k=[5, 3]))


def test_the_scores_at_the_cutoffs_asked_are_the_sweep_s_columns():
    summary = _analysis().summaries[0]
    scores = summary.scores
    kept = scores.at_cutoffs(summary.cutoffs)
    assert kept.cutoffs.tolist() == [5, 3] and len(scores.cutoffs) > 2
    for metric in SUITE:
        for k in (5, 3):
            assert np.array_equal(kept.of(metric, k), scores.of(metric, k))
    assert np.array_equal(kept.hits, scores.hits[:, [scores.column(5), scores.column(3)]])


def test_the_site_is_the_same_once_the_sweep_is_let_go():
    def site(analysis):
        return render_site(prepare(build_view(analysis), report_document(analysis)))

    before = site(_analysis())
    analysis = release_sweep(_analysis())
    # Every reference to a run (the comparison's too) sees the narrowed scores.
    comparison = analysis.comparison
    assert comparison is not None
    for summary in (*analysis.summaries, comparison.runs[0].run, comparison.runs[0].baseline):
        assert summary.scores.cutoffs.tolist() == [5, 3]
    assert site(analysis) == before
