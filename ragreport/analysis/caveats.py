"""What could overturn a headline verdict (docs/conventions.md section 20.4): its caveats.

A verdict accounts for which queries happened to be drawn. Each rule of :data:`RULES` looks at one
compared run's headline comparison (or at a single run) for one other source of error and returns
the figures it rests on, or None when it does not apply. Its kind is the key report.json writes and
the words of :mod:`ragreport.output.site.wording.headline` (``CAVEAT_SENTENCES``) are found by.

- ``ids``: a run of the pair (or the single run) none of whose retrieved ids, at any depth, is a
  judged id of its query (section 20.1): scored (too few queries judge ids of both kinds to refuse
  it, or the judgments are its own), every figure 0, whether it missed everything or spells the ids
  otherwise.
- ``labels``: with an audit of the model's labels (``--audit``, section 25), a headline verdict that
  is clear on the model's labels and not the same once corrected by the audited queries (the
  prediction-powered difference and its band, section 25.5).
- ``slice``: a slice of the per-query metadata whose verdict on the primary metric goes the other
  way (clearly worse under a headline that is not "clearly worse"; clearly better under a clearly
  worse one). Slices too small to read are left out.
- ``unjudged``: a plausible reading of the unjudged ids (section 20.2: condensed, or read as
  relevant at the rank-wise rate) under which the verdict's direction or clarity changes, with any
  run of the pair whose filled top-K slots are mostly (more than half) unjudged and its share. Never
  for a single run (no verdict), for judgments of relevant ids alone (no reading applies), nor for
  the every-unjudged-relevant bound alone.
- ``power``: an "unclear" verdict with what the test could have detected (section 20.3).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..scoring.catalogue import PLAUSIBLE
from ..scoring.scorable import ids_missed
from .audit import leading
from .limits import unjudged_share
from .power import POWER, queries_to_halve

if TYPE_CHECKING:
    from .compare import Comparison, RunComparison
    from .pipeline import Analysis
    from .summary import RunSummary

#: A run's filled top-K slots are "mostly unjudged" above this share.
MOSTLY_UNJUDGED = 0.5


@dataclass(frozen=True)
class Caveat:
    """One caveat: its ``kind`` and the ``figures`` it rests on (plain values, as report.json writes them)."""

    kind: str
    figures: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Subject:
    """What a rule looks at: the analysis, and the compared run's headline comparison (``pair`` and
    ``comparison`` None for a single run, ``summary`` then the run)."""

    analysis: Analysis
    summary: RunSummary
    pair: RunComparison | None = None
    comparison: Comparison | None = None


def _slice(subject: Subject) -> Mapping[str, Any] | None:
    found, slices = subject.comparison, subject.analysis.slices
    if found is None or slices is None or subject.pair is None:
        return None
    hidden = "better" if found.verdict == "worse" else "worse"
    name = subject.pair.run.name
    against = [
        (s, c) for s in slices.slices if not s.small for c in s.comparisons if c.run == name and c.verdict == hidden
    ]
    if not against:
        return None
    s, c = min(against, key=lambda item: (-abs(item[1].delta), item[0].key, item[0].value))
    figures = {key: getattr(c, key) for key in ("queries", "metric", "delta", "low", "high", "p_adjusted", "verdict")}
    return {"key": s.key, "value": s.value, **figures, "overall": found.verdict, "more": len(against) - 1}


def _unjudged(subject: Subject) -> Mapping[str, Any] | None:
    found = subject.comparison
    if found is None or found.readings is None or subject.pair is None:
        return None
    flips = [
        {"reading": name, **found.readings[name].as_dict()}
        for name in PLAUSIBLE
        if found.readings[name].verdict != found.verdict
    ]
    if not flips:
        return None
    mostly = []
    for summary in (subject.pair.run, subject.pair.baseline):
        unjudged, filled = unjudged_share(summary)
        if filled and unjudged / filled > MOSTLY_UNJUDGED:
            mostly.append({"run": summary.name, "unjudged": unjudged, "slots": filled, "share": unjudged / filled})
    return {
        "k": subject.summary.k,
        "flips": flips,
        "mostly": mostly,
        "verdict": found.verdict,
        "min_effect": found.min_effect,
    }


def _ids(subject: Subject) -> Mapping[str, Any] | None:
    runs = [subject.summary] if subject.pair is None else [subject.pair.run, subject.pair.baseline]
    missed = [
        {"run": s.name, "queries": int((s.judged.retrieved > 0).sum())}
        for s in runs
        if ids_missed(s.judged, s.following)
    ]
    return {"missed": missed} if missed else None


def _labels(subject: Subject) -> Mapping[str, Any] | None:
    found, audit = subject.comparison, subject.analysis.audit
    if found is None or audit is None or subject.pair is None or found.verdict not in ("better", "worse"):
        return None
    c = leading(audit, subject.pair.run.name, found.metric)  # what the headline leads with
    if c is None or c.verdict == found.verdict:
        return None
    delta, low, high = c.corrected
    figures = {"queries": c.queries, "delta": delta, "low": low, "high": high, "p_adjusted": c.p_adjusted}
    return {"model_verdict": found.verdict, **figures, "verdict": c.verdict, "min_effect": found.min_effect}


def _power(subject: Subject) -> Mapping[str, Any] | None:
    found = subject.comparison
    if found is None or found.verdict != "unclear":
        return None
    figures = {key: getattr(found, key) for key in ("queries", "detectable", "min_effect", "queries_needed")}
    return {**figures, "power": POWER}


#: The rules by kind, most serious first: a run that meets no judged id may be a mistake in the
#: files, which would void the verdict whatever it says; the audited labels overturning the verdict
#: is a measured finding against it (the whole set's labels, not a part of the queries); a slice that
#: goes the other way is a finding against the verdict; unjudged ids may overturn it; low power says
#: what "unclear" could not have seen.
RULES: dict[str, Callable[[Subject], Mapping[str, Any] | None]] = {
    "ids": _ids,
    "labels": _labels,
    "slice": _slice,
    "unjudged": _unjudged,
    "power": _power,
}


def caveats(subject: Subject) -> tuple[Caveat, ...]:
    """Every rule of :data:`RULES` that applies to ``subject``, in their order."""
    found = ((kind, rule(subject)) for kind, rule in RULES.items())
    return tuple(Caveat(kind, figures) for kind, figures in found if figures is not None)


def halving(summary: RunSummary) -> int:
    """The scored queries that would halve a single run's primary band."""
    return queries_to_halve(summary.counts.scored)
