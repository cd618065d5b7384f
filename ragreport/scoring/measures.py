"""Measures by name, as trec_eval, ir_measures and ranx spell them, parsed once into objects.

A :class:`Measure` is a metric key with its parameters: a cutoff (``None``: the whole list) and,
for nDCG, a gain. :func:`parse_measures` turns ``P_5``, ``P.5,10``, ``nDCG@10``, ``ndcg_burges@10``
or ``recip_rank`` into measures at the boundary; nothing deeper parses a name again. Every name,
the valid-forms message and trec_eval's names and print order come from the declarations of
:mod:`ragreport.scoring.catalogue`. :func:`score_measures` scores any set of them per query from
one padded matrix per gain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError, shorten
from ..core.model import Conventions, Gain
from .catalogue import CATALOGUE, COMPARED, PRIMARY, Measure, Metric
from .cutoffs import MAX_CUTOFF
from .kinds import TOOLS, CutoffRule
from .metrics import full_depth, score

if TYPE_CHECKING:  # annotations only
    from .join import JudgedRun

__all__ = [
    "VALID_FORMS",
    "Measure",
    "default_trec_measures",
    "parse_primary",
    "parse_measure",
    "parse_measures",
    "score_measures",
    "trec_sort_key",
]


# --- Names, generated from the declarations -------------------------------------------------------

#: The rank of a measure trec_eval does not print, after every one it does.
NOT_PRINTED = 1 << 30


def _parse_table() -> dict[str, tuple[Metric, Gain | None, CutoffRule]]:
    """Lower-cased name -> (metric, implied gain, cutoff rule), over every tool's spellings.

    A name two tools share (``map``: trec_eval's whole-list form, ranx's with or without a
    cutoff) allows every form either allows; it must mean the same metric and gain in both.
    """
    forms: dict[str, tuple[Metric, Gain | None, bool, bool]] = {}
    for metric in CATALOGUE:
        for tool in TOOLS:
            for spelling in metric.spellings(tool):
                rule = metric.rule(spelling)
                name = spelling.name.lower()
                cut, whole = rule.allows(1), rule.allows(None)
                if name in forms:
                    other, gain, other_cut, other_whole = forms[name]
                    if (other, gain) != (metric, spelling.gain):
                        raise ValueError(f"measure name {name!r} is declared for {other.key} and {metric.key}")
                    cut, whole = cut or other_cut, whole or other_whole
                forms[name] = (metric, spelling.gain, cut, whole)
    return {name: (metric, gain, CutoffRule.of(cut, whole)) for name, (metric, gain, cut, whole) in forms.items()}


def _valid_forms(example: int = 5) -> str:
    """Every spelling of every tool, each as written with a cutoff and/or without one."""
    parts = []
    for tool in TOOLS:
        forms: list[str] = []
        for metric in CATALOGUE:
            for spelling in metric.spellings(tool):
                rule = metric.rule(spelling)
                if rule.allows(example):
                    if tool == "trec_eval" and not forms:  # trec_eval's own cutoff syntax, shown once
                        forms += [
                            f"{spelling.name}_{example}",
                            f"{spelling.name}.{example}",
                            f"{spelling.name}.{example},{2 * example}",
                        ]
                    else:
                        forms.append(
                            f"{spelling.name}_{example}" if tool == "trec_eval" else f"{spelling.name}@{example}"
                        )
                if rule.allows(None):
                    forms.append(spelling.name)
        parts.append(f"{tool}: {' '.join(forms)}")
    return "; ".join(parts)


#: The parser's table: lower-cased name -> (metric, implied gain, cutoff rule).
NAMES: dict[str, tuple[Metric, Gain | None, CutoffRule]] = _parse_table()
#: Every spelling of every tool (the README's "The metrics" lists them by metric).
VALID_FORMS: str = _valid_forms()
#: Where an error about a name points for the whole list: one line, not the list itself.
EVERY_NAME = 'every name each tool spells: "The metrics" in the README'
#: A name's display spelling (as its tool writes it) by its lower-cased form.
SPELLED: dict[str, str] = {
    spelling.name.lower(): spelling.name
    for metric in CATALOGUE
    for tool in TOOLS
    for spelling in metric.spellings(tool)
}


def did_you_mean(token: str, most: int = 3) -> list[str]:
    """The valid forms closest to a misspelled ``token`` (difflib), written with its cutoff when
    it had one and the name takes one: ``nDGC@10`` -> ``["nDCG@10"]``; empty when none is close."""
    import difflib

    found = re.fullmatch(r"(.+?)(@|[._])([0-9]+)", token)
    name, sep, cut = (found.group(1), found.group(2), found.group(3)) if found else (token, "", "")
    close = difflib.get_close_matches(name.lower(), list(SPELLED), n=most, cutoff=0.6)
    if cut:  # a name given a cutoff is closest to names that take one
        cutting = [c for c in close if NAMES[c][2].allows(1)]
        return list(dict.fromkeys(SPELLED[c] + sep + cut for c in cutting)) or [
            SPELLED[c] for c in close if NAMES[c][2].allows(None)
        ]
    return list(dict.fromkeys(SPELLED[c] for c in close if NAMES[c][2].allows(None))) or [
        SPELLED[c] + "@10" for c in close
    ]


def _unknown(token: str) -> str:
    """The one line an unknown name gets: the closest forms, then where every name is listed."""
    close = did_you_mean(token)
    guess = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"unknown measure {token!r}{guess} ({EVERY_NAME})"


def trec_sort_key(measure: Measure) -> tuple[int, str, int, str]:
    """trec_eval's print order (its measure table's), then cutoffs ascending; measures trec_eval
    does not print follow."""
    spelling = measure.metric.trec_eval_spelling(measure.cutoff)
    rank = NOT_PRINTED if spelling is None or spelling.printed is None else spelling.printed
    return (rank, measure.key, measure.cutoff or 0, measure.gain.value if measure.gain else "")


def _whole(digits: str) -> int:
    """A cutoff's digits as a number; more digits than any allowed cutoff has read as one past the
    largest (Python refuses to convert thousands of digits)."""
    return int(digits) if len(digits) <= len(str(MAX_CUTOFF)) else MAX_CUTOFF + 1


def _split(token: str) -> tuple[str, int | None]:
    """``name`` and cutoff of one token: ``x@5``, ``x_5`` or ``x.5`` (trec_eval), or a bare name."""
    if "@" in token:
        name, _, cut = token.partition("@")
        if not re.fullmatch(r"[0-9]+", cut):
            raise UsageError(f"unknown measure {token!r}: the cutoff after '@' must be a whole number")
        return name, _whole(cut)
    match = re.fullmatch(r"(.+?)[._]([0-9]+)", token)  # ASCII digits only (\d takes any script's)
    if match and match.group(1).lower() in NAMES:
        return match.group(1), _whole(match.group(2))
    return token, None


def parse_measure(token: str) -> Measure:
    """One measure name in any supported spelling (see :data:`VALID_FORMS`)."""
    name, cutoff = _split(token.strip())
    entry = NAMES.get(name.lower())
    if entry is None:
        raise UsageError(_unknown(token))
    metric, gain, rule = entry
    if cutoff is not None and cutoff < 1:
        raise UsageError(f"measure {token!r}: the cutoff must be at least 1")
    if cutoff is not None and cutoff > MAX_CUTOFF:
        raise UsageError(f"measure {shorten(token)}: the cutoff must be at most {MAX_CUTOFF:,}")
    if rule is CutoffRule.REQUIRED and cutoff is None:
        raise UsageError(f"measure {token!r} needs a cutoff, such as {name}@10 ({EVERY_NAME})")
    if rule is CutoffRule.FORBIDDEN and cutoff is not None:
        raise UsageError(f"measure {token!r} takes no cutoff: write {name} ({EVERY_NAME})")
    return Measure(metric.key, cutoff, gain)


def parse_primary(text: str | None, k: int) -> Metric:
    """The report's primary metric from ``--primary`` (None: :data:`~ragreport.scoring.catalogue.PRIMARY`).

    Any spelling the name parser reads (``nDCG@10``, ``ndcg_cut_10``, ``P@10``, ``nDCG``); it must
    name a compared metric (the comparison leads with it) at the report's K, the cutoff every
    comparison is made at, or carry no cutoff (then it is read at K). A gain a name implies
    (``ndcg_burges``) is refused: the report scores one gain.
    """
    if text is None:
        return PRIMARY
    choices = ", ".join(m.label(k) for m in COMPARED)
    try:
        measure = parse_measure(text)
    except UsageError:
        raise ArgumentError(Argument("primary"), f" {text!r} is not a metric; choose one of {choices}") from None
    metric = measure.metric
    if metric not in COMPARED or measure.gain is not None or measure.cutoff not in (None, k):
        raise ArgumentError(
            Argument("primary"), f" {text!r} is not a compared metric at K = {k}; choose one of {choices}"
        )
    return metric


def parse_measures(texts: Iterable[str]) -> tuple[Measure, ...]:
    """Every measure of comma-separated lists; a bare number extends the previous trec_eval measure
    (``P.5,10`` is P_5 and P_10). Order is kept, repeats dropped."""
    out: list[Measure] = []
    previous: str | None = None
    for text in texts:
        for token in (t.strip() for t in text.split(",")):
            if not token:
                continue
            if re.fullmatch(r"[0-9]+", token):
                if previous is None:
                    raise UsageError(f"measure list {text!r} starts with a number; write a name first, as in P.5,10")
                token = f"{previous}.{token}"
            name, _ = _split(token)
            previous = name
            out.append(parse_measure(token))
    return tuple(dict.fromkeys(out))


def default_trec_measures(cutoffs: Sequence[int]) -> tuple[Measure, ...]:
    """What ``--format trec`` prints without ``--metrics``: every measure trec_eval has, over the
    whole list and at every cutoff, in trec_eval's order."""
    measures = []
    for metric in CATALOGUE:
        if metric.trec_eval_spelling(None) is not None:
            measures.append(Measure(metric.key))
        if metric.trec_eval_spelling(1) is not None:
            measures += [Measure(metric.key, k) for k in cutoffs]
    return tuple(sorted(dict.fromkeys(measures), key=trec_sort_key))


def score_measures(judged: JudgedRun, measures: Sequence[Measure], conventions: Conventions) -> np.ndarray:
    """Per-query values of every measure: (measures x queries).

    Every measure is its catalogue entry's kernel, through :func:`ragreport.scoring.metrics.score`:
    one call per gain in use, for the metrics asked for, at every cutoff needed; the whole list is
    a cutoff as deep as the longest list or the largest R (:func:`full_depth`).
    """
    out = np.zeros((len(measures), judged.n_queries))
    full = full_depth(judged)
    by_gain: dict[Gain, list[int]] = {}
    for i, m in enumerate(measures):
        by_gain.setdefault(m.gain or conventions.gain, []).append(i)
    for gain, rows in by_gain.items():
        metrics = tuple(dict.fromkeys(measures[i].metric for i in rows))
        cutoffs = sorted({measures[i].cutoff or full for i in rows})
        scores = score(judged, cutoffs, replace(conventions, gain=gain), metrics)
        for i in rows:
            out[i] = scores.of(measures[i].metric, measures[i].cutoff or full)
    return out
