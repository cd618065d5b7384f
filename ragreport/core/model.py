"""The typed, immutable objects data flows through: conventions, judgments, runs, run metadata.

Loaders build these; scoring reads them; nothing downstream mutates them. Ids are numpy unicode
arrays (sorted and compared in C, in code-point order, which is UTF-8 byte order) in CSR layout
(``offsets[i]:offsets[i + 1]`` is query ``i``'s slice).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Any

import numpy as np

#: The report document's schema, written into report.json and checked when one is read back:
#: ``ragreport/4`` is the packed form with the stored lists cut to the deepest cutoff asked for
#: and the judged ids condensing reads past them in place of the condensed columns
#: (docs/conventions.md section 22.17); ``ragreport/3`` (the packed form, section 22.13: the
#: stored lists and the judgments' ids as base-64 of fixed-width integers), ``ragreport/2`` (the
#: compact form, section 22.4, every index a JSON number) and ``ragreport/1`` (one object per
#: query, ids written in full) are still read.
SCHEMA = "ragreport/4"
SCHEMA_V3 = "ragreport/3"
SCHEMA_V2 = "ragreport/2"
SCHEMA_V1 = "ragreport/1"


class Choice(Enum):
    """An enum whose members carry the sentence the report prints and what the other choice does.

    ``Denominator("min")`` looks a member up by its value, as for any enum; the defaults below only
    let a type checker see that one-argument call.
    """

    meaning: str
    alternative: str

    def __new__(cls, value: str, meaning: str = "", alternative: str = "") -> Choice:
        member = object.__new__(cls)
        member._value_ = value
        member.meaning = meaning
        member.alternative = alternative
        return member

    def __str__(self) -> str:
        return self.value


class Denominator(Choice):
    """What Recall@K and AP@K divide by (``Conventions.denominator``, ``--denominator``).

    Examples
    --------
    >>> Denominator("min") is Denominator.MIN
    True
    """

    RELEVANT = (
        "relevant",
        "Recall@K and AP@K divide by R, the number of ids judged relevant, as trec_eval's "
        "recall_K and map_cut_K do; a query with more than K relevant ids can never reach 1.",
        "With --denominator min they would divide by min(R, K), so a top K made only of "
        "relevant ids scores 1 even when R > K.",
    )
    MIN = (
        "min",
        "Recall@K and AP@K divide by min(R, K), so a top K made only of relevant ids scores 1 "
        "even when R > K (not trec_eval's convention).",
        "With --denominator relevant they would divide by R, as trec_eval does, and queries "
        "with more than K relevant ids could not reach 1.",
    )


class Gain(Choice):
    """nDCG's gain (``Conventions.gain``, ``--gain``): ``LINEAR`` (the grade, as trec_eval) or ``EXP`` (2^g - 1).

    Examples
    --------
    >>> [gain.value for gain in Gain]
    ['linear', 'exp']
    """

    LINEAR = (
        "linear",
        "nDCG@K gains are the grades themselves (linear gain), as trec_eval's ndcg_cut and "
        "scikit-learn's ndcg_score use.",
        "With --gain exp the gain of grade g would be 2^g - 1 (Burges et al. 2005), which weighs "
        "highly graded ids more; for 0/1 grades both agree.",
    )
    EXP = (
        "exp",
        "nDCG@K gains are 2^grade - 1 (exponential gain, Burges et al. 2005).",
        "With --gain linear the gain would be the grade itself, as trec_eval's ndcg_cut uses; "
        "for 0/1 grades both agree.",
    )

    def apply(self, grades: np.ndarray) -> np.ndarray:
        """Gain of each grade; grades below 1 (judged non-relevant, negative) gain nothing."""
        grades = np.asarray(grades, dtype=np.float64)
        positive = np.maximum(grades, 0.0)
        if self is Gain.EXP:
            with np.errstate(over="ignore"):  # 2^1024 and beyond: use scaled() where that can occur
                return np.where(grades >= 1, np.exp2(positive) - 1.0, 0.0)
        return np.where(grades >= 1, positive, 0.0)

    def scaled(self, grades: np.ndarray, top: np.ndarray) -> np.ndarray:
        """Gain of each grade divided by ``2^top`` under exp gain (``top``: the highest grade of the
        grade's query, broadcast against ``grades``); the plain gain under linear gain.

        ``(2^g - 1) / 2^top = 2^(g - top) - 2^-top`` is at most 1 for any grade of signed 64 bits,
        where ``2^g`` overflows a double from g = 1024 on; ``g - top`` is taken in integers, exactly.
        Dividing by a power of two is exact, so nDCG, a ratio of two sums over one query, is the
        same figure, bit for bit, as with the plain gains wherever those are finite
        (docs/conventions.md section 17).
        """
        if self is not Gain.EXP:
            return self.apply(grades)
        grades = np.asarray(grades, dtype=np.int64)
        top = np.maximum(np.asarray(top, dtype=np.int64), 1)
        relevant = grades >= 1
        below = (np.where(relevant, grades, top) - top).astype(np.float64)  # <= 0: grades never exceed top
        return np.where(relevant, np.exp2(below) - np.exp2(-top.astype(np.float64)), 0.0)


class Missing(Choice):
    """A judged query the run has no entry for (``Conventions.missing``, ``--missing``).

    Examples
    --------
    >>> Conventions(missing=Missing.SKIP).missing.value
    'skip'
    """

    ZERO = (
        "zero",
        "A judged query that the run has no entry for is scored as an empty list (every metric "
        "0) and counted, as trec_eval -c does.",
        "With --missing skip such queries would be left out of every average, as trec_eval does without -c.",
    )
    SKIP = (
        "skip",
        "A judged query that the run has no entry for is left out of every average and counted, "
        "as trec_eval does without -c.",
        "With --missing zero such queries would count as empty lists scoring 0, as trec_eval -c does.",
    )


class NoRelevant(Choice):
    """A query with no id judged relevant (``Conventions.no_relevant``, ``--no-relevant``).

    Examples
    --------
    >>> TREC_EVAL.no_relevant is NoRelevant.ZERO
    True
    """

    EXCLUDE = (
        "exclude",
        "A query with no id judged relevant cannot be scored: it is left out of every average and counted.",
        "With --no-relevant zero a judged query with no relevant id would be averaged in as 0 on every "
        "retrieval metric, as trec_eval does.",
    )
    ZERO = (
        "zero",
        "A judged query with no id judged relevant is averaged in as 0 on every retrieval metric, as trec_eval "
        "does (Judged@K still counts its judged ids); queries the judgments do not list stay out.",
        "With --no-relevant exclude such queries would be left out of every average and counted, because "
        "Recall, AP and nDCG are 0/0 for them.",
    )


class Order(Choice):
    """How each query's ids are ordered (``Conventions.order``, ``--order``).

    Examples
    --------
    >>> [order.value for order in Order]
    ['score', 'file', 'trec_eval', 'ir_measures_rr']
    """

    SCORE = (
        "score",
        "Scored runs are ordered by score, high to low, with ties broken by id in descending "
        "byte order, as trec_eval does; the rank column is ignored. Lists given as lists keep "
        "their order.",
        "With --order file each query's ids would keep the order of the file.",
    )
    FILE = (
        "file",
        "Each query's ids keep the order of the file; scores and the rank column are ignored.",
        "With --order score they would be ordered by score, high to low, ties broken by id in "
        "descending byte order, as trec_eval does.",
    )
    TREC_EVAL = (
        "trec_eval",
        "Scored runs are ordered by score read in single precision, as trec_eval keeps scores (a C "
        "float): scores that differ only beyond about 7 significant digits tie, and ties are broken "
        "by id in descending byte order, as trec_eval does; the rank column is ignored. Lists given "
        "as lists keep their order.",
        "With --order score every digit of a score would count (double precision), so scores that "
        "differ only beyond single precision would not tie.",
    )
    IR_MEASURES_RR = (
        "ir_measures_rr",
        "Scored runs are ordered by score, high to low, with ties broken by id in ascending byte "
        "order, as ir_measures orders a run for RR@k (its msmarco provider; its other measures "
        "break ties as trec_eval does); the rank column is ignored. Lists given as lists keep their order.",
        "With --order score ties would be broken by id in descending byte order, as trec_eval does.",
    )

    @property
    def by_score(self) -> bool:
        """Whether scores order the lists (every choice but ``file``), not the file."""
        return self is not Order.FILE


@dataclass(frozen=True)
class RelevanceLevel:
    """The lowest grade that counts as relevant (``--relevance-level N``, trec_eval's ``-l N``,
    ir_measures' ``rel=N``, ranx's ``rel_lvl``): a switch like the :class:`Choice` members, with its
    ``value`` (the number as the flag takes it), the sentence the report prints and the other choice."""

    level: int = 1

    @property
    def value(self) -> str:
        return str(self.level)

    def __str__(self) -> str:
        return self.value

    @property
    def meaning(self) -> str:
        if self.level == 1:
            return (
                "An id is relevant when its grade is 1 or more, as trec_eval's default -l 1; grade 0 and "
                "negative grades are judged not relevant and gain nothing, and an id nobody judged counts "
                "as not relevant."
            )
        return (
            f"An id is relevant when its grade is {self.level} or more (--relevance-level {self.level}, as "
            f"trec_eval -l {self.level}): R, the hits and the first relevant rank count only those. nDCG "
            f"still gains from every grade of 1 or more, relevant or not, as trec_eval's ndcg and "
            f"ndcg_cut do whatever -l; an id nobody judged counts as not relevant."
        )

    @property
    def alternative(self) -> str:
        if self.level == 1:
            return (
                "With --relevance-level N only grades of N and above would be relevant (R, hits, ranks); "
                "nDCG would still gain from every grade of 1 or more, as trec_eval does."
            )
        return "With --relevance-level 1 every grade of 1 or more would be relevant (trec_eval's default)."


#: The highest confidence of a band: closer to 1, the band's quantile (0.5 + c/2) rounds to 1 in
#: floating point (0.9999999999999999 did), and six nines already asks for 1-in-2-million tails.
MAX_CONFIDENCE = 0.999999

#: The conventions a figure depends on (the rest, confidence, resamples and seed, shape only its
#: band): figures made under different ones do not compare.
FIGURE_CONVENTIONS = ("denominator", "gain", "missing", "no_relevant", "order", "relevance_level")


@dataclass(frozen=True)
class Conventions:
    """Every switch that changes a figure, with the defaults of docs/conventions.md.

    :data:`TREC_EVAL` holds trec_eval's choices (``--compat trec_eval``).

    Attributes
    ----------
    denominator : Denominator, default Denominator.RELEVANT
        What Recall@K and AP@K divide by.
    gain : Gain, default Gain.LINEAR
        nDCG's gain.
    missing : Missing, default Missing.ZERO
        A judged query the run has no entry for.
    order : Order, default Order.SCORE
        How each query's ids are ordered.
    no_relevant : NoRelevant, default NoRelevant.EXCLUDE
        A query with no id judged relevant.
    confidence : float, default 0.95
        The bands' confidence.
    resamples : int, default 1000
        Bootstrap resamples per band.
    seed : int, default 0
        The seed of the bootstrap and of the randomization test.
    relevance_level : int, default 1
        The lowest grade that counts as relevant.

    Examples
    --------
    >>> Conventions(gain=Gain.EXP).gain.value
    'exp'
    >>> TREC_EVAL.missing is Missing.SKIP
    True
    """

    denominator: Denominator = Denominator.RELEVANT
    gain: Gain = Gain.LINEAR
    missing: Missing = Missing.ZERO
    order: Order = Order.SCORE
    no_relevant: NoRelevant = NoRelevant.EXCLUDE
    confidence: float = 0.95
    resamples: int = 1000
    seed: int = 0
    relevance_level: int = 1

    def __post_init__(self) -> None:
        if self.relevance_level < 1:
            raise ValueError(f"relevance_level must be 1 or more, got {self.relevance_level}")
        if not 0.0 < self.confidence <= MAX_CONFIDENCE:
            raise ValueError(f"confidence must lie above 0 and at most {MAX_CONFIDENCE}, got {self.confidence}")
        if self.resamples < 1:
            raise ValueError(f"resamples must be at least 1, got {self.resamples}")
        if self.seed < 0:
            raise ValueError(f"seed must be 0 or more, got {self.seed}")

    def choices(self) -> tuple[tuple[str, Choice | RelevanceLevel], ...]:
        """(field name, choice) for every switch; the CLI switch is ``--`` + the name with dashes."""
        level = RelevanceLevel(self.relevance_level)
        return tuple((name, level if name == "relevance_level" else getattr(self, name)) for name in FIGURE_CONVENTIONS)

    def departures(self) -> tuple[tuple[str, Choice | RelevanceLevel], ...]:
        """(field name, choice) for every switch not at its default (docs/conventions.md section 13)."""
        default = dict(Conventions().choices())
        return tuple((name, choice) for name, choice in self.choices() if choice != default[name])

    def as_dict(self) -> dict[str, Any]:
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: value.value if isinstance(value, Choice) else value for name, value in values.items()}


#: trec_eval's conventions (as run without -c): judged queries the run lacks are skipped, judged
#: queries with no relevant id average in as 0, R denominators, linear gain, score order in single
#: precision (trec_eval's C float) and its tie rule.
TREC_EVAL = Conventions(
    denominator=Denominator.RELEVANT,
    gain=Gain.LINEAR,
    missing=Missing.SKIP,
    order=Order.TREC_EVAL,
    no_relevant=NoRelevant.ZERO,
)
COMPAT_PRESETS = {"trec_eval": TREC_EVAL}


class LabelSource(Choice):
    HUMAN = ("human", "Judgments made by people.", "")
    MODEL = ("model", "Judgments made by a model (an LLM judge).", "")


class RetrieverKind(Choice):
    SINGLE = ("single", "One ranked list per query.", "")
    MULTI_HOP = ("multi-hop", "Several retrieval steps per query; their union was scored.", "")
    AGENTIC = ("agentic", "An agent decided what to retrieve; the union of what it pulled was scored.", "")


#: The metadata keys ragreport knows, in the order it prints them; any other key is kept as given.
META_KEYS = (
    "name",
    "retriever",
    "date",
    "label_source",
    "judge",
    "judge_error_rate",
    "pool_depth",
    "retriever_kind",
    "notes",
)


@dataclass(frozen=True)
class RunMeta:
    """Run metadata as validated from ``RUN.meta.toml`` / ``RUN.meta.json`` (all optional)."""

    name: str | None = None
    retriever: str | None = None
    date: _dt.date | None = None
    label_source: LabelSource | None = None
    judge: str | None = None
    judge_error_rate: float | None = None
    pool_depth: int | None = None
    retriever_kind: RetrieverKind | None = None
    notes: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values, known keys first, then the others as given."""
        known = {key: _plain(getattr(self, key)) for key in META_KEYS if getattr(self, key) is not None}
        return known | {key: _plain(value) for key, value in self.extra}


def _plain(value: Any) -> Any:
    if isinstance(value, Choice):
        return value.value
    if isinstance(value, (_dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _frozen_array(values: Any, dtype: Any) -> np.ndarray:
    array = np.asarray(values, dtype=dtype)
    array.setflags(write=False)
    return array


def _csr(lists: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """The offsets and the ids, read-only, of each query's list of ids."""
    offsets = np.concatenate([[0], np.cumsum([len(ids) for ids in lists], dtype=np.int64)])
    return _frozen_array(offsets, np.int64), _frozen_array([i for ids in lists for i in ids], str)


@dataclass(frozen=True)
class Judgments:
    """Graded judgments in CSR layout: query ``i`` judged ``doc_ids[offsets[i]:offsets[i+1]]``.

    Grades are integers; >= 1 is relevant (>= the relevance level, :class:`RelevanceLevel`), 0 and
    negative are judged non-relevant. Each
    (query, id) pair appears once (loaders reject conflicting duplicates and drop identical ones).
    """

    query_ids: np.ndarray
    offsets: np.ndarray
    doc_ids: np.ndarray
    grades: np.ndarray
    source: str = ""

    @classmethod
    def from_lists(cls, per_query: list[tuple[str, list[str], list[int]]], source: str = "") -> Judgments:
        offsets, doc_ids = _csr([ids for _, ids, _ in per_query])
        grades = _frozen_array([g for _, _, gs in per_query for g in gs], np.int64)
        return cls(_frozen_array([q for q, _, _ in per_query], str), offsets, doc_ids, grades, source)


@dataclass(frozen=True)
class Run:
    """Ranked lists in CSR layout, already in ranking order (best first).

    ``query_text`` holds the optional query text per query (``None`` where not given);
    ``query_meta`` the optional per-query metadata (RAG JSONL ``meta``: the keys slices cut by).
    """

    name: str
    query_ids: np.ndarray
    offsets: np.ndarray
    doc_ids: np.ndarray
    query_text: tuple[str | None, ...] = ()
    meta: RunMeta = field(default_factory=RunMeta)
    source: str = ""
    query_meta: tuple[Mapping[str, object] | None, ...] = ()
    doc_text: Mapping[str, str] | None = None  # the documents' text a run file carries (RAG JSONL contexts)
    #: A multi-hop retriever's steps (RAG JSONL ``steps``): queries x hops, the length of each list
    #: after hops 1..h (the union in order of first appearance, so the first ``steps[q, h]`` ids are
    #: what hops 1..h found); a query of fewer hops repeats its last. None: one step.
    steps: np.ndarray | None = None

    @classmethod
    def from_lists(
        cls,
        name: str,
        per_query: list[tuple[str, list[str]]],
        *,
        query_text: tuple[str | None, ...] = (),
        meta: RunMeta | None = None,
        source: str = "",
    ) -> Run:
        offsets, doc_ids = _csr([ids for _, ids in per_query])
        return cls(
            name=name,
            query_ids=_frozen_array([q for q, _ in per_query], str),
            offsets=offsets,
            doc_ids=doc_ids,
            query_text=query_text or (None,) * len(per_query),
            meta=meta or RunMeta(),
            source=source,
        )

    @classmethod
    def empty(cls, name: str = "", source: str = "") -> Run:
        """A run with no query (a partition that holds none)."""
        return cls(name, np.zeros(0, dtype=str), np.zeros(1, dtype=np.int64), np.zeros(0, dtype="S1"), source=source)

    def with_meta(self, meta: RunMeta, name: str) -> Run:
        return replace(self, name=name or self.name, meta=meta)
