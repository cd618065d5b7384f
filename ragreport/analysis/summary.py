"""Summarise scored queries: suite means with their bands, the K sweep, counts and query statuses
(where a query stands at the cutoff K, each status with the sentence a report prints for it)."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.ids import as_bytes, as_text
from ..scoring.catalogue import HIT, JUDGED, READ, RECALL, IntervalMethod
from ..scoring.metrics import score
from .intervals import (
    Interval,
    bootstrap_interval,
    percentile_band,
    resample_rows,
    shared_bootstrap_means,
    wilson_interval,
)
from .poisson import ResampledSums, measure_rows, query_keys

if TYPE_CHECKING:
    from ..core.model import Conventions, Judgments
    from ..scoring.catalogue import Metric
    from ..scoring.condensed import Following
    from ..scoring.join import JudgedRun
    from ..scoring.measures import Measure
    from ..scoring.metrics import QueryScores
    from .paired import PairedRows


@dataclass(frozen=True)
class Counts:
    """The edge-rule counts of docs/conventions.md section 3."""

    queries: int
    scored: int
    excluded_no_relevant: int
    no_relevant_as_zero: int  # judged, nothing relevant, averaged in as 0 (--no-relevant zero)
    missing_from_run: int
    unjudged_in_run: int
    repeats: int
    queries_with_repeats: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


#: How many ids of each kind :class:`Facts` keeps, the first in query order: the honest limits
#: name the first five (``q1, q2, q3, q4, q5 and 12 more``).
EXAMPLE_IDS = 5
#: The kinds of query :class:`Facts` counts by id, which the honest limits name.
FACT_KINDS = ("over_k", "no_relevant", "unjudged", "missing", "repeats")


@dataclass(frozen=True)
class Facts:
    """What the counts, the honest limits and the status filter read of a run's queries, as sums
    that add over disjoint sets of queries in query order (``a + b``, ``a``'s queries first), so
    that partitions add them up (docs/conventions.md section 29): no per-query array is gathered
    for them.

    ``counts``: :class:`Counts`' fields in order; ``statuses``: the queries of each
    :class:`Status`, in its order; ``slots``: the scored queries' filled top-K slots, repeats
    aside, then the unjudged and the judged ones among them; ``relevant``: the scored queries with
    one relevant id, with several, and the most any has; ``labels``: the judgments; ``ids``: per
    kind (``over_k``: scored with more relevant ids than K; ``no_relevant``: judged, none relevant;
    ``unjudged``: no judgment; ``missing``: judged, relevant, not in the run; ``repeats``: with a
    repeated id) how many and the first :data:`EXAMPLE_IDS` in query order.
    """

    counts: tuple[int, ...]
    statuses: tuple[int, ...]
    slots: tuple[int, int, int]
    relevant: tuple[int, int, int]
    labels: int
    ids: dict[str, tuple[int, tuple[str, ...]]]

    def __add__(self, other: Facts) -> Facts:
        def added(a: tuple[int, ...], b: tuple[int, ...]) -> tuple:
            return tuple(x + y for x, y in zip(a, b))

        return Facts(
            added(self.counts, other.counts),
            added(self.statuses, other.statuses),
            added(self.slots, other.slots),
            (*added(self.relevant[:2], other.relevant[:2]), max(self.relevant[2], other.relevant[2])),
            self.labels + other.labels,
            {
                kind: (n + other.ids[kind][0], (first + other.ids[kind][1])[:EXAMPLE_IDS])
                for kind, (n, first) in self.ids.items()
            },
        )


def query_facts(judged: JudgedRun, scores: QueryScores, k: int, status: Sequence[Status]) -> Facts:
    """:class:`Facts` of ``judged``'s queries at the report's ``k`` (``status``: each query's,
    :func:`query_status`), vectorised; ``judged`` may hold only the top of each list."""
    scored = scores.scored
    positions = judged.top_slots(k, scored)
    judged_slot, repeat = judged.judged[positions], judged.repeat[positions]
    relevant = judged.relevant[scored]
    kinds = {
        "over_k": scored & (judged.relevant > k),
        "no_relevant": (judged.relevant == 0) & judged.has_judgments,
        "unjudged": ~judged.has_judgments,
        "missing": ~judged.in_run & (judged.relevant > 0),
        "repeats": judged.repeats > 0,
    }
    codes = {s: i for i, s in enumerate(Status)}
    counts = Counts(
        queries=judged.n_queries,
        scored=int(np.count_nonzero(scored)),
        excluded_no_relevant=int(((judged.relevant == 0) & ~scored).sum()),
        no_relevant_as_zero=int(((judged.relevant == 0) & scored).sum()),
        missing_from_run=int(kinds["missing"].sum()),
        unjudged_in_run=int((judged.in_run & ~judged.has_judgments).sum()),
        repeats=int(judged.repeats.sum()),
        queries_with_repeats=int(kinds["repeats"].sum()),
    )
    return Facts(
        tuple(counts.__dict__.values()),
        tuple(np.bincount([codes[s] for s in status], minlength=len(codes)).tolist()),
        (int((~repeat).sum()), int((~judged_slot & ~repeat).sum()), int((judged_slot & ~repeat).sum())),
        (int((relevant == 1).sum()), int((relevant > 1).sum()), int(relevant.max(initial=0))),
        len(judged.judgment_grades),
        {
            kind: (int(mask.sum()), tuple(judged.query_ids[np.flatnonzero(mask)[:EXAMPLE_IDS]].tolist()))
            for kind, mask in kinds.items()
        },
    )


@dataclass(frozen=True)
class Sweep:
    """Every metric's mean and band at each cutoff of ``cutoffs`` (arrays indexed like it)."""

    cutoffs: np.ndarray
    mean: dict[str, np.ndarray]
    low: dict[str, np.ndarray]
    high: dict[str, np.ndarray]


@dataclass(frozen=True)
class Steps:
    """What each hop of a multi-hop run added, at the report's K (docs/conventions.md section 8).

    ``recall[h]`` and ``hit[h]`` are Recall@K and Hit@K of the union after hops 1..h+1, cut at K,
    over the run's scored queries, each with its band (Wilson for Hit, the bootstrap for Recall);
    the last hop's are the run's own figures. ``found[h]``: the distinct relevant ids in those top
    K, summed over the scored queries; ``later`` is the share of the last hop's found that hop 1
    did not find (NaN when none was found).
    """

    k: int
    recall: tuple[Interval, ...]
    hit: tuple[Interval, ...]
    found: tuple[int, ...]

    @property
    def later(self) -> float:
        return (self.found[-1] - self.found[0]) / self.found[-1] if self.found[-1] else float("nan")

    def as_dict(self) -> dict[str, object]:
        """JSON-ready (report.json's run ``steps``): NaN, where no query was scored, is null."""

        def number(value: float) -> float | None:
            return value if np.isfinite(value) else None

        def band(i: Interval) -> dict[str, float | None]:
            return {"mean": number(i.mean), "low": number(i.low), "high": number(i.high)}

        hops = [{"recall": band(r), "hit": band(h), "found": f} for r, h, f in zip(self.recall, self.hit, self.found)]
        return {"k": self.k, "hops": hops, "found_by_a_later_hop": number(self.later)}


def step_figures(judged: JudgedRun, scored: np.ndarray, k: int, conventions: Conventions) -> Steps | None:
    """Recall@K and Hit@K after each hop of a multi-hop run (:attr:`JudgedRun.steps`), scored by
    :func:`~ragreport.scoring.metrics.score` on the lists cut where each hop's union ends: the
    first hops' ids come first in the union, so the list after hops 1..h is a head of the whole
    one. Recall's band is the bootstrap over the scored queries in id order, as the run's own (the
    same resamples each hop); Hit's is Wilson's. None for a run of one step."""
    if judged.steps is None:
        return None
    n = int(np.count_nonzero(scored))
    rows = resample_rows(judged.query_ids, scored)
    recall, hit, found = [], [], []
    for ends in judged.steps.T:
        after = score(judged.head(ends), [k], conventions, metrics=(RECALL, HIT))
        values = after.of(RECALL, k)[rows]
        mean, low, high = bootstrap_interval(values, conventions.resamples, conventions.seed, conventions.confidence)
        recall.append(Interval(float(mean[0]), float(low[0]), float(high[0]), IntervalMethod.BOOTSTRAP))
        hits = int(np.count_nonzero(after.of(HIT, k)[scored]))
        low, high = wilson_interval(hits, n, conventions.confidence)
        hit.append(Interval(hits / n if n else float("nan"), low, high, IntervalMethod.WILSON))
        found.append(int(after.hits[scored, 0].sum()))
    return Steps(k, tuple(recall), tuple(hit), tuple(found))


@dataclass(frozen=True)
class RunSummary:
    """Everything the reports say about one run, as plain values: its figures, bands and counts.

    One item of what :func:`ragreport.api.evaluate` returns.

    Examples
    --------
    >>> from ragreport.api import evaluate
    >>> run = {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}
    >>> summary = evaluate({"bm25": run}, qrels={"q1": {"d1": 1}, "q2": {"d9": 1}}, k=1)[0]
    >>> summary.name, summary.k, summary.counts.scored
    ('bm25', 1, 2)
    >>> summary.at_k["P@1"].mean  # q1 finds its relevant id, q2 does not
    0.5
    """

    judged: JudgedRun  # the run joined with its judgments: ids, grades, query text and metadata
    scores: QueryScores  # every suite metric per query at every cutoff of the sweep
    k: int  # the report's K: the first cutoff asked for
    cutoffs: tuple[int, ...]  # every cutoff asked for (-k 1,5,10), the report's K first
    conventions: Conventions
    counts: Counts
    at_k: dict[str, Interval]  # each suite metric at each cutoff asked for ("nDCG@10"): mean and band
    sweep: Sweep
    status: tuple[Status, ...]  # each query's
    facts: Facts  # what the counts, the limits and the status filter read, summed (section 29)
    query_fingerprint: str  # sha256: of the query set, which drift compares
    label_fingerprint: str  # and of the judgments
    measures: tuple[Measure, ...] = ()  # asked for by name (--metrics, --format trec)
    measure_values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # measures x queries
    measure_at: dict[str, Interval] = field(default_factory=dict)  # by measure label
    #: Each reading of unjudged ids besides the default one (docs/conventions.md section 20.2):
    #: :data:`~ragreport.scoring.readings.READ` x queries x cutoffs asked for; empty when not scored.
    readings: dict[str, np.ndarray] = field(default_factory=dict)
    reading_at: dict[str, dict[str, float]] = field(default_factory=dict)  # reading -> label -> mean
    #: The bootstrap's resampled means (resamples x columns), the scored queries in id order: of
    #: ``scores`` (column ``metric * cutoffs + cutoff``) and of the measures by name. A paired
    #: comparison over the same queries reads its band off their differences
    #: (docs/conventions.md section 22); None when nothing was resampled. On the partitioned
    #: engines the Poisson bootstrap's (``sums``, section 29), and ``measure_resampled`` None.
    resampled: np.ndarray | None = field(default=None, repr=False, compare=False)
    measure_resampled: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: The judged ids past each list's top K (the deepest cutoff asked for) that condensing it to K
    #: reads: what report.json keeps for ``render`` to condense the stored lists again
    #: (docs/conventions.md section 22.17); None when ``judged`` holds the whole lists.
    following: Following | None = field(default=None, repr=False, compare=False)
    steps: Steps | None = None  # what each hop of a multi-hop run added (RAG JSONL ``steps``)
    #: The Poisson sums the means, bands and ``resampled`` came from (the partitioned engines,
    #: docs/conventions.md section 29), a column per metric per cutoff of ``sweep``; None in memory.
    sums: ResampledSums | None = field(default=None, repr=False, compare=False)
    #: And those of the measures by name (the columns of :func:`~ragreport.analysis.poisson.measure_rows`).
    measure_sums: ResampledSums | None = field(default=None, repr=False, compare=False)
    #: Where the partitioned engines spilled this run's per-query values by bucket, and the run's
    #: place there (:class:`~ragreport.analysis.paired.PairedRows`), from which the comparison's
    #: figures are summed (docs/conventions.md section 29); None in memory and for a stored report.
    paired: tuple[PairedRows, int] | None = field(default=None, repr=False, compare=False)

    def measure_total(self, i: int) -> int:
        """The total over the scored queries of the ``i``-th measure by name (a count's figure, such
        as ``num_rel_ret``): its sums' when the partitioned engines made them (a sampled report's
        rows are its sample, section 29.2), else its values'; the same whole number either way."""
        if self.measure_sums is not None:
            return int(np.rint(self.measure_sums.totals[i]))
        return int(self.measure_values[i][self.scores.scored].sum())

    def reading_of(self, reading: str, metric: Metric, cutoff: int) -> np.ndarray | None:
        """Every query's value of ``metric`` at ``cutoff`` under ``reading``; None when not read."""
        if reading not in self.readings or metric not in READ or cutoff not in self.cutoffs:
            return None
        return self.readings[reading][READ.index(metric), :, self.cutoffs.index(cutoff)]

    @property
    def suite(self) -> tuple[Metric, ...]:
        """The suite's metrics this run holds and shows: the catalogue's, or, for a stored report made
        before a metric was added (or after one was removed), those it holds (docs/conventions.md
        section 26); without Judged@K on judgments of relevant ids alone, where it is P@K again
        (section 20.2)."""
        if self.judged.relevant_only:
            return tuple(m for m in self.scores.metrics if m is not JUDGED)
        return self.scores.metrics

    @property
    def name(self) -> str:
        return self.judged.name

    def __repr__(self) -> str:
        """One line: ``RunSummary(name='bm25', queries=500, scored=498, k=10)``, not every array."""
        c = self.counts
        return f"RunSummary(name={self.name!r}, queries={c.queries}, scored={c.scored}, k={self.k})"


def fingerprint(items: list[str]) -> str:
    """``sha256:`` of the sorted items joined by newlines."""
    return "sha256:" + hashlib.sha256("\n".join(sorted(items)).encode("utf-8")).hexdigest()


def judged_query_ids(judged: JudgedRun) -> list[str]:
    """The query set a run is tied to: every query the judgments list."""
    return judged.query_ids[judged.has_judgments].tolist()


def label_lines(judged: JudgedRun) -> list[str]:
    """The label set as ``query<TAB>id<TAB>grade`` lines, one per judgment."""
    query_of = judged.query_ids[judged.judgment_query].tolist()
    return [
        f"{q}\t{d}\t{g}" for q, d, g in zip(query_of, as_text(judged.judgment_doc_ids), judged.judgment_grades.tolist())
    ]


#: Sorted label lines hashed this many at a time by :func:`label_fingerprint`.
_HASHED_LINES = 1 << 16


def label_fingerprint(judged: JudgedRun) -> str:
    """:func:`fingerprint` of :func:`label_lines`, made as bytes by array operations: each line's
    UTF-8 bytes joined by numpy's string additions, the lines sorted as bytes (UTF-8's order of
    bytes is its code points' order: the order of Python's sort of the lines) and hashed a chunk
    at a time. The same digest, without a Python string per judgment (700,000 at the wide size).
    An id holds no NUL (docs/conventions.md section 17), so numpy's padding of a line with NULs
    adds nothing to it."""
    lines = _label_bytes(
        as_bytes(judged.query_ids)[judged.judgment_query], judged.judgment_doc_ids, judged.judgment_grades
    )
    lines.sort()
    digest = hashlib.sha256()
    _hashed(digest, lines, first=True)
    return f"sha256:{digest.hexdigest()}"


def _label_bytes(queries: np.ndarray, doc_ids: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """Each judgment's line ``query<TAB>id<TAB>grade`` as UTF-8 bytes (``queries``: each one's query id, as bytes)."""
    if not len(grades):
        return np.zeros(0, dtype="S1")
    # Each distinct grade's decimal text (as str writes a whole number) made once: a label set holds a handful.
    distinct, back = np.unique(grades, return_inverse=True)
    texts = np.array([str(g).encode("ascii") for g in distinct.tolist()], dtype=np.bytes_)[back.reshape(-1)]
    lines = np.char.add(np.char.add(queries, b"\t"), as_bytes(doc_ids))
    return np.char.add(np.char.add(lines, b"\t"), texts)


def _hashed(digest, lines: np.ndarray, first: bool) -> None:
    """``lines`` (sorted) added to ``digest`` joined by newlines, after one unless ``first``."""
    for start in range(0, len(lines), _HASHED_LINES):
        if start or not first:
            digest.update(b"\n")
        digest.update(b"\n".join(lines[start : start + _HASHED_LINES].tolist()))


#: Label lines are cut into this many ranges of query ids by :func:`judgments_fingerprints`.
_RANGES = 64


def judgments_fingerprints(parts: Iterable[Judgments], query_ids: np.ndarray) -> tuple[str, str]:
    """``fingerprint(judged_query_ids)`` and :func:`label_fingerprint` of the label set whose
    judgments ``parts`` yields (of disjoint queries), ``query_ids`` every query it judges, sorted
    as UTF-8 bytes: the label lines written to files by range of their query id as they come, then
    each range sorted and hashed in order (a range's lines all sort before the next's), so that
    memory holds one range's lines, never the whole label set's (docs/conventions.md section 29.2)."""
    digest = hashlib.sha256()
    _hashed(digest, query_ids, first=True)
    queries = f"sha256:{digest.hexdigest()}"
    starts = query_ids[:: max(1, -(-len(query_ids) // _RANGES))]
    with tempfile.TemporaryDirectory(prefix="ragreport-labels-") as folder:
        files = [Path(folder) / f"{r}.npy" for r in range(len(starts))]
        for part in parts:
            ids = as_bytes(part.query_ids)
            lines = _label_bytes(np.repeat(ids, np.diff(part.offsets)), part.doc_ids, part.grades)
            ranges = np.searchsorted(starts, np.repeat(ids, np.diff(part.offsets)), side="right") - 1
            for r in np.unique(ranges).tolist():
                with files[r].open("ab") as handle:
                    np.save(handle, lines[ranges == r], allow_pickle=False)
        digest = hashlib.sha256()
        first = True
        for file in files:
            if not file.exists():
                continue
            pieces = []
            with file.open("rb") as handle:
                size = file.stat().st_size
                while handle.tell() < size:
                    pieces.append(np.load(handle, allow_pickle=False))
            lines = np.concatenate(pieces)
            lines.sort()
            _hashed(digest, lines, first)
            first = first and not len(lines)
    return queries, f"sha256:{digest.hexdigest()}"


def judgment_map(judged: JudgedRun) -> dict[str, dict[str, int]]:
    """The label set as ``{query: {id: grade}}``, every judged query present (even with no id)."""
    out: dict[str, dict[str, int]] = {q: {} for q in judged_query_ids(judged)}
    query_of = judged.query_ids[judged.judgment_query].tolist()
    for q, d, g in zip(query_of, as_text(judged.judgment_doc_ids), judged.judgment_grades.tolist()):
        out.setdefault(q, {})[d] = g
    return out


def same_labels(a: JudgedRun, b: JudgedRun) -> bool:
    """Whether two runs hold the very same label set, array for array (queries, judged queries,
    judgments): the runs of one qrels file, read once for each run."""
    if a is b:
        return True
    names = ("query_ids", "has_judgments", "judgment_query", "judgment_doc_ids", "judgment_grades")
    return all(
        getattr(a, n).dtype == getattr(b, n).dtype and np.array_equal(getattr(a, n), getattr(b, n)) for n in names
    )


def distinct_label_sets(summaries) -> list:
    """The summaries whose label set no earlier one holds already: a union over the label sets
    (the report's judgments and fingerprints) needs each once, and the runs of one qrels file
    share theirs."""
    kept: list = []
    for summary in summaries:
        if not any(same_labels(summary.judged, other.judged) for other in kept):
            kept.append(summary)
    return kept


def report_judgments(summaries) -> dict[str, dict[str, int]]:
    """The union of the runs' label sets, queries and ids in sorted order (what report.json keeps)."""
    union: dict[str, dict[str, int]] = {}
    for summary in distinct_label_sets(summaries):
        for q, grades in judgment_map(summary.judged).items():
            union.setdefault(q, {}).update(grades)
    return {q: dict(sorted(union[q].items())) for q in sorted(union)}


def report_fingerprints(summaries) -> dict[str, str]:
    """Fingerprints of the whole report: the union of its runs' query sets and label sets."""
    prints = {(s.query_fingerprint, s.label_fingerprint) for s in summaries}
    if len(prints) == 1:  # the same sets (a sampled report's runs hold a sample of them: section 29.2)
        queries, labels = prints.pop()
        return {"queries": queries, "labels": labels}
    distinct = distinct_label_sets(summaries)
    if len(distinct) == 1:  # one label set: the union is its own, fingerprinted by summarise already
        # (a run's query ids are distinct and so are a label set's (query, id) pairs: no line twice)
        return {"queries": distinct[0].query_fingerprint, "labels": distinct[0].label_fingerprint}
    queries = sorted({q for s in distinct for q in judged_query_ids(s.judged)})
    labels = sorted({line for s in distinct for line in label_lines(s.judged)})
    return {"queries": fingerprint(queries), "labels": fingerprint(labels)}


def query_status(judged: JudgedRun, scores: QueryScores, k: int) -> tuple[Status, ...]:
    """Each query's status at ``k``: the first of these that holds, else a complete miss."""
    hit = scores.hits[:, scores.column(k)]
    holds = {
        Status.NO_RELEVANT: (judged.relevant == 0) & scores.scored,
        Status.EXCLUDED: judged.relevant == 0,
        Status.MISSING: ~judged.in_run,
        Status.FULL: hit == judged.relevant,
        Status.PARTIAL: hit > 0,
        Status.LATE_HIT: scores.first_relevant_rank > 0,
    }
    statuses = (*holds, Status.COMPLETE_MISS)
    return tuple(statuses[c] for c in np.select(list(holds.values()), range(len(holds)), len(holds)).tolist())


def summarise(
    judged: JudgedRun,
    scores: QueryScores,
    asked: Sequence[int],
    conventions: Conventions,
    measures: Sequence[Measure] = (),
    measure_values: np.ndarray | None = None,
    readings: dict[str, np.ndarray] | None = None,
    fingerprints: tuple[str, str] | None = None,
    following: Following | None = None,
    sweep: Sweep | None = None,
    sums: ResampledSums | None = None,
    sum_cutoffs: Sequence[int] | np.ndarray = (),
    measure_sums: ResampledSums | None = None,
    facts: Facts | None = None,
) -> RunSummary:
    """Put a band on every mean of a scored run: at each cutoff ``asked`` (the first is the report's
    K) and over the sweep (every cutoff ``scores`` holds).

    Each metric gets the band its catalogue entry names: Wilson for a 0/1 value per query (Hit@K),
    else a percentile bootstrap over the scored queries in id order (:func:`resample_rows`), one
    resample matrix shared by every metric and cutoff. ``measures`` asked for by name come with their
    ``measure_values`` (measures x queries) and get the same bands (the per-query counts of
    :mod:`ragreport.scoring.measures` their mean and no band); ``readings`` get their means over the
    same scored queries. ``judged`` may hold only the top of each list (a partition's).

    ``fingerprints``: the query and label fingerprints when the caller has them (another run of the
    same label set). ``sweep``: the K sweep as a stored report holds it (``ragreport render``,
    docs/conventions.md section 22.17), kept as given; ``scores`` then need hold only the cutoffs
    ``asked``, whose bands are drawn again.

    ``sums``: the Poisson sums of the scored queries (:func:`~ragreport.analysis.poisson.scored_sums`,
    column ``metric * len(sum_cutoffs) + cutoff``), which the partitioned engines add up
    (docs/conventions.md section 29). Every metric's mean at each of ``sum_cutoffs`` (the sweep)
    and at each cutoff asked is then ``totals / rows``, its band the percentile band of the
    resampled means ``weighted[b] / weights[b]`` (resamples with ``weights[b] = 0`` left out),
    which ``resampled`` holds in the columns of ``scores``; Wilson's band takes the sum of a 0/1
    metric as its successes. ``scores`` need hold only the cutoffs asked; the measures by name get
    their means and the Poisson bootstrap's bands from ``measure_sums`` (the columns of
    :func:`~ragreport.analysis.poisson.measure_rows`, which the partitions add up), else from the
    same sums of their per-query values, keyed by query id with the same seed. ``facts``: the
    run's :class:`Facts` as its partitions added them up; else made here from ``judged``.
    """
    asked = tuple(int(c) for c in asked)
    if not asked or any(c not in scores.cutoffs for c in asked):
        raise ValueError(f"the scores hold no column for every cutoff asked for ({asked})")
    # before the bootstrap: its passes over the slots are let go before the resamples are drawn
    status = query_status(judged, scores, asked[0])
    if facts is None:
        facts = query_facts(judged, scores, asked[0], status)
    if measure_values is None:
        if measures:
            raise ValueError("measures were asked for without their values")
        measure_values = np.zeros((0, judged.n_queries))
    grid = scores.cutoffs if sums is None else np.asarray(sum_cutoffs, dtype=np.int64)
    n_metrics, n_cut = len(scores.metrics), len(grid)
    if sums is not None and (np.any(np.diff(grid) <= 0) or sums.weighted.shape[1] != n_metrics * n_cut):
        raise ValueError(f"the sums' columns are not the metrics at the ascending cutoffs {grid.tolist()}")
    # the scored queries the figures read: a sampled report's rows are its sample (section 29.2)
    n = int(np.count_nonzero(scores.scored)) if sums is None else sums.rows
    by_id = resample_rows(judged.query_ids, scores.scored)
    measured = np.ascontiguousarray(measure_values[:, by_id].T)
    drawn = measure_drawn = None
    if sums is not None and n:  # the Poisson bootstrap's: resample b's means S_b / W_b, W_b > 0
        drawn = sums.resampled_means()
        mean, (low, high) = sums.means(), percentile_band(drawn, conventions.confidence)
    elif n:
        flat = scores.values.transpose(1, 0, 2)[by_id].reshape(len(by_id), n_metrics * n_cut)
        drawn, measure_drawn = shared_bootstrap_means([flat, measured], conventions.resamples, conventions.seed)
        mean, (low, high) = flat.mean(axis=0), percentile_band(drawn, conventions.confidence)
        del flat
    else:
        mean, low, high = (np.full(n_metrics * n_cut, np.nan) for _ in range(3))
    mean, low, high = (a.reshape(n_metrics, n_cut) for a in (mean, low, high))
    for row, metric in enumerate(scores.metrics):
        if metric.interval is IntervalMethod.WILSON:  # a 0/1 value: its successes are its sum
            if sums is None:
                successes = (scores.values[row, scores.scored, :] > 0).sum(axis=0)
            else:
                successes = np.rint(sums.totals[row * n_cut : (row + 1) * n_cut]).astype(np.int64)
            low[row], high[row] = wilson_interval(successes, np.full(n_cut, n), conventions.confidence)
    if sweep is None:
        by_metric = ({m.key: a[i] for i, m in enumerate(scores.metrics)} for a in (mean, low, high))
        sweep = Sweep(grid, *by_metric)
    place = {int(c): i for i, c in enumerate(grid)}
    at_k = {}
    for cutoff in asked:
        c = place[cutoff]
        for i, m in enumerate(scores.metrics):
            at_k[m.label(cutoff)] = Interval(float(mean[i, c]), float(low[i, c]), float(high[i, c]), m.interval)
    if sums is not None and drawn is not None:  # in the columns of ``scores``, as in memory
        drawn = drawn[:, [m * n_cut + place[int(c)] for m in range(n_metrics) for c in scores.cutoffs]]
    if sums is not None and measures and measure_sums is None:
        keys = query_keys(judged.query_ids[by_id], conventions.seed)
        measure_sums = ResampledSums.of(keys, measure_rows(measured.T, measures), conventions.resamples)
    measure_at = _measure_intervals(measures, measured.T, conventions, measure_drawn, measure_sums)

    return RunSummary(
        judged=judged,
        scores=scores,
        k=asked[0],
        cutoffs=asked,
        conventions=conventions,
        counts=Counts(*facts.counts),
        at_k=at_k,
        sweep=sweep,
        status=status,
        facts=facts,
        query_fingerprint=fingerprint(judged_query_ids(judged)) if fingerprints is None else fingerprints[0],
        label_fingerprint=label_fingerprint(judged) if fingerprints is None else fingerprints[1],
        measures=tuple(measures),
        measure_values=measure_values,
        measure_at=measure_at,
        readings=dict(readings or {}),
        reading_at={
            name: {
                m.label(cutoff): float(values[i, scores.scored, c].mean()) if scores.scored.any() else float("nan")
                for c, cutoff in enumerate(asked)
                for i, m in enumerate(READ)
            }
            for name, values in (readings or {}).items()
        },
        resampled=drawn,
        measure_resampled=measure_drawn,
        following=following,
        steps=step_figures(judged, scores.scored, asked[0], conventions),
        sums=sums,
        measure_sums=measure_sums,
    )


def _measure_intervals(
    measures: Sequence[Measure],
    values: np.ndarray,
    conventions: Conventions,
    resampled: np.ndarray | None = None,
    sums: ResampledSums | None = None,
) -> dict[str, Interval]:
    """Bands on named measures (values: measures x scored queries in id order), as for the metrics
    (``resampled``: their resampled means, when drawn with the metrics'; ``sums``: the Poisson sums
    of :func:`~ragreport.analysis.poisson.measure_rows`' columns, from which the partitioned
    engines' means and bands come, as their metrics')."""
    if not measures:
        return {}
    # the scored queries: the sums' (a sampled report's rows are its sample, section 29.2)
    n, m = (values.shape[1] if sums is None else sums.rows), len(measures)
    if sums is not None and sums.rows:
        mean = sums.means()
        low, high = percentile_band(sums.resampled_means(), conventions.confidence)
        successes = np.rint(sums.totals[:m]).astype(np.int64)  # a 0/1 measure's sum (Wilson's band)
    else:
        # A geometric mean (gm_map) is the exp of the mean log, floored at its epsilon: its band is the
        # bootstrap of the mean log, exponentiated (the percentile band follows a monotone map). The
        # resampled means are of the values, not of their logs: the geometric members are resampled
        # again, logged, with the same seed (the same counts, so the same resampled queries).
        def banded(rows: np.ndarray) -> tuple[np.ndarray, ...]:  # queries x columns: mean, low, high
            return bootstrap_interval(rows, conventions.resamples, conventions.seed, conventions.confidence)

        if resampled is not None and n:
            mean, (low, high) = values.mean(axis=1), percentile_band(resampled, conventions.confidence)
        else:
            mean, low, high = banded(values.T)
        logs = measure_rows(values, measures)[:, m:]
        if logs.shape[1]:
            mean, low, high = (np.concatenate([a, b]) for a, b in zip((mean, low, high), banded(logs)))
        successes = (values > 0).sum(axis=1)
    mean, low, high = (np.array(a, dtype=np.float64) for a in (mean, low, high))
    geometric = [i for i, measure in enumerate(measures) if measure.metric.geometric is not None]
    for j, i in enumerate(geometric):  # the mean log's figures, exponentiated
        mean[i], low[i], high[i] = np.exp(mean[m + j]), np.exp(low[m + j]), np.exp(high[m + j])
    out = {}
    for i, measure in enumerate(measures):
        band = float(low[i]), float(high[i])
        if measure.interval is IntervalMethod.WILSON:
            band = wilson_interval(int(successes[i]), n, conventions.confidence)
        elif measure.interval is IntervalMethod.NONE:
            band = float("nan"), float("nan")
        out[measure.label()] = Interval(float(mean[i]), *band, measure.interval)
    return out


class Status(Enum):
    """Where a query stands at the cutoff K, with the sentence a report prints for it and a plain one."""

    FULL = ("full", "Every relevant id is in the top K.", "Everything relevant was found in the top K.")
    PARTIAL = (
        "partial",
        "Some but not all relevant ids are in the top K.",
        "Some of what is relevant was found in the top K, some was not.",
    )
    LATE_HIT = (
        "late hit",
        "No relevant id in the top K, but one further down the list.",
        "Something relevant was retrieved, but below the top K, where a reader would not see it.",
    )
    COMPLETE_MISS = ("complete miss", "No relevant id anywhere in the list.", "Nothing relevant was retrieved at all.")
    EXCLUDED = (
        "excluded",
        "No id judged relevant (or no judgments): left out of every average.",
        "Nobody marked any answer relevant for this query, so it is not counted.",
    )
    NO_RELEVANT = (
        "no relevant id",
        "No id judged relevant: averaged in as 0 (--no-relevant zero).",
        "Nobody marked any answer relevant for this query; it counts as a 0.",
    )
    MISSING = (
        "missing from run",
        "Judged, but the run has no entry for it.",
        "The query has answers marked relevant, but the run returned nothing for it.",
    )

    def __init__(self, label: str, meaning: str, plain: str):
        self.label = label
        self.meaning = meaning
        #: The same in words a stakeholder reads (the glossary, a tooltip).
        self.plain = plain
