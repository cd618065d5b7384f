"""What a catalogue entry is (:class:`Metric`) and the words it is declared in: the band its mean
carries, the kind of its per-query values, its cutoff rule, the names tools give it and the
parameters it takes.

:mod:`ragreport.scoring.catalogue` declares every metric with them; the name parser
(:mod:`ragreport.scoring.measures`) reads the spellings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..core.model import Conventions, Gain
    from .sums import Sums


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


# --- Parameters, declared once and shared by the entries that take them ---------------------------

#: This measure's relevance level (ir_measures' ``rel``, ranx's ``-lN``); None: ``--relevance-level``.
REL = Param(
    "rel",
    int,
    None,
    "This measure's relevance level: grades of rel or more are relevant (default: --relevance-level).",
    low=1,
)
#: The condensed list: unjudged ids removed before the cut at K (trec_eval -J, ir_measures' judged_only).
JUDGED_ONLY = Param(
    "judged_only",
    bool,
    False,
    "Remove the ids the judgments lack from each list before the cut at K (a condensed list).",
)
#: nDCG's gain by name (ragreport's ``gain``, ir_measures' ``dcg``); None: ``--gain``.
GAIN = Param(
    "gain",
    str,
    None,
    "nDCG's gain: linear (the grade) or exp (2^grade - 1); default --gain.",
    choices=("linear", "exp"),
)
DCG = Param(
    "dcg",
    str,
    None,
    "ir_measures' name of the gain: log2 (linear gain) or exp-log2 (exp gain).",
    choices=("log2", "exp-log2"),
)
#: RBP's persistence: the chance a reader goes on from one rank to the next (Moffat and Zobel 2008).
PERSISTENCE = Param(
    "p",
    float,
    0.8,
    "RBP's persistence: the chance the reader goes on to the next rank.",
    low=0,
    high=1,
    open_low=True,
    open_high=True,
)
#: The recall level of interpolated precision (trec_eval's iprec_at_recall_0.50, ir_measures' IPrec@0.5).
RECALL_LEVEL = Param("recall", float, None, "The recall level interpolated precision is read at.", low=0, high=1)
#: ERR's top grade g_max (Chapelle et al. 2009); None: the highest grade of the judgments.
MAX_GRADE = Param("max_grade", int, None, "ERR's top grade g_max (default: the highest grade of the judgments).", low=1)


# --- The entry itself ------------------------------------------------------------------------------

Kernel = Callable[["Sums"], np.ndarray]
#: ``(k, conventions) -> sentence``; an entry with parameters of its own (RBP's ``p``) takes their
#: values as a third argument, ``(k, conventions, values)``.
Describe = Callable[..., str]


@dataclass(frozen=True, eq=False, kw_only=True)
class Metric:
    """One metric or named measure and every fact about it (see the module's docstring).

    ``in_suite``: in the report's table at K, its K sweep and its per-query table (the whole-list
    measures are asked for by name only). ``compared``: in the comparison family (paired test,
    verdict, multiple-comparison correction); a diagnostic is in the suite but not compared.
    ``plain``: what it measures in one sentence a stakeholder reads (the glossary, a header's tooltip).
    ``uses_gain``: its figure depends on the gain (trec_eval knows linear gain only);
    ``uses_denominator``: on ``--denominator`` (R or min(R, K)). Entries
    compare by identity and pickle as a reference to the catalogue's entry.
    """

    key: str
    name: str
    kernel: Kernel
    interval: IntervalMethod
    kind: ValueKind
    cutoff: CutoffRule
    describe: Describe
    plain: str
    in_suite: bool = True
    compared: bool = True
    uses_gain: bool = False
    uses_denominator: bool = False
    trec_eval: tuple[Spelling, ...] = ()
    ir_measures: tuple[Spelling, ...] = ()
    ranx: tuple[Spelling, ...] = ()
    #: The parameters a measure of it may set (``RR(rel=2)``, ``RBP(p=0.9)``), besides the cutoff.
    params: tuple[Param, ...] = ()
    #: What the number after ``@`` is: the cutoff, or a parameter (IPrec@0.5: the recall level).
    at: str = "cutoff"
    #: The mean over queries is geometric, each value floored at this epsilon (trec_eval's gm_map).
    geometric: float | None = None
    #: The key of a figure shown beside it whenever it is asked for (RBP's residual).
    companion: str | None = None
    #: A paired test of its per-query values means something: False for a diagnostic of the labels
    #: (RBP's residual) and a geometric mean (gm_map), which ``--metrics`` then leaves out of the family.
    paired: bool = True
    #: Its whole-list figure counts the ranks past the list's end too (RBP's residual: ``p^depth``).
    reads_beyond: bool = False
    #: ``--format trec`` prints it without ``--metrics`` (trec_eval's families of section 9).
    trec_default: bool = True

    def __reduce__(self) -> tuple[Callable[[str], Metric], tuple[str]]:
        return entry_named, (self.key,)

    def label(self, k: int) -> str:
        return f"{self.key}@{k}"

    @property
    def comparable(self) -> bool:
        """Whether ``--metrics`` can put it in the comparison family: it has a per-query score (not a
        count, which is summed) and is not a diagnostic (in the suite, not compared: Judged@K)."""
        return self.kind is not ValueKind.COUNT and self.paired and (self.compared or not self.in_suite)

    def changed_by(self, switch: str) -> bool:
        """Whether the convention ``switch`` (a field of :class:`Conventions`) can change its figure:
        the gain and the denominator change the metrics that use them; which queries are averaged
        (``missing``, ``no_relevant``) and the order of a list (``order``) change every metric."""
        if switch == "gain":
            return self.uses_gain
        if switch == "denominator":
            return self.uses_denominator
        return True

    def convention(self, k: int, conventions: Conventions, values: Mapping[str, Value] | None = None) -> str:
        """The sentence the report prints beside the figure at ``k`` (``values``: its parameters'
        values, for an entry whose sentence names them)."""
        if any(p not in (REL, GAIN, DCG, JUDGED_ONLY) for p in self.params):
            return self.describe(k, conventions, {**self.defaults(), **(values or {})})
        return self.describe(k, conventions)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def defaults(self) -> dict[str, Value | None]:
        return {p.name: p.default for p in self.params}

    def spellings(self, tool: str) -> tuple[Spelling, ...]:
        """The names ``tool`` gives it; ragreport spells every metric by its key."""
        if tool == "ragreport":
            return (Spelling(self.key),)
        spellings: tuple[Spelling, ...] = getattr(self, tool)
        return spellings

    def rule(self, spelling: Spelling) -> CutoffRule:
        return spelling.cutoff or self.cutoff

    def trec_eval_spelling(self, cutoff: int | None) -> Spelling | None:
        """trec_eval's name for it with a cutoff or without one (None when trec_eval has none)."""
        return next((s for s in self.trec_eval if self.rule(s).allows(cutoff)), None)

    def trec_eval_measure(self, cutoff: int | None) -> str | None:
        """trec_eval's output name: ``map_cut_10`` at a cutoff, ``map`` over the whole list."""
        spelling = self.trec_eval_spelling(cutoff)
        if spelling is None:
            return None
        return spelling.name if cutoff is None else f"{spelling.name}_{cutoff}"

    def trec_eval_name(self, k: int) -> str | None:
        """The trec_eval twin the report names beside the figure at ``k``: its cutoff form, else its
        whole-list form (RR@k's twin is ``recip_rank``, equal to it when k reaches every list's end)."""
        return self.trec_eval_measure(k) or self.trec_eval_measure(None)


#: Every declared entry by its key, filled by :mod:`ragreport.scoring.catalogue` as it declares them.
ENTRIES: dict[str, Metric] = {}


def entry_named(key: str) -> Metric:
    """The declared entry ``key``: how a pickled entry (a Dask worker's) comes back as the one object
    the catalogue declared, so ``is`` comparisons hold."""
    if not ENTRIES:  # a worker that unpickles before anything imported the catalogue
        import importlib

        importlib.import_module("ragreport.scoring.catalogue")
    return ENTRIES[key]
