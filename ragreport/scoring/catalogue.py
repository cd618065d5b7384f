"""The metric catalogue: every metric and named measure declared once, with every fact about it.

A :class:`Metric` says what it is called (its key, its name, and how trec_eval, ir_measures and
ranx spell it, :class:`Spelling`), what it computes (its kernel), the band
its mean gets, the kind of its per-query values, whether a cutoff is required, optional or
forbidden (the words declared first, below), whether it is in the report's suite table
and in the comparison family, and the convention sentence printed beside it. Everything else is
generated from these declarations: the suite (:data:`SUITE`), the comparison family
(:data:`COMPARED`), and in :mod:`ragreport.scoring.measures` the name parser's table, its
valid-forms message and trec_eval's output names and print order. Nothing outside this module
tests a metric's key or its position: code that needs "the Wilson metric" asks by attribute, and
code that needs one particular metric (the primary one, the one a chart opens on) names the entry
declared here. Nothing bounds the number of entries: the charts' palette cycles.

**Kernels** are in :mod:`ragreport.scoring.kernels`, with their formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.grammar import WHOLE, read_number
from ..core.model import Conventions, Denominator, Gain
from .kernels import (
    GEOMETRIC_EPSILON,
    bpref,
    err,
    inf_ap,
    iprec,
    ratio,
    rbp,
    rbp_residual,
    recall_level_words,
    reciprocal_rank,
)

if TYPE_CHECKING:
    from .sums import Sums


# --- What an entry is, and the words it is declared in ---------------------------------------

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
        """``text`` as this parameter's value; ``ValueError("expected ...")`` when it is not one.
        Numbers follow the one grammar (:mod:`ragreport.core.grammar`): ``rel=٢``, ``p=0_5`` are refused."""
        value: Value
        word = text.strip().strip("'\"")
        try:
            if self.kind is bool:
                if word.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                value = word.lower() in ("true", "1")
            elif self.kind is int:  # the one number grammar (core/grammar.py): no 1_0, no non-ASCII digits
                if not WHOLE.fullmatch(word) or len(word) > 18:
                    raise ValueError
                value = int(word)
            elif self.kind is float:
                number = read_number(word)
                if number is None or not math.isfinite(number):
                    raise ValueError
                value = number
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
    ``uses_denominator``: on ``--denominator`` (R or min(R, K)). Entries compare by identity and
    pickle as their key, so a Dask worker's entry comes back as the one declared (``is`` holds).
    """

    key: str
    name: str
    kernel: Kernel
    cutoff: CutoffRule
    describe: Describe
    plain: str
    interval: IntervalMethod = IntervalMethod.BOOTSTRAP
    kind: ValueKind = ValueKind.SCORE
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
    #: Without a ``rel`` of its own its gain is the grade, with one binary at that level: ir_measures'
    #: RBP, where ``rel`` is "minimum relevance score to be considered relevant (inclusive), or
    #: NOT_PROVIDED to use graded relevance".
    graded: bool = False
    #: A paired test of its per-query values means something: False for a diagnostic of the labels
    #: (RBP's residual) and a geometric mean (gm_map), which ``--metrics`` then leaves out of the family.
    paired: bool = True
    #: Its whole-list figure counts the ranks past the list's end too (RBP's residual: ``p^depth``).
    reads_beyond: bool = False
    #: ``--format trec`` prints it without ``--metrics`` (trec_eval's families of section 9).
    trec_default: bool = True

    def __reduce__(self) -> tuple[Callable[[str], Metric], tuple[str]]:
        return by_key, (self.key,)

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
        return {"gain": self.uses_gain, "denominator": self.uses_denominator}.get(switch, True)

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
        return (Spelling(self.key),) if tool == "ragreport" else getattr(self, tool)

    def rule(self, spelling: Spelling) -> CutoffRule:
        return spelling.cutoff or self.cutoff

    def trec_eval_spelling(self, cutoff: int | None) -> Spelling | None:
        """trec_eval's name for it with a cutoff or without one (None when trec_eval has none)."""
        return next((s for s in self.trec_eval if self.rule(s).allows(cutoff)), None)

    def trec_eval_name(self, k: int) -> str | None:
        """The trec_eval twin the report names beside the figure at ``k``: its cutoff form (``map_cut_10``),
        else its whole-list form (RR@k's twin is ``recip_rank``, equal to it when k reaches every list's end)."""
        at_k, whole_list = self.trec_eval_spelling(k), self.trec_eval_spelling(None)
        if at_k is not None:
            return f"{at_k.name}_{k}"
        return None if whole_list is None else whole_list.name


# --- The entries ------------------------------------------------------------------------------


def denominator_words(conventions: Conventions, k: int) -> str:
    if conventions.denominator is Denominator.MIN:
        return f"min(R, {k}), so a top {k} holding only relevant ids scores 1 even when R > {k}"
    return f"R, every id judged relevant, so it cannot reach 1 when R > {k}"


# --- The suite: in the report's table at K, its sweep and its per-query table -------------------

PRECISION = Metric(
    params=(REL, JUDGED_ONLY),
    key="P",
    name="Precision",
    plain="Share of the top K that is relevant.",
    cutoff=CutoffRule.REQUIRED,
    trec_eval=(Spelling("P", printed=11),),
    ir_measures=(Spelling("P"),),
    ranx=(Spelling("precision"),),
    kernel=lambda s: s.hits / s.k,
    describe=lambda k, c: (
        f"Distinct relevant ids in the top {k} divided by {k}, even when fewer than {k} "
        f"came back; a repeated id counts as a wrong one (as trec_eval's P_{k})."
    ),
)
RECALL = Metric(
    params=(REL, JUDGED_ONLY),
    key="R",
    name="Recall",
    plain="Share of all the relevant ids that made it into the top K.",
    cutoff=CutoffRule.REQUIRED,
    trec_eval=(Spelling("recall", printed=13),),
    ir_measures=(Spelling("R"),),
    ranx=(Spelling("recall"),),
    kernel=lambda s: ratio(s.hits, s.denominator),
    uses_denominator=True,
    describe=lambda k, c: (
        f"Distinct relevant ids in the top {k} divided by {denominator_words(c, k)}"
        + (f" (as trec_eval's recall_{k})." if c.denominator is Denominator.RELEVANT else " (trec_eval divides by R).")
    ),
)
HIT = Metric(
    params=(REL, JUDGED_ONLY),
    key="Hit",
    name="Hit rate",
    plain="Whether at least one relevant id is in the top K; the mean is the share of queries with one.",
    interval=IntervalMethod.WILSON,
    kind=ValueKind.BINARY,
    cutoff=CutoffRule.REQUIRED,
    trec_eval=(Spelling("success", printed=27),),
    ir_measures=(Spelling("Success"),),
    ranx=(Spelling("hit_rate"),),
    kernel=lambda s: (s.hits > 0).astype(np.float64),
    describe=lambda k, c: (
        f"1 when at least one relevant id is in the top {k}, else 0; the mean is the "
        f"share of queries with a hit (as trec_eval's success_{k})."
    ),
)
RECIPROCAL_RANK = Metric(
    params=(REL, JUDGED_ONLY),
    key="RR",
    name="Reciprocal rank",
    plain="How high the first relevant result sits: 1 at rank 1, 1/2 at rank 2, 0 if none in the top K.",
    cutoff=CutoffRule.OPTIONAL,
    trec_eval=(Spelling("recip_rank", CutoffRule.FORBIDDEN, printed=9),),
    ir_measures=(Spelling("RR"),),
    ranx=(Spelling("mrr"),),
    kernel=lambda s: reciprocal_rank(s.first_relevant[:, None], s.k),
    describe=lambda k, c: (
        f"1 / rank of the first relevant id when it lies within the top {k}, else 0; "
        f"the mean is MRR@{k} (trec_eval's recip_rank when {k} covers the whole list)."
    ),
)
AVERAGE_PRECISION = Metric(
    params=(REL, JUDGED_ONLY),
    key="AP",
    name="Average precision",
    plain="How early the relevant ids come, all of them counted: 1 when every relevant id leads the list.",
    cutoff=CutoffRule.OPTIONAL,
    trec_eval=(Spelling("map_cut", CutoffRule.REQUIRED, printed=25), Spelling("map", CutoffRule.FORBIDDEN, printed=5)),
    ir_measures=(Spelling("AP"),),
    ranx=(Spelling("map"),),
    kernel=lambda s: ratio(s.precision_sum, s.denominator),
    uses_denominator=True,
    describe=lambda k, c: (
        f"Precision at each rank within {k} that holds a relevant id, summed and divided "
        f"by {denominator_words(c, k)}; the mean is MAP@{k}"
        + (f" (as trec_eval's map_cut_{k})." if c.denominator is Denominator.RELEVANT else " (trec_eval divides by R).")
    ),
)
NDCG = Metric(
    params=(GAIN, DCG, JUDGED_ONLY),
    key="nDCG",
    name="Normalised DCG",
    plain=(
        "How close the top K comes to the best possible order, higher grades and earlier ranks counting more: "
        "1 is ideal."
    ),
    cutoff=CutoffRule.OPTIONAL,
    uses_gain=True,
    trec_eval=(
        Spelling("ndcg_cut", CutoffRule.REQUIRED, printed=24),
        Spelling("ndcg", CutoffRule.FORBIDDEN, printed=21),
    ),
    ir_measures=(Spelling("nDCG"),),
    ranx=(Spelling("ndcg"), Spelling("ndcg_burges", CutoffRule.REQUIRED, Gain.EXP)),
    # The outer where keeps 0/0 at 0; the inner one keeps the division itself finite.
    kernel=lambda s: np.where(s.ideal_dcg > 0, s.dcg / np.where(s.ideal_dcg > 0, s.ideal_dcg, 1.0), 0.0),
    describe=lambda k, c: (
        f"DCG@{k} with {c.gain.value} gain and a 1 / log2(rank + 1) discount, over the "
        f"DCG@{k} of every judged grade of the query sorted high to low, retrieved or not"
        + (f" (as trec_eval's ndcg_cut_{k})." if c.gain is Gain.LINEAR else " (trec_eval uses linear gain).")
    ),
)
CONTEXT_PRECISION = Metric(
    params=(REL,),
    key="CP",
    name="Context precision (RAGAS)",
    plain="Are the relevant contexts ranked above the irrelevant ones? 1 when every relevant one comes first.",
    cutoff=CutoffRule.REQUIRED,
    kernel=lambda s: np.where(s.hits > 0, s.precision_sum / np.maximum(s.hits, 1), 0.0),
    describe=lambda k, c: (
        f"RAGAS context precision: precision at each relevant rank within {k}, summed "
        f"and divided by the hits in the top {k} (0 without a hit); equals AP@{k} only "
        f"when every relevant id lies within {k}. No trec_eval twin."
    ),
)

# --- Diagnostics: in the suite, not compared -------------------------------------------------------

JUDGED = Metric(
    key="Judged",
    name="Judged share (diagnostic)",
    plain="Share of the top K that anybody judged; low means the scores rest on guesses (a check of the labels).",
    cutoff=CutoffRule.REQUIRED,
    compared=False,  # about the labels, not the retriever: no verdict, no place in the correction
    ir_measures=(Spelling("Judged"),),
    kernel=lambda s: s.judged_hits / s.k,
    describe=lambda k, c: (
        f"Slots of the top {k} holding an id judged for the query (any grade, 0 and negative too; "
        f"first occurrences only) divided by {k}: empty slots count as unjudged. A diagnostic of the "
        f"labels, not compared between runs (as ir_measures' Judged@{k}; no trec_eval twin)."
    ),
)

# --- Whole-list measures, asked for by name (--metrics, --format trec) ----------------------------


def _by_name(**fields: Any) -> Metric:
    """An entry asked for by name only: not in the suite, not compared, a whole-list measure unless
    its fields say otherwise."""
    return Metric(**{"in_suite": False, "compared": False, "cutoff": CutoffRule.FORBIDDEN, **fields})


def _count(**fields: Any) -> Metric:
    """A count over the whole list, summed over the queries."""
    return _by_name(kind=ValueKind.COUNT, interval=IntervalMethod.NONE, **fields)


R_PRECISION = _by_name(
    params=(REL, JUDGED_ONLY),
    key="Rprec",
    name="R-precision",
    plain="Share of the first R results that is relevant, R being the number of relevant ids.",
    trec_eval=(Spelling("Rprec", printed=7),),
    ir_measures=(Spelling("Rprec"),),
    ranx=(Spelling("r-precision"),),
    kernel=lambda s: s.per_query(ratio(s.hits_at_r, s.relevant)),
    describe=lambda k, c: (
        "Distinct relevant ids among the first R ranks divided by R, 0 when R = 0 (as trec_eval's Rprec)."
    ),
)
NUM_Q = _count(
    key="NumQ",
    name="Scored queries",
    plain="How many queries were scored.",
    trec_eval=(Spelling("num_q", printed=1),),
    ir_measures=(Spelling("NumQ"),),
    kernel=lambda s: s.per_query(np.ones(s.hi - s.lo)),  # summed over the scored queries: trec_eval's num_q
    describe=lambda k, c: "1 per query; the run's figure is the number of scored queries (as trec_eval's num_q).",
)
NUM_REL = _count(
    params=(REL,),
    key="NumRel",
    name="Relevant ids",
    plain="How many ids were judged relevant.",
    trec_eval=(Spelling("num_rel", printed=3),),
    ir_measures=(Spelling("NumRel"),),
    kernel=lambda s: s.per_query(s.relevant),
    describe=lambda k, c: (
        "R, the ids judged relevant, retrieved or not; summed over the queries (trec_eval's num_rel)."
    ),
)
NUM_RET = _count(
    key="NumRet",
    name="Retrieved ids",
    plain="How many ids the run returned.",
    trec_eval=(Spelling("num_ret", printed=2),),
    ir_measures=(Spelling("NumRet"),),
    kernel=lambda s: s.per_query(s.retrieved),
    describe=lambda k, c: "The list's length, repeats included; summed over the queries (trec_eval's num_ret).",
)
NUM_REL_RET = _count(
    params=(REL,),
    key="NumRelRet",
    name="Relevant ids retrieved",
    plain="How many relevant ids the run returned, anywhere in its lists.",
    trec_eval=(Spelling("num_rel_ret", printed=4),),
    ir_measures=(Spelling("NumRelRet"),),
    kernel=lambda s: s.per_query(s.relevant_retrieved),
    describe=lambda k, c: (
        "Distinct relevant ids anywhere in the list; summed over the queries (trec_eval's num_rel_ret)."
    ),
)

# --- The measures IR papers report, asked for by name (docs/conventions.md section 21) ------------


BPREF = _by_name(
    trec_default=False,
    key="Bpref",
    name="bpref",
    plain="How often the relevant ids come above the judged non-relevant ones, unjudged ids left out.",
    params=(REL,),
    trec_eval=(Spelling("bpref", printed=8),),
    ir_measures=(Spelling("Bpref"), Spelling("BPref")),
    kernel=bpref,
    describe=lambda k, c: (
        "For each relevant id retrieved, 1 minus the judged non-relevant ids above it (at most R) over "
        "min(R, N), N the query's judged non-relevant ids; summed and divided by R. Unjudged ids, and "
        "ids graded below 0 (trec_eval's pooled but unjudged), are skipped (as trec_eval's bpref)."
    ),
)
RBP = _by_name(
    trec_default=False,
    key="RBP",
    name="Rank-biased precision",
    plain="The share of a patient reader's attention spent on relevant ids, reading on with chance p.",
    cutoff=CutoffRule.OPTIONAL,
    params=(PERSISTENCE, REL),
    companion="RBP_resid",
    graded=True,
    # trec_eval's rbp scales graded gains into [0, 1]: on 0/1 grades it is the graded figure
    trec_eval=(Spelling("rbp", CutoffRule.FORBIDDEN, printed=33, params=(("p", 0.9),)),),
    ir_measures=(Spelling("RBP"),),
    kernel=rbp,
    describe=lambda k, c, v: (
        "(1 - p) x the sum of p^(rank - 1)"
        + (" x the grade over the ids graded 1 or more" if v.get("rel") is None else " over the relevant ids")
        + (f" within the top {k}" if k else "")
        + f", p = {v['p']} (Moffat and Zobel 2008); "
        + (
            "graded, as ir_measures' RBP without rel"
            + (" (and trec_eval's rbp on 0/1 grades)." if v["p"] == 0.9 else ".")
            if v.get("rel") is None
            else "relevant is binary at the relevance level, as ir_measures' RBP with rel."
        )
    ),
)
RBP_RESIDUAL = _by_name(
    trec_default=False,
    key="RBP_resid",
    name="RBP residual",
    plain="How much RBP could still rise if every unjudged id were relevant: large means the labels are thin.",
    cutoff=CutoffRule.OPTIONAL,
    paired=False,  # about the labels, as Judged@K: no verdict
    reads_beyond=True,
    params=(PERSISTENCE, REL),
    graded=True,
    trec_eval=(Spelling("rbp_resid", CutoffRule.FORBIDDEN, printed=34, params=(("p", 0.9),)),),
    kernel=rbp_residual,
    describe=lambda k, c, v: (
        "(1 - p) x the sum of p^(rank - 1) over the ranks"
        + (f" within the top {k}" if k else "")
        + " that could still hold a relevant id (unjudged, graded below 0, or past the list's end"
        + ("" if k else ": p^length for every rank beyond")
        + f"), p = {v['p']}"
        + (", times the judgments' top grade (RBP without rel is graded)" if v.get("rel") is None else "")
        + ": RBP lies between its figure and its figure plus this (Moffat and Zobel 2008)."
    ),
)
ERR = _by_name(
    trec_default=False,
    key="ERR",
    name="Expected reciprocal rank",
    plain="How soon a reader who stops at the first satisfying result is satisfied, higher grades satisfying more.",
    cutoff=CutoffRule.OPTIONAL,
    params=(MAX_GRADE,),
    ir_measures=(Spelling("ERR"),),
    kernel=err,
    describe=lambda k, c, v: (
        "The sum over ranks r"
        + (f" up to {k}" if k else "")
        + " of 1/r x R_r x the product of (1 - R_i) above r, R_g = (2^g - 1) / 2^g_max, g_max "
        + (f"= {v['max_grade']}" if v.get("max_grade") else "the highest grade of the judgments")
        + " (Chapelle et al. 2009); grades below 1 and repeats satisfy nobody."
    ),
)
INF_AP = _by_name(
    trec_default=False,
    key="infAP",
    name="Inferred AP",
    plain="AP estimated from a sample of judged ids, the pooled-but-unjudged ones (grade -1) inferred.",
    params=(REL,),
    trec_eval=(Spelling("infAP", printed=13),),
    ir_measures=(Spelling("infAP"),),
    kernel=inf_ap,
    describe=lambda k, c: (
        "trec_eval's infAP (Yilmaz and Aslam 2006): at each relevant rank j + 1 after the first, "
        "1/(j+1) + j/(j+1) x (ids above in the pool)/j x (relevant above + e)/(judged above + 2e), "
        "e = 0.00001, and 1 at rank 1; summed and divided by R. A grade below 0 marks a pooled id "
        "left unjudged; ids absent from the judgments are outside the pool and skipped."
    ),
)
GM_MAP = _by_name(
    trec_default=False,
    key="GMAP",
    name="Geometric mean AP",
    plain="Average precision averaged geometrically, so that the queries a run does worst on weigh more.",
    paired=False,  # a geometric mean: the paired test of means does not test it
    geometric=GEOMETRIC_EPSILON,
    params=(REL,),
    trec_eval=(Spelling("gm_map", printed=6),),
    # the whole list's AP: R is its denominator (min(R, depth) is R, depth reaching every R)
    kernel=lambda s: s.per_query(ratio(s.precision_at_relevant.sum(axis=1), s.relevant)),
    describe=lambda k, c: (
        "Each query's AP over the whole list; the run's figure is exp(mean(log(max(AP, 0.00001)))), "
        "their geometric mean, the band a bootstrap of the same (as trec_eval's gm_map, its epsilon "
        "MIN_GEO_MEAN = 0.00001). Shown per query as AP."
    ),
)
IPREC = _by_name(
    trec_default=False,
    key="IPrec",
    name="Interpolated precision",
    plain="The best precision reachable at or past a given share of the relevant ids found.",
    params=(RECALL_LEVEL, REL, JUDGED_ONLY),
    at="recall",
    trec_eval=(Spelling("iprec_at_recall", printed=10),),
    ir_measures=(Spelling("IPrec"),),
    kernel=iprec,
    describe=lambda k, c, v: (
        f"The largest precision at any rank at or below the one where round({recall_level_words(v)} x R) relevant "
        f"ids have come back (the first relevant rank for 0), 0 when fewer come back "
        f"(as trec_eval's iprec_at_recall_{recall_level_words(v, 2)}, version 10's rounding)."
    ),
)

#: Every entry, in the order declared above: the order tables print them.
CATALOGUE: tuple[Metric, ...] = tuple(entry for entry in globals().values() if isinstance(entry, Metric))
#: The report's table at K, its K sweep and its per-query table.
SUITE: tuple[Metric, ...] = tuple(m for m in CATALOGUE if m.in_suite)
#: The comparison family: a paired test, a verdict and a place in the multiple-comparison correction each.
COMPARED: tuple[Metric, ...] = tuple(m for m in CATALOGUE if m.compared)
#: The readings of unjudged ids besides the default one, in the order the report states them
#: (:mod:`ragreport.scoring.readings`, docs/conventions.md section 20.2).
READINGS: tuple[str, ...] = ("unjudged_relevant", "condensed", "unjudged_at_rate")
#: The readings a verdict must survive (its ``unjudged`` caveat): ``unjudged_relevant`` is a bound,
#: shown in the details, never a caveat.
PLAUSIBLE: tuple[str, ...] = ("condensed", "unjudged_at_rate")
#: The metrics read three ways: the suite's compared metrics at a cutoff (Judged@K is about the
#: labels themselves, and a whole-list measure reads past any K).
READ: tuple[Metric, ...] = tuple(m for m in SUITE if m.compared and m.cutoff is not CutoffRule.FORBIDDEN)

#: The metric a report leads with unless ``--primary`` names another: the headline, the index's K-sweep
#: chart and the per-query scatter open on it, gains and losses are ranked by it.
PRIMARY = NDCG

_BY_KEY: dict[str, Metric] = {m.key: m for m in CATALOGUE}


def by_key(key: str) -> Metric:
    """The entry whose key is ``key`` (``KeyError`` for none)."""
    return _BY_KEY[key]


@dataclass(frozen=True, order=True)
class Measure:
    """A metric with its parameters (docs/conventions.md section 21).

    ``cutoff`` None means the whole list; ``gain`` None means the run's ``--gain``; ``params`` holds
    every other parameter set to other than its default, as sorted (name, value) pairs (``rel``, set
    at all, is kept: its default is the run's ``--relevance-level``). ``key`` is the catalogue
    entry's key (:attr:`metric`).

    Examples
    --------
    >>> Measure("nDCG", 10).label()
    'nDCG@10'
    >>> Measure("RR", 10, params=(("rel", 2),)).label()
    'RR(rel=2)@10'
    """

    key: str
    cutoff: int | None = None
    gain: Gain | None = None
    params: tuple[tuple[str, Value], ...] = ()

    @property
    def metric(self) -> Metric:
        return by_key(self.key)

    def value(self, name: str) -> Any:
        """A parameter's value: the one set, else its declared default (None: the run's switch)."""
        return dict(self.params).get(name, self.metric.defaults().get(name))

    @property
    def rel(self) -> int | None:
        """This measure's own relevance level (None: ``--relevance-level``)."""
        value = dict(self.params).get("rel")
        return None if value is None else int(value)

    @property
    def plain(self) -> bool:
        """No parameter beyond the cutoff: the suite's own figure at that cutoff."""
        return self.gain is None and not self.params

    def level(self, conventions: Conventions) -> int:
        """The relevance level it is scored at."""
        return self.rel or conventions.relevance_level

    def label(self) -> str:
        """ragreport's name, in ir_measures' grammar: ``RR(rel=2)@10``, ``RBP(p=0.9)``, ``IPrec@0.5``."""
        metric = self.metric
        shown = [(n, v) for n, v in self.params if n != metric.at]
        text = self.key + (f"({','.join(f'{n}={write_value(v)}' for n, v in shown)})" if shown else "")
        if metric.at != "cutoff":
            text += f"@{write_value(self.value(metric.at))}"
        elif self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text if self.gain is None else f"{text} ({self.gain.value} gain)"

    def convention(self, conventions: Conventions, k: int | None = None, top_grade: int | None = None) -> str:
        """The sentence printed beside its figure: its entry's, with its own relevance level said
        (``top_grade``: the judgments' highest grade, which ERR's sentence states as its g_max)."""
        level = self.level(conventions)
        shown = replace(conventions, relevance_level=level, gain=self.gain or conventions.gain)
        metric = self.metric
        values: dict[str, Any] = dict(self.params)
        if top_grade is not None and "max_grade" not in values and metric.param("max_grade"):
            values["max_grade"] = top_grade
        own = any(p not in (REL, GAIN, DCG, JUDGED_ONLY) for p in metric.params)
        if self.cutoff is None and metric.cutoff is CutoffRule.OPTIONAL and not own:
            twin = self.trec_eval_name(conventions)
            sentence = f"{metric.name} over the whole list, every rank counted" + (
                f" (as trec_eval's {twin})." if twin else "."
            )
        else:
            sentence = metric.convention(self.cutoff or 0 if own else self.cutoff or (k or 0), shown, values)
        if self.value("judged_only"):
            sentence += (
                " Ids the judgments lack or grade below 0 are removed from the list before the cut (a condensed list, "
                "as trec_eval -J and ir_measures' judged_only=True)."
            )
        if self.rel is not None and self.rel != conventions.relevance_level:
            sentence += (
                f" Relevant here means graded {level} or more (rel={level}), "
                f"whatever the run's relevance level ({conventions.relevance_level})."
            )
        return sentence

    def trec_eval_name(self, conventions: Conventions) -> str | None:
        """trec_eval's name for it under ``conventions``, or None when trec_eval has no twin (trec_eval
        knows no cutoff on recip_rank, linear gain only, and one relevance level per run: ``-l``)."""
        metric = self.metric
        if metric.uses_gain and (self.gain or conventions.gain) is not Gain.LINEAR:
            return None
        if self.level(conventions) != conventions.relevance_level or (metric.graded and self.rel is not None):
            return None  # (trec_eval's rbp is graded: a binary RBP has no twin)
        at = metric.at if metric.at != "cutoff" else None
        set_here = {n for n, _ in self.params if n not in ("rel", at)}
        for spelling in metric.trec_eval:
            fixed = dict(spelling.params)
            if not metric.rule(spelling).allows(self.cutoff if at is None else None):
                continue
            if set_here - set(fixed) or any(self.value(n) != v for n, v in fixed.items()):
                continue  # a name that fixes a parameter (trec_eval's rbp: p = 0.9) is the twin at that value only
            if at is not None:
                # trec_eval prints a level with two decimals (%3.2f): 0.12 and 0.123 would share a
                # name, so a level two decimals do not hold has no twin (and keeps its own label).
                level = float(self.value(at))
                return f"{spelling.name}_{level:.2f}" if float(f"{level:.2f}") == level else None
            return spelling.name if self.cutoff is None else f"{spelling.name}_{self.cutoff}"
        return None

    def spelled(self, tool: str, conventions: Conventions) -> str | None:
        """Its name in ``tool`` (``trec_eval``, ``ir_measures``, ``ranx``, ``ragreport``) under
        ``conventions``, None when the tool has no twin: the parameters as that tool writes them,
        the run's switches made explicit where the tool's default differs."""
        if tool == "ragreport":
            return self.label()
        if tool == "trec_eval":
            return self.trec_eval_name(conventions)
        metric = self.metric
        level = self.level(conventions)
        gain = self.gain or conventions.gain
        # ranx names an exp gain (ndcg_burges); ir_measures writes it as a parameter (dcg='exp-log2')
        wanted = gain if tool == "ranx" and metric.uses_gain and gain is Gain.EXP else None
        spellings = [s for s in metric.spellings(tool) if metric.rule(s).allows(self.cutoff) and s.gain is wanted]
        if not spellings:
            return None
        if tool == "ranx":
            if any(n != "rel" for n, _ in self.params):
                return None
            text = spellings[0].name + (f"@{self.cutoff}" if self.cutoff is not None else "")
            return text + (f"-l{level}" if level != 1 and metric.param("rel") else "")
        # ir_measures: its own defaults are rel=1 (graded for RBP: rel only where set), log2 (linear) gain, p=0.8
        written = [(name, value) for name, value in self.params if name not in ("rel", metric.at)]
        if metric.param("rel") is not None and (self.rel is not None if metric.graded else level != 1):
            written.append(("rel", level))
        if metric.uses_gain and gain is Gain.EXP:
            written.append(("dcg", "'exp-log2'"))
        text = spellings[0].name
        if written:
            text += "(" + ",".join(f"{n}={write_value(v)}" for n, v in sorted(written)) + ")"
        if metric.at != "cutoff":
            return text + f"@{write_value(self.value(metric.at))}"
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def is_count(self) -> bool:
        return self.metric.kind is ValueKind.COUNT

    @property
    def interval(self) -> IntervalMethod:
        return self.metric.interval


def _require(condition: bool, problem: str) -> None:
    if not condition:
        raise ValueError(f"metric catalogue: {problem}")


def _check() -> None:
    """The declarations agree with each other (run once, at import; kept under ``python -O``).

    The name parser (:data:`ragreport.scoring.measures.NAMES`, built when it is imported) refuses a
    name two entries declare.
    """
    _require(len(_BY_KEY) == len(CATALOGUE), "two entries share a key")
    for m in CATALOGUE:
        _require(not m.in_suite or m.cutoff.allows(1), f"{m.key} is in the suite, which is read at a cutoff")
        _require(m.in_suite or not m.compared, f"{m.key} is compared but not in the suite")
        _require(m.plain.endswith((".", "?")), f"{m.key}: its plain sentence is missing or unfinished")
        _require((m.interval is IntervalMethod.WILSON) == (m.kind is ValueKind.BINARY), f"{m.key}: Wilson is for 0/1")
        _require((m.interval is IntervalMethod.NONE) == (m.kind is ValueKind.COUNT), f"{m.key}: counts have no band")
        for tool in TOOLS:
            for s in m.spellings(tool):
                rule = m.rule(s)
                _require(
                    all(m.cutoff.allows(c) for c in (1, None) if rule.allows(c)),
                    f"{tool}'s {s.name!r} allows a form {m.key} does not",
                )
                _require((s.printed is not None) == (tool == "trec_eval"), f"{s.name!r}: only trec_eval prints")


_check()
