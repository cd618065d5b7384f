"""The headline: per run, its primary metric against the baseline's (or, for one run, with its band),
in figures and in one sentence. Built once from the analysis; report.json writes the figures, the
view model the sentences and the forest plot (the words are :mod:`ragreport.output.site.wording.headline`'s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ...analysis.audit import corrected_figure, leading
from ...analysis.caveats import Caveat, Subject, caveats, halving, unjudged_share
from ...scoring.catalogue import PLAUSIBLE
from .wording import headline as say
from .wording import numbers as fmt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...analysis.audit import Audit
    from ...analysis.limits import Limit
    from ...analysis.pipeline import Analysis
    from ...analysis.summary import RunSummary


@dataclass(frozen=True)
class HeadlineEntry:
    """One run's headline: ``value`` is its primary figure at K, ``baseline_value`` the baseline's; for
    a compared run ``delta``, ``low``, ``high`` are the paired difference and its band, for a single run
    ``low`` and ``high`` the run's own band (the baseline fields then None). ``verdict`` is the
    comparison's verdict name, ``limit`` (single run) the key of the limit the sentence names.

    ``caveats`` (docs/conventions.md section 20.4) are what could overturn the verdict, most
    serious first, each a :class:`~ragreport.analysis.caveats.Caveat` with its sentence; a
    ``slice`` caveat is said in ``sentence`` too. ``readings_note`` says that the verdict holds
    under every reading of unjudged ids when some are in play; ``halving`` (single run) the
    scored queries that would halve the band.

    With an audit (``--audit``) a compared run's headline leads with the difference corrected by
    the audit (docs/conventions.md section 25.7): ``value``, ``baseline_value``, ``delta``, ``low``,
    ``high``, ``p_adjusted`` and ``verdict`` are the corrected ones, ``corrected_by`` the audited
    queries they are corrected by (None: the model's labels, as without an audit). ``effect``,
    ``effect_low`` and ``effect_high``: the comparison's standardised effect d_z and its band
    (docs/conventions.md section 10), None for a single run or when undefined."""

    run: str
    baseline: str | None
    metric: str
    value: float | None = None
    baseline_value: float | None = None
    delta: float | None = None
    low: float | None = None
    high: float | None = None
    p_adjusted: float | None = None
    verdict: str | None = None
    sentence: fmt.Text = field(kw_only=True)
    limit: str | None = None
    caveats: tuple[tuple[Caveat, fmt.Text], ...] = ()
    readings_note: str | None = None
    halving: int | None = None
    corrected_by: int | None = None
    effect: float | None = None  # d_z of the model's labels' difference, with its band (None: undefined)
    effect_low: float | None = None
    effect_high: float | None = None

    @property
    def more(self) -> tuple[tuple[Caveat, fmt.Text], ...]:
        """The caveats the headline sentence does not say itself (a slice is said in it)."""
        return tuple((c, text) for c, text in self.caveats if c.kind != "slice")

    def as_dict(self) -> dict[str, Any]:
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        shown["sentence"] = str(self.sentence)
        shown["caveats"] = [
            {"kind": c.kind, "sentence": str(text), **{key: _plain(v) for key, v in c.figures.items()}}
            for c, text in self.caveats
        ]
        if self.corrected_by is None:  # only with an audit: a report without one keeps its shape (25.7)
            del shown["corrected_by"]
        if self.baseline is None:  # a single run has no difference, so no standardised effect
            for key in ("effect", "effect_low", "effect_high"):
                del shown[key]
        return shown


def _plain(value: Any) -> Any:
    """A caveat's figure as JSON holds it: NaN as null, inside lists and objects too."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _worded(subject: Subject, confidence: float) -> tuple[tuple[Caveat, fmt.Text], ...]:
    return tuple((c, say.caveat_sentence(c.kind, c.figures, confidence)) for c in caveats(subject))


def _readings_note(subject: Subject) -> str | None:
    """The sentence that the verdict survives every plausible reading, when unjudged ids are in play."""
    found, pair = subject.comparison, subject.pair
    if found is None or pair is None or not found.robust or found.readings is None:
        return None
    if not any(unjudged_share(s)[0] for s in (pair.run, pair.baseline)):
        return None
    return say.robust_sentence([(name, found.readings[name].delta) for name in PLAUSIBLE], pair.run.k)


def single_sentence(
    summary: RunSummary, limits: Sequence[Limit], metric: str, audit: Audit | None = None
) -> tuple[str | None, fmt.Text]:
    """A run's headline on its own (a single run's report, and the baseline's page): what it scores
    on ``metric`` with its band, with an audit that holds it its corrected mean too, how many
    queries would halve the band, and its most important limit; with that limit's key."""
    interval = summary.at_k[metric]
    figure = corrected_figure(audit, summary.name, metric)
    corrected = None if figure is None else (figure.queries, *figure.corrected)
    unjudged, filled = unjudged_share(summary)
    key, limit = say.headline_limit(
        [lim.key for lim in limits], summary.counts.scored, summary.k, unjudged=unjudged, filled=filled
    )
    sentence = say.headline_single(
        summary.name,
        metric,
        interval.mean,
        interval.low,
        interval.high,
        summary.counts.scored,
        summary.conventions.confidence,
        limit,
        halving(summary),
        corrected,
    )
    return key, sentence


def headline(analysis: Analysis) -> tuple[HeadlineEntry, ...]:
    """One entry per compared run (every run but the baseline), or one for a single run."""
    summaries, metric = analysis.summaries, analysis.primary_label
    confidence = summaries[0].conventions.confidence
    comparison = analysis.comparison
    if comparison is None:
        summary = summaries[0]
        interval = summary.at_k[metric]
        key, sentence = single_sentence(summary, analysis.limits[0], metric, analysis.audit)
        return (
            HeadlineEntry(
                summary.name,
                None,
                metric,
                interval.mean,
                low=interval.low,
                high=interval.high,
                sentence=sentence,
                limit=key,
                caveats=_worded(Subject(analysis, summary), confidence),
                halving=halving(summary),
            ),
        )
    entries = []
    for rc in comparison.runs:
        run, base = rc.run.name, rc.baseline.name
        value, base_value = rc.run.at_k[metric].mean, rc.baseline.at_k[metric].mean
        found = next((c for c in rc.comparisons if c.metric == metric), None)
        if found is None:
            sentence = say.headline_not_compared(run, base, bool(rc.pairing.judged_apart))
            entries.append(HeadlineEntry(run, base, metric, value, base_value, sentence=sentence))
            continue
        subject = Subject(analysis, rc.run, rc, found)
        worded = _worded(subject, confidence)
        hidden = next((c.figures for c, _ in worded if c.kind == "slice"), None)
        shared = None if rc.pairing.same_queries else found.queries
        figures = (value, base_value, found.delta, found.low, found.high)  # on the model's labels
        lead = leading(analysis.audit, run, metric)
        run_figure = corrected_figure(analysis.audit, run, metric)
        base_figure = corrected_figure(analysis.audit, base, metric)
        if lead is not None and run_figure is not None and base_figure is not None:
            # The audit's decision (analysis.audit.leading): the headline reads the corrected difference.
            corrected = (run_figure.corrected[0], base_figure.corrected[0], *lead.corrected)
            verdict, p_adjusted = lead.verdict, lead.p_adjusted
            sentence = say.headline_corrected_sentence(
                run,
                base,
                metric,
                corrected,
                verdict,
                p_adjusted,
                lead.queries,
                figures,
                found.wins,
                found.losses,
                confidence,
                shared,
                hidden,
                found.min_effect,
            )
            figures = corrected
        else:
            lead = None  # no corrected figure to lead with: the model's labels, and no claim of a correction
            verdict, p_adjusted = found.verdict, found.p_adjusted
            sentence = say.headline_sentence(
                run,
                base,
                metric,
                *figures,
                found.wins,
                found.losses,
                verdict,
                p_adjusted,
                confidence,
                shared,
                hidden,
                found.min_effect,
            )
        entries.append(
            HeadlineEntry(
                run,
                base,
                metric,
                *figures,
                p_adjusted,
                verdict,
                sentence=sentence,
                caveats=worded,
                readings_note=_readings_note(subject),
                corrected_by=None if lead is None else lead.queries,
                effect=found.effect,
                effect_low=found.effect_low,
                effect_high=found.effect_high,
            )
        )
    return tuple(entries)
