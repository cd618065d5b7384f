"""A report.json past PAGE_QUERIES (docs/conventions.md section 29.2): the queries the pages list and
the sums that stand for every query.

A partitioned build (``--engine stream``, ``--engine dask``) past
:data:`~ragreport.analysis.shown.PAGE_QUERIES` queries writes each run's rows, lists and judgments of
the sample alone (``Analysis.sample``) and, under ``sampled``, what its
figures were made of: the sample itself, each run's Poisson sums at the cutoffs asked for (its
means, bands and resampled means) and of its measures by name, its :class:`Facts`, every pair's
summed comparison, and per compared run the scatter's grid and the queries only one run scored.
``render`` reads them back instead of summing the rows (:mod:`.restore`); the ranking of three or
more runs, the slices and the drift are read as stored (each reads every query's values or
metadata). Arrays are written as base-64 little-endian float64 (exact, NaN included) with their
shape.
"""

from __future__ import annotations

import base64
import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any

import numpy as np

from ....analysis.compare import Comparison, Correction
from ....analysis.drift import CHANGE_FIELDS, Drift, DriftRow, LabelChange
from ....analysis.intervals import Interval
from ....analysis.paired import PairedFigures, PairedRows, paired_store
from ....analysis.poisson import ResampledSums
from ....analysis.ranking import Pair, Ranking, RankInterval
from ....analysis.scores import GIVEN, ExternalScores, Scale, ScoreFigure
from ....analysis.shown import Shown
from ....analysis.slices import Slice, SliceComparison, SliceFigure, SliceReport, opposites
from ....analysis.summary import FACT_KINDS, Counts, Facts, Status
from ....core.errors import InputError
from ....scoring.catalogue import IntervalMethod
from .migrate import pack

if TYPE_CHECKING:
    from ....analysis.pipeline import Analysis
    from ....analysis.summary import RunSummary

_FIGURE_ARRAYS = ("delta", "low", "high", "p", "effect", "effect_low", "effect_high", "sd")
_COUNTS = ("wins", "ties", "losses")


def sampling(analysis: Analysis) -> Shown | None:
    """The sample report.json holds in place of every query: a partitioned build's past
    ``PAGE_QUERIES`` (its figures come from sums it can store); None otherwise."""
    shown = analysis.sample
    return None if shown is None or shown.stored_all else shown


def _number(value: Any) -> float:
    """A stored figure: null is NaN (report.json writes NaN as null)."""
    return float("nan") if value is None else float(value)


def _got(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"


def floats_document(values: np.ndarray) -> dict[str, Any]:
    return {"shape": list(np.shape(values)), "float64": pack(values, "<f8")}


def floats_from(stored: Any, where: str, field: str) -> np.ndarray:
    try:
        shape = tuple(int(n) for n in stored["shape"])
        raw = base64.b64decode(stored["float64"], validate=True)
        return np.frombuffer(raw, dtype="<f8").reshape(shape).astype(np.float64)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(where, None, f"'{field}' as a shape and its base-64 float64 values", _got(exc)) from None


def sums_document(sums: ResampledSums) -> dict[str, Any]:
    return {
        "rows": sums.rows,
        **{
            name: floats_document(getattr(sums, name))
            for name in ("digit_totals", "digit_weighted", "weights", "digit_flipped")
        },
    }


def sums_from(stored: Any, where: str, field: str, columns: int | None = None) -> ResampledSums:
    """Poisson sums as :func:`sums_document` wrote them, of ``columns`` columns when given."""
    if not isinstance(stored, Mapping) or not isinstance(stored.get("rows"), int):
        raise InputError(where, None, f"'{field}' as Poisson sums with their rows", repr(type(stored).__name__))
    arrays = [floats_from(stored.get(n), where, f"{field}.{n}") for n in ("digit_totals", "digit_weighted", "weights")]
    flipped = floats_from(stored.get("digit_flipped"), where, f"{field}.digit_flipped")
    totals, weighted, weights = arrays
    digits, width = totals.shape if totals.ndim == 2 else (-1, -1)
    shapes = (weighted.shape, weights.ndim, flipped.shape[::2] if flipped.ndim == 3 else ())
    if shapes != ((digits, len(weights), width), 1, (digits, width)) or (columns is not None and width != columns):
        expected = f"'{field}' of digits x resamples x {'' if columns is None else columns} columns alike"
        raise InputError(where, None, expected, f"shapes {totals.shape}, {weighted.shape}, {weights.shape}")
    return ResampledSums(stored["rows"], totals, weighted, weights, flipped)


def facts_document(facts: Facts) -> dict[str, Any]:
    return {
        "counts": list(facts.counts),
        "statuses": list(facts.statuses),
        "slots": list(facts.slots),
        "relevant": list(facts.relevant),
        "labels": facts.labels,
        "ids": {kind: [n, list(first)] for kind, (n, first) in facts.ids.items()},
    }


def facts_from(stored: Any, where: str, field: str) -> Facts:
    try:
        facts = Facts(
            tuple(int(n) for n in stored["counts"]),
            tuple(int(n) for n in stored["statuses"]),
            tuple(int(n) for n in stored["slots"]),  # type: ignore[arg-type]
            tuple(int(n) for n in stored["relevant"]),  # type: ignore[arg-type]
            int(stored["labels"]),
            {str(kind): (int(n), tuple(str(q) for q in first)) for kind, (n, first) in stored["ids"].items()},
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(where, None, f"'{field}' as ragreport writes them", _got(exc)) from None
    sizes = (len(facts.counts), len(facts.statuses), len(facts.slots), len(facts.relevant), sorted(facts.ids))
    if sizes != (len(fields(Counts)), len(Status), 3, 3, sorted(FACT_KINDS)):
        raise InputError(where, None, f"'{field}' with every count ragreport writes", f"sizes {sizes}")
    return facts


def _movers(side: Sequence[Sequence[tuple[str, float, float]]]) -> list[list[list[Any]]]:
    return [[[q, b, r] for q, b, r in member] for member in side]


def figures_document(figures: PairedFigures) -> dict[str, Any]:
    return {
        "queries": figures.queries,
        **{name: floats_document(getattr(figures, name)) for name in _FIGURE_ARRAYS},
        **{name: getattr(figures, name).tolist() for name in _COUNTS},
        "gains": _movers(figures.gains),
        "drops": _movers(figures.drops),
        "readings": None if figures.readings is None else floats_document(figures.readings),
        "same": None if figures.same is None else figures.same.tolist(),
    }


def figures_from(stored: Any, where: str, field: str, members: int) -> PairedFigures:
    """A pair's figures as :func:`figures_document` wrote them, of ``members`` family members."""
    try:

        def movers(side: Any) -> tuple:
            return tuple(tuple((str(q), float(b), float(r)) for q, b, r in member) for member in side)

        arrays = {name: floats_from(stored[name], where, f"{field}.{name}") for name in _FIGURE_ARRAYS}
        counts = {name: np.array(stored[name], dtype=np.int64) for name in _COUNTS}
        readings, same = stored["readings"], stored["same"]
        found = PairedFigures(
            queries=int(stored["queries"]),
            **arrays,
            **counts,
            gains=movers(stored["gains"]),
            drops=movers(stored["drops"]),
            readings=None if readings is None else floats_from(readings, where, f"{field}.readings"),
            same=None if same is None else np.array(same, dtype=bool),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(where, None, f"'{field}' as ragreport writes them", _got(exc)) from None
    shapes = [getattr(found, name).shape for name in (*_FIGURE_ARRAYS, *_COUNTS)]
    fits = all(shape == (members,) for shape in shapes) and len(found.gains) == len(found.drops) == members
    if found.readings is not None or found.same is not None:  # the readings' figures, and which equal the default
        fits = fits and found.readings is not None and found.readings.shape == (4, 3 * members)
        fits = fits and found.same is not None and found.same.shape == (3 * members,)
    if not fits or found.queries < 0:
        raise InputError(where, None, f"'{field}' of {members} family members", f"shapes {sorted(set(shapes))}")
    return found


def shown_document(shown: Shown) -> dict[str, Any]:
    """``sampled.shown``: its counts, ids and whether it holds audited queries (only when it does)."""
    return {
        **{k: v for k, v in shown.__dict__.items() if k not in ("ids", "stored_all", "rows_only", "audited")},
        **({"audited": True} if shown.audited else {}),
        "ids": shown.ids.tolist(),
    }


def shown_from(stored: Any, where: str) -> Shown:
    try:
        counts = {k: int(stored[k]) for k in ("total", "each", "wins", "losses", "drawn", "compared", "cited")}
        baseline, metric = stored["baseline"], str(stored["metric"])
        return Shown(
            ids=np.array(sorted(str(q) for q in stored["ids"]), dtype=str),
            baseline=None if baseline is None else str(baseline),
            metric=metric,
            stored_all=False,
            rows_only=True,
            audited=bool(stored.get("audited", False)),  # absent before the audit joined the sample
            **counts,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(where, None, "'sampled.shown' as ragreport writes it", _got(exc)) from None


def sampled_document(analysis: Analysis, shown: Shown) -> dict[str, Any]:
    """What a sampled report.json stores under ``sampled`` (the module's list)."""
    summaries = analysis.summaries
    store = paired_store(summaries)
    runs = {}
    for s in summaries:
        # The sums' columns are each metric at each cutoff of the sweep (a build's), or of the
        # cutoffs asked for (a sampled report's render): the sweep holds every cutoff asked for.
        asked, n_metrics = sorted(s.cutoffs), len(s.scores.metrics)
        grid = [int(c) for c in s.sweep.cutoffs] if s.sums.weighted.shape[1] != n_metrics * len(asked) else asked  # type: ignore[union-attr]
        place = {c: i for i, c in enumerate(grid)}
        columns = [m * len(grid) + place[c] for m in range(n_metrics) for c in asked]
        runs[s.name] = {
            "sums": sums_document(s.sums.columns(columns)),  # type: ignore[union-attr]
            "measure_sums": None if s.measure_sums is None else sums_document(s.measure_sums),
            "facts": facts_document(s.facts),
        }
    comparison = analysis.comparison
    drift = analysis.drift
    return {
        "shown": shown_document(shown),
        # what the drift's page reads beside the stored 'drift' (it pairs every query's scores)
        **(
            {}
            if drift is None
            else {
                "drift": {
                    "unlisted": list(drift.unlisted),
                    "tested": drift.tested,
                    "k": drift.k,
                    "runs": drift.runs,
                    "family": list(drift.family),
                    "previous_sampled": drift.previous_sampled,
                }
            }
        ),
        # the keys sliced by and the measures each slice gives, beside the stored slices' figures
        **(
            {}
            if analysis.slices is None
            else {"slices": {"keys": list(analysis.slices.keys), "measures": list(analysis.slices.measures)}}
        ),
        "runs": runs,
        "pairs": [
            {
                "baseline": key[0],
                "run": key[1],
                "family": list(key[2]),
                "readings": key[3],
                "figures": figures_document(f),
            }
            for key, f in (store.figures.items() if store is not None else ())
        ],
        "compared": {
            rc.run.name: {
                "grids": rc.grids().tolist(),
                "only_baseline": list(rc.pairing.only_baseline),
                "only_run": list(rc.pairing.only_run),
                "judged_apart": list(rc.pairing.judged_apart),
            }
            for rc in (comparison.runs if comparison is not None else ())
        },
    }


def stored_pairs(sampled: Mapping[str, Any], where: str) -> PairedRows:
    """The pairs' figures of a sampled report as a store :func:`~ragreport.analysis.paired.paired_figures` reads."""
    figures: dict[tuple, PairedFigures] = {}
    for entry in sampled.get("pairs") or []:
        try:
            key = (
                str(entry["baseline"]),
                str(entry["run"]),
                tuple(str(f) for f in entry["family"]),
                bool(entry["readings"]),
            )
        except (KeyError, TypeError) as exc:
            raise InputError(where, None, "'sampled.pairs' naming their runs and family", _got(exc)) from None
        figures[key] = figures_from(entry.get("figures"), where, f"sampled.pairs[{len(figures)}].figures", len(key[2]))
    return PairedRows.of_figures(figures)


def ranking_from(stored: Any, margin: float, runs: Sequence[str], where: str) -> Ranking:
    """The ranking of three or more runs as report.json stored it (a sampled report's render):
    every one of ``runs`` ranked once, each pair once."""
    try:
        ranking = _ranking_from(stored, margin)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(where, None, "'ranking' as ragreport writes it", _got(exc)) from None
    n = len(runs)
    whole = (
        sorted(ranking.order) == sorted(runs)
        and [r.run for r in ranking.ranks] == list(ranking.order)
        and len({frozenset((p.row, p.column)) for p in ranking.pairs} - {frozenset((r,)) for r in runs})
        == len(ranking.pairs)
        == n * (n - 1) // 2
        and all(isinstance(v, int) or v is None for r in ranking.ranks for v in (r.low, r.high))
    )
    if not whole:
        raise InputError(where, None, f"'ranking' of the runs {', '.join(map(repr, runs))}, each pair once", "another")
    return ranking


def _ranking_from(stored: Any, margin: float) -> Ranking:
    alpha = 1.0 - float(stored["confidence"])
    pairs = tuple(
        Pair(
            str(p["row"]),
            str(p["column"]),
            _number(p["delta"]),
            _number(p["low"]),
            _number(p["high"]),
            _number(p["p"]),
            _number(p["p_adjusted"]),
            int(p["queries"]),
            alpha,
            margin,
        )
        for p in stored["pairs"]
    )
    ranks = tuple(
        RankInterval(str(r["run"]), _number(r["mean"]), int(r["rank"]), r["low"], r["high"]) for r in stored["ranks"]
    )
    return Ranking(
        str(stored["metric"]),
        tuple(str(n) for n in stored["order"]),
        pairs,
        ranks,
        tuple(tuple(str(n) for n in tier) for tier in stored["tiers"]),
        int(stored["queries"]),
        Correction(stored["correction"]),
        float(stored["confidence"]),
        int(stored["resamples"]),
        int(stored["seed"]),
        int(stored["permutations"]),
    )


def sampled_rows(summary: RunSummary, shown: Shown) -> RunSummary:
    """The run with its sample's queries alone (their rows, lists and judgments), its figures as
    they are: what report.json writes of it."""
    take = np.flatnonzero(shown.mask(summary.judged.query_ids))
    return dataclasses.replace(
        summary,
        judged=summary.judged.rows(take),
        scores=summary.scores.rows(take),
        status=tuple(summary.status[i] for i in take.tolist()),
        measure_values=summary.measure_values[:, take],
        readings={name: values[:, take] for name, values in summary.readings.items()},
        following=None if summary.following is None else summary.following.rows(take),
    )


def slices_from(stored: Any, sampled: Mapping[str, Any], analysis: Analysis, where: str) -> SliceReport:
    """The slices as a sampled report stored them (their figures in ``slices``, their keys and
    measures in ``sampled.slices``): every slice reads every query's metadata, which it keeps the
    sample's of."""
    alpha = 1.0 - analysis.summaries[0].conventions.confidence

    def figures(by_run: Any) -> dict[str, dict[str, SliceFigure]]:
        return {
            str(run): {
                str(label): SliceFigure(_number(f["mean"]), _number(f["low"]), _number(f["high"]), int(f["queries"]))
                for label, f in of.items()
            }
            for run, of in by_run.items()
        }

    try:
        found = tuple(
            Slice(
                str(s["key"]),
                str(s["value"]),
                int(s["queries"]),
                figures(s["runs"]),
                tuple(
                    SliceComparison(
                        str(c["run"]),
                        str(c["metric"]),
                        _number(c["delta"]),
                        _number(c["low"]),
                        _number(c["high"]),
                        _number(c["p"]),
                        _number(c["p_adjusted"]),
                        int(c["queries"]),
                        alpha,
                    )
                    for c in s["comparisons"]
                ),
                tuple(str(q) for q in s["examples"]),
                figures(s.get("scores") or {}),
            )
            for s in stored
        )
        meta = sampled["slices"]
        keys, measures = tuple(str(k) for k in meta["keys"]), tuple(str(m) for m in meta["measures"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(where, None, "'slices' and 'sampled.slices' as ragreport writes them", _got(exc)) from None
    names = {s.name for s in analysis.summaries}
    named = {run for one in found for run in (*one.runs, *(c.run for c in one.comparisons))}
    if not named <= names:
        raise InputError(where, None, "'slices' of the report's runs", f"run {sorted(named - names)[0]!r}")
    primary = analysis.primary_label
    return SliceReport(
        keys, found, measures, primary, analysis.correction, opposites(found, analysis.comparison, primary)
    )


#: The stored comparison's fields read as other than a float (``readings`` is not stored by scores).
_COMPARISON_KINDS = {"baseline": str, "run": str, "metric": str, "queries_needed": int} | dict.fromkeys(
    ("wins", "ties", "losses", "queries"), int
)


def _comparison(stored: Mapping[str, Any]) -> Comparison:
    """A :class:`Comparison` as ``as_dict`` wrote it: null a NaN figure, or an absent optional one."""
    made: dict[str, Any] = {}
    for one in fields(Comparison):
        if one.name != "readings":
            value = stored[one.name] if one.default is dataclasses.MISSING else stored.get(one.name)
            optional = one.default is None
            made[one.name] = (
                (None if optional else math.nan) if value is None else _COMPARISON_KINDS.get(one.name, float)(value)
            )
    return Comparison(**made)


def scores_from(stored: Any, runs: Sequence[Mapping[str, Any]], where: str) -> ExternalScores:
    """Outside scores (``--scores``) as a sampled report stored them: their figures in each run's
    ``scores``, their comparisons and scales in ``scores``, and the listed queries' values. Every
    figure reads every query's values, which the report keeps the sample's of."""

    try:
        names = tuple(str(name) for name in stored["names"])
        scales = {
            str(name): Scale(
                float(s["low"]), float(s["high"]), bool(s["binary"]), s["how"] == GIVEN, "no scale given" in s["scale"]
            )
            for name, s in stored["scales"].items()
        }
        figures = tuple(
            ScoreFigure(
                str(run["name"]),
                str(name),
                Interval(_number(f["mean"]), _number(f["low"]), _number(f["high"]), IntervalMethod(f["interval"])),
                int(f["queries"]),
                int(f["judged"]),
            )
            for run in runs
            for name, f in (run.get("scores") or {}).items()
        )
        comparisons = tuple(_comparison(c) for c in stored["comparisons"])
        values = {
            str(run): {str(q): tuple(float(x) for x in v) for q, v in by_query.items()}
            for run, by_query in stored["values"].items()
        }
        baseline = None if stored["baseline"] is None else str(stored["baseline"])
        judges = tuple(str(j) for j in stored["judges"])
        return ExternalScores(str(stored["source"]), judges, names, scales, figures, comparisons, baseline, values)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(where, None, "'scores' as ragreport writes it", _got(exc)) from None


def drift_from(stored: Any, sampled: Mapping[str, Any], analysis: Analysis, where: str) -> Drift:
    """The drift as a sampled report stored it ('drift', and what its page reads beside it in
    'sampled.drift'): it pairs every query's scores then and now, which the report keeps the
    sample's of. A change list holds its first :data:`~ragreport.analysis.drift.FIRST_FEW` items
    and its count."""
    try:
        extra = sampled["drift"]
        changes = tuple(
            LabelChange(
                tuple(str(r) for r in c["runs"]),
                **{kind: tuple(tuple(item) for item in c[kind]["first"]) for kind in CHANGE_FIELDS},
                counts={kind: int(c[kind]["count"]) for kind in CHANGE_FIELDS},
            )
            for c in stored["changes"]
        )
        rows = tuple(DriftRow(**row) for row in stored["rows"])
        return Drift(
            str(stored["previous"]),
            stored["previous_date"],
            bool(stored["comparable"]),
            tuple(str(r) for r in stored["reasons"]),
            tuple(str(n) for n in stored["notes"]),
            rows,
            unchanged=tuple(str(r) for r in stored["unchanged"]),
            changes=changes,
            unlisted=tuple(str(r) for r in extra["unlisted"]),
            correction=Correction(stored["correction"]),
            alpha=1.0 - analysis.summaries[0].conventions.confidence,
            tested=int(extra["tested"]),
            k=int(extra["k"]),
            runs=int(extra["runs"]),
            basis=stored["basis"],
            family=tuple(str(m) for m in extra["family"]),
            previous_sampled=bool(extra["previous_sampled"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(where, None, "'drift' and 'sampled.drift' as ragreport writes them", _got(exc)) from None
