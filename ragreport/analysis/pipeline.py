"""The analysis stage as one call: what :func:`ragreport.api.analyse` and the commands run.

:func:`analyse_runs` gives every run its honest limits (:mod:`~ragreport.analysis.limits`), compares
the runs with the baseline (:mod:`~ragreport.analysis.compare`, on the family
:mod:`~ragreport.analysis.family` chooses), measures the drift since a previous report
(:mod:`~ragreport.analysis.drift`), slices by per-query metadata (:mod:`~ragreport.analysis.slices`)
and picks the documents shown with their text (:mod:`~ragreport.analysis.texts`).
:func:`reanalysed` does the same for a stored report.json (:mod:`~ragreport.output.exports.reportjson.restore`).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from ..core.errors import Argument, ArgumentError, whole_number
from ..core.model import Judgments
from ..reading.registry import load_qrels
from ..scoring.catalogue import COMPARED, SUITE
from ..scoring.cutoffs import SAMPLE_K
from ..scoring.measures import Measure
from .audit import audited_limits, measure_audit
from .compare import Correction, compare
from .dates import build_day
from .drift import drift
from .family import choose_family
from .limits import limits
from .power import MIN_EFFECT
from .randomization import MAX_PERMUTATIONS
from .result import Analysis
from .slices import slice_keys, slices
from .summary import RunSummary
from .texts import MAX_TEXT_QUERIES, TEXT_QUERIES, merged_query_meta, shown_texts, with_query_text

A = TypeVar("A", bound=Analysis)


def _quiet(stage: str) -> None:
    return None


def analyse_runs(
    summaries: Sequence[RunSummary],
    *,
    today: _dt.date | None = None,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    primary: str | None = None,
    family: Sequence[str | Measure] | None = None,
    progress: Callable[[str], None] = _quiet,
    previous_basis: tuple[dict, str] | None = None,
    query_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    slice_by: Sequence[str] = (),
    queries: str | Path | Mapping[str, str] | None = None,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None = None,
    text_queries: int = TEXT_QUERIES,
    min_effect: float = MIN_EFFECT,
    audit: str | Path | Mapping[str, Mapping[str, int]] | Judgments | None = None,
    make: type[A],
) -> A:
    """The analysis of the runs, made as ``make`` (:class:`~ragreport.analysis.result.Analysis`, or
    the API's :class:`~ragreport.api.Report`); :func:`ragreport.api.analyse` says what each
    argument takes."""
    permutations = whole_number(permutations, Argument("permutations"), 1, MAX_PERMUTATIONS)
    text_queries = whole_number(text_queries, Argument("text_queries"), 0, MAX_TEXT_QUERIES)
    today = today or build_day()
    if queries is not None:
        summaries = with_query_text(summaries, queries)
    k = summaries[0].k if summaries else SAMPLE_K
    compares = len(summaries) > 1 or previous_basis is not None
    suite = summaries[0].suite if summaries else SUITE
    chosen = choose_family(family, k, primary, compares=compares, suite=suite)
    if len(summaries) > 1:
        progress("comparing runs")
    if not (math.isfinite(min_effect) and min_effect > 0):
        raise ArgumentError(Argument("min_effect"), f" must be a positive number, got {min_effect}")
    comparison = compare(
        summaries,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        family=chosen,
        min_effect=min_effect,
    )
    found_drift = None
    # Drift tests the family's members it shows: the suite's metrics at K.
    shown = {(f.metric, f.cutoff) for f in chosen.measures if f.plain}
    tested = tuple(m for m in COMPARED if (m, k) in shown)
    if previous_basis is not None:
        found_drift = drift(
            previous_basis[0],
            previous_basis[1],
            summaries,
            correction=correction,
            permutations=permutations,
            tested=tested,
        )
    found_audit = None
    if audit is not None and summaries:
        progress("auditing the labels")
        name = audit.source or "audit" if isinstance(audit, Judgments) else "audit"
        if isinstance(audit, (str, Path)):
            audit, name = load_qrels(audit), str(audit)
        found_audit = measure_audit(summaries, audit, name, chosen.lead, comparison, tested)
    meta = merged_query_meta(summaries, query_meta)
    keys = slice_keys(meta, slice_by) if meta else ()
    found_slices = None
    if keys:
        progress("slicing")
        found_slices = slices(
            summaries,
            meta,
            keys,
            chosen.measures,
            Measure(chosen.lead.key, k),
            comparison,
            correction,
            permutations,
        )
    first = tuple(q for s in (found_slices.slices if found_slices else ()) for q in s.examples)
    chosen_queries, doc_texts = shown_texts(
        summaries, comparison, Measure(chosen.lead.key, k), corpus, text_queries, first, progress
    )
    return make(
        tuple(summaries),
        tuple(
            limits(s, today) if found_audit is None else audited_limits(limits(s, today), s, found_audit)
            for s in summaries
        ),
        today,
        comparison,
        found_drift,
        primary=chosen.lead,
        baseline=baseline,
        correction=correction,
        permutations=permutations,
        min_effect=min_effect,
        slices=found_slices,
        query_meta={q: {key: fields[key] for key in keys if key in fields} for q, fields in sorted(meta.items())}
        if keys
        else None,
        doc_texts=doc_texts,
        text_queries=chosen_queries,
        audit=found_audit,
    )
