"""The library entry points, in the order data flows through the stages:

1. read (:func:`~ragreport.reading.registry.load_runs`: files into typed runs and judgments),
2. join (:func:`~ragreport.scoring.join.join`: every ranked slot with its grade),
3. score (:func:`~ragreport.scoring.metrics.score`, :func:`~ragreport.scoring.measures.score_measures`),
4. summarise (:func:`~ragreport.analysis.summary.summarise`: bands on every mean) -- steps 1-4 are
   :func:`evaluate`, per run :func:`score_and_summarise` after the join; the partition engines
   (:func:`~ragreport.scoring.partition.judged_by_partitions`) do steps 1-3 by pieces and hand the
   same figures to step 4;
5. analyse (:func:`analyse`: honest limits, the comparison with a baseline, drift);
6. render and write (:func:`build`: the view model, the pages, the site written atomically;
   :func:`document` for report.json alone).

No stage reaches back to an earlier one's caller; each module imports only from its own stage or
an earlier one.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Callable, Sequence
from pathlib import Path

from .analysis.compare import Correction, compare
from .analysis.drift import drift
from .analysis.family import choose_family
from .analysis.limits import limits
from .analysis.result import Analysis
from .analysis.summary import RunSummary, summarise
from .core.errors import UsageError
from .core.model import Conventions, NoRelevant
from .output.document import report_document
from .reading.meta import check_meta_count, check_unique_names, meta_for, run_name
from .reading.previous import load_previous
from .reading.registry import detect_file_format, load_qrels, load_runs
from .scoring.catalogue import COMPARED
from .scoring.cutoffs import report_cutoffs
from .scoring.join import JudgedRun, join
from .scoring.measures import Measure, score_measures
from .scoring.metrics import score
from .scoring.partition import PARTITION_BYTES, check_engine, judged_by_partitions

#: K when none is given: 10, except the preloaded sample's 5 (docs/conventions.md section 7).
DEFAULT_K = 10
SAMPLE_K = 5

Progress = Callable[[str], None]


def _quiet(stage: str) -> None:
    return None


def evaluate(
    inputs: Sequence[str | Path] = (),
    *,
    qrels: str | Path | None = None,
    k: int | Sequence[int] | None = None,
    conventions: Conventions = Conventions(),
    kmax: int | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    measures: Sequence[Measure] = (),
    progress: Progress = _quiet,
    engine: str = "memory",
    scheduler: str | None = None,
    partition_bytes: int | None = None,
) -> list[RunSummary]:
    """Load, join, score and summarise every run; the preloaded sample when ``inputs`` is empty.

    ``engine`` ``memory`` reads each run whole; ``stream`` and ``dask`` score TREC runs by
    partitions of whole queries (see :mod:`ragreport.scoring.partition`), here one after another or on
    the Dask cluster at ``scheduler`` (a local one when None), with the same figures.
    """
    if k is None:
        k = DEFAULT_K if inputs else SAMPLE_K
    if engine == "memory" and scheduler is not None:
        raise UsageError("--scheduler is for --engine dask")
    if engine != "memory":
        return _evaluate_by_partitions(
            inputs,
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
    loaded = load_runs(inputs, qrels=qrels, metas=metas, input_format=input_format, order=conventions.order)
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


def score_and_summarise(
    judged: JudgedRun,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None = None,
    measures: Sequence[Measure] = (),
    *,
    progress: Callable[[], None] | None = None,
) -> RunSummary:
    """Score one joined run at K (one cutoff or several, the first the report's K) and over the K
    sweep up to ``kmax``, score the ``measures`` named, and band every mean."""
    asked, cutoffs = report_cutoffs(k, kmax)
    scores = score(judged, cutoffs, conventions)
    values = score_measures(judged, measures, conventions) if measures else None
    if progress is not None:
        progress()
    return summarise(judged, scores, asked, conventions, measures, values)


def _evaluate_by_partitions(
    inputs: Sequence[str | Path],
    qrels: str | Path | None,
    k: int | Sequence[int],
    conventions: Conventions,
    kmax: int | None,
    metas: Sequence[str | Path],
    measures: Sequence[Measure],
    progress: Progress,
    engine: str,
    scheduler: str | None,
    partition_bytes: int,
) -> list[RunSummary]:
    check_engine(engine)
    if not inputs or qrels is None:
        raise UsageError(f"--engine {engine} scores TREC run files (or folders of them) against --qrels; give both")
    check_meta_count(metas, len(inputs))
    paths = [Path(p) for p in inputs]
    # Every run's metadata and name before any is scored: a clash of names is found at once,
    # not after the first runs took their time.
    run_metas = [meta_for(path, metas[i] if metas else None) for i, path in enumerate(paths)]
    check_unique_names((run_name(meta, path), str(path)) for meta, path in zip(run_metas, paths))
    asked, cutoffs = report_cutoffs(k, kmax)
    summaries = []
    for path, meta in zip(paths, run_metas):
        if path.is_file() and path.suffix.lower() != ".parquet" and detect_file_format(path)[0] != "trec":
            raise UsageError(f"{path}: --engine {engine} reads TREC runs; this file is not one")
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
        progress(f"bands for {parts.judged.name}")
        summaries.append(
            summarise(
                parts.judged, parts.scores, asked, conventions, measures, parts.measure_values if measures else None
            )
        )
    return summaries


def _some(ids) -> str:
    shown = ", ".join(repr(str(q)) for q in list(ids)[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def check_scorable(judged: JudgedRun, judgments_source: str, conventions: Conventions = Conventions()) -> None:
    """Refuse a run that no judgment speaks to: ids that never meet are a mistake, not a score of 0.

    Judgments with no relevant id anywhere are refused too, unless ``--no-relevant zero`` averages
    such queries in as 0, as trec_eval does (then every figure is 0, and the report says why).
    """
    run_ids = judged.query_ids[judged.in_run]
    judged_ids = judged.query_ids[judged.has_judgments]
    where = f"{judged.source} and {judgments_source}" if judged.source != judgments_source else judged.source
    if not (judged.in_run & judged.has_judgments).any():
        raise UsageError(
            f"{where} share no query id (the run has {_some(run_ids)}; the judgments have "
            f"{_some(judged_ids)}): check that both use the same ids"
        )
    if (judged.relevant > 0).any():
        return
    if conventions.no_relevant is not NoRelevant.ZERO:
        raise UsageError(
            f"{where}: no query has an id judged relevant (grade {conventions.relevance_level} or more), "
            f"so nothing can be scored (--no-relevant zero scores every judged query 0, as trec_eval does)"
        )
    if not len(judged.judgment_query):
        raise UsageError(f"{where}: the judgments judge no id at all, so nothing can be scored")


def analyse(
    summaries: Sequence[RunSummary],
    *,
    today: _dt.date | None = None,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    previous: str | Path | None = None,
    primary: str | None = None,
    family: Sequence[str | Measure] | None = None,
    progress: Progress = _quiet,
) -> Analysis:
    """Limits for every run, the comparison with the baseline (several runs), drift (``previous``).

    ``primary`` names the metric the report leads with (``nDCG@10``, any spelling the name parser
    reads; a compared metric at K): default nDCG at K. ``family`` names what is compared
    (``["nDCG@10", "R@10"]``, as ``--metrics``): only those measures are tested and corrected
    together, in the comparison and the drift; each needs per-query values (a suite metric at a
    scored cutoff, or a measure given to :func:`evaluate`'s ``measures``). The primary metric must be
    one of them (without ``primary``: the first compared metric at K among them).
    """
    from .output.site import build_day

    today = today or build_day()
    k = summaries[0].k if summaries else SAMPLE_K
    chosen = choose_family(family, k, primary, compares=len(summaries) > 1 or previous is not None)
    if len(summaries) > 1:
        progress("comparing runs")
    comparison = compare(summaries, baseline=baseline, correction=correction, permutations=permutations, family=chosen)
    found_drift = None
    if previous is not None:
        # Named by its file name: a published report never shows a path of the machine that built it.
        # Drift tests the family's members it shows: the suite's metrics at K.
        shown = {(f.metric, f.cutoff) for f in chosen.measures if f.gain is None}
        tested = tuple(m for m in COMPARED if (m, k) in shown)
        found_drift = drift(
            load_previous(previous),
            Path(previous).name,
            summaries,
            correction=correction,
            permutations=permutations,
            tested=tested,
        )
    return Analysis(
        tuple(summaries),
        tuple(limits(s, today) for s in summaries),
        today,
        comparison,
        found_drift,
        primary=chosen.lead,
    )


def document(analysis: Analysis) -> dict:
    """The report document (what ``report.json`` holds)."""
    return report_document(analysis)


def build(
    analysis: Analysis,
    *,
    out: str | Path | None = "site",
    single_file: str | Path | None = None,
    title: str | None = None,
    progress: Progress = _quiet,
) -> list[Path]:
    """Render the report and write the site folder ``out`` and/or the one-file report ``single_file``."""
    from .output.site import prepare, render_single, render_site, write_file, write_site
    from .output.view import build_view

    progress("rendering")
    report = prepare(build_view(analysis, title=title), report_document(analysis))
    outputs = []
    site_files = render_site(report) if out is not None else None
    single = render_single(report) if single_file is not None else None
    progress("writing")
    if out is not None and site_files is not None:
        outputs.append(write_site(site_files, out))
    if single_file is not None and single is not None:
        outputs.append(write_file(single, single_file))
    return outputs
