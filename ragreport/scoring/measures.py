"""Measures by name, as trec_eval, ir_measures and ranx spell them, parsed once into objects.

A :class:`Measure` is a metric key with its parameters: a cutoff (``None``: the whole list) and,
for nDCG, a gain. :func:`parse_measures` turns ``P_5``, ``P.5,10``, ``nDCG@10``, ``ndcg_burges@10``
or ``recip_rank`` into measures at the boundary; nothing deeper parses a name again.
:func:`score_measures` scores any set of them per query from one padded matrix per gain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

import numpy as np

from ..core.errors import UsageError
from .join import JudgedRun
from .metrics import METRIC_BY_KEY, score
from ..core.model import Conventions, Gain

#: Keys of the measures beyond the seven metrics: R-precision and trec_eval's per-query counts.
EXTRA_KEYS = ("Rprec", "NumQ", "NumRel", "NumRet", "NumRelRet")
COUNT_KEYS = ("NumQ", "NumRel", "NumRet", "NumRelRet")  # trec_eval sums these over the queries
NO_CUTOFF = frozenset({"RR", "AP", "nDCG", *EXTRA_KEYS})  # may stand without a cutoff (whole list)
NEEDS_CUTOFF = frozenset({"P", "R", "Hit", "CP"})


@dataclass(frozen=True, order=True)
class Measure:
    """A metric with its parameters. ``cutoff`` None means the whole list; ``gain`` None means the
    run's ``--gain``."""

    key: str
    cutoff: int | None = None
    gain: Gain | None = None

    def label(self) -> str:
        text = self.key if self.cutoff is None else f"{self.key}@{self.cutoff}"
        return text if self.gain is None else f"{text} ({self.gain.value} gain)"

    def trec_eval_name(self, conventions: Conventions) -> str | None:
        """trec_eval's name for it under ``conventions``, or None when trec_eval has no twin."""
        if self.gain is not None and self.gain is not Gain.LINEAR:
            return None
        if self.key == "nDCG" and (self.gain or conventions.gain) is not Gain.LINEAR:
            return None
        c = self.cutoff
        names = {
            ("P", True): f"P_{c}", ("R", True): f"recall_{c}", ("Hit", True): f"success_{c}",
            ("AP", True): f"map_cut_{c}", ("nDCG", True): f"ndcg_cut_{c}", ("AP", False): "map",
            ("nDCG", False): "ndcg", ("RR", False): "recip_rank", ("Rprec", False): "Rprec",
            ("NumQ", False): "num_q", ("NumRel", False): "num_rel", ("NumRet", False): "num_ret",
            ("NumRelRet", False): "num_rel_ret",
        }
        return names.get((self.key, c is not None))

    @property
    def is_count(self) -> bool:
        return self.key in COUNT_KEYS

    @property
    def interval(self) -> str:
        if self.is_count:
            return "none"
        return "wilson" if self.key == "Hit" else "bootstrap"


# trec_eval prints its measures in this order (then cutoffs ascending); others follow.
TREC_ORDER = ("NumQ", "NumRet", "NumRel", "NumRelRet", "AP:all", "Rprec", "RR:all", "P", "R", "nDCG:all", "nDCG", "AP", "Hit")


def trec_sort_key(measure: Measure) -> tuple:
    family = measure.key + (":all" if measure.cutoff is None and measure.key in ("AP", "RR", "nDCG") else "")
    rank = TREC_ORDER.index(family) if family in TREC_ORDER else len(TREC_ORDER)
    return (rank, measure.key, measure.cutoff or 0, measure.gain.value if measure.gain else "")


# name (lower case) -> (key, gain, what a cutoff does: "required", "forbidden", "optional")
_NAMES: dict[str, tuple[str, Gain | None, str]] = {
    # trec_eval
    "p": ("P", None, "required"), "recall": ("R", None, "required"), "success": ("Hit", None, "required"),
    "map_cut": ("AP", None, "required"), "ndcg_cut": ("nDCG", None, "required"),
    "recip_rank": ("RR", None, "forbidden"), "map": ("AP", None, "optional"), "ndcg": ("nDCG", None, "optional"),
    "rprec": ("Rprec", None, "forbidden"), "num_q": ("NumQ", None, "forbidden"),
    "num_rel": ("NumRel", None, "forbidden"),
    "num_ret": ("NumRet", None, "forbidden"), "num_rel_ret": ("NumRelRet", None, "forbidden"),
    # ir_measures
    "r": ("R", None, "required"), "ap": ("AP", None, "optional"), "rr": ("RR", None, "optional"),
    "numq": ("NumQ", None, "forbidden"), "numrel": ("NumRel", None, "forbidden"), "numret": ("NumRet", None, "forbidden"),
    "numrelret": ("NumRelRet", None, "forbidden"),
    # ranx
    "precision": ("P", None, "required"), "hit_rate": ("Hit", None, "required"), "mrr": ("RR", None, "optional"),
    "ndcg_burges": ("nDCG", Gain.EXP, "required"), "r-precision": ("Rprec", None, "forbidden"),
    # ragreport's own
    "hit": ("Hit", None, "required"), "cp": ("CP", None, "required"),
}

VALID_FORMS = (
    "trec_eval: P_5 P.5 P.5,10 recall_1000 success_5 map_cut_100 ndcg_cut_10 map ndcg recip_rank Rprec "
    "num_q num_rel num_ret num_rel_ret; ir_measures: P@5 R@1000 Success@5 AP@100 AP nDCG@10 nDCG RR@10 RR Rprec "
    "NumRel NumRet NumRelRet; ranx: precision@5 recall@1000 hit_rate@5 map@100 map ndcg@10 ndcg_burges@10 "
    "mrr@10 mrr r-precision; ragreport: P@5 R@5 Hit@5 RR@5 AP@5 nDCG@5 CP@5"
)


def _split(token: str) -> tuple[str, int | None]:
    """``name`` and cutoff of one token: ``x@5``, ``x_5`` or ``x.5`` (trec_eval), or a bare name."""
    if "@" in token:
        name, _, cut = token.partition("@")
        if not cut.isdigit():
            raise UsageError(f"unknown measure {token!r}: the cutoff after '@' must be a whole number")
        return name, int(cut)
    match = re.fullmatch(r"(.+?)[._](\d+)", token)
    if match and match.group(1).lower() in _NAMES:
        return match.group(1), int(match.group(2))
    return token, None


def parse_measure(token: str) -> Measure:
    """One measure name in any supported spelling (see :data:`VALID_FORMS`)."""
    name, cutoff = _split(token.strip())
    entry = _NAMES.get(name.lower())
    if entry is None:
        raise UsageError(f"unknown measure {token!r}; valid forms: {VALID_FORMS}")
    key, gain, rule = entry
    if cutoff is not None and cutoff < 1:
        raise UsageError(f"measure {token!r}: the cutoff must be at least 1")
    if rule == "required" and cutoff is None:
        raise UsageError(f"measure {token!r} needs a cutoff, such as {name}@10; valid forms: {VALID_FORMS}")
    if rule == "forbidden" and cutoff is not None:
        raise UsageError(f"measure {token!r} takes no cutoff (write {name}); valid forms: {VALID_FORMS}")
    return Measure(key, cutoff, gain)


def parse_measures(texts: Iterable[str]) -> tuple[Measure, ...]:
    """Every measure of comma-separated lists; a bare number extends the previous trec_eval measure
    (``P.5,10`` is P_5 and P_10). Order is kept, repeats dropped."""
    out: list[Measure] = []
    previous: str | None = None
    for text in texts:
        for token in (t.strip() for t in text.split(",")):
            if not token:
                continue
            if token.isdigit():
                if previous is None:
                    raise UsageError(f"measure list {text!r} starts with a number; write a name first, as in P.5,10")
                token = f"{previous}.{token}"
            name, _ = _split(token)
            previous = name
            out.append(parse_measure(token))
    return tuple(dict.fromkeys(out))


def default_trec_measures(cutoffs: Sequence[int]) -> tuple[Measure, ...]:
    """What ``--format trec`` prints without ``--metrics``: trec_eval's families at every cutoff."""
    measures = [Measure("NumQ"), Measure("NumRet"), Measure("NumRel"), Measure("NumRelRet"), Measure("AP"), Measure("Rprec"),
                Measure("RR"), Measure("nDCG")]
    for key in ("P", "R", "nDCG", "AP", "Hit"):
        measures += [Measure(key, k) for k in cutoffs]
    return tuple(sorted(dict.fromkeys(measures), key=trec_sort_key))


def full_depth(judged: JudgedRun) -> int:
    """The cutoff that covers every whole list: the longest list or the largest R."""
    lengths = judged.retrieved
    return max(1, int(lengths.max()) if len(lengths) else 1, int(judged.relevant.max()) if len(judged.relevant) else 1)


def score_measures(judged: JudgedRun, measures: Sequence[Measure], conventions: Conventions) -> np.ndarray:
    """Per-query values of every measure: (measures x queries).

    The seven metrics come from :func:`ragreport.scoring.metrics.score` (one call per gain in use, at every
    cutoff needed; the whole list is a cutoff as deep as the longest list or the largest R).
    ``Rprec`` = relevant ids within the top R, over R; ``NumRel`` = R; ``NumRet`` = the list's
    length, repeats included; ``NumRelRet`` = relevant ids anywhere in the list. All repeat-aware.
    """
    out = np.zeros((len(measures), judged.n_queries))
    full = full_depth(judged)
    by_gain: dict[Gain, list[int]] = {}
    for i, m in enumerate(measures):
        if m.key in METRIC_BY_KEY:
            by_gain.setdefault(m.gain or conventions.gain, []).append(i)
    for gain, rows in by_gain.items():
        cutoffs = sorted({measures[i].cutoff or full for i in rows})
        scores = score(judged, cutoffs, replace(conventions, gain=gain))
        for i in rows:
            m = measures[i]
            out[i] = scores.of(METRIC_BY_KEY[m.key], m.cutoff or full)

    slot_relevant, slot_query, rank = judged.slot_relevant, judged.slot_query, judged.slot_rank
    relevant = judged.relevant.astype(np.float64)
    for i, m in enumerate(measures):
        if m.key == "Rprec":
            within = slot_relevant & (rank <= judged.relevant[slot_query])
            hits = np.bincount(slot_query[within], minlength=judged.n_queries)
            out[i] = np.divide(hits, relevant, out=np.zeros(judged.n_queries), where=relevant > 0)
        elif m.key == "NumQ":
            out[i] = 1.0  # summed over the scored queries, it is trec_eval's num_q
        elif m.key == "NumRel":
            out[i] = relevant
        elif m.key == "NumRet":
            out[i] = judged.retrieved
        elif m.key == "NumRelRet":
            out[i] = judged.relevant_retrieved
    return out

