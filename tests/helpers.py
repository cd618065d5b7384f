"""Small builders shared by the tests."""

from __future__ import annotations

from ragreport.core.model import Judgments, Run
from ragreport.scoring.join import JudgedRun, join


def judged_run(queries: list[tuple[str, list[str], dict[str, int]]], *, extra_judged=(), name="t") -> JudgedRun:
    """JudgedRun from (qid, retrieved, {id: grade}) triples; ``extra_judged`` are judged-only queries."""
    run = Run.from_lists(name, [(q, list(r)) for q, r, _ in queries])
    judgments = Judgments.from_lists(
        [(q, list(g), list(g.values())) for q, _, g in queries if g is not None]
        + [(q, list(g), list(g.values())) for q, g in extra_judged]
    )
    return join(run, judgments)


def lists_of(run: Run) -> dict[str, list[str]]:
    """{query id: its ranked ids} of a run, ids as text."""
    from ragreport.core.ids import as_text

    return {q: as_text(run.doc_ids[run.offsets[i] : run.offsets[i + 1]]) for i, q in enumerate(run.query_ids.tolist())}


def grades_of(judgments: Judgments) -> dict[str, dict[str, int]]:
    """{query id: {id: grade}} of judgments, ids as text."""
    from ragreport.core.ids import as_text

    return {
        q: dict(
            zip(
                as_text(judgments.doc_ids[judgments.offsets[i] : judgments.offsets[i + 1]]),
                judgments.grades[judgments.offsets[i] : judgments.offsets[i + 1]].tolist(),
            )
        )
        for i, q in enumerate(judgments.query_ids.tolist())
    }


#: One good line of each kind, for the file an error test does not look at.
RUN_LINE = "q1 Q0 d1 1 1.0 tag\n"
QRELS_LINE = "q1 0 d1 1\n"


def load_error(write, name: str, content: str, role: str) -> str:
    """The one-line InputError message of loading ``content`` as a run or as qrels (``role``),
    with a good file of the other kind."""
    import pytest

    from ragreport.core.errors import InputError
    from ragreport.reading.registry import load_runs

    path = write(name, content)
    other = write("other_qrels.txt", QRELS_LINE) if role == "run" else write("other_run.txt", RUN_LINE)
    with pytest.raises(InputError) as caught:
        if role == "run":
            load_runs([path], qrels=None if name.endswith(".jsonl") else other)
        else:
            load_runs([other], qrels=path)
    message = str(caught.value)
    assert "\n" not in message
    return message


def band_tolerance(summary, z: float = 5.0) -> float:
    """How far apart two independent percentile bootstraps' bounds may lie, in units of the
    resampled means' sd sigma (docs/conventions.md section 29): a bound is the p-quantile of B
    resampled means, p = (1 - confidence) / 2, whose Monte Carlo sd is about
    ``sigma sqrt(p (1 - p) / B) / phi(z_p)`` (the quantile's asymptotic sd, the means near normal);
    two independent draws differ by sqrt(2) of that, allowed ``z`` = 5 of them (a chance below
    1e-3 that any of a report's thousand-odd bounds strays that far when the engines agree)."""
    from statistics import NormalDist

    p = (1 - summary.conventions.confidence) / 2
    quantile_sd = (p * (1 - p) / summary.conventions.resamples) ** 0.5 / NormalDist().pdf(NormalDist().inv_cdf(p))
    return z * 2**0.5 * quantile_sd


def assert_poisson_agrees(memory, stream) -> None:
    """The partitioned engines' summaries (figures from the Poisson sums, docs/conventions.md
    section 29) against the memory engine's: what does not depend on resampling identical (counts,
    statuses, fingerprints, per-query scores at the cutoffs asked for, the measures by name, the
    readings per query, Wilson's bands), every mean of the sweep and of the readings to 1e-12, the bootstrap bounds within
    :func:`band_tolerance` of the memory engine's resampled means' sd."""
    import dataclasses

    import numpy as np

    from ragreport.scoring.catalogue import IntervalMethod

    assert [a.name for a in memory] == [b.name for b in stream]
    for a, b in zip(memory, stream):
        assert a.sums is None and b.sums is not None
        assert (a.k, a.cutoffs, a.counts, a.status) == (b.k, b.cutoffs, b.counts, b.status)
        assert (a.query_fingerprint, a.label_fingerprint) == (b.query_fingerprint, b.label_fingerprint)
        assert np.array_equal(a.judged.query_ids, b.judged.query_ids)
        assert np.array_equal(a.scores.scored, b.scores.scored)
        for cutoff in a.cutoffs:
            for metric in a.scores.metrics:
                assert np.array_equal(a.scores.of(metric, cutoff), b.scores.of(metric, cutoff))
        assert np.array_equal(a.measure_values, b.measure_values)
        np.testing.assert_equal(a.readings, b.readings)  # per query, the partitions' own readings gathered
        assert a.reading_at.keys() == b.reading_at.keys()  # the means: from the buckets' sums (section 29)
        for name, means in a.reading_at.items():
            assert means.keys() == b.reading_at[name].keys()
            np.testing.assert_allclose(list(b.reading_at[name].values()), list(means.values()), rtol=0, atol=1e-12)
        assert np.array_equal(a.sweep.cutoffs, b.sweep.cutoffs)
        tolerance, n_cut = band_tolerance(a), len(a.scores.cutoffs)
        for i, measure in enumerate(a.measures):  # a band's sd: the values' (ddof 0) over sqrt(n)
            ours, theirs = b.measure_at[measure.label()], a.measure_at[measure.label()]
            assert ours.method == theirs.method  # the mean: from the partitions' sums, to 1e-12
            assert abs(ours.mean - theirs.mean) <= 1e-12 * max(1.0, abs(theirs.mean)) or np.isnan(
                ours.mean + theirs.mean
            )
            if measure.interval is not IntervalMethod.BOOTSTRAP:  # Wilson's counts, or no band
                np.testing.assert_allclose(dataclasses.astuple(ours)[:3], dataclasses.astuple(theirs)[:3], rtol=1e-12)
                continue
            values, epsilon = a.measure_values[i, a.scores.scored], measure.metric.geometric
            scale = (lambda v: v) if epsilon is None else np.log  # a geometric mean's band: of the mean log
            if epsilon is not None:
                values = np.log(np.maximum(values, epsilon))
            sd = values.std() / max(len(values), 1) ** 0.5
            for bound in ("low", "high"):
                gap = abs(scale(getattr(ours, bound)) - scale(getattr(theirs, bound)))
                assert gap <= tolerance * sd + 1e-12, (measure.label(), bound)
        for i, metric in enumerate(a.scores.metrics):
            key = metric.key
            np.testing.assert_allclose(b.sweep.mean[key], a.sweep.mean[key], rtol=0, atol=1e-12)
            for bound in ("low", "high"):
                ours, theirs = getattr(b.sweep, bound)[key], getattr(a.sweep, bound)[key]
                if metric.interval is IntervalMethod.WILSON:  # counts alone: the same band
                    np.testing.assert_equal(ours, theirs)
                    continue
                columns = [i * n_cut + a.scores.column(int(c)) for c in a.sweep.cutoffs]
                sd = a.resampled[:, columns].std(axis=0) if a.resampled is not None else 0.0
                assert np.all(np.abs(ours - theirs) <= tolerance * sd + 1e-12), (key, bound)
        for cutoff in b.cutoffs:  # each cutoff asked for is the sweep's, on both engines
            c = int(np.flatnonzero(b.sweep.cutoffs == cutoff)[0])
            for metric in b.scores.metrics:
                for s in (a, b):
                    interval = s.at_k[metric.label(cutoff)]
                    figures = [getattr(s.sweep, f)[metric.key][c] for f in ("mean", "low", "high")]
                    np.testing.assert_equal((interval.mean, interval.low, interval.high), figures)


def same_but_bands(a, b, path: str = "") -> None:
    """Two parts of report.json equal but for the bands' bounds (``low`` and ``high``, left out:
    the partitioned engines' are the Poisson bootstrap's), numbers to 1e-12."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for key in a.keys() - {"low", "high"}:
            same_but_bands(a[key], b[key], f"{path}/{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same_but_bands(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert abs(a - b) <= 1e-12, (path, a, b)
    else:
        assert a == b, (path, a, b)


def assert_paired_agrees(memory, parted) -> None:
    """The partitioned engines' comparison (figures summed bucket by bucket, docs/conventions.md
    section 29) against the memory engine's: the differences and d_z to 1e-12, wins, ties, losses
    and the movers identical; each band's bounds within :func:`band_tolerance` of the bootstrap's
    sd (the differences' sd over sqrt(n); d_z's, sqrt((1 + d_z^2 / 2) / n)); each p-value within
    5 sds of two independent draws of P permutations, sqrt(2 p (1 - p) / P), and 2 / P; the same
    of each other reading of unjudged ids (its differences' own sd)."""

    from ragreport.output.site.view.comparison import _movers

    assert memory.permutations == parted.permutations
    for a, b in zip(memory.runs, parted.runs, strict=True):
        assert a.summed is None and b.summed is not None
        tolerance = band_tolerance(a.baseline)
        for m, (x, y) in enumerate(zip(a.comparisons, b.comparisons, strict=True)):
            assert (x.metric, x.wins, x.ties, x.losses, x.queries) == (y.metric, y.wins, y.ties, y.losses, y.queries)
            assert abs(x.delta - y.delta) <= 1e-12, x.metric
            assert (x.effect is None) == (y.effect is None), x.metric
            d = a.run_scores[:, m] - a.baseline_scores[:, m]
            sd = d.std() / len(d) ** 0.5
            for bound in ("low", "high"):
                assert abs(getattr(x, bound) - getattr(y, bound)) <= tolerance * sd + 1e-12, (x.metric, bound)
            if x.effect is not None:
                assert abs(x.effect - y.effect) <= 1e-12, x.metric
                effect_sd = ((1 + x.effect**2 / 2) / len(d)) ** 0.5
                for bound in ("effect_low", "effect_high"):
                    ours, theirs = getattr(y, bound), getattr(x, bound)
                    assert (ours is None) == (theirs is None), (x.metric, bound)
                    assert ours is None or abs(ours - theirs) <= tolerance * effect_sd, (x.metric, bound)
            p, draws = (x.p + y.p) / 2, memory.permutations
            assert abs(x.p - y.p) <= 5 * (2 * p * (1 - p) / draws) ** 0.5 + 2 / draws, x.metric
            assert (x.readings is None) == (y.readings is None), x.metric
            for name, under in (x.readings or {}).items():  # each other reading of unjudged ids, alike
                ours = y.readings[name]
                values = [s.reading_of(name, a.family[m].metric, a.family[m].cutoff) for s in (a.run, a.baseline)]
                d = values[0][a.pairing.run_rows] - values[1][a.pairing.baseline_rows]
                sd = d.std() / len(d) ** 0.5
                assert abs(under.delta - ours.delta) <= 1e-12, (x.metric, name)
                for bound in ("low", "high"):
                    assert abs(getattr(under, bound) - getattr(ours, bound)) <= tolerance * sd + 1e-12, (x.metric, name)
                # Holm's adjusted p: at most the family's size times a raw one, and its differences
                family = len(a.family)
                p = min(1.0, (under.p_adjusted + ours.p_adjusted) / 2)
                spread = family * (5 * (2 * p * (1 - p) / draws) ** 0.5 + 2 / draws)
                assert abs(under.p_adjusted - ours.p_adjusted) <= spread, (x.metric, name)
        ids = a.pairing.query_ids.tolist()
        assert ids == b.pairing.query_ids.tolist()
        for lead in {m.metric for m in a.family if m.plain and m.cutoff == a.baseline.k}:
            for sign in (1, -1):
                texts = [None] * len(ids)
                assert _movers(a, ids, texts, sign, lead) == _movers(b, ids, texts, sign, lead), lead
