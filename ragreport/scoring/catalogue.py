"""The metric catalogue: every metric and named measure declared once, with every fact about it.

A :class:`Metric` says what it is called (its key, its name, and how trec_eval, ir_measures and
ranx spell it, :class:`~ragreport.scoring.kinds.Spelling`), what it computes (its kernel), the band
its mean gets, the kind of its per-query values, whether a cutoff is required, optional or
forbidden (the words of :mod:`ragreport.scoring.kinds`), whether it is in the report's suite table
and in the comparison family, and the convention sentence printed beside it. Everything else is
generated from these declarations: the suite (:data:`SUITE`), the comparison family
(:data:`COMPARED`), and in :mod:`ragreport.scoring.measures` the name parser's table, its
valid-forms message and trec_eval's output names and print order. Nothing outside this module
tests a metric's key or its position: code that needs "the Wilson metric" asks by attribute, and
code that needs one particular metric (the primary one, the one a chart opens on) names the entry
declared here. Nothing bounds the number of entries: the charts' palette cycles.

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

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.model import Conventions, Denominator, Gain
from .kinds import TOOLS, CutoffRule, IntervalMethod, Spelling, ValueKind

if TYPE_CHECKING:  # a kernel reads a block's sums, which scoring builds (ragreport.scoring.metrics)
    from .sums import Sums

Kernel = Callable[["Sums"], np.ndarray]
Describe = Callable[[int, Conventions], str]


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

    def __reduce__(self) -> tuple[Callable[[str], Metric], tuple[str]]:
        return by_key, (self.key,)

    def label(self, k: int) -> str:
        return f"{self.key}@{k}"

    @property
    def comparable(self) -> bool:
        """Whether ``--metrics`` can put it in the comparison family: it has a per-query score (not a
        count, which is summed) and is not a diagnostic (in the suite, not compared: Judged@K)."""
        return self.kind is not ValueKind.COUNT and (self.compared or not self.in_suite)

    def changed_by(self, switch: str) -> bool:
        """Whether the convention ``switch`` (a field of :class:`Conventions`) can change its figure:
        the gain and the denominator change the metrics that use them; which queries are averaged
        (``missing``, ``no_relevant``) and the order of a list (``order``) change every metric."""
        if switch == "gain":
            return self.uses_gain
        if switch == "denominator":
            return self.uses_denominator
        return True

    def convention(self, k: int, conventions: Conventions) -> str:
        """The sentence the report prints beside the figure at ``k``."""
        return self.describe(k, conventions)

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


def _denominator_words(conventions: Conventions, k: int) -> str:
    if conventions.denominator is Denominator.MIN:
        return f"min(R, {k}), so a top {k} holding only relevant ids scores 1 even when R > {k}"
    return f"R, every id judged relevant, so it cannot reach 1 when R > {k}"


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0 (the block silences the warning)."""
    return np.where(denominator > 0, numerator / denominator, 0.0)


def _reciprocal_rank(first: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``1 / f`` for the first relevant rank ``f`` (0: none) when ``f <= k``, else 0."""
    return np.where((first > 0) & (first <= k), 1.0 / np.maximum(first, 1), 0.0)


# --- The suite: in the report's table at K, its sweep and its per-query table -------------------

PRECISION = Metric(
    key="P",
    name="Precision",
    plain="Share of the top K that is relevant.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
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
    key="R",
    name="Recall",
    plain="Share of all the relevant ids that made it into the top K.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
    cutoff=CutoffRule.REQUIRED,
    trec_eval=(Spelling("recall", printed=13),),
    ir_measures=(Spelling("R"),),
    ranx=(Spelling("recall"),),
    kernel=lambda s: _ratio(s.hits, s.denominator),
    uses_denominator=True,
    describe=lambda k, c: (
        f"Distinct relevant ids in the top {k} divided by {_denominator_words(c, k)}"
        + (f" (as trec_eval's recall_{k})." if c.denominator is Denominator.RELEVANT else " (trec_eval divides by R).")
    ),
)
HIT = Metric(
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
    key="RR",
    name="Reciprocal rank",
    plain="How high the first relevant result sits: 1 at rank 1, 1/2 at rank 2, 0 if none in the top K.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
    cutoff=CutoffRule.OPTIONAL,
    trec_eval=(Spelling("recip_rank", CutoffRule.FORBIDDEN, printed=9),),
    ir_measures=(Spelling("RR"),),
    ranx=(Spelling("mrr"),),
    kernel=lambda s: _reciprocal_rank(s.first_relevant[:, None], s.k),
    describe=lambda k, c: (
        f"1 / rank of the first relevant id when it lies within the top {k}, else 0; "
        f"the mean is MRR@{k} (trec_eval's recip_rank when {k} covers the whole list)."
    ),
)
AVERAGE_PRECISION = Metric(
    key="AP",
    name="Average precision",
    plain="How early the relevant ids come, all of them counted: 1 when every relevant id leads the list.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
    cutoff=CutoffRule.OPTIONAL,
    trec_eval=(Spelling("map_cut", CutoffRule.REQUIRED, printed=25), Spelling("map", CutoffRule.FORBIDDEN, printed=5)),
    ir_measures=(Spelling("AP"),),
    ranx=(Spelling("map"),),
    kernel=lambda s: _ratio(s.precision_sum, s.denominator),
    uses_denominator=True,
    describe=lambda k, c: (
        f"Precision at each rank within {k} that holds a relevant id, summed and divided "
        f"by {_denominator_words(c, k)}; the mean is MAP@{k}"
        + (f" (as trec_eval's map_cut_{k})." if c.denominator is Denominator.RELEVANT else " (trec_eval divides by R).")
    ),
)
NDCG = Metric(
    key="nDCG",
    name="Normalised DCG",
    plain=(
        "How close the top K comes to the best possible order, higher grades and earlier ranks counting more: "
        "1 is ideal."
    ),
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
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
    key="CP",
    name="Context precision (RAGAS)",
    plain="Are the relevant contexts ranked above the irrelevant ones? 1 when every relevant one comes first.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
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
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
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

R_PRECISION = Metric(
    key="Rprec",
    name="R-precision",
    plain="Share of the first R results that is relevant, R being the number of relevant ids.",
    interval=IntervalMethod.BOOTSTRAP,
    kind=ValueKind.SCORE,
    cutoff=CutoffRule.FORBIDDEN,
    in_suite=False,
    compared=False,
    trec_eval=(Spelling("Rprec", printed=7),),
    ir_measures=(Spelling("Rprec"),),
    ranx=(Spelling("r-precision"),),
    kernel=lambda s: s.per_query(_ratio(s.hits_at_r, s.relevant)),
    describe=lambda k, c: (
        "Distinct relevant ids among the first R ranks divided by R, 0 when R = 0 (as trec_eval's Rprec)."
    ),
)
NUM_Q = Metric(
    key="NumQ",
    name="Scored queries",
    plain="How many queries were scored.",
    interval=IntervalMethod.NONE,
    kind=ValueKind.COUNT,
    cutoff=CutoffRule.FORBIDDEN,
    in_suite=False,
    compared=False,
    trec_eval=(Spelling("num_q", printed=1),),
    ir_measures=(Spelling("NumQ"),),
    kernel=lambda s: s.per_query(np.ones(s.hi - s.lo)),  # summed over the scored queries: trec_eval's num_q
    describe=lambda k, c: "1 per query; the run's figure is the number of scored queries (as trec_eval's num_q).",
)
NUM_REL = Metric(
    key="NumRel",
    name="Relevant ids",
    plain="How many ids were judged relevant.",
    interval=IntervalMethod.NONE,
    kind=ValueKind.COUNT,
    cutoff=CutoffRule.FORBIDDEN,
    in_suite=False,
    compared=False,
    trec_eval=(Spelling("num_rel", printed=3),),
    ir_measures=(Spelling("NumRel"),),
    kernel=lambda s: s.per_query(s.relevant),
    describe=lambda k, c: (
        "R, the ids judged relevant, retrieved or not; summed over the queries (trec_eval's num_rel)."
    ),
)
NUM_RET = Metric(
    key="NumRet",
    name="Retrieved ids",
    plain="How many ids the run returned.",
    interval=IntervalMethod.NONE,
    kind=ValueKind.COUNT,
    cutoff=CutoffRule.FORBIDDEN,
    in_suite=False,
    compared=False,
    trec_eval=(Spelling("num_ret", printed=2),),
    ir_measures=(Spelling("NumRet"),),
    kernel=lambda s: s.per_query(s.retrieved),
    describe=lambda k, c: "The list's length, repeats included; summed over the queries (trec_eval's num_ret).",
)
NUM_REL_RET = Metric(
    key="NumRelRet",
    name="Relevant ids retrieved",
    plain="How many relevant ids the run returned, anywhere in its lists.",
    interval=IntervalMethod.NONE,
    kind=ValueKind.COUNT,
    cutoff=CutoffRule.FORBIDDEN,
    in_suite=False,
    compared=False,
    trec_eval=(Spelling("num_rel_ret", printed=4),),
    ir_measures=(Spelling("NumRelRet"),),
    kernel=lambda s: s.per_query(s.relevant_retrieved),
    describe=lambda k, c: (
        "Distinct relevant ids anywhere in the list; summed over the queries (trec_eval's num_rel_ret)."
    ),
)

#: Every entry, in the order tables print them.
CATALOGUE: tuple[Metric, ...] = (
    PRECISION,
    RECALL,
    HIT,
    RECIPROCAL_RANK,
    AVERAGE_PRECISION,
    NDCG,
    CONTEXT_PRECISION,
    JUDGED,
    R_PRECISION,
    NUM_Q,
    NUM_REL,
    NUM_RET,
    NUM_REL_RET,
)
#: The report's table at K, its K sweep and its per-query table.
SUITE: tuple[Metric, ...] = tuple(m for m in CATALOGUE if m.in_suite)
#: The comparison family: a paired test, a verdict and a place in the multiple-comparison correction each.
COMPARED: tuple[Metric, ...] = tuple(m for m in CATALOGUE if m.compared)
#: The readings of unjudged ids besides the default one, in the order the report states them
#: (:mod:`ragreport.scoring.readings`, docs/conventions.md section 20.2).
READINGS: tuple[str, ...] = ("unjudged_relevant", "condensed")
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
    """A metric with its parameters. ``cutoff`` None means the whole list; ``gain`` None means the
    run's ``--gain``. ``key`` is the catalogue entry's key (:attr:`metric`)."""

    key: str
    cutoff: int | None = None
    gain: Gain | None = None

    @property
    def metric(self) -> Metric:
        return by_key(self.key)

    def label(self) -> str:
        text = self.key if self.cutoff is None else f"{self.key}@{self.cutoff}"
        return text if self.gain is None else f"{text} ({self.gain.value} gain)"

    def trec_eval_name(self, conventions: Conventions) -> str | None:
        """trec_eval's name for it under ``conventions``, or None when trec_eval has no twin (trec_eval
        knows no cutoff on recip_rank, and linear gain only)."""
        metric = self.metric
        if metric.uses_gain and (self.gain or conventions.gain) is not Gain.LINEAR:
            return None
        return metric.trec_eval_measure(self.cutoff)

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
