"""trec_eval's ranking order within each query: score high to low, ties broken by id in descending
byte order (``strcmp``), computed without sorting the whole run; with ``ascending``, ties by id in
ascending byte order instead (ir_measures' RR@k, :attr:`~ragreport.core.model.Order.IR_MEASURES_RR`).

Run files almost always list each query's lines together and by falling score, so the only work
left is inside runs of tied scores. Those are sorted per query at once, as rows of a padded
``queries x depth`` matrix of 64-bit keys: the tie group's index within its query in the high
bits, the first 8 bytes where ids differ in the low bits. Any tie group where two keys come out
equal (ids longer than the key holds) is then sorted exactly on the full ids. Files in another
order take one general sort.
"""

from __future__ import annotations

import numpy as np

from ..core.ids import THREADS, as_bytes, padded_words, thread_map


def _first_distinct_word(words: np.ndarray) -> np.ndarray:
    """The first word column where ids differ (a shared prefix such as ``msmarco_passage_`` tells
    nothing), as big-endian numbers so that numeric order is byte order."""
    for j in range(words.shape[1]):
        column = words[:, j]
        if (column != column[0]).any():
            return column.byteswap()
    return words[:, 0].byteswap()


def as_matrix(values: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, depth: int, fill) -> np.ndarray:
    """``values`` (CSR by ``offsets``) as a ``queries x depth`` matrix; a view when every query has
    ``depth`` slots."""
    if (lengths == depth).all():
        return values.reshape(len(lengths), depth)
    matrix = np.full((len(lengths), depth), fill, dtype=values.dtype)
    keep = np.arange(depth)[None, :] < lengths[:, None]
    matrix[keep] = values
    return matrix


#: Slots ordered per block: bounds the memory the keys take.
BLOCK_SLOTS = 1 << 19


def order_in_place(
    offsets: np.ndarray, ids: np.ndarray, scores: np.ndarray, threads: int = THREADS, *, ascending: bool = False
) -> None:
    """Reorder ``ids`` in place so that each query's slots (CSR by ``offsets``) are in trec_eval's
    order (with ``ascending``, tied scores by id up). Queries are taken in blocks of about
    :data:`BLOCK_SLOTS` slots, on ``threads`` threads."""
    if len(ids) < 2:
        return
    bounds = query_blocks(offsets)
    thread_map(
        lambda b: _order_block(offsets[b[0] : b[1] + 1], ids, scores, ascending), zip(bounds[:-1], bounds[1:]), threads
    )


def query_blocks(offsets: np.ndarray) -> np.ndarray:
    """Query indices cutting the run into blocks of about BLOCK_SLOTS slots (whole queries)."""
    targets = np.arange(BLOCK_SLOTS, int(offsets[-1]), BLOCK_SLOTS)
    cuts = np.searchsorted(offsets, targets)
    return np.unique(np.concatenate(([0], cuts, [len(offsets) - 1])))


def _order_block(offsets: np.ndarray, all_ids: np.ndarray, all_scores: np.ndarray, ascending: bool) -> None:
    lo, hi = int(offsets[0]), int(offsets[-1])
    if hi - lo < 2:
        return
    block, scores = all_ids[lo:hi], all_scores[lo:hi]
    offsets = offsets - lo
    ids = as_bytes(block)  # byte order is trec_eval's strcmp order
    lengths = np.diff(offsets)
    depth = int(lengths.max())
    group_bits = max(depth.bit_length(), 1)
    sparse = len(lengths) * depth > 2 * len(block) + (1 << 16) or group_bits > 32
    score_matrix = None if sparse else as_matrix(scores, offsets, lengths, depth, -np.inf)
    if score_matrix is None or (score_matrix[:, 1:] > score_matrix[:, :-1]).any():  # padding is -inf: never rising
        slot_query = np.repeat(np.arange(len(lengths)), lengths)
        if ascending:  # (query up, score down, id up)
            block[:] = block[np.lexsort((ids, -scores, slot_query))]
        else:  # ascending (-query, score, id) read backwards is (query up, score down, id down)
            block[:] = block[np.lexsort((ids, scores, -slot_query))[::-1]]
        return
    tied = score_matrix[:, 1:] == score_matrix[:, :-1]
    del score_matrix
    if not tied.any():
        return

    # Key: tie group within the query (high bits), then the first distinct 8 bytes of the id,
    # inverted so that ascending keys give descending ids (unless ``ascending``).
    group = np.zeros((len(lengths), depth), dtype=np.uint64)
    np.cumsum(~tied, axis=1, out=group[:, 1:])
    del tied
    words = padded_words(ids)
    key = _first_distinct_word(words)
    lost_bits = words.shape[1] > 1 or bool((key & np.uint64((1 << group_bits) - 1)).any())
    if not ascending:
        np.invert(key, out=key)
    key >>= np.uint64(group_bits)
    key_matrix = as_matrix(key, offsets, lengths, depth, np.iinfo(np.uint64).max)
    group <<= np.uint64(64 - group_bits)
    key_matrix |= group
    del key, group
    # Stable (timsort): keys rise group by group, so each row is runs already in order, which
    # timsort merges in about half the time of a quicksort. Equal keys are the same id (the
    # clash step below sorts ids the key could not tell apart), so the order is the same. The
    # padding sorts last, and is left out of the flat slot permutation.
    valid = np.arange(depth)[None, :] < lengths[:, None]
    perm = (np.argsort(key_matrix, axis=1, kind="stable") + offsets[:-1, None])[valid]

    if lost_bits:
        # Equal keys are ids the key could not tell apart (or repeats): sort those exactly.
        slot_query = np.repeat(np.arange(len(lengths)), lengths)
        flat_keys = key_matrix.reshape(-1)[slot_query * depth + (perm - offsets[:-1][slot_query])]
        clash = np.flatnonzero((flat_keys[1:] == flat_keys[:-1]) & (slot_query[1:] == slot_query[:-1]))
        if len(clash):
            rows = np.unique(np.concatenate((clash, clash + 1)))
            run_key = flat_keys[rows]
            run_start = np.concatenate(
                (
                    [True],
                    (run_key[1:] != run_key[:-1])
                    | (slot_query[rows[1:]] != slot_query[rows[:-1]])
                    | (rows[1:] != rows[:-1] + 1),
                )
            )
            run_id = np.cumsum(run_start)
            slots = perm[rows]
            # Ascending by (run, id); for trec_eval each run's slice then reversed (index arithmetic,
            # no loop over runs): ascending run, descending id.
            exact = np.lexsort((ids[slots], run_id))
            if not ascending:
                g = run_id[exact]
                starts = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
                ends = np.append(starts[1:], len(g))
                group_of = np.repeat(np.arange(len(starts)), ends - starts)
                exact = exact[starts[group_of] + ends[group_of] - 1 - np.arange(len(g))]
            perm[rows] = slots[exact]
    block[:] = block[perm]
