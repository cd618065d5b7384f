"""Build the plain data every page template receives: strings already formatted, no decisions left.

This is the summarise -> render boundary for the site: it reads run summaries and limits and
returns dictionaries of text, numbers and pre-serialised JSON. Templates only lay them out.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import re
from typing import Any, Sequence

import numpy as np

from markupsafe import Markup

from .charts import index_sweep_figure, outcome_figure, run_sweep_figure, scatter_figure
from ..core.ids import as_text
from ..analysis.limits import Limit, run_date
from ..scoring.metrics import FIXED_RULES, METRICS
from .document import pair_notes
from ..core.model import Choice
from ..analysis.summary import RunSummary, Status

MARKS = ("relevant", "judged non-relevant", "unjudged", "repeat")
INTERVAL_NAMES = {"wilson": "Wilson", "bootstrap": "bootstrap"}


def fmt(value: float | None) -> str:
    """Three decimals, or ``n/a`` for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.3f}"


def script_json(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` escaped, so no
    id or name can close the element or start another."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def content_id(prefix: str, value: Any) -> str:
    """An element id derived from content (never random), so two builds give the same bytes."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


def slug(name: str, taken: set[str]) -> str:
    """A file-name-safe slug of a run name, unique among ``taken``.

    A name that is already a clean slug stays as it is; any other gets a short hash of the name,
    so two names that clean up alike (``A/B`` and ``a b``) still get two files.
    """
    base = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-")[:40] or "run"
    if base != name or base in taken:
        base = f"{base}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"
    taken.add(base)
    return base


def _cell(interval) -> dict[str, Any]:
    low, high, mean = interval.low, interval.high, interval.mean
    valid = not any(math.isnan(v) for v in (low, high, mean))
    return {
        "mean": fmt(mean), "low": fmt(low), "high": fmt(high),
        "interval": INTERVAL_NAMES[interval.method],
        "bar": {"x": f"{100 * low:.1f}", "w": f"{max(100 * (high - low), 0.6):.1f}",
                "m": f"{100 * mean - 0.6:.1f}"} if valid else None,
        "aria": (f"{fmt(mean)}, band {fmt(low)} to {fmt(high)}" if valid else "not available"),
    }


def metric_rows(summaries: Sequence[RunSummary]) -> list[dict[str, Any]]:
    """One row per metric at K: its label, convention and one cell per run."""
    first = summaries[0]
    rows = []
    for cutoff in first.cutoffs:
        for metric in METRICS:
            label = metric.label(cutoff)
            rows.append({
                "label": label,
                "name": metric.name,
                "convention": metric.convention(cutoff, first.conventions),
                "trec_eval": metric.trec_eval_name(cutoff) or "none",
                "cells": [_cell(s.at_k[label]) for s in summaries],
            })
    return rows


def conventions(summary: RunSummary) -> dict[str, Any]:
    """Every switch in force with its meaning and what the other choice would do, then fixed rules."""
    c = summary.conventions
    switches = []
    for name, choice in c.choices():
        switches.append({"name": name.replace("_", " ").capitalize(), "switch": f"--{name.replace('_', '-')} {choice.value}",
                         "meaning": choice.meaning, "alternative": choice.alternative})
    switches.append({
        "name": "Bands", "switch": f"--confidence {c.confidence:g} --resamples {c.resamples} --seed {c.seed}",
        "meaning": (f"Hit@K carries the Wilson score interval at {c.confidence:.0%} with the query as the trial; "
                    f"every other mean a percentile bootstrap over the scored queries, {c.resamples:,} resamples "
                    f"with seed {c.seed}, reproducible to the last digit."),
        "alternative": "Another seed moves a bootstrap band slightly; more resamples steady it.",
    })
    return {"switches": switches, "fixed": [{"name": n, "text": t} for n, t in FIXED_RULES]}


def _choice_text(value: Any) -> str:
    if isinstance(value, Choice):
        return value.value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def meta_rows(summary: RunSummary) -> list[dict[str, str]]:
    meta = summary.judged.meta.as_dict()
    return [{"key": k, "value": _choice_text(v)} for k, v in meta.items() if k != "notes"]


def query_table(summary: RunSummary) -> dict[str, Any]:
    """The per-query table as compact arrays for the page's script (rows and top-K details)."""
    judged, scores, k = summary.judged, summary.scores, summary.k
    column = scores.column(k)
    statuses = list(Status)
    status_index = {s: i for i, s in enumerate(statuses)}
    scored = scores.scored.tolist()
    metric_columns = []
    for m, metric in enumerate(METRICS):
        values = scores.values[m, :, column]
        if metric.interval == "wilson":
            metric_columns.append([int(v) if s else None for v, s in zip(values.tolist(), scored)])
        else:
            metric_columns.append([round(v, 6) if s else None for v, s in zip(values.tolist(), scored)])
    rows = []
    first = scores.first_relevant_rank.tolist()
    for q, (qid, text, relevant, length, repeats, status) in enumerate(zip(
            judged.query_ids.tolist(), judged.query_text, judged.relevant.tolist(), judged.retrieved.tolist(),
            judged.repeats.tolist(), summary.status)):
        rows.append([qid, status_index[status], text, relevant, length, first[q] or None]
                    + [col[q] for col in metric_columns] + [repeats])

    lengths = judged.lengths
    keep = judged.slot_rank <= k
    mark = np.where(judged.repeat, 3, np.where(~judged.judged, 2, np.where(judged.grades >= 1, 0, 1)))[keep]
    docs = as_text(judged.doc_ids[keep])
    grades = [g if j else None for g, j in zip(judged.grades[keep].tolist(), judged.judged[keep].tolist())]
    marks = mark.tolist()
    bounds = np.concatenate([[0], np.cumsum(np.minimum(lengths, k))]).tolist()
    top = [[[docs[i], grades[i], marks[i]] for i in range(bounds[q], bounds[q + 1])]
           for q in range(judged.n_queries)]

    counts = {s: 0 for s in statuses}
    for s in summary.status:
        counts[s] += 1
    headers = (["id", "status", "query", "R", "retrieved", "first relevant rank"] + [m.label(k) for m in METRICS]
               + ["repeats"])
    # How the page formats each column: ids and text as given, counts as integers, scores with 3 decimals.
    kinds = (["id", "status", "text", "count", "count", "count"]
             + ["count" if m.interval == "wilson" else "score" for m in METRICS] + ["count"])
    return {
        "data": {
            "k": k,
            "columns": headers,
            "kinds": kinds,
            "statuses": [s.label for s in statuses],
            "marks": list(MARKS),
            "rows": rows,
            "top": top,
        },
        "status_options": [{"value": i, "label": s.label, "meaning": s.meaning, "count": counts[s]}
                           for i, s in enumerate(statuses) if counts[s]],
        "headers": headers,
        "total": judged.n_queries,
    }


def run_context(summary: RunSummary, slug_name: str, run_limits: Sequence[Limit], today: _dt.date,
                notes_html: str) -> dict[str, Any]:
    c = summary.counts
    figure = run_sweep_figure(summary)
    table = query_table(summary)
    k, kmax = summary.k, int(summary.sweep.cutoffs[-1])
    confidence = f"{summary.conventions.confidence:.0%}"
    return {
        "name": summary.name,
        "slug": slug_name,
        "source": summary.judged.source,
        "k": k,
        "kmax": kmax,
        "date": run_date(summary, today).isoformat(),
        "counts": {key: f"{value:,}" for key, value in c.as_dict().items()},
        "fingerprints": {"queries": summary.query_fingerprint, "labels": summary.label_fingerprint},
        "metric_rows": metric_rows([summary]),
        "figure": {"id": content_id("fig", figure), "json": script_json(figure)},
        "table": {"id": content_id("queries", [summary.name, summary.query_fingerprint]),
                  "json": script_json(table["data"]), "status_options": table["status_options"],
                  "headers": table["headers"], "total": f"{table['total']:,}"},
        "conventions": conventions(summary),
        "limits": [limit.as_dict() for limit in run_limits],
        "meta": meta_rows(summary),
        "notes_html": Markup(notes_html) if notes_html else None,
        "confidence": confidence,
        "fact_items": [
            {"label": "queries", "value": f"{c.queries:,}"},
            {"label": "scored", "value": f"{c.scored:,}"},
            {"label": "no relevant id (excluded)", "value": f"{c.excluded_no_relevant:,}"},
            {"label": "judged, missing from run", "value": f"{c.missing_from_run:,}"},
            {"label": "repeated ids", "value": f"{c.repeats:,}"},
            {"label": "K (sweep to)", "value": f"{k} ({kmax})"},
        ],
        "suite_caption": (f"Means over the {c.scored:,} scored queries at K = {k}, each with its {confidence} "
                          f"band, the interval that made it and the convention behind it."),
        "sweep_caption": (f"Every metric at every K from 1 to {kmax} with its {confidence} band; the dotted line "
                          f"marks K = {k}. Hover a point for its mean and band."),
        "table_caption": (f"Every query at K = {k}. Sort by any column; filter by status or id; open a row for "
                          f"its top {k} ids, each marked relevant, judged non-relevant, unjudged or repeat."),
    }


def _p_text(p: float) -> str:
    return "n/a" if math.isnan(p) else ("< 0.001" if p < 0.001 else f"{p:.3f}")


def _signed(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:+.3f}"


VERDICTS = {"better": ("▲ better: band above 0, corrected p below {alpha:g}", "better"),
            "worse": ("▼ worse: band below 0, corrected p below {alpha:g}", "worse"),
            "band above 0": ("band above 0, but corrected p {p}", "band-only"),
            "band below 0": ("band below 0, but corrected p {p}", "band-only"),
            "unclear": ("no clear difference", "unclear")}
#: The metric the gained and lost queries are ranked by.
PRIMARY_METRIC = "nDCG"


def _diverging_bar(low: float, high: float, mean: float) -> dict[str, str] | None:
    """A band on the axis from -1 to 1, as SVG coordinates 0 to 100 (0 at 50)."""
    if any(math.isnan(v) for v in (low, high, mean)):
        return None
    x = lambda v: 50 + 50 * max(-1.0, min(1.0, v))  # noqa: E731
    return {"x": f"{x(low):.1f}", "w": f"{max(x(high) - x(low), 0.6):.1f}", "m": f"{x(mean) - 0.6:.1f}"}


def _movers(rc, k: int, ids: list[str], texts: list[str | None], sign: int, most: int = 10) -> list[dict[str, str]]:
    m = [metric.key for metric in METRICS].index(PRIMARY_METRIC)
    delta = rc.run_scores[:, m] - rc.baseline_scores[:, m]
    order = np.argsort(-sign * delta, kind="stable")
    out = []
    for i in order[:most]:
        if sign * delta[i] <= 1e-12:
            break
        out.append({"id": ids[i], "query": texts[i] or "", "baseline": fmt(float(rc.baseline_scores[i, m])),
                    "run": fmt(float(rc.run_scores[i, m])), "delta": _signed(float(delta[i]))})
    return out


def comparison_context(comparison, slugs: dict[str, str]) -> dict[str, Any]:
    """The comparison section: how it was made, the table, and per run the per-query view."""
    base = comparison.runs[0].baseline
    confidence = f"{base.conventions.confidence:.0%}"
    rows, views = [], []
    for rc in comparison.runs:
        for c in rc.comparisons:
            label, css = VERDICTS[c.verdict]
            label = label.format(alpha=c.alpha, p=_p_text(c.p_adjusted))
            rows.append({"run": c.run, "metric": c.metric, "delta": _signed(c.delta),
                         "band": f"[{_signed(c.low)}, {_signed(c.high)}]",
                         "bar": _diverging_bar(c.low, c.high, c.delta), "p": _p_text(c.p),
                         "p_adjusted": _p_text(c.p_adjusted), "wtl": f"{c.wins}/{c.ties}/{c.losses}",
                         "verdict": label, "verdict_class": css,
                         "aria": f"difference {_signed(c.delta)}, band {_signed(c.low)} to {_signed(c.high)}"})
        notes = pair_notes(rc)
        if not rc.comparisons:
            views.append({"run": rc.run.name, "anchor": f"compare-{slugs[rc.run.name]}", "notes": notes,
                          "compared": False})
            continue
        ids = rc.pairing.query_ids.tolist()
        text_of = dict(zip(rc.run.judged.query_ids.tolist(), rc.run.judged.query_text))
        texts = [text_of.get(q) for q in ids]
        scatter, outcome = scatter_figure(rc, ids), outcome_figure(rc)
        views.append({
            "run": rc.run.name,
            "anchor": f"compare-{slugs[rc.run.name]}",
            "compared": True,
            "notes": notes,
            "queries": f"{len(ids):,}",
            "gains": _movers(rc, base.k, ids, texts, +1),
            "losses": _movers(rc, base.k, ids, texts, -1),
            "scatter": {"id": content_id("fig", scatter), "json": script_json(scatter)},
            "outcome": {"id": content_id("fig", outcome), "json": script_json(outcome)},
        })
    return {
        "baseline": comparison.baseline,
        "baseline_anchor": f"compare-{slugs[comparison.baseline]}",
        "confidence": confidence,
        "k": base.k,
        "primary": f"{PRIMARY_METRIC}@{base.k}",
        "correction": comparison.correction.value,
        "method": [
            f"Each run is compared with the baseline {comparison.baseline} on the queries both scored, at K = "
            f"{base.k}. The delta is the mean per-query difference (run minus baseline); its {confidence} band "
            f"is a paired percentile bootstrap ({base.conventions.resamples:,} resamples, seed "
            f"{base.conventions.seed}): every resample draws the same queries for both runs.",
            f"p comes from a two-sided paired randomization test: the signs of the per-query differences are "
            f"flipped at random {comparison.permutations:,} times (every combination when there are fewer), "
            f"and p counts the observed difference among them, so it is never 0.",
            comparison.correction.meaning + f" {len(comparison.comparisons)} comparisons are corrected together.",
            f"A marker shows where the band excludes 0; it reads better or worse only when the corrected p is "
            f"below {1 - base.conventions.confidence:g} too. Hit@K differences use the same paired bootstrap.",
        ],
        "rows": rows,
        "views": views,
    }


def drift_context(found) -> dict[str, Any]:
    rows = [{"run": r.run, "metric": r.metric, "then": fmt(r.then), "now": fmt(r.now),
             "delta": "n/a" if r.delta is None else f"{r.delta:+.3f}",
             "band": "n/a" if r.low is None else f"[{r.low:+.3f}, {r.high:+.3f}]",
             "queries": f"{r.queries:,}"} for r in found.rows]
    return {"previous": found.source, "previous_date": found.previous_date or "unknown",
            "comparable": found.comparable, "reasons": list(found.reasons), "notes": list(found.notes),
            "rows": rows}


def site_context(analysis, *, title: str, generator: str, notes_html: Sequence[str]) -> dict[str, Any]:
    """Everything the index and the run pages show, for every run."""
    summaries, today = analysis.summaries, analysis.today
    taken: set[str] = set()
    slugs = {s.name: slug(s.name, taken) for s in summaries}
    runs = [run_context(s, slugs[s.name], lim, today, notes)
            for s, lim, notes in zip(summaries, analysis.limits, notes_html)]
    figure = index_sweep_figure(summaries)
    dates = sorted({r["date"] for r in runs})
    comparison = comparison_context(analysis.comparison, slugs) if analysis.comparison is not None else None
    for run in runs:
        if comparison is None:
            run["compare_anchor"] = None
        elif run["name"] == comparison["baseline"]:
            run["compare_anchor"] = "compare"
        else:
            run["compare_anchor"] = f"compare-{run['slug']}"
        run["is_baseline"] = comparison is not None and run["name"] == comparison["baseline"]
    return {
        "title": title,
        "date": dates[-1] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}",
        "generator": generator,
        "k": summaries[0].k,
        "confidence": f"{summaries[0].conventions.confidence:.0%}",
        "runs": runs,
        "metric_rows": metric_rows(summaries),
        "figure": {"id": content_id("fig", figure), "json": script_json(figure)},
        "several": len(runs) > 1,
        "comparison": comparison,
        "drift": drift_context(analysis.drift) if analysis.drift is not None else None,
    }
