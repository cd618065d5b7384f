"""The condensed list (Sakai's): every unjudged id removed from each ranked list before the cut at
K, the ranks closing up, as trec_eval ``-J``, pytrec_eval's ``judged_docs_only_flag`` and
ir_measures' ``judged_only=True`` do. One function, used by the ``condensed`` reading of unjudged
ids (docs/conventions.md section 20.2, :mod:`ragreport.scoring.readings`) and by a measure's
``judged_only=True`` (section 21.7, :func:`ragreport.scoring.measures.score_measures`).

:func:`following` gives what condensing a list's top ``depth`` slots again needs of the rest of
the list (report.json's ``lists.next_judged``, schema ``ragreport/4``, section 22.17).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from .join import first_of_each, rows_of

if TYPE_CHECKING:
    from .join import JudgedRun


def condense(judged: JudgedRun, depth: int | None = None, pooled: bool = False) -> JudgedRun:
    """The run with every unjudged id removed from its lists, then each list cut to ``depth``.

    The judged ids keep their order and close up, so the id judged at rank 7 under two unjudged
    ids above it is at rank 5 (trec_eval's ``-J``). A repeat of a judged id stays a repeat. The
    whole-list facts follow the condensed lists: ``retrieved`` and ``repeats`` count what is left
    and ``first_relevant`` is the rank in the condensed list (``relevant_retrieved`` cannot move:
    every relevant id is judged). Judgments, R and the ideal lists are unchanged. ``judged`` may be
    whole or a head; scoring at K needs only ``depth = K``, whatever the depth of the original lists.

    ``pooled`` also removes the ids graded below 0 (trec_eval's "pooled, not judged"), as
    pytrec_eval (trec_eval 9) and ir_measures do for a measure's ``judged_only=True``
    (docs/conventions.md section 21.7). The reading of unjudged ids (section 20.2) keeps them: they
    were judged.

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("r", [("q1", ["u1", "d1", "u2", "d2"])]),
    ...               Judgments.from_lists([("q1", ["d1", "d2"], [1, 0])]))
    >>> condense(judged).doc_ids.tolist(), int(condense(judged).first_relevant[0])
    (['d1', 'd2'], 1)
    """
    n = judged.n_queries
    # Only the judged slots are touched past one scan of the flags: judged ids are usually a few
    # of a list's hundreds.
    kept = np.flatnonzero(judged.judged & (judged.grades >= 0) if pooled else judged.judged)
    query = np.searchsorted(judged.offsets, kept, side="right") - 1
    first = np.searchsorted(kept, judged.offsets[:-1])  # each query's first judged slot among ``kept``
    rank = np.arange(1, len(kept) + 1, dtype=np.int64) - first[query]  # 1-based, in the condensed list
    whole_query, whole_repeat = query, judged.repeat[kept]
    if depth is not None:
        top = rank <= depth
        kept, query, rank = kept[top], query[top], rank[top]
    lengths = np.bincount(query, minlength=n).astype(np.int64)
    repeat = judged.repeat[kept]
    grades = judged.grades[kept]
    relevant = ~repeat & (grades >= judged.level)  # the kept slots run in query and rank order
    return replace(
        judged,
        offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        doc_ids=judged.doc_ids[kept],
        grades=grades,
        judged=np.ones(len(kept), dtype=bool),
        repeat=repeat,
        retrieved=np.bincount(whole_query, minlength=n).astype(np.int64),  # the whole condensed list
        repeats=np.bincount(whole_query[whole_repeat], minlength=n).astype(np.int64),
        first_relevant=first_of_each(query[relevant], rank[relevant], n),
    )


@dataclass(frozen=True)
class Following:
    """Per query, the judged ids that follow the top ``depth`` slots of its list, in order, repeats
    included, only as many as condensing to ``depth`` reads: a list whose top holds ``j`` judged
    slots needs the next ``max(0, depth - j)`` judged slots of the whole list (the condensed list's
    top ``depth`` is its first ``depth`` judged slots). ``lengths`` holds one count per query and
    ``doc_ids`` the ids end to end, in query order (docs/conventions.md section 22.17)."""

    depth: int
    lengths: np.ndarray
    doc_ids: np.ndarray

    def rows(self, take: np.ndarray) -> Following:
        """The queries at rows ``take`` (ascending) alone (a sampled report.json's, section 29.2)."""
        offsets, at = rows_of(np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64), take)
        return Following(self.depth, np.diff(offsets), self.doc_ids[at])

    @classmethod
    def concat(cls, parts: list[Following]) -> Following:
        """Partitions over disjoint queries put back together, in the order given."""
        return cls(
            parts[0].depth, np.concatenate([p.lengths for p in parts]), np.concatenate([p.doc_ids for p in parts])
        )


def following(judged: JudgedRun, depth: int, condensed: JudgedRun | None = None) -> Following:
    """The judged ids past each list's top ``depth`` slots that condensing to ``depth`` reads.

    ``judged`` holds at least the top ``depth`` of each list; ``condensed`` is that run condensed
    (:func:`condense`) from its whole lists, at least ``depth`` deep; by default it is condensed
    here, and ``judged`` must then hold the whole lists.

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("r", [("q1", ["u1", "d1", "u2", "d2", "u3", "d3", "d1"])]),
    ...               Judgments.from_lists([("q1", ["d1", "d2", "d3"], [1, 0, 1])]))
    >>> after = following(judged, 3)  # the top 3 holds d1 alone: the next 2 judged ids are read
    >>> after.lengths.tolist(), after.doc_ids.tolist()
    ([2], ['d2', 'd3'])
    """
    if condensed is None:
        condensed = condense(judged, depth)
    n = judged.n_queries
    # each query's judged slots in its top ``depth``, counted off the top slots alone (in query order)
    shown = np.minimum(np.diff(judged.offsets).astype(np.int64), depth)
    flags = judged.judged[judged.top_slots(depth, np.ones(n, dtype=bool))]
    running = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
    ends = np.cumsum(shown)
    within = running[ends] - running[ends - shown]
    available = np.minimum(np.diff(condensed.offsets).astype(np.int64), depth)
    lengths = np.maximum(available - within, 0)
    starts = condensed.offsets[:-1].astype(np.int64) + within
    total = int(lengths.sum())
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    slots = shift + np.arange(total, dtype=np.int64)
    return Following(depth, lengths, condensed.doc_ids[slots])
