"""The headline: per run, its primary metric against the baseline's (or, for one run, with its band),
in figures and in one sentence. Built once from the analysis; report.json writes the figures, the
view model the sentences and the forest plot (the words are :mod:`ragreport.output.wording.headline`'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .wording import headline as say
from .wording import numbers as fmt

if TYPE_CHECKING:
    from ..analysis.result import Analysis


@dataclass(frozen=True)
class HeadlineEntry:
    """One run's headline: ``value`` is its primary figure at K, ``baseline_value`` the baseline's; for
    a compared run ``delta``, ``low``, ``high`` are the paired difference and its band, for a single run
    ``low`` and ``high`` the run's own band (the baseline fields then None). ``verdict`` is the
    comparison's verdict name, ``limit`` (single run) the key of the limit the sentence names."""

    run: str
    baseline: str | None
    metric: str
    value: float | None
    baseline_value: float | None
    delta: float | None
    low: float | None
    high: float | None
    p_adjusted: float | None
    verdict: str | None
    sentence: fmt.Text
    limit: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "baseline": self.baseline,
            "metric": self.metric,
            "value": self.value,
            "baseline_value": self.baseline_value,
            "delta": self.delta,
            "low": self.low,
            "high": self.high,
            "p_adjusted": self.p_adjusted,
            "verdict": self.verdict,
            "sentence": str(self.sentence),
            "limit": self.limit,
        }


def headline(analysis: Analysis) -> tuple[HeadlineEntry, ...]:
    """One entry per compared run (every run but the baseline), or one for a single run."""
    summaries, metric = analysis.summaries, analysis.primary_label
    confidence = summaries[0].conventions.confidence
    comparison = analysis.comparison
    if comparison is None:
        summary, limits = summaries[0], analysis.limits[0]
        interval = summary.at_k[metric]
        key, limit = say.headline_limit([lim.key for lim in limits], summary.counts.scored, summary.k)
        sentence = say.headline_single(
            summary.name, metric, interval.mean, interval.low, interval.high, summary.counts.scored, confidence, limit
        )
        return (
            HeadlineEntry(
                summary.name,
                None,
                metric,
                interval.mean,
                None,
                None,
                interval.low,
                interval.high,
                None,
                None,
                sentence,
                key,
            ),
        )
    entries = []
    for rc in comparison.runs:
        value, base_value = rc.run.at_k[metric].mean, rc.baseline.at_k[metric].mean
        found = next((c for c in rc.comparisons if c.metric == metric), None)
        if found is None:
            entries.append(
                HeadlineEntry(
                    rc.run.name,
                    rc.baseline.name,
                    metric,
                    value,
                    base_value,
                    None,
                    None,
                    None,
                    None,
                    None,
                    say.headline_not_compared(rc.run.name, rc.baseline.name),
                )
            )
            continue
        sentence = say.headline_sentence(
            rc.run.name,
            rc.baseline.name,
            metric,
            value,
            base_value,
            found.delta,
            found.low,
            found.high,
            found.wins,
            found.losses,
            found.verdict,
            found.p_adjusted,
            confidence,
            None if rc.pairing.same_queries else found.queries,
        )
        entries.append(
            HeadlineEntry(
                rc.run.name,
                rc.baseline.name,
                metric,
                value,
                base_value,
                found.delta,
                found.low,
                found.high,
                found.p_adjusted,
                found.verdict,
                sentence,
            )
        )
    return tuple(entries)
