"""Several runs against a baseline: paired differences, a randomization test, corrected p-values.

For every run other than the baseline and every measure of the comparison family (by default the
catalogue's :data:`~ragreport.scoring.catalogue.COMPARED` at K; diagnostics are not compared;
``--metrics`` names another family):

- the mean per-query difference (run minus baseline) over the queries both runs scored, with a
  *paired* percentile bootstrap band: each resample draws the same queries for both runs, which is
  a bootstrap of the per-query differences;
- a two-sided paired randomization test: under the null hypothesis each difference is as likely
  to have either sign, so the statistic |mean difference| is compared with its value under random
  sign flips (all 2^n of them when that is no more than the number asked for, else that many drawn
  with the seed). The p-value counts the observed statistic, so it is never exactly 0;
- p-values corrected across every comparison of the report, that is the family times the runs
  compared (Holm, Bonferroni or none);
- wins, ties and losses over the queries.

The comparison family (:func:`choose_family`) is what a report compares, tests and corrects
together: by default every compared metric of the suite at K; ``--metrics``
(``analyse(family=...)``) names another, and only those measures are compared with the baseline
and in the drift, and the correction counts only them (docs/conventions.md section 15). A run's
per-query values of any member (:func:`family_values`): a suite metric read off its scores, any
other measure off the values scored by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError
from ..core.model import Choice, Conventions
from ..scoring.catalogue import COMPARED, PRIMARY, READ, READINGS, SUITE, Measure, Metric
from ..scoring.measures import parse_measures, parse_primary
from .intervals import bootstrap_interval, percentile_band, resample_rows, shared_bootstrap_means
from .power import MIN_EFFECT, detectable, level, queries_needed
from .randomization import TIE, randomization_test
from .summary import judgment_map

if TYPE_CHECKING:
    from ..scoring.catalogue import Measure
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


def verdict_of(low: float, high: float, p_adjusted: float, alpha: float) -> str:
    """``better``/``worse`` when the band excludes 0 *and* the corrected p is below ``alpha``;
    ``band above 0``/``band below 0`` when only the band does (a percentile bootstrap band is too
    narrow on few queries); else ``unclear``."""
    if not (low > 0 or high < 0):
        return "unclear"
    if p_adjusted < alpha:
        return "better" if low > 0 else "worse"
    return "band above 0" if low > 0 else "band below 0"


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
        rows = resample_rows(ids, scored)
        return QueryPairing(ids[rows], rows.astype(np.int64), rows.astype(np.int64), (), ())

    def scored_ids(summary: RunSummary) -> dict[str, int]:
        rows = np.flatnonzero(summary.scores.scored)
        return dict(zip(summary.judged.query_ids[rows].tolist(), rows.tolist()))

    base, other = scored_ids(baseline), scored_ids(run)
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
    min_effect: float | None = None

    @property
    def band_excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    @property
    def significant(self) -> bool:
        return self.p_adjusted < self.alpha

    @property
    def verdict(self) -> str:
        """The verdict rule of :func:`verdict_of`."""
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha)

    @property
    def robust(self) -> bool | None:
        """Whether the verdict's direction and clarity hold under every reading of unjudged ids
        (docs/conventions.md section 20.2); None when the member has no readings."""
        if self.readings is None:
            return None
        return all(r.verdict == self.verdict for r in self.readings.values())

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

    @property
    def verdict(self) -> str:
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha)

    def as_dict(self) -> dict:
        return {
            "delta": _finite(self.delta),
            "low": _finite(self.low),
            "high": _finite(self.high),
            "p_adjusted": _finite(self.p_adjusted),
            "verdict": self.verdict,
        }


def _finite(value: float) -> float | None:
    return value if np.isfinite(value) else None


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
    """Every run against the baseline. ``family`` is the comparison family (its measures are tested
    and corrected together); ``named`` says ``--metrics`` chose it, ``left_out`` the measures it named
    that cannot be compared (counts, the Judged@K diagnostic)."""

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
    them (``named``), the measures it named that cannot be compared (``left_out``), and the
    primary metric (``lead``), which is always one of them."""

    measures: tuple[Measure, ...]
    lead: Metric
    named: bool = False
    left_out: tuple[Measure, ...] = ()


def _resampled_columns(summary: RunSummary, family: Sequence[Measure]) -> np.ndarray | None:
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
    base: RunSummary, run: RunSummary, pairing: QueryPairing, family: Sequence[Measure], conventions: Conventions
) -> np.ndarray | None:
    """The paired bootstrap's resampled mean differences, read off the two runs' own bootstraps
    when they resampled the very queries the pairing holds, in its order, with the same resamples
    and seed: each resample's mean difference is then the run's resampled mean minus the
    baseline's (docs/conventions.md section 22). None otherwise."""
    same_draws = all(
        s.conventions.resamples == conventions.resamples and s.conventions.seed == conventions.seed for s in (base, run)
    )
    if not (pairing.same_queries and same_draws and len(pairing.query_ids)):
        return None
    if not (
        np.array_equal(resample_rows(base.judged.query_ids, base.scores.scored), pairing.baseline_rows)
        and np.array_equal(resample_rows(run.judged.query_ids, run.scores.scored), pairing.run_rows)
    ):
        return None
    base_drawn, run_drawn = _resampled_columns(base, family), _resampled_columns(run, family)
    if base_drawn is None or run_drawn is None:
        return None
    return run_drawn - base_drawn


def paired_bands(
    base: RunSummary,
    compared: Sequence[tuple[RunSummary, QueryPairing, np.ndarray]],
    family: Sequence[Measure],
    conventions: Conventions,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The paired percentile bootstrap band of every run's mean differences with the baseline:
    ``(delta, low, high)`` per run, empty arrays for a run that shares no query.

    Each band resamples the queries both runs scored, the same queries for both runs. When those
    are the queries each run's own bands resampled, the resampled differences are read off the
    runs' resampled means (no new draw); the others are resampled together, one draw of counts per
    block for every run of one size (:func:`~ragreport.analysis.intervals.shared_bootstrap_means`).
    """
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(compared)
    by_size: dict[int, list[int]] = {}
    drawn: dict[int, np.ndarray] = {}
    for i, (run, pairing, differences) in enumerate(compared):
        if not len(differences):
            empty = np.zeros(0)
            out[i] = (empty, empty, empty)
            continue
        read = _drawn_differences(base, run, pairing, family, conventions)
        if read is not None:
            drawn[i] = read
        else:
            by_size.setdefault(len(differences), []).append(i)
    for members in by_size.values():
        together = shared_bootstrap_means([compared[i][2] for i in members], conventions.resamples, conventions.seed)
        drawn.update(zip(members, together))
    for i, means in drawn.items():
        low, high = percentile_band(means, conventions.confidence)
        out[i] = (compared[i][2].mean(axis=0), low, high)
    return [band for band in out if band is not None]


def paired_tests(differences: Sequence[np.ndarray], permutations: int, seed: int) -> list[np.ndarray]:
    """The randomization test of every run's differences (queries x family), the sign vectors drawn
    once for all the runs that share as many queries: their columns side by side, one product
    per block (:func:`randomization_test`). Empty for a run that shares no query."""
    out: list[np.ndarray] = [np.zeros(0)] * len(differences)
    by_size: dict[int, list[int]] = {}
    for i, d in enumerate(differences):
        if len(d):
            by_size.setdefault(len(d), []).append(i)
    for members in by_size.values():
        p = randomization_test(np.hstack([differences[i] for i in members]), permutations, seed)
        start = 0
        for i in members:
            width = differences[i].shape[1]
            out[i] = p[start : start + width]
            start += width
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

    ``family`` (:func:`choose_family`) names what is compared; by default every compared suite
    metric at K. Bands and the test use each run's own conventions (confidence, resamples, seed),
    which a report shares across its runs.

    The bands come from :func:`paired_bands` (read off the runs' own resamples when both scored the
    same queries) and the p-values from :func:`paired_tests` (every run in one pass).

    Each difference is also tested under the two other readings of unjudged ids
    (:data:`~ragreport.scoring.readings.READINGS`), with the same resamples and the same sign flips
    (a reading's columns beside the default ones in the randomization pass, bootstrapped with the
    same seed), each reading corrected over the whole family; and
    each gets its power (:mod:`ragreport.analysis.power`): the difference it could detect and the
    queries that would detect ``min_effect``.
    """
    if len(summaries) < 2:
        if baseline is not None and summaries and baseline != summaries[0].name:
            raise ArgumentError(Argument("baseline"), f" {baseline!r} names no run (the run is {summaries[0].name!r})")
        return None
    names = [s.name for s in summaries]
    if baseline is None:
        base = summaries[0]
    elif baseline in names:
        base = summaries[names.index(baseline)]
    else:
        raise ArgumentError(
            Argument("baseline"), f" {baseline!r} names no run; the runs are {', '.join(map(repr, names))}"
        )
    if len({s.k for s in summaries}) > 1:
        raise UsageError("runs compared in one report must share K")
    conventions: Conventions = base.conventions
    chosen = family or Family(default_family(base.k, base.suite), PRIMARY)
    measures = chosen.measures
    width = len(measures)
    paired = []
    for summary in summaries:
        if summary is base:
            continue
        pairing = pair_queries(base, summary)
        base_scores = family_values(base, pairing.baseline_rows, measures)
        run_scores = family_values(summary, pairing.run_rows, measures)
        differences = run_scores - base_scores
        # The other readings' differences as more columns: a member without readings repeats its
        # default column, so that each reading is corrected over the family the default one is.
        read, extra = reading_differences(base, summary, pairing, measures, differences)
        both = np.concatenate([differences, *extra], axis=1)
        # A reading's column equal to its default one (no unjudged id moved it) is not tested
        # twice: the same resamples and sign flips would give the same figures.
        distinct = _distinct_columns(both, width) if len(differences) else list(range(both.shape[1]))
        paired.append((summary, pairing, base_scores, run_scores, differences, read, both, distinct))
    # The default columns' bands from the shared engine (read off the runs' own resamples when they
    # scored the same queries); every tested column, the readings' too, in one randomization pass.
    bands = paired_bands(base, [(s, p, d) for s, p, _, _, d, *_ in paired], measures, conventions)
    kept = [sorted(set(item[-1])) for item in paired]
    # A reading's own columns (moved by an unjudged id) are bootstrapped with the same resamples as
    # the default ones (the same seed draws the same counts, section 22.1).
    own_bands = [
        bootstrap_interval(item[-2][:, k[width:]], conventions.resamples, conventions.seed, conventions.confidence)
        if len(item[4]) and k[width:]
        else None
        for item, k in zip(paired, kept)
    ]
    tests = paired_tests([item[-2][:, k] for item, k in zip(paired, kept)], permutations, conventions.seed)
    partial = []
    for item, band, k, p_kept, read_figures in zip(paired, bands, kept, tests, own_bands):
        summary, pairing, base_scores, run_scores, differences, read, both, distinct = item
        if not len(differences):  # nothing shared: reported as such, left out of the correction
            delta = low = high = p = np.zeros(0)
        else:
            figures = [np.empty(len(k)) for _ in range(3)]
            for f, b in zip(figures, band):
                f[:width] = b
            if read_figures is not None:
                for f, r in zip(figures, read_figures):
                    f[width:] = r
            at = np.array([k.index(c) for c in distinct], dtype=np.int64)
            delta, low, high = (f[at] for f in figures)
            p = p_kept[at]
        partial.append((summary, pairing, base_scores, run_scores, differences, delta, low, high, p, read))

    split = [
        (item[-2][:width], [item[-2][width * (r + 1) : width * (r + 2)] for r in range(len(READINGS))])
        for item in partial
    ]
    adjusted = iter(adjust(np.concatenate([s[0] for s in split]), correction))
    adjusted_readings = [
        iter(adjust(np.concatenate([s[1][r] for s in split]), correction)) for r in range(len(READINGS))
    ]
    alpha = 1.0 - conventions.confidence
    tested = sum(len(s[0]) for s in split)
    alpha_each = level(alpha, tested if correction is not Correction.NONE else 1)
    runs = []
    for summary, pairing, base_scores, run_scores, differences, delta, low, high, p, read in partial:
        comparisons = []
        for m, measure in enumerate(measures if len(p) else ()):
            column = differences[:, m]
            under = {
                name: ReadingDelta(
                    float(delta[width * (r + 1) + m]),
                    float(low[width * (r + 1) + m]),
                    float(high[width * (r + 1) + m]),
                    float(next(adjusted_readings[r])),
                    alpha,
                )
                for r, name in enumerate(READINGS)
            }
            sd = float(np.std(column, ddof=1)) if len(column) > 1 else float("nan")
            comparisons.append(
                Comparison(
                    baseline=base.name,
                    run=summary.name,
                    metric=measure.label(),
                    delta=float(delta[m]),
                    low=float(low[m]),
                    high=float(high[m]),
                    p=float(p[m]),
                    p_adjusted=float(next(adjusted)),
                    wins=int((column > TIE).sum()),
                    ties=int((np.abs(column) <= TIE).sum()),
                    losses=int((column < -TIE).sum()),
                    queries=len(column),
                    alpha=alpha,
                    readings=under if read[m] else None,
                    detectable=detectable(sd, len(column), alpha_each, permutations),
                    queries_needed=queries_needed(sd, min_effect, alpha_each, permutations),
                    min_effect=min_effect,
                )
            )
        runs.append(
            RunComparison(
                base,
                summary,
                pairing,
                base_scores,
                run_scores,
                tuple(comparisons),
                same_labels=summary.label_fingerprint == base.label_fingerprint,
                family=measures,
            )
        )
    return ComparisonReport(base.name, correction, permutations, tuple(runs), measures, chosen.named, chosen.left_out)


def _distinct_columns(columns: np.ndarray, width: int) -> list[int]:
    """For each column, the index of the column it is tested as: a reading's column (past
    ``width``) equal, value for value, to its default column (``index % width``) is that one."""
    out = list(range(width))
    for c in range(width, columns.shape[1]):
        same = np.array_equal(columns[:, c], columns[:, c % width])
        out.append(c % width if same else c)
    return out


def reading_differences(
    base: RunSummary, run: RunSummary, pairing: QueryPairing, measures: Sequence[Measure], differences: np.ndarray
) -> tuple[list[bool], list[np.ndarray]]:
    """Per family member, whether both runs hold its readings; and per reading (in
    :data:`~ragreport.scoring.readings.READINGS` order) the paired differences, a member without
    readings repeating its default column."""
    read = []
    columns: list[list[np.ndarray]] = [[] for _ in READINGS]
    for m, measure in enumerate(measures):
        cutoff = measure.cutoff
        ok = (
            measure.gain is None
            and measure.metric in READ
            and cutoff is not None
            and all(
                s.reading_of(name, measure.metric, int(cutoff)) is not None for s in (base, run) for name in READINGS
            )
        )
        read.append(ok)
        for r, name in enumerate(READINGS):
            if ok:
                b = base.reading_of(name, measure.metric, int(cutoff))[pairing.baseline_rows]  # type: ignore[arg-type,index]
                o = run.reading_of(name, measure.metric, int(cutoff))[pairing.run_rows]  # type: ignore[arg-type,index]
                columns[r].append(o - b)
            else:
                columns[r].append(differences[:, m])
    n = len(differences)
    return read, [np.stack(c, axis=1) if c else np.zeros((n, 0)) for c in columns]


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
