"""Runs read, joined, scored and summarised: what :func:`ragreport.api.evaluate` and the commands run.

:func:`evaluate_runs` reads the runs and :func:`summarise_loaded` joins each with its judgments,
checks that they meet (:func:`~ragreport.scoring.scorable.check_scorable`), scores it and bands
every mean; with ``engine`` ``stream`` or ``dask`` TREC runs are scored by partitions of whole
queries (:mod:`ragreport.scoring.partition`), which hand back the per-query scores at the cutoffs
asked for and the Poisson sums every mean and band comes from (docs/conventions.md section 29).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import Argument, ArgumentError
from ..core.ids import as_text
from ..core.model import Conventions, Run, RunMeta
from ..reading.memory import is_in_memory, named_inputs
from ..reading.meta import check_meta_count, check_unique_names, meta_for, run_name
from ..reading.querymeta import read_query_meta
from ..reading.registry import detect_file_format, load_inputs, load_qrels
from ..scoring.condensed import Following, condense, following
from ..scoring.cutoffs import DEFAULT_K, SAMPLE_K, kept_cutoffs, report_cutoffs
from ..scoring.join import JudgedRun, join
from ..scoring.measures import Measure, score_measures
from ..scoring.metrics import score
from ..scoring.partition import (
    PARTITION_BYTES,
    HeldPartitions,
    Rows,
    cached_index,
    cached_qrels,
    check_engine,
    depth_needed,
    judged_by_partitions,
)
from ..scoring.readings import rates_of, score_readings
from ..scoring.scorable import check_scorable
from . import shown
from .audit import AuditSource, audited_queries, read_audit
from .paired import PairedRows, bucket_rows, reading_means
from .poisson import ResampledSums, scored_sums
from .slices import EXAMPLES, slice_groups, slice_keys
from .summary import (
    Facts,
    RunSummary,
    fingerprint,
    judged_query_ids,
    judgments_fingerprints,
    label_fingerprint,
    query_facts,
    query_status,
    same_labels,
    summarise,
)

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
        The largest cutoff of the K sweep; default the run's longest list, at most 100, at least
        max(10, 2K), rounded up to the sweep's grid (:func:`~ragreport.scoring.cutoffs.sweep_end`).
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
    asked, cutoffs = report_cutoffs(k, kmax, deepest([judged.retrieved]))
    scores = score(judged, cutoffs, conventions)
    values = score_measures(judged, measures, conventions) if measures else None
    readings = score_readings(judged, asked, conventions, default=scores)
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
    With ``cut_lists`` each run's lists are cut to the depth the report reads once it is scored, as a
    partition sends them back (docs/conventions.md section 22.9)."""
    scored: list[Scored] = []
    # With cut_lists, each run read is taken off the list once joined, so that its whole lists
    # (the ids the joined run shares) go when the joined run is cut.
    runs = loaded if cut_lists and isinstance(loaded, list) else list(loaded)
    # The runs' depth is known before any is scored here: the partition engines, which learn it
    # only after, score to the cap and keep these same cutoffs (kept_cutoffs).
    asked, cutoffs = report_cutoffs(k, kmax, deepest(np.diff(item.run.offsets) for item in runs))
    while runs:
        item = runs.pop(0)
        progress(f"scoring {item.run.name}")
        judged = join(item.run, item.judgments, conventions.relevance_level)
        source = item.judgments.source or "the judgments"
        del item
        check_scorable(judged, source, conventions)
        scores = score(judged, cutoffs, conventions)
        values = score_measures(judged, measures, conventions) if measures else None
        # condensed once, for the readings and for what report.json keeps to condense again
        condensed = condense(judged, max(asked))
        readings = score_readings(judged, asked, conventions, condensed=condensed, default=scores)
        after = following(judged, max(asked), condensed)
        del condensed
        if cut_lists:  # the sweep is scored: only the cutoffs asked for read the lists now
            judged = judged.head(depth_needed(asked, measures))
        scored.append((judged, scores, values, readings, after))
    return banded(scored, asked, conventions, measures, progress)


#: A run scored, as :func:`banded` takes it: the judged run, its scores, its measures' values (or
#: None), its readings and what report.json keeps to condense its lists again.
Scored = tuple[JudgedRun, "QueryScores", np.ndarray | None, dict[str, np.ndarray], Following]


def banded(
    scored: Sequence[Scored],
    asked: Sequence[int],
    conventions: Conventions,
    measures: Sequence[Measure],
    progress: Callable[[str], None],
    sums: Sequence[tuple[ResampledSums, ResampledSums | None, Facts]] = (),
    sweep: np.ndarray | None = None,
    labels: tuple[str, str] | None = None,
) -> list[RunSummary]:
    """Every run scored (in memory or by partitions) banded and summarised, in order. Runs of one
    label set share its fingerprints: its label lines are made and hashed once. ``sums``: each
    run's Poisson sums over the cutoffs ``sweep`` and of its measures by name, and its facts (the
    partitioned engines); ``labels``: the fingerprints of the label set every run shares, when the
    runs hold a sample of its queries."""
    prints: list[tuple[str, str]] = []
    out = []
    for i, (judged, scores, values, readings, after) in enumerate(scored):
        progress(f"bands for {judged.name}")
        same = labels or next((prints[j] for j in range(i) if same_labels(scored[j][0], judged)), None)
        prints.append(same or (fingerprint(judged_query_ids(judged)), label_fingerprint(judged)))
        own = (judged, scores, asked, conventions, measures, values, readings, prints[i], after)
        swept, measured, facts = sums[i] if sums else (None, None, None)
        cut = () if sweep is None else sweep
        out.append(summarise(*own, sums=swept, sum_cutoffs=cut, measure_sums=measured, facts=facts))
    return out


@dataclass(frozen=True)
class PartitionSums:
    """What each partition adds up (:data:`~ragreport.scoring.partition.Summed`): the Poisson sums of
    its scored queries (:func:`~ragreport.analysis.poisson.scored_sums`) and the facts the counts,
    the limits and the status filter read (:func:`~ragreport.analysis.summary.query_facts`)."""

    sums: ResampledSums
    facts: Facts

    def __add__(self, other: PartitionSums) -> PartitionSums:
        return PartitionSums(self.sums + other.sums, self.facts + other.facts)

    def __radd__(self, other):  # sum()'s start, 0
        return self if other == 0 else NotImplemented


def partition_sums(
    judged: JudgedRun,
    scores: QueryScores,
    measure_values: np.ndarray,
    *,
    seed: int,
    resamples: int,
    measures: Sequence[Measure],
    k: int,
) -> PartitionSums:
    """A partition's :class:`PartitionSums` at the report's ``k``, the sums keyed with ``seed``."""
    sums = scored_sums(judged, scores, measure_values, seed=seed, resamples=resamples, measures=measures)
    return PartitionSums(sums, query_facts(judged, scores, k, query_status(judged, scores, k)))


def deepest(lengths: Iterable[np.ndarray]) -> int:
    """The longest list of every run (each run's list lengths: ``retrieved``, whole lists even
    in a head), 0 when none retrieves anything: where the default sweep ends, capped."""
    return max((int(one.max()) for one in lengths if len(one)), default=0)


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
    labels: str = "qrels",
    columns: Any = None,
    id_from: str = "query",
    measures: Sequence[Measure] = (),
    progress: Callable[[str], None] = _quiet,
    engine: str = "memory",
    scheduler: str | None = None,
    partition_bytes: int | None = None,
    cut_lists: bool = False,
    sample_on: Measure | None = None,
    sample_texts: int = 0,
    sample_baseline: str | None = None,
    sample_meta: str | Path | Mapping[str, Mapping[str, object]] | None = None,
    sample_slice_by: Sequence[str] = (),
    sample_audit: AuditSource | None = None,
) -> list[RunSummary]:
    """Every run read, joined, scored and summarised, in order; the preloaded sample when
    ``inputs`` is empty (:func:`ragreport.api.evaluate` says what each argument takes).
    ``cut_lists``: each run's lists cut once scored to the depth the report reads (``ragreport
    build``; the partition engines cut them anyway): the deepest cutoff asked for, K, or a measure's;
    a caller then cannot read the slots below. ``sample_on``: with a partition engine, past
    ``PAGE_QUERIES`` queries, keep only the rows of the sample the pages list (its extremes on this
    measure, the primary metric at K; docs/conventions.md section 29.3), the figures still every
    query's: for runs analysed with no previous report listing every query, which pairs every
    query's rows (``ragreport build``); ``sample_texts``: how many queries the pages show with
    their text (``text_queries``, with a ``corpus``), which the sample then holds;
    ``sample_baseline``: the run the sample's extremes are against (the report's baseline; the
    first run by default), which the analysis of three runs or more must keep; ``sample_meta`` and
    ``sample_slice_by``: the queries' metadata and the keys the analysis slices by
    (``query_meta``, ``slice_by``), whose slices' example queries the sample then holds;
    ``sample_audit``: the audit the analysis reads (``audit``), whose audited queries it holds."""
    if k is None:
        k = DEFAULT_K if _given(inputs) else SAMPLE_K
    if engine != "memory" and columns is not None:  # a table is read whole, one row per query
        raise ArgumentError(Argument("columns"), " reads tables whole: leave out ", Argument("engine", engine))
    if engine == "memory" and scheduler is not None:
        raise ArgumentError(Argument("scheduler"), " is for ", Argument("engine", "dask"))
    if engine == "memory":
        progress("reading")
        loaded = load_inputs(
            inputs,
            qrels=qrels,
            metas=metas,
            input_format=input_format,
            order=conventions.order,
            labels=labels,
            columns=columns,
            id_from=id_from,
        )
        return summarise_loaded(loaded, k, conventions, kmax, measures, progress, cut_lists)
    pairs = named_inputs(inputs) if _given(inputs) else []
    if is_in_memory(qrels) or any(name is not None or is_in_memory(run) for name, run in pairs):
        raise ArgumentError(Argument("engine", engine), " scores run files against a qrels file; give a list of paths")
    check_engine(engine)
    if not pairs or qrels is None:
        raise ArgumentError(
            Argument("engine", engine),
            " scores TREC run files (or folders of them) against ",
            Argument("qrels"),
            "; give both",
        )
    check_meta_count(metas, len(pairs))
    paths = [Path(run) for _, run in pairs]
    # Every run's metadata and name before any is scored: a clash of names is found at once,
    # not after the first runs took their time.
    run_metas = [meta_for(path, metas[i] if metas else None) for i, path in enumerate(paths)]
    names = [run_name(meta, path) for meta, path in zip(run_metas, paths)]
    check_unique_names(zip(names, map(str, paths)))
    if sample_baseline is not None and sample_baseline not in names:  # refused before any run is scored
        these = f" (the run is {names[0]!r})" if len(names) == 1 else f"; the runs are {', '.join(map(repr, names))}"
        raise ArgumentError(Argument("baseline"), f" {sample_baseline!r} names no run{these}")
    sample_base = 0 if sample_baseline is None else names.index(sample_baseline)
    # read before any run is scored: a broken audit is one line, not a wasted scoring
    audited = None if sample_on is None or sample_audit is None else audited_queries(read_audit(sample_audit)[0])
    asked, cutoffs = report_cutoffs(k, kmax)
    # Each partition adds up the Poisson sums of its queries at every cutoff and hands back its
    # per-query scores at the cutoffs asked for alone: the sweep's figures come from the sums.
    summed = functools.partial(
        partition_sums, seed=conventions.seed, resamples=conventions.resamples, measures=measures, k=asked[0]
    )
    # Each partition also writes its queries' values at the cutoffs asked for by bucket of their key,
    # spilled here, for the comparison's sums (docs/conventions.md section 29).
    bucketed = functools.partial(bucket_rows, seed=conventions.seed)
    store = PairedRows()
    held: list[HeldPartitions] = []  # with sample_on: every run's, until the sample is chosen
    gathered: list[tuple[Rows, bool]] = []  # each run's rows, and whether its labels are relevant ids alone
    sums: list[PartitionSums] = []
    depth = depth_needed(asked, measures)
    longest = 0
    for index, (path, meta) in enumerate(zip(paths, run_metas)):
        if path.is_file() and path.suffix.lower() != ".parquet" and detect_file_format(path)[0] != "trec":
            raise ArgumentError(f"{path}: ", Argument("engine", engine), " reads TREC runs; this file is not one")
        progress(f"reading and scoring {path.name} by partitions ({engine})")
        # Past PAGE_QUERIES a build keeps its sample's rows alone (section 29.3): the others are
        # written to disk as they come, and never gathered.
        hold = HeldPartitions(depth, max(asked), None if sample_on is None else shown.PAGE_QUERIES)
        parts = judged_by_partitions(
            path,
            qrels,
            read_qrels=load_qrels,
            cutoffs=cutoffs,
            conventions=conventions,
            measures=measures,
            engine=engine,
            scheduler=scheduler,
            partition_bytes=partition_bytes or PARTITION_BYTES,
            meta=meta,
            progress=progress,
            summed=summed,
            returned=asked,
            bucketed=bucketed,
            spill=functools.partial(store.add, index),
            hold=hold,
        )
        meeting = hold.meeting
        assert meeting is not None  # every run has a partition
        if not meeting.clean:  # the whole run's counts decide; a refusal names ids of its first lists
            examples = hold.examples() if hold.spilled else hold.rows()[0]
            named = replace(examples, name=run_name(meta, path), source=str(path))
            check_scorable(named, str(qrels), conventions, meeting=meeting)
        sums.append(parts.sums)
        if parts.ranks is not None:
            store.ranks[index] = parts.ranks
        longest = max(longest, hold.longest)
        if sample_on is None:  # gathered now, as one process holds a run, before the next is scored
            gathered.append((hold.rows(), hold.relevant_only))
        else:
            held.append(hold)
    del hold, parts
    wanted = shared_prints = None
    every = np.unique(np.concatenate([i for h in held for i in h.query_ids])) if held else None
    if sample_on is not None and every is not None and len(every) > shown.PAGE_QUERIES:
        # The sample the pages list, chosen from the buckets and every id (section 29.1); only its
        # rows are read back (section 29.3). Every run shares the label set of one qrels file.
        groups = None
        # what the analysis matches the metadata, the slices and outside scores against: every query's
        store.every, store.judged = every, [hold.judged_ids() for hold in held]
        if sample_meta is not None:  # the slices' examples: the sample holds them (section 29.3)
            by_query = read_query_meta(sample_meta) if isinstance(sample_meta, (str, Path)) else sample_meta
            try:
                keys = slice_keys(by_query, sample_slice_by) if by_query else ()
            except ArgumentError:  # refused by the analysis, after its check of the metadata's ids
                keys = ()
            any_judged = np.unique(np.concatenate(store.judged))
            groups = [members for _, _, members in slice_groups(by_query, keys, any_judged)] if keys else []
            del by_query  # read again by the analysis: not held while the rows are read back
        store.choice = shown.choose_sample(
            store,
            names,
            every,
            sample_on,
            asked,
            conventions.seed,
            sample_texts,
            sample_base,
            groups,
            EXAMPLES,
            audited,
        )
        del groups
        scored_ids = [hold.scored_ids() for hold in held]
        # the queries one run scored and the other did not, for each pair with the baseline (either
        # way: with two runs the analysis may take either as the baseline)
        store.apart = {
            (i, j): tuple(as_text(np.setdiff1d(scored_ids[i], scored_ids[j], assume_unique=True)))
            for i in range(len(held))
            for j in range(len(held))
            if i != j and sample_base in (i, j)
        }
        del scored_ids
        wanted = store.choice.ids
        labels_at = str(Path(qrels).resolve())
        spans = cached_index(labels_at)
        if spans is not None:  # the label set read a span at a time, never whole
            shared_prints = judgments_fingerprints(spans.each(), spans.ids)
        else:
            whole = join(Run.empty(), cached_qrels(labels_at, load_qrels), conventions.relevance_level)
            shared_prints = (fingerprint(judged_query_ids(whole)), label_fingerprint(whole))
            del whole
    while held:  # each run's rows read back, and its partitions let go, before the next's
        gathered.append((held[0].rows(wanted), held.pop(0).relevant_only))
    scored: list[Scored] = []
    for index, ((judged, scores, values, own, after), relevant_only) in enumerate(gathered):
        path, meta = paths[index], run_metas[index]
        judged = replace(judged, name=names[index], meta=meta or RunMeta(), source=str(path))
        if wanted is not None:  # the whole label set's kind, which its sample keeps
            judged = judged.pinned(relevant_only)
        rates = rates_of(store.ranks[index]) if index in store.ranks else None
        readings = score_readings(judged, asked, conventions, default=scores, own=own, rates=rates)
        scored.append((judged, scores, values if measures else None, readings, after))
    del gathered
    # Summed to the cap of the default sweep; now the runs' depth is known, kept to the cutoffs
    # one process scores from the start (all of them when --kmax was given).
    kept = kept_cutoffs(k, kmax, longest)
    at = {int(c): i for i, c in enumerate(cutoffs)}
    columns = [m * len(cutoffs) + at[int(c)] for m in range(len(scored[0][1].metrics)) for c in kept]
    # the measures' columns follow the sweep's (scored_sums)
    measured = list(range(len(scored[0][1].metrics) * len(cutoffs), sums[0].sums.weighted.shape[1]))
    summaries = banded(
        scored,
        asked,
        conventions,
        measures,
        progress,
        [(one.sums.columns(columns), one.sums.columns(measured) if measures else None, one.facts) for one in sums],
        kept,
        shared_prints,
    )
    paired = [replace(summary, paired=(store, i)) for i, summary in enumerate(summaries)]
    # Each other reading's means from the sums of the run's buckets, as the comparison's figures
    # (docs/conventions.md section 29), not from the per-query values the pages read.
    return [replace(summary, reading_at=reading_means(summary)) for summary in paired]
