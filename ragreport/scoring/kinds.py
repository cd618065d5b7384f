"""The words a catalogue entry is declared in: the band its mean carries, the kind of its
per-query values, its cutoff rule and the names tools give it.

:mod:`ragreport.scoring.catalogue` declares every metric with them; the name parser
(:mod:`ragreport.scoring.measures`) reads the spellings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.model import Gain


#: A parameter's value: a whole number (``rel``), a fraction (``p``, ``recall``), a flag or a word.
Value = int | float | bool | str


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
    trec_eval prints its measures in. ``params`` are parameter values the name fixes.
    """

    name: str
    cutoff: CutoffRule | None = None
    gain: Gain | None = None
    printed: int | None = None
    #: Parameter values the name fixes (trec_eval's ``rbp`` is RBP at p = 0.9).
    params: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class Param:
    """One parameter a catalogue entry takes, declared as ir_measures' ``SUPPORTED_PARAMS`` are.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str``; ``default`` None means the run's own
    switch decides (``rel``: ``--relevance-level``); ``low`` and ``high`` bound a number (inclusive
    unless ``open_low``/``open_high``); ``choices`` list the words a ``str`` takes. ``description``
    is one line, ending with a full stop (the valid-forms message and the README list it).
    """

    name: str
    kind: type
    default: Value | None
    description: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()

    def allowed(self) -> str:
        """The values it takes, in words: ``a whole number of 1 or more``, ``a number in (0, 1)``."""
        if self.kind is bool:
            return "True or False"
        if self.choices:
            return " or ".join(self.choices)
        what = "a whole number" if self.kind is int else "a number"
        if self.low is not None and self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            return f"{what} in {left}{_number(self.low)}, {_number(self.high)}{right}"
        if self.low is not None:
            return f"{what} {'above' if self.open_low else 'of at least'} {_number(self.low)}"
        return what

    def read(self, text: str) -> Value:
        """``text`` as this parameter's value; ``ValueError("expected ...")`` when it is not one."""
        value: Value
        word = text.strip().strip("'\"")
        try:
            if self.kind is bool:
                if word.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                value = word.lower() in ("true", "1")
            elif self.kind is int:
                if not word.lstrip("-").isdigit() or len(word) > 18:
                    raise ValueError
                value = int(word)
            elif self.kind is float:
                value = float(word)
                if not math.isfinite(value):
                    raise ValueError
            else:
                if word not in self.choices:
                    raise ValueError
                value = word
        except ValueError:
            raise ValueError(f"expected {self.allowed()}") from None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            below = self.low is not None and (value <= self.low if self.open_low else value < self.low)
            above = self.high is not None and (value >= self.high if self.open_high else value > self.high)
            if below or above:
                raise ValueError(f"expected {self.allowed()}")
        return value


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def write_value(value: Value) -> str:
    """A parameter's value as ir_measures writes it: ``2``, ``0.8``, ``True``."""
    return repr(value) if isinstance(value, float) else str(value)


#: The tools whose spellings the parser reads, in the order the valid-forms message lists them.
TOOLS = ("trec_eval", "ir_measures", "ranx", "ragreport")
