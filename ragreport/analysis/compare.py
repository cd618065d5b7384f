"""Several runs against a baseline: paired differences, a randomization test, corrected p-values.

For every run other than the baseline and every measure of the comparison family
(:func:`choose_family`):

- the mean per-query difference (run minus baseline) over the queries both runs scored, with a
  *paired* percentile bootstrap band: each resample draws the same queries for both runs, which is
  a bootstrap of the per-query differences;
- a two-sided paired randomization test: under the null hypothesis each difference is as likely
  to have either sign, so the statistic |mean difference| is compared with its value under random
  sign flips (all 2^n of them when that is no more than the number asked for, else that many drawn
  with the seed). The p-value counts the observed statistic, so it is never exactly 0;
- p-values corrected across every comparison of the report, that is the family times the runs
  compared (Holm, Bonferroni or none);
- wins, ties and losses over the queries;
- the standardised effect d_z (the mean difference over the differences' standard deviation), with
  a band from the same resamples, and a verdict that weighs the band against the margin
  ``--min-effect`` (:func:`verdict_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError
from ..core.model import Choice, Conventions
from ..scoring.catalogue import COMPARED, PLAUSIBLE, PRIMARY, READINGS, SUITE, Measure, Metric
from ..scoring.measures import parse_measures, parse_primary
from .intervals import percentile_band, resample_rows, shared_bootstrap_means, standardised_effect
from .paired import PairedFigures, grid_counts, paired_figures, paired_store, read_members, summed_alike
from .poisson import ResampledSums, query_keys
from .power import MIN_EFFECT, detectable, level, queries_needed
from .randomization import TIE, randomization_test
from .summary import judgment_map

if TYPE_CHECKING:
    from .summary import RunSummary


class Correction(Choice):
    HOLM = (
        "holm",
        "p-values are corrected for the number of comparisons with Holm's step-down method, "
        "which controls the family-wise error rate.",
        "With --correction bonferroni every p-value would be multiplied by the number of comparisons "
        "(more conservative); with none they would stand uncorrected.",
    )
    BONFERRONI = (
        "bonferroni",
        "p-values are multiplied by the number of comparisons (Bonferroni), capped at 1.",
        "With --correction holm the correction would be step-down (never more conservative); with none "
        "they would stand uncorrected.",
    )
    NONE = (
        "none",
        "p-values are not corrected for the number of comparisons.",
        "With --correction holm they would be corrected with Holm's step-down method, as a report with "
        "many comparisons needs.",
    )


def adjust(p_values: Sequence[float] | np.ndarray, correction: Correction) -> np.ndarray:
    """Correct p-values for multiple comparisons.

    Holm: sort ascending, ``p_(i) * (m - i + 1)``, made non-decreasing by a running maximum, capped
    at 1. Bonferroni: ``min(1, m * p)``. Example: Holm of (0.01, 0.04, 0.03) is (0.03, 0.06, 0.06).
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if correction is Correction.NONE or m == 0:
        return p.copy()
    if correction is Correction.BONFERRONI:
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


#: The verdicts a comparison can state, in their order of strength (docs/conventions.md section 10).
#: ``equivalent``, ``better below margin`` and ``worse below margin`` need a margin (``--min-effect``);
#: ``band above 0``/``band below 0`` are, in a reader's words, no clear difference.
VERDICTS = (
    "better",
    "worse",
    "better below margin",
    "worse below margin",
    "equivalent",
    "band above 0",
    "band below 0",
    "unclear",
)


def verdict_of(low: float, high: float, p_adjusted: float, alpha: float, margin: float | None = None) -> str:
    """The verdict of a paired difference's band ``(low, high)`` and corrected p.

    A difference is *established* when the band excludes 0 *and* the corrected p is below
    ``alpha``. With a ``margin`` (``--min-effect``) whose open interval ``(-margin, +margin)``
    holds the whole band, the difference is negligible: ``better below margin``/``worse below
    margin`` when it is established, else ``equivalent`` (two one-sided tests, each at level
    ``(1 - confidence) / 2``, Schuirmann 1987: the band is the ``1 - 2 x`` that level interval).
    Otherwise ``better``/``worse`` when established; ``band above 0``/``band below 0`` when only the
    band excludes 0 (a percentile bootstrap band is too narrow on few queries; a reader's "no clear
    difference"); else ``unclear``. A NaN bound gives ``unclear``; no margin (None or 0) gives the
    verdicts of before margins (drift against a previous report, slices).

    >>> verdict_of(0.001, 0.003, 0.001, 0.05, 0.02), verdict_of(-0.01, 0.01, 0.9, 0.05, 0.02)
    ('better below margin', 'equivalent')
    >>> verdict_of(0.01, 0.05, 0.001, 0.05, 0.02), verdict_of(0.001, 0.003, 0.2, 0.05, 0.02)
    ('better', 'equivalent')
    """
    clear = low > 0 or high < 0
    established = clear and p_adjusted < alpha
    if margin and -margin < low and high < margin:
        if established:
            return "better below margin" if low > 0 else "worse below margin"
        return "equivalent"
    if not clear:
        return "unclear"
    if established:
        return "better" if low > 0 else "worse"
    return "band above 0" if low > 0 else "band below 0"


def _figure(value: float) -> float | None:
    """A figure as a comparison holds it: None when undefined (NaN)."""
    return float(value) if np.isfinite(value) else None


def scored_rows(summary: RunSummary) -> dict[str, int]:
    """Each scored query's row, by id."""
    rows = np.flatnonzero(summary.scores.scored)
    return dict(zip(summary.judged.query_ids[rows].tolist(), rows.tolist()))


@dataclass(frozen=True)
class QueryPairing:
    """The queries two runs both scored and judged alike, in id order; those only one of them
    scored; and those both scored but judged differently (``judged_apart``: runs scored against
    two label sets)."""

    query_ids: np.ndarray
    baseline_rows: np.ndarray
    run_rows: np.ndarray
    only_baseline: tuple[str, ...]
    only_run: tuple[str, ...]
    judged_apart: tuple[str, ...] = ()

    @property
    def same_queries(self) -> bool:
        return not self.only_baseline and not self.only_run and not self.judged_apart


def pair_queries(baseline: RunSummary, run: RunSummary) -> QueryPairing:
    """The queries both runs scored and judged alike, in id order, with each run's rows of them.

    A paired difference is a difference of retrieval only when both scores of a query read the
    same judgments. Runs of one label set (equal label fingerprints) judge every query alike; runs
    of two (RAG JSONL runs scored against their own rows, ``--labels own``) are paired only on the
    queries whose judgments are the same ids at the same grades in both: a query judged
    differently is left out (``judged_apart``), as a query only one run scored is
    (docs/conventions.md section 10).
    """
    ids, scored = baseline.judged.query_ids, baseline.scores.scored
    alike = baseline.label_fingerprint == run.label_fingerprint
    if alike and np.array_equal(scored, run.scores.scored) and np.array_equal(ids, run.judged.query_ids):
        # The same queries in the same rows (the runs of one qrels file): no set of ids to build.
        rows = resample_rows(ids, scored).astype(np.int64)
        return QueryPairing(ids[rows], rows, rows, (), ())
    base, other = scored_rows(baseline), scored_rows(run)
    common = sorted(set(base) & set(other))
    apart: tuple[str, ...] = ()
    if not alike:  # two label sets (rare, and small: a JSONL's own rows): compared query by query
        base_labels, run_labels = judgment_map(baseline.judged), judgment_map(run.judged)
        apart = tuple(q for q in common if base_labels.get(q) != run_labels.get(q))
        common = [q for q in common if base_labels.get(q) == run_labels.get(q)]
    return QueryPairing(
        query_ids=np.array(common, dtype=str),
        baseline_rows=np.array([base[q] for q in common], dtype=np.int64),
        run_rows=np.array([other[q] for q in common], dtype=np.int64),
        only_baseline=tuple(sorted(set(base) - set(other))),
        only_run=tuple(sorted(set(other) - set(base))),
        judged_apart=apart,
    )


@dataclass(frozen=True)
class Comparison:
    """One run against the baseline on one metric at K."""

    baseline: str
    run: str
    metric: str
    delta: float
    low: float
    high: float
    p: float
    p_adjusted: float
    wins: int
    ties: int
    losses: int
    queries: int
    alpha: float  # 1 - confidence: the level the corrected p is read at
    readings: dict[str, ReadingDelta] | None = None  # the difference under each other reading of unjudged ids
    detectable: float | None = None  # the smallest true difference found with 80% power
    queries_needed: int | None = None  # the queries that would find ``min_effect`` with 80% power
    min_effect: float | None = None  # the margin: a difference inside +-min_effect is negligible
    effect: float | None = None  # d_z: the mean difference over the differences' standard deviation
    effect_low: float | None = None  # d_z's band, from the delta's resamples (None: undefined)
    effect_high: float | None = None

    @property
    def band_excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    @property
    def significant(self) -> bool:
        return self.p_adjusted < self.alpha

    @property
    def verdict(self) -> str:
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha, self.min_effect)

    @property
    def robust(self) -> bool | None:
        """Whether the verdict's direction and clarity hold under every plausible reading of unjudged
        ids (:data:`~ragreport.scoring.catalogue.PLAUSIBLE`; the every-unjudged-relevant bound is not
        one, docs/conventions.md section 20.2); None when the member has no readings."""
        if self.readings is None:
            return None
        return all(self.readings[name].verdict == self.verdict for name in PLAUSIBLE)

    def as_dict(self) -> dict:
        out = {key: value for key, value in self.__dict__.items() if key != "readings"}
        out.update(band_excludes_zero=self.band_excludes_zero, significant=self.significant, verdict=self.verdict)
        out["readings"] = None if self.readings is None else {k: r.as_dict() for k, r in self.readings.items()}
        out["robust"] = self.robust
        return out


@dataclass(frozen=True)
class ReadingDelta:
    """A comparison's paired difference under another reading of unjudged ids: the same test, the
    same resamples and sign flips, corrected over the same family."""

    delta: float
    low: float
    high: float
    p_adjusted: float
    alpha: float
    min_effect: float | None = None  # the comparison's margin: the same verdict rule

    @property
    def verdict(self) -> str:
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha, self.min_effect)

    def as_dict(self) -> dict:
        figures = {key: getattr(self, key) for key in ("delta", "low", "high", "p_adjusted")}
        return {**{key: v if np.isfinite(v) else None for key, v in figures.items()}, "verdict": self.verdict}


@dataclass(frozen=True)
class RunComparison:
    """A run against the baseline: the pairing, per-query scores at K of both, every metric's comparison."""

    baseline: RunSummary
    run: RunSummary
    pairing: QueryPairing
    baseline_scores: np.ndarray  # paired queries x metrics, at K
    run_scores: np.ndarray
    comparisons: tuple[Comparison, ...]  # empty when the two runs share no scored query
    same_labels: bool  # judged against the same label set (fingerprints equal)
    family: tuple[Measure, ...] = ()  # the columns of the score matrices
    #: The figures summed from the runs' buckets (the partitioned engines, docs/conventions.md
    #: section 29), movers included; None when they came from the score matrices.
    summed: PairedFigures | None = None
    #: The scatter's counts of paired queries (family x bins x bins) as a sampled report.json
    #: stored them (section 29.2); None: counted from the score matrices (:meth:`grids`).
    stored_grids: np.ndarray | None = None

    @property
    def queries(self) -> int:
        """How many queries the two runs both scored: the summed figures' count, else the pairing's."""
        return self.summed.queries if self.summed is not None else len(self.pairing.query_ids)

    def grids(self) -> np.ndarray:
        """Per family member, the paired queries counted on a :data:`GRID_BINS` x GRID_BINS grid of
        [0, 1]^2, the run's value by row and the baseline's by column (the last bin closed)."""
        if self.stored_grids is not None:
            return self.stored_grids
        if self.summed is not None and self.summed.grids is not None:  # counted bucket by bucket
            return self.summed.grids
        return grid_counts(self.run_scores, self.baseline_scores)

    @property
    def labels(self) -> tuple[str, ...]:
        """The family's labels, one per column of the score matrices: ``nDCG@10``, ``AP``."""
        return tuple(m.label() for m in self.family)

    def differences(self, label: str) -> dict[str, float] | None:
        """Each paired query's difference from the baseline (run minus baseline) on the family
        member ``label``; None when the family holds no such member."""
        if label not in self.labels:
            return None
        column = self.labels.index(label)
        deltas = self.run_scores[:, column] - self.baseline_scores[:, column]
        return dict(zip(self.pairing.query_ids.tolist(), deltas.tolist()))


@dataclass(frozen=True)
class ComparisonReport:
    """Every run against the baseline, on the comparison ``family`` (see :class:`Family`)."""

    baseline: str
    correction: Correction
    permutations: int
    runs: tuple[RunComparison, ...]
    family: tuple[Measure, ...] = ()
    named: bool = False
    left_out: tuple[Measure, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(m.label() for m in self.family)

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        return tuple(c for run in self.runs for c in run.comparisons)


def default_family(k: int, suite: Sequence[Metric] = SUITE) -> tuple[Measure, ...]:
    """Every compared metric of the suite at K (of those a stored report holds, ``suite``): the
    family when ``--metrics`` names none."""
    return tuple(Measure(m.key, k) for m in COMPARED if m in suite)


@dataclass(frozen=True)
class Family:
    """What is compared: ``measures`` (tested and corrected together), whether ``--metrics`` chose
    them (``named``), the measures it named that cannot be compared (``left_out``: counts, the
    Judged@K diagnostic), and the primary metric (``lead``), which is always one of them."""

    measures: tuple[Measure, ...]
    lead: Metric
    named: bool = False
    left_out: tuple[Measure, ...] = ()


def resampled_columns(summary: RunSummary, family: Sequence[Measure]) -> np.ndarray | None:
    """The family's columns of the run's resampled means (as :func:`family_values` reads them), or
    None when a member is not among them."""
    if summary.resampled is None:
        return None
    scores = summary.scores
    n_cut = len(scores.cutoffs)
    columns = []
    for measure in family:
        if measure.plain and measure.metric in scores.metrics and measure.cutoff in scores.cutoffs:
            column = scores.metrics.index(measure.metric) * n_cut + scores.column(int(measure.cutoff))  # type: ignore[arg-type]
            columns.append(summary.resampled[:, column])
        elif measure in summary.measures and summary.measure_resampled is not None:
            columns.append(summary.measure_resampled[:, summary.measures.index(measure)])
        else:
            return None
    return np.stack(columns, axis=1) if columns else np.zeros((len(summary.resampled), 0))


def _drawn_differences(
    base: RunSummary, run: RunSummary, pairing: QueryPairing, family: Sequence[Measure]
) -> np.ndarray | None:
    """The paired bootstrap's resampled mean differences, read off the two runs' own bootstraps
    when they resampled the very queries the pairing holds, in its order, with the same resamples
    and seed: each resample's mean difference is then the run's resampled mean minus the
    baseline's (docs/conventions.md section 22). None otherwise."""
    draws = [(s.conventions.resamples, s.conventions.seed) for s in (base, run)]
    if not (pairing.same_queries and len(pairing.query_ids)) or draws[0] != draws[1]:
        return None
    for summary, rows in ((base, pairing.baseline_rows), (run, pairing.run_rows)):
        if not np.array_equal(resample_rows(summary.judged.query_ids, summary.scores.scored), rows):
            return None
    base_drawn, run_drawn = resampled_columns(base, family), resampled_columns(run, family)
    return None if base_drawn is None or run_drawn is None else run_drawn - base_drawn


def _by_size(arrays: Sequence[np.ndarray]) -> dict[int, list[int]]:
    """The places of the non-empty arrays, by their number of rows."""
    out: dict[int, list[int]] = {}
    for i, a in enumerate(arrays):
        if len(a):
            out.setdefault(len(a), []).append(i)
    return out


def paired_bands(
    base: RunSummary,
    compared: Sequence[tuple[RunSummary, QueryPairing, np.ndarray]],
    family: Sequence[Measure],
    conventions: Conventions,
    effects: bool = True,
    readings: Sequence[np.ndarray] = (),
) -> list[tuple[np.ndarray, ...]]:
    """The paired percentile bootstrap band of every run's mean differences with the baseline, and
    (``effects``) of their standardised effect d_z (:func:`standardised_effect`): ``(delta, low,
    high, effect, effect_low, effect_high)`` per run, or the first three without ``effects``; empty
    arrays for a run that shares no query. ``readings``: per run, more columns of differences over
    the same queries, banded alike (no effect); their delta, low and high follow the family's.

    Each band resamples the queries both runs scored, the same queries for both runs. When those
    are the queries each run's own bands resampled, the resampled differences are read off the
    runs' resampled means (no new draw); the rest is resampled together, one draw of counts per
    block for every matrix of one size (:func:`~ragreport.analysis.intervals.shared_bootstrap_means`):
    the differences, the squares the effect's band takes and the readings' columns. A resample's
    d_z thus takes its mean and mean square of the differences from the same queries. A bound the
    resamples leave unbounded (all drawn differences equal) is NaN: undefined.

    When the baseline's figures came from the Poisson sums (the partitioned engines,
    docs/conventions.md section 29), so do the bands: :func:`poisson_bands`.
    """
    if base.sums is not None:
        poisson = []
        for i, (_, pairing, d) in enumerate(compared):
            figures = poisson_bands(pairing.query_ids, d, conventions, effects)
            if readings and readings[i].shape[1] and len(d):
                extra = poisson_bands(pairing.query_ids, readings[i], conventions, False)
                figures = (*(np.concatenate(pair) for pair in zip(figures[:3], extra)), *figures[3:])
            poisson.append(figures)
        return poisson
    drawn = {}
    for i, (run, pairing, _) in enumerate(compared):
        read = _drawn_differences(base, run, pairing, family)
        if read is not None:
            drawn[i] = read
    differences = [d for _, _, d in compared]
    wanted = []  # (run, what, matrix): every matrix resampled
    for i, d in enumerate(differences):
        if not len(d):
            continue
        if i not in drawn:
            wanted.append((i, "both", np.hstack([d, d**2])) if effects else (i, "differences", d))
        elif effects:
            wanted.append((i, "squares", d**2))
        if readings and readings[i].shape[1]:
            wanted.append((i, "readings", readings[i]))
    squared: dict[int, np.ndarray] = {}
    more: dict[int, np.ndarray] = {}
    for places in _by_size([m for _, _, m in wanted]).values():
        together = shared_bootstrap_means([wanted[j][2] for j in places], conventions.resamples, conventions.seed)
        for j, means in zip(places, together):
            i, what, _ = wanted[j]
            if what == "both":
                drawn[i], squared[i] = np.hsplit(means, 2)
            else:
                {"differences": drawn, "squares": squared, "readings": more}[what][i] = means
    empty = np.zeros(0)
    out: list[tuple[np.ndarray, ...]] = []
    for i, d in enumerate(differences):
        if i not in drawn:
            out.append((empty,) * (6 if effects else 3))
            continue
        band = [d.mean(axis=0), *percentile_band(drawn[i], conventions.confidence)]
        if i in more:
            also = [readings[i].mean(axis=0), *percentile_band(more[i], conventions.confidence)]
            band = [np.concatenate(pair) for pair in zip(band, also)]
        if not effects:
            out.append(tuple(band))
            continue
        n = len(d)
        effect = standardised_effect(d.mean(axis=0), (d**2).mean(axis=0), n)
        resampled = standardised_effect(drawn[i], squared[i], n)
        with np.errstate(invalid="ignore"):
            low, high = percentile_band(np.where(np.isnan(resampled), 0.0, resampled), conventions.confidence)
        bounded = np.isfinite(effect)
        effect_band = (
            np.where(bounded & np.isfinite(low), low, np.nan),
            np.where(bounded & np.isfinite(high), high, np.nan),
        )
        out.append((*band, np.where(bounded, effect, np.nan), *effect_band))
    return out


def poisson_bands(
    query_ids: np.ndarray, differences: np.ndarray, conventions: Conventions, effects: bool = True
) -> tuple[np.ndarray, ...]:
    """:func:`paired_bands`' figures of one run's differences (queries ``query_ids`` x family), the
    bands from the Poisson bootstrap (:class:`~ragreport.analysis.poisson.ResampledSums` of the
    differences and their squares, weights hashed from the query ids): resample b's mean
    difference is ``sum_q w_qb d_q / W_b``, over the queries both runs scored the run's resampled
    mean minus the baseline's (the same weights); d_z's band is
    :meth:`~ragreport.analysis.poisson.ResampledSums.effect`'s. The figures themselves are the
    per-query differences' mean and d_z, as in memory."""
    m = differences.shape[1]
    if not len(differences):
        return (np.zeros(0),) * (6 if effects else 3)
    rows = np.hstack([differences, differences**2]) if effects else differences
    sums = ResampledSums.of(query_keys(query_ids, conventions.seed), rows, conventions.resamples)
    confidence = conventions.confidence
    mean = differences.mean(axis=0)
    _, low, high = np.array([sums.band(j, confidence=confidence) for j in range(m)]).reshape(m, 3).T
    if not effects:
        return mean, low, high
    effect = standardised_effect(mean, (differences**2).mean(axis=0), len(differences))
    _, effect_low, effect_high = np.array([sums.effect(j, m + j, confidence) for j in range(m)]).reshape(m, 3).T
    return mean, low, high, np.where(np.isfinite(effect), effect, np.nan), effect_low, effect_high


def _summed_figures(
    paired: Sequence[PairedFigures], kept: Sequence[list[int]], width: int
) -> tuple[list[tuple[np.ndarray, ...]], list[np.ndarray]]:
    """:func:`paired_bands`' and :func:`paired_tests`' figures of every run from its summed buckets
    (``paired``, docs/conventions.md section 29): the family's, then the readings' columns ``kept``
    past ``width`` (a reading's column ``j`` is ``PairedFigures.readings``' column ``j - width``)."""
    bands: list[tuple[np.ndarray, ...]] = []
    tests: list[np.ndarray] = []
    for summed, k in zip(paired, kept):
        if not summed.queries:
            bands.append((np.zeros(0),) * 6)
            tests.append(np.zeros(0))
            continue
        more = [j - width for j in k[width:]]
        read = np.zeros((4, 0)) if summed.readings is None else summed.readings[:, more]
        both = zip((summed.delta, summed.low, summed.high), read[:3])
        bands.append((*(np.concatenate(pair) for pair in both), summed.effect, summed.effect_low, summed.effect_high))
        tests.append(np.concatenate([summed.p, read[3]]))
    return bands, tests


def paired_tests(differences: Sequence[np.ndarray], permutations: int, seed: int) -> list[np.ndarray]:
    """The randomization test of every run's differences (queries x family), the sign vectors drawn
    once for all the runs that share as many queries: their columns side by side, one product
    per block (:func:`randomization_test`). Empty for a run that shares no query."""
    out: list[np.ndarray] = [np.zeros(0)] * len(differences)
    for members in _by_size(differences).values():
        p = randomization_test(np.hstack([differences[i] for i in members]), permutations, seed)
        ends = np.cumsum([differences[i].shape[1] for i in members])
        for i, part in zip(members, np.split(p, ends[:-1])):
            out[i] = part
    return out


def compare(
    summaries: Sequence[RunSummary],
    *,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    family: Family | None = None,
    min_effect: float = MIN_EFFECT,
) -> ComparisonReport | None:
    """Compare every run with the baseline (``baseline`` by name, else the first run); ``None`` for one run.

    ``family`` (:func:`choose_family`; by default every compared suite metric at K) is what is
    compared, with the baseline's conventions, which a report shares across its runs. Each
    difference is also tested under the other readings of unjudged ids
    (:data:`~ragreport.scoring.readings.READINGS`) with the same resamples and sign flips, each
    reading corrected over the whole family; and gets its power (:mod:`ragreport.analysis.power`):
    the difference it could detect, and the queries that would detect ``min_effect``.
    """
    names = [s.name for s in summaries]
    if len(summaries) < 2:
        if baseline is not None and summaries and baseline != names[0]:
            raise ArgumentError(Argument("baseline"), f" {baseline!r} names no run (the run is {names[0]!r})")
        return None
    if baseline is not None and baseline not in names:
        raise ArgumentError(
            Argument("baseline"), f" {baseline!r} names no run; the runs are {', '.join(map(repr, names))}"
        )
    base = summaries[0 if baseline is None else names.index(baseline)]
    if len({s.k for s in summaries}) > 1:
        raise UsageError("runs compared in one report must share K")
    conventions: Conventions = base.conventions
    chosen = family or Family(default_family(base.k, base.suite), PRIMARY)
    measures = chosen.measures
    width = len(measures)
    others = [s for s in summaries if s is not base]
    pairings = [pair_queries(base, s) for s in others]
    store = paired_store([base])
    if store is not None and store.choice is not None:  # the rows are a sample: its lists are the whole runs'
        pairings = [
            replace(
                p,
                only_baseline=store.apart[base.paired[1], s.paired[1]],  # type: ignore[index]
                only_run=store.apart[s.paired[1], base.paired[1]],  # type: ignore[index]
            )
            for s, p in zip(others, pairings)
        ]
    base_scores = [family_values(base, p.baseline_rows, measures) for p in pairings]
    run_scores = [family_values(s, p.run_rows, measures) for s, p in zip(others, pairings)]
    differences = [r - b for b, r in zip(base_scores, run_scores)]
    # Each member's difference under the other readings of unjudged ids is tested as more columns,
    # reading by reading: a member without readings repeats its default column, so that each
    # reading is corrected over the family the default one is.
    read = [read_members((base, s), measures) for s in others]
    n_columns = width * (1 + len(READINGS))
    paired: list[PairedFigures | None] = [None] * len(others)
    # The partitioned engines' figures: from the sums of the runs' buckets (section 29).
    if summed_alike([base, *others]):
        paired = [paired_figures(base, s, measures, conventions, permutations) for s in others]
        joined = [(f.queries, len(p.query_ids)) for f, p in zip(paired, pairings) if f is not None]
        # every paired query met in its bucket (a sampled report's rows are its sample alone)
        if any(a != b for a, b in joined) and not (store is not None and store.sampled):
            raise RuntimeError(f"the buckets paired {joined} queries (summed, paired): a broken partition")
        # A reading's column equal, value for value, to its default one (no unjudged id moved it, or
        # no member has readings) is tested as that one, as the buckets found over every query:
        # no per-query column of the readings is gathered.
        equal = [np.ones(n_columns - width, dtype=bool) if f is None or f.same is None else f.same for f in paired]
        tested_as = [[j if j < width or not e[j - width] else j % width for j in range(n_columns)] for e in equal]
        kept = [sorted(set(t)) for t in tested_as]
        shared = [0 if f is None else f.queries for f in paired]
        bands, tests = _summed_figures(paired, kept, width)  # type: ignore[arg-type]
    else:
        extra = [reading_differences(base, s, p, measures, d)[1] for s, p, d in zip(others, pairings, differences)]
        columns = [np.concatenate([d, *more], axis=1) for d, more in zip(differences, extra)]
        del extra
        # A reading's column equal, value for value, to its default one (no unjudged id moved it) is
        # tested as that one: the same resamples and sign flips would give the same figures.
        tested_as = [
            [j % width if j >= width and np.array_equal(c[:, j], c[:, j % width]) else j for j in range(n_columns)]
            for c in columns
        ]
        kept = [sorted(set(t)) for t in tested_as]
        shared = [len(c) for c in columns]
        # A reading's own columns are banded with the same resamples as the default ones (the same
        # seed draws the same counts, section 22.1): in the same draw.
        bands = paired_bands(
            base,
            list(zip(others, pairings, differences)),
            measures,
            conventions,
            readings=[c[:, k[width:]] for c, k in zip(columns, kept)],
        )
        tests = paired_tests([c[:, k] for c, k in zip(columns, kept)], permutations, conventions.seed)
        del columns
    figures = []  # per run: delta, low, high and p of every column
    for band, t, k, p, n in zip(bands, tested_as, kept, tests, shared):
        if not n:  # nothing shared: reported as such, left out of the correction
            figures.append(np.zeros((4, 0)))
            continue
        full = np.empty((4, n_columns))
        full[:3, k] = band[:3]
        full[3, k] = p
        figures.append(full[:, t])
    adjusted = [
        iter(adjust(np.concatenate([f[3, width * r : width * (r + 1)] for f in figures]), correction))
        for r in range(len(READINGS) + 1)
    ]
    alpha = 1.0 - conventions.confidence
    tested = sum(min(width, f.shape[1]) for f in figures)
    alpha_each = level(alpha, tested if correction is not Correction.NONE else 1)
    runs = []
    for summary, pairing, b, r, d, has_readings, f, band, summed in zip(
        others, pairings, base_scores, run_scores, differences, read, figures, bands, paired
    ):
        comparisons = []
        for m, measure in enumerate(measures if f.shape[1] else ()):
            column = d[:, m]
            if summed is None:
                sd = float(np.std(column, ddof=1)) if len(column) > 1 else float("nan")
                wins, ties, losses = (
                    int(n) for n in ((column > TIE).sum(), (np.abs(column) <= TIE).sum(), (column < -TIE).sum())
                )
                queries = len(column)
            else:
                sd, queries = float(summed.sd[m]), summed.queries
                wins, ties, losses = int(summed.wins[m]), int(summed.ties[m]), int(summed.losses[m])
            under = {
                name: ReadingDelta(
                    *f[:3, width * (i + 1) + m].tolist(),  # type: ignore[call-arg]
                    float(next(adjusted[i + 1])),
                    alpha,
                    min_effect,
                )
                for i, name in enumerate(READINGS)
            }
            delta, low, high, p = f[:, m].tolist()
            comparisons.append(
                Comparison(
                    base.name,
                    summary.name,
                    measure.label(),
                    delta,
                    low,
                    high,
                    p,
                    float(next(adjusted[0])),
                    wins=wins,
                    ties=ties,
                    losses=losses,
                    queries=queries,
                    alpha=alpha,
                    readings=under if has_readings[m] else None,
                    detectable=detectable(sd, queries, alpha_each, permutations),
                    queries_needed=queries_needed(sd, min_effect, alpha_each, permutations),
                    min_effect=min_effect,
                    effect=_figure(band[3][m]),
                    effect_low=_figure(band[4][m]),
                    effect_high=_figure(band[5][m]),
                )
            )
        same = summary.label_fingerprint == base.label_fingerprint
        runs.append(RunComparison(base, summary, pairing, b, r, tuple(comparisons), same, measures, summed))
    return ComparisonReport(base.name, correction, permutations, tuple(runs), measures, chosen.named, chosen.left_out)


def reading_differences(
    base: RunSummary, run: RunSummary, pairing: QueryPairing, measures: Sequence[Measure], differences: np.ndarray
) -> tuple[list[bool], list[np.ndarray]]:
    """Per family member, whether both runs hold its readings; and per reading (in
    :data:`~ragreport.scoring.readings.READINGS` order) the paired differences, a member without
    readings repeating its default column."""
    read = read_members((base, run), measures)
    columns = [
        [
            run.reading_of(name, m.metric, int(m.cutoff))[pairing.run_rows]  # type: ignore[arg-type,index]
            - base.reading_of(name, m.metric, int(m.cutoff))[pairing.baseline_rows]  # type: ignore[arg-type,index]
            if ok
            else differences[:, i]
            for i, (m, ok) in enumerate(zip(measures, read))
        ]
        for name in READINGS
    ]
    return read, [np.stack(c, axis=1) if c else np.zeros((len(differences), 0)) for c in columns]


def family_values(summary: RunSummary, rows: np.ndarray, family: Sequence[Measure]) -> np.ndarray:
    """Per-query values of every family member for the given query rows: (rows x family).

    A suite metric at a scored cutoff is read off the run's scores; any other member off the
    measures scored by name (``summary.measure_values``, the same kernels).
    """
    scores = summary.scores
    columns = []
    for measure in family:
        if measure.plain and measure.metric in scores.metrics and measure.cutoff in scores.cutoffs:
            columns.append(scores.of(measure.metric, int(measure.cutoff))[rows])  # type: ignore[arg-type]
        elif measure in summary.measures:
            columns.append(summary.measure_values[summary.measures.index(measure)][rows])
        else:
            raise UsageError(
                f"{measure.label()} is in the comparison family but {summary.name} holds no per-query "
                f"value of it: score it by name (--metrics, evaluate(measures=...))"
            )
    return np.stack(columns, axis=1) if columns else np.zeros((len(rows), 0))


def choose_family(
    named: Sequence[str | Measure] | None,
    k: int,
    primary: str | None = None,
    *,
    compares: bool = True,
    suite: Sequence[Metric] = SUITE,
) -> Family:
    """The comparison family of a report at K (docs/conventions.md section 15).

    ``named`` (``--metrics``, ``analyse(family=...)``): the measures compared, tested and corrected
    together, in the order given; None or empty: every compared suite metric at K. A count (NumRet,
    ...) or the Judged@K diagnostic has no verdict and is left out (``left_out``); a family left
    empty is an error. The primary metric must be in the family: ``--primary`` naming a metric the
    family lacks is an error; without ``--primary`` it is the first member that is a compared suite
    metric at K (an error when there is none). When nothing is compared (``compares`` False: one run
    and no previous report) ``named`` only names measures to print and does not change the primary.
    ``suite``: the suite's metrics the runs hold (a stored report's may lack a later one).
    """
    lead = parse_primary(primary, k)
    if not named or not compares:
        return Family(default_family(k, suite), lead)
    asked = tuple(dict.fromkeys(m for n in named for m in ((n,) if isinstance(n, Measure) else parse_measures([n]))))
    family = tuple(m for m in asked if m.metric.comparable)
    left_out = tuple(m for m in asked if not m.metric.comparable)
    labels = ", ".join(m.label() for m in asked)
    if not family:
        raise ArgumentError(
            Argument("family"),
            f" {labels}: nothing to compare (counts and the Judged@K diagnostic get no test); "
            f"name per-query scores such as nDCG@{k}",
        )
    leads = [m.metric for m in family if m.plain and m.cutoff == k and m.metric in COMPARED]
    if primary is not None:
        if lead not in leads:
            raise ArgumentError(
                Argument("primary"),
                f" {primary!r} is not in the comparison family ({labels}): add {lead.label(k)} to ",
                Argument("family"),
            )
        return Family(family, lead, True, left_out)
    if not leads:
        raise ArgumentError(
            Argument("family"),
            f" {labels} holds no compared metric at K = {k} for the report to lead with; "
            f"add one, such as nDCG@{k}, or choose K (",
            Argument("k"),
            ") at a cutoff it names",
        )
    return Family(family, leads[0], True, left_out)
