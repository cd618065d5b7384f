"""The resampling engine in matrix form against a plain loop, one resample at a time
(docs/conventions.md section 22).

Each reference here is written out from the documented rule, not from the engine: resample ``b``
of ``n`` queries takes the ``n`` doubles ``u`` that follow in ``default_rng(seed).random`` and
draws the queries ``floor(u * n)``; its mean is the plain average of the drawn rows. The sign
flips of the randomization test are eight per random byte of ``default_rng(seed).integers``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import ragreport.core.ahead
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
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    monkeypatch.setattr(intervals, "_MAX_CELLS", 2 * 17)
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
    # with every query shared, no band is drawn again; with fewer, only the run with fewer queries
    assert drawn_afresh == ([] if not missing else [1])
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


def test_runs_scored_by_partitions_share_the_resampling_as_in_memory(tmp_path):
    """The stream engine bands several runs in one resampling too: the figures of memory."""
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
    conventions = Conventions(resamples=100, seed=5)
    qrels_path = str(tmp_path / "qrels.txt")
    memory = evaluate(paths, qrels=qrels_path, k=5, conventions=conventions)
    stream = evaluate(paths, qrels=qrels_path, k=5, conventions=conventions, engine="stream")
    for a, b in zip(memory, stream):
        assert a.name == b.name
        for label, interval in a.at_k.items():
            other = b.at_k[label]
            assert (interval.mean, interval.low, interval.high) == pytest.approx(
                (other.mean, other.low, other.high), abs=1e-15, nan_ok=True
            )


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
def test_counts_one_resample_at_a_time_are_the_rule_s_draws(n, monkeypatch):
    """Past _ROW_WISE items the counts are drawn one resample at a time (below, the whole block at
    once): both are the documented draws, counted by hand, and the doubles given to a product are
    the same counts."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import resample_counts

    resamples, seed = 3, 9
    rng = np.random.default_rng(seed)
    expected = np.zeros((resamples, n), dtype=np.int64)
    for b in range(resamples):
        for u in rng.random(n).tolist():
            expected[b, min(int(math.floor(u * n)), n - 1)] += 1
    for row_wise in (4096, 1, n + 1):  # the default, always one at a time, never
        monkeypatch.setattr(intervals, "_ROW_WISE", row_wise)
        counts = np.concatenate(list(resample_counts(n, resamples, seed)))
        assert counts.dtype == np.int64
        np.testing.assert_array_equal(counts, expected)
        weights = np.concatenate(list(resample_counts(n, resamples, seed, np.float64)))
        assert weights.dtype == np.float64
        np.testing.assert_array_equal(weights, expected)


def test_many_queries_resampled_in_blocks_get_the_loop_s_means(monkeypatch):
    """One resample at a time into a buffer kept from block to block (a shorter last block): the
    loop's means."""
    import ragreport.analysis.intervals as intervals

    monkeypatch.setattr(intervals, "_ROW_WISE", 1)
    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4 * 13)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    monkeypatch.setattr(intervals, "_MAX_CELLS", 4 * 13)
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


@pytest.mark.parametrize("threaded", [True, False])
def test_blocks_drawn_ahead_in_a_thread_are_the_plain_draws_in_order(monkeypatch, threaded):
    """intervals.ahead makes each next block in a thread while the caller holds the one before:
    the counts and the sign vectors are those of drawing them in turn, block for block, even when
    the caller is slow to read a block (the producer has drawn the next one by then, into the other
    of its two buffers) and when it stops early. A draw below AHEAD_CELLS cells in all is made
    without a thread: the same blocks again."""
    import threading
    import time

    import ragreport.analysis.intervals as intervals
    import ragreport.analysis.randomization as signs_module

    monkeypatch.setattr(ragreport.core.ahead, "AHEAD_CELLS", 0 if threaded else 10**9)
    started = []
    real_start = threading.Thread.start

    def counted_start(self, *args, **kwargs):
        started.append(self.name)
        return real_start(self, *args, **kwargs)

    monkeypatch.setattr(threading.Thread, "start", counted_start)

    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 8 * 19)
    monkeypatch.setattr(signs_module, "_MIN_PRODUCT_ROWS", 1)
    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4 * 13)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    monkeypatch.setattr(intervals, "_MAX_CELLS", 4 * 13)

    def slowly(blocks):
        out = []
        for block in blocks:
            time.sleep(0.01)  # the next block is drawn meanwhile
            out.append(block.copy())
        return out

    plain_counts = [b.copy() for b in intervals.resample_counts(13, 10, 3, np.float64)]
    ahead_counts = slowly(intervals.ahead(intervals.resample_counts(13, 10, 3, np.float64), 13 * 10))
    assert len(plain_counts) == len(ahead_counts) == 3
    for a, b in zip(plain_counts, ahead_counts):
        np.testing.assert_array_equal(a, b)
    plain_signs = [s.copy() for s in signs_module._sign_blocks(19, 100, 5)]
    ahead_signs = slowly(intervals.ahead(signs_module._sign_blocks(19, 100, 5), 19 * 100))
    assert len(plain_signs) == len(ahead_signs) == 13
    for a, b in zip(plain_signs, ahead_signs):
        np.testing.assert_array_equal(a, b)
    # By hand: the first block's signs are 1 - 2 * the bits of the first bytes drawn.
    packed = np.random.default_rng(5).integers(0, 256, size=(8, 3), dtype=np.uint8)
    bits = [[(int(byte) >> (7 - s)) & 1 for byte in row for s in range(8)][:19] for row in packed]
    np.testing.assert_array_equal(ahead_signs[0], 1.0 - 2.0 * np.array(bits))
    # A caller that stops after one block: the thread is let go, nothing is left running.
    first = next(iter(intervals.ahead(intervals.resample_counts(13, 10, 3, np.float64), 13 * 10)))
    np.testing.assert_array_equal(first, plain_counts[0])
    drawing = [name for name in started if name.startswith("ragreport-draw")]
    assert len(drawing) == (3 if threaded else 0), started


@pytest.mark.parametrize("threaded", [True, False])
def test_a_draw_that_fails_in_the_thread_fails_in_the_caller(monkeypatch, threaded):
    import ragreport.analysis.intervals as intervals

    monkeypatch.setattr(ragreport.core.ahead, "AHEAD_CELLS", 0 if threaded else 10**9)

    def broken():
        yield np.zeros(1)
        raise RuntimeError("drawn badly")

    with pytest.raises(RuntimeError, match="drawn badly"):
        list(intervals.ahead(broken(), 1))


@pytest.mark.parametrize("partition", [None, 4, 7])
def test_runs_summarised_together_take_the_means_and_fingerprints_of_one_run_alone(partition, monkeypatch):
    """The band stage hands summarise each sweep's means (taken as it makes the resampled matrix)
    and an earlier run's fingerprints when the label set is the same: every mean over the sweep is
    the one of adding the run's scored queries left to right in id order, by hand, and the
    fingerprints are those of the run's own queries and label lines."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import wilson_interval
    from ragreport.analysis.summary import fingerprint, judged_query_ids, label_lines

    if partition is not None:  # the sweep resampled by partitions of 4 or 7 queries
        monkeypatch.setattr(intervals, "_PARTITION_ROWS", partition)
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


@pytest.mark.parametrize(
    ("wanted", "cells", "rows"),
    [(1, 1000, 8), (8, 1000, 8), (9, 1000, 16), (20, 1000, 24), (20, 16 * 19, 16), (20, 7 * 19, 8), (100, 10**6, 100)],
)
def test_signs_drawn_in_blocks_and_multiplied_several_blocks_at_once_are_the_loop_s(wanted, cells, rows, monkeypatch):
    """Signs drawn 8 vectors at a time and handed over as many whole draws as make the rows a
    product wants, within its cells (never less than one draw; at most every one of the 100; the
    last product shorter): the same sign vectors in the same order, so the loop's p."""
    import ragreport.analysis.randomization as signs_module

    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 8 * 19)
    monkeypatch.setattr(signs_module, "_MIN_PRODUCT_ROWS", wanted)
    monkeypatch.setattr(signs_module, "_PRODUCT_CELLS", cells)
    blocks = [s.copy() for s in signs_module._sign_blocks(19, 100, 5)]
    assert [len(b) for b in blocks] == [rows] * (100 // rows) + ([100 % rows] if 100 % rows else [])
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


@pytest.mark.parametrize("span", [2048, 3, 1])
@pytest.mark.parametrize("width", [3, 70])
def test_a_matrix_resampled_by_partitions_of_its_rows_is_the_whole_matrix_to_the_bit(width, span, monkeypatch):
    """intervals.RowParts: the exact parts made 4 rows at a time (scaled by the whole column's
    power of two) times the same rows of every block of counts, added up partition by partition,
    are the whole matrix's sums to the bit (whole numbers below 2^53), narrow or wide, with a
    column that is not finite; and the loop's means. Alone or beside a second matrix (the counts
    then kept as bytes and read by partition, every resample at once, a span of the partition's
    rows at a time: the whole partition, 3 rows and the one left, one row)."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import RowParts, made_bootstrap_means

    monkeypatch.setattr(intervals, "_PARTITION_ROWS", 4)
    monkeypatch.setattr(intervals, "_SPAN_QUERIES", span)
    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 5 * 23)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    matrix = np.random.default_rng(11).random((23, width)) * np.linspace(0.01, 30, width)
    matrix[5, 1] = np.inf
    other = np.random.default_rng(12).random((23, 2))
    parts = RowParts(lambda: np.abs(matrix).max(axis=0), lambda a, b: matrix[a:b].copy())
    with np.errstate(invalid="ignore"):  # a resample without the infinite row: 0 x inf
        whole = made_bootstrap_means([lambda: matrix.copy()], 23, [width], 30, 4)[0]
        alone = made_bootstrap_means([parts], 23, [width], 30, 4)[0]
        beside = made_bootstrap_means([lambda: other.copy(), parts], 23, [2, width], 30, 4)
        after = made_bootstrap_means([parts, lambda: other.copy()], 23, [width, 2], 30, 4)
    for drawn in (alone, beside[1], after[0]):
        np.testing.assert_array_equal(drawn, whole)
    np.testing.assert_array_equal(beside[0], after[1])
    finite = np.isfinite(matrix).all(axis=0)
    np.testing.assert_allclose(whole[:, finite], loop_means(matrix[:, finite], 30, 4), atol=1e-12)
    assert not np.isfinite(whole[:, 1]).any() and np.isinf(whole[:, 1]).any()


@pytest.mark.parametrize("span", [2048, 50])
@pytest.mark.parametrize("width", [9, 70])
def test_equal_and_zero_columns_of_a_partition_have_the_sums_of_their_own_products(width, span, monkeypatch):
    """exactparts.distinct_parts: a partition's part columns that are zero, or equal to another,
    are not multiplied (a copy takes the other's sums); the means are still the whole matrix's to
    the bit. Columns equal throughout, zero throughout, zero in one partition, equal in some
    partitions only, equal at every sampled row but one, and of values whose low part is zero."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import RowParts, made_bootstrap_means

    monkeypatch.setattr(intervals, "_PARTITION_ROWS", 128)
    monkeypatch.setattr(intervals, "_SPAN_QUERIES", span)  # the kept counts read 50 rows at a time
    n = 300
    matrix = np.random.default_rng(21).random((n, width)) * np.linspace(0.5, 3, width)
    matrix[:, 1] = matrix[:, 0]  # equal throughout
    matrix[:, 2] = 0.0  # zero throughout
    matrix[:128, 3] = 0.0  # zero in the first partition
    matrix[:, 4] = np.round(matrix[:, 4] * 8) / 8  # whole eighths: the low part zero
    matrix[128:256, 5] = matrix[128:256, 0]  # equal in the second partition only...
    matrix[0, 5] = matrix[:, 0].max()  # ...with the same power of two
    matrix[:, 6] = matrix[:, 0]
    matrix[3, 6] += 0.25  # equal at every even row (the sampled ones), not at row 3
    matrix[:, 7] = matrix[:, 4]
    parts = RowParts(lambda: np.abs(matrix).max(axis=0), lambda a, b: matrix[a:b].copy())
    whole = made_bootstrap_means([lambda: matrix.copy()], n, [width], 40, 9)[0]
    parted = made_bootstrap_means([parts], n, [width], 40, 9)[0]
    np.testing.assert_array_equal(parted, whole)
    np.testing.assert_allclose(whole, loop_means(matrix, 40, 9), atol=1e-12)
    assert (whole[:, 2] == 0).all() and not np.array_equal(whole[:, 6], whole[:, 0])


def test_counts_kept_by_keeping_counts_are_read_by_a_later_draw_of_the_same_counts(monkeypatch):
    """intervals.keeping_counts: the band stage's counts (kept as bytes) are read by a later
    bootstrap of as many rows, resamples and seed (the comparison's readings) instead of being
    drawn again, with the same means as a fresh draw and as the loop; another seed draws its own,
    and leaving the scope lets them go."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import bootstrap_means, keeping_counts, shared_bootstrap_means

    rng = np.random.default_rng(31)
    first, second, later = rng.random((40, 3)), rng.random((40, 2)), rng.random((40, 2))
    fresh = bootstrap_means(later, 25, 6)
    drawn = []
    real = intervals.resample_counts

    def counting(*args, **kwargs):
        drawn.append(args[:3])
        return real(*args, **kwargs)

    monkeypatch.setattr(intervals, "resample_counts", counting)
    with keeping_counts():
        shared_bootstrap_means([first, second], 25, 6)
        assert drawn == [(40, 25, 6)]
        again = bootstrap_means(later, 25, 6)
        assert drawn == [(40, 25, 6)]  # read from the kept bytes
        other = bootstrap_means(later, 25, 7)
        assert drawn == [(40, 25, 6), (40, 25, 7)]
        assert intervals._kept.get() is not None and list(intervals._kept.get()) == [(40, 25, 7)]
    assert intervals._kept.get() is None
    np.testing.assert_array_equal(again, fresh)
    np.testing.assert_allclose(again, loop_means(later, 25, 6), atol=1e-12)
    np.testing.assert_allclose(other, loop_means(later, 25, 7), atol=1e-12)


@pytest.mark.parametrize("width", [3, 70])  # narrow, and wide (multiplied columns x queries)
@pytest.mark.parametrize("span", [2048, 7])  # one span, and spans of 7 of the 40 queries
def test_a_matrix_read_from_kept_counts_span_by_span_is_its_fresh_draw_to_the_bit(width, span, monkeypatch):
    """A matrix whose counts are kept already (the second of a shared draw, or the comparison's
    readings within keeping_counts) is multiplied by every resample at once, a span of queries at
    a time (22.26): the same bits as the matrix drawn afresh block by block (blocks of 4
    resamples here), and the loop's means."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import bootstrap_means, keeping_counts, shared_bootstrap_means

    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4 * 40)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    monkeypatch.setattr(intervals, "_MAX_CELLS", 4 * 40)
    monkeypatch.setattr(intervals, "_SPAN_QUERIES", span)
    rng = np.random.default_rng(41)
    first, later = rng.random((40, 2)), rng.random((40, width)) * 10.0 ** rng.integers(-3, 4, size=width)
    fresh = bootstrap_means(later, 25, 6)
    with keeping_counts():
        together = shared_bootstrap_means([first, later], 25, 6)
        again = bootstrap_means(later, 25, 6)
    np.testing.assert_array_equal(together[1], fresh)
    np.testing.assert_array_equal(again, fresh)
    np.testing.assert_allclose(again, loop_means(later, 25, 6), rtol=1e-12)


def test_counts_that_do_not_fit_in_a_byte_are_drawn_again_not_kept(monkeypatch):
    """A block with a query drawn 256 times or more in a resample (planted: impossible by chance
    at these sizes) is not kept as bytes: every matrix then draws the counts again, and gets the
    means each would get alone; keeping_counts keeps nothing."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import bootstrap_means, keeping_counts, shared_bootstrap_means

    real = intervals.resample_counts

    def planted(*args, **kwargs):
        for at, block in enumerate(real(*args, **kwargs)):
            if at == 1:
                block[0, 0] += 300.0
            yield block

    monkeypatch.setattr(intervals, "resample_counts", planted)
    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4 * 30)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    rng = np.random.default_rng(41)
    first, second = rng.random((30, 3)), rng.random((30, 2))
    with keeping_counts():
        together = shared_bootstrap_means([first, second], 12, 2)
        assert intervals._kept.get() == {}
    np.testing.assert_array_equal(together[0], bootstrap_means(first, 12, 2))
    np.testing.assert_array_equal(together[1], bootstrap_means(second, 12, 2))
    assert together[1][4:8, 0].max() > second[:, 0].max()  # the planted count is in the second's means too


def test_a_small_draw_starts_no_drawing_thread_and_a_large_one_does(monkeypatch):
    """The bands and the randomization test tell intervals.ahead how many cells they draw: a small
    report's (under AHEAD_CELLS) are made in the caller's thread, with the same figures."""
    import threading

    from ragreport.analysis.compare import randomization_test
    from ragreport.analysis.intervals import shared_bootstrap_means

    started: list[str] = []
    real_start = threading.Thread.start

    def counted_start(self, *args, **kwargs):
        started.append(self.name)
        return real_start(self, *args, **kwargs)

    monkeypatch.setattr(threading.Thread, "start", counted_start)
    scores = np.random.default_rng(8).random((40, 5))
    inline = shared_bootstrap_means([scores, scores[:, :2]], 300, 2), randomization_test(scores - 0.5, 400, 1)
    assert not [name for name in started if name.startswith("ragreport-draw")], started
    monkeypatch.setattr(ragreport.core.ahead, "AHEAD_CELLS", 0)
    threaded = shared_bootstrap_means([scores, scores[:, :2]], 300, 2), randomization_test(scores - 0.5, 400, 1)
    assert len([name for name in started if name.startswith("ragreport-draw")]) >= 3, started
    for a, b in zip(inline[0], threaded[0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(inline[1], threaded[1])


@pytest.mark.parametrize("resamples", [1, 5, 70])
def test_counts_drawn_early_as_bytes_are_the_rule_s_draws(resamples, monkeypatch):
    """intervals.ByteCounts (docs/conventions.md section 22.20): the counts drawn in a thread of
    their own as bytes are the documented draws, counted by hand, in resample_counts' blocks (a
    shorter last one included); a product reading them gets the means of drawing them as it goes."""
    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import ByteCounts, made_bootstrap_means, resample_counts

    monkeypatch.setattr(intervals, "_BLOCK_CELLS", 4096 * 3)
    monkeypatch.setattr(intervals, "_MIN_BLOCK_RESAMPLES", 1)
    n, seed = 4099, 5
    drawn = ByteCounts(n, resamples, seed)
    blocks = drawn.blocks()
    assert blocks is not None and all(b.dtype == np.uint8 for b in blocks)
    assert [len(b) for b in blocks] == [len(b) for b in resample_counts(n, resamples, seed)]
    rng = np.random.default_rng(seed)
    expected = np.zeros((resamples, n), dtype=np.int64)
    for b in range(resamples):
        for u in rng.random(n).tolist():
            expected[b, min(int(math.floor(u * n)), n - 1)] += 1
    np.testing.assert_array_equal(np.concatenate(blocks), expected)
    scores = np.random.default_rng(3).random((n, 4))
    plain = made_bootstrap_means([lambda: scores.copy()], n, [4], resamples, seed)[0]
    read = made_bootstrap_means([lambda: scores.copy()], n, [4], resamples, seed, drawn=ByteCounts(n, resamples, seed))[
        0
    ]
    np.testing.assert_array_equal(read, plain)
    exact = [[math.fsum((row * scores[:, j]).tolist()) / n for j in range(4)] for row in expected]
    np.testing.assert_allclose(plain, exact, rtol=4e-16, atol=0)  # the exact sums (22.5), rounded twice


def test_counts_drawn_early_that_do_not_fit_a_byte_are_drawn_again(monkeypatch):
    """A resample with a query drawn 256 times (planted) is not kept as bytes: ByteCounts gives
    None and the band stage draws the counts itself, with the same means; another draw's counts
    (other rows, resamples or seed) are not read; a small draw starts no thread; cancel stops it."""
    import threading

    import ragreport.analysis.intervals as intervals
    from ragreport.analysis.intervals import ByteCounts, made_bootstrap_means

    real = intervals._row_counts
    calls = [0]

    def planted(rng, uniform, draws):
        counts = real(rng, uniform, draws)
        calls[0] += 1
        if calls[0] == 3:
            counts[0] = 256
        return counts

    monkeypatch.setattr(intervals, "_row_counts", planted)
    n = 4096
    scores = np.random.default_rng(4).random((n, 3))
    assert ByteCounts(n, 6, 1).blocks() is None
    monkeypatch.setattr(intervals, "_row_counts", real)
    plain = made_bootstrap_means([lambda: scores.copy()], n, [3], 6, 1)[0]
    for other in (ByteCounts(n, 6, 2), ByteCounts(n, 7, 1)):
        read = made_bootstrap_means([lambda: scores.copy()], n, [3], 6, 1, drawn=other)[0]
        np.testing.assert_array_equal(read, plain)
    assert ByteCounts(4095, 6, 1).blocks() is None  # below _ROW_WISE: drawn by the band stage
    started = threading.active_count()
    stopped = ByteCounts(n, 10_000, 1)
    stopped.cancel()
    assert stopped.blocks() is None and threading.active_count() <= started


def test_a_build_s_counts_drawn_early_give_the_bands_of_drawing_them_late(monkeypatch):
    """evaluation.summarise_loaded starts the draw once the first run is scored: two runs of
    5,000 queries get the very bands, sweep and paired bands of the band stage drawing its counts
    itself (ByteCounts replaced by one that keeps nothing)."""
    import ragreport.analysis.evaluation as evaluation
    from ragreport.analysis.intervals import ByteCounts

    every, qrels = _runs(5000, 12)
    runs = {name: every[name] for name in ("base", "better")}
    conventions = Conventions(resamples=30, seed=3)
    started: list[ByteCounts] = []

    class Recorded(ByteCounts):
        def __init__(self, *args):
            super().__init__(*args)
            started.append(self)

    monkeypatch.setattr(evaluation, "ByteCounts", Recorded)
    early = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    assert len(started) == 1 and started[0].blocks() is not None

    class Nothing(ByteCounts):
        def __init__(self, n, resamples, seed):
            super().__init__(0, resamples, seed)
            self.key = (n, resamples, seed)

    monkeypatch.setattr(evaluation, "ByteCounts", Nothing)
    late = evaluate(runs, qrels=qrels, k=5, conventions=conventions)
    for a, b in zip(early, late):
        assert a.at_k == b.at_k
        for key in a.sweep.low:
            np.testing.assert_array_equal(a.sweep.low[key], b.sweep.low[key])
            np.testing.assert_array_equal(a.sweep.high[key], b.sweep.high[key])
        np.testing.assert_array_equal(a.resampled, b.resampled)


@pytest.mark.parametrize(("chunk", "group", "ahead_"), [(8, 8, 1), (16, 16, 1), (16, 24, 4), (24, 256, 4)])
def test_signs_multiplied_a_chunk_of_queries_at_a_time_on_two_threads_are_the_loop_s(chunk, group, ahead_, monkeypatch):
    """randomization._counted_by_chunks (docs/conventions.md section 22.21): past _CHUNKED_PAST
    shared queries the signs are made and multiplied a chunk of queries at a time, groups of sign
    vectors on two threads: the same bytes in the same draws (8 vectors of 3 bytes here), so the
    loop's p for every column, whatever the chunk (one byte, two, three), the group (one draw, two,
    three, all 100) and how many groups are drawn ahead; and the same p as one product."""
    import ragreport.analysis.randomization as signs_module

    monkeypatch.setattr(signs_module, "_BLOCK_CELLS", 8 * 19)
    monkeypatch.setattr(signs_module, "_CHUNKED_PAST", 8)
    monkeypatch.setattr(signs_module, "_CHUNK_QUERIES", chunk)
    monkeypatch.setattr(signs_module, "_GROUP_ROWS", group)
    monkeypatch.setattr(signs_module, "_GROUPS_AHEAD", ahead_)
    d = np.random.default_rng(4).normal(0.04, 0.2, size=(19, 3))
    d[:, 2] = 0.0  # every sign vector reaches a zero mean: p = 1
    p = randomization_test(d, 100, 5)
    for j in range(3):
        assert p[j] == pytest.approx(loop_p_value(d[:, j], 100, 5), abs=1e-15)
    assert p[2] == 1.0
    monkeypatch.setattr(signs_module, "_CHUNKED_PAST", 10**9)
    np.testing.assert_array_equal(randomization_test(d, 100, 5), p)


def test_a_large_randomization_test_by_chunks_is_the_one_product_s():
    """20,000 queries x 4 columns (chunks of 1,024 queries, a shorter last one), 700 sign vectors:
    the same p-values as one product over every query, run after run (the threads' interleaving
    moves no count)."""
    import ragreport.analysis.randomization as signs_module

    rng = np.random.default_rng(9)
    d = rng.normal(0.0, 0.1, size=(20_000, 4)) + np.array([0.0, 0.001, 0.002, 0.004])
    chunked = [randomization_test(d, 700, 2) for _ in range(3)]
    real = signs_module._CHUNKED_PAST
    try:
        signs_module._CHUNKED_PAST = 10**9
        whole = randomization_test(d, 700, 2)
    finally:
        signs_module._CHUNKED_PAST = real
    for p in chunked:
        np.testing.assert_array_equal(p, whole)
    assert whole[0] > 0.05 and whole[3] < 0.01  # the planted shifts are seen


@pytest.mark.parametrize(
    "shapes", [[(8, 3)] * 13, [(41, 12500), (41, 12500), (7, 12500)], [(1, 1), (3, 5), (2, 2), (5, 7), (1, 9)]]
)
def test_sign_bytes_from_raw_words_are_numpy_s_byte_draws_call_for_call(shapes):
    """randomization._ByteDraws: the bytes of each call, as numpy's own integers(0, 256, uint8)
    gives them call after call (odd numbers of 32-bit draws, a byte count not a multiple of four,
    the spare half-word carried into the next call)."""
    from ragreport.analysis.randomization import _ByteDraws

    rng = np.random.default_rng(77)
    draws = _ByteDraws(77)
    for shape in shapes:
        out = np.empty(shape, dtype=np.uint8)
        draws.fill(out, shape[0])
        np.testing.assert_array_equal(out, rng.integers(0, 256, size=shape, dtype=np.uint8))
    assert draws._raw  # the fast path was the one tested (a little-endian machine)
