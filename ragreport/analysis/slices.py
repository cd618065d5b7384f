"""Slices: the report's figures over the queries that share a value of a per-query metadata key.

An average hides where a system fails. Per-query metadata (``"meta": {"topic": "billing"}`` on a
RAG JSONL line, or a ``--query-meta`` file) cuts the queries into slices: for each key
(:func:`slice_keys`) and each of its values, the queries holding it (a query without the key is in
no slice of it). For each slice:

- each run's mean of every compared measure over its scored queries in the slice, with the band
  the measure's catalogue entry names (Wilson for Hit@K, else the seeded percentile bootstrap);
- with several runs, each run's paired difference from the baseline on the primary metric over the
  queries both scored in the slice, with its paired bootstrap band and a two-sided randomization
  test; the p-values of every slice comparison of the report are corrected together (the report's
  correction), a family of their own, apart from the overall comparison's;
- a slice of fewer than :data:`SMALL_SLICE` queries is marked too small to read;
- with scores computed outside ragreport (``--scores``), each run's mean of each score over the
  slice's queries its rows score, with the band :mod:`ragreport.analysis.scores` gives it (Wilson
  for 0/1 scores, else the bootstrap over those queries in id order), kept apart from the measures.

A slice whose difference has the opposite sign to the overall one with its band clear of 0 is
said in words (:attr:`SliceReport.opposite`): the average hides it.

On the partitioned engines (the runs' figures from Poisson sums) the measures' figures, the
differences and the example queries come from the sums of the runs' buckets
(:func:`~ragreport.analysis.paired.sliced_sums`, docs/conventions.md section 29): Poisson bands and
p-values from hashed sign flips, within Monte Carlo error of the memory engine's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Argument, ArgumentError
from ..core.ids import as_bytes, as_text
from ..reading.querymeta import QueryMetaTable
from ..scoring.catalogue import IntervalMethod, Measure
from .compare import ComparisonReport, Correction, adjust, family_values, scored_rows, verdict_of
from .intervals import bootstrap_interval, wilson_interval
from .paired import paired_store, sliced_sums
from .poisson import ResampledSums
from .randomization import TIE, randomization_test
from .scores import score_band
from .summary import RunSummary

if TYPE_CHECKING:
    from .scores import ExternalScores

#: A slice of fewer queries than this is marked too small to read.
SMALL_SLICE = 30
#: How many example queries a slice names: with a comparison, its largest differences from the
#: baseline on the primary metric (over every compared run); else the first run's lowest scores.
EXAMPLES = 3
#: A key is sliced by default when its values are strings taking this many distinct values.
MIN_VALUES = 2
MAX_VALUES = 50

QueryMeta = Mapping[str, Mapping[str, object]]


@dataclass(frozen=True)
class SliceFigure:
    """A run's mean of one measure over a slice's scored queries, with its band."""

    mean: float
    low: float
    high: float
    queries: int


@dataclass(frozen=True)
class SliceComparison:
    """A run against the baseline over a slice: the mean paired difference on the primary metric."""

    run: str
    metric: str
    delta: float
    low: float
    high: float
    p: float
    p_adjusted: float
    queries: int
    alpha: float

    @property
    def verdict(self) -> str:
        return verdict_of(self.low, self.high, self.p_adjusted, self.alpha)


@dataclass(frozen=True)
class Slice:
    key: str
    value: str
    queries: int  # the report's queries holding this value (judged in any run)
    runs: Mapping[str, Mapping[str, SliceFigure]]  # run -> measure label -> figure
    comparisons: tuple[SliceComparison, ...] = ()
    examples: tuple[str, ...] = ()  # the queries to look at first (see EXAMPLES)
    #: run -> external score's name -> its mean over the slice's queries the score file scores
    scores: Mapping[str, Mapping[str, SliceFigure]] = field(default_factory=dict)

    @property
    def small(self) -> bool:
        return self.queries < SMALL_SLICE


@dataclass(frozen=True)
class Opposite:
    """A slice whose difference goes against the overall one, its band clear of 0."""

    slice: Slice
    comparison: SliceComparison
    overall: float


@dataclass(frozen=True)
class SliceReport:
    keys: tuple[str, ...]
    slices: tuple[Slice, ...]
    measures: tuple[str, ...]  # the labels of the measures each slice gives
    primary: str
    correction: Correction
    opposite: tuple[Opposite, ...] = ()
    small: int = SMALL_SLICE  # a slice of fewer queries is too small to read


def _text(value: object) -> str | None:
    """A metadata value as a slice value: text as it is, numbers and booleans as JSON writes them;
    None for what cannot name a slice (lists, objects, null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    return None


def slice_keys(meta: QueryMeta, asked: Sequence[str] = ()) -> tuple[str, ...]:
    """The keys to slice by: ``asked`` (each must be a key of some query), else every key whose
    values are all strings with :data:`MIN_VALUES` to :data:`MAX_VALUES` distinct values."""
    present: dict[str, set[object]] = {}
    strings: dict[str, bool] = {}
    found = (
        zip(meta.names, meta.distinct)
        if isinstance(meta, QueryMetaTable)
        else ((key, (value,)) for fields in meta.values() for key, value in fields.items())
    )
    for key, values in found:
        present.setdefault(key, set())
        strings[key] = strings.get(key, True) and all(isinstance(value, str) for value in values)
        present[key].update(text for text in map(_text, values) if text is not None)
    if asked:
        missing = [key for key in asked if key not in present]
        if missing:
            known = ", ".join(sorted(present)) or "none"
            raise ArgumentError(
                Argument("slice_by"), f" {missing[0]!r} is not a key of any query's metadata (the keys: {known})"
            )
        return tuple(dict.fromkeys(asked))
    return tuple(key for key in sorted(present) if strings[key] and MIN_VALUES <= len(present[key]) <= MAX_VALUES)


def judged_ids(summaries: Sequence[RunSummary]) -> np.ndarray:
    """The ids of the queries judged in any run, sorted (UTF-8 bytes): every query's also when the
    runs hold a sample's rows alone (docs/conventions.md section 29.3)."""
    store = paired_store(summaries)
    if store is not None and store.judged is not None:
        return np.unique(np.concatenate(store.judged))
    return np.unique(np.concatenate([as_bytes(s.judged.query_ids[s.judged.has_judgments]) for s in summaries]))


def slice_groups(meta: QueryMeta, keys: Sequence[str], judged: np.ndarray) -> list[tuple[str, str, list[str]]]:
    """Every slice of ``keys``: its key, its value and its queries, those of ``meta`` holding the
    value among the ``judged`` ids (sorted UTF-8 bytes, :func:`judged_ids`), sorted; by key, then
    value."""
    if isinstance(meta, QueryMetaTable):  # by column: a million queries' codes, not their mappings
        return _table_groups(meta, keys, judged)
    queries = sorted(meta)
    held = np.isin(as_bytes(np.array(queries, dtype=str)), judged) if queries else np.zeros(0, dtype=bool)
    judged_queries = [q for q, h in zip(queries, held.tolist()) if h]
    cut: list[tuple[str, str, list[str]]] = []
    for key in keys:
        groups: dict[str, list[str]] = {}
        for query in judged_queries:
            value = _text(meta[query][key]) if key in meta[query] else None
            if value is not None:
                groups.setdefault(value, []).append(query)
        cut += [(key, value, groups[value]) for value in sorted(groups)]
    return cut


def _table_groups(meta: QueryMetaTable, keys: Sequence[str], judged: np.ndarray) -> list[tuple[str, str, list[str]]]:
    """:func:`slice_groups` of metadata held by column (its ids sorted as the slices list them)."""
    held = np.isin(meta.ids, judged)
    ids = meta.ids[held]
    cut: list[tuple[str, str, list[str]]] = []
    for key in (k for k in keys if k in meta.names):
        codes, distinct = meta.column(key)
        codes = codes[held]
        of_text: dict[str, list[int]] = {}  # 1 and "1" are one slice, as their texts are
        for code, value in enumerate(distinct):
            text = _text(value)
            if text is not None:
                of_text.setdefault(text, []).append(code)
        for text in sorted(of_text):
            members = ids[np.isin(codes, of_text[text])]
            if len(members):
                cut.append((key, text, as_text(members)))
    return cut


def _figure(values: np.ndarray, measure: Measure, resamples: int, seed: int, confidence: float) -> SliceFigure:
    n = len(values)
    if n == 0:
        return SliceFigure(float("nan"), float("nan"), float("nan"), 0)
    mean, low, high = bootstrap_interval(values, resamples, seed, confidence)
    if measure.metric.interval is IntervalMethod.WILSON:
        low, high = wilson_interval(np.array([(values > 0).sum()]), np.array([n]), confidence)
    return SliceFigure(float(mean[0]), float(low[0]), float(high[0]), n)


def _summed_figure(sums: ResampledSums | None, j: int, measure: Measure, confidence: float) -> SliceFigure:
    """:func:`_figure` of column ``j`` of a slice's sums: the Poisson bootstrap's band, Wilson's of
    the column's sum (the successes of a 0/1 value)."""
    if sums is None or not sums.rows:
        return SliceFigure(float("nan"), float("nan"), float("nan"), 0)
    mean, low, high = sums.band(j, confidence=confidence)
    if measure.metric.interval is IntervalMethod.WILSON:
        bounds = wilson_interval(np.array([round(sums.totals[j])]), np.array([sums.rows]), confidence)
        low, high = float(bounds[0][0]), float(bounds[1][0])
    return SliceFigure(mean, low, high, sums.rows)


def _external(external: ExternalScores, members: Sequence[str], first: RunSummary) -> dict[str, dict[str, SliceFigure]]:
    """Each run's mean of each external score over ``members`` (sorted: the id order the bootstrap
    resamples in) its rows score, banded as the whole report's (:func:`.scores.score_band`)."""

    out: dict[str, dict[str, SliceFigure]] = {}
    for run, by_query in external.values.items():
        rows = np.array([by_query[q] for q in members if q in by_query], dtype=np.float64)
        rows = rows.reshape(len(rows), len(external.names))
        out[run] = {}
        for j, name in enumerate(external.names):
            band = score_band(rows[:, j], external.scales[name], first.conventions)
            out[run][name] = SliceFigure(band.mean, band.low, band.high, len(rows))
    return out


def slices(
    summaries: Sequence[RunSummary],
    meta: QueryMeta,
    keys: Sequence[str],
    measures: Sequence[Measure],
    primary: Measure,
    comparison: ComparisonReport | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    external: ExternalScores | None = None,
) -> SliceReport:
    """Every slice of ``keys`` (see the module's docstring): each run's ``measures`` over it, with
    a ``comparison`` each run's paired difference from the baseline on ``primary``, and with
    ``external`` each run's mean of each external score over it."""
    conventions = summaries[0].conventions
    resamples, seed, confidence = conventions.resamples, conventions.seed, conventions.confidence
    by_name = {s.name: s for s in summaries}

    def values_of(summary: RunSummary, queries: Sequence[str], family: Sequence[Measure]) -> np.ndarray:
        """``family``'s values on those of ``queries`` the run scored."""
        held = rows_of[summary.name]
        return family_values(summary, np.array([held[q] for q in queries if q in held], dtype=np.int64), family)

    cut = slice_groups(meta, keys, judged_ids(summaries))
    summed = None
    if summaries[0].sums is not None and (comparison is None or all(rc.summed is not None for rc in comparison.runs)):
        # The partitioned engines': from the sums of the runs' buckets (docs/conventions.md section 29).
        place = None if comparison is None else [s.name for s in summaries].index(comparison.baseline)
        groups_of = [members for _, _, members in cut]
        summed = sliced_sums(summaries, groups_of, measures, primary, place, permutations, EXAMPLES)
    # The gathered values' lookups, which the sums need none of (a set of every query's id).
    rows_of = {} if summed is not None else {s.name: scored_rows(s) for s in summaries}
    # Each compared run's paired queries: both scored, and judged alike (compare.pair_queries).
    paired_ids = (
        {rc.run.name: set(rc.pairing.query_ids.tolist()) for rc in comparison.runs}
        if comparison and summed is None
        else {}
    )
    found: list[Slice] = []
    tests: list[tuple[int, str, np.ndarray | ResampledSums]] = []  # (slice index, run, differences or sums)
    for at, (key, value, members) in enumerate(cut):
        scored = _external(external, members, summaries[0]) if external is not None else {}
        figures = {}
        for r, summary in enumerate(summaries):
            if summed is not None:
                sums = summed.runs[r][at]
                figures[summary.name] = {
                    m.label(): _summed_figure(sums, i, m, confidence) for i, m in enumerate(measures)
                }
                continue
            values = values_of(summary, members, measures)
            figures[summary.name] = {
                m.label(): _figure(values[:, i], m, resamples, seed, confidence) for i, m in enumerate(measures)
            }
        if comparison is None and summed is not None:
            found.append(Slice(key, value, len(members), figures, examples=summed.examples[at], scores=scored))
            continue
        if comparison is None:
            held = [q for q in members if q in rows_of[summaries[0].name]]
            worst = sorted(zip(values_of(summaries[0], held, [primary])[:, 0].tolist(), held))[:EXAMPLES]
            found.append(Slice(key, value, len(members), figures, examples=tuple(q for _, q in worst), scores=scored))
            continue
        if summed is not None:
            for r, summary in enumerate(summaries):
                one = summed.compared[r][at] if r in summed.compared else None
                if one is not None:
                    tests.append((len(found), summary.name, one))
            found.append(Slice(key, value, len(members), figures, examples=summed.examples[at], scores=scored))
            continue
        base = by_name[comparison.baseline]
        moved: dict[str, float] = {}
        for paired in comparison.runs:
            summary = by_name[paired.run.name]
            both = [q for q in members if q in paired_ids[summary.name]]
            if both:
                differences = values_of(summary, both, [primary])[:, 0] - values_of(base, both, [primary])[:, 0]
                tests.append((len(found), summary.name, differences))
                for q, d in zip(both, differences.tolist()):
                    moved[q] = max(moved.get(q, 0.0), abs(d))
        ranked = sorted(moved.items(), key=lambda item: (-item[1], item[0]))
        examples = tuple(q for q, _ in ranked[:EXAMPLES])
        found.append(Slice(key, value, len(members), figures, examples=examples, scores=scored))
    p_values = [
        d.p_value(0) if isinstance(d, ResampledSums) else float(randomization_test(d, permutations, seed)[0])
        for _, _, d in tests
    ]
    adjusted = adjust(np.array(p_values), correction) if p_values else np.zeros(0)
    made: dict[int, list[SliceComparison]] = {}
    for (at, run, differences), p, p_adj in zip(tests, p_values, adjusted):
        if isinstance(differences, ResampledSums):
            delta, low, high = differences.band(0, confidence=confidence)
            n = differences.rows
        else:
            delta, low, high = (float(a[0]) for a in bootstrap_interval(differences, resamples, seed, confidence))
            n = len(differences)
        made.setdefault(at, []).append(
            SliceComparison(run, primary.label(), delta, low, high, p, float(p_adj), n, 1.0 - confidence)
        )
    done = tuple(replace(s, comparisons=tuple(made.get(i, ()))) for i, s in enumerate(found))
    labels = tuple(m.label() for m in measures)
    return SliceReport(
        tuple(keys), done, labels, primary.label(), correction, opposites(done, comparison, primary.label())
    )


def opposites(found: Sequence[Slice], comparison: ComparisonReport | None, primary: str) -> tuple[Opposite, ...]:
    """The slices whose difference on ``primary`` has the opposite sign to the overall one, its
    band clear of 0 (:attr:`SliceReport.opposite`)."""
    overall = {c.run: c.delta for c in (comparison.comparisons if comparison else ()) if c.metric == primary}
    return tuple(
        Opposite(s, c, overall[c.run])
        for s in found
        for c in s.comparisons
        if c.run in overall
        and (c.low > TIE or c.high < -TIE)
        and np.sign(c.delta) != np.sign(overall[c.run])
        and abs(overall[c.run]) > TIE
    )
