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
from .agreement import Agreement, agreement
from .corrected import corrected_mean, mean_band
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
class Audit:
    """The audit: where it came from, its human labels, their agreement with the model's, and the
    runs under both label sets."""

    source: str  # the audit file's name (never a path of the machine)
    labels: Mapping[str, Mapping[str, int]]  # the human labels, {query: {id: grade}}, sorted
    agreement: Agreement
    runs: tuple[UnderBoth, ...] = ()


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


def under_both(
    summary: RunSummary, human: Mapping[str, Mapping[str, int]], audited: Sequence[str], metric: Metric
) -> UnderBoth:
    """``summary``'s ``metric`` at K under both label sets on the audited queries, and corrected."""
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
    rows, human_rows = [], []
    for i, q in enumerate(judged.query_ids.tolist()):
        j = by_query.get(q)
        if q in human and j is not None and bool(model_scored[i]) and bool(human_scored[j]):
            rows.append(i)
            human_rows.append(j)
    f_audited = model_values[np.array(rows, dtype=np.int64)]
    y_audited = human_values[np.array(human_rows, dtype=np.int64)]
    confidence = conventions.confidence
    return UnderBoth(
        run=summary.name,
        label=metric.label(k),
        queries=len(rows),
        model=mean_band(f_audited, confidence),
        human=mean_band(y_audited, confidence),
        corrected=corrected_mean(model_values[model_scored], f_audited, y_audited, confidence),
    )


def measure_audit(
    summaries: Sequence[RunSummary], audit: AuditSource, name: str = "audit", primary: Metric | None = None
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
    return Audit(source=Path(name).name, labels=labels, agreement=found, runs=runs)
