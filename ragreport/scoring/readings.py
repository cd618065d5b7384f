"""Three more readings of the ids nobody judged (docs/conventions.md section 20.2).

The default reading scores an unjudged id as not relevant (grade 0). The others say what the
unjudged ids could do to a figure at K:

- ``unjudged_relevant``: every unjudged id in a query's top K is read as relevant at the lowest
  relevant grade (the relevance level), and R grows by those ids
  (:func:`unjudged_as_relevant`). P@K, Hit@K and R@K then give their optimistic bound: a bound,
  never a plausible reading.
- ``condensed``: the unjudged ids are removed from the ranking before it is cut at K, as
  trec_eval's ``-J``, pytrec_eval's ``judged_docs_only_flag`` and ir_measures' ``judged_only=True``
  do (:func:`condense`).
- ``unjudged_at_rate``: each unjudged id read as relevant at the rate the run's judged ids at
  its rank are (:func:`rank_rates`): each query's figure moves from the default toward the
  ``unjudged_relevant`` one by the mean rate over its unjudged top-K ids (:func:`at_rate`).

Judgments that list relevant ids alone (:attr:`~ragreport.scoring.join.JudgedRun.relevant_only`)
get no reading: every other id is not relevant by the collection's own convention.

Each reading is a joined run transformed slot by slot (array operations over every slot at once,
no loop over queries), scored by the same kernels as the default reading
(:func:`score_readings`). The queries averaged are the default reading's: a reading changes
figures, never which queries count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from .catalogue import READ, READINGS, Metric
from .condensed import condense
from .join import first_of_each
from .metrics import QueryScores, score

if TYPE_CHECKING:
    from ..core.model import Conventions
    from .join import JudgedRun

__all__ = [
    "READ",
    "READINGS",
    "at_rate",
    "condense",
    "own_readings",
    "rank_counts",
    "rank_rates",
    "rate_weights",
    "score_readings",
    "unjudged_as_relevant",
    "unjudged_ranks",
]


def unjudged_as_relevant(judged: JudgedRun, k: int) -> JudgedRun:
    """The top ``k`` of every list, each unjudged id in it read as relevant at the relevance level.

    Each query's R grows by the distinct unjudged ids of its top ``k``, and its ideal list gains as
    many grades of the relevance level (the lowest relevant grade), so a figure at ``k`` is what it
    would be had the judges found every one of them relevant: P@k, Hit@k and R@k give their
    optimistic bound. A repeat of an unjudged id is still a repeat and gains nothing. ``judged`` is
    whole or a head at least ``k`` deep; the result, every slot judged, is read at ``k`` only (the
    reading differs at every cutoff, as R does).

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("r", [("q1", ["u1", "d1", "u2"])]),
    ...               Judgments.from_lists([("q1", ["d1", "d2"], [1, 1])]))
    >>> read = unjudged_as_relevant(judged, 2)
    >>> read.grades.tolist(), int(read.relevant[0])  # u1 relevant, R from 2 to 3; u2 is below k
    ([1, 1], 3)
    """
    head = judged.head(k)
    level = head.level
    fresh = ~head.judged & ~head.repeat  # the first occurrence of an unjudged id in the top k
    slot_query = head.slot_query
    n = head.n_queries
    extra = np.bincount(slot_query[fresh], minlength=n).astype(np.int64)
    grade_type = np.result_type(head.grades.dtype, np.min_scalar_type(level))
    grades = np.where(fresh, level, head.grades).astype(grade_type)
    ideal_offsets, ideal_grades = _with_level_grades(head.ideal_offsets, head.ideal_grades, extra, level)
    flagged = np.flatnonzero(fresh | (head.judged & ~head.repeat & (head.grades >= level)))
    return replace(
        head,
        grades=grades,
        judged=np.ones(len(grades), dtype=bool),
        relevant=head.relevant + extra,
        ideal_offsets=ideal_offsets,
        ideal_grades=ideal_grades,
        relevant_retrieved=head.relevant_retrieved + extra,
        first_relevant=first_of_each(slot_query[flagged], head.slot_rank[flagged], n),
    )


def rank_counts(judged: JudgedRun, depth: int) -> np.ndarray:
    """The run's judged ids and its relevant ones at each rank 1 to ``depth`` (2 x ``depth``: row 0
    judged, row 1 relevant; first occurrences only, over every query): whole numbers that add over
    disjoint sets of queries, so that partitions sum them (docs/conventions.md section 29)."""
    head = judged.head(depth)
    seen = head.judged & ~head.repeat
    rank = head.slot_rank.astype(np.int64) - 1
    judged_at = np.bincount(rank[seen], minlength=depth)[:depth]
    relevant_at = np.bincount(rank[seen & (head.grades >= head.level)], minlength=depth)[:depth]
    return np.stack([judged_at, relevant_at]).astype(np.int64)


def rates_of(counts: np.ndarray) -> np.ndarray:
    """:func:`rank_rates` from :func:`rank_counts`: relevant over judged at each rank, 0 where none is judged."""
    return np.divide(counts[1], counts[0], out=np.zeros(counts.shape[1]), where=counts[0] > 0)


def rank_rates(judged: JudgedRun, depth: int) -> np.ndarray:
    """The share of the run's judged ids at each rank 1 to ``depth`` that are relevant (index 0 is
    rank 1): first occurrences only, over every query of the run. A rank where no query's id is
    judged has rate 0: nothing shows that its unjudged ids are relevant (the default reading).

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("r", [("q1", ["d1", "u1"]), ("q2", ["n2", "u2"])]),
    ...               Judgments.from_lists([("q1", ["d1"], [1]), ("q2", ["n2"], [0])]))
    >>> rank_rates(judged, 2).tolist()  # rank 1: d1 relevant, n2 not; rank 2: nothing judged
    [0.5, 0.0]
    """
    return rates_of(rank_counts(judged, depth))


def at_rate(
    judged: JudgedRun, cutoffs: Sequence[int], default: np.ndarray, bound: np.ndarray, rates: np.ndarray | None = None
) -> np.ndarray:
    """The ``unjudged_at_rate`` reading: per query and cutoff K, ``default + w * (bound - default)``,
    with ``w`` the mean of :func:`rank_rates` over the query's unjudged top-K ids (first
    occurrences; 0 when it has none, where ``bound`` is ``default``). ``default`` and ``bound``
    (``unjudged_relevant``) are metrics x queries x ``cutoffs``; ``rates``: the whole run's, when
    ``judged`` holds a sample of its queries (:func:`rates_of` its partitions' summed counts). For
    P@K this is the expected P@K had each unjudged id at rank i been relevant with probability
    rate(i); for the other metrics the same share of the way between the two readings.

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("r", [("q1", ["d1", "u1"]), ("q2", ["n2", "u2"])]),
    ...               Judgments.from_lists([("q1", ["d1"], [1]), ("q2", ["n2"], [0])]))
    >>> at_rate(judged, [1], np.zeros((1, 2, 1)), np.ones((1, 2, 1)))[0, :, 0].tolist()  # no unjudged id at K = 1
    [0.0, 0.0]
    """
    depth = max(int(k) for k in cutoffs)
    head = judged.head(depth)
    rates = rank_rates(head, depth) if rates is None else rates
    fresh = ~head.judged & ~head.repeat
    rank, query = head.slot_rank[fresh].astype(np.int64), head.slot_query[fresh]
    weights = np.zeros(default.shape[1:])
    for c, k in enumerate(cutoffs):  # a loop over the report's few cutoffs, never over queries
        within = rank <= int(k)
        total = np.bincount(query[within], weights=rates[rank[within] - 1], minlength=head.n_queries)
        many = np.bincount(query[within], minlength=head.n_queries)
        weights[:, c] = np.divide(total, many, out=np.zeros(head.n_queries), where=many > 0)
    return default + weights[None] * (bound - default)


#: Ranks packed per float64 word by :func:`unjudged_ranks`: whole numbers below 2^52, exact.
RANK_BITS = 52


def unjudged_ranks(judged: JudgedRun, depth: int) -> np.ndarray:
    """Where each query's top ``depth`` holds an unjudged id (first occurrences), packed: bit
    ``r % 52`` of word ``r // 52`` set for rank ``r + 1`` (queries x ceil(depth / 52), float64
    whole numbers, exact). What a partition keeps of a query for :func:`at_rate`, whose rates only
    the whole run gives (:func:`rate_weights`)."""
    head = judged.head(depth)
    fresh = ~head.judged & ~head.repeat
    rank = head.slot_rank[fresh].astype(np.int64) - 1
    query = head.slot_query[fresh].astype(np.int64)
    words = -(-depth // RANK_BITS)
    out = np.zeros(head.n_queries * words)
    # distinct powers of two summed: exact in float64
    np.add.at(out, query * words + rank // RANK_BITS, np.ldexp(1.0, rank % RANK_BITS))
    return out.reshape(head.n_queries, words)


def rate_weights(packed: np.ndarray, rates: np.ndarray, cutoffs: Sequence[int]) -> np.ndarray:
    """:func:`at_rate`'s weights (queries x ``cutoffs``) from :func:`unjudged_ranks`' words and the
    whole run's :func:`rank_rates`: per cutoff K the mean rate over the query's unjudged top-K
    ranks, 0 with none."""
    depth = len(rates)
    bits = np.arange(packed.shape[1] * RANK_BITS)
    words = packed.astype(np.int64)[:, bits // RANK_BITS]
    marked = ((words >> (bits % RANK_BITS)) & 1)[:, :depth].astype(np.float64)
    out = np.zeros((len(packed), len(cutoffs)))
    for c, k in enumerate(cutoffs):  # the report's few cutoffs, never the queries
        many = marked[:, : int(k)].sum(axis=1)
        total = marked[:, : int(k)] @ rates[: int(k)]
        out[:, c] = np.divide(total, many, out=np.zeros(len(packed)), where=many > 0)
    return out


def _with_level_grades(
    offsets: np.ndarray, grades: np.ndarray, extra: np.ndarray, level: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each query's ideal list (positive grades, high to low, CSR by ``offsets``) with ``extra[q]``
    grades of ``level`` sorted in: after its grades of ``level`` and above, before the lower ones
    (equal grades are alike, so their order among themselves does not show). One pass placing every
    grade at its new position, where a sort of them all took longer."""
    n = len(extra)
    lengths = np.diff(offsets).astype(np.int64)
    new_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths + extra, out=new_offsets[1:])
    query = np.repeat(np.arange(n, dtype=np.int64), lengths)
    within = np.arange(len(grades), dtype=np.int64) - offsets[:-1].astype(np.int64)[query]
    low = grades < level
    out = np.empty(int(new_offsets[-1]), dtype=np.int64)
    out[new_offsets[:-1][query] + within + np.where(low, extra[query], 0)] = grades
    # where a query's added grades start: after its grades of ``level`` and above
    high = np.bincount(query[~low], minlength=n).astype(np.int64)
    added_query = np.repeat(np.arange(n, dtype=np.int64), extra)
    added_within = np.arange(len(added_query), dtype=np.int64) - np.repeat(np.cumsum(extra) - extra, extra)
    out[new_offsets[:-1][added_query] + high[added_query] + added_within] = level
    return new_offsets, out


def score_readings(
    judged: JudgedRun,
    cutoffs: Sequence[int],
    conventions: Conventions,
    metrics: Sequence[Metric] = READ,
    *,
    condensed: JudgedRun | None = None,
    default: QueryScores | None = None,
    own: dict[str, np.ndarray] | None = None,
    rates: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every metric of ``metrics`` at every cutoff of ``cutoffs`` under each reading of :data:`READINGS`;
    none (``{}``) when the judgments list relevant ids alone (``judged.relevant_only``).

    Returns ``{reading: values}`` with ``values[m, q, c]`` as in
    :class:`~ragreport.scoring.metrics.QueryScores` (metrics x queries x cutoffs, the cutoffs in
    the order given). ``judged`` must hold at least the top ``max(cutoffs)`` of each list for
    ``unjudged_relevant``; ``condensed`` is that run condensed (:func:`condense`) at least
    ``max(cutoffs)`` deep, by default condensed here from ``judged``, which must then hold the whole
    lists (a partition condenses its lists before it cuts them, :mod:`ragreport.scoring.partition`).
    ``default``: the run's scores as the report reads them, when the caller has them (holding every
    metric and cutoff asked for), so that they are not scored again for the rate reading.
    ``own``: :func:`own_readings` at ``cutoffs`` of these metrics when the caller has them (the
    partitions scored them), so that only the rate reading is made here. ``rates``: the rates of
    the whole run's ranks (:func:`at_rate`), when ``judged`` holds a sample of its queries.
    """
    if judged.relevant_only:
        return {}
    cutoffs = [int(c) for c in cutoffs]
    metrics = tuple(metrics)
    read = dict(own) if own is not None else own_readings(judged, cutoffs, conventions, metrics, condensed=condensed)
    if not (
        default is not None
        and all(m in default.metrics for m in metrics)
        and set(cutoffs) <= set(default.cutoffs.tolist())
    ):
        default = score(judged.head(max(cutoffs)), cutoffs, conventions, metrics)
    rows = np.array([default.metrics.index(m) for m in metrics], dtype=np.int64)
    at = np.array([default.column(k) for k in cutoffs], dtype=np.int64)
    # the cutoffs first: the rows of the whole sweep first would copy it (metrics x queries x its cutoffs)
    bound = read["unjudged_relevant"]
    read["unjudged_at_rate"] = at_rate(judged, cutoffs, default.values[:, :, at][rows], bound, rates)
    return read


def own_readings(
    judged: JudgedRun,
    cutoffs: Sequence[int],
    conventions: Conventions,
    metrics: Sequence[Metric] = READ,
    *,
    condensed: JudgedRun | None = None,
) -> dict[str, np.ndarray]:
    """The readings a query's own list gives (``unjudged_relevant`` and ``condensed``, as
    :func:`score_readings`): what a partition scores alone, where ``unjudged_at_rate`` needs the
    whole run's rates (:func:`rank_counts`)."""
    n = judged.n_queries
    optimistic = np.zeros((len(metrics), n, len(cutoffs)))
    for c, k in enumerate(cutoffs):  # a loop over the report's few cutoffs, never over queries
        optimistic[:, :, c] = score(unjudged_as_relevant(judged, k), [k], conventions, metrics).values[:, :, 0]
    if condensed is None:
        condensed = condense(judged, max(cutoffs))
    scores = score(condensed, cutoffs, conventions, metrics)
    return {"unjudged_relevant": optimistic, "condensed": scores.values[:, :, [scores.column(k) for k in cutoffs]]}
