"""The comparison's figures from sums of co-partitioned runs (issue 42; docs/conventions.md
section 29, "The comparison, partitioned").

Each partition of a run writes its scored queries' per-query values at the cutoffs asked for
(every suite metric, then the measures by name) into buckets by the top :data:`BUCKET_BITS` bits
of the query's key (:func:`~ragreport.analysis.poisson.query_keys`): a query falls in the same
bucket in every run, whatever partition held it (:func:`bucket_rows`). The driver spills the
buckets to a temporary folder (:class:`PairedRows`), so that memory holds one bucket, never every
query. The reduce joins, bucket by bucket, the baseline's rows and a run's rows of the same queries,
forms the family's differences ``d = run - baseline`` and ``d^2``, and adds their
:class:`~ragreport.analysis.poisson.ResampledSums` (weights and signs hashed from the key, exact:
the same sums however the queries are split), the counts of wins, ties and losses and the bucket's
largest wins and losses (:func:`paired_figures`). Every figure of the comparison is read off those.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.model import Conventions
from ..scoring.catalogue import READ, READINGS, Measure
from ..scoring.readings import RANK_BITS, rank_counts, rate_weights, rates_of, unjudged_ranks
from .poisson import ResampledSums, query_keys
from .randomization import TIE

if TYPE_CHECKING:
    from ..scoring.join import JudgedRun
    from ..scoring.metrics import QueryScores
    from .shown import SampleChoice
    from .summary import RunSummary

#: Queries are bucketed by the top bits of their key: 64 buckets, so that a reduce holds about
#: 1/64 of the queries (156,000 of ten million).
BUCKET_BITS = 6
BUCKETS = 1 << BUCKET_BITS
#: The largest wins and losses a comparison keeps of each member (the tables of movers).
MOVERS = 10

#: The scatter's bins a side, on [0, 1] (a sampled comparison's grid of paired queries).
GRID_BINS = 20

#: A bucket's rows: query ids, their keys, and their values (queries x columns).
Rows = tuple[np.ndarray, np.ndarray, np.ndarray]


def grid_counts(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Per column of the two (queries x members) matrices, the queries counted on a
    :data:`GRID_BINS` x GRID_BINS grid of [0, 1]^2, ``rows``' value by row and ``columns``' by
    column: numpy's ``histogram2d`` with equal bins, the last one closed, a value outside dropped."""
    edges = np.linspace(0.0, 1.0, GRID_BINS + 1)

    def bins(values: np.ndarray) -> np.ndarray:
        at = np.searchsorted(edges, values, side="right") - 1
        at[values == edges[-1]] = GRID_BINS - 1
        return at

    out = np.zeros((rows.shape[1], GRID_BINS, GRID_BINS), dtype=np.int64)
    for m in range(rows.shape[1]):
        r, c = bins(rows[:, m]), bins(columns[:, m])
        inside = (r >= 0) & (r < GRID_BINS) & (c >= 0) & (c < GRID_BINS)
        out[m] = np.bincount(r[inside] * GRID_BINS + c[inside], minlength=GRID_BINS * GRID_BINS).reshape(GRID_BINS, -1)
    return out


def buckets_of(keys: np.ndarray) -> np.ndarray:
    """Each key's bucket, its top :data:`BUCKET_BITS` bits."""
    return (keys >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)


def split_rows(ids: np.ndarray, keys: np.ndarray, values: np.ndarray) -> dict[int, Rows]:
    """The rows cut into their buckets (the buckets that hold any)."""
    bucket = buckets_of(keys)
    order = np.argsort(bucket, kind="stable")
    starts = np.searchsorted(bucket[order], np.arange(BUCKETS + 1))
    return {
        b: (ids[at], keys[at], values[at])
        for b in range(BUCKETS)
        if starts[b + 1] > starts[b]
        for at in [order[starts[b] : starts[b + 1]]]
    }


def bucket_rows(
    judged: JudgedRun,
    scores: QueryScores,
    measure_values: np.ndarray,
    own: dict[str, np.ndarray] | None = None,
    *,
    seed: int,
) -> dict[int, Rows]:
    """A partition's scored queries by bucket: their ids, keys and values, every metric at every
    cutoff of ``scores`` (column ``metric * cutoffs + cutoff``, as ``scores`` holds them), every
    measure by name (:func:`value_columns` reads a family's columns off them), then, with the
    readings a query's own list gives (``own``, :func:`~ragreport.scoring.readings.own_readings`
    at the cutoffs asked for, in their order, the report's K first), those (``unjudged_relevant``,
    then ``condensed``, each :data:`~ragreport.scoring.catalogue.READ` x cutoffs) and the query's
    unjudged ranks, packed
    (:func:`~ragreport.scoring.readings.unjudged_ranks`): the third reading is made of them with
    the whole run's rates in the reduce (:func:`reading_rows`)."""
    rows = np.flatnonzero(scores.scored)
    n_metrics, _, n_cut = scores.values.shape
    blocks = [
        scores.values[:, rows, :].transpose(1, 0, 2).reshape(len(rows), n_metrics * n_cut),
        measure_values[:, rows].T,
    ]
    if own:
        for name in READINGS[:2]:
            read, _, asked = own[name].shape
            blocks.append(own[name][:, rows, :].transpose(1, 0, 2).reshape(len(rows), read * asked))
        blocks.append(unjudged_ranks(judged, int(scores.cutoffs.max()))[rows])  # max(asked): the scores given back
    ids = judged.query_ids[rows]
    return split_rows(ids, query_keys(ids, seed), np.hstack(blocks))


def value_columns(summary: RunSummary, family: Sequence[Measure]) -> list[int] | None:
    """The columns of :func:`bucket_rows` that hold the family's members, read as
    :func:`~ragreport.analysis.compare.family_values` reads them; None when one is not there."""
    scores = summary.scores
    n_cut = len(scores.cutoffs)
    out = []
    for measure in family:
        if measure.plain and measure.metric in scores.metrics and measure.cutoff in scores.cutoffs:
            out.append(scores.metrics.index(measure.metric) * n_cut + scores.column(int(measure.cutoff)))  # type: ignore[arg-type]
        elif measure in summary.measures:
            out.append(len(scores.metrics) * n_cut + summary.measures.index(measure))
        else:
            return None
    return out


def read_members(summaries: Sequence[RunSummary], family: Sequence[Measure]) -> list[bool]:
    """Per family member, whether every run of ``summaries`` holds its readings of unjudged ids: a
    plain measure (no gain, no parameter: the readings are scored with the run's) of a
    :data:`~ragreport.scoring.catalogue.READ` metric at a cutoff asked for."""
    return [
        m.plain
        and m.metric in READ
        and m.cutoff is not None
        and all(s.reading_of(name, m.metric, int(m.cutoff)) is not None for s in summaries for name in READINGS)
        for m in family
    ]


def reading_columns(summary: RunSummary, family: Sequence[Measure], read: Sequence[bool]) -> list[int]:
    """The columns of :func:`bucket_rows` that :func:`reading_rows` reads besides the family's: the
    ``unjudged_relevant`` and ``condensed`` values of each member with readings (``read``), then the
    packed unjudged ranks."""
    scores = summary.scores
    start = len(scores.metrics) * len(scores.cutoffs) + len(summary.measures)
    asked = summary.cutoffs  # the readings' cutoffs, in their order (the report's K first)
    width = len(READ) * len(asked)
    at = [READ.index(m.metric) * len(asked) + asked.index(int(m.cutoff)) for m, r in zip(family, read) if r]  # type: ignore[arg-type]
    words = -(-max(asked) // RANK_BITS)
    return (
        [start + a for a in at]
        + [start + width + a for a in at]
        + list(range(start + 2 * width, start + 2 * width + words))
    )


def reading_rows(values: np.ndarray, read: Sequence[bool], cutoffs: Sequence[int], rates: np.ndarray) -> np.ndarray:
    """The family's values under each other reading, :data:`~ragreport.scoring.catalogue.READINGS`
    side by side (rows x 3 members), from a bucket's columns: the family's (``values[:, :m]``), then
    :func:`reading_columns`' ones. ``unjudged_at_rate`` is ``default + w (unjudged_relevant -
    default)``, ``w`` the query's mean rate over its unjudged top-K ranks with the run's ``rates``
    (:func:`~ragreport.scoring.readings.at_rate`); a member without readings repeats its default."""
    m = len(read)
    at = np.flatnonzero(np.asarray(read, dtype=bool))
    default = values[:, :m]
    out = {name: default.copy() for name in READINGS}
    if len(at):
        r = len(at)
        bound, condensed = values[:, m : m + r], values[:, m + r : m + 2 * r]
        weights = rate_weights(values[:, m + 2 * r :], rates, [int(cutoffs[j]) for j in at.tolist()])
        out["unjudged_relevant"][:, at] = bound
        out["condensed"][:, at] = condensed
        out["unjudged_at_rate"][:, at] = default[:, at] + weights * (bound - default[:, at])
    return np.hstack([out[name] for name in READINGS])


class PairedRows:
    """Every run's bucketed rows, spilled to a temporary folder: one file per run and bucket, each
    partition's rows appended to it (three ``.npy`` arrays: ids, keys, values). Memory holds one
    partition's rows while they are written and one bucket's while it is read. The folder is made
    with the first rows (a build that fails before leaves none) and goes when the object is
    collected, at exit (also after an error, Ctrl-C or SIGTERM)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self._finalizer: weakref.finalize | None = None
        #: Each run's judged and relevant ids at each rank (:func:`~ragreport.scoring.readings.rank_counts`),
        #: summed over its partitions: the rates its ``unjudged_at_rate`` reading reads.
        self.ranks: dict[int, np.ndarray] = {}
        #: Every pair's figures as :func:`paired_figures` summed them, by :func:`pair_key`: what a
        #: sampled report.json stores, and what ``render`` of one reads back (section 29.2).
        self.figures: dict[tuple, PairedFigures] = {}
        #: Figures read from a sampled report.json: no rows are spilled, a pair is read or refused.
        self.stored = False
        #: The sample whose rows alone the runs hold, chosen from these buckets before any row was
        #: gathered (:func:`~ragreport.analysis.shown.choose_sample`); None: they hold every query's.
        self.choice: SampleChoice | None = None
        #: With :attr:`choice`: per pair of runs (by their places), the queries the first scored and
        #: the second did not, sorted (what the pairing lists, section 10).
        self.apart: dict[tuple[int, int], tuple[str, ...]] = {}
        #: With :attr:`choice`: every query's id, and each run's judged ones (sorted UTF-8 bytes):
        #: what the queries' metadata, the slices and outside scores are matched against.
        self.every: np.ndarray | None = None
        self.judged: list[np.ndarray] | None = None

    @property
    def sampled(self) -> bool:
        """Whether the runs' rows are a sample of their queries: a sampled report.json read back,
        or a build that kept its sample's rows alone."""
        return self.stored or self.choice is not None

    @classmethod
    def of_figures(cls, figures: dict[tuple, PairedFigures]) -> PairedRows:
        """A store of figures alone (a sampled report.json's, read back by ``render``)."""
        store = cls()
        store.figures, store.stored = figures, True
        return store

    def _file(self, run: int, bucket: int) -> Path:
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix="ragreport-pairs-"))
            self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, ignore_errors=True)
        return self.path / f"{run}-{bucket}.npy"

    def add(self, run: int, pieces: dict[int, Rows]) -> None:
        """Append a partition's ``pieces`` (:func:`bucket_rows`) to run ``run``'s buckets."""
        for bucket, arrays in pieces.items():
            with self._file(run, bucket).open("ab") as handle:
                for array in arrays:
                    np.save(handle, array, allow_pickle=False)

    def rows(self, run: int, bucket: int, columns: Sequence[int]) -> Rows | None:
        """Run ``run``'s rows in ``bucket``, its ``columns`` alone; None when the bucket is empty."""
        if self.path is None:
            return None
        path = self._file(run, bucket)
        if not path.exists():
            return None
        parts: list[list[np.ndarray]] = [[], [], []]
        size = os.path.getsize(path)
        with path.open("rb") as handle:
            while handle.tell() < size:
                for i, part in enumerate(parts):
                    array = np.load(handle, allow_pickle=False)
                    part.append(array[:, columns] if i == 2 else array)
        ids, keys, values = (np.concatenate(p) for p in parts)
        return ids, keys, values


def paired_store(summaries: Sequence[RunSummary]) -> PairedRows | None:
    """The store of the runs' spilled buckets (every run of one evaluation shares the first's);
    None for runs summarised in memory."""
    return summaries[0].paired[0] if summaries and summaries[0].paired is not None else None


def summed_alike(summaries: Sequence[RunSummary]) -> bool:
    """Whether the runs are compared from their buckets' sums: a partitioned engine's runs of one
    label set and one seed (the buckets are cut by keys the seed makes: runs summarised with other
    seeds, two evaluate calls, would meet in no bucket, and are compared as gathered)."""
    first = summaries[0]
    alike = (first.conventions.seed, first.label_fingerprint)
    return first.sums is not None and all((s.conventions.seed, s.label_fingerprint) == alike for s in summaries)


@dataclass(frozen=True)
class PairedFigures:
    """A run against the baseline on every family member (one entry per member), from the sums of
    their paired queries' differences: the mean difference and its band, the randomization
    p-value, d_z and its band, the differences' sd (ddof 1), wins, ties and losses, and per member
    the largest wins (``gains``) and losses: (query id, baseline's value, run's value), at most
    :data:`MOVERS`, the largest first, ties by query id."""

    queries: int
    delta: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p: np.ndarray
    effect: np.ndarray
    effect_low: np.ndarray
    effect_high: np.ndarray
    sd: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    gains: tuple[tuple[tuple[str, float, float], ...], ...]
    drops: tuple[tuple[tuple[str, float, float], ...], ...]
    #: Under each other reading of unjudged ids (:data:`~ragreport.scoring.catalogue.READINGS`
    #: side by side, a member without readings repeating its default column): the difference, its
    #: band and the p-value, 4 x (3 members); None when no member has readings.
    readings: np.ndarray | None = None
    #: Per column of ``readings``: whether each paired query's difference under that reading equals
    #: its default one (no unjudged id moved it), so that it is tested as the default one.
    same: np.ndarray | None = None
    #: The paired queries counted on the scatter's grid (family x bins x bins, as
    #: :meth:`~ragreport.analysis.compare.RunComparison.grids`); None when read back from a report.
    grids: np.ndarray | None = None


class PairNotStored(LookupError):
    """A sampled report.json holds no figures of a pair its analysis compares (a hand-edited one)."""


def pair_key(base: RunSummary, run: RunSummary, family: Sequence[Measure], readings: bool) -> tuple:
    """What :attr:`PairedRows.figures` files a pair's figures by: the two runs' names, the family's
    labels and whether the readings were summed."""
    return (base.name, run.name, tuple(m.label() for m in family), readings)


def _source(summary: RunSummary, columns: Sequence[int]) -> Callable[[int], Rows | None]:
    """A run's rows of a bucket, ``columns`` alone (:func:`value_columns`,
    :func:`reading_columns`): its spilled ones, else, for a stored report's runs (``ragreport
    render``), its per-query values cut into buckets alike."""
    if summary.paired is not None:
        store, index = summary.paired
        return lambda bucket: store.rows(index, bucket, columns)
    own = {name: summary.readings[name] for name in READINGS[:2]} if summary.readings else None
    buckets = bucket_rows(summary.judged, summary.scores, summary.measure_values, own, seed=summary.conventions.seed)
    return lambda bucket: None if bucket not in buckets else (*buckets[bucket][:2], buckets[bucket][2][:, columns])


def _family_columns(summary: RunSummary, family: Sequence[Measure]) -> list[int]:
    columns = value_columns(summary, family)
    if columns is None:
        raise ValueError(f"{summary.name} holds no per-query value of every member of the family")
    return columns


def run_rates(summary: RunSummary) -> np.ndarray:
    """The rates of ``summary``'s ``unjudged_at_rate`` reading at ranks 1 to its deepest cutoff:
    summed over its partitions, else (a stored report's run) counted on its lists."""
    if summary.paired is not None and summary.paired[1] in summary.paired[0].ranks:
        return rates_of(summary.paired[0].ranks[summary.paired[1]])
    return rates_of(rank_counts(summary.judged, max(summary.cutoffs)))


def reading_means(summary: RunSummary) -> dict[str, dict[str, float]]:
    """Each other reading's mean of every :data:`~ragreport.scoring.catalogue.READ` metric at every
    cutoff asked for (``RunSummary.reading_at``), from the exact sums of the run's buckets
    (docs/conventions.md section 29); ``{}`` for a run without readings."""
    if not summary.readings:
        return {}
    family = [Measure(m.key, c) for c in summary.cutoffs for m in READ]
    read = [True] * len(family)
    source = _source(summary, _family_columns(summary, family) + reading_columns(summary, family, read))
    rates = run_rates(summary)
    total: ResampledSums | None = None
    for bucket in range(BUCKETS):
        rows = source(bucket)
        if rows is not None:
            values = reading_rows(rows[2], read, [int(m.cutoff) for m in family], rates)  # type: ignore[arg-type]
            total = _added(total, ResampledSums.of(rows[1], values, 0))
    means = np.full(len(READINGS) * len(family), np.nan) if total is None else total.means()
    labels = [m.label() for m in family]
    return {
        name: dict(zip(labels, means[i * len(family) : (i + 1) * len(family)].tolist()))
        for i, name in enumerate(READINGS)
    }


def _ends(ids, base, run, d, sign: int) -> list[tuple[str, float, float, float]]:
    """The rows moved most in direction ``sign`` (beyond :data:`TIE`), largest first, ties by id."""
    at = np.flatnonzero(sign * d > TIE)
    at = at[np.lexsort((ids[at], -sign * d[at]))][:MOVERS]
    return [(str(ids[i]), float(base[i]), float(run[i]), float(d[i])) for i in at]


def _added(total: ResampledSums | None, more: ResampledSums) -> ResampledSums:
    return more if total is None else total + more


def paired_figures(
    base: RunSummary,
    run: RunSummary,
    family: Sequence[Measure],
    conventions: Conventions,
    permutations: int,
    readings: bool = True,
) -> PairedFigures:
    """The comparison of ``run`` with ``base`` on ``family``, bucket by bucket: the queries both
    scored joined by id, their differences' sums (:class:`ResampledSums` of ``d``, ``d^2`` and ``d``
    under each other reading, with the resamples and the signs) added over the buckets, and the figures read off them
    (docs/conventions.md section 29); with ``readings``, the same under each other reading of
    unjudged ids (the ranking's pairs read none). The rows come from the runs' spilled buckets
    (``RunSummary.paired``), else from their per-query values."""
    store = paired_store([base])
    key = pair_key(base, run, family, readings)
    if store is not None and key in store.figures:
        return store.figures[key]
    if store is not None and store.stored:
        raise PairNotStored(f"none of {run.name!r} against {base.name!r} on {', '.join(key[2])}")
    found = _summed_pair(base, run, family, conventions, permutations, readings)
    if store is not None:
        store.figures[key] = found
    return found


def _summed_pair(
    base: RunSummary,
    run: RunSummary,
    family: Sequence[Measure],
    conventions: Conventions,
    permutations: int,
    readings: bool,
) -> PairedFigures:
    m = len(family)
    read = read_members((base, run), family) if readings else [False] * len(family)
    both = [
        (s, _family_columns(s, family) + (reading_columns(s, family, read) if any(read) else [])) for s in (base, run)
    ]
    sources = [_source(summary, columns) for summary, columns in both]
    rates = [run_rates(summary) for summary in (base, run)] if any(read) else []
    cutoffs = [0 if f.cutoff is None else int(f.cutoff) for f in family]
    # Added as the buckets come (exact sums: any order gives the same bits), so memory holds one
    # bucket's sums and the running totals, never every bucket's.
    total: ResampledSums | None = None
    wins, ties, losses = (np.zeros(m, dtype=np.int64) for _ in range(3))
    ends: list[list[list]] = [[[] for _ in range(m)] for _ in range(2)]
    same = np.ones(len(READINGS) * m, dtype=bool)
    grids = np.zeros((m, GRID_BINS, GRID_BINS), dtype=np.int64)
    for bucket in range(BUCKETS):
        base_rows, run_rows = (source(bucket) for source in sources)
        if base_rows is None or run_rows is None:
            continue
        (base_ids, base_keys, base_values), (run_ids, _, run_values) = base_rows, run_rows
        _, at_base, at_run = np.intersect1d(base_ids, run_ids, assume_unique=True, return_indices=True)
        if not len(at_base):
            continue
        ids, keys = base_ids[at_base], base_keys[at_base]
        b, r = base_values[at_base, :m], run_values[at_run, :m]
        d = r - b
        # d, d^2 and d under each other reading side by side: each query's weights and signs
        # hashed once for all of them
        columns = [d, d * d]
        if rates:
            under = reading_rows(run_values[at_run], read, cutoffs, rates[1])
            under -= reading_rows(base_values[at_base], read, cutoffs, rates[0])
            for i in range(len(READINGS)):  # which readings' differences are the default ones, so far
                same[i * m : (i + 1) * m] &= (under[:, i * m : (i + 1) * m] == d).all(axis=0)
            columns.append(under)
        total = _added(total, ResampledSums.of(keys, np.hstack(columns), conventions.resamples, permutations))
        grids += grid_counts(r, b)
        wins += (d > TIE).sum(axis=0)
        ties += (np.abs(d) <= TIE).sum(axis=0)
        losses += (d < -TIE).sum(axis=0)
        for side, sign in enumerate((1, -1)):
            for j in range(m):
                ends[side][j] += _ends(ids, b[:, j], r[:, j], d[:, j], sign)
    movers = [
        tuple(
            tuple(row[:3] for row in sorted(found, key=lambda row: (-sign * row[3], row[0]))[:MOVERS])
            for found in ends[side]
        )
        for side, sign in enumerate((1, -1))
    ]
    empty = np.zeros(0)
    if total is None:
        return PairedFigures(0, *(empty,) * 11, (), ())
    confidence = conventions.confidence
    delta, low, high = np.array([total.band(j, confidence=confidence) for j in range(m)]).T
    effect, effect_low, effect_high = np.array([total.effect(j, m + j, confidence) for j in range(m)]).T
    n = total.rows
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (total.totals[m : 2 * m] / n - delta * delta) * n / (n - 1) if n > 1 else np.full(m, np.nan)
    under_readings = None
    if any(read):
        under_readings = np.array(
            [[*total.band(j, confidence=confidence), total.p_value(j)] for j in range(2 * m, 5 * m)]
        ).T
    return PairedFigures(
        n,
        delta,
        low,
        high,
        np.array([total.p_value(j) for j in range(m)]),
        effect,
        effect_low,
        effect_high,
        np.sqrt(np.maximum(variance, 0.0)),
        wins,
        ties,
        losses,
        movers[0],
        movers[1],
        under_readings,
        same if any(read) else None,
        grids,
    )


def _positions(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The rows of ``ids`` that hold ``wanted`` (each of them there), in ``wanted``'s order."""
    order = np.argsort(ids, kind="stable")
    return order[np.searchsorted(ids[order], wanted)]


def common_means(summaries: Sequence[RunSummary], measure: Measure) -> tuple[np.ndarray | None, int]:
    """Each run's resampled means of ``measure`` (resamples x runs) over the queries every run of
    ``summaries`` scored, and how many those are (None and 0 when there are none): bucket by bucket,
    the runs' rows joined by id and their :class:`ResampledSums` added, so that every run's mean in
    a resample weighs the same queries alike (the ranking's rank intervals, docs/conventions.md
    section 27). Over a run's own queries they are its bootstrap's resampled means, to the bit."""
    sources = [_source(summary, _family_columns(summary, [measure])) for summary in summaries]
    total: ResampledSums | None = None
    for bucket in range(BUCKETS):
        rows = [source(bucket) for source in sources]
        if any(r is None for r in rows):
            continue
        common = rows[0][0]  # type: ignore[index]
        for ids, _, _ in rows[1:]:  # type: ignore[misc]
            common = np.intersect1d(common, ids, assume_unique=True)
        if not len(common):
            continue
        at = [_positions(ids, common) for ids, _, _ in rows]  # type: ignore[misc]
        values = np.stack([r[2][a, 0] for r, a in zip(rows, at)], axis=1)  # type: ignore[index]
        # a query's key is the same in every run: the first's
        total = _added(total, ResampledSums.of(rows[0][1][at[0]], values, summaries[0].conventions.resamples))  # type: ignore[index]
    if total is None:
        return None, 0
    return total.resampled_means(), total.rows


@dataclass(frozen=True)
class SlicedSums:
    """The sums of each slice (docs/conventions.md section 29): per run and slice, the measures'
    values of its scored queries in the slice (``runs[r][s]``, None when it has none); per compared
    run and slice, the differences on the primary metric of the queries both scored
    (``compared[r][s]``, with the sign flips); and each slice's example queries, the largest
    differences of any compared run (without one, the first run's lowest values), ties by id."""

    runs: list[list[ResampledSums | None]]
    compared: dict[int, list[ResampledSums | None]]
    examples: list[tuple[str, ...]]


def sliced_sums(
    summaries: Sequence[RunSummary],
    groups: Sequence[Sequence[str]],
    measures: Sequence[Measure],
    primary: Measure,
    base: int | None,
    permutations: int,
    examples: int,
) -> SlicedSums:
    """Every slice's sums (``groups``: each slice's query ids), bucket by bucket: each run's rows of
    ``measures`` and ``primary`` (:func:`paired_figures`' sources), cut by slice; with a baseline
    (``base``, its place among ``summaries``), each other run's differences from it on ``primary``
    over the queries both scored, cut alike."""
    sources = [_source(summary, _family_columns(summary, [*measures, primary])) for summary in summaries]
    return _sliced(sources, groups, len(measures), base, summaries[0].conventions.resamples, permutations, examples)


def slice_examples(
    store: PairedRows, runs: int, groups: Sequence[Sequence[str]], column: int, base: int | None, examples: int
) -> list[tuple[str, ...]]:
    """Each slice's example queries as :func:`sliced_sums` finds them, off the ``runs`` runs'
    spilled buckets in ``store`` (``column``: the primary metric's), no sum made: what a build
    keeping its sample's rows alone lists (docs/conventions.md section 29.3)."""
    sources = [functools.partial(store.rows, r, columns=[column]) for r in range(runs)]
    return _sliced(sources, groups, 0, base, 0, 0, examples).examples


def _sliced(
    sources: Sequence[Callable[[int], Rows | None]],
    groups: Sequence[Sequence[str]],
    m: int,
    base: int | None,
    resamples: int,
    permutations: int,
    examples: int,
) -> SlicedSums:
    """:func:`sliced_sums` of the runs' bucket ``sources`` (``m`` measures' columns, then the
    primary metric's); with no ``resamples``, the examples alone."""
    # Each slice's members sorted, for a vectorised lookup of a bucket's ids (a dict of every
    # query would cost a Python step and about 110 bytes a query).
    members = [np.unique(np.asarray(list(group), dtype=str)) for group in groups]

    def inside(ids: np.ndarray) -> np.ndarray:
        """Each row's slices (rows x slices)."""
        out = np.zeros((len(ids), len(groups)), dtype=bool)
        for s, sorted_ids in enumerate(members):
            if len(sorted_ids):
                at = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
                out[:, s] = sorted_ids[at] == ids
        return out

    runs: list[list[ResampledSums | None]] = [[None] * len(groups) for _ in sources]
    others = [] if base is None else [r for r in range(len(sources)) if r != base]
    compared: dict[int, list[ResampledSums | None]] = {r: [None] * len(groups) for r in others}
    moved: list[list[tuple[float, str]]] = [[] for _ in groups]  # (ordered by, query id)
    for bucket in range(BUCKETS):
        rows = [source(bucket) for source in sources]
        for r, got in enumerate(rows):
            if got is None or not resamples:
                continue
            ids, keys, values = got
            mask = inside(ids)
            for s in np.flatnonzero(mask.any(axis=0)).tolist():
                at = mask[:, s]
                runs[r][s] = _added(runs[r][s], ResampledSums.of(keys[at], values[at, :m], resamples))
        if base is None:  # no comparison: the first run's lowest values
            if rows[0] is not None:
                ids, _, values = rows[0]
                mask = inside(ids)
                for s in np.flatnonzero(mask.any(axis=0)).tolist():
                    at = np.flatnonzero(mask[:, s])
                    moved[s] += sorted(zip(values[at, m].tolist(), ids[at].tolist()))[:examples]
            continue
        if rows[base] is None:
            continue
        base_ids, base_keys, base_values = rows[base]  # type: ignore[misc]
        largest: list[dict[str, float]] = [{} for _ in groups]
        for r in others:
            if rows[r] is None:
                continue
            run_ids, _, run_values = rows[r]  # type: ignore[misc]
            _, at_base, at_run = np.intersect1d(base_ids, run_ids, assume_unique=True, return_indices=True)
            ids, keys = base_ids[at_base], base_keys[at_base]
            d = run_values[at_run, m] - base_values[at_base, m]
            mask = inside(ids)
            for s in np.flatnonzero(mask.any(axis=0)).tolist():
                at = mask[:, s]
                if resamples:
                    more = ResampledSums.of(keys[at], d[at, None], resamples, permutations)
                    compared[r][s] = _added(compared[r][s], more)
                for q, size in zip(ids[at].tolist(), np.abs(d[at]).tolist()):
                    largest[s][q] = max(largest[s].get(q, 0.0), size)
        for s, found in enumerate(largest):
            moved[s] += sorted((-size, q) for q, size in found.items())[:examples]
    return SlicedSums(runs, compared, [tuple(q for _, q in sorted(found)[:examples]) for found in moved])
