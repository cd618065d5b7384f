"""The seven metrics of SPEC.md section 2, declared once and computed over all queries at once.

Scoring lays the run out as padded rank matrices (queries x depth, depth = the largest cutoff
asked for), takes cumulative sums along the ranks, and reads every metric at every cutoff off those
sums. Queries are taken in blocks of whole queries so that a matrix stays near 16 MB however large
the run; there is no Python loop over queries, ranks or cutoffs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .join import JudgedRun
from ..core.model import Conventions, Denominator, Missing, NoRelevant


@dataclass(frozen=True)
class Metric:
    """One metric: its key (``P``), its name, its interval, its trec_eval twin and its convention.

    ``convention(k, conventions)`` is the sentence the report prints beside every figure.
    """

    key: str
    name: str
    interval: str
    trec_eval: str | None
    _describe: Callable[[int, Conventions], str]

    def label(self, k: int) -> str:
        return f"{self.key}@{k}"

    def convention(self, k: int, conventions: Conventions) -> str:
        return self._describe(k, conventions)

    def trec_eval_name(self, k: int) -> str | None:
        return None if self.trec_eval is None else self.trec_eval.format(k=k)


def _denominator_words(conventions: Conventions, k: int) -> str:
    if conventions.denominator is Denominator.MIN:
        return f"min(R, {k}), so a top {k} holding only relevant ids scores 1 even when R > {k}"
    return f"R, every id judged relevant, so it cannot reach 1 when R > {k}"


PRECISION = Metric(
    "P", "Precision", "bootstrap", "P_{k}",
    lambda k, c: (f"Distinct relevant ids in the top {k} divided by {k}, even when fewer than {k} "
                  f"came back; a repeated id counts as a wrong one (as trec_eval's P_{k})."),
)
RECALL = Metric(
    "R", "Recall", "bootstrap", "recall_{k}",
    lambda k, c: (f"Distinct relevant ids in the top {k} divided by {_denominator_words(c, k)}"
                  + (f" (as trec_eval's recall_{k})." if c.denominator is Denominator.RELEVANT
                     else " (trec_eval divides by R).")),
)
HIT = Metric(
    "Hit", "Hit rate", "wilson", "success_{k}",
    lambda k, c: (f"1 when at least one relevant id is in the top {k}, else 0; the mean is the "
                  f"share of queries with a hit (as trec_eval's success_{k})."),
)
RECIPROCAL_RANK = Metric(
    "RR", "Reciprocal rank", "bootstrap", "recip_rank",
    lambda k, c: (f"1 / rank of the first relevant id when it lies within the top {k}, else 0; "
                  f"the mean is MRR@{k} (trec_eval's recip_rank when {k} covers the whole list)."),
)
AVERAGE_PRECISION = Metric(
    "AP", "Average precision", "bootstrap", "map_cut_{k}",
    lambda k, c: (f"Precision at each rank within {k} that holds a relevant id, summed and divided "
                  f"by {_denominator_words(c, k)}; the mean is MAP@{k}"
                  + (f" (as trec_eval's map_cut_{k})." if c.denominator is Denominator.RELEVANT
                     else " (trec_eval divides by R).")),
)
NDCG = Metric(
    "nDCG", "Normalised DCG", "bootstrap", "ndcg_cut_{k}",
    lambda k, c: (f"DCG@{k} with {c.gain.value} gain and a 1 / log2(rank + 1) discount, over the "
                  f"DCG@{k} of every judged grade of the query sorted high to low, retrieved or not"
                  + (f" (as trec_eval's ndcg_cut_{k})." if c.gain.value == "linear"
                     else " (trec_eval uses linear gain).")),
)
CONTEXT_PRECISION = Metric(
    "CP", "Context precision (RAGAS)", "bootstrap", None,
    lambda k, c: (f"RAGAS context precision: precision at each relevant rank within {k}, summed "
                  f"and divided by the hits in the top {k} (0 without a hit); equals AP@{k} only "
                  f"when every relevant id lies within {k}. No trec_eval twin."),
)

#: Every metric, in the order tables print them.
METRICS: tuple[Metric, ...] = (PRECISION, RECALL, HIT, RECIPROCAL_RANK, AVERAGE_PRECISION, NDCG,
                               CONTEXT_PRECISION)
METRIC_BY_KEY: dict[str, Metric] = {m.key: m for m in METRICS}


#: The rules no switch changes, stated where the kernel below implements them (SPEC.md sections 1-3).
FIXED_RULES: tuple[tuple[str, str], ...] = (
    ("Relevance", "An id is relevant when its grade is 1 or more; grade 0 and negative grades are judged not "
                  "relevant and gain nothing. An id nobody judged counts as not relevant."),
    ("Precision denominator", "Precision@K always divides by K, also when fewer than K ids came back: empty "
                              "slots cost Precision like wrong ids, as in trec_eval's P_K."),
    ("Repeated ids", "A repeated id keeps its rank slot, only its first occurrence can score, and the repeat "
                     "counts as a non-relevant slot. trec_eval refuses such a run instead."),
    ("Queries without judgments", "A query the run has but the judgments lack has R = 0: left out and counted."),
    ("Ideal ranking", "IDCG@K sorts every judged grade of the query high to low, whether it was retrieved or not."),
)


@dataclass(frozen=True)
class QueryScores:
    """Per-query scores of one run at several cutoffs.

    ``values[m, q, c]`` is metric ``METRICS[m]`` of query ``q`` at ``cutoffs[c]``. Queries that are
    not ``scored`` (no relevant id, or missing from the run under ``--missing skip``) still hold
    values (0 where a denominator vanishes); every average must use ``scored``.
    ``first_relevant_rank`` is over the whole list (0 when no relevant id was retrieved).
    """

    cutoffs: np.ndarray
    values: np.ndarray
    hits: np.ndarray
    scored: np.ndarray
    first_relevant_rank: np.ndarray

    def column(self, k: int) -> int:
        found = np.flatnonzero(self.cutoffs == k)
        if not len(found):
            raise KeyError(f"cutoff {k} was not scored")
        return int(found[0])

    def of(self, metric: Metric, k: int) -> np.ndarray:
        return self.values[METRICS.index(metric), :, self.column(k)]

    @classmethod
    def concat(cls, parts: "Sequence[QueryScores]") -> "QueryScores":
        """Scores of partitions over disjoint queries (same cutoffs), in the order given."""
        return cls(cutoffs=parts[0].cutoffs, values=np.concatenate([p.values for p in parts], axis=1),
                   hits=np.concatenate([p.hits for p in parts]), scored=np.concatenate([p.scored for p in parts]),
                   first_relevant_rank=np.concatenate([p.first_relevant_rank for p in parts]))


def _padded(offsets: np.ndarray, depth: int, *slot_arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Slot arrays laid out as (queries, depth) matrices; positions past a list's end are invalid.

    Returns the ``valid`` mask followed by each array padded (padding values are unspecified and
    must be masked by ``valid``).
    """
    lengths = np.diff(offsets)
    ranks = np.arange(depth, dtype=np.int64)
    valid = ranks[None, :] < lengths[:, None]
    index = offsets[:-1, None] + ranks[None, :]
    index = np.where(valid, index, 0)
    out = [valid]
    for array in slot_arrays:
        if len(array) == 0:
            out.append(np.zeros(valid.shape, dtype=array.dtype))
        else:
            out.append(array[index])
    return tuple(out)


def cumulative_dcg(gains: np.ndarray) -> np.ndarray:
    """DCG at every depth: ``out[q, k-1] = sum_{i<=k} gains[q, i-1] / log2(i + 1)``.

    Example: gains 3, 2, 3, 0, 1, 2 give DCG@6 = 6.861; their ideal order 3, 3, 2, 2, 1 gives 7.141.
    """
    gains = np.atleast_2d(np.asarray(gains, dtype=np.float64))
    discount = 1.0 / np.log2(np.arange(2, gains.shape[1] + 2, dtype=np.float64))
    return np.cumsum(gains * discount, axis=1)


#: Cells of one (queries x depth) matrix in :func:`score`: 16 MB of float64.
_BLOCK_CELLS = 1 << 21


def _score_block(judged: JudgedRun, slot_relevant: np.ndarray, lo: int, hi: int, cutoffs: np.ndarray,
                 conventions: Conventions) -> tuple[np.ndarray, np.ndarray]:
    """Every metric at every cutoff for queries ``lo:hi``: (metrics x queries x cutoffs), and hits."""
    depth = int(cutoffs[-1])
    columns = cutoffs - 1
    valid, relevant_mat, grade_mat, repeat_mat = _padded(judged.offsets[lo:hi + 1], depth, slot_relevant,
                                                         judged.grades, judged.repeat)
    relevant_mat &= valid
    gain_mat = np.where(valid & ~repeat_mat, conventions.gain.apply(grade_mat), 0.0)
    del grade_mat, repeat_mat

    ranks = np.arange(1, depth + 1, dtype=np.float64)
    cum_hits = np.cumsum(relevant_mat, axis=1, dtype=np.int64)
    cum_ap = np.cumsum(np.where(relevant_mat, cum_hits / ranks, 0.0), axis=1)
    cum_dcg = cumulative_dcg(gain_mat)
    ideal_valid, ideal_grades = _padded(judged.ideal_offsets[lo:hi + 1], depth, judged.ideal_grades)
    cum_idcg = cumulative_dcg(np.where(ideal_valid, conventions.gain.apply(ideal_grades), 0.0))

    hits = cum_hits[:, columns]
    k = cutoffs[None, :].astype(np.float64)
    r = judged.relevant[lo:hi, None].astype(np.float64)
    denom = np.minimum(r, k) if conventions.denominator is Denominator.MIN else np.broadcast_to(r, hits.shape)

    any_within = relevant_mat.any(axis=1)
    first_within = np.where(any_within, np.argmax(relevant_mat, axis=1) + 1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = hits / k
        recall = np.where(denom > 0, hits / denom, 0.0)
        hit = (hits > 0).astype(np.float64)
        rr = np.where((first_within[:, None] > 0) & (first_within[:, None] <= k),
                      1.0 / np.maximum(first_within[:, None], 1), 0.0)
        ap_sum = cum_ap[:, columns]
        ap = np.where(denom > 0, ap_sum / denom, 0.0)
        idcg = cum_idcg[:, columns]
        ndcg = np.where(idcg > 0, cum_dcg[:, columns] / np.where(idcg > 0, idcg, 1.0), 0.0)
        cp = np.where(hits > 0, ap_sum / np.maximum(hits, 1), 0.0)
    return np.stack([precision, recall, hit, rr, ap, ndcg, cp]), hits


def score(judged: JudgedRun, cutoffs: Sequence[int], conventions: Conventions) -> QueryScores:
    """Score every query of ``judged`` at every cutoff in ``cutoffs``.

    With ``rel_i`` = 1 when rank ``i`` holds the first occurrence of a relevant id (grade >= 1),
    ``hits@k = sum_{i<=k} rel_i`` and R = the number of relevant ids:

    - ``P@k = hits@k / k``; ``R@k = hits@k / D`` with ``D = R`` or ``min(R, k)``;
      ``Hit@k = [hits@k >= 1]``; ``RR@k = 1 / f`` for the first relevant rank ``f <= k``, else 0;
    - ``AP@k = sum_{i<=k} rel_i * hits@i / i / D``; ``CP@k`` is the same sum over ``hits@k`` (0
      when no hit);
    - ``nDCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)`` over the same sum for the query's judged
      grades sorted high to low. A repeat keeps its slot and gains nothing.

    A query with R = 0 scores 0 everywhere and is not ``scored`` (under ``no_relevant`` ``zero`` a
    judged one is); a judged query missing from the run is an empty list (0 everywhere), scored
    unless ``conventions.missing`` is ``skip``.
    """
    cutoffs = np.asarray(sorted(set(int(k) for k in cutoffs)), dtype=np.int64)
    if len(cutoffs) == 0 or cutoffs[0] < 1:
        raise ValueError("cutoffs must be positive integers")
    depth = int(cutoffs[-1])
    n = judged.n_queries
    values = np.zeros((len(METRICS), n, len(cutoffs)))
    hits = np.zeros((n, len(cutoffs)), dtype=np.int64)
    slot_relevant = judged.slot_relevant
    # Blocks of whole queries bound the (queries x depth) matrices to about _BLOCK_CELLS cells
    # each; within a block every query, rank and cutoff is one array operation.
    block = max(1, _BLOCK_CELLS // depth)
    for lo in range(0, n, block):
        hi = min(n, lo + block)
        values[:, lo:hi], hits[lo:hi] = _score_block(judged, slot_relevant, lo, hi, cutoffs, conventions)

    scored = judged.relevant > 0
    if conventions.no_relevant is NoRelevant.ZERO:
        scored |= judged.has_judgments  # judged, nothing relevant: averaged in as 0, as trec_eval does
    if conventions.missing is Missing.SKIP:
        scored &= judged.in_run

    return QueryScores(
        cutoffs=cutoffs,
        values=values,
        hits=hits,
        scored=scored,
        first_relevant_rank=judged.first_relevant,
    )
