"""An audit of the model's labels by human labels (``--audit FILE``; docs/conventions.md section 25).

The main judgments (``--qrels``) are the model judge's; the audit holds human judgments for a sample
of queries, every judged pair of an audited query taken as the human truth for it. Refused, one line
each, naming the file: an audit of fewer than :data:`MIN_AUDITED` queries, and audited queries the
model's labels do not cover (their human-minus-model difference has no model half).

The corrected figures are prediction-powered means (Angelopoulos, Bates, Fannjiang, Jordan and
Zrnic, "Prediction-powered inference", Science 382, 2023; Oosterhuis, Jagerman, Qin and Wang, KDD
2024). With model-label scores ``f`` on all N scored queries and human-label scores ``y`` on the n
audited ones:

- estimate ``theta = mean_N(f) + mean_n(y - f)``: the judge's bias, measured on the audit, removed;
- band, the normal form: ``theta +- z * sqrt(var_N(f) / N + var_n(y - f) / n)`` (sample variances).

The band leaves out the two means' covariance (the audited queries are among the N),
``cov(f, y - f) / N``: ``-var(error) / N`` for a judge whose error is unrelated to the true score,
so the band errs wide. A simulation (tests/test_corrected.py) with a planted bias of 0.05, 400
queries and 40 audited covers the truth in 97% of trials at 95%, the model-only band in under 1%.

On the partitioned engines (docs/conventions.md section 29.4) the N side is read off the sums, never
off every query's row: ``mean_N(f)`` is the run's mean, ``var_N(f) / N`` the variance (ddof 1) of
its Poisson bootstrap's resampled means (the sums hold no squares), and for a paired difference the
comparison's summed mean and sd (``sd^2 / N``, exact). The audited queries' rows, which the rest
reads, are among those the pages list (section 29.1), so a build that keeps its sample's rows alone
gives the same figures.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np

from ..core.errors import InputError
from ..core.ids import as_text
from ..core.model import Judgments, Run
from ..reading.gate import has_passed
from ..reading.memory import JUDGMENT_FORMS, ObjectError, is_in_memory, judgments_from_object
from ..reading.registry import load_qrels
from ..scoring.catalogue import Measure, Metric
from ..scoring.join import join
from ..scoring.metrics import score
from .agreement import Agreement, agreement, kendall_tau
from .compare import Comparison, ComparisonReport, adjust, resampled_columns, verdict_of
from .intervals import as_columns, z_value
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
    """One run's metric (each of the family's at K) on the audited queries under the model's and the human labels, and
    its prediction-powered mean over every scored query (:mod:`~ragreport.analysis.audit`)."""

    run: str
    label: str  # the metric at K: nDCG@10
    queries: int  # audited queries scored under both label sets
    model: Figure
    human: Figure
    corrected: Figure


@dataclass(frozen=True)
class CorrectedComparison:
    """A compared run's paired difference from the baseline on one metric of the family: under the
    model's labels (the comparison's, with its verdict), on the audited queries under the human
    labels, and corrected (the prediction-powered mean of the per-query differences)."""

    run: str
    metric: str
    model_verdict: str
    model: Figure  # the comparison's difference and band (every paired query, model labels)
    human: Figure  # on the audited paired queries, human labels
    corrected: Figure
    verdict: str  # read as the comparison's own: the band and the corrected p (section 25.6)
    queries: int  # audited paired queries
    p: float = float("nan")  # the corrected difference's two-sided normal-form p
    p_adjusted: float = float("nan")  # adjusted over the comparison family, as the model's verdicts are
    alpha: float = 0.05  # the level it is read at (1 - confidence)


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


#: What an audit is given as: a path (or ``irds:ID``), read judgments, or ``{query: {id: grade}}``
#: (or a data frame), as ``qrels=`` is.
AuditSource = str | Path | Mapping[str, Mapping[str, int]] | Judgments


def read_audit(audit: object, name: str = "audit") -> tuple[Judgments, str]:
    """The audit as judgments through the one gate every judgment file passes (the id rule, grades
    within signed 64 bits), and the name its refusals give: a path or ``irds:ID`` read as
    ``--qrels`` is (its errors naming the file, or ``--audit`` for an id); a mapping or a data frame
    as the API's ``qrels=`` (an :class:`~ragreport.reading.memory.ObjectError`, a ``ValueError``,
    naming ``audit``); judgments a reader built as they are, any others' ids checked again (a
    caller's own ``Judgments.from_lists`` skipped the gate). Anything else is refused naming ``audit``.
    ``name`` names judgments that carry no source."""
    if isinstance(audit, (str, Path)):
        return load_qrels(audit, flag="--audit"), str(audit)
    if isinstance(audit, Judgments):
        where = audit.source or name
        if has_passed(audit):
            return audit, where
        return judgments_from_object(audit_labels(audit), where=where), where
    if is_in_memory(audit):
        return judgments_from_object(audit, where=name), name
    raise ObjectError(name, f"a path, {JUDGMENT_FORMS}, or Judgments", f"a {type(audit).__name__}")


def audited_queries(audit: Judgments) -> tuple[str, ...]:
    """The queries the audit labels (at least one judged id), sorted."""
    held = np.diff(audit.offsets) > 0
    return tuple(sorted(str(q) for q in audit.query_ids[held].tolist()))


def audit_labels(audit: Judgments) -> dict[str, dict[str, int]]:
    """The audit's human labels as ``{query: {id: grade}}``."""
    ids, grades, at = as_text(audit.doc_ids), audit.grades.tolist(), audit.offsets.tolist()
    return {
        str(q): dict(zip(ids[at[i] : at[i + 1]], grades[at[i] : at[i + 1]]))
        for i, q in enumerate(audit.query_ids.tolist())
    }


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


#: A column per metric: the mean, the squared standard error of the mean (``var / N``, ddof 1) and N.
Spread = tuple[np.ndarray, np.ndarray, int]


def spread(values: np.ndarray) -> Spread:
    """Each column's mean and ``var / N`` (ddof 1; NaN under two rows), and the rows' count."""
    values = as_columns(values)
    n = values.shape[0]
    if n < 2:
        return values.mean(axis=0) if n else np.full(values.shape[1], np.nan), np.full(values.shape[1], np.nan), n
    return values.mean(axis=0), values.var(axis=0, ddof=1) / n, n


@dataclass(frozen=True)
class _Scored:
    """One run's family scores, a column per metric: ``model`` under the model's labels on the
    scored queries the run holds (every one, or past PAGE_QUERIES on the partitioned engines its
    sample's, which holds the audited ones), ``human`` under the human labels on the audited queries
    scored under both label sets, each with its rows by query id (``row``, ``human_row``), in the
    run's order; ``whole`` the model-label scores' :data:`Spread` over every scored query."""

    row: dict[str, int]
    model: np.ndarray
    human_row: dict[str, int]
    human: np.ndarray
    whole: Spread


def _take(values: np.ndarray, rows: Mapping[str, int], queries: Iterable[str]) -> np.ndarray:
    return values[np.array([rows[q] for q in queries], dtype=np.int64)]


def _audited_run(judged_run: Run, audited: Sequence[str]) -> Run:
    """``judged_run`` cut to its audited queries: the human labels only score those."""
    query_ids = judged_run.query_ids
    rows = np.flatnonzero(np.isin(query_ids, np.asarray(list(audited), dtype=str)))
    starts, ends = judged_run.offsets[:-1][rows], judged_run.offsets[1:][rows]
    lengths = ends - starts
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    slots = np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]), dtype=np.int64)
    return Run(name=judged_run.name, query_ids=query_ids[rows], offsets=offsets, doc_ids=judged_run.doc_ids[slots])


def _summed_spread(summary: RunSummary, metrics: Sequence[Metric]) -> Spread:
    """The :data:`Spread` of a run whose figures are Poisson sums: its means, and the variance of
    its resampled means for ``var / N`` (the module's docstring)."""
    drawn = resampled_columns(summary, [Measure(metric.key, summary.k) for metric in metrics])
    mean = np.array([summary.at_k[metric.label(summary.k)].mean for metric in metrics])
    n = summary.counts.scored
    if drawn is None or n < 2:
        return mean, np.full(len(metrics), np.nan), n
    return mean, drawn.var(axis=0, ddof=1), n


def _scored(summary: RunSummary, truth: Judgments, audited: Sequence[str], metrics: Sequence[Metric]) -> _Scored:
    """``summary``'s ``metrics`` at K per scored query under the model's labels, and per audited
    query scored under both label sets under the human labels (``truth``): the run's audited
    queries scored once against the audit, every metric of the family at a time."""
    judged, k, conventions = summary.judged, summary.k, summary.conventions
    run = Run(name=judged.name, query_ids=judged.query_ids, offsets=judged.offsets, doc_ids=judged.doc_ids)
    again = join(_audited_run(run, audited), truth, conventions.relevance_level)
    human_scores = score(again, [k], conventions, metrics=tuple(metrics))
    model_rows = np.flatnonzero(summary.scores.scored)
    model = np.stack([summary.scores.of(m, k)[model_rows] for m in metrics], axis=1).reshape(len(model_rows), -1)
    row = {str(q): i for i, q in enumerate(judged.query_ids[model_rows].tolist())}
    ids = list(row)
    human_rows = np.flatnonzero(human_scores.scored)
    pairs = zip(again.query_ids[human_rows].tolist(), human_rows.tolist())
    kept = sorted((row[str(q)], j) for q, j in pairs if str(q) in row)  # the run's order, as the model rows are
    human = human_scores.values[:, np.array([j for _, j in kept], dtype=np.int64), human_scores.column(k)].T
    whole = spread(model) if summary.sums is None else _summed_spread(summary, metrics)
    return _Scored(row, model, {ids[i]: n for n, (i, _) in enumerate(kept)}, human, whole)


def _unit(figure: Figure) -> Figure:
    """A mean's normal band cut to [0, 1], where every measure of the catalogue lies: a normal band
    of Hit@10 near 1 would otherwise claim values past 1 (0.985 to 1.005). The mean is left as it
    is: the prediction-powered estimate itself is not bounded, and moving it would bias it."""
    mean, low, high = figure
    return (mean, min(max(low, 0.0), 1.0), min(max(high, 0.0), 1.0)) if low == low and high == high else figure


def under_both(scored: _Scored, summary: RunSummary, metrics: Sequence[Metric]) -> tuple[UnderBoth, ...]:
    """``summary``'s family at K under both label sets on the audited queries, and corrected: one
    entry per metric."""
    confidence = summary.conventions.confidence
    f_audited = _take(scored.model, scored.row, scored.human_row)
    model, human = mean_bands(f_audited, confidence), mean_bands(scored.human, confidence)
    corrected = corrected_from(scored.whole, f_audited, scored.human, confidence)
    return tuple(
        UnderBoth(summary.name, metric.label(summary.k), len(scored.human_row), _unit(m), _unit(h), _unit(c))
        for metric, m, h, c in zip(metrics, model, human, corrected)
    )


def corrected_comparisons(
    comparison: ComparisonReport | None,
    scored: Mapping[str, _Scored],
    metrics: Sequence[Metric],
) -> tuple[CorrectedComparison, ...]:
    """Each compared run's difference from the baseline on every metric of ``metrics`` at K,
    corrected by the audit, with a verdict read as the comparison reads its own (docs/conventions.md
    section 25.6): the corrected band and its normal-form p, adjusted over the comparison's whole
    family (a comparison the audit cannot correct counted at p = 1) with the report's correction."""
    if comparison is None:
        return ()
    found: list[tuple[str, Comparison, Figure, Figure, int]] = []
    for pair in comparison.runs:
        k = pair.run.k
        labels = [metric.label(k) for metric in metrics]
        held = {c.metric: c for c in pair.comparisons}
        columns = [i for i, label in enumerate(labels) if label in held]
        if not columns:
            continue
        run, base = scored[pair.run.name], scored[pair.baseline.name]
        both = [q for q in run.human_row if q in base.human_row]
        if pair.summed is None:
            paired = [q for q in run.row if q in base.row]
            whole = spread(_take(run.model, run.row, paired) - _take(base.model, base.row, paired))
        else:  # every paired query's difference summed: its mean and sd (exact)
            # (a label the comparison does not hold is not among ``columns``: its figure is not read)
            at = [pair.labels.index(label) if label in pair.labels else 0 for label in labels]
            n = pair.summed.queries
            whole = (pair.summed.delta[at], pair.summed.sd[at] ** 2 / n if n > 1 else np.full(len(at), np.nan), n)
        d_model = _take(run.model, run.row, both) - _take(base.model, base.row, both)
        d_human = _take(run.human, run.human_row, both) - _take(base.human, base.human_row, both)
        confidence = pair.run.conventions.confidence
        corrected = corrected_from(whole, d_model, d_human, confidence)
        human_bands = mean_bands(d_human, confidence)
        for i in columns:
            found.append((pair.run.name, held[labels[i]], human_bands[i], corrected[i], len(both)))
    # The family's verdicts are corrected over every comparison it holds (runs x measures): the
    # corrected ones are adjusted over as many, those the audit cannot correct counted at p = 1.
    p_values = [normal_p(c[3], 1.0 - c[1].alpha) for c in found]
    total = max(len(comparison.comparisons), len(found))
    adjusted = adjust(np.array(p_values + [1.0] * (total - len(found))), comparison.correction)[: len(found)]
    out = []
    for (run_name, model_found, human, figure, queries), p, p_adj in zip(found, p_values, adjusted.tolist()):
        out.append(
            CorrectedComparison(
                run=run_name,
                metric=model_found.metric,
                model_verdict=model_found.verdict,
                model=(model_found.delta, model_found.low, model_found.high),
                human=human,
                corrected=figure,
                verdict=verdict_of(figure[1], figure[2], p_adj, model_found.alpha, model_found.min_effect)
                if np.isfinite(figure[0])
                else "unclear",
                queries=queries,
                p=p,
                p_adjusted=p_adj,
                alpha=model_found.alpha,
            )
        )
    return tuple(out)


def measure_audit(
    summaries: Sequence[RunSummary],
    audit: AuditSource,
    name: str = "audit",
    primary: Metric | None = None,
    comparison: ComparisonReport | None = None,
    metrics: Sequence[Metric] = (),
    source: str | None = None,
) -> Audit:
    """The audit of the runs' model labels (read by :func:`read_audit`), ``name`` naming it in a
    refusal and ``source`` (default the file name of ``name``) in the report: checked, their
    agreement measured, and every metric of ``metrics`` (the family's suite metrics at K; the
    primary first among them if missing) under both label sets, corrected, and compared."""
    judgments, name = read_audit(audit, name)
    human = audit_labels(judgments)
    model = report_judgments(summaries)
    check_audit(human, model, name)
    first = summaries[0]
    conventions = first.conventions
    level = conventions.relevance_level
    audited = sorted(q for q, grades in human.items() if grades)
    index = {q: i for i, q in enumerate(audited)}
    # The pairs both label sets judged: each one's audited query, model grade and human grade.
    pairs = [(index[q], model[q][d], g) for q in audited for d, g in human[q].items() if d in model[q]]
    slot_model, slot_human = [], []
    for summary in summaries:
        judged = summary.judged.head(summary.k)
        ids = as_text(judged.doc_ids)
        for i, q in enumerate(judged.query_ids.tolist()):
            if q in index:
                a, b = int(judged.offsets[i]), int(judged.offsets[i + 1])
                slot_model.append(np.asarray(judged.grades[a:b]) >= level)
                slot_human.append(np.array([human[q].get(d, 0) >= level for d in ids[a:b]], dtype=bool))
    grid = np.array(pairs, dtype=np.int64).reshape(-1, 3)
    found = agreement(
        grid[:, 0],
        grid[:, 1],
        grid[:, 2],
        queries=len(audited),
        level=level,
        resamples=conventions.resamples,
        seed=conventions.seed,
        confidence=conventions.confidence,
        slot_model=slot_model,
        slot_human=slot_human,
    )
    labels = {q: dict(sorted(human[q].items())) for q in audited}
    chosen = tuple(metrics)
    if primary is not None and primary not in chosen:
        chosen = (primary, *chosen)
    audit_truth = Judgments.from_lists([(q, list(labels[q]), list(labels[q].values())) for q in audited])
    scored = {s.name: _scored(s, audit_truth, audited, chosen) for s in summaries} if chosen else {}
    runs = tuple(r for s in summaries if chosen for r in under_both(scored[s.name], s, chosen))
    compared = corrected_comparisons(comparison, scored, chosen) if chosen else ()
    # The runs' orderings on the audited queries, by their primary mean under each label set.
    lead = [r for r in runs if primary is not None and r.label == primary.label(first.k)]
    model_means, human_means = np.array([r.model[0] for r in lead]), np.array([r.human[0] for r in lead])
    tau = kendall_tau(model_means, human_means) if len(lead) >= 3 else None
    return Audit(
        source=source or Path(name).name, labels=labels, agreement=found, runs=runs, comparisons=compared, tau=tau
    )


def _figure(value: float) -> str:
    """A kappa in the judge's limit: two decimals, ``0.00`` for one that rounds to zero (never ``-0.00``)."""
    return "undefined" if not np.isfinite(value) else f"{value:.2f}".replace("-0.00", "0.00")


def judge_limit(summary: RunSummary, audit: Audit, shown: Callable[[str], str] = str) -> Limit:
    """The judge's limit measured by the audit (docs/conventions.md section 25.1): its kappas, and
    the share of top-K slots the label sets read differently. ``shown`` writes the user's words in
    it (the judge's name, the audit file's): as they are for report.json and the terminal (whose
    final pass shows controls as escapes), isolated for a page (a U+202E in a file name would
    otherwise reverse the kappas after it)."""
    found = audit.agreement
    who = f" ({shown(summary.judged.meta.judge)})" if summary.judged.meta.judge else ""
    band = f"{summary.conventions.confidence:.0%} band"
    text = (
        f"The labels come from a model judge{who}, audited by human labels on {found.queries:,} queries "
        f"({shown(audit.source)}): on the {found.pairs:,} pairs both judged, Cohen's kappa is {_figure(found.kappa)} "
        f"({band} {_figure(found.kappa_low)} to {_figure(found.kappa_high)}) and the quadratically weighted kappa "
        f"{_figure(found.weighted_kappa)} ({band} {_figure(found.weighted_low)} to {_figure(found.weighted_high)})"
    )
    if found.disagreement is not None:
        text += (
            f"; the two label sets read {found.disagreement:.1%} of the runs' top-{summary.k} slots on the "
            f"audited queries differently"
        )
    text += ". The corrected figures remove the judge's bias measured there; the others carry it."
    return Limit("judge_error", "Labels from a model judge, audited", text)


def audited_limits(limits: tuple[Limit, ...], summary: RunSummary, audit: Audit) -> tuple[Limit, ...]:
    """``summary``'s honest limits with the judge's limit measured by the audit (:func:`judge_limit`):
    it replaces the stated sentence and any stated error rate (docs/conventions.md section 25.1), in
    the place the judge's limit takes among the rules (after the unjudged ids)."""
    measured = judge_limit(summary, audit)
    kept = [limit for limit in limits if limit.key != "judge_error"]
    at = 1 if kept and kept[0].key == "unjudged" else 0
    return (*kept[:at], measured, *kept[at:])


def leading(audit: Audit | None, run: str, metric: str) -> CorrectedComparison | None:
    """The corrected comparison a headline leads with (docs/conventions.md section 25.7): ``run``'s
    against the baseline on ``metric`` once corrected by the audit; None without an audit or when
    the audit holds none (the headline then reads the model's labels, as without an audit)."""
    return None if audit is None else next((c for c in audit.comparisons if c.run == run and c.metric == metric), None)


def corrected_figure(audit: Audit | None, run: str, metric: str) -> UnderBoth | None:
    """``run``'s ``metric`` under both label sets and corrected, when the audit holds it."""
    return None if audit is None else next((r for r in audit.runs if r.run == run and r.label == metric), None)


_NAN: Figure = (float("nan"), float("nan"), float("nan"))


def mean_bands(values: np.ndarray, confidence: float = 0.95) -> list[Figure]:
    """Each column's mean with its normal band, ``mean +- z * sd / sqrt(n)`` (rows are queries);
    NaN without a value, the band NaN with one."""
    values = as_columns(values)
    n, width = values.shape
    if n == 0:
        return [_NAN] * width
    mean = values.mean(axis=0)
    half = z_value(confidence) * values.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full(width, np.nan)
    return [(float(m), float(m - h), float(m + h)) for m, h in zip(mean, half)]


def corrected_means(
    model_all: np.ndarray, model_audited: np.ndarray, human_audited: np.ndarray, confidence: float = 0.95
) -> list[Figure]:
    """Each column's prediction-powered mean and its normal band (rows are queries): ``model_all``
    the model-label scores of every scored query, ``model_audited``/``human_audited`` the two
    scores of each audited one, a column per metric."""
    return corrected_from(spread(model_all), model_audited, human_audited, confidence)


def corrected_from(
    whole: Spread, model_audited: np.ndarray, human_audited: np.ndarray, confidence: float = 0.95
) -> list[Figure]:
    """:func:`corrected_means` with every scored query's model-label scores given by their
    :data:`Spread` (mean, ``var / N``, N): ``theta = mean + mean_n(y - f)``, band ``theta +- z *
    sqrt(var / N + var_n(y - f) / n)``; NaN under two queries on either side."""
    mean, error, n = whole
    gap = as_columns(human_audited) - as_columns(model_audited)
    if n < 2 or gap.shape[0] < 2:
        return [_NAN] * len(mean)
    theta = mean + gap.mean(axis=0)
    half = z_value(confidence) * np.sqrt(error + gap.var(axis=0, ddof=1) / gap.shape[0])
    return [(float(t), float(t - h), float(t + h)) for t, h in zip(theta, half)]


def normal_p(figure: Figure, confidence: float = 0.95) -> float:
    """The two-sided normal-form p of a figure's difference from 0, read off its normal band
    (``se = (high - low) / (2 z)``): ``2 * Phi(-|theta| / se)``; 1 when undefined, 0 for a
    difference with no spread."""
    theta, low, high = figure
    if not all(math.isfinite(v) for v in figure):
        return 1.0
    se = (high - low) / (2.0 * z_value(confidence))
    if se <= 0:
        return 0.0 if theta != 0 else 1.0
    return 2.0 * NormalDist().cdf(-abs(theta) / se)
