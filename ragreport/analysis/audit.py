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
from ..core.model import Judgments
from .agreement import Agreement, agreement
from .summary import RunSummary, report_judgments

#: The fewest audited queries an audit is read with: a band over fewer says nothing.
MIN_AUDITED = 10

#: How many uncovered queries the refusal names.
_NAMED = 5


@dataclass(frozen=True)
class Audit:
    """The audit: where it came from, its human labels, and their agreement with the model's."""

    source: str  # the audit file's name (never a path of the machine)
    labels: Mapping[str, Mapping[str, int]]  # the human labels, {query: {id: grade}}, sorted
    agreement: Agreement


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


def measure_audit(summaries: Sequence[RunSummary], audit: AuditSource, name: str = "audit") -> Audit:
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
    return Audit(source=Path(name).name, labels=labels, agreement=found)
