"""The condensed list: a measure's ``judged_only=True`` (docs/conventions.md section 21.7).

Every id the judgments lack is removed from each ranked list before the cut at K, the ranks closing
up, as trec_eval ``-J``, pytrec_eval's ``judged_docs_only_flag`` and ir_measures' ``judged_only=True``
do (Sakai's condensed list). An id the judgments grade below 0 (trec_eval's "pooled, not judged")
is removed too, as pytrec_eval (trec_eval 9) and so ir_measures remove it. One function over the
whole run, vectorised: it keeps a mask of the slots and takes the whole-list facts again from what
is left.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .join import JudgedRun


def condensed(judged: JudgedRun) -> JudgedRun:
    """``judged`` with every slot whose id the judgments lack, or grade below 0, removed (a whole
    run, not a head)."""
    keep = judged.judged & (judged.grades >= 0)
    if keep.all():
        return judged
    n = judged.n_queries
    query = judged.slot_query[keep]
    lengths = np.bincount(query, minlength=n).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    grades, repeat = judged.grades[keep], judged.repeat[keep]
    relevant = ~repeat & (grades >= judged.level)
    relevant_query = query[relevant]
    ranks = np.arange(len(query), dtype=np.int64) - offsets[:-1][query] + 1
    first = np.zeros(n, dtype=np.int64)
    if len(relevant_query):
        starts = np.concatenate(([True], relevant_query[1:] != relevant_query[:-1]))
        first[relevant_query[starts]] = ranks[relevant][starts]
    return replace(
        judged,
        offsets=offsets,
        doc_ids=judged.doc_ids[keep],
        grades=grades,
        judged=np.ones(len(query), dtype=bool),
        repeat=repeat,
        retrieved=lengths,
        repeats=np.bincount(query[repeat], minlength=n).astype(np.int64),
        relevant_retrieved=np.bincount(relevant_query, minlength=n).astype(np.int64),
        first_relevant=first,
    )
