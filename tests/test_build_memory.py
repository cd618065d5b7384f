"""What a build lets go of, and when (docs/conventions.md section 22.9): the matrices of the
bootstrap made one at a time, the sweep's per-query scores after the comparison, report.json's
document once it is bytes. None of it may change a figure or a byte of the site."""

from __future__ import annotations

import numpy as np
from test_resampling import _runs, loop_means

import ragreport.analysis.intervals as intervals
from ragreport.analysis.intervals import made_bootstrap_means, shared_bootstrap_means
from ragreport.analysis.result import release_sweep
from ragreport.api import analyse, evaluate
from ragreport.output.document import report_document
from ragreport.output.site import prepare, render_site, report_json
from ragreport.output.view.build import build_view
from ragreport.scoring.catalogue import SUITE


def _matrices():
    rng = np.random.default_rng(4)
    return [rng.random((41, 70)), rng.random((41, 0)), rng.random((41, 3)), rng.random((41, 66)) ** 2]


def test_matrices_made_one_at_a_time_get_the_means_of_the_loop(monkeypatch):
    matrices = _matrices()
    made = []

    def source(i):
        def make():
            made.append(i)
            return matrices[i].copy()

        return make

    widths = [m.shape[1] for m in matrices]
    kept = made_bootstrap_means([source(i) for i in range(4)], 41, widths, 30, 7, overwrite=True)
    assert made == [0, 2, 3]  # each once, in order; the empty one never
    monkeypatch.setattr(intervals, "_CACHED_COUNTS", 0)  # the counts drawn again for each matrix
    drawn = made_bootstrap_means([source(i) for i in range(4)], 41, widths, 30, 7, overwrite=True)
    together = shared_bootstrap_means(matrices, 30, 7)
    for a, b, c, matrix in zip(kept, drawn, together, matrices):
        assert a.shape == (30, matrix.shape[1])
        assert np.array_equal(a, b) and np.array_equal(a, c)
        np.testing.assert_allclose(a, loop_means(matrix, 30, 7), rtol=0, atol=1e-15)


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
    after = site(analysis)
    assert after == before
    encoded = report_json(report_document(analysis), compact=True)
    assert render_site(prepare(build_view(analysis), {}), encoded=encoded) == before
