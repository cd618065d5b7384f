"""Runs read, joined, scored and summarised: what :func:`ragreport.api.evaluate` and the commands run.

:func:`evaluate_runs` reads the runs (or, with ``engine`` ``stream`` or ``dask``, scores TREC
runs by partitions of whole queries); :func:`summarise_loaded` joins each run read with its
judgments, checks that they meet (:func:`~ragreport.scoring.scorable.check_scorable`) and
:func:`score_and_summarise` scores it at K and over the K sweep and bands every mean. The
partition engines
(:mod:`ragreport.scoring.partition`) hand the same figures to
:func:`~ragreport.analysis.summary.summarise` by pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import Argument, ArgumentError
from ..core.model import Conventions
from ..reading.memory import is_in_memory, named_inputs
from ..reading.meta import check_meta_count, check_unique_names, meta_for, run_name
from ..reading.registry import detect_file_format, load_inputs, load_qrels
from ..scoring.condensed import Following, condense, following
from ..scoring.cutoffs import DEFAULT_K, SAMPLE_K, report_cutoffs
from ..scoring.join import JudgedRun, join
from ..scoring.measures import Measure, score_measures
from ..scoring.metrics import score
from ..scoring.partition import PARTITION_BYTES, check_engine, depth_needed, judged_by_partitions
from ..scoring.readings import score_readings
from ..scoring.scorable import check_scorable
from .intervals import ByteCounts, RowParts, made_bootstrap_means, resample_rows
from .summary import RunSummary, fingerprint, judged_query_ids, label_fingerprint, same_labels, summarise

if TYPE_CHECKING:
    from ..reading.registry import LoadedRun
    from ..scoring.metrics import QueryScores


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
    readings = score_readings(judged, asked, conventions)
    if progress is not None:
        progress()
    return summarise(judged, scores, asked, conventions, measures, values, readings)


def summarise_loaded(
    loaded: Iterable[LoadedRun],
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None,
    measures: Sequence[Measure],
    progress: Callable[[str], None],
    cut_lists: bool = False,
) -> list[RunSummary]:
    """Every run read (a run with its judgments) joined, checked, scored and summarised, in order.

    Every run is scored first; the bootstrap then resamples the queries once for every run with
    the same number of scored queries (:func:`shared_bands`), so that all their metrics, cutoffs
    and measures share one draw of counts per block (docs/conventions.md section 22). With
    ``cut_lists`` each run's lists are cut to the depth the report reads once it is scored, as a
    partition sends them back (docs/conventions.md section 22.14).
    """
    asked, cutoffs = report_cutoffs(k, kmax)
    scored: list[Scored] = []
    # With cut_lists, each run read is taken off the list once joined, so that its whole lists
    # (the ids the joined run shares) go when the joined run is cut.
    runs = loaded if cut_lists and isinstance(loaded, list) else list(loaded)
    # The bootstrap's counts depend on the number of queries scored alone: drawn (as bytes, in a
    # thread) from the first run's scoring on, beside the others' (docs/conventions.md 22.20).
    drawn: ByteCounts | None = None
    try:
        while runs:
            item = runs.pop(0)
            progress(f"scoring {item.run.name}")
            judged = join(item.run, item.judgments, conventions.relevance_level)
            source = item.judgments.source or "the judgments"
            del item
            check_scorable(judged, source, conventions)
            scores = score(judged, cutoffs, conventions)
            if drawn is None:
                drawn = ByteCounts(int(np.count_nonzero(scores.scored)), conventions.resamples, conventions.seed)
            values = score_measures(judged, measures, conventions) if measures else None
            # condensed once, for the readings and for what report.json keeps to condense again
            condensed = condense(judged, max(asked))
            readings = score_readings(judged, asked, conventions, condensed=condensed)
            after = following(judged, max(asked), condensed)
            del condensed
            if cut_lists:
                judged = judged.head(depth_needed(cutoffs, measures))
            scored.append((judged, scores, values, readings, after))
        return banded(scored, asked, conventions, measures, progress, drawn)
    finally:
        if drawn is not None:
            drawn.cancel()


#: A run scored, as :func:`banded` takes it: the judged run, its scores, its measures' values (or
#: None), its readings and what report.json keeps to condense its lists again.
Scored = tuple[JudgedRun, "QueryScores", np.ndarray | None, dict[str, np.ndarray], Following]


def banded(
    scored: Sequence[Scored],
    asked: Sequence[int],
    conventions: Conventions,
    measures: Sequence[Measure],
    progress: Callable[[str], None],
    drawn: ByteCounts | None = None,
) -> list[RunSummary]:
    """Every run scored (in memory or by partitions) banded in one resampling and summarised."""
    if scored:
        progress("bands for " + ", ".join(item[0].name for item in scored))
    resampled = shared_bands([(judged, scores, values) for judged, scores, values, _, _ in scored], conventions, drawn)
    prints = shared_fingerprints([item[0] for item in scored])
    return [
        summarise(
            judged, scores, asked, conventions, measures, values, readings, resampled=made, fingerprints=f, following=t
        )
        for (judged, scores, values, readings, t), made, f in zip(scored, resampled, prints)
    ]


def shared_fingerprints(runs: Sequence[JudgedRun]) -> list[tuple[str, str] | None]:
    """Each run's query and label fingerprints when an earlier run holds the very same label set
    (the runs of one qrels file: its million label lines are not made and hashed again), else None
    (:func:`~ragreport.analysis.summary.summarise` makes them)."""
    out: list[tuple[str, str] | None] = []
    for i, judged in enumerate(runs):
        same = next((j for j in range(i) if same_labels(runs[j], judged)), None)
        if same is None:
            out.append((fingerprint(judged_query_ids(judged)), label_fingerprint(judged)))
        else:
            out.append(out[same])
    return out


def shared_bands(
    scored: Sequence[tuple[JudgedRun, QueryScores, np.ndarray | None]],
    conventions: Conventions,
    drawn: ByteCounts | None = None,
) -> list[list[np.ndarray] | None]:
    """The bootstrap of every run's means, drawn once for all the runs that score as many queries:
    for each run, what :func:`~ragreport.analysis.summary.summarise` takes as ``resampled`` (None
    for a run that scores no query). The counts depend only on the number of queries, the
    resamples and the seed, so runs of one size share them: one draw per block, applied to every
    run's matrices (:func:`~ragreport.analysis.intervals.shared_bootstrap_means`).

    ``drawn``: counts drawn already (:class:`~ragreport.analysis.intervals.ByteCounts`), read by
    the runs of their size."""
    # Each run's matrices (resample_matrices) are made when their turn comes and let go once
    # resampled; the sweep's by partitions of its queries (intervals.RowParts): memory holds one
    # partition's exact parts at a time (docs/conventions.md sections 22.9 and 22.12).
    rows = [resample_rows(judged.query_ids, scores.scored) for judged, scores, _ in scored]
    by_size: dict[int, list[int]] = {}
    for i, by_id in enumerate(rows):
        if len(by_id):
            by_size.setdefault(len(by_id), []).append(i)
    out: list[list[np.ndarray] | None] = [None] * len(scored)
    for size, members in by_size.items():
        sources: list[Callable[[], np.ndarray] | RowParts] = []
        widths: list[int] = []
        # Each sweep's column means, taken as its rows are made (in id order, the sums summarise
        # would make): summarise then makes no copy of the sweep again.
        means: dict[int, np.ndarray] = {}
        for i in members:
            _, scores, values = scored[i]
            n_metrics, _, n_cut = scores.values.shape
            sources.append(_sweep_parts(scores, rows[i], partial(means.__setitem__, i)))
            widths.append(n_metrics * n_cut)
            sources.append(partial(_measure_matrix, values, rows[i]))
            widths.append(0 if values is None else values.shape[0])
        made = made_bootstrap_means(
            sources, size, widths, conventions.resamples, conventions.seed, overwrite=True, drawn=drawn
        )
        for at, i in enumerate(members):
            out[i] = [made[2 * at], made[2 * at + 1], means[i]]
    return out


def _sweep_parts(scores: QueryScores, by_id: np.ndarray, keep: Callable[[np.ndarray], object]) -> RowParts:
    """resample_matrices' scores by partitions of their rows: the rows ``by_id`` (the scored
    queries in id order) x every metric at every cutoff, metric-major; each partition a copy. The
    column means are added up as the rows come, in order (a partition's reduction starts from the
    sum so far: numpy adds a column's rows left to right, so the sum is the whole matrix's), and
    handed to ``keep`` with the last rows."""
    values = scores.values
    n_metrics, _, n_cut = values.shape
    width = n_metrics * n_cut
    n = len(by_id)
    total: list[np.ndarray] = []

    def top() -> np.ndarray:
        where = scores.scored[None, :, None]
        high = values.max(axis=1, where=where, initial=-np.inf)
        low = values.min(axis=1, where=where, initial=np.inf)
        return np.maximum(high, -low).reshape(width)

    def rows(start: int, stop: int) -> np.ndarray:
        picked = by_id[start:stop]
        made = np.empty((len(picked) + 1, width))
        made[1:] = values.transpose(1, 0, 2)[picked].reshape(len(picked), width)
        if start == 0:
            total[:] = [np.add.reduce(made[1:], axis=0)]
        else:
            made[0] = total[0]
            total[0] = np.add.reduce(made, axis=0)
        if stop == n:
            keep(total[0] / n)
        return made[1:]

    return RowParts(top, rows)


def _measure_matrix(values: np.ndarray | None, by_id: np.ndarray) -> np.ndarray:
    """resample_matrices' measures: the rows ``by_id`` x every measure by name, a copy."""
    if values is None:
        return np.zeros((len(by_id), 0))
    return np.ascontiguousarray(values[:, by_id].T)


def _quiet(stage: str) -> None:
    return None


def _given(inputs: Any) -> bool:
    """Whether any run is given (an empty list or tuple means the preloaded sample)."""
    return not (isinstance(inputs, (list, tuple)) and not inputs)


def evaluate_runs(
    inputs: Any = (),
    *,
    qrels: Any = None,
    k: int | Sequence[int] | None = None,
    conventions: Conventions = Conventions(),
    kmax: int | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    measures: Sequence[Measure] = (),
    progress: Callable[[str], None] = _quiet,
    engine: str = "memory",
    scheduler: str | None = None,
    partition_bytes: int | None = None,
    cut_lists: bool = False,
) -> list[RunSummary]:
    """Every run read, joined, scored and summarised, in order; the preloaded sample when
    ``inputs`` is empty (:func:`ragreport.api.evaluate` says what each argument takes).
    ``cut_lists``: each run's lists cut once scored to the depth the report reads (``ragreport
    build``; the partition engines cut them anyway): a caller then cannot read the slots below."""
    if k is None:
        k = DEFAULT_K if _given(inputs) else SAMPLE_K
    if engine == "memory" and scheduler is not None:
        raise ArgumentError(Argument("scheduler"), " is for ", Argument("engine", "dask"))
    if engine != "memory":
        pairs = named_inputs(inputs) if _given(inputs) else []
        if is_in_memory(qrels) or any(name is not None or is_in_memory(run) for name, run in pairs):
            raise ArgumentError(
                Argument("engine", engine), " scores run files against a qrels file; give a list of paths"
            )
        return _by_partitions(
            [run for _, run in pairs],
            qrels,
            k,
            conventions,
            kmax,
            metas,
            measures,
            progress,
            engine,
            scheduler,
            partition_bytes or PARTITION_BYTES,
        )
    progress("reading")
    loaded = load_inputs(inputs, qrels=qrels, metas=metas, input_format=input_format, order=conventions.order)
    return summarise_loaded(loaded, k, conventions, kmax, measures, progress, cut_lists)


def _by_partitions(
    inputs: Sequence[str | Path],
    qrels: str | Path | None,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None,
    metas: Sequence[str | Path],
    measures: Sequence[Measure],
    progress: Callable[[str], None],
    engine: str,
    scheduler: str | None,
    partition_bytes: int,
) -> list[RunSummary]:
    check_engine(engine)
    if not inputs or qrels is None:
        raise ArgumentError(
            Argument("engine", engine),
            " scores TREC run files (or folders of them) against ",
            Argument("qrels"),
            "; give both",
        )
    check_meta_count(metas, len(inputs))
    paths = [Path(p) for p in inputs]
    # Every run's metadata and name before any is scored: a clash of names is found at once,
    # not after the first runs took their time.
    run_metas = [meta_for(path, metas[i] if metas else None) for i, path in enumerate(paths)]
    check_unique_names((run_name(meta, path), str(path)) for meta, path in zip(run_metas, paths))
    asked, cutoffs = report_cutoffs(k, kmax)
    scored: list[Scored] = []
    for path, meta in zip(paths, run_metas):
        if path.is_file() and path.suffix.lower() != ".parquet" and detect_file_format(path)[0] != "trec":
            raise ArgumentError(f"{path}: ", Argument("engine", engine), " reads TREC runs; this file is not one")
        progress(f"reading and scoring {path.name} by partitions ({engine})")
        parts = judged_by_partitions(
            path,
            qrels,
            read_qrels=load_qrels,
            cutoffs=cutoffs,
            conventions=conventions,
            measures=measures,
            engine=engine,
            scheduler=scheduler,
            partition_bytes=partition_bytes,
            meta=meta,
            progress=progress,
        )
        check_scorable(parts.judged, str(qrels), conventions)
        readings = score_readings(parts.judged, asked, conventions, condensed=parts.condensed)
        after = following(parts.judged, max(asked), parts.condensed)
        scored.append((parts.judged, parts.scores, parts.measure_values if measures else None, readings, after))
    return banded(scored, asked, conventions, measures, progress)  # one resampling, as in memory
