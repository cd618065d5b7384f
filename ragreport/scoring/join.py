"""Join a run to its judgments: every ranked slot gets its grade, its judged flag and its repeat flag.

This is the last step of loading. Ids are interned to integers once, and the join is a sort and
a binary search on integer (query, id) keys rather than a dictionary per query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..core.ids import THREADS, common_kind, has_duplicates, hash_ids, thread_map
from ..core.model import Judgments, Run, RunMeta
from ..reading.ordering import as_matrix, query_blocks


@dataclass(frozen=True)
class JudgedRun:
    """A run with the judgments it is scored against, aligned slot by slot.

    Queries are the run's queries in run order, then judged queries the run lacks in judgment
    order. Per slot (CSR by ``offsets``): ``doc_ids``, ``grades`` (0 where unjudged), ``judged``
    and ``repeat`` (the id already appeared higher in the same list). Per query: ``relevant``
    (R, ids graded >= 1), ``in_run``, ``has_judgments``, and the positive grades sorted high to
    low in ``ideal_offsets``/``ideal_grades`` for the ideal DCG. ``has_judgments`` marks queries the
    judgments list (even with no id): the frozen query set a report is tied to.

    ``retrieved``, ``repeats``, ``relevant_retrieved`` and ``first_relevant`` are facts about each
    whole list; they stay true in a :meth:`head`, which keeps only the top of every list (what a
    partition sends back to be summarised: see :mod:`ragreport.scoring.partition`).
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
    retrieved: np.ndarray  # per query, over the whole list: its length,
    repeats: np.ndarray  # its repeated slots,
    relevant_retrieved: np.ndarray  # its distinct relevant ids,
    first_relevant: np.ndarray  # and the rank of the first (0: none)
    judgment_query: np.ndarray  # every judgment as (query index, id, grade): the label set
    judgment_doc_ids: np.ndarray
    judgment_grades: np.ndarray
    level: int = 1  # the relevance level: grades of ``level`` and above are relevant
    query_meta: tuple[Mapping[str, object] | None, ...] = ()  # per query, where the run gives it
    doc_text: Mapping[str, str] | None = None  # the documents' text the run file carries
    judgments_source: str = ""  # where the judgments came from (a file, or irds:ID)
    steps: np.ndarray | None = None  # a multi-hop run's list lengths after each hop (Run.steps); 0: judged only

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
        return np.repeat(np.arange(self.n_queries, dtype=_index_type(self.n_queries)), self.lengths)

    @cached_property
    def slot_rank(self) -> np.ndarray:
        """The 1-based rank of every slot in its query's list."""
        rank_type = _index_type(len(self.slot_query))
        return (
            np.arange(len(self.slot_query), dtype=rank_type) - self.offsets[:-1].astype(rank_type)[self.slot_query] + 1
        )

    @cached_property
    def relevant_only(self) -> bool:
        """Whether the label set lists relevant ids alone: at least one judgment, and none graded
        below the relevance level (``level``). Such judgments (Vaswani's, most BEIR sets', a RAG
        JSONL's ``relevant``) mean every other id is not relevant, by the collection's own
        convention: the readings of unjudged ids do not apply to them, and Judged@K would repeat
        P@K (docs/conventions.md section 20.2). A grade of 0 or below (trec_eval's -1 too) makes
        them pooled; so does any grade under a ``--relevance-level`` above 1."""
        return len(self.judgment_grades) > 0 and bool((self.judgment_grades >= self.level).all())

    def top_slots(self, k: int, queries: np.ndarray) -> np.ndarray:
        """The positions of the filled top-``k`` slots of the queries flagged in ``queries`` (one
        flag per query), in slot order: the first ``min(length, k)`` slots of each list, taken
        from the offsets (queries x k at most), not by a pass over every slot of every list."""
        starts = self.offsets[:-1].astype(np.int64)
        lengths = np.minimum(np.diff(self.offsets).astype(np.int64), k)
        taken = np.flatnonzero(queries & (lengths > 0))
        counts = lengths[taken]
        # Each taken query's slots: its start, less the slots taken before it, plus one arange.
        shift = starts[taken] - (np.cumsum(counts) - counts)
        return np.repeat(shift, counts) + np.arange(int(counts.sum()), dtype=np.int64)

    def at_level(self, level: int) -> JudgedRun:
        """The same run with grades of ``level`` and above relevant: R, the relevant ids retrieved and
        the first relevant rank taken again (a measure's own ``rel``, docs/conventions.md section 21).

        Read off a whole run, not a :meth:`head`: the whole-list facts are taken from the slots.
        """
        if level == self.level:
            return self
        n = self.n_queries
        relevant = np.bincount(self.judgment_query[self.judgment_grades >= level], minlength=n).astype(np.int64)
        slots = np.flatnonzero(self.judged & ~self.repeat & (self.grades >= level))
        query = self.slot_query[slots]
        return replace(
            self,
            relevant=relevant,
            relevant_retrieved=np.bincount(query, minlength=n).astype(np.int64),
            first_relevant=first_of_each(query, self.slot_rank[slots], n),
            level=level,
        )

    def head(self, depth: int | np.ndarray | None) -> JudgedRun:
        """The same run with every list cut to its top ``depth`` slots (all of it when None; an
        array: one depth per query, as a multi-hop run's lists after a hop).

        Every figure at a cutoff up to ``depth`` is unchanged, and so are the whole-list facts.
        """
        if depth is None or len(self.lengths) == 0 or bool((self.lengths <= depth).all()):
            return self
        kept = np.minimum(self.lengths, depth)
        offsets = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
        # The kept slots' indices, gathered per list (queries x depth at most), not a scan of every slot.
        keep = np.repeat(self.offsets[:-1] - offsets[:-1], kept) + np.arange(int(offsets[-1]), dtype=np.int64)
        return replace(
            self,
            offsets=offsets,
            doc_ids=self.doc_ids[keep],
            grades=self.grades[keep],
            judged=self.judged[keep],
            repeat=self.repeat[keep],
        )

    def rows(self, take: np.ndarray) -> JudgedRun:
        """The queries at rows ``take`` (ascending), with their slots, ideal grades and judgments:
        what a sampled report.json keeps of the run (docs/conventions.md section 29.2)."""
        take = np.asarray(take, dtype=np.int64)
        place = np.full(self.n_queries, -1, dtype=np.int64)
        place[take] = np.arange(len(take))
        offsets, slots = rows_of(self.offsets, take)
        ideal_offsets, ideal = rows_of(self.ideal_offsets, take)
        labels = np.flatnonzero(place[self.judgment_query] >= 0)
        per_query = (
            "in_run",
            "has_judgments",
            "relevant",
            "retrieved",
            "repeats",
            "relevant_retrieved",
            "first_relevant",
        )
        part = replace(
            self,
            query_ids=self.query_ids[take],
            query_text=tuple(self.query_text[i] if i < len(self.query_text) else None for i in take.tolist()),
            query_meta=tuple(self.query_meta[i] for i in take.tolist()) if self.query_meta else (),
            **{name: getattr(self, name)[take] for name in per_query},
            offsets=offsets,
            **{name: getattr(self, name)[slots] for name in ("doc_ids", "grades", "judged", "repeat")},
            ideal_offsets=ideal_offsets,
            ideal_grades=self.ideal_grades[ideal],
            judgment_query=place[self.judgment_query[labels]].astype(self.judgment_query.dtype),
            judgment_doc_ids=self.judgment_doc_ids[labels],
            judgment_grades=self.judgment_grades[labels],
            steps=None if self.steps is None else self.steps[take],
        )
        return part.pinned(self.relevant_only)

    def pinned(self, relevant_only: bool) -> JudgedRun:
        """The same run whose :attr:`relevant_only` is ``relevant_only``: a property of the whole
        label set, which a sample of its queries keeps (their grades alone could say otherwise)."""
        part = replace(self)
        part.__dict__["relevant_only"] = relevant_only  # the cached property's own slot
        return part

    @classmethod
    def concat(cls, parts: list[JudgedRun]) -> JudgedRun:
        """Partitions over disjoint queries put back together, in the order given."""
        first = parts[0]
        shift = np.cumsum([0] + [p.n_queries for p in parts[:-1]])

        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(p, name) for p in parts])

        def joined_offsets(name: str, values: str) -> np.ndarray:
            ends = np.cumsum([0] + [len(getattr(p, values)) for p in parts[:-1]])
            return np.concatenate([[0]] + [getattr(p, name)[1:] + e for p, e in zip(parts, ends)]).astype(np.int64)

        # Every other array is per query or per slot: the parts' arrays end to end.
        shifted = ("offsets", "ideal_offsets", "doc_ids", "judgment_doc_ids", "judgment_query")
        columns: dict[str, Any] = {
            f.name: joined(f.name) for f in fields(cls) if f.type == "np.ndarray" and f.name not in shifted
        }
        return replace(
            first,
            query_text=tuple(t for p in parts for t in p.query_text),
            query_meta=tuple(m for p in parts for m in (p.query_meta or (None,) * len(p.query_ids)))
            if any(p.query_meta for p in parts)
            else (),
            **columns,
            offsets=joined_offsets("offsets", "doc_ids"),
            ideal_offsets=joined_offsets("ideal_offsets", "ideal_grades"),
            doc_ids=np.concatenate(common_kind(*[p.doc_ids for p in parts])),
            judgment_doc_ids=np.concatenate(common_kind(*[p.judgment_doc_ids for p in parts])),
            judgment_query=np.concatenate([p.judgment_query + s for p, s in zip(parts, shift)]),
        )


def rows_of(offsets: np.ndarray, take: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``take`` (ascending) of a CSR layout: their offsets, and the positions of their items
    in the items of every row (gathered per row, not a scan of every item)."""
    lengths = np.diff(offsets)[take].astype(np.int64)
    kept = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return kept, np.repeat(offsets[:-1][take].astype(np.int64) - kept[:-1], lengths) + np.arange(kept[-1])


def grade_type(grades: np.ndarray) -> np.dtype:
    """The narrowest signed integer type that holds every grade (and 0, an unjudged slot's): int8
    for any usual scale (0 to 3, -1 for trec_eval's pooled but unjudged), 1 byte a slot. Every
    reader of the slots' grades compares them or widens them first (to int64 or float64), so
    the type changes no figure."""
    low, high = int(grades.min(initial=0)), int(grades.max(initial=0))
    for kind in (np.int8, np.int16, np.int32):
        bounds = np.iinfo(kind)
        if bounds.min <= low and high <= bounds.max:
            return np.dtype(kind)
    return np.dtype(np.int64)


def first_of_each(query: np.ndarray, rank: np.ndarray, n: int) -> np.ndarray:
    """Per query of ``n``, the ``rank`` at its first entry in ``query`` (ascending), 0 for a query with none."""
    out = np.zeros(n, dtype=np.int64)
    lead = np.ones(len(query), dtype=bool)
    lead[1:] = query[1:] != query[:-1]
    out[query[lead]] = rank[lead]
    return out


def _index_type(n: int) -> type:
    """int32 for query indices and ranks when they fit: half the memory of a per-slot int64."""
    return np.int32 if n < 2**31 else np.int64


def _exact_keys(
    slot_query: np.ndarray, docs: np.ndarray, j_query: np.ndarray, j_docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(query, id) keys by sorting every id: the exact fallback when two hashes collide."""
    _, codes = np.unique(np.concatenate([docs, j_docs]), return_inverse=True)
    codes = codes.reshape(-1).astype(np.int64)
    n_docs = int(codes.max()) + 1 if len(codes) else 1
    slot_keys = slot_query.astype(np.int64) * n_docs + codes[: len(docs)]
    return slot_keys.astype(np.uint64), (j_query * n_docs + codes[len(docs) :]).astype(np.uint64)


def _lookup(slot_keys: np.ndarray, j_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slots whose key is among ``j_keys``, and the index of the judgment each one matches.

    A bucket table: judgments sorted by the low bits of their key, with at least twice as many
    buckets as judgments, so most slots look at one bucket holding one key or none. The loop runs
    over the deepest bucket's size (a handful), never over slots or queries.
    """
    if len(j_keys) == 0 or len(slot_keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    buckets = 1 << max(10, (2 * len(j_keys)).bit_length())
    mask = np.uint64(buckets - 1)
    j_bucket = (j_keys & mask).view(np.int64)
    j_order = np.argsort(j_bucket, kind="stable")
    j_sorted = j_keys[j_order]
    index_type = np.int32 if len(j_keys) < 2**31 else np.int64  # half the cache the tables take
    counts = np.bincount(j_bucket, minlength=buckets).astype(index_type)
    starts = np.empty(buckets, dtype=index_type)  # where each bucket starts: the counts before it
    starts[0] = 0
    np.cumsum(counts[:-1], out=starts[1:])
    nonempty = counts > 0
    deepest = int(counts.max())

    def look_up(block: int) -> tuple[np.ndarray, np.ndarray]:
        keys = slot_keys[block : block + _LOOKUP_BLOCK]  # blocks bound the temporaries
        bucket = (keys & mask).view(np.int64)
        look = np.flatnonzero(nonempty[bucket])
        first = starts[bucket[look]]
        size = counts[bucket[look]]
        hits, matches = [], []
        for depth in range(deepest):
            deep = np.flatnonzero(size > depth) if depth else np.arange(len(look))
            at = first[deep] + depth
            found = j_sorted[at] == keys[look[deep]]
            hits.append(look[deep[found]] + block)
            matches.append(j_order[at[found]])
        if len(hits) == 1:  # one key a bucket: the hits are in slot order already
            return hits[0], matches[0]
        # Put in slot order within the block, on its thread: blocks cover ascending slots, so
        # the blocks one after another are in slot order (what one sort of them all would give).
        hit, match = np.concatenate(hits), np.concatenate(matches)
        order = np.argsort(hit, kind="stable")
        return hit[order], match[order]

    parts = thread_map(look_up, range(0, len(slot_keys), _LOOKUP_BLOCK))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


_LOOKUP_BLOCK = 1 << 20


def _repeats(
    offsets: np.ndarray, keys: np.ndarray, docs: np.ndarray, slot_query: np.ndarray, threads: int = THREADS
) -> np.ndarray:
    """Slots holding an id already seen higher in the same list.

    Keys are sorted per query (as rows of a padded matrix, or within blocks of whole queries when
    list lengths differ too much), on ``threads`` threads; equal keys are always in one query, and
    only when two are equal are the ids themselves compared.
    """
    repeat = np.zeros(len(keys), dtype=bool)
    bounds = query_blocks(offsets)
    top = np.iinfo(np.uint64).max

    def doubled_in(block: tuple[int, int]) -> np.ndarray:
        values = keys[offsets[block[0]] : offsets[block[1]]]
        local = offsets[block[0] : block[1] + 1] - offsets[block[0]]
        lengths = np.diff(local)
        depth = int(lengths.max()) if len(lengths) else 0
        if depth > 1 and len(lengths) * depth <= 2 * len(values) + (1 << 16) and not (values == top).any():
            # Each query's keys as a row, sorted along the row: short sorts, padding (top) last.
            ranked = np.sort(as_matrix(values, local, lengths, depth, top), axis=1)
            equal = (ranked[:, 1:] == ranked[:, :-1]) & (np.arange(1, depth)[None, :] < lengths[:, None])
            return ranked[:, 1:][equal]
        ranked = np.sort(values)
        return ranked[1:][ranked[1:] == ranked[:-1]]

    parts = thread_map(doubled_in, zip(bounds[:-1], bounds[1:]), threads)
    doubled = np.concatenate(parts) if parts else np.zeros(0, dtype=keys.dtype)
    if len(doubled) == 0:
        return repeat
    candidates = _members(keys, np.unique(doubled))
    order = np.lexsort((candidates, docs[candidates], slot_query[candidates]))
    ranked = candidates[order]
    same = (docs[ranked[1:]] == docs[ranked[:-1]]) & (slot_query[ranked[1:]] == slot_query[ranked[:-1]])
    repeat[ranked[1:][same]] = True
    return repeat


def _members(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The positions of the keys found among ``wanted`` (sorted, distinct), in order: a binary
    search a block of keys at a time. ``np.isin`` sorts the keys and ``wanted`` together once there
    are more than a few dozen wanted, with its copies, sort order and masks over every slot (about
    four times the keys' own 80 MB at 10 million slots); a block's search bounds that to a few MB."""
    found = []
    for start in range(0, len(keys), _LOOKUP_BLOCK):
        block = keys[start : start + _LOOKUP_BLOCK]
        at = np.minimum(np.searchsorted(wanted, block), len(wanted) - 1)
        found.append(np.flatnonzero(wanted[at] == block) + start)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def join(run: Run, judgments: Judgments, level: int = 1) -> JudgedRun:
    """Align ``run`` with ``judgments`` (see :class:`JudgedRun`); grades of ``level`` and above are
    relevant (``--relevance-level``, docs/conventions.md section 15).

    Each (query, id) pair is hashed to 64 bits; run slots are looked up among the sorted judgment
    hashes, and every hit is confirmed on the ids themselves, so a collision cannot pass as a match
    (should one happen, the exact keys from sorting every id take over).
    """
    run_qids = run.query_ids.tolist()
    n_judged = len(judgments.query_ids)
    if n_judged <= len(run_qids) and np.array_equal(judgments.query_ids, run.query_ids[:n_judged]):
        # The judgments' queries are the run's first ones, in its order (the usual pair of files):
        # no judged-only query, and the i-th judged query is the run's i-th. No dict of strings.
        judged_only: list[str] = []
        j_query_local = np.arange(n_judged, dtype=np.int64)
        query_ids = np.array(run_qids, dtype=str)
    else:
        known = dict.fromkeys(run_qids)
        judged_only = [q for q in judgments.query_ids.tolist() if q not in known]
        query_ids = np.array(run_qids + judged_only, dtype=str)
        index = {q: i for i, q in enumerate(query_ids.tolist())}
        j_query_local = np.array([index[q] for q in judgments.query_ids.tolist()], dtype=np.int64)
    n_q = len(query_ids)
    n_run = len(run_qids)

    run_lengths = np.diff(run.offsets)
    slot_query: np.ndarray = np.repeat(np.arange(n_run, dtype=_index_type(n_q)), run_lengths)
    j_lengths = np.diff(judgments.offsets)
    j_query = np.repeat(j_query_local, j_lengths)
    docs, j_docs = common_kind(run.doc_ids, judgments.doc_ids)

    slot_keys = hash_ids(docs, query=slot_query)
    j_keys = hash_ids(j_docs, query=j_query)
    hit, match = _lookup(slot_keys, j_keys)
    confirmed = (docs[hit] == j_docs[match]) & (slot_query[hit] == j_query[match])
    if not confirmed.all() or has_duplicates(j_keys):
        slot_keys, j_keys = _exact_keys(slot_query, docs, j_query, j_docs)
        hit, match = _lookup(slot_keys, j_keys)
    judged = np.zeros(len(docs), dtype=bool)
    judged[hit] = True
    grades = np.zeros(len(docs), dtype=grade_type(judgments.grades))  # int8 for any usual scale: 1 byte a slot
    grades[hit] = judgments.grades[match]
    repeat = _repeats(run.offsets, slot_keys, docs, slot_query)

    relevant = np.bincount(j_query[judgments.grades >= level], minlength=n_q).astype(np.int64)
    positive = judgments.grades >= 1  # every grade that gains, relevant or not
    ideal_q = j_query[positive]
    ideal_g = judgments.grades[positive]
    ideal_order = np.lexsort((-ideal_g, ideal_q))

    in_run = np.arange(n_q) < n_run
    has_judgments = np.zeros(n_q, dtype=bool)
    has_judgments[j_query_local] = True  # listed in the judgments, even with no id

    texts = tuple(run.query_text) if run.query_text else (None,) * n_run
    lengths = np.concatenate([run_lengths, np.zeros(len(judged_only), dtype=run_lengths.dtype)]).astype(np.int64)
    relevant_slots = np.flatnonzero(judged & ~repeat & (grades >= level))
    relevant_query = slot_query[relevant_slots]
    first_relevant = first_of_each(relevant_query, relevant_slots - run.offsets[relevant_query] + 1, n_q)

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
        doc_ids=run.doc_ids,
        grades=grades,
        judged=judged,
        repeat=repeat,
        ideal_offsets=np.concatenate([[0], np.cumsum(np.bincount(ideal_q, minlength=n_q))]).astype(np.int64),
        ideal_grades=ideal_g[ideal_order].astype(np.int64),
        retrieved=lengths,
        repeats=np.bincount(slot_query[repeat], minlength=n_q).astype(np.int64),
        relevant_retrieved=np.bincount(relevant_query, minlength=n_q).astype(np.int64),
        first_relevant=first_relevant,
        judgment_query=j_query,
        judgment_doc_ids=judgments.doc_ids,
        judgment_grades=np.asarray(judgments.grades, dtype=np.int64),
        level=level,
        query_meta=(tuple(run.query_meta) + (None,) * len(judged_only)) if run.query_meta else (),
        doc_text=run.doc_text,
        judgments_source=str(judgments.source or ""),
        steps=None
        if run.steps is None
        else np.concatenate([run.steps, np.zeros((len(judged_only), run.steps.shape[1]), dtype=np.int64)]),
    )
