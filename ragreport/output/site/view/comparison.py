"""The comparison with the baseline, laid out for people: the table, the delta matrix and, per run,
the queries gained and lost."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ....analysis.paired import MOVERS
from ....scoring.catalogue import Metric
from ..charts import outcome_figure, scatter_figure
from ..media import isolated
from ..wording import comparison as say_comparison
from ..wording import numbers as fmt
from ..wording import page as say_page
from ..wording import report as say
from .cells import delta_matrix, difference_row, reach
from .model import ComparisonView, DeltaCell, DeltaRow, DifferenceRow, Mover, PairsView, PairView, ReadingsTable

if TYPE_CHECKING:
    from ....analysis.compare import ComparisonReport, RunComparison
    from ....analysis.ranking import Ranking


def _movers(
    rc: RunComparison, ids: list[str], texts: list[str | None], sign: int, primary: Metric
) -> tuple[Mover, ...]:
    m = rc.labels.index(primary.label(rc.baseline.k))
    if rc.summed is not None:  # summed bucket by bucket (docs/conventions.md section 29)
        text_of = dict(zip(ids, texts))
        return tuple(
            Mover(q, text_of.get(q) or "", fmt.decimal(b), fmt.decimal(r), fmt.signed(r - b))
            for q, b, r in (rc.summed.gains if sign > 0 else rc.summed.drops)[m]
        )
    base, run = rc.baseline_scores[:, m], rc.run_scores[:, m]
    delta = run - base
    order = np.argsort(-sign * delta, kind="stable")
    moved = [i for i in order[:MOVERS] if sign * delta[i] > 1e-12]  # the order puts them first
    return tuple(
        Mover(
            ids[i], texts[i] or "", fmt.decimal(float(base[i])), fmt.decimal(float(run[i])), fmt.signed(float(delta[i]))
        )
        for i in moved
    )


def comparison_view(
    comparison: ComparisonReport, slugs: dict[str, str], primary_metric: Metric, *, pages: bool
) -> ComparisonView:
    """The comparison section: how it was made, the table, and per run the per-query view
    (``primary_metric`` ranks the movers and opens the scatter)."""
    base = comparison.runs[0].baseline
    conv = base.conventions
    primary = primary_metric.label(base.k)
    rows: list[DifferenceRow] = []
    pairs: list[PairView] = []
    notes: list[str] = []
    axis = reach([(c.low, c.high, c.delta) for rc in comparison.runs for c in rc.comparisons])
    for rc in comparison.runs:
        for c in rc.comparisons:
            effect, effect_band = say_comparison.effect_cell(c.effect, c.effect_low, c.effect_high)
            rows.append(
                difference_row(
                    c.run,
                    c.metric,
                    (c.delta, c.low, c.high),
                    (c.p, c.p_adjusted),
                    say_comparison.verdict(c.verdict, c.alpha, c.p_adjusted, c.min_effect),
                    axis,
                    wtl=f"{c.wins}/{c.ties}/{c.losses}",
                    effect=effect,
                    effect_band=effect_band,
                )
            )
        p = rc.pairing
        pair_notes = tuple(
            say_comparison.pair_notes(
                rc.run.name,
                rc.baseline.name,
                rc.queries,
                p.only_baseline,
                p.only_run,
                rc.same_labels,
                p.judged_apart,
            )
        )
        notes += pair_notes
        anchor = f"compare-{slugs[rc.run.name]}"
        if not rc.comparisons:
            pairs.append(PairView(run=rc.run.name, anchor=anchor, compared=False))
            continue
        ids = rc.pairing.query_ids.tolist()
        text_of = dict(zip(rc.run.judged.query_ids.tolist(), rc.run.judged.query_text))
        texts = [text_of.get(q) for q in ids]
        pairs.append(
            PairView(
                run=rc.run.name,
                anchor=anchor,
                compared=True,
                heading=say_comparison.pair_heading(rc.run.name, comparison.baseline),
                gains=_movers(rc, ids, texts, +1, primary_metric),
                losses=_movers(rc, ids, texts, -1, primary_metric),
                gains_caption=say_comparison.movers_caption(True, primary, MOVERS),
                losses_caption=say_comparison.movers_caption(False, primary, MOVERS),
                scatter_label=say_comparison.scatter_label(rc.run.name, comparison.baseline),
                outcome_label=say_comparison.outcome_label(rc.run.name),
                scatter=scatter_figure(rc, ids, primary_metric) if pages else None,
                outcome=outcome_figure(rc) if pages else None,
                query_column=any(texts),
            )
        )
    metrics, matrix = delta_matrix(rows)
    meaning = comparison.correction.meaning
    return ComparisonView(
        baseline=comparison.baseline,
        heading=say_comparison.against_baseline(comparison.baseline),
        caption=say_comparison.comparison_caption(
            isolated(comparison.baseline), base.k, conv.confidence, comparison.correction.value
        ),
        confidence=fmt.percent(conv.confidence),
        primary=primary,
        correction=comparison.correction.value,
        method=say_comparison.comparison_method(
            comparison.baseline,
            base.k,
            conv.confidence,
            conv.resamples,
            conv.seed,
            comparison.permutations,
            meaning,
            len(comparison.comparisons),
            corrected=comparison.correction.value != "none",
            family=comparison.labels if comparison.named else (),
            left_out=tuple(m.label() for m in comparison.left_out),
            summed=any(rc.summed is not None for rc in comparison.runs),
        ),
        notes=tuple(notes),
        rows=tuple(rows),
        pairs=tuple(pairs),
        metrics=metrics,
        matrix=matrix,
        matrix_caption=say.delta_matrix_caption(isolated(comparison.baseline), base.k),
        more=say.COMPARISON_MORE,
        no_movers=say_comparison.NO_MOVERS,
        readings=_readings(comparison, base.k),
    )


def _readings(comparison: ComparisonReport, k: int) -> ReadingsTable | None:
    """Each difference of the family under the readings of unjudged ids, with its verdict."""
    rows = []
    for c in comparison.comparisons:
        if c.readings is None:
            continue
        cells = [say.reading_delta_cell(c.delta, c.verdict)]
        cells += [say.reading_delta_cell(r.delta, r.verdict) for r in c.readings.values()]
        rows.append((c.run, c.metric, *cells))
    if not rows:
        return None
    header = say.READINGS_RUN_HEADER + say.READING_HEADERS
    return ReadingsTable(say.readings_comparison_caption(k), header, tuple(rows))


def pairs_view(ranking: Ranking) -> PairsView:
    """Every run against every other: the tiers in words and the matrix, the runs by mean, each
    cell the row's run minus the column's with its verdict's mark (docs/conventions.md section 27)."""

    def cell(row: str, column: str) -> DeltaCell | None:
        pair = ranking.pair(row, column)
        if pair is None or pair.verdict is None:
            return None
        words, css = say_comparison.verdict(pair.verdict, pair.alpha, pair.p_adjusted, pair.margin)
        return DeltaCell(fmt.signed(pair.delta), say.MARKS_OF_VERDICT.get(css, ""), words, css)

    return PairsView(
        heading=say_comparison.PAIRS_HEADING,
        tiers=say_comparison.tiers_sentence(ranking.tiers),
        method=fmt.Text(
            (
                say_comparison.pairs_method(
                    ranking.resamples,
                    ranking.seed,
                    ranking.permutations,
                    ranking.correction.meaning,
                    len(ranking.pairs),
                ),
            )
        ),
        caption=say_comparison.pairs_caption(ranking.metric),
        legend=say_comparison.pairs_legend(ranking.confidence),
        runs=ranking.order,
        rows=tuple(
            DeltaRow(
                r.run,
                tuple(cell(r.run, column) for column in ranking.order),
                fmt.decimal(r.mean),
                say_comparison.rank_cell(r.rank, r.low, r.high),
            )
            for r in ranking.ranks
        ),
        more=say_page.MORE_COLUMNS,
    )
