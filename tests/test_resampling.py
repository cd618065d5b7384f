"""The resampling engine in matrix form against a plain loop, one resample at a time
(docs/conventions.md section 22).

Each reference here is written out from the documented rule, not from the engine: resample ``b``
of ``n`` queries takes the ``n`` doubles ``u`` that follow in ``default_rng(seed).random`` and
draws the queries ``floor(u * n)``; its mean is the plain average of the drawn rows. The sign
flips of the randomization test are eight per random byte of ``default_rng(seed).integers``.
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.analysis.compare import compare, paired_tests, randomization_test
from ragreport.analysis.intervals import (
    bootstrap_interval,
    bootstrap_means,
    percentile_band,
    resample_rows,
    shared_bootstrap_means,
)
from ragreport.api import evaluate
from ragreport.core.model import Conventions, Missing


def loop_means(matrix: np.ndarray, resamples: int, seed: int, total=sum) -> np.ndarray:
    """One resample at a time: its drawn rows, then their average, column by column (their
    ``total``: Python's left-to-right sum, or ``math.fsum`` for the exactly rounded one)."""
    rng = np.random.default_rng(seed)
    n, m = matrix.shape
    out = np.empty((resamples, m))
    for b in range(resamples):
        drawn = [min(int(math.floor(u * n)), n - 1) for u in rng.random(n)]
        for j in range(m):
            out[b, j] = total(matrix[i, j] for i in drawn) / n
    return out


def loop_effects(column: np.ndarray, resamples: int, seed: int) -> list[float]:
    """d_z of each resample, one at a time: the drawn differences' mean over their sample standard
    deviation (statistics.stdev); a resample of equal differences gives +-inf (0 for zeros)."""
    rng = np.random.default_rng(seed)
    n = len(column)
    out = []
    for _ in range(resamples):
        drawn = [float(column[min(int(math.floor(u * n)), n - 1)]) for u in rng.random(n)]
        sd = statistics.stdev(drawn)
        mean = statistics.mean(drawn)
        out.append(mean / sd if sd > 1e-9 else (0.0 if mean == 0 else math.copysign(math.inf, mean)))
    return out


def loop_percentile(values: list[float], share: float) -> float:
    """The percentile with linear interpolation between order statistics, by hand."""
    ordered = sorted(values)
    position = share * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


def loop_p_value(d: np.ndarray, permutations: int, seed: int) -> float:
    """The randomization test drawn one sign vector at a time (one block: few queries)."""
    n = len(d)
    rng = np.random.default_rng(seed)
    packed = rng.integers(0, 256, size=(permutations, (n + 7) // 8), dtype=np.uint8)
    observed = abs(sum(d)) / n
    hits = 0
    for row in packed:
        bits = []
        for byte in row.tolist():
            bits += [(byte >> (7 - shift)) & 1 for shift in range(8)]
        total = sum((1 - 2 * bits[i]) * d[i] for i in range(n))
        hits += abs(total) / n >= observed - 1e-12
    return (1 + hits) / (1 + permutations)


@settings(max_examples=examples(50), deadline=None)
@given(
    n=st.integers(1, 40),
    m=st.integers(1, 4),
    resamples=st.integers(1, 60),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_bootstrap_means_are_a_loop_over_resamples(n, m, resamples, seed, data):
    values = data.draw(st.lists(st.floats(0, 1), min_size=n * m, max_size=n * m))
    matrix = np.array(values).reshape(n, m)
    np.testing.assert_allclose(
        bootstrap_means(matrix, resamples, seed), loop_means(matrix, resamples, seed), atol=1e-12
    )


def test_matrices_resampled_together_get_each_its_own_loop():
    rng = np.random.default_rng(3)
    first, second, third = rng.random((23, 3)), rng.random((23, 1)), np.zeros((23, 0))
    together = shared_bootstrap_means([first, second, third], 50, 11)
    np.testing.assert_allclose(together[0], loop_means(first, 50, 11), atol=1e-12)
    np.testing.assert_allclose(together[1], loop_means(second, 50, 11), atol=1e-12)
    assert together[2].shape == (50, 0)


def test_a_wide_matrix_the_k_sweep_gets_the_loop_s_means():
    """Past 64 columns the product runs the other way round (columns x queries): same means."""
    matrix = np.random.default_rng(12).random((15, 70))
    np.testing.assert_allclose(bootstrap_means(matrix, 20, 1), loop_means(matrix, 20, 1), atol=1e-12)


def test_matrices_resampled_together_share_rows():
    with pytest.raises(ValueError, match="share their rows"):
        shared_bootstrap_means([np.zeros((3, 1)), np.zeros((4, 1))], 10, 0)


def test_resampling_in_blocks_gives_the_loop_s_draws(monkeypatch):
    """Blocks of two resamples (the engine's memory bound) draw what the loop draws."""
    import ragreport.analysis.intervals as intervals

    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 2 * 17)
    matrix = np.random.default_rng(5).random((17, 2))
    np.testing.assert_allclose(bootstrap_means(matrix, 9, 4), loop_means(matrix, 9, 4), atol=1e-12)


def test_percentile_band_is_the_hand_percentile():
    means = np.random.default_rng(1).random((41, 2))
    low, high = percentile_band(means, 0.9)
    for j in range(2):
        assert low[j] == pytest.approx(loop_percentile(means[:, j].tolist(), 0.05), abs=1e-15)
        assert high[j] == pytest.approx(loop_percentile(means[:, j].tolist(), 0.95), abs=1e-15)


def test_resample_rows_are_the_scored_queries_in_id_order():
    ids = np.array(["q3", "q1", "q2", "q10"])
    scored = np.array([True, True, False, True])
    # by code point: q1 < q10 < q3 (q2 is not scored)
    assert resample_rows(ids, scored).tolist() == [1, 3, 0]


def test_stacked_randomization_tests_are_each_run_s_loop():
    rng = np.random.default_rng(8)
    first = rng.normal(0.05, 0.2, size=(20, 2))
    second = rng.normal(0.0, 0.2, size=(20, 1))
    p_first, p_second = paired_tests([first, second], 300, 6)
    for j in range(2):
        assert p_first[j] == pytest.approx(loop_p_value(first[:, j], 300, 6), abs=1e-15)
    assert p_second[0] == pytest.approx(loop_p_value(second[:, 0], 300, 6), abs=1e-15)
    # the same as testing each run alone
    np.testing.assert_array_equal(p_first, randomization_test(first, 300, 6))


def test_paired_tests_leave_a_run_with_no_shared_query_empty():
    p = paired_tests([np.zeros((0, 2)), np.ones((5, 2))], 100, 0)
    assert p[0].shape == (0,) and p[1].shape == (2,)


def _runs(queries: int, seed: int, missing: int = 0):
    """Three runs of ``queries`` queries (the last ``missing`` of them absent from the third)."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(12)]
    qrels = {f"q{q}": {d: int(rng.integers(0, 3)) for d in rng.choice(docs, 4, replace=False)} for q in range(queries)}
    runs = {}
    for name in ("base", "better", "fewer"):
        run = {}
        for q in range(queries):
            if name == "fewer" and q >= queries - missing:
                continue
            run[f"q{q}"] = {d: float(s) for d, s in zip(rng.permutation(docs)[:8], rng.random(8))}
        runs[name] = run
    return runs, qrels


@pytest.mark.parametrize("missing", [0, 3])
def test_paired_bands_are_the_loop_over_paired_resamples(missing, monkeypatch):
    """Read off the runs' own resamples (same queries) or drawn afresh (fewer queries): either way
    the loop over resamples of the per-query differences, in id order."""
    import ragreport.analysis.compare as compare_module

    runs, qrels = _runs(30, 2, missing)
    conventions = Conventions(resamples=200, seed=9, missing=Missing.SKIP)
    summaries = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    drawn_afresh = []
    real = compare_module.shared_bootstrap_means
    monkeypatch.setattr(
        compare_module, "shared_bootstrap_means", lambda m, r, s: drawn_afresh.append(len(m)) or real(m, r, s)
    )
    report = compare(summaries)
    assert report is not None
    # with every query shared, no difference is drawn again: only the squares the effect's band
    # needs and the readings' columns, in one draw for both runs (the same counts); with fewer,
    # the run with fewer queries apart
    assert drawn_afresh == ([4] if not missing else [2, 2])
    for run_comparison in report.runs:
        pairing = run_comparison.pairing
        differences = run_comparison.run_scores - run_comparison.baseline_scores
        assert pairing.query_ids.tolist() == sorted(pairing.query_ids.tolist())
        drawn = loop_means(differences, 200, 9)
        for m, comparison in enumerate(run_comparison.comparisons):
            column = drawn[:, m].tolist()
            assert comparison.delta == pytest.approx(float(np.mean(differences[:, m])), abs=1e-12)
            assert comparison.low == pytest.approx(loop_percentile(column, 0.025), abs=1e-12)
            assert comparison.high == pytest.approx(loop_percentile(column, 0.975), abs=1e-12)
            # d_z of each resample by hand: the drawn queries' mean over their stdev (ddof 1)
            effects = loop_effects(differences[:, m], 200, 9)
            if comparison.effect is None:
                assert statistics.stdev(differences[:, m].tolist()) == 0
                continue
            d = differences[:, m].tolist()
            assert comparison.effect == pytest.approx(statistics.mean(d) / statistics.stdev(d), rel=1e-9)
            if all(map(math.isfinite, effects)):
                assert comparison.effect_low == pytest.approx(loop_percentile(effects, 0.025), rel=1e-9)
                assert comparison.effect_high == pytest.approx(loop_percentile(effects, 0.975), rel=1e-9)


def test_runs_summarised_together_get_the_bands_each_would_get_alone():
    runs, qrels = _runs(25, 4, missing=2)
    conventions = Conventions(resamples=150, seed=3)
    together = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    for name, summary in zip(runs, together):
        alone = evaluate({name: runs[name]}, qrels=qrels, k=5, conventions=conventions)[0]
        for label, interval in summary.at_k.items():
            assert (interval.mean, interval.low, interval.high) == pytest.approx(
                (alone.at_k[label].mean, alone.at_k[label].low, alone.at_k[label].high), abs=1e-15, nan_ok=True
            )


def test_a_run_s_bands_are_the_loop_over_its_resamples():
    runs, qrels = _runs(20, 6)
    conventions = Conventions(resamples=120, seed=2)
    summary = evaluate({"base": runs["base"]}, qrels=qrels, k=5, conventions=conventions)[0]
    rows = resample_rows(summary.judged.query_ids, summary.scores.scored)
    values = summary.scores.of(summary.scores.metrics[0], 5)[rows][:, None]
    label = summary.scores.metrics[0].label(5)
    drawn = loop_means(values, 120, 2)[:, 0].tolist()
    assert summary.at_k[label].low == pytest.approx(loop_percentile(drawn, 0.025), abs=1e-12)
    assert summary.at_k[label].high == pytest.approx(loop_percentile(drawn, 0.975), abs=1e-12)
    mean, low, high = bootstrap_interval(values, 120, 2)
    assert (low[0], high[0]) == pytest.approx((summary.at_k[label].low, summary.at_k[label].high), abs=1e-15)


def test_runs_scored_by_partitions_take_their_bands_from_the_poisson_sums(tmp_path):
    """The stream engine's figures are the memory engine's but for the resampling: its bands are
    the Poisson bootstrap's (docs/conventions.md section 29), within Monte Carlo error of the
    memory engine's at 2,000 resamples; a comparison's differences and d_z are the per-query
    differences' (to 1e-12), its wins the same, its p-values within Monte Carlo error (hashed sign
    flips), its bands the Poisson sums' of those differences, which over the same queries are the
    two runs' Poisson resampled means subtracted."""
    from helpers import assert_poisson_agrees, band_tolerance

    from ragreport.analysis.poisson import ResampledSums, query_keys

    runs, qrels = _runs(40, 7)
    (tmp_path / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items())
    )
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.trec"
        lines = []
        for q, docs in run.items():
            ranked = sorted(docs.items(), key=lambda item: -item[1])
            lines += [f"{q} Q0 {d} {r + 1} {s!r} {name}\n" for r, (d, s) in enumerate(ranked)]
        path.write_text("".join(lines))
        paths.append(str(path))
    conventions = Conventions(resamples=2000, seed=5)
    qrels_path = str(tmp_path / "qrels.txt")
    memory = evaluate(paths, qrels=qrels_path, k=5, conventions=conventions)
    stream = evaluate(paths, qrels=qrels_path, k=5, conventions=conventions, engine="stream")
    assert_poisson_agrees(memory, stream)
    tolerance = band_tolerance(memory[0])
    ours, theirs = compare(stream, permutations=500), compare(memory, permutations=500)
    assert ours is not None and theirs is not None
    for run_ours, run_theirs in zip(ours.runs, theirs.runs):
        d = run_ours.run_scores - run_ours.baseline_scores
        assert np.array_equal(d, run_theirs.run_scores - run_theirs.baseline_scores)
        sums = ResampledSums.of(query_keys(run_ours.pairing.query_ids, 5), d, 2000)
        for j, (a, b) in enumerate(zip(run_ours.comparisons, run_theirs.comparisons)):
            assert (a.wins, a.ties, a.losses) == (b.wins, b.ties, b.losses)
            assert a.delta == pytest.approx(b.delta, abs=1e-12)
            assert abs(a.p - b.p) <= 5 * (2 * b.p * (1 - b.p) / 500) ** 0.5 + 2 / 500
            assert a.effect == pytest.approx(b.effect, abs=1e-12) or (a.effect is None and b.effect is None)
            assert (a.delta, a.low, a.high) == pytest.approx(sums.band(j), abs=1e-15)
            sd = sums.resampled_means(j).std()
            assert abs(a.low - b.low) <= tolerance * sd + 1e-12 and abs(a.high - b.high) <= tolerance * sd + 1e-12
            # over the same queries: the run's Poisson resampled means minus the baseline's
            measure = run_ours.family[j]
            column = [m.key for m in stream[0].scores.metrics].index(measure.metric.key) * len(stream[0].scores.cutoffs)
            column += stream[0].scores.column(5)
            assert run_ours.pairing.same_queries
            drawn = run_ours.run.resampled[:, column] - run_ours.baseline.resampled[:, column]
            np.testing.assert_allclose(drawn, sums.resampled_means(j), rtol=0, atol=1e-12)


def test_a_readings_band_and_p_are_the_loop_over_its_own_differences():
    """The readings of unjudged ids (section 20.2) beside the shared engine: each reading's paired
    difference gets the loop's band over the same resamples and the loop's p-value over the same
    sign flips as the default one (correction none, so p_adjusted is p)."""
    from ragreport.analysis.compare import Correction

    runs, qrels = _runs(30, 13)  # 8 of 12 ids listed, 4 judged per query: many unjudged ids
    conventions = Conventions(resamples=150, seed=4)
    summaries = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    base = summaries[0]
    report = compare(summaries, permutations=200, correction=Correction.NONE)
    assert report is not None
    moved = 0
    for run_comparison in report.runs:
        pairing, run = run_comparison.pairing, run_comparison.run
        for measure, comparison in zip(run_comparison.family, run_comparison.comparisons):
            if comparison.readings is None:
                continue
            for name, reading in comparison.readings.items():
                d = (
                    run.reading_of(name, measure.metric, 5)[pairing.run_rows]
                    - base.reading_of(name, measure.metric, 5)[pairing.baseline_rows]
                )
                default = (
                    run_comparison.run_scores[:, run_comparison.family.index(measure)]
                    - (run_comparison.baseline_scores[:, run_comparison.family.index(measure)])
                )
                moved += not np.array_equal(d, default)
                drawn = loop_means(d[:, None], 150, 4)[:, 0].tolist()
                assert reading.delta == pytest.approx(float(np.mean(d)), abs=1e-12)
                assert reading.low == pytest.approx(loop_percentile(drawn, 0.025), abs=1e-12)
                assert reading.high == pytest.approx(loop_percentile(drawn, 0.975), abs=1e-12)
                assert reading.p_adjusted == pytest.approx(loop_p_value(d, 200, 4), abs=1e-15)
    assert moved  # some reading's differences are not the default ones: the test sees them


def test_a_geometric_mean_s_band_is_the_loop_over_its_logged_values():
    """gm_map's band is the bootstrap of the mean log, exponentiated, with the resamples the
    other measures share; AP beside it keeps the band of its plain values."""
    from ragreport.scoring.measures import parse_measures

    runs, qrels = _runs(25, 8)
    conventions = Conventions(resamples=120, seed=6)
    summary = evaluate(
        {"base": runs["base"]}, qrels=qrels, k=5, conventions=conventions, measures=parse_measures(["gm_map", "map"])
    )[0]
    assert [m.label() for m in summary.measures] == ["GMAP", "AP"]
    rows = resample_rows(summary.judged.query_ids, summary.scores.scored)
    ap = summary.measure_values[1][rows]
    logged = np.log(np.maximum(summary.measure_values[0][rows], 0.00001))
    drawn_log = loop_means(logged[:, None], 120, 6)[:, 0].tolist()
    drawn_ap = loop_means(ap[:, None], 120, 6)[:, 0].tolist()
    gmap, plain = summary.measure_at["GMAP"], summary.measure_at["AP"]
    assert gmap.mean == pytest.approx(math.exp(sum(logged) / len(logged)), rel=1e-12)
    assert gmap.low == pytest.approx(math.exp(loop_percentile(drawn_log, 0.025)), rel=1e-12)
    assert gmap.high == pytest.approx(math.exp(loop_percentile(drawn_log, 0.975)), rel=1e-12)
    assert plain.low == pytest.approx(loop_percentile(drawn_ap, 0.025), abs=1e-12)
    assert plain.high == pytest.approx(loop_percentile(drawn_ap, 0.975), abs=1e-12)


@pytest.mark.parametrize("n", [5, 4096, 4099])
def test_counts_are_the_rule_s_draws(n):
    """The counts are the documented draws, counted by hand."""
    from ragreport.analysis.intervals import resample_counts

    resamples, seed = 3, 9
    rng = np.random.default_rng(seed)
    expected = np.zeros((resamples, n), dtype=np.int64)
    for b in range(resamples):
        for u in rng.random(n).tolist():
            expected[b, min(int(math.floor(u * n)), n - 1)] += 1
    np.testing.assert_array_equal(np.concatenate(list(resample_counts(n, resamples, seed))), expected)


def test_many_queries_resampled_in_blocks_get_the_loop_s_means(monkeypatch):
    """Blocks of four resamples (a shorter last block): the loop's means."""
    import ragreport.analysis.intervals as intervals

    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4 * 13)
    first, second = np.random.default_rng(6).random((13, 2)), np.random.default_rng(7).random((13, 70))
    together = shared_bootstrap_means([first, second], 10, 3)
    np.testing.assert_allclose(together[0], loop_means(first, 10, 3), atol=1e-12)
    np.testing.assert_allclose(together[1], loop_means(second, 10, 3), atol=1e-12)


def test_sign_flips_in_several_blocks_of_one_buffer_are_the_loop_s(monkeypatch):
    """Blocks of 8 sign vectors written into one buffer (the last block of 4): the loop's p. (Blocks
    of 8 x 3 bytes: numpy draws four bytes per 32-bit word, so the stream of bytes is the loop's
    only when each block's bytes are a multiple of four; the block size depends on the number of
    queries alone, so a test's p-values do not depend on anything else.)"""
    import ragreport.analysis.randomization as signs_module

    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 8 * 19)
    d = np.random.default_rng(4).normal(0.04, 0.2, size=(19, 2))
    p = randomization_test(d, 100, 5)
    for j in range(2):
        assert p[j] == pytest.approx(loop_p_value(d[:, j], 100, 5), abs=1e-15)


def test_runs_summarised_together_take_the_means_and_fingerprints_of_one_run_alone():
    """Every mean over the sweep is the one of adding the run's scored queries left to right in id
    order, by hand, and an earlier run's fingerprints are shared when the label set is the same:
    those of the run's own queries and label lines."""
    from ragreport.analysis.intervals import wilson_interval
    from ragreport.analysis.summary import fingerprint, judged_query_ids, label_lines

    runs, qrels = _runs(23, 8, missing=4)
    conventions = Conventions(resamples=40, seed=1, missing=Missing.SKIP)
    together = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    for summary in together:
        rows = resample_rows(summary.judged.query_ids, summary.scores.scored)
        scores = summary.scores
        first = scores.metrics[0]
        drawn = loop_means(scores.of(first, 5)[rows][:, None], 40, 1)[:, 0].tolist()
        band = summary.at_k[first.label(5)]
        assert band.low == pytest.approx(loop_percentile(drawn, 0.025), abs=1e-12)
        assert band.high == pytest.approx(loop_percentile(drawn, 0.975), abs=1e-12)
        for i, metric in enumerate(scores.metrics):
            for c in range(len(scores.cutoffs)):
                total = 0.0
                for r in rows.tolist():
                    total += float(scores.values[i, r, c])
                assert summary.sweep.mean[metric.key][c] == total / len(rows)
            if metric.interval.name == "WILSON":
                at = scores.column(5)
                hits = sum(1 for r in rows.tolist() if scores.values[i, r, at] > 0)
                band = summary.at_k[metric.label(5)]
                assert (band.low, band.high) == wilson_interval(hits, len(rows), conventions.confidence)
        assert summary.query_fingerprint == fingerprint(judged_query_ids(summary.judged))
        assert summary.label_fingerprint == fingerprint(label_lines(summary.judged))
    # the same qrels for all three: one label set, so one fingerprint
    assert len({s.label_fingerprint for s in together}) == 1


def test_signs_drawn_in_blocks_are_the_loop_s(monkeypatch):
    """Signs drawn 8 vectors at a time (the last block of 4): the bytes of each draw in order, so
    the loop's p."""
    import ragreport.analysis.randomization as signs_module

    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 8 * 19)
    blocks = [s.copy() for s in signs_module._sign_blocks(19, 100, 5)]
    assert [len(b) for b in blocks] == [8] * 12 + [4]
    rng = np.random.default_rng(5)
    drawn = []
    for start in range(0, 100, 8):  # the draws: 8 vectors of 3 bytes at a time
        packed = rng.integers(0, 256, size=(min(8, 100 - start), 3), dtype=np.uint8)
        drawn += [[1 - 2 * ((int(b) >> (7 - s)) & 1) for b in row for s in range(8)][:19] for row in packed]
    np.testing.assert_array_equal(np.concatenate(blocks), np.array(drawn, dtype=np.float64))
    d = np.random.default_rng(4).normal(0.04, 0.2, size=(19, 2))
    p = randomization_test(d, 100, 5)
    for j in range(2):
        assert p[j] == pytest.approx(loop_p_value(d[:, j], 100, 5), abs=1e-15)
