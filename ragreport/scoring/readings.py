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

from .catalogue import READ, READINGS, Metric
from .condensed import condense
from .join import first_of_each
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
