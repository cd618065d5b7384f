"""A run's per-query values of any measure: a suite metric read off its scores, any other measure
off the values scored by name. A module of its own, importing nothing heavy at run time, so that
the output stage reads per-query values without importing the comparison."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import UsageError

if TYPE_CHECKING:
    from ..scoring.catalogue import Measure
    from .summary import RunSummary


def family_values(summary: RunSummary, rows: np.ndarray, family: Sequence[Measure]) -> np.ndarray:
    """Per-query values of every family member for the given query rows: (rows x family).

    A suite metric at a scored cutoff is read off the run's scores; any other member off the
    measures scored by name (``summary.measure_values``, the same kernels).
    """
    scores = summary.scores
    columns = []
    for measure in family:
        if measure.plain and measure.metric in scores.metrics and measure.cutoff in scores.cutoffs:
            columns.append(scores.of(measure.metric, int(measure.cutoff))[rows])  # type: ignore[arg-type]
        elif measure in summary.measures:
            columns.append(summary.measure_values[summary.measures.index(measure)][rows])
        else:
            raise UsageError(
                f"{measure.label()} is in the comparison family but {summary.name} holds no per-query "
                f"value of it: score it by name (--metrics, evaluate(measures=...))"
            )
    return np.stack(columns, axis=1) if columns else np.zeros((len(rows), 0))
