"""Joined runs scored and summarised: the last steps of :func:`ragreport.api.evaluate`.

:func:`summarise_loaded` joins each run read with its judgments, checks that they meet
(:func:`~ragreport.scoring.scorable.check_scorable`) and :func:`score_and_summarise` scores it
at K and over the K sweep and bands every mean. The partition engines
(:mod:`ragreport.scoring.partition`) hand the same figures to
:func:`~ragreport.analysis.summary.summarise` by pieces.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..core.model import Conventions
from ..scoring.cutoffs import report_cutoffs
from ..scoring.join import JudgedRun, join
from ..scoring.measures import Measure, score_measures
from ..scoring.metrics import score
from ..scoring.scorable import check_scorable
from .summary import RunSummary, summarise

if TYPE_CHECKING:
    from ..reading.registry import LoadedRun


def score_and_summarise(
    judged: JudgedRun,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None = None,
    measures: Sequence[Measure] = (),
    *,
    progress: Callable[[], None] | None = None,
) -> RunSummary:
    """Score one joined run at K and over the K sweep, score the measures named, band every mean.

    Parameters
    ----------
    judged : JudgedRun
        The run joined with its judgments (:func:`~ragreport.scoring.join.join`).
    k : int or sequence of int
        The cutoff K (several: the first is the report's K).
    conventions : Conventions
        The switches the figures are computed with.
    kmax : int, optional
        The largest cutoff of the K sweep; default max(10, 2K).
    measures : sequence of Measure, default ()
        Measures scored by name besides the suite.
    progress : callable, optional
        Called once the run is scored, before its bands are drawn.

    Returns
    -------
    RunSummary
        The run's figures, bands and counts.

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> run = Run.from_lists("bm25", [("q1", ["d2", "d1"])])
    >>> judged = join(run, Judgments.from_lists([("q1", ["d1"], [1])]))
    >>> score_and_summarise(judged, 2, Conventions()).at_k["RR@2"].mean  # the relevant id at rank 2
    0.5
    """
    asked, cutoffs = report_cutoffs(k, kmax)
    scores = score(judged, cutoffs, conventions)
    values = score_measures(judged, measures, conventions) if measures else None
    if progress is not None:
        progress()
    return summarise(judged, scores, asked, conventions, measures, values)


def summarise_loaded(
    loaded: Iterable[LoadedRun],
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None,
    measures: Sequence[Measure],
    progress: Callable[[str], None],
) -> list[RunSummary]:
    """Every run read (a run with its judgments) joined, checked, scored and summarised, in order."""
    summaries = []
    for item in loaded:
        progress(f"scoring {item.run.name}")
        judged = join(item.run, item.judgments, conventions.relevance_level)
        check_scorable(judged, item.judgments.source or "the judgments", conventions)
        summaries.append(
            score_and_summarise(
                judged,
                k,
                conventions,
                kmax,
                measures,
                progress=functools.partial(progress, f"bands for {item.run.name}"),
            )
        )
    return summaries
