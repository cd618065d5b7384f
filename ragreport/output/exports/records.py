"""A result's figures as rows, for a notebook: lists of dicts, and a pandas frame of them.

:func:`summary_records` and :func:`query_records` give the figures as plain rows (the values
report.json holds, NaN as None); :func:`data_frame` makes a pandas frame of them when pandas is
installed. pandas is imported only there, never as the package is imported. :class:`Rows` gives
both to the results of :func:`ragreport.api.evaluate` and :func:`ragreport.api.analyse`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..site.wording import exports as say

if TYPE_CHECKING:
    from ...analysis.summary import RunSummary

#: The columns of :func:`summary_records`' rows and of :func:`query_records`' rows.
SUMMARY_COLUMNS = ("run", "metric", "mean", "low", "high", "interval", "n")
QUERY_COLUMNS = ("run", "query", "metric", "value", "status")


def _number(value: float) -> float | None:
    """A figure as report.json gives it: a Python float, None for NaN (no figure)."""
    value = float(value)
    return value if math.isfinite(value) else None


def summary_records(summaries: Sequence[RunSummary]) -> list[dict[str, Any]]:
    """One row per run and metric: the suite at every K asked for, then the measures asked for by
    name; ``mean``, ``low``, ``high`` as report.json gives them (None where there is no figure),
    ``interval`` the band's method (``bootstrap``, ``wilson``, ``none``), ``n`` the scored queries."""
    rows = []
    for s in summaries:
        labelled = [(m.label(c), s.at_k[m.label(c)]) for c in s.cutoffs for m in s.suite]
        labelled += [(m.label(), s.measure_at[m.label()]) for m in s.measures]
        for label, i in labelled:
            figures = (_number(i.mean), _number(i.low), _number(i.high), i.method.value, s.counts.scored)
            rows.append(dict(zip(SUMMARY_COLUMNS, (s.name, label, *figures))))
    return rows


def query_records(summaries: Sequence[RunSummary]) -> list[dict[str, Any]]:
    """One row per run, query and metric (the suite at every K asked for, then the measures): the
    query's ``value``, None for a query left out of the averages, and its ``status`` (report.json's)."""
    rows = []
    for s in summaries:
        queries = s.judged.query_ids.tolist()
        scored = s.scores.scored.tolist()
        status = [st.label for st in s.status]
        columns = [(m.label(c), s.scores.of(m, c), m.kind.whole) for c in s.cutoffs for m in s.suite]
        columns += [(m.label(), s.measure_values[i], m.metric.kind.whole) for i, m in enumerate(s.measures)]
        cells = [(label, (values.astype(np.int64) if whole else values).tolist()) for label, values, whole in columns]
        for q, query in enumerate(queries):
            for label, values in cells:
                rows.append(
                    dict(zip(QUERY_COLUMNS, (s.name, query, label, values[q] if scored[q] else None, status[q])))
                )
    return rows


def data_frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> Any:
    """``rows`` as a pandas DataFrame with ``columns`` in order; an ImportError saying what to do
    when pandas is not installed."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError(say.PANDAS_MISSING) from error
    return pandas.DataFrame.from_records(rows, columns=list(columns))


class Rows:
    """The figures as rows: :meth:`to_records` (plain dicts) and :meth:`to_dataframe` (pandas)."""

    def _summaries(self) -> Sequence[RunSummary]:
        raise NotImplementedError

    def _sampled(self) -> str | None:
        """What the summaries' queries are a sample of, when they are one (a report.json that
        holds the queries its pages list: docs/conventions.md section 29.2); None: every query."""
        return None

    def to_records(self, per_query: bool = False) -> list[dict[str, Any]]:
        """The figures as plain rows, runs in order, metrics in the suite's order: one dict per run and
        metric (``run``, ``metric``, ``mean``, ``low``, ``high``, ``interval``, ``n``: the scored
        queries), or with ``per_query`` one per run, query and metric (``run``, ``query``,
        ``metric``, ``value``: None for a query left out of the averages, ``status``); refused
        (a ``ValueError``) for a report that holds a sample of its queries."""
        if per_query and self._sampled() is not None:
            raise ValueError(f"per-query rows: {self._sampled()}")
        return query_records(self._summaries()) if per_query else summary_records(self._summaries())

    def to_dataframe(self, per_query: bool = False) -> Any:
        """:meth:`to_records` as a pandas DataFrame, one row per record, its columns in a fixed order;
        an ImportError when pandas is not installed (it is not a dependency of ragreport)."""
        columns = QUERY_COLUMNS if per_query else SUMMARY_COLUMNS
        return data_frame(self.to_records(per_query), columns)
