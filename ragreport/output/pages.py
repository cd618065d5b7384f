"""Map the view model onto the contexts the page templates receive.

The words and numbers are the view's (:mod:`ragreport.output.view`); this module adds only what is
particular to HTML: figures and tables serialised for the page's scripts under ids derived from
their content, the metadata notes rendered as sanitised HTML, and each run's page address.
Templates lay the contexts out; they decide nothing.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from .sanitize import render_notes
from .wording import headline as say_headline
from .wording import report as say

if TYPE_CHECKING:
    from .view.model import Cell, ComparisonView, DriftView, MetricRow, PairView, ReportView, RunView, SuiteMatrix
    from .view.slices import SlicesView


def script_json(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` escaped, so no
    id or name can close the element or start another."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def packed_json(value: Any) -> str:
    """JSON gzipped (level 9, mtime 0: the same bytes every build) in base64, for a data block the
    page's script inflates with the browser's DecompressionStream: a fifth of the plain size."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def content_id(prefix: str, value: Any) -> str:
    """An element id derived from content (never random), so two builds give the same bytes."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


def figure(value: dict[str, Any] | None) -> dict[str, Any]:
    """A plotly figure as the page embeds it: an id from its content and its JSON."""
    if value is None:
        raise ValueError("the view was built without pages (build_view(..., pages=False))")
    return {"id": content_id("fig", value), "json": script_json(value)}


def _cell(cell: Cell) -> dict[str, Any]:
    return {
        "mean": cell.mean,
        "low": cell.low,
        "high": cell.high,
        "interval": cell.interval,
        "bar": asdict(cell.bar) if cell.bar else None,
        "aria": cell.aria,
    }


def metric_rows(rows: tuple[MetricRow, ...]) -> list[dict[str, Any]]:
    return [
        {
            "label": r.label,
            "name": r.name,
            "convention": r.convention,
            "trec_eval": r.trec_eval,
            "tooltip": r.tooltip,
            "cells": [_cell(c) for c in r.cells],
        }
        for r in rows
    ]


def suite_matrix(matrix: SuiteMatrix) -> dict[str, Any]:
    """The suite as one row per run, one column per metric."""
    return {
        "metrics": list(matrix.metrics),
        "caption": matrix.caption,
        "key": matrix.key,
        "more": matrix.more,
        "rows": [
            {
                "name": r.name,
                "slug": r.slug,
                "baseline": r.baseline,
                "cells": [{**asdict(c), "bar": asdict(c.bar) if c.bar else None} for c in r.cells],
            }
            for r in matrix.rows
        ],
    }


def run_context(run: RunView) -> dict[str, Any]:
    """One run's page (and its row of the index)."""
    table = run.queries
    if table is None:
        raise ValueError("the view was built without pages (build_view(..., pages=False))")
    return {
        "name": run.name,
        "slug": run.slug,
        "source": run.source,
        "k": run.k,
        "kmax": run.kmax,
        "date": run.date,
        "counts": run.counts,
        "fingerprints": run.fingerprints,
        "short_fingerprints": run.short_fingerprints,
        "metric_rows": metric_rows(run.metrics),
        "suite": suite_matrix(run.suite),
        "figure": figure(run.figure),
        "table": {
            "id": content_id("queries", [run.name, run.fingerprints["queries"]]),
            "json": script_json(table.data),
            "status_options": [asdict(o) for o in table.status_options],
            "headers": list(table.headers),
            "titles": list(table.titles),
            "total": table.total,
            "filter_label": table.filter_label,
            "print_note": table.print_note,
        },
        "conventions": {"switches": [asdict(s) for s in run.conventions], "fixed": [asdict(r) for r in run.rules]},
        "limits": [asdict(limit) for limit in run.limits],
        "limits_line": run.limits_line,
        "meta": [{"key": m.label, "value": m.value} for m in run.meta],
        "notes_html": Markup(render_notes(run.notes)) if run.notes else None,
        "confidence": run.confidence,
        "fact_items": [asdict(f) for f in run.facts],
        "suite_caption": run.suite_caption,
        "sweep_caption": run.sweep_caption,
        "table_caption": run.table_caption,
        "columns": [asdict(c) for c in run.columns],
        "compare_link": asdict(run.compare_link) if run.compare_link else None,
        "is_baseline": run.is_baseline,
    }


def _pair(pair: PairView) -> dict[str, Any]:
    out: dict[str, Any] = {"run": pair.run, "anchor": pair.anchor, "compared": pair.compared, "notes": list(pair.notes)}
    if pair.compared:
        out.update(
            queries=pair.queries,
            heading=pair.heading,
            gains=[asdict(m) for m in pair.gains],
            losses=[asdict(m) for m in pair.losses],
            gains_caption=pair.gains_caption,
            losses_caption=pair.losses_caption,
            scatter_label=pair.scatter_label,
            outcome_label=pair.outcome_label,
            scatter=figure(pair.scatter),
            outcome=figure(pair.outcome),
            query_column=pair.query_column,
        )
    return out


def comparison_context(cmp: ComparisonView) -> dict[str, Any]:
    """The comparison section: how it was made, the table, and per run the per-query view."""
    rows = [
        {
            "run": r.run,
            "metric": r.metric,
            "delta": r.delta,
            "band": r.band,
            "bar": asdict(r.bar) if r.bar else None,
            "p": r.p,
            "p_adjusted": r.p_adjusted,
            "wtl": r.wtl,
            "verdict": r.verdict,
            "verdict_class": r.verdict_class,
            "aria": r.aria,
        }
        for r in cmp.rows
    ]
    return {
        "baseline": cmp.baseline,
        "baseline_anchor": cmp.baseline_anchor,
        "heading": str(cmp.heading),
        "caption": cmp.caption,
        "confidence": cmp.confidence,
        "k": cmp.k,
        "primary": cmp.primary,
        "no_movers": cmp.no_movers,
        "correction": cmp.correction,
        "method": [str(t) for t in cmp.method],
        "notes": list(cmp.notes),
        "rows": rows,
        "metrics": list(cmp.metrics),
        "matrix": [{"run": r.run, "cells": [asdict(c) if c else None for c in r.cells]} for r in cmp.matrix],
        "matrix_caption": cmp.matrix_caption,
        "more": cmp.more,
        "views": [_pair(p) for p in cmp.pairs],
    }


def drift_context(drift: DriftView) -> dict[str, Any]:
    return {
        "previous_line": drift.previous_line,
        "comparable": drift.comparable,
        "reasons": [str(t) for t in drift.reasons],
        "notes": [str(t) for t in drift.notes],
        "same_line": str(drift.same_line) if drift.same_line else None,
        "rows": [asdict(r) for r in drift.rows],
        "changes": list(drift.changes),
        "method": drift.method,
        "unchanged": list(drift.unchanged),
        "metrics": list(drift.metrics),
        "matrix": [{"run": r.run, "cells": [asdict(c) if c else None for c in r.cells]} for r in drift.matrix],
        "matrix_caption": drift.matrix_caption,
        "more": drift.more,
        "confidence": drift.confidence,
        "correction": drift.correction,
    }


def site_context(view: ReportView) -> dict[str, Any]:
    """Everything the index and the run pages show, for every run."""
    return {
        "title": view.title,
        "date": view.date,
        "generator": view.generator,
        "k": view.k,
        "confidence": view.confidence,
        "runs": [run_context(r) for r in view.runs],
        "metric_rows": metric_rows(view.metric_rows),
        "suite": suite_matrix(view.suite),
        "figure": figure(view.figure),
        "several": view.several,
        "lede": view.lede,
        "suite_caption": view.suite_caption,
        "sweep_caption": view.sweep_caption,
        "columns": [asdict(c) for c in view.columns],
        "primary": view.primary,
        "headline": [
            {"run": h.run, "anchor": h.anchor, "verdict_class": h.verdict_class, "sentence": h.sentence}
            for h in view.headline
        ],
        "headline_title": say_headline.HEADLINE_TITLE,
        "headline_details": say_headline.HEADLINE_DETAILS,
        "headline_caption": view.headline_caption,
        "forest": figure(view.forest),
        "scored_fingerprints": say_headline.SCORED_FINGERPRINTS,
        "glossary": asdict(view.glossary),
        "glossary_link": say.GLOSSARY_LINK,
        "comparison": comparison_context(view.comparison) if view.comparison is not None else None,
        "drift": drift_context(view.drift) if view.drift is not None else None,
        "conventions": asdict(view.conventions) if view.conventions is not None else None,
        "run_conventions": say.RUN_CONVENTIONS,
        "gates": asdict(view.gates) if view.gates is not None else None,
        "slices": slices_context(view.slices) if view.slices is not None else None,
        "query_view": None
        if view.query_view is None
        else {
            "id": content_id("queryview", view.query_view["runs"]),
            "packed": packed_json(view.query_view),
            "unsupported": say.QUERY_VIEW_UNSUPPORTED,
        },
        "query_view_title": say.QUERY_VIEW_TITLE,
    }


def slices_context(view: SlicesView) -> dict[str, Any]:
    """The slices section: how they were read, the slices that go the other way, a table per key."""
    return {
        "title": view.title,
        "lede": view.lede,
        "small_note": view.small_note,
        "examples_header": view.examples_header,
        "opposite": list(view.opposite),
        "tables": [
            {
                "key": t.key,
                "anchor": t.anchor,
                "caption": t.caption,
                "runs": list(t.runs),
                "compared": list(t.compared),
                "rows": [
                    {
                        "value": r.value,
                        "queries": r.queries,
                        "small": r.small,
                        "figures": [asdict(c) for c in r.figures],
                        "deltas": [asdict(c) for c in r.deltas],
                        "examples": list(r.examples),
                    }
                    for r in t.rows
                ],
            }
            for t in view.tables
        ],
    }
