"""The words a catalogue entry is declared in: the band its mean carries, the kind of its
per-query values, its cutoff rule and the names tools give it.

:mod:`ragreport.scoring.catalogue` declares every metric with them; the name parser
(:mod:`ragreport.scoring.measures`) reads the spellings.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.model import Gain


class IntervalMethod(Enum):
    """The band a metric's mean carries; ``value`` is the word report.json prints."""

    WILSON = "wilson"  # 0/1 per query: Wilson's score interval, the query as the trial
    BOOTSTRAP = "bootstrap"  # a fraction per query: the seeded percentile bootstrap over queries
    NONE = "none"  # a count: summed over the queries, as trec_eval does, with no band


class ValueKind(Enum):
    """What one query's value is."""

    SCORE = "score"  # a fraction in [0, 1]
    BINARY = "binary"  # 0 or 1: the mean is a share of queries
    COUNT = "count"  # a whole number; the run's figure is the sum over the scored queries

    @property
    def whole(self) -> bool:
        """Per-query values print as whole numbers (JSON, the per-query table)."""
        return self is not ValueKind.SCORE


class CutoffRule(Enum):
    """Whether a metric (or one spelling of it) needs a cutoff, may take one, or takes none."""

    REQUIRED = "required"
    OPTIONAL = "optional"  # without one it reads the whole list
    FORBIDDEN = "forbidden"  # a whole-list measure

    def allows(self, cutoff: int | None) -> bool:
        return self is not (CutoffRule.REQUIRED if cutoff is None else CutoffRule.FORBIDDEN)

    @classmethod
    def of(cls, with_cutoff: bool, without: bool) -> CutoffRule:
        """The rule that allows exactly the forms given (at least one)."""
        if with_cutoff and without:
            return cls.OPTIONAL
        return cls.REQUIRED if with_cutoff else cls.FORBIDDEN


@dataclass(frozen=True)
class Spelling:
    """One name a tool gives a metric.

    ``cutoff`` narrows the metric's own rule for this name (trec_eval's ``map_cut`` needs a cutoff,
    its ``map`` takes none; None keeps the metric's rule); ``gain`` is a gain the name implies
    (ranx's ``ndcg_burges``: exponential). ``printed`` is, for a trec_eval name, its place in
    trec_eval's measure table (``te_trec_measures``, ``runid`` being 0), which is the order
    trec_eval prints its measures in.
    """

    name: str
    cutoff: CutoffRule | None = None
    gain: Gain | None = None
    printed: int | None = None


#: The tools whose spellings the parser reads, in the order the valid-forms message lists them.
TOOLS = ("trec_eval", "ir_measures", "ranx", "ragreport")
