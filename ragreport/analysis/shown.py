"""Which queries the pages list past :data:`PAGE_QUERIES` (docs/conventions.md section 29.1).

A page that lists a million queries weighs over 100 MB and no browser opens it comfortably; every
figure still reads all the queries: only the per-query listings (each run's table, the query view)
hold the sample chosen here, the same queries for every run, and, for a partitioned build, report.json
(docs/conventions.md section 29.2).

- Past ``PAGE_QUERIES`` distinct queries in the report (none shown apart up to it), the sample
  holds :data:`SHOWN_QUERIES` queries (all of them when there are fewer).
- The extremes: with a comparison, each compared run's ``e`` largest wins and ``e`` largest
  losses against the baseline on the primary metric at K (difference beyond 1e-12, as the movers
  of the comparison), ``e = max(1, EXTREME_QUERIES // compared runs)``; without one, the run's
  ``e`` highest and ``e`` lowest scored values. Ties go by query id, as the movers' do, so the
  movers the comparison lists are among them.
- The queries the report points to elsewhere: the comparison's movers on the primary metric (past
  ``e`` a side), the slices' examples and the queries shown with their text (a link from them
  finds its query), and the audited queries (``--audit``: the corrected figures read their rows).
- The rest, up to ``SHOWN_QUERIES``, drawn uniformly: the queries (not already chosen) whose
  sample key ``mix64(key XOR r_0)`` is smallest, ``key`` the id's :func:`~.poisson.query_keys`
  under the conventions' seed and ``r_0`` the first value of the stream :data:`SHOWN_STREAM`
  (independent of the bootstrap's weights and signs); ties by id. It depends on the ids and the
  seed only: not on the file order, the partitions or the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.ids import as_bytes, as_text
from ..scoring.catalogue import SUITE
from .paired import BUCKETS, MOVERS, PairedRows, paired_store, slice_examples
from .poisson import mix64, query_keys, stream

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..scoring.measures import Measure
    from .pipeline import Analysis
    from .summary import RunSummary

#: Up to this many queries in a report, the pages list every one: at 100,000 queries a run page
#: is about 12 MB and queries.html about 7 MB, which a browser opens in a few seconds (issue 24);
#: at 1,000,000 they were 120-128 MB and 74 MB.
PAGE_QUERIES = 100_000
#: How many queries a sampled page lists: 10,000 rows are 200 pages of the table, about 1.3 MB.
SHOWN_QUERIES = 10_000
#: The wins (or highest values) the sample holds, shared among the compared runs; as many losses.
EXTREME_QUERIES = 500
#: The sample's stream constant ("shown!!\n" as ASCII).
SHOWN_STREAM = 0x73686F776E21210A
#: A difference this small is no win and no loss (the movers' rule).
_MOVED = 1e-12


@dataclass(frozen=True)
class Shown:
    """The queries the pages list: ``ids`` (sorted), out of ``total``; ``each`` extremes a side
    per run (``compared`` runs: 0 without a comparison), ``wins`` and ``losses`` the distinct
    queries so chosen (the highest and lowest values without a comparison), ``cited`` the other
    queries the report points to (slice examples, queries shown with their text, audited queries),
    ``drawn`` the rest."""

    ids: np.ndarray
    total: int
    each: int
    wins: int
    losses: int
    drawn: int
    compared: int
    cited: int
    baseline: str | None
    metric: str
    #: Whether report.json keeps every query (the memory engine) or this sample alone (the
    #: partitioned engines, whose figures come from sums it stores: section 29.2).
    stored_all: bool = True
    #: The runs' rows are these queries' alone: read back from such a report.json (``render``),
    #: or kept alone by the build that chose them (:class:`SampleChoice`).
    rows_only: bool = False
    #: Whether the queries the report points to hold an audit's audited queries (``--audit``).
    audited: bool = False

    def mask(self, query_ids: np.ndarray) -> np.ndarray:
        """Which of ``query_ids`` (text or UTF-8 bytes) are shown."""
        return np.isin(np.asarray(as_text(query_ids), dtype=str), self.ids)


def sample_keys(query_ids: np.ndarray, seed: int) -> np.ndarray:
    """Each id's sample key (uint64): ``mix64(query_keys(ids, seed) XOR r_0)`` of :data:`SHOWN_STREAM`."""
    keys = query_keys(query_ids, seed)
    keys ^= stream(SHOWN_STREAM, 0, 1)[0]
    return mix64(keys)


def _smallest(ids: np.ndarray, keys: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` ids of the smallest ``keys``, ties by id: the keys up to the nth smallest alone sorted."""
    if n <= 0:
        return ids[:0]
    if n < len(keys):
        at = np.flatnonzero(keys <= np.partition(keys, n - 1)[n - 1])
        ids, keys = ids[at], keys[at]
    return ids[np.lexsort((ids, keys))[:n]]


def _end_rows(ids: np.ndarray, values: np.ndarray, each: int, moved: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the ``each`` highest and of the ``each`` lowest ``values`` (ties by id); with
    ``moved`` only values above it, and below minus it."""
    high = np.lexsort((ids, -values))
    low = np.lexsort((ids, values))
    if moved is not None:
        high, low = high[values[high] > moved], low[values[low] < -moved]
    return high[:each], low[:each]


def _ends(ids: np.ndarray, values: np.ndarray, each: int, moved: float | None) -> tuple[list[str], list[str]]:
    """The ids of :func:`_end_rows`."""
    high, low = _end_rows(ids, values, each, moved)
    return ids[high].tolist(), ids[low].tolist()


def shown_queries(analysis: Analysis) -> Shown | None:
    """The sample the pages list (the module's rules), None up to :data:`PAGE_QUERIES` queries:
    what :func:`~ragreport.analysis.pipeline.analyse_runs` keeps as ``Analysis.sample``."""
    summaries = analysis.summaries
    choice = sample_choice(summaries)
    if choice is not None:
        return _chosen(analysis, choice)
    every = np.unique(np.concatenate([np.asarray(as_text(s.judged.query_ids), dtype=str) for s in summaries]))
    if len(every) <= PAGE_QUERIES:
        return None
    label = analysis.primary_label
    sides: list[tuple[list[str], list[str]]] = []
    movers: set[str] = set()  # the comparison tables' movers, which link to the query view
    comparison = analysis.comparison
    if comparison is not None:
        compared = [rc for rc in comparison.runs if label in rc.labels and len(rc.pairing.query_ids)]
        each = max(1, EXTREME_QUERIES // max(1, len(compared)))
        for rc in compared:
            m = rc.labels.index(label)
            ids = np.asarray(as_text(rc.pairing.query_ids), dtype=str)
            moved = rc.run_scores[:, m] - rc.baseline_scores[:, m]
            sides.append(_ends(ids, moved, each, _MOVED))
            movers.update(q for side in _ends(ids, moved, MOVERS, _MOVED) for q in side)
    else:
        compared, each = [], EXTREME_QUERIES
        for s in summaries:
            scored = s.scores.scored
            ids = np.asarray(as_text(s.judged.query_ids[scored]), dtype=str)
            sides.append(_ends(ids, s.scores.of(analysis.primary, s.k)[scored], each, None))
    wins = {q for high, _ in sides for q in high}
    losses = {q for _, low in sides for q in low} - wins
    slices = analysis.slices.slices if analysis.slices is not None else ()
    audited = set(analysis.audit.labels) if analysis.audit is not None else set()
    pointed = np.array(
        sorted({q for s in slices for q in s.examples} | set(analysis.text_queries) | movers | audited), dtype=str
    )
    cited = set(pointed[np.isin(pointed, every)].tolist()) - wins - losses
    chosen = np.array(sorted(wins | losses | cited), dtype=str)
    rest = every[~np.isin(every, chosen)]
    room = max(0, SHOWN_QUERIES - len(chosen))
    drawn = _smallest(rest, sample_keys(rest, summaries[0].conventions.seed), room)
    return Shown(
        ids=np.sort(np.concatenate([chosen, drawn])),
        total=len(every),
        each=each,
        wins=len(wins),
        losses=len(losses),
        drawn=len(drawn),
        compared=len(compared),
        cited=len(cited),
        baseline=comparison.baseline if comparison is not None else None,
        metric=label,
        stored_all=summaries[0].sums is None,
        audited=bool(audited),
    )


@dataclass(frozen=True)
class SampleChoice:
    """The sample a partitioned build chose before it gathered any row, so as to read back its
    rows alone (docs/conventions.md section 29.3), by this module's rules: per run compared with
    ``baseline`` (the runs but it, in their order) its largest wins and its largest losses on
    ``metric`` (``sides``: as many as the extremes or the comparison's movers take; with one run,
    its highest and lowest values), ``compared`` of them sharing a query with it, then the draw,
    out of ``total`` queries. The queries shown with their text are chosen among the sample's."""

    ids: np.ndarray
    total: int
    sides: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    metric: str
    texts: int = 0  # the queries the texts go to that the sample holds (the most moved, or the lowest)
    baseline: str | None = None  # None: one run
    compared: int = 0
    #: The slices' example queries it holds (None: chosen with no metadata to slice by).
    examples: tuple[str, ...] | None = None
    #: The audit's audited queries (all of them, sorted; None: chosen with no audit).
    audited: tuple[str, ...] | None = None


def _text_rows(ids: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
    """The rows of the ``n`` queries shown first with their text, the largest ``scores`` first, ties
    by id: :func:`~.texts.shown_texts`' score, each query's largest difference either way over the
    compared runs, with one run ``1 - value`` (its lowest values first)."""
    return np.lexsort((ids, -scores))[:n]


def _largest(found: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Each query's largest value over the (ids, values) ``found``, its ids sorted."""
    ids = np.concatenate([i for i, _ in found]).astype(str)
    sizes = np.concatenate([v for _, v in found])
    unique, at = np.unique(ids, return_inverse=True)
    largest = np.zeros(len(unique))
    np.maximum.at(largest, at, sizes)
    return unique, largest


def choose_sample(
    store: PairedRows,
    names: Sequence[str],
    every: np.ndarray,
    measure: Measure,
    asked: tuple[int, ...],
    seed: int,
    texts: int = 0,
    baseline: int = 0,
    slices: Sequence[Sequence[str]] | None = None,
    examples: int = 0,
    audited: Sequence[str] | None = None,
) -> SampleChoice:
    """The sample of a build whose rows are kept for it alone, the runs ``names`` in ``store``'s
    order compared with the run at ``baseline``: the extremes on ``measure`` (a suite metric at a
    cutoff of ``asked``) read bucket by bucket off ``store`` (each bucket's ``EXTREME_QUERIES`` a
    side a run, then the whole's), the draw from ``every`` id (sorted, as UTF-8 bytes: their order
    is the text's, and so are their keys); with ``texts``, the queries the pages show with their
    text, chosen as among every query (the ``texts`` largest differences either way over the
    compared runs, with one run its lowest values: :func:`~.texts.shown_texts`); with ``slices``
    (each slice's queries), each slice's ``examples`` example queries
    (:func:`~.paired.slice_examples`), which the texts go to first; with ``audited`` (an audit's
    queries), those of them among ``every``."""
    column = SUITE.index(measure.metric) * len(asked) + list(asked).index(int(measure.cutoff))  # type: ignore[arg-type]
    others = [r for r in range(len(names)) if r != baseline]
    compares = bool(others)
    moved = _MOVED if compares else None
    # the extremes, and with a comparison its movers (a side each), whichever are more
    most = max(EXTREME_QUERIES, MOVERS if compares else 0)
    found: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in others or [baseline]]
    paired = [0] * len(found)
    text_found: list[tuple[np.ndarray, np.ndarray]] = []
    for bucket in range(BUCKETS):
        base = store.rows(baseline, bucket, [column])
        if base is None:
            continue
        ids, _, values = base
        if not compares:
            ends = np.unique(
                np.concatenate([*_end_rows(ids, values[:, 0], most, None), _text_rows(ids, 1.0 - values[:, 0], texts)])
            )
            found[0].append((ids[ends], values[ends, 0]))
            continue
        differences = []
        for place, r in enumerate(others):
            rows = store.rows(r, bucket, [column])
            if rows is None:
                continue
            _, at, at_other = np.intersect1d(ids, rows[0], assume_unique=True, return_indices=True)
            d = rows[2][at_other, 0] - values[at, 0]
            paired[place] += len(d)
            ends = np.unique(np.concatenate(_end_rows(ids[at], d, most, moved)))
            found[place].append((ids[at][ends], d[ends]))
            differences.append((ids[at], d))
        if differences and texts:
            both, largest = _largest([(i, np.abs(d)) for i, d in differences])
            top = _text_rows(both, largest, texts)
            text_found.append((both[top], largest[top]))
    sides = []
    for pieces in found:
        ids = np.concatenate([f[0] for f in pieces]) if pieces else np.zeros(0, dtype=str)
        values = np.concatenate([f[1] for f in pieces]) if pieces else np.zeros(0)
        high, low = _ends(ids, values, most, moved)
        sides.append((tuple(high), tuple(low)))
        if not compares and texts:
            text_found.append((ids, 1.0 - values))
    compared = sum(1 for n in paired if n) if compares else 0
    each = max(1, EXTREME_QUERIES // max(1, compared))
    chosen_sides = [side for side, n in zip(sides, paired) if n] if compares else sides
    chosen = {q for high, low in chosen_sides for q in (*high[:each], *low[:each])}
    if compares:
        chosen |= {q for high, low in chosen_sides for q in (*high[:MOVERS], *low[:MOVERS])}
    cited: list[str] = []
    if slices:
        found_examples = slice_examples(store, len(names), slices, column, baseline if compares else None, examples)
        cited = [q for one in found_examples for q in one]
        chosen |= set(cited)
        text_found.append((np.array(cited, dtype=str), np.full(len(cited), np.inf)))  # the texts' first
    if texts and text_found:
        ids, scores = _largest(text_found)
        chosen |= set(ids[_text_rows(ids, scores, texts)].tolist())
    if audited:
        asked_ids = np.array(audited, dtype=str)
        chosen |= set(asked_ids[np.isin(as_bytes(asked_ids), every)].tolist())
    chosen_ids = np.array(sorted(chosen), dtype=str)
    rest = every[~np.isin(every, as_bytes(chosen_ids))]
    drawn = as_text(_smallest(rest, sample_keys(rest, seed), max(0, SHOWN_QUERIES - len(chosen_ids))))
    ids = np.sort(np.concatenate([chosen_ids, np.array(drawn, dtype=str)]))
    return SampleChoice(
        ids,
        len(every),
        tuple(sides),
        measure.label(),
        texts,
        names[baseline] if compares else None,
        compared,
        None if slices is None else tuple(sorted(set(cited))),
        None if audited is None else tuple(sorted(audited)),
    )


def _chosen(analysis: Analysis, choice: SampleChoice) -> Shown:
    """The :class:`Shown` of a sample chosen before the rows were gathered, counted as
    :func:`shown_queries` counts: the wins and losses against the baseline, the queries the report
    points to besides them, and the rest drawn."""
    label = analysis.primary_label
    if choice.metric != label:
        raise ValueError(f"the sample's extremes are on {choice.metric}; the report leads with {label}")
    sides, compared = choice.sides, choice.compared
    comparison = analysis.comparison
    examples = {q for s in (analysis.slices.slices if analysis.slices is not None else ()) for q in s.examples}
    if examples != set(choice.examples or ()):
        raise ValueError(
            "the sample holds other slices' examples: evaluate with the query metadata and keys the report slices by"
        )
    pointed = set(analysis.text_queries) | examples | set(analysis.audit.labels if analysis.audit is not None else ())
    each = EXTREME_QUERIES
    if comparison is not None:
        if comparison.baseline != choice.baseline:  # two runs (pipeline refuses more): one's wins, the other's losses
            sides = tuple((low, high) for high, low in sides)
        sides = tuple(side for side, rc in zip(sides, comparison.runs) if rc.queries)
        each = max(1, EXTREME_QUERIES // max(1, compared))
        pointed |= {q for high, low in sides for q in (*high[:MOVERS], *low[:MOVERS])}
    wins = {q for high, _ in sides for q in high[:each]}
    losses = {q for _, low in sides for q in low[:each]} - wins
    cited = (pointed & set(choice.ids.tolist())) - wins - losses
    return Shown(
        ids=choice.ids,
        total=choice.total,
        each=each,
        wins=len(wins),
        losses=len(losses),
        drawn=len(choice.ids) - len(wins) - len(losses) - len(cited),
        compared=compared,
        cited=len(cited),
        baseline=comparison.baseline if comparison is not None else None,
        metric=label,
        stored_all=False,
        rows_only=True,
        audited=analysis.audit is not None,
    )


def sample_choice(summaries: Sequence[RunSummary]) -> SampleChoice | None:
    """The sample whose rows alone ``summaries`` hold, when a partitioned build chose it (section
    29.3); None when they hold every query's."""
    store = paired_store(summaries)
    return None if store is None else store.choice


def held_sample(analysis: Analysis) -> str | None:
    """Why ``analysis`` cannot give every query's rows, when its runs hold the sample's alone (read
    back from a report.json that holds it, docs/conventions.md section 29.2, or kept so by the
    build, section 29.3); None when they hold them all."""
    sample = analysis.sample
    if sample is None or not sample.rows_only:
        return None
    return (
        f"the report holds {len(sample.ids):,} of its {sample.total:,} queries (docs/conventions.md "
        "section 29.2): score the run files for every query's"
    )
