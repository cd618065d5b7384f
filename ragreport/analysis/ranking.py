"""All runs at once, on the primary metric (docs/conventions.md section 27): every pair of runs
compared, each run's rank interval, and the runs grouped into tiers.

With three or more runs (two are the comparison with the baseline, :mod:`.compare`):

- **Order.** The runs by their mean on the primary metric (each over the queries it scored, the
  figure every table shows), best first; equal means (within 1e-12) keep the runs' order.
- **Pairs.** Every pair, earlier run (``row``) minus later run (``column``), made as a comparison
  with the baseline is (:func:`~.compare.pair_queries`, :func:`~.compare.paired_bands`,
  :func:`~.compare.paired_tests`: the same queries, resamples, seed, confidence and sign flips), the
  p-values corrected over the R(R-1)/2 pairs with the report's ``--correction``, and the verdict of
  :func:`~.compare.verdict_of`.
- **Rank intervals.** The queries every pair holds (every run scored them, judged alike), resampled
  together: in each resample every run's mean over the same drawn queries, the runs ranked by it
  (1 = best; ties, within 1e-12, share the best rank of the tie: 1, 1, 3), and each run's
  interval the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of its ranks, taken
  as order statistics (the lower and the higher: never an interpolated rank). When every run's own
  bootstrap resampled exactly those queries with one seed and count of resamples, its resampled
  means are read, not drawn again (section 22.2). On the partitioned engines the pairs and the
  resampled means come from the sums of the runs' buckets
  (:func:`~.paired.paired_figures`, :func:`~.paired.common_means`): no per-query value is gathered.
- **Tiers** (:func:`tiers`): walking the runs by mean, a run joins the current tier unless the
  tier's first run is clearly better than it (the pair's verdict ``better``); then it starts the
  next tier.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import reduce
from typing import TYPE_CHECKING

import numpy as np

from .compare import (
    Correction,
    adjust,
    family_values,
    pair_queries,
    paired_bands,
    paired_tests,
    resampled_columns,
    verdict_of,
)
from .intervals import resample_rows, shared_bootstrap_means
from .paired import common_means, paired_figures, summed_alike
from .randomization import TIE

if TYPE_CHECKING:
    from ..scoring.measures import Measure
    from .summary import RunSummary

#: How report.json names the ways the ranking was made (the data contract's wording).
RANK_METHOD = (
    "runs ranked by their mean in each paired bootstrap resample of the queries all runs scored "
    "(1 = best; tied means share the best rank); each run's interval is the percentile interval of its ranks"
)
TIER_METHOD = (
    "runs walked by mean, best first: a run joins the current tier unless the tier's first run is "
    "clearly better than it (the pair's verdict 'better'), else it starts the next tier"
)
#: Resamples x runs x runs comparisons held at once while ranking (32 MB of booleans).
_BLOCK_CELLS = 1 << 25


@dataclass(frozen=True)
class Pair:
    """Two runs on the primary metric: ``row`` (earlier by mean) minus ``column``, over the
    ``queries`` both scored and judged alike; NaN figures when they share none."""

    row: str
    column: str
    delta: float
    low: float
    high: float
    p: float
    p_adjusted: float
    queries: int
    alpha: float
    margin: float | None = None  # --min-effect: a difference inside it is negligible

    @property
    def verdict(self) -> str | None:
        """:func:`~.compare.verdict_of` of the row against the column, with the report's margin;
        None when nothing is shared."""
        if not self.queries:
            return None
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha, self.margin)

    def flipped(self) -> Pair:
        """The same pair read the other way: column minus row, the band mirrored (so ``better``
        reads ``worse``), the same p-values."""
        return replace(self, row=self.column, column=self.row, delta=-self.delta, low=-self.high, high=-self.low)

    def as_dict(self) -> dict:
        figures = {k: getattr(self, k) for k in ("delta", "low", "high", "p", "p_adjusted")}
        return {
            "row": self.row,
            "column": self.column,
            **{k: v if np.isfinite(v) else None for k, v in figures.items()},
            "queries": self.queries,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class RankInterval:
    """A run's mean, its rank by the means (ties share the best) and its rank interval; the
    interval is None when no query is held by every pair."""

    run: str
    mean: float
    rank: int
    low: int | None
    high: int | None

    def as_dict(self) -> dict:
        return {**self.__dict__, "mean": self.mean if np.isfinite(self.mean) else None}


@dataclass(frozen=True)
class Ranking:
    """Every run against every other on ``metric``: the pairs, the rank intervals and the tiers,
    the runs in ``order`` (by mean, best first)."""

    metric: str
    order: tuple[str, ...]
    pairs: tuple[Pair, ...]  # (0, 1), (0, 2), ... (1, 2), ...: by the order, row before column
    ranks: tuple[RankInterval, ...]  # in the order
    tiers: tuple[tuple[str, ...], ...]
    queries: int  # the queries the rank intervals resample
    correction: Correction
    confidence: float
    resamples: int
    seed: int
    permutations: int

    def pair(self, row: str, column: str) -> Pair | None:
        """The pair of two runs read ``row`` minus ``column`` (flipped when stored the other way);
        None for a run with itself or a name not ranked."""
        for p in self.pairs:
            if (p.row, p.column) == (row, column):
                return p
            if (p.column, p.row) == (row, column):
                return p.flipped()
        return None

    def as_dict(self) -> dict:
        return {
            "metric": self.metric,
            "order": list(self.order),
            "correction": self.correction.value,
            "correction_text": self.correction.meaning,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "seed": self.seed,
            "permutations": self.permutations,
            "rank_method": RANK_METHOD,
            "tier_method": TIER_METHOD,
            "queries": self.queries,
            "pairs": [p.as_dict() for p in self.pairs],
            "ranks": [r.as_dict() for r in self.ranks],
            "tiers": [list(t) for t in self.tiers],
        }


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """Each column's rank in each row of ``means`` (rows x runs), 1 for the highest: one plus the
    runs above it by more than 1e-12, so that tied runs share the best rank (0.5, 0.5, 0.2 ranks
    1, 1, 3); a missing mean (NaN: a run that scored nothing) ranks below every other. In blocks of
    rows, each a rows x runs x runs comparison."""
    means = np.nan_to_num(np.asarray(means, dtype=np.float64), nan=-np.inf)
    rows, runs = means.shape
    out = np.empty((rows, runs), dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(runs * runs, 1))
    for start in range(0, rows, block):
        m = means[start : start + block]
        out[start : start + block] = 1 + (m[:, None, :] > m[:, :, None] + TIE).sum(axis=2)
    return out


def rank_intervals(means: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Each run's rank interval from resampled means (resamples x runs): the ``(1 - confidence) / 2``
    quantile of its :func:`competition_ranks` taken as the lower order statistic and the
    ``(1 + confidence) / 2`` as the higher (numpy's ``lower`` and ``higher`` methods), so that both
    ends are ranks a resample gave."""
    ranks = competition_ranks(means)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low = np.percentile(ranks, tail, axis=0, method="lower")
    high = np.percentile(ranks, 100.0 - tail, axis=0, method="higher")
    return low.astype(np.int64), high.astype(np.int64)


def tiers(order: Sequence[str], clearly_better: Callable[[str, str], bool]) -> tuple[tuple[str, ...], ...]:
    """The runs (``order``: by mean, best first) grouped into tiers: each run joins the current
    tier unless ``clearly_better(first of the tier, run)``; then it starts the next tier.

    The test is against the tier's first run only: a run within reach of the first stays in the
    tier even when an earlier member of it is clearly better than it (the tier is what the
    leader is not shown to beat). Example: A > B > C where only A beats C clearly gives
    (A, B), (C,); where only A beats B clearly: (A,), (B, C).
    """
    out: list[list[str]] = []
    for run in order:
        if out and not clearly_better(out[-1][0], run):
            out[-1].append(run)
        else:
            out.append([run])
    return tuple(tuple(t) for t in out)


def rank_runs(
    summaries: Sequence[RunSummary],
    measure: Measure,
    *,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    margin: float | None = None,
) -> Ranking | None:
    """Every pair, rank interval and tier of three or more runs on ``measure`` (the primary
    metric at K: a suite metric, in every run's ``at_k``), each pair's verdict read against the
    ``margin`` (``--min-effect``); None for fewer runs. The conventions
    (confidence, resamples, seed) are the first run's, which a report shares across its runs."""
    if len(summaries) < 3:
        return None
    conventions = summaries[0].conventions
    label = measure.label()
    means = [summary.at_k[label].mean for summary in summaries]
    # Stable: equal means keep the runs' order (within TIE, so a rounding does not reorder them).
    # A run without a mean (nothing scored) goes last.
    order = sorted(
        range(len(summaries)), key=lambda i: (not np.isfinite(means[i]), -round(np.nan_to_num(means[i]) / TIE))
    )
    runs = [summaries[i] for i in order]
    shown = np.array([means[i] for i in order])
    index = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    bands: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
    tests: dict[tuple[int, int], np.ndarray] = {}
    paired: dict[tuple[int, int], int] = {}  # the queries each pair shares
    if summed_alike(runs):
        # The partitioned engines: each pair's figures from the sums of the runs' buckets, as the
        # comparison's (docs/conventions.md section 29), so that a pair reads alike in both, and
        # the rank intervals from the sums of the queries every run scored.
        for i, j in index:
            summed = paired_figures(runs[j], runs[i], [measure], conventions, permutations, readings=False)
            bands[i, j], tests[i, j] = (summed.delta, summed.low, summed.high), summed.p
            paired[i, j] = summed.queries
        drawn, queries = common_means(runs, measure)
    else:
        # The column run is the "baseline" of its pairs: its rows minus theirs read the other way.
        pairings = {(i, j): pair_queries(runs[j], runs[i]) for i, j in index}
        differences = {
            (i, j): family_values(runs[i], p.run_rows, [measure]) - family_values(runs[j], p.baseline_rows, [measure])
            for (i, j), p in pairings.items()
        }
        for j in range(1, len(runs)):
            above = [(runs[i], pairings[i, j], differences[i, j]) for i in range(j)]
            bands.update(
                zip(((i, j) for i in range(j)), paired_bands(runs[j], above, [measure], conventions, effects=False))
            )
        tests = dict(zip(index, paired_tests([differences[key] for key in index], permutations, conventions.seed)))
        paired = {key: len(d) for key, d in differences.items()}
        drawn, queries = _common_draws(runs, pairings, measure)
    shared = [key for key in index if paired[key]]
    # A pair sharing no query is left out of the correction, as a run against the baseline is.
    adjusted = dict(zip(shared, adjust([float(tests[key][0]) for key in shared], correction).tolist()))
    alpha = 1.0 - conventions.confidence
    nan = float("nan")

    def pair(i: int, j: int) -> Pair:
        """The pair of the ith and the jth run by mean: NaN figures when they share no query."""
        delta, low, high, p = (float(v[0]) if len(v) else nan for v in (*bands[i, j], tests[i, j]))
        return Pair(
            runs[i].name, runs[j].name, delta, low, high, p, adjusted.get((i, j), nan), paired[i, j], alpha, margin
        )

    pairs = tuple(pair(i, j) for i, j in index)
    by_names = {(p.row, p.column): p for p in pairs}
    ranked = competition_ranks(shown[None, :])[0]
    low, high = (None, None) if drawn is None else rank_intervals(drawn, conventions.confidence)
    ranks = tuple(
        RankInterval(
            s.name,
            float(mean),
            int(rank),
            None if low is None else int(low[i]),
            None if high is None else int(high[i]),
        )
        for i, (s, mean, rank) in enumerate(zip(runs, shown, ranked))
    )
    names = tuple(s.name for s in runs)
    grouped = tiers(names, lambda first, run: by_names[first, run].verdict == "better")
    return Ranking(
        label,
        names,
        pairs,
        ranks,
        grouped,
        queries,
        correction,
        conventions.confidence,
        conventions.resamples,
        conventions.seed,
        permutations,
    )


def _common_draws(runs: Sequence[RunSummary], pairings: dict, measure: Measure) -> tuple[np.ndarray | None, int]:
    """The runs' resampled means (resamples x runs) over the queries every pairing holds (and how
    many; None when there are none): each run's read off its own bootstrap when it resampled
    exactly those queries with the others' resamples and seed, else drawn once for all the runs
    together."""
    ids = reduce(np.intersect1d, (p.query_ids for p in pairings.values()))
    if not len(ids):
        return None, 0
    conventions = runs[0].conventions
    rows = []
    for s in runs:
        scored = resample_rows(s.judged.query_ids, s.scores.scored)  # its scored rows, in id order
        rows.append((scored, scored[np.searchsorted(s.judged.query_ids[scored], ids)]))
    same_draws = len({(s.conventions.resamples, s.conventions.seed) for s in runs}) == 1
    read = [
        resampled_columns(s, [measure]) if same_draws and np.array_equal(own, common) else None
        for s, (own, common) in zip(runs, rows)
    ]
    if all(r is not None for r in read):
        return np.hstack(read), len(ids)  # type: ignore[arg-type]
    values = np.hstack([family_values(s, common, [measure]) for s, (_, common) in zip(runs, rows)])
    return shared_bootstrap_means([values], conventions.resamples, conventions.seed)[0], len(ids)
