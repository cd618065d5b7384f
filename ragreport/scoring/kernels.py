"""The kernels of the catalogue's entries (:mod:`ragreport.scoring.catalogue`), vectorised over a
block's queries.

**Kernels.** A kernel maps a block's :class:`~ragreport.scoring.sums.Sums` (the per-rank sums
of :mod:`ragreport.scoring.sums`, each computed once per block of queries) to a (queries x
cutoffs) matrix; the block stacks the kernels in catalogue order. With ``rel_i`` = 1 when rank
``i`` holds the first occurrence of an id graded 1 or more (the relevance level,
``--relevance-level``; nDCG gains from every grade of 1 or more whatever it is),
``hits@k = sum_{i<=k} rel_i``, R = the query's relevant ids and ``D`` = R (or ``min(R, k)`` under
``--denominator min``):

- ``P@k = hits@k / k`` (always k, also for a shorter list); ``R@k = hits@k / D``;
  ``Hit@k = [hits@k >= 1]``; ``RR@k = 1 / f`` for the first relevant rank ``f <= k``, else 0;
- ``AP@k = sum_{i<=k} rel_i * hits@i / i / D``; ``CP@k`` is the same sum over ``hits@k``;
- ``nDCG@k = DCG@k / IDCG@k`` with ``DCG@k = sum_{i<=k} gain(g_i) / log2(i + 1)`` (a repeat gains
  nothing) and IDCG@k the same sum over every judged grade of the query sorted high to low;
- ``Judged@k`` = the slots within k holding the first occurrence of an id judged for the query,
  with any grade (0 and negative included), divided by k: empty slots and repeats count as
  unjudged. A diagnostic of the labels, in the suite but not compared;
- whole-list measures (no cutoff): ``Rprec = hits@R / R``; the counts ``NumQ`` = 1,
  ``NumRel`` = R, ``NumRet`` = the list's length (repeats included), ``NumRelRet`` = the distinct
  relevant ids anywhere in the list.

A denominator that vanishes gives 0, never NaN.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # a kernel reads a block's sums, which scoring builds (ragreport.scoring.metrics)
    from .catalogue import Value
    from .sums import Sums


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0 (the block silences the warning)."""
    return np.where(denominator > 0, numerator / denominator, 0.0)


def reciprocal_rank(first: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``1 / f`` for the first relevant rank ``f`` (0: none) when ``f <= k``, else 0."""
    return np.where((first > 0) & (first <= k), 1.0 / np.maximum(first, 1), 0.0)


def bpref(s: Sums) -> np.ndarray:
    """trec_eval's bpref: ``1/R * sum over relevant ranks r of (1 - min(n_r, R) / min(N, R))``, n_r
    the judged non-relevant ids above r, N the query's; unjudged ids are skipped (1 when n_r = 0)."""
    above = np.cumsum(s.nonrelevant_slots, axis=1)  # at a relevant rank: the non-relevant ids above it
    r = s.relevant[:, None].astype(np.float64)
    least = np.minimum(s.nonrelevant[:, None], s.relevant[:, None]).astype(np.float64)
    term = np.where(above > 0, 1.0 - np.minimum(above, r) / np.where(least > 0, least, 1.0), 1.0)
    return s.per_query(ratio(np.where(s.relevant_slots, term, 0.0).sum(axis=1), s.relevant))


#: trec_eval's INFAP_EPSILON (trec_eval.h), which keeps infAP's ratio finite.
INFAP_EPSILON = 0.00001
#: trec_eval's MIN_GEO_MEAN: gm_map floors each query's AP at it before taking the logarithm.
GEOMETRIC_EPSILON = 0.00001


def inf_ap(s: Sums) -> np.ndarray:
    """trec_eval's infAP (Yilmaz and Aslam 2006): at the relevant rank j + 1 (j >= 1),
    ``1/(j+1) + j/(j+1) * (h + n + u)/j * (h + e)/(h + n + 2e)`` with h the relevant ids above,
    n the judged non-relevant, u the pooled-unjudged (negative grade) ones above and e = 1e-5;
    1 at rank 1; summed and divided by R."""
    h = s.cum_hits - 1.0  # the relevant ids above a relevant rank
    n = np.cumsum(s.nonrelevant_slots, axis=1)
    u = np.cumsum(s.pooled_unjudged_slots, axis=1)
    j = s.ranks - 1.0
    e = INFAP_EPSILON
    later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((h + n + u) / np.maximum(j, 1.0)) * ((h + e) / (h + n + 2 * e))
    term = np.where(j == 0, 1.0, later)
    return s.per_query(ratio(np.where(s.relevant_slots, term, 0.0).sum(axis=1), s.relevant))


def rbp(s: Sums) -> np.ndarray:
    """RBP@k (Moffat and Zobel 2008): ``(1 - p) * sum_{i<=k} p^(i - 1) * gain_i``. The gain is 1 for
    a relevant id (binary at the level: a measure with ``rel``), or, with ``values["graded"]``
    (ir_measures' RBP without ``rel``), the grade of an id graded 1 or more; unjudged ids, grades
    below 1 and repeats gain nothing."""
    if s.values.get("graded"):
        grades = s._pad(s.judged.grades)
        gains = np.where(s.first_slots & (grades >= 1), grades, 0)  # unjudged slots hold grade 0
    else:
        gains = s.relevant_slots
    return np.cumsum(gains * s.persistence_weights, axis=1)[:, s.columns]


def rbp_residual(s: Sums) -> np.ndarray:
    """The most RBP could rise: the weight of every cell within k that could still be relevant
    (unjudged, graded negative, or past the list's end); a whole-list figure adds ``p^depth``,
    every rank beyond. Graded, an unjudged id could hold the top grade of the judgments
    (``values["top_grade"]``), so the weights are that many times larger."""
    within = np.cumsum(np.where(s.unjudged_cells, s.persistence_weights, 0.0), axis=1)[:, s.columns]
    if s.values.get("whole"):
        within = within + np.power(float(s.values["p"]), s.k)
    return within * s.values["top_grade"] if s.values.get("graded") else within


def err(s: Sums) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009): ``sum_r 1/r * R_r * prod_{i<r} (1 - R_i)``,
    ``R_g = (2^g - 1) / 2^g_max``, grades above g_max read as g_max, below 1 as 0; a repeat gains nothing."""
    top = int(s.values.get("max_grade") or s.values["top_grade"])
    grades = np.clip(s._pad(s.judged.grades).astype(np.int64), 0, top)
    stop = np.where(s.first_slots & (grades >= 1), np.exp2((grades - top).astype(np.float64)) - np.exp2(-top), 0.0)
    going_on = np.cumprod(1.0 - stop, axis=1)
    before = np.concatenate([np.ones((len(stop), 1)), going_on[:, :-1]], axis=1)
    return np.cumsum(stop * before / s.ranks, axis=1)[:, s.columns]


def iprec_at(s: Sums, level: float) -> np.ndarray:
    """trec_eval's iprec_at_recall (v10) of every query of the block at one recall level: c =
    round(level x R) relevant ids (half away from 0); the largest precision at or below the rank of
    the c-th (the first when c = 0); 0 when fewer than c relevant ids came back. The sums read
    (:attr:`~ragreport.scoring.sums.Sums.best_precision_below`) are shared by every level."""
    r = s.relevant.astype(np.float64)
    wanted = np.floor(level * r)
    wanted += (level * r - wanted) >= 0.5
    got = s.cum_hits[:, -1]
    rank = np.argmax(s.cum_hits >= np.maximum(wanted, 1)[:, None], axis=1)
    value = np.take_along_axis(s.best_precision_below, rank[:, None], axis=1)[:, 0]
    return np.where((wanted <= got) & (got > 0), value, 0.0)


def iprec(s: Sums) -> np.ndarray:
    return s.per_query(iprec_at(s, float(s.values["recall"])))


def recall_level_words(values: Mapping[str, Value | None], places: int | None = None) -> str:
    """IPrec's recall level as its sentence prints it (L when the sentence is read without one)."""
    level = values.get("recall")
    if level is None:
        return "L"
    return f"{float(level):.{places}f}" if places is not None else str(level)
