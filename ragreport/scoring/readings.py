"""Two more readings of the ids nobody judged (docs/conventions.md section 20.2).

The default reading scores an unjudged id as not relevant (grade 0). The two others bound what the
unjudged ids could do to a figure at K:

- ``unjudged_relevant``: every unjudged id in a query's top K is read as relevant at the lowest
  relevant grade (the relevance level), and R grows by those ids
  (:func:`unjudged_as_relevant`). P@K, Hit@K and R@K then give their optimistic bound.
- ``condensed``: the unjudged ids are removed from the ranking before it is cut at K, as
  trec_eval's ``-J``, pytrec_eval's ``judged_docs_only_flag`` and ir_measures' ``judged_only=True``
  do (:func:`condense`).

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

from .catalogue import READ, READINGS
from .condensed import condense
from .kinds import Metric
from .metrics import score

if TYPE_CHECKING:
    from ..core.model import Conventions
    from .join import JudgedRun

__all__ = ["READ", "READINGS", "condense", "score_readings", "unjudged_as_relevant"]


def unjudged_as_relevant(judged: JudgedRun, k: int) -> JudgedRun:
    """The top ``k`` of every list, each unjudged id in it read as relevant at the relevance level.

    Each query's R grows by the distinct unjudged ids of its top ``k``, and its ideal list gains as
    many grades of the relevance level (the lowest relevant grade), so a figure at ``k`` is what it
    would be had the judges found every one of them relevant: P@k, Hit@k and R@k give their
    optimistic bound. A repeat of an unjudged id is still a repeat and gains nothing.

    Parameters
    ----------
    judged : JudgedRun
        A run joined with its judgments, whole or a head at least ``k`` deep.
    k : int
        The cutoff: the reading differs at every cutoff, as R does.

    Returns
    -------
    JudgedRun
        The top ``k`` of every list, every slot judged; read it at ``k`` only.

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
    # The ideal lists gain ``extra`` grades of ``level`` each, sorted in: one lexsort over all.
    ideal_query = np.repeat(np.arange(n, dtype=np.int64), np.diff(head.ideal_offsets))
    added_query = np.repeat(np.arange(n, dtype=np.int64), extra)
    all_query = np.concatenate([ideal_query, added_query])
    all_grades = np.concatenate([head.ideal_grades, np.full(len(added_query), level, dtype=np.int64)])
    order = np.lexsort((-all_grades, all_query))
    ideal_lengths = np.bincount(all_query, minlength=n)
    relevant_slot = fresh | (head.judged & ~head.repeat & (head.grades >= level))
    ranks = head.slot_rank.astype(np.int64)
    first_rank = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(first_rank, slot_query[relevant_slot], ranks[relevant_slot])
    first = np.where(first_rank < np.iinfo(np.int64).max, first_rank, 0)
    return replace(
        head,
        grades=grades,
        judged=np.ones(len(grades), dtype=bool),
        relevant=head.relevant + extra,
        ideal_offsets=np.concatenate([[0], np.cumsum(ideal_lengths)]).astype(np.int64),
        ideal_grades=all_grades[order],
        relevant_retrieved=head.relevant_retrieved + extra,
        first_relevant=np.where(first > 0, first, 0),
    )


def score_readings(
    judged: JudgedRun,
    cutoffs: Sequence[int],
    conventions: Conventions,
    metrics: Sequence[Metric] = READ,
    *,
    condensed: JudgedRun | None = None,
) -> dict[str, np.ndarray]:
    """Every metric of ``metrics`` at every cutoff of ``cutoffs`` under each reading of :data:`READINGS`.

    Returns ``{reading: values}`` with ``values[m, q, c]`` as in
    :class:`~ragreport.scoring.metrics.QueryScores` (metrics x queries x cutoffs, the cutoffs in
    the order given). ``judged`` must hold at least the top ``max(cutoffs)`` of each list for
    ``unjudged_relevant``; ``condensed`` is that run condensed (:func:`condense`) at least
    ``max(cutoffs)`` deep, by default condensed here from ``judged``, which must then hold the whole
    lists (a partition condenses its lists before it cuts them, :mod:`ragreport.scoring.partition`).
    """
    cutoffs = [int(c) for c in cutoffs]
    metrics = tuple(metrics)
    n = judged.n_queries
    optimistic = np.zeros((len(metrics), n, len(cutoffs)))
    for c, k in enumerate(cutoffs):  # a loop over the report's few cutoffs, never over queries
        optimistic[:, :, c] = score(unjudged_as_relevant(judged, k), [k], conventions, metrics).values[:, :, 0]
    if condensed is None:
        condensed = condense(judged, max(cutoffs))
    scores = score(condensed, cutoffs, conventions, metrics)
    columns = [scores.column(k) for k in cutoffs]
    return {"unjudged_relevant": optimistic, "condensed": scores.values[:, :, columns]}
