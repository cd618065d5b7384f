"""Scoring a run by partitions of its queries: in this process one after another (bounded memory),
or on a Dask cluster.

Scoring is per query, so a run splits into partitions of whole queries that are scored apart.
:func:`score_partition` is the per-query kernel: one partition's run rows and their judgments in,
its per-query scores and the top of every list out. What a partition sends back is cut to the
depth the report reads (the largest cutoff of the sweep and of the named measures), with each
list's whole-list facts kept (length, repeats, relevant retrieved, first relevant rank): that is
all the bands, the tables and the pages need. :func:`judged_by_partitions` puts the partitions
back together in file order, so every figure equals the one-process figure exactly.

A TREC run file is split by byte ranges that end where one query's lines end, so it must list
each query's lines together (as run files do); a query found in two partitions is an error.
A folder of TREC or Parquet files (one partition per file, as a cluster job writes them) is read
the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import pickle
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import Argument, ArgumentError, InputError, RagreportError, UsageError
from ..core.ids import FORBIDDEN_ID_CHARACTERS, as_bytes, as_text, common_kind
from ..core.model import Conventions, Judgments, Order, Run, RunMeta
from ..reading.delimited import DOC_COLUMNS, QUERY_COLUMNS
from ..reading.files import data_lines, decode_text, read_text, refuse_special, stem
from ..reading.gate import problem
from ..reading.meta import run_name
from ..reading.rows import run_from_columns
from ..reading.trec import parse_run, read_qrels_bytes, read_run_bytes
from .condensed import Following, following
from .join import JudgedRun, join
from .measures import Measure, score_measures
from .metrics import QueryScores, score
from .readings import condense, own_readings, rank_counts
from .scorable import Meeting

#: Bytes of run file per partition by default.
PARTITION_BYTES = 64 << 20
#: Bytes of TREC qrels per span of a :class:`JudgmentIndex`; qrels under twice this are read whole.
QRELS_SPAN_BYTES = 16 << 20

ENGINES = ("memory", "stream", "dask")


def check_engine(engine: str, allowed: Sequence[str] = ENGINES) -> None:
    """``--engine`` names one of :data:`ENGINES` (one of ``allowed`` where only some apply)."""
    if engine not in allowed:
        raise ArgumentError(Argument("engine"), f" must be one of {', '.join(ENGINES)}, got {engine!r}")


@dataclass(frozen=True)
class PartitionScores:
    """What one partition gives back: its lists cut to ``depth`` (whole-list facts kept), and
    every metric at every cutoff and every named measure, per query."""

    judged: JudgedRun
    scores: QueryScores
    measure_values: np.ndarray  # measures x queries
    condensed: JudgedRun | None = None  # the lists without their unjudged ids, cut to the same depth
    sums: Any = None  # what :data:`Summed` made of the partition's scores, when one was given
    buckets: Any = None  # what :data:`Bucketed` made of them, until the driver spills it
    #: With :data:`Bucketed`: the readings a query's own list gives at the cutoffs given back
    #: (:func:`~ragreport.scoring.readings.own_readings`), and the judged and relevant ids at each
    #: rank to the deepest (:func:`~ragreport.scoring.readings.rank_counts`), which add up over
    #: the partitions into the rates of the third reading; None without.
    readings: dict[str, np.ndarray] | None = None
    ranks: np.ndarray | None = None

    def rows(self, take: np.ndarray) -> PartitionScores:
        """The queries at rows ``take`` alone (their condensed lists dropped), sums and counts as they are."""
        return replace(
            self,
            judged=self.judged.rows(take),
            scores=self.scores.rows(take),
            measure_values=self.measure_values[:, take],
            condensed=None,
            readings=None if self.readings is None else {k: v[:, take] for k, v in self.readings.items()},
        )


#: What each partition adds up for the partitioned bootstrap (issue 42): a picklable callable from
#: the partition's joined run, scores and measures' values to sums that add with ``+`` over disjoint queries
#: (:func:`ragreport.analysis.poisson.scored_sums`, handed in as the qrels reader is: scoring
#: does not import analysis).
Summed = Callable[[JudgedRun, QueryScores, np.ndarray], Any]

#: What each partition writes for the comparison (issue 42): a picklable callable from the
#: partition's joined run, its scores at the cutoffs given back, its measures' values and its own
#: readings (or None) to its scored queries' rows by bucket of the hashed query key
#: (:func:`ragreport.analysis.paired.bucket_rows`), which the driver hands to ``spill``.
Bucketed = Callable[[JudgedRun, QueryScores, np.ndarray, "dict[str, np.ndarray] | None"], Any]


def depth_needed(cutoffs: Iterable[int], measures: Sequence[Measure] = ()) -> int | None:
    """How deep a report reads the lists: the largest cutoff, or None (all of it) when a named
    measure reads a whole list or down to R (``map``, ``Rprec``)."""
    # A count reads only whole-list facts, which a head keeps; any other measure without a cutoff
    # (map, ndcg, Rprec) reads the list itself, down to its end or to R.
    if any(m.cutoff is None and not m.is_count for m in measures):
        return None
    return max([*cutoffs, *(m.cutoff for m in measures if m.cutoff is not None)])


def score_partition(
    run: Run,
    judgments: Judgments,
    *,
    cutoffs: Sequence[int] | np.ndarray,
    conventions: Conventions,
    measures: Sequence[Measure] = (),
    top_grade: int | None = None,
    summed: Summed | None = None,
    returned: Sequence[int] = (),
    bucketed: Bucketed | None = None,
) -> PartitionScores:
    """The per-query kernel: score one partition of queries.

    ``run`` holds the partition's ranked lists and ``judgments`` the judgments of (at least) its
    queries; judged queries the run lacks are scored as such, so give a partition only the
    judgments of its own queries (:func:`judgments_for`) and the rest to one partition of their own,
    and ``top_grade``, the highest grade of the whole judgments (ERR's g_max). ``summed`` adds the
    partition's sums (:data:`Summed`) to what it gives back; with ``returned``, the per-query
    scores given back are those at these cutoffs alone (the sums hold every cutoff's figures);
    ``bucketed`` adds the partition's rows by bucket (:data:`Bucketed`) of the scores given back,
    with the readings of unjudged ids a query's own list gives at those cutoffs and the counts
    by rank the third reading's rates add up from.
    """
    judged = join(run, judgments, conventions.relevance_level)
    scores = score(judged, cutoffs, conventions)
    values = score_measures(judged, measures, conventions, top_grade=top_grade)
    depth = depth_needed(cutoffs, measures)
    condensed = condense(judged, depth)
    sums = None if summed is None else summed(judged, scores, values)
    if returned:
        scores = scores.at_cutoffs(returned)
    own = ranks = buckets = None
    if bucketed is not None:
        # Scored even where this partition's labels are of relevant ids alone: the whole run's
        # may not be (the driver drops them when they are, as one process never scores them).
        at = scores.cutoffs.tolist()
        own = own_readings(judged, at, conventions, condensed=condensed)
        ranks = rank_counts(judged, max(at))
        buckets = bucketed(judged, scores, values, own)
    return PartitionScores(judged.head(depth), scores, values, condensed, sums, buckets, own, ranks)


#: A query's rows as :class:`HeldPartitions` keeps them: the judged run cut to the depth the report
#: reads, its scores at the cutoffs asked for, its measures' values, the readings of unjudged ids its
#: own list gives (None: none scored) and the judged ids past its head (:func:`following`).
Rows = tuple[JudgedRun, QueryScores, np.ndarray, "dict[str, np.ndarray] | None", Following]


class HeldPartitions:
    """A run's partitions as they come back from scoring, in file order: each one's rows
    (:data:`Rows`), and every query's id. Past ``spill_from`` queries they are written to a
    temporary folder, so that memory holds the ids alone, and :meth:`rows` reads back those of the
    queries asked for (a build past ``PAGE_QUERIES`` keeps its sample's, docs/conventions.md
    section 29.3); None: always held in memory. The folder goes when the object is collected,
    at exit too. :attr:`meeting` adds up what :func:`~ragreport.scoring.scorable.check_scorable`
    reads of every partition."""

    def __init__(self, depth: int | None, asked: int, spill_from: int | None = None) -> None:
        self.depth, self.asked, self.spill_from = depth, asked, spill_from
        self._ids: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # by place: ids, scored, judged
        self._held: dict[int, Rows | Path] = {}
        self.meeting: Meeting | None = None
        self.path: Path | None = None
        self.longest = 0  # the longest list, whole: where the default sweep ends

    @property
    def query_ids(self) -> list[np.ndarray]:
        """Each partition's query ids (UTF-8 bytes: a quarter of text's memory), in file order."""
        return [self._ids[i][0] for i in sorted(self._ids)]

    @property
    def spilled(self) -> bool:
        """Whether the rows were written to disk (the run passed ``spill_from`` queries)."""
        return self.path is not None

    @property
    def relevant_only(self) -> bool:
        """:attr:`~ragreport.scoring.join.JudgedRun.relevant_only` of the whole run."""
        assert self.meeting is not None
        return self.meeting.labels > 0 and not self.meeting.below

    def scored_ids(self) -> np.ndarray:
        """The ids of the queries scored, sorted (UTF-8 bytes)."""
        return self._ids_where(1)

    def judged_ids(self) -> np.ndarray:
        """The ids of the queries with judgments, sorted (UTF-8 bytes)."""
        return self._ids_where(2)

    def _ids_where(self, flag: int) -> np.ndarray:
        return np.sort(np.concatenate([kept[0][kept[flag]] for kept in self._ids.values()]))

    def add(self, place: int, part: PartitionScores) -> PartitionScores:
        """Hold ``part``'s rows, the ``place``-th partition of the file (they may come back in any
        order); give it back without a query (its sums and counts by rank kept)."""
        after = following(part.judged, self.asked, part.condensed)
        meeting = Meeting.of(part.judged, after)
        self.meeting = meeting if self.meeting is None else self.meeting + meeting
        # a copy of the head: the cached per-slot arrays the scoring made are not kept
        head = dataclasses.replace(part.judged.head(self.depth))
        rows = (head, part.scores, part.measure_values, part.readings, after)
        self._ids[place] = (as_bytes(part.judged.query_ids), part.scores.scored, part.judged.has_judgments)
        self.longest = max(self.longest, int(part.judged.retrieved.max(initial=0)))
        self._held[place] = rows
        if self.spill_from is not None and sum(len(ids) for ids, _, _ in self._ids.values()) > self.spill_from:
            self._held = {i: self._spilled(i, one) for i, one in self._held.items()}
        return part.rows(np.zeros(0, dtype=np.int64))

    def _spilled(self, index: int, rows: Rows | Path) -> Path:
        if isinstance(rows, Path):
            return rows
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix="ragreport-rows-"))
            weakref.finalize(self, shutil.rmtree, self.path, ignore_errors=True)
        file = self.path / f"{index}.pickle"
        with file.open("wb") as handle:
            pickle.dump(rows, handle, protocol=pickle.HIGHEST_PROTOCOL)
        return file

    def _read(self, place: int) -> Rows:
        held = self._held[place]
        if not isinstance(held, Path):
            return held
        with held.open("rb") as handle:
            return pickle.load(handle)

    def rows(self, wanted: np.ndarray | None = None) -> Rows:
        """The rows of the queries ``wanted`` (ids) in file order; every query's when None."""
        if wanted is not None:
            wanted = np.unique(as_bytes(wanted))
        parts: list[Rows] = []
        places = sorted(self._ids)
        for i in places:
            ids = self._ids[i][0]
            take = None if wanted is None else np.flatnonzero(np.isin(ids, wanted))
            # a partition none of whose queries is wanted is not read (the last is, if none was)
            if take is not None and not len(take) and (parts or i != places[-1]):
                continue
            judged, scores, values, readings, after = self._read(i)
            if take is not None:
                judged, scores, values, after = judged.rows(take), scores.rows(take), values[:, take], after.rows(take)
                readings = None if readings is None else {k: v[:, take] for k, v in readings.items()}
            parts.append((judged, scores, values, readings, after))
        read = [p[3] for p in parts if p[3] is not None]
        if read and len(read) != len(parts):
            raise RuntimeError("some partitions gave back readings and some did not")
        return (
            JudgedRun.concat([p[0] for p in parts]),
            QueryScores.concat([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts], axis=1),
            {k: np.concatenate([r[k] for r in read], axis=1) for k in read[0]} if read else None,
            Following.concat([p[4] for p in parts]),
        )

    def examples(self) -> JudgedRun:
        """The first partition holding a list and the last one, together: where a refusal of the
        whole run (:attr:`meeting`) finds the ids it names (the last holds the judged queries no list
        has); read only then."""
        places = sorted(self._held)
        first = next((i for i in places if len(self._read(i)[0].doc_ids)), places[0])
        return JudgedRun.concat([self._read(i)[0] for i in sorted({first, places[-1]})])


def judgments_for(judgments: Judgments, query_ids: Iterable[str], keep: bool = True) -> Judgments:
    """The judgments of ``query_ids`` (of every other query when ``keep`` is False), in file order."""
    given = query_ids if isinstance(query_ids, np.ndarray) and query_ids.dtype.kind == "U" else None
    if given is None:
        given = np.asarray(list(query_ids), dtype=str)
    wanted = np.isin(judgments.query_ids, given, invert=not keep)
    lengths = np.diff(judgments.offsets)
    rows = np.repeat(wanted, lengths)
    return Judgments(
        query_ids=judgments.query_ids[wanted],
        offsets=np.concatenate([[0], np.cumsum(lengths[wanted])]).astype(np.int64),
        doc_ids=judgments.doc_ids[rows],
        grades=judgments.grades[rows],
        source=judgments.source,
    )


def query_spans(path: Path, target_bytes: int = PARTITION_BYTES) -> list[tuple[int, int]]:
    """Byte ranges of about ``target_bytes`` covering ``path``, each ending where a query's lines end."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        if handle.read(2) == b"\x1f\x8b":
            raise UsageError(
                f"{path}: a gzip run cannot be split into partitions; unpack it, or give a folder of partition files"
            )
        cuts = [0]
        while cuts[-1] + target_bytes < size:
            cut = _next_query_start(handle, cuts[-1] + target_bytes, size)
            if cut >= size:
                break
            cuts.append(cut)
    cuts.append(size)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def _next_query_start(handle, offset: int, size: int) -> int:
    """The first line start at or after ``offset`` whose query id differs from the line before."""
    handle.seek(max(offset - 1, 0))
    handle.readline()  # to the end of the line `offset` falls in
    previous_query = None
    while True:
        start = handle.tell()
        line = handle.readline()
        if not line:
            return size
        fields = line.split(None, 1)
        if not fields or fields[0].startswith(b"#"):
            continue
        if previous_query is None:
            previous_query = _query_before(handle, start)
        if fields[0] != previous_query:
            return start
        previous_query = fields[0]


def _query_before(handle, start: int) -> bytes | None:
    """The query id of the last data line before byte ``start``."""
    back = max(0, start - 65536)
    here = handle.tell()
    handle.seek(back)
    lines = handle.read(start - back).splitlines()
    handle.seek(here)
    if back == 0 and lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]  # the file's byte-order mark is no part of its first query id
    for line in reversed(lines):
        fields = line.split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            return fields[0]
    return None


class JudgmentIndex:
    """Strict TREC qrels read by spans of about :data:`QRELS_SPAN_BYTES` that end where a query's
    lines end, every query id kept (``ids``: sorted, as UTF-8 bytes) with the span holding it
    (``span_of``), never the judgments: the judgments of some queries are read from the spans that
    hold them, one span at a time, so that memory holds a partition's judgments and the ids, not the
    whole label set (ten million queries' judgments are about 5 GB). The same judgments, in file
    order, as the file read whole (:func:`~ragreport.reading.trec.read_qrels_bytes`)."""

    def __init__(self, path: Path, spans: list[tuple[int, int]], ids: np.ndarray, span_of: np.ndarray, top: int):
        self.path, self.spans, self.ids, self.span_of, self.top_grade = path, spans, ids, span_of, top
        self._last: tuple[int, Judgments] | None = None  # the span read last: a partition's next often starts in it

    @classmethod
    def of(cls, path: Path) -> JudgmentIndex | None:
        """The index of the qrels at ``path``; None when they are read whole instead: under twice
        :data:`QRELS_SPAN_BYTES`, gzipped, not strict TREC qrels, or a query's lines in two spans."""
        span_bytes = QRELS_SPAN_BYTES
        if not path.is_file() or path.stat().st_size < 2 * span_bytes:
            return None
        try:
            spans = query_spans(path, span_bytes)
        except UsageError:  # gzip
            return None
        ids, top = [], 1
        for span in spans:
            judgments = read_qrels_bytes(path, span)
            if judgments is None:
                return None
            ids.append(as_bytes(judgments.query_ids))
            top = max(top, int(judgments.grades.max(initial=1)))
        every = np.concatenate(ids)
        order = np.argsort(every, kind="stable")
        every = every[order]
        if (every[1:] == every[:-1]).any():  # a query in two spans: its lines are in two places
            return None
        span_of = np.repeat(np.arange(len(spans), dtype=np.int32), [len(i) for i in ids])[order]
        return cls(path, spans, every, span_of, top)

    def _read(self, i: int) -> Judgments:
        last = self._last  # read once: a Dask worker's threads share the index
        if last is None or last[0] != i:
            judgments = read_qrels_bytes(self.path, self.spans[i])
            assert judgments is not None  # read so when indexed
            last = self._last = (i, judgments)
        return last[1]

    def judgments(self, query_ids: np.ndarray, keep: bool = True) -> Judgments:
        """The judgments of ``query_ids`` (text or UTF-8 bytes; of every other query when ``keep``
        is False), in file order."""
        wanted = np.unique(as_bytes(query_ids))
        at = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        at = at[self.ids[at] == wanted]  # the wanted ids the qrels hold, by their place in ``ids``
        held, sizes = (np.bincount(self.span_of[a], minlength=len(self.spans)) for a in (at, slice(None)))
        spans = np.flatnonzero(held > 0) if keep else np.flatnonzero(held < sizes)
        # each span's own wanted ids, as text: a few, where every wanted id would be millions
        by_span = at[np.argsort(self.span_of[at], kind="stable")]
        starts = np.searchsorted(self.span_of[by_span], np.arange(len(self.spans) + 1))
        parts = [
            judgments_for(
                self._read(int(i)), np.array(as_text(self.ids[by_span[starts[i] : starts[i + 1]]]), dtype=str), keep
            )
            for i in spans
        ]
        return concat_judgments(parts, str(self.path))

    def each(self) -> Iterator[Judgments]:
        """Every span's judgments, in file order."""
        for i in range(len(self.spans)):
            yield self._read(i)


def concat_judgments(parts: Sequence[Judgments], source: str) -> Judgments:
    """Judgments of disjoint queries put back together, in the order given."""
    if not parts:
        return Judgments(
            np.zeros(0, dtype=str),
            np.zeros(1, dtype=np.int64),
            np.zeros(0, dtype="S1"),
            np.zeros(0, dtype=np.int64),
            source,
        )
    ends = np.cumsum([0] + [len(p.doc_ids) for p in parts[:-1]])
    return Judgments(
        query_ids=np.concatenate([p.query_ids for p in parts]),
        offsets=np.concatenate([[0]] + [p.offsets[1:] + e for p, e in zip(parts, ends)]).astype(np.int64),
        doc_ids=np.concatenate(common_kind(*[p.doc_ids for p in parts])),
        grades=np.concatenate([p.grades for p in parts]),
        source=source,
    )


@functools.lru_cache(maxsize=4)
def _index_once(path: str, stamp: tuple[int, int], span_bytes: int) -> JudgmentIndex | None:
    return JudgmentIndex.of(Path(path))


def cached_index(path: str) -> JudgmentIndex | None:
    """The :class:`JudgmentIndex` of the qrels at ``path``, made once per process (a Dask worker
    scores many partitions); None for qrels read whole (``irds:``, small, not strict TREC)."""
    if path.startswith("irds:") or not Path(path).is_file():
        return None
    stat = Path(path).stat()
    return _index_once(path, (stat.st_mtime_ns, stat.st_size), QRELS_SPAN_BYTES)


#: Reads a qrels file in whatever format it is in (the reading stage's ``load_qrels``): handed in by
#: the caller, so that this engine needs only the TREC run readers, not every format's.
QrelsReader = Callable[[str], Judgments]


@functools.lru_cache(maxsize=4)
def _read_once(path: str, stamp: tuple[int, int], read_qrels: QrelsReader) -> Judgments:
    return read_qrels(path)


def cached_qrels(path: str, read_qrels: QrelsReader) -> Judgments:
    """The judgments at ``path``, read once per process (a Dask worker scores many partitions); a
    dataset by id (``irds:``) is kept by ir_datasets' cache, a file read again once it changes."""
    stat = None if path.startswith("irds:") else Path(path).stat()
    return _read_once(path, (stat.st_mtime_ns, stat.st_size) if stat else (0, 0), read_qrels)


def _line_of(path: Path, offset: int) -> int:
    """How many lines precede byte ``offset`` (to turn a partition's line number into the file's)."""
    count = 0
    with path.open("rb") as handle:
        while offset > 0:
            block = handle.read(min(1 << 24, offset))
            if not block:
                break
            count += block.count(b"\n")
            offset -= len(block)
    return count


def read_parquet_partition(path: str | Path, order: Order) -> Run:
    """One Parquet file of a partitioned run: a query column, a document column and a score (or
    rank) column, named as in a CSV run's header (``qid``/``query_id``, ``docid``/``doc_id``, ...)."""
    path = Path(path)
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise UsageError(f"{path}: reading Parquet needs pyarrow: pip install 'ragreport[dask]'") from None
    try:
        table = parquet.read_table(path)
    except Exception as exc:  # pyarrow raises its own error types for a file that is not Parquet
        raise InputError(path, None, "a Parquet file", str(exc).splitlines()[0]) from None
    names = {name.lower(): name for name in table.column_names}

    def column(candidates: Sequence[str], what: str):
        found = next((names[c] for c in candidates if c in names), None)
        if found is None and what:
            raise InputError(path, None, f"a {what} column ({', '.join(candidates)})", f"columns {', '.join(names)}")
        return found

    query_name, doc_name = column(QUERY_COLUMNS, "query id"), column(DOC_COLUMNS, "document id")
    score_name = column(("score",), "") or column(("rank",), "score or rank")
    queries = _parquet_ids(path, table, query_name, "a query id")
    docs = _parquet_ids(path, table, doc_name, "a document id")
    scores = _parquet_numbers(path, table, score_name)
    if score_name.lower() == "rank":
        scores = -scores  # rank 1 first
    return run_from_columns(stem(path), queries, docs, scores, order, source=str(path))


def _refuse_null(path: Path, data, expected: str) -> None:
    """An error naming the first null's row, ``FILE:ROW`` (rows counted from 1 as lines are)."""
    if data.null_count:
        import pyarrow.compute as pc

        raise InputError(path, int(pc.index(pc.is_null(data), True).as_py()) + 1, expected, "a null")


def _parquet_ids(path: Path, table, name: str, what: str) -> np.ndarray:
    """Column ``name`` as ids (docs/conventions.md section 17): text or integers, no null, no
    empty id, no control or bidi character; checked on the Arrow column, before numpy (whose
    string arrays drop a trailing NUL): the gate's character set (reading/gate.py), vectorised by
    Arrow. The gate itself then checks the ids again in :func:`run_from_columns`, lengths too."""
    import pyarrow as pa
    import pyarrow.compute as pc

    data = table.column(name)
    _refuse_null(path, data, f"{what} in column {name!r}")
    kind = data.type
    if pa.types.is_dictionary(kind):
        data, kind = data.cast(kind.value_type), kind.value_type
    if pa.types.is_integer(kind):
        return np.asarray(data.to_numpy(zero_copy_only=False)).astype(str)
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise InputError(path, None, f"{what} column {name!r} of text or integers", f"a column of {kind}")
    empty = pc.equal(pc.utf8_length(data), 0)
    bad = pc.or_(empty, pc.match_substring_regex(data, f"[{FORBIDDEN_ID_CHARACTERS}]"))
    if pc.any(bad).as_py():
        row = int(pc.index(bad, True).as_py())
        text = data[row].as_py()
        if not text:
            raise InputError(path, row + 1, f"{what} in column {name!r} as a non-empty string", "an empty string")
        found = problem(text, what)  # the gate's rule and words (reading/gate.py)
        assert found is not None
        raise InputError(path, row + 1, *found)
    return np.asarray(data.to_numpy(zero_copy_only=False), dtype=str)


def _parquet_numbers(path: Path, table, name: str) -> np.ndarray:
    """Column ``name`` as finite numbers: an integer or floating-point column, no null, no NaN or
    infinity (a column of text is refused, not parsed)."""
    import pyarrow as pa

    data = table.column(name)
    kind = data.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        raise InputError(path, None, f"a numeric {name!r} column", f"a column of {kind}")
    _refuse_null(path, data, f"a finite number in column {name!r}")
    values = np.asarray(data.to_numpy(zero_copy_only=False), dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise InputError(path, row + 1, f"a finite number in column {name!r}", str(data[row].as_py()))
    return values


def read_partition(path: str | Path, span: tuple[int, int] | None, order: Order) -> Run:
    """One partition: bytes ``span`` of a TREC run (the whole file when None), or a Parquet file."""
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        return read_parquet_partition(path, order)
    if not path.is_file():
        raise InputError(path, None, "a readable file", "no such file")
    run = read_run_bytes(path, order, span=span)
    if run is not None:
        return run
    try:
        if span is None:
            text = read_text(path)  # gunzipped, byte-order mark dropped, UTF-8 and line ends checked
        else:
            with path.open("rb") as handle:
                handle.seek(span[0])
                text = decode_text(path, handle.read(span[1] - span[0]), at_start=span[0] == 0)
        if next(data_lines(text), None) is None:  # only comments or blank lines: no query here
            return Run.empty(stem(path), str(path))
        return parse_run(path, text, order)
    except InputError as exc:
        if span is None or exc.line is None:
            raise
        # Line numbers counted from the file's start only when an error needs one.
        raise InputError(path, exc.line + _line_of(path, span[0]), exc.expected, exc.got) from None


def score_span(
    path: str,
    span: tuple[int, int] | None,
    qrels: str,
    read_qrels: QrelsReader,
    order: Order,
    cutoffs: tuple[int, ...],
    conventions: Conventions,
    measures: tuple[Measure, ...],
    summed: Summed | None = None,
    returned: tuple[int, ...] = (),
    bucketed: Bucketed | None = None,
) -> PartitionScores:
    """Read, join and score one partition where it runs (a Dask worker reads the files itself)."""
    run = read_partition(path, span, order)
    index = cached_index(qrels)
    if index is not None:  # the judgments of the partition's queries alone, from the spans holding them
        own, top = index.judgments(np.asarray(run.query_ids, dtype=str)), index.top_grade
    else:
        judgments = cached_qrels(qrels, read_qrels)
        own, top = judgments_for(judgments, run.query_ids.tolist()), int(judgments.grades.max(initial=1))
    return score_partition(
        run,
        own,
        cutoffs=cutoffs,
        conventions=conventions,
        measures=measures,
        top_grade=top,
        summed=summed,
        returned=returned,
        bucketed=bucketed,
    )


def partitions_of(path: str | Path, target_bytes: int = PARTITION_BYTES) -> list[tuple[str, tuple[int, int] | None]]:
    """(file, byte range) of every partition: byte ranges of one run file, or the files of a folder."""
    path = Path(path)
    if path.is_dir():
        # Skipped: hidden files, a cluster job's markers (_SUCCESS, _metadata), run metadata
        # (*.meta.toml, *.meta.json) and empty files. Paths are absolute: workers have their own
        # working folders.
        files = sorted(
            p.resolve()
            for p in path.iterdir()
            if p.is_file()
            and not p.name.startswith((".", "_"))
            and not p.name.endswith((".meta.toml", ".meta.json"))
            and p.stat().st_size > 0
        )
        if not files:
            raise UsageError(
                f"{path}: no partition file in this folder; give a run file or a folder of partition files"
            )
        return [(str(f), None) for f in files]
    if not path.exists():
        raise InputError(path, None, "a readable file", "no such file")
    refuse_special(path)
    return [(str(path.resolve()), span) for span in query_spans(path, target_bytes)]


def judged_by_partitions(
    path: str | Path,
    qrels: str | Path,
    *,
    read_qrels: QrelsReader,
    cutoffs: Sequence[int] | np.ndarray,
    conventions: Conventions,
    measures: Sequence[Measure] = (),
    engine: str = "stream",
    scheduler: str | None = None,
    partition_bytes: int = PARTITION_BYTES,
    meta: RunMeta | None = None,
    progress: Callable[[str], None] = lambda stage: None,
    summed: Summed | None = None,
    returned: Sequence[int] = (),
    bucketed: Bucketed | None = None,
    spill: Callable[[Any], None] = lambda buckets: None,
    hold: HeldPartitions | None = None,
) -> PartitionScores:
    """The run at ``path`` scored partition by partition (``stream``: here, one after another, so
    memory holds one partition at a time; ``dask``: on the cluster at ``scheduler``, or on a local
    cluster of processes when None), put back together in file order: the lists cut to the depth
    the report reads, and every query's scores. ``read_qrels`` reads the judgments at ``qrels``
    (where the partitions are scored: a Dask worker reads them itself). With ``summed``, each
    partition's sums (:data:`Summed`) are added up, in partition order, into the result's ``sums``;
    with ``returned``, the per-query scores are gathered at these cutoffs alone. With ``bucketed``,
    each partition's rows by bucket (:data:`Bucketed`) go to ``spill`` as the partition comes back,
    never kept. With ``hold``, each partition's rows go to it as it comes back, and the result holds
    no query: its sums and counts by rank alone."""
    check_engine(engine, allowed=("stream", "dask"))  # memory reads a run whole, not by partitions
    qrels = str(Path(qrels).resolve())
    parts = partitions_of(path, partition_bytes)
    returned = tuple(int(c) for c in returned)
    args = (
        qrels,
        read_qrels,
        conventions.order,
        tuple(map(int, cutoffs)),
        conventions,
        tuple(measures),
        summed,
        returned,
        bucketed,
    )

    def spilled(place: int, result: PartitionScores) -> PartitionScores:
        if result.buckets is not None:
            spill(result.buckets)
            result = replace(result, buckets=None)
        return result if hold is None else hold.add(place, result)

    if engine == "dask":
        results = _on_dask(parts, args, scheduler, spilled)
    else:
        results = []
        for i, (file, span) in enumerate(parts):
            progress(f"reading and scoring partition {i + 1} of {len(parts)}")
            results.append(spilled(i, score_span(file, span, *args)))

    ids = hold.query_ids if hold is not None else [as_bytes(r.judged.query_ids) for r in results]
    query_ids = np.concatenate(ids) if ids else np.zeros(0, dtype="S1")
    distinct, counts = np.unique(query_ids, return_counts=True)
    if (counts > 1).any():
        twice = as_text(distinct[counts > 1][:1])[0]
        raise ArgumentError(
            f"{path}: query {twice!r} has lines in two partitions; ",
            Argument("engine", engine),
            " needs each query's lines together in one file (sort the run by query)",
        )
    index = cached_index(qrels)
    if index is not None:
        rest, top = index.judgments(distinct, keep=False), index.top_grade  # distinct: unique already
    else:
        judgments = cached_qrels(qrels, read_qrels)
        text = np.array(as_text(distinct), dtype=str)  # qrels read whole: under 32 MB of them, or not TREC
        rest, top = judgments_for(judgments, text, keep=False), int(judgments.grades.max(initial=1))
    if len(rest.query_ids):  # judged queries no partition has: one partition of their own
        results.append(
            score_partition(
                Run.empty(),
                rest,
                cutoffs=cutoffs,
                conventions=conventions,
                measures=measures,
                top_grade=top,
                summed=summed,
                returned=returned,
                bucketed=bucketed,
            )
        )
        results[-1] = spilled(len(parts), results[-1])

    def whole(runs: list[JudgedRun]) -> JudgedRun:
        return replace(JudgedRun.concat(runs), name=run_name(meta, path), meta=meta or RunMeta(), source=str(path))

    condensed = [r.condensed for r in results if r.condensed is not None]
    read = [r.readings for r in results if r.readings is not None]
    if read and len(read) != len(results):
        raise RuntimeError("some partitions gave back readings and some did not")
    return PartitionScores(
        whole([r.judged for r in results]),
        QueryScores.concat([r.scores for r in results]),
        np.concatenate([r.measure_values for r in results], axis=1),
        whole(condensed) if len(condensed) == len(results) else None,
        None if summed is None else sum(r.sums for r in results),
        readings={k: np.concatenate([r[k] for r in read], axis=1) for k in read[0]} if read else None,
        ranks=np.sum([r.ranks for r in results if r.ranks is not None], axis=0) if read else None,
    )


def _on_dask(
    parts, args, scheduler: str | None, each: Callable[[int, PartitionScores], PartitionScores]
) -> list[PartitionScores]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ArgumentError(Argument("engine", "dask"), " needs Dask: pip install 'ragreport[dask]'") from None
    try:
        if scheduler is not None:
            with Client(scheduler, timeout=30) as client:
                return _gather(client, parts, args, each)
        # A free port for the cluster's HTTP endpoints (never 8787's "in use" warning), and its
        # workers' logs kept quiet: an input error is reported once, as one line, by the client.
        with (
            LocalCluster(
                n_workers=max(1, os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
            ) as cluster,
            Client(cluster) as client,
        ):
            return _gather(client, parts, args, each)
    except RagreportError:
        raise
    except (OSError, ValueError, TimeoutError) as exc:
        where = f"the Dask scheduler at {scheduler!r}" if scheduler else "a local Dask cluster"
        raise ArgumentError(
            Argument("engine", "dask"),
            f": {where} could not score the partitions: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
        ) from None


def _gather(client, parts, args, each: Callable[[int, PartitionScores], PartitionScores]) -> list[PartitionScores]:
    """The partitions' results in order, ``each`` applied to every one (with its place) as it
    arrives (the driver spills its buckets then: it never holds every partition's at once)."""
    from dask.distributed import as_completed

    futures = [client.submit(score_span, file, span, *args, pure=False) for file, span in parts]
    place = {future.key: i for i, future in enumerate(futures)}
    results: list[PartitionScores | None] = [None] * len(futures)
    for future in as_completed(futures):
        results[place[future.key]] = each(place[future.key], future.result())
        future.release()
    return results  # type: ignore[return-value]
