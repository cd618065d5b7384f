"""Join a run to its judgments: every ranked slot gets its grade, its judged flag and its repeat flag.

This is the last step of loading. Ids are interned to integers once, and the join is a sort and
a binary search on integer (query, id) keys rather than a dictionary per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .model import Judgments, Run, RunMeta


@dataclass(frozen=True)
class JudgedRun:
    """A run with the judgments it is scored against, aligned slot by slot.

    Queries are the run's queries in run order, then judged queries the run lacks in judgment
    order. Per slot (CSR by ``offsets``): ``doc_ids``, ``grades`` (0 where unjudged), ``judged``
    and ``repeat`` (the id already appeared higher in the same list). Per query: ``relevant``
    (R, ids graded >= 1), ``in_run``, ``has_judgments``, and the positive grades sorted high to
    low in ``ideal_offsets``/``ideal_grades`` for the ideal DCG. ``has_judgments`` marks queries the
    judgments list (even with no id): the frozen query set a report is tied to.
    """

    name: str
    meta: RunMeta
    source: str
    query_ids: np.ndarray
    query_text: tuple[str | None, ...]
    in_run: np.ndarray
    has_judgments: np.ndarray
    relevant: np.ndarray
    offsets: np.ndarray
    doc_ids: np.ndarray
    grades: np.ndarray
    judged: np.ndarray
    repeat: np.ndarray
    ideal_offsets: np.ndarray
    ideal_grades: np.ndarray
    judgment_query: np.ndarray  # every judgment as (query index, id, grade): the label set
    judgment_doc_ids: np.ndarray
    judgment_grades: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    # Per-slot views derived once and shared by scoring, measures, limits and pages.
    @cached_property
    def slot_query(self) -> np.ndarray:
        """The query index of every slot."""
        return np.repeat(np.arange(self.n_queries), self.lengths)

    @cached_property
    def slot_rank(self) -> np.ndarray:
        """The 1-based rank of every slot in its query's list."""
        return np.arange(len(self.slot_query)) - self.offsets[:-1][self.slot_query] + 1

    @cached_property
    def slot_relevant(self) -> np.ndarray:
        """Slots holding the first occurrence of an id graded 1 or more."""
        return self.judged & ~self.repeat & (self.grades >= 1)


def _offsets(query_index: np.ndarray, n_queries: int) -> np.ndarray:
    counts = np.bincount(query_index, minlength=n_queries)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def join(run: Run, judgments: Judgments) -> JudgedRun:
    """Align ``run`` with ``judgments`` (see :class:`JudgedRun`)."""
    run_qids = run.query_ids.tolist()
    known = dict.fromkeys(run_qids)
    judged_only = [q for q in judgments.query_ids.tolist() if q not in known]
    query_ids = np.array(run_qids + judged_only, dtype=str)
    index = {q: i for i, q in enumerate(query_ids.tolist())}
    n_q = len(query_ids)
    n_run = len(run_qids)

    run_lengths = np.diff(run.offsets)
    slot_query = np.repeat(np.arange(n_run, dtype=np.int64), run_lengths)
    j_lengths = np.diff(judgments.offsets)
    j_query_local = np.array([index[q] for q in judgments.query_ids.tolist()], dtype=np.int64)
    j_query = np.repeat(j_query_local, j_lengths)

    all_docs = np.concatenate([np.asarray(run.doc_ids, dtype=str), np.asarray(judgments.doc_ids, dtype=str)])
    if len(all_docs):
        _, codes = np.unique(all_docs, return_inverse=True)
        codes = codes.reshape(-1).astype(np.int64)
    else:
        codes = np.zeros(0, dtype=np.int64)
    n_docs = int(codes.max()) + 1 if len(codes) else 1
    slot_codes = codes[: len(run.doc_ids)]
    j_codes = codes[len(run.doc_ids):]

    slot_keys = slot_query * n_docs + slot_codes
    j_keys = j_query * n_docs + j_codes
    j_order = np.argsort(j_keys, kind="stable")
    j_sorted = j_keys[j_order]
    pos = np.searchsorted(j_sorted, slot_keys)
    pos_clipped = np.minimum(pos, max(len(j_sorted) - 1, 0))
    judged = (pos < len(j_sorted)) & (j_sorted[pos_clipped] == slot_keys) if len(j_sorted) else np.zeros(len(slot_keys), bool)
    grades = np.where(judged, judgments.grades[j_order][pos_clipped] if len(j_sorted) else 0, 0).astype(np.int64)

    repeat = np.ones(len(slot_keys), dtype=bool)
    if len(slot_keys):
        _, first = np.unique(slot_keys, return_index=True)
        repeat[first] = False

    positive = judgments.grades >= 1
    relevant = np.bincount(j_query[positive], minlength=n_q).astype(np.int64)
    ideal_q = j_query[positive]
    ideal_g = judgments.grades[positive]
    ideal_order = np.lexsort((-ideal_g, ideal_q))

    in_run = np.zeros(n_q, dtype=bool)
    in_run[:n_run] = True
    has_judgments = np.zeros(n_q, dtype=bool)
    has_judgments[j_query_local] = True  # listed in the judgments, even with no id

    texts = tuple(run.query_text) if run.query_text else (None,) * n_run

    return JudgedRun(
        name=run.name,
        meta=run.meta,
        source=run.source,
        query_ids=query_ids,
        query_text=texts + (None,) * len(judged_only),
        in_run=in_run,
        has_judgments=has_judgments,
        relevant=relevant,
        offsets=np.concatenate([run.offsets, np.full(len(judged_only), run.offsets[-1])]).astype(np.int64),
        doc_ids=np.asarray(run.doc_ids, dtype=str),
        grades=grades,
        judged=judged,
        repeat=repeat,
        ideal_offsets=_offsets(ideal_q, n_q),
        ideal_grades=ideal_g[ideal_order].astype(np.int64),
        judgment_query=j_query,
        judgment_doc_ids=np.asarray(judgments.doc_ids, dtype=str),
        judgment_grades=np.asarray(judgments.grades, dtype=np.int64),
    )
