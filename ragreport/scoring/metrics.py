"""Score every query of a run at every cutoff: the catalogue's kernels over all queries at once.

Scoring lays the run out as padded rank matrices (queries x depth, depth = the largest cutoff
asked for), takes cumulative sums along the ranks once (:class:`~ragreport.scoring.sums.Sums`),
and lets every metric of :mod:`ragreport.scoring.catalogue` read its figure at every cutoff off
those sums. Queries are taken in blocks of whole queries so that a matrix stays near 16 MB however
large the run; there is no Python loop over queries, ranks or cutoffs, only one kernel call per
metric and block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.model import Conventions, Missing, NoRelevant
from .catalogue import SUITE, CutoffRule, Metric
from .sums import Sums

if TYPE_CHECKING:  # annotations only: scoring reads a joined run's arrays
    from .join import JudgedRun

#: The rules no switch changes, stated where the kernel below implements them (docs/conventions.md sections 1-3).
#: What counts as relevant is a switch (``--relevance-level``, :class:`~ragreport.core.model.RelevanceLevel`).
FIXED_RULES: tuple[tuple[str, str], ...] = (
    (
        "Precision denominator",
        "Precision@K always divides by K, also when fewer than K ids came back: empty "
        "slots cost Precision like wrong ids, as in trec_eval's P_K.",
    ),
    (
        "Repeated ids",
        "A repeated id keeps its rank slot, only its first occurrence can score, and the repeat "
        "counts as a non-relevant slot. trec_eval refuses such a run instead.",
    ),
    ("Queries without judgments", "A query the run has but the judgments lack has R = 0: left out and counted."),
    ("Ideal ranking", "IDCG@K sorts every judged grade of the query high to low, whether it was retrieved or not."),
)


@dataclass(frozen=True)
class QueryScores:
    """Per-query scores of one run at several cutoffs.

    ``values[m, q, c]`` is ``metrics[m]`` (the catalogue's suite unless asked otherwise) of query
    ``q`` at ``cutoffs[c]``; :meth:`of` reads one metric by its entry. Queries that are not
    ``scored`` (no relevant id, or missing from the run under ``--missing skip``) still hold
    values (0 where a denominator vanishes); every average must use ``scored``.
    ``first_relevant_rank`` is over the whole list (0 when no relevant id was retrieved).
    """

    cutoffs: np.ndarray
    values: np.ndarray
    hits: np.ndarray
    scored: np.ndarray
    first_relevant_rank: np.ndarray
    metrics: tuple[Metric, ...] = SUITE

    def column(self, k: int) -> int:
        found = np.flatnonzero(self.cutoffs == k)
        if not len(found):
            raise KeyError(f"cutoff {k} was not scored")
        return int(found[0])

    def of(self, metric: Metric, k: int) -> np.ndarray:
        """``metric`` of every query at cutoff ``k``."""
        return self.values[self.metrics.index(metric), :, self.column(k)]

    def at_cutoffs(self, cutoffs: Sequence[int]) -> QueryScores:
        """The same scores at ``cutoffs`` alone (each one scored), as copies: what is left once the
        bands over the whole sweep are drawn and the comparison is made (the pages and report.json
        read the cutoffs asked for only)."""
        columns = np.array([self.column(int(k)) for k in cutoffs], dtype=np.int64)
        return replace(
            self,
            cutoffs=self.cutoffs[columns].copy(),
            values=np.ascontiguousarray(self.values[:, :, columns]),
            hits=np.ascontiguousarray(self.hits[:, columns]),
        )

    def rows(self, take: np.ndarray) -> QueryScores:
        """The queries at rows ``take`` alone (a sample of them, docs/conventions.md section 29.2)."""
        return replace(
            self,
            values=self.values[:, take],
            hits=self.hits[take],
            scored=self.scored[take],
            first_relevant_rank=self.first_relevant_rank[take],
        )

    @classmethod
    def concat(cls, parts: Sequence[QueryScores]) -> QueryScores:
        """Scores of partitions over disjoint queries (same cutoffs and metrics), in the order given."""
        return cls(
            cutoffs=parts[0].cutoffs,
            values=np.concatenate([p.values for p in parts], axis=1),
            hits=np.concatenate([p.hits for p in parts]),
            scored=np.concatenate([p.scored for p in parts]),
            first_relevant_rank=np.concatenate([p.first_relevant_rank for p in parts]),
            metrics=parts[0].metrics,
        )


#: Cells of one (queries x depth) matrix in :func:`score`: 4 MB of float64. Every sum and kernel
#: works along each query's own row, so a block's size changes no figure, only how many of its
#: matrices (a dozen or so: the sums a block caches) are held at once.
_BLOCK_CELLS = 1 << 19


def score_levels(judged: JudgedRun, levels: Sequence[float], conventions: Conventions) -> np.ndarray:
    """Interpolated precision (IPrec) of every query at every recall level: (levels x queries).

    One pass over the whole lists for all the levels (a precision-recall curve's eleven), in blocks
    of whole queries as :func:`score` takes them; each level reads the block's shared sums.
    """
    from .kernels import iprec_at

    depth = full_depth(judged)
    n = judged.n_queries
    out = np.zeros((len(levels), n))
    block = max(1, _BLOCK_CELLS // depth)
    with np.errstate(divide="ignore", invalid="ignore"):
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            sums = Sums(judged, lo, hi, np.asarray([depth], dtype=np.int64), depth, conventions)
            for i, level in enumerate(levels):
                out[i, lo:hi] = iprec_at(sums, float(level))
    return out


def full_depth(judged: JudgedRun) -> int:
    """The cutoff that covers every whole list: the longest list, the largest R or the longest ideal
    list (every grade of 1 or more, which is longer than R above ``--relevance-level 1``)."""
    return max(int(judged.retrieved.max(initial=1)), int(np.diff(judged.ideal_offsets).max(initial=1)))


def scored_queries(judged: JudgedRun, conventions: Conventions) -> np.ndarray:
    """Which queries an average counts (docs/conventions.md section 3): those with a relevant id;
    under ``--no-relevant zero`` also those judged with none (averaged in as 0, as trec_eval does;
    a query listed with no judgment at all, ``{"q1": {}}`` in JSON qrels, is not judged, as
    pytrec_eval reads it); under ``--missing skip`` only those the run lists."""
    scored = judged.relevant > 0
    if conventions.no_relevant is NoRelevant.ZERO:
        scored |= np.bincount(judged.judgment_query, minlength=judged.n_queries) > 0
    if conventions.missing is Missing.SKIP:
        scored &= judged.in_run
    return scored


def score(
    judged: JudgedRun,
    cutoffs: Sequence[int] | np.ndarray,
    conventions: Conventions,
    metrics: Sequence[Metric] = SUITE,
    values: Mapping[str, Any] | None = None,
) -> QueryScores:
    """Score every query of ``judged`` on ``metrics`` (the suite by default) at every cutoff in ``cutoffs``.

    Each metric's formula is its catalogue entry's kernel (:mod:`ragreport.scoring.catalogue`). A
    whole-list measure (one that takes no cutoff, such as R-precision) has the same value at every
    cutoff; asking for one takes the block as deep as :func:`full_depth`. ``values`` are the
    parameters the kernels read (RBP's ``p``: :attr:`~ragreport.scoring.sums.Sums.values`).

    A query with R = 0 scores 0 everywhere and is not ``scored`` (under ``no_relevant`` ``zero`` one
    with at least one judgment is); a judged query missing from the run is an empty list (0 everywhere), scored
    unless ``conventions.missing`` is ``skip``.
    """
    grid = np.asarray(sorted(set(int(k) for k in cutoffs)), dtype=np.int64)
    if len(grid) == 0 or grid[0] < 1:
        raise ValueError("cutoffs must be positive integers")
    metrics = tuple(metrics)
    depth = int(grid[-1])
    if any(m.cutoff is CutoffRule.FORBIDDEN for m in metrics):
        depth = max(depth, full_depth(judged))  # R-precision reads down to R, whatever the cutoffs
    n = judged.n_queries
    table = np.zeros((len(metrics), n, len(grid)))
    hits = np.zeros((n, len(grid)), dtype=np.int64)
    # Blocks of whole queries bound the (queries x depth) matrices to about _BLOCK_CELLS cells each;
    # a block's sums are taken once and each kernel writes straight into the table. A vanishing
    # denominator is masked to 0 by every kernel; the division itself must not warn.
    block = max(1, _BLOCK_CELLS // depth)
    with np.errstate(divide="ignore", invalid="ignore"):
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            sums = Sums(judged, lo, hi, grid, depth, conventions, values)
            for row, metric in zip(table[:, lo:hi], metrics):
                row[...] = metric.kernel(sums)
            hits[lo:hi] = sums.hits

    return QueryScores(
        cutoffs=grid,
        values=table,
        hits=hits,
        scored=scored_queries(judged, conventions),
        first_relevant_rank=judged.first_relevant,
        metrics=metrics,
    )
