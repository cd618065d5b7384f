"""The per-rank sums every metric's kernel reads, computed once per block of queries.

Scoring (:func:`ragreport.scoring.metrics.score`) takes queries in blocks and builds one
:class:`Sums` per block: the per-rank cumulative sums every metric reads (hits, the running
precision sum of AP, DCG and the ideal DCG, the first relevant rank, R and the Recall/AP
denominator), each computed once, on first use, over every query of the block at once. A kernel
(:attr:`ragreport.scoring.catalogue.Metric.kernel`) maps the block's sums to a (queries x cutoffs)
matrix. A metric whose kernel needs a sum this class lacks adds one ``cached_property`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.model import Conventions, Denominator

if TYPE_CHECKING:
    from .join import JudgedRun


class Sums:
    """The shared per-rank sums of queries ``lo:hi`` of a run, each computed once, when first read.

    The run's slots are laid out as (queries x ``depth``) matrices, cells past a list's end being
    empty; a ``*_at`` sum or a per-cutoff figure is read at ``cutoffs`` (queries x cutoffs). Kernels
    read only the sums they need, so a block scoring Precision alone never computes a DCG.
    ``depth`` must reach the largest cutoff, and the largest R of the block when a whole-list
    measure is read (:func:`ragreport.scoring.metrics.score` sees to both).
    """

    def __init__(
        self,
        judged: JudgedRun,
        lo: int,
        hi: int,
        cutoffs: np.ndarray,
        depth: int,
        conventions: Conventions,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        self.judged = judged
        #: The parameters of the measures scored off these sums (RBP's ``p``), by name.
        self.values: Mapping[str, Any] = values or {}
        self.lo, self.hi = lo, hi
        self.cutoffs = cutoffs
        self.columns = cutoffs - 1
        self.depth = depth
        self.conventions = conventions
        #: R: the query's ids graded the relevance level or more, retrieved or not (int).
        self.relevant = judged.relevant[lo:hi]
        #: The whole list's length, repeats included, and its distinct relevant ids (whole-list
        #: facts: true of any head).
        self.retrieved = judged.retrieved[lo:hi]
        self.relevant_retrieved = judged.relevant_retrieved[lo:hi]

    # --- the layout ----------------------------------------------------------------------------

    @cached_property
    def _layout(self) -> tuple[np.ndarray, np.ndarray]:
        """(valid, index): which cells hold a slot, and which slot (0 where empty)."""
        return _layout(self.judged.offsets[self.lo : self.hi + 1], self.depth)

    def _pad(self, slot_array: np.ndarray) -> np.ndarray:
        """A per-slot array as a (queries x depth) matrix; empty cells hold junk, masked by ``valid``."""
        valid, index = self._layout
        return np.zeros(valid.shape, dtype=slot_array.dtype) if len(slot_array) == 0 else slot_array[index]

    @property
    def valid(self) -> np.ndarray:
        return self._layout[0]

    # --- per query -----------------------------------------------------------------------------

    @cached_property
    def first_relevant(self) -> np.ndarray:
        """The rank of the first relevant id within ``depth`` (0: none)."""
        relevant = self.relevant_slots
        return np.where(relevant.any(axis=1), np.argmax(relevant, axis=1) + 1, 0)

    # --- per rank (queries x depth) -------------------------------------------------------------

    @cached_property
    def relevant_slots(self) -> np.ndarray:
        """``rel_i``: the cell holds the first occurrence of a relevant id (graded the level or more),
        made from the block's own flags and grades (nothing cached beside the run)."""
        return self.first_slots & self._pad(self.judged.judged) & (self._pad(self.judged.grades) >= self.judged.level)

    @cached_property
    def cum_hits(self) -> np.ndarray:
        """``hits@i`` at every rank (int64)."""
        return np.cumsum(self.relevant_slots, axis=1, dtype=np.int64)

    # --- at the cutoffs (queries x cutoffs) ------------------------------------------------------

    @cached_property
    def k(self) -> np.ndarray:
        """The cutoffs as a float row."""
        return self.cutoffs[None, :].astype(np.float64)

    @cached_property
    def hits(self) -> np.ndarray:
        """``hits@k`` (int64)."""
        return self.cum_hits[:, self.columns]

    @cached_property
    def denominator(self) -> np.ndarray:
        """``D``: R, or ``min(R, k)`` under ``--denominator min`` (float)."""
        r = self.relevant[:, None].astype(np.float64)
        if self.conventions.denominator is Denominator.MIN:
            return np.minimum(r, self.k)
        return np.broadcast_to(r, (len(r), len(self.cutoffs)))

    @cached_property
    def precision_at_relevant(self) -> np.ndarray:
        """``rel_i * hits@i / i`` at every rank: the precision at each relevant rank, else 0."""
        return np.where(self.relevant_slots, self.cum_hits / self.ranks, 0.0)

    @cached_property
    def precision_sum(self) -> np.ndarray:
        """``sum_{i<=k} rel_i * hits@i / i``: the numerator of AP@k and CP@k."""
        return np.cumsum(self.precision_at_relevant, axis=1)[:, self.columns]

    @cached_property
    def first_slots(self) -> np.ndarray:
        """Cells holding the first occurrence of an id in its list: not empty, not a repeat."""
        return self.valid & ~self._pad(self.judged.repeat)

    @cached_property
    def judged_hits(self) -> np.ndarray:
        """The slots within k holding the first occurrence of a judged id, whatever its grade (int64)."""
        return np.cumsum(self._pad(self.judged.judged) & self.first_slots, axis=1, dtype=np.int64)[:, self.columns]

    @cached_property
    def top_grade(self) -> np.ndarray:
        """Each query's highest grade, judged or retrieved (1 when none is higher): exp gains are
        scaled by ``2^-top`` per query (:meth:`~ragreport.core.model.Gain.scaled`), so they never overflow."""
        offsets = self.judged.ideal_offsets[self.lo : self.hi + 1]
        top = np.ones(self.hi - self.lo, dtype=np.int64)
        listed = np.diff(offsets) > 0
        top[listed] = self.judged.ideal_grades[offsets[:-1][listed]]  # ideal lists run high to low
        retrieved = np.where(self.valid, self._pad(self.judged.grades), 1).astype(np.int64)
        return np.maximum(top, retrieved.max(axis=1, initial=1))

    @cached_property
    def dcg(self) -> np.ndarray:
        """DCG@k under the run's gain, exp gains scaled by ``2^-top`` per query (so only the ratio
        nDCG, never DCG itself, is read off it); a repeat gains nothing."""
        scaled = self.conventions.gain.scaled(self._pad(self.judged.grades), self.top_grade[:, None])
        gains = np.where(self.first_slots, scaled, 0.0)
        return cumulative_dcg(gains)[:, self.columns]

    @cached_property
    def ideal_dcg(self) -> np.ndarray:
        """IDCG@k: every judged grade of the query, retrieved or not, sorted high to low.

        An ideal list holds only the query's relevant grades (often a handful against a depth of
        hundreds), so the sum runs over the block's longest ideal list and is read flat beyond it:
        the same values, bit for bit, as a sum over the whole depth, which would only add zeros.
        """
        offsets = self.judged.ideal_offsets[self.lo : self.hi + 1]
        longest = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
        width = max(1, min(self.depth, longest))
        valid, index = _layout(offsets, width)
        grades = self.judged.ideal_grades
        # A slot past a query's ideal list reads 0, not the next query's grade: that grade may pass
        # this query's top (2000 against 1), and 2^(g - top) would overflow, masked but warned.
        padded = np.zeros(valid.shape, dtype=grades.dtype) if len(grades) == 0 else np.where(valid, grades[index], 0)
        scaled = self.conventions.gain.scaled(padded, self.top_grade[:, None])
        ideal = cumulative_dcg(np.where(valid, scaled, 0.0))
        return ideal[:, np.minimum(self.columns, width - 1)]

    # --- unjudged ids, as trec_eval marks them (bpref, infAP, RBP's residual) ---------------------

    @cached_property
    def ranks(self) -> np.ndarray:
        """1, 2, ..., depth as a float row."""
        return np.arange(1, self.depth + 1, dtype=np.float64)[None, :]

    @cached_property
    def nonrelevant_slots(self) -> np.ndarray:
        """First occurrences of ids judged with a grade from 0 to below the relevance level."""
        grades = self._pad(self.judged.grades)
        return self._pad(self.judged.judged) & self.first_slots & (grades >= 0) & (grades < self.judged.level)

    @cached_property
    def pooled_unjudged_slots(self) -> np.ndarray:
        """First occurrences of ids the judgments list with a negative grade: trec_eval's "in the
        pool, not judged" (-1 in a qrels file), which infAP counts and bpref skips."""
        return self._pad(self.judged.judged) & self.first_slots & (self._pad(self.judged.grades) < 0)

    @cached_property
    def unjudged_cells(self) -> np.ndarray:
        """Cells that could still hold a relevant id: first occurrences of ids the judgments lack or
        grade negative, and empty cells past a list's end (RBP's residual). A repeat cannot score."""
        unjudged = self.first_slots & ~self._pad(self.judged.judged)
        return unjudged | self.pooled_unjudged_slots | ~self.valid

    @cached_property
    def nonrelevant(self) -> np.ndarray:
        """N: the query's ids judged with a grade from 0 to below the relevance level (bpref)."""
        grades = self.judged.judgment_grades
        keep = (grades >= 0) & (grades < self.judged.level)
        counts = np.bincount(self.judged.judgment_query[keep], minlength=self.judged.n_queries)
        return counts[self.lo : self.hi].astype(np.int64)

    @cached_property
    def best_precision_below(self) -> np.ndarray:
        """At every rank, the largest precision at that rank or below it, over the relevant ranks
        (interpolated precision's reverse running maximum; 0 past the last relevant id)."""
        return np.maximum.accumulate(self.precision_at_relevant[:, ::-1], axis=1)[:, ::-1]

    @cached_property
    def persistence_weights(self) -> np.ndarray:
        """RBP's ``(1 - p) * p^(i - 1)`` at every rank, ``p`` from :attr:`values`."""
        p = float(self.values["p"])
        return (1.0 - p) * np.power(p, self.ranks - 1.0)

    # --- whole lists ---------------------------------------------------------------------------

    def per_query(self, values: np.ndarray) -> np.ndarray:
        """A per-query figure that no cutoff changes, repeated at every cutoff (float)."""
        return np.broadcast_to(np.asarray(values, dtype=np.float64)[:, None], (self.hi - self.lo, len(self.cutoffs)))

    @cached_property
    def hits_at_r(self) -> np.ndarray:
        """``hits@R`` per query (0 when R = 0); needs ``depth`` >= R."""
        rank = np.maximum(self.relevant, 1) - 1
        return np.take_along_axis(self.cum_hits, rank[:, None], axis=1)[:, 0]


def _layout(offsets: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Queries delimited by ``offsets`` as rows of ``depth`` cells: (valid, slot index)."""
    lengths = np.diff(offsets)
    ranks = np.arange(depth, dtype=np.int64)
    valid = ranks[None, :] < lengths[:, None]
    index = np.where(valid, offsets[:-1, None] + ranks[None, :], 0)
    return valid, index


def cumulative_dcg(gains: np.ndarray | list[list[float]]) -> np.ndarray:
    """DCG at every depth: ``out[q, k-1] = sum_{i<=k} gains[q, i-1] / log2(i + 1)``.

    Example: gains 3, 2, 3, 0, 1, 2 give DCG@6 = 6.861; their ideal order 3, 3, 2, 2, 1 gives 7.141.
    """
    matrix = np.atleast_2d(np.asarray(gains, dtype=np.float64))
    discount = 1.0 / np.log2(np.arange(2, matrix.shape[1] + 2, dtype=np.float64))
    return np.cumsum(matrix * discount, axis=1)
