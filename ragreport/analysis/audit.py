"""An audit of the model's labels by human labels (``--audit FILE``; docs/conventions.md section 25).

The main judgments (``--qrels``) are the model judge's; the audit holds human judgments for a sample
of queries, every judged pair of an audited query taken as the human truth for it. Refused, one line
each, naming the file: an audit of fewer than :data:`MIN_AUDITED` queries, and audited queries the
model's labels do not cover (their human-minus-model difference has no model half).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import InputError
from ..core.ids import as_text
from ..core.model import Judgments, Run
from ..scoring.catalogue import Metric
from ..scoring.join import join
from ..scoring.metrics import score
from .agreement import Agreement, agreement, kendall_tau
from .compare import ComparisonReport
from .corrected import corrected_mean, mean_band
from .limits import Limit
from .summary import RunSummary, report_judgments

#: The fewest audited queries an audit is read with: a band over fewer says nothing.
MIN_AUDITED = 10

#: How many uncovered queries the refusal names.
_NAMED = 5


#: A mean with its band: (mean, low, high).
Figure = tuple[float, float, float]


@dataclass(frozen=True)
class UnderBoth:
    """One run's primary metric on the audited queries under the model's and the human labels, and
    its prediction-powered mean over every scored query (:mod:`~ragreport.analysis.corrected`)."""

    run: str
    label: str  # the metric at K: nDCG@10
    queries: int  # audited queries scored under both label sets
    model: Figure
    human: Figure
    corrected: Figure


@dataclass(frozen=True)
class CorrectedComparison:
    """A compared run's paired difference from the baseline on the primary metric: under the
    model's labels (the comparison's, with its verdict), on the audited queries under the human
    labels, and corrected (the prediction-powered mean of the per-query differences)."""

    run: str
    metric: str
    model_verdict: str
    model: Figure  # the comparison's difference and band (every paired query, model labels)
    human: Figure  # on the audited paired queries, human labels
    corrected: Figure
    verdict: str  # the corrected band's: better (above 0), worse (below 0) or unclear
    queries: int  # audited paired queries


@dataclass(frozen=True)
class Audit:
    """The audit: where it came from, its human labels, their agreement with the model's, and the
    runs under both label sets."""

    source: str  # the audit file's name (never a path of the machine)
    labels: Mapping[str, Mapping[str, int]]  # the human labels, {query: {id: grade}}, sorted
    agreement: Agreement
    runs: tuple[UnderBoth, ...] = ()
    comparisons: tuple[CorrectedComparison, ...] = ()
    tau: float | None = None  # Kendall's tau-b of the runs' orderings under the two label sets (3+ runs)


#: What an audit is given as: read judgments (a qrels file read by the pipeline) or ``{query: {id: grade}}``.
AuditSource = Mapping[str, Mapping[str, int]] | Judgments


def audit_labels(audit: AuditSource, name: str = "audit") -> tuple[dict[str, dict[str, int]], str]:
    """The audit's human labels as ``{query: {id: grade}}`` and the name it is refused by."""
    if isinstance(audit, Mapping):
        return {str(q): {str(d): int(g) for d, g in grades.items()} for q, grades in audit.items()}, name
    judgments = audit
    out: dict[str, dict[str, int]] = {}
    ids, grades = as_text(judgments.doc_ids), judgments.grades.tolist()
    for i, q in enumerate(judgments.query_ids.tolist()):
        a, b = int(judgments.offsets[i]), int(judgments.offsets[i + 1])
        out[str(q)] = dict(zip(ids[a:b], grades[a:b]))
    return out, name


def check_audit(human: Mapping[str, Mapping[str, int]], model: Mapping[str, Mapping[str, int]], name: str) -> None:
    """Refuse an audit of fewer than :data:`MIN_AUDITED` queries, or one with queries the model's
    labels do not cover, in one line naming ``name``."""
    audited = [q for q, grades in human.items() if grades]
    if len(audited) < MIN_AUDITED:
        raise InputError(name, None, f"human judgments for at least {MIN_AUDITED} queries (--audit)", f"{len(audited)}")
    uncovered = sorted(q for q in audited if not model.get(q))
    if uncovered:
        shown = ", ".join(repr(q) for q in uncovered[:_NAMED]) + (", ..." if len(uncovered) > _NAMED else "")
        raise InputError(
            name,
            None,
            "audited queries that the model's labels (--qrels) also judge",
            f"{len(uncovered)} they do not cover ({shown})",
        )


def _per_query(
    summary: RunSummary, human: Mapping[str, Mapping[str, int]], audited: Sequence[str], metric: Metric
) -> tuple[dict[str, float], dict[str, float]]:
    """``summary``'s ``metric`` at K per scored query under the model's labels, and per audited
    query scored under both label sets under the human labels."""
    judged, k, conventions = summary.judged, summary.k, summary.conventions
    run = Run(name=judged.name, query_ids=judged.query_ids, offsets=judged.offsets, doc_ids=judged.doc_ids)
    truth = Judgments.from_lists([(q, list(human[q]), list(human[q].values())) for q in audited])
    again = join(run, truth, conventions.relevance_level)
    human_scores = score(again, [k], conventions, metrics=(metric,))
    by_query = {q: i for i, q in enumerate(again.query_ids.tolist())}
    model_values = summary.scores.of(metric, k)
    model_scored = summary.scores.scored
    human_values = human_scores.of(metric, k)
    human_scored = human_scores.scored
    model_of: dict[str, float] = {}
    human_of: dict[str, float] = {}
    for i, q in enumerate(judged.query_ids.tolist()):
        if not bool(model_scored[i]):
            continue
        model_of[q] = float(model_values[i])
        j = by_query.get(q)
        if q in human and j is not None and bool(human_scored[j]):
            human_of[q] = float(human_values[j])
    return model_of, human_of


def _verdict(figure: Figure) -> str:
    return "better" if figure[1] > 0 else "worse" if figure[2] < 0 else "unclear"


def under_both(
    summary: RunSummary, human: Mapping[str, Mapping[str, int]], audited: Sequence[str], metric: Metric
) -> UnderBoth:
    """``summary``'s ``metric`` at K under both label sets on the audited queries, and corrected."""
    model_of, human_of = _per_query(summary, human, audited, metric)
    shared = list(human_of)
    f_audited = np.array([model_of[q] for q in shared])
    y_audited = np.array([human_of[q] for q in shared])
    confidence = summary.conventions.confidence
    return UnderBoth(
        run=summary.name,
        label=metric.label(summary.k),
        queries=len(shared),
        model=mean_band(f_audited, confidence),
        human=mean_band(y_audited, confidence),
        corrected=corrected_mean(np.array(list(model_of.values())), f_audited, y_audited, confidence),
    )


def corrected_comparisons(
    comparison: ComparisonReport | None,
    human: Mapping[str, Mapping[str, int]],
    audited: Sequence[str],
    metric: Metric,
) -> tuple[CorrectedComparison, ...]:
    """Each compared run's difference from the baseline on ``metric`` at K, corrected by the audit."""
    if comparison is None:
        return ()
    out = []
    for pair in comparison.runs:
        label = metric.label(pair.run.k)
        found = next((c for c in pair.comparisons if c.metric == label), None)
        if found is None:
            continue
        run_model, run_human = _per_query(pair.run, human, audited, metric)
        base_model, base_human = _per_query(pair.baseline, human, audited, metric)
        paired = [q for q in run_model if q in base_model]
        both = [q for q in paired if q in run_human and q in base_human]
        d_all = np.array([run_model[q] - base_model[q] for q in paired])
        d_model = np.array([run_model[q] - base_model[q] for q in both])
        d_human = np.array([run_human[q] - base_human[q] for q in both])
        confidence = pair.run.conventions.confidence
        corrected = corrected_mean(d_all, d_model, d_human, confidence)
        out.append(
            CorrectedComparison(
                run=pair.run.name,
                metric=label,
                model_verdict=found.verdict,
                model=(found.delta, found.low, found.high),
                human=mean_band(d_human, confidence),
                corrected=corrected,
                verdict=_verdict(corrected) if np.isfinite(corrected[0]) else "unclear",
                queries=len(both),
            )
        )
    return tuple(out)


def measure_audit(
    summaries: Sequence[RunSummary],
    audit: AuditSource,
    name: str = "audit",
    primary: Metric | None = None,
    comparison: ComparisonReport | None = None,
) -> Audit:
    """The audit of the runs' model labels, ``name`` naming it in a refusal: checked, and their
    agreement measured."""
    human, name = audit_labels(audit, name)
    model = report_judgments(summaries)
    check_audit(human, model, name)
    first = summaries[0]
    level = first.conventions.relevance_level
    audited = sorted(q for q, grades in human.items() if grades)
    index = {q: i for i, q in enumerate(audited)}
    query, model_grades, human_grades = [], [], []
    for q in audited:
        theirs = model[q]
        for d, g in human[q].items():
            if d in theirs:
                query.append(index[q])
                model_grades.append(theirs[d])
                human_grades.append(g)
    slot_model, slot_human = [], []
    for summary in summaries:
        judged = summary.judged.head(summary.k)
        qids = judged.query_ids.tolist()
        offsets = judged.offsets
        ids = as_text(judged.doc_ids)
        for i, q in enumerate(qids):
            if q not in index:
                continue
            a, b = int(offsets[i]), int(offsets[i + 1])
            truth = human[q]
            slot_model.append(np.asarray(judged.grades[a:b]) >= level)
            slot_human.append(np.array([truth.get(d, 0) >= level for d in ids[a:b]], dtype=bool))
    conventions = first.conventions
    found = agreement(
        np.array(query, dtype=np.int64),
        np.array(model_grades, dtype=np.int64),
        np.array(human_grades, dtype=np.int64),
        queries=len(audited),
        level=level,
        resamples=conventions.resamples,
        seed=conventions.seed,
        confidence=conventions.confidence,
        slot_model=slot_model,
        slot_human=slot_human,
    )
    labels = {q: dict(sorted(human[q].items())) for q in audited}
    runs = () if primary is None else tuple(under_both(s, labels, audited, primary) for s in summaries)
    compared = () if primary is None else corrected_comparisons(comparison, labels, audited, primary)
    # The runs' orderings on the audited queries, by their primary mean under each label set.
    model_means, human_means = np.array([r.model[0] for r in runs]), np.array([r.human[0] for r in runs])
    tau = kendall_tau(model_means, human_means) if len(runs) >= 3 else None
    return Audit(source=Path(name).name, labels=labels, agreement=found, runs=runs, comparisons=compared, tau=tau)


def _figure(value: float) -> str:
    return "undefined" if not np.isfinite(value) else f"{value:.2f}"


def audited_limits(limits: tuple[Limit, ...], summary: RunSummary, audit: Audit) -> tuple[Limit, ...]:
    """``summary``'s honest limits with the judge's limit measured by the audit: its kappas replace
    the stated sentence and any stated error rate (docs/conventions.md section 25.1), in the place
    the judge's limit takes among the rules (after the unjudged ids)."""
    found = audit.agreement
    who = f" ({summary.judged.meta.judge})" if summary.judged.meta.judge else ""
    band = f"{summary.conventions.confidence:.0%} band"
    text = (
        f"The labels come from a model judge{who}, audited by human labels on {found.queries:,} queries "
        f"({audit.source}): on the {found.pairs:,} pairs both judged, Cohen's kappa is {_figure(found.kappa)} "
        f"({band} {_figure(found.kappa_low)} to {_figure(found.kappa_high)}) and the quadratically weighted kappa "
        f"{_figure(found.weighted_kappa)} ({band} {_figure(found.weighted_low)} to {_figure(found.weighted_high)})"
    )
    if found.disagreement is not None:
        text += (
            f"; the two label sets read {found.disagreement:.1%} of the runs' top-{summary.k} slots on the "
            f"audited queries differently"
        )
    text += ". The corrected figures remove the judge's bias measured there; the others carry it."
    measured = Limit("judge_error", "Labels from a model judge, audited", text)
    kept = [limit for limit in limits if limit.key != "judge_error"]
    at = 1 if kept and kept[0].key == "unjudged" else 0
    return (*kept[:at], measured, *kept[at:])
