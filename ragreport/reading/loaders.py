"""Read runs, judgments and run metadata into :mod:`ragreport.core.model` objects.

Formats (each may be gzip-compressed; detected from the extension and the content):

- RAG JSONL: one query per line, ``{"id": "q01", "retrieved": [...], "relevant": [...] | {...}}``.
- TREC run (``qid Q0 docid rank score tag``) with TREC qrels (``qid iter docid grade``).
- JSON dicts as pytrec_eval and ranx use them: run ``{qid: {docid: score}}``, qrels
  ``{qid: {docid: grade}}``.
- CSV/TSV runs (``qid,docid,score`` or with ``rank``, header optional); BEIR TSV qrels.
- RAGAS rows in JSONL: ``retrieved_context_ids``, ``reference_context_ids``, ``user_input``.

Every problem is an :class:`~ragreport.core.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..core.errors import InputError, UsageError, shorten
from ..core.ids import first_appearance, has_duplicates, hash_ids
from .ordering import order_in_place
from . import trecbytes
from ..core.model import Judgments, LabelSource, Order, RetrieverKind, Run, RunMeta


FORMATS = ("jsonl", "trec", "json", "csv")
_ID_KEYS = ("id", "query_id", "qid")
# RAGAS's dataset columns for ID-based context precision and recall.
_RAGAS_RETRIEVED, _RAGAS_REFERENCE, _RAGAS_QUERY = "retrieved_context_ids", "reference_context_ids", "user_input"
# Header names of delimited runs and qrels (BEIR, ranx data frames, ir_datasets TSV exports).
_QUERY_COLUMNS = ("qid", "query_id", "query-id", "q_id", "query")
_DOC_COLUMNS = ("docid", "doc_id", "corpus-id", "corpus_id", "pid", "passage_id", "doc_no", "docno")


# ---------------------------------------------------------------------------------------------
# Text and format detection


def _raw_bytes(path: Path, limit: int | None = None) -> bytes:
    """The file's bytes (the first ``limit`` when given), gunzipped when it starts with gzip's magic."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(2)
            handle.seek(0)
            if magic == b"\x1f\x8b":
                with gzip.open(handle) as unzipped:
                    return unzipped.read() if limit is None else unzipped.read(limit)
            if path.name.endswith(".gz"):
                raise InputError(path, None, "gzip data (the name ends in .gz)", "a file without gzip's header")
            return handle.read() if limit is None else handle.read(limit)
    except FileNotFoundError:
        raise InputError(path, None, "a readable file", "no such file") from None
    except IsADirectoryError:
        raise InputError(path, None, "a file (a folder of partition files needs --engine stream or dask)",
                         "a directory") from None
    except (EOFError, gzip.BadGzipFile) as exc:
        raise InputError(path, None, "a complete gzip file", str(exc)) from None
    except OSError as exc:
        raise InputError(path, None, "a readable file", exc.strerror or str(exc)) from None


def read_text(path: str | Path) -> str:
    """The file's text, gunzipped when it starts with gzip's magic bytes, decoded as UTF-8."""
    path = Path(path)
    raw = _raw_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(path, line, "UTF-8 text", f"byte 0x{raw[exc.start]:02x}") from None


#: Bytes of a file's head that format detection looks at.
_HEAD = 1 << 16


def detect_file_format(path: str | Path, what: str = "run line") -> tuple[str, str | None]:
    """The file's format (see :func:`detect_format`) from its head, and its whole text when that
    had to be read to decide (a JSON file) or the head is the whole file; else None."""
    path = Path(path)
    head = _raw_bytes(path, _HEAD + 1)
    if len(head) <= _HEAD:
        text = read_text(path)
        return detect_format(path, text, what), text
    head_text = head[:_HEAD].decode("utf-8-sig", "ignore")
    first = next(iter(_data_lines(head_text)), None)
    if first is not None and first[1].lstrip().startswith("{") and not _bare_name(path).lower().endswith(
            (".jsonl", ".ndjson")):
        text = read_text(path)
        return detect_format(path, text, what), text
    return detect_format(path, head_text, what), None


#: The blanks that separate fields and make a line blank: ASCII ones only, as trec_eval's
#: C reader and the bytes-level reader see them (a no-break space belongs to an id).
_BLANKS = " \t\r\n\f\v"
_FIELD = re.compile(r"[^ \t\r\n\f\v]+")


def _fields(line: str) -> list[str]:
    """The blank-separated fields of a line (``str.split()`` would also split on Unicode spaces)."""
    return line.split() if line.isascii() else _FIELD.findall(line)


def _data_lines(text: str) -> Iterable[tuple[int, str]]:
    """(1-based line number, line) for every line that is neither blank nor a ``#`` comment.

    Lines end at ``\n`` (``\r\n`` too) only: a JSON string may hold U+2028, which
    ``str.splitlines`` would take for a line end.
    """
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip(_BLANKS)
        if stripped and not stripped.startswith("#"):
            yield number, line.rstrip("\r")


def _bare_name(path: Path) -> str:
    name = path.name
    if name.endswith(".gz"):
        name = name[:-3]
    return name


def detect_format(path: str | Path, text: str, what: str = "run line") -> str:
    """``jsonl``, ``json`` or ``trec``, from the extension (``.gz`` aside), else from the content.

    ``what`` names a line of the file in the error an empty file gets.
    """
    name = _bare_name(Path(path)).lower()
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    # The first data line decides; look at the head of the file, not all of it.
    first = next(iter(_data_lines(text[:1 << 16])), None) or next(iter(_data_lines(text)), None)
    if first is None:
        raise InputError(path, None, f"at least one {what}", "an empty file")
    if first[1].lstrip().startswith("{"):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            return "jsonl"
        if isinstance(whole, dict) and not any(k in whole for k in ("retrieved", _RAGAS_RETRIEVED) + _ID_KEYS):
            return "json"
        return "jsonl"
    line = first[1].strip()
    if _header(line) is not None or (len(line.split()) == 1 and line.count(",") in (2, 3)):
        return "csv"
    return "trec"


# ---------------------------------------------------------------------------------------------
# Parsing helpers


def _parse_grade(token: Any, path: Path, line: int | None, what: str) -> int:
    """An integer grade: ``2``, ``2.0`` or ``"2"``; ``1.7``, booleans and text are errors."""
    if isinstance(token, bool):
        raise InputError(path, line, f"an integer grade for {what}", str(token).lower())
    if isinstance(token, int):
        return token
    value: float
    if isinstance(token, float):
        value = token
    else:
        try:
            return int(token)
        except (TypeError, ValueError):
            try:
                value = float(token)
            except (TypeError, ValueError):
                raise InputError(path, line, f"an integer grade for {what}", shorten(str(token))) from None
    if not math.isfinite(value) or not value.is_integer():
        raise InputError(path, line, f"an integer grade for {what}", shorten(str(token)))
    return int(value)


def _parse_score(token: Any, path: Path, line: int | None, what: str) -> float:
    if isinstance(token, bool):
        raise InputError(path, line, f"a numeric score for {what}", str(token).lower())
    try:
        value = float(token)
    except (TypeError, ValueError):
        raise InputError(path, line, f"a numeric score for {what}", shorten(str(token))) from None
    if not math.isfinite(value):
        raise InputError(path, line, f"a finite numeric score for {what}", shorten(str(token)))
    return value


def _parse_id(value: Any, path: Path, line: int | None, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, line, f"{what} as a string", shorten(json.dumps(value)))
    text = str(value)
    if not text:
        raise InputError(path, line, f"{what} as a non-empty string", "an empty string")
    return text


def _group_by_query(query_index: np.ndarray | None, counts: np.ndarray, *columns: np.ndarray | None):
    """CSR offsets from per-query ``counts``, and ``columns`` gathered by ``query_index`` (stable:
    file order within a query; None means the rows already are grouped)."""
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    if query_index is None or len(query_index) == 0:
        return offsets, columns
    grouping = np.argsort(query_index, kind="stable")
    return offsets, tuple(None if c is None else c[grouping] for c in columns)


def _ranked_run(name: str, source: str, qids: Sequence[str] | np.ndarray, docs: np.ndarray,
                scores: np.ndarray | None, order: Order, *, query_index: np.ndarray | None = None,
                counts: np.ndarray | None = None, query_text: tuple[str | None, ...] = ()) -> Run:
    """A run from rows in file order: grouped by query (``query_index``, or already grouped in
    runs of ``counts``), then each query's ids put in ranking order (score high to low, ties by id
    descending) unless ``scores`` is None or ``order`` is ``FILE``."""
    if counts is None:
        counts = np.bincount(query_index, minlength=len(qids))
    offsets, (docs, scores) = _group_by_query(query_index, counts, docs, scores)
    if scores is not None and order is not Order.FILE:
        order_in_place(offsets, docs, np.asarray(scores, dtype=np.float64))
    return Run(name=name, query_ids=np.asarray(qids, dtype=str), offsets=offsets, doc_ids=docs,
               query_text=query_text or (None,) * len(qids), source=source)


def _run_from_slots(name: str, source: Path, qids_in_order: list[str], slot_query: list[int],
                    slot_docs: list[str], slot_scores: list[float] | None, order: Order,
                    query_text: tuple[str | None, ...] = ()) -> Run:
    """A run from the lists a text reader gathered (see :func:`_ranked_run`)."""
    return _ranked_run(name, str(source), qids_in_order, np.array(slot_docs, dtype=str),
                       None if slot_scores is None else np.asarray(slot_scores, dtype=np.float64), order,
                       query_index=np.asarray(slot_query, dtype=np.int64), query_text=query_text)


def run_from_columns(name: str, query_ids: Sequence[str] | np.ndarray, doc_ids: Sequence[str] | np.ndarray,
                     scores: Sequence[float] | np.ndarray | None = None, order: Order = Order.SCORE,
                     source: str = "") -> Run:
    """A run from three columns, one row per retrieved id (a data frame's, a Parquet file's).

    Queries keep their order of first appearance; each query's ids are put in ranking order (score
    high to low, ties by id descending) unless ``scores`` is None or ``order`` is ``FILE``. Ids may
    be text or UTF-8 bytes. All of it is array work: no Python loop over rows.
    """
    queries = np.asarray(query_ids).astype(str)
    docs = np.asarray(doc_ids)
    if docs.dtype.kind not in "SU":
        docs = docs.astype(str)
    firsts, query_index = first_appearance(queries)
    return _ranked_run(name, source, queries[firsts], docs, None if scores is None else np.asarray(scores),
                       order, query_index=query_index)


class _JudgmentCollector:
    """Gathers (query, id, grade) with the line each came from; rejects conflicting grades."""

    def __init__(self, path: Path):
        self.path = path
        self.queries: dict[str, dict[str, tuple[int, int | None]]] = {}

    def add_query(self, qid: str) -> None:
        self.queries.setdefault(qid, {})

    def add(self, qid: str, doc: str, grade: int, line: int | None) -> None:
        per_query = self.queries.setdefault(qid, {})
        seen = per_query.get(doc)
        if seen is not None:
            if seen[0] != grade:
                raise InputError(
                    self.path, line,
                    f"one grade per query and id (query {qid!r} id {doc!r} was graded {seen[0]} on line {seen[1]})",
                    f"grade {grade}",
                )
            return
        per_query[doc] = (grade, line)

    def judgments(self) -> Judgments:
        return Judgments.from_lists(
            [(q, list(d), [g for g, _ in d.values()]) for q, d in self.queries.items()],
            source=str(self.path),
        )


# ---------------------------------------------------------------------------------------------
# TREC


def read_trec_run_bytes(path: str | Path, order: Order = Order.SCORE, name: str = "",
                        span: tuple[int, int] | None = None) -> Run | None:
    """A strictly laid out TREC run (bytes ``span`` of it: a partition) read by
    :mod:`ragreport.reading.trecbytes`, ids kept as UTF-8 bytes; None when it is not strict, and
    :func:`load_trec_run` reads it line by line."""
    path = Path(path)
    columns = trecbytes.read_columns(path, 6, id_column=2, number_column=4, integers=False, span=span)
    if columns is None:
        return None
    qids, line_query = trecbytes.query_index(columns)
    return _ranked_run(name or _stem(path), str(path), qids, columns.ids, columns.numbers, order,
                       query_index=line_query, counts=None if line_query is not None else columns.group_lengths)


def read_trec_qrels_bytes(path: str | Path) -> Judgments | None:
    """Strictly laid out TREC qrels read by :mod:`ragreport.reading.trecbytes`; None when the file is not
    strict or names a (query, id) pair twice (the line-by-line reader then decides)."""
    path = Path(path)
    columns = trecbytes.read_columns(path, 4, id_column=2, number_column=3, integers=True)
    if columns is None:
        return None
    qids, line_query = trecbytes.query_index(columns)
    counts = columns.group_lengths if line_query is None else np.bincount(line_query, minlength=len(qids))
    offsets, (docs, grades) = _group_by_query(line_query, counts, columns.ids, columns.numbers.astype(np.int64))
    if has_duplicates(hash_ids(docs, query=np.repeat(np.arange(len(qids)), np.diff(offsets)))):
        return None
    return Judgments(query_ids=np.array(qids, dtype=str), offsets=offsets, doc_ids=docs, grades=grades,
                     source=str(path))


def load_trec_run(path: str | Path, text: str, order: Order = Order.SCORE, name: str = "") -> Run:
    """A TREC run: six whitespace-separated fields ``qid Q0 docid rank score tag`` per line.

    The rank column is ignored and text after the sixth field (a comment some tools append) is
    ignored, as trec_eval does; ``#`` lines and blank lines are skipped.
    """
    path = Path(path)
    qids: dict[str, int] = {}
    slot_query: list[int] = []
    slot_docs: list[str] = []
    slot_scores: list[float] = []
    for number, line in _data_lines(text):
        fields = _fields(line)
        if len(fields) < 6:
            hint = " (this looks like qrels: give it with --qrels)" if len(fields) == 4 else ""
            raise InputError(path, number, "6 fields 'qid Q0 docid rank score tag'",
                             f"{len(fields)} field{'s' if len(fields) != 1 else ''}{hint}")
        qid, _, doc, _, score_text = fields[:5]
        score = _parse_score(score_text, path, number, f"query {qid!r} id {doc!r} (field 5)")
        slot_query.append(qids.setdefault(qid, len(qids)))
        slot_docs.append(doc)
        slot_scores.append(score)
    if not qids:
        raise InputError(path, None, "at least one run line", "an empty file")
    return _run_from_slots(name or _stem(path), path, list(qids), slot_query, slot_docs,
                           slot_scores, order)


def load_trec_qrels(path: str | Path, text: str) -> Judgments:
    """TREC qrels: ``qid iter docid grade`` per line; ``iter`` is ignored; grades are integers.

    BEIR's TSV qrels (a ``query-id corpus-id score`` header, then three columns) read the same way.
    """
    path = Path(path)
    collector = _JudgmentCollector(path)
    lines = list(_data_lines(text))
    beir = bool(lines) and _header(lines[0][1]) is not None
    if beir:
        lines = lines[1:]
    expected = "3 columns 'query-id corpus-id score'" if beir else "4 fields 'qid iter docid grade'"
    for number, line in lines:
        fields = line.split("\t") if beir and "\t" in line else _fields(line)
        if len(fields) != (3 if beir else 4):
            hint = " (this looks like a run: give it as an input, not --qrels)" if len(fields) == 6 else ""
            raise InputError(path, number, expected, f"{len(fields)} field{'s' if len(fields) != 1 else ''}{hint}")
        if beir:
            qid, doc, grade_text = (f.strip() for f in fields)
        else:
            qid, _, doc, grade_text = fields
        grade = _parse_grade(grade_text, path, number, f"query {qid!r} id {doc!r} (field 4)")
        collector.add(qid, doc, grade, number)
    if not collector.queries:
        raise InputError(path, None, "at least one judgment line", "an empty file")
    return collector.judgments()


# ---------------------------------------------------------------------------------------------
# Delimited files: CSV/TSV runs, BEIR qrels


def _delimiter(line: str) -> str | None:
    return "," if "," in line else ("\t" if "\t" in line else None)


def _split_line(line: str, delimiter: str | None) -> list[str]:
    return [f.strip() for f in (line.split(delimiter) if delimiter else line.split())]


def _header(line: str) -> list[str] | None:
    """The column names of a header line (one naming a query column and a document column), else None."""
    names = [f.lower() for f in _split_line(line, _delimiter(line))]
    if any(n in _QUERY_COLUMNS for n in names) and any(n in _DOC_COLUMNS for n in names):
        return names
    return None


def load_delimited_run(path: str | Path, text: str, order: Order = Order.SCORE, name: str = "") -> Run:
    """A run as CSV or TSV: ``qid,docid,score`` or ``qid,docid,rank,score``, with or without a header.

    A header names the columns (``qid``/``query_id``/``query-id``, ``docid``/``doc_id``/``corpus-id``,
    ``score``, ``rank``). Without a score the rank orders the list (low first); with a score the
    TREC rule applies (score high to low, ties by id descending), unless ``--order file``.
    """
    path = Path(path)
    lines = list(_data_lines(text))
    if not lines:
        raise InputError(path, None, "at least one run line", "an empty file")
    delimiter = _delimiter(lines[0][1])
    header = _header(lines[0][1])
    if header is not None:
        columns = {"qid": next(i for i, n in enumerate(header) if n in _QUERY_COLUMNS),
                   "docid": next(i for i, n in enumerate(header) if n in _DOC_COLUMNS)}
        for key in ("score", "rank"):
            if key in header:
                columns[key] = header.index(key)
        lines = lines[1:]
        width = len(header)
    else:
        width = len(_split_line(lines[0][1], delimiter))
        if width == 3:
            columns = {"qid": 0, "docid": 1, "score": 2}
        elif width == 4:
            columns = {"qid": 0, "docid": 1, "rank": 2, "score": 3}
        else:
            raise InputError(path, lines[0][0], "3 columns 'qid,docid,score', 4 'qid,docid,rank,score' or a header "
                                                "naming them", f"{width} columns")
    qids: dict[str, int] = {}
    slot_query, slot_docs, slot_keys = [], [], []
    use_score = "score" in columns
    for number, line in lines:
        fields = _split_line(line, delimiter)
        if len(fields) != width:
            raise InputError(path, number, f"{width} columns as on the first line", f"{len(fields)} columns")
        qid, doc = fields[columns["qid"]], fields[columns["docid"]]
        if not qid or not doc:
            raise InputError(path, number, "a query id and a document id", "an empty field")
        if use_score:
            key = _parse_score(fields[columns["score"]], path, number, f"query {qid!r} id {doc!r}")
        elif "rank" in columns:
            key = -_parse_score(fields[columns["rank"]], path, number, f"the rank of query {qid!r} id {doc!r}")
        else:
            key = 0.0
        slot_query.append(qids.setdefault(qid, len(qids)))
        slot_docs.append(doc)
        slot_keys.append(key)
    ranked = use_score or "rank" in columns
    return _run_from_slots(name or _stem(path), path, list(qids), slot_query, slot_docs,
                           slot_keys if ranked else None, order)


# ---------------------------------------------------------------------------------------------
# JSON dicts (pytrec_eval / ranx)


def _line_of(text: str, *keys: str) -> int | None:
    """Line of the first JSON key ``keys[-1]`` found after each earlier key in turn (best effort)."""
    position = 0
    for key in keys:
        found = text.find(json.dumps(key), position)
        if found < 0:
            return None
        position = found
    return text.count("\n", 0, position) + 1


def _load_json_object(path: Path, text: str, what: str) -> dict:
    if not text.strip():
        raise InputError(path, None, what, "an empty file")
    try:
        data = json.loads(text, object_pairs_hook=_no_conflicting_keys)
    except json.JSONDecodeError as exc:
        raise InputError(path, exc.lineno, f"valid JSON ({what})", exc.msg) from None
    except _ConflictingKey as exc:
        raise InputError(path, _line_of(text, exc.key), f"one value for key {exc.key!r}",
                         f"{shorten(json.dumps(exc.first), quote=False)} and "
                         f"{shorten(json.dumps(exc.second), quote=False)}") from None
    if not isinstance(data, dict):
        raise InputError(path, 1, what, f"a JSON {type(data).__name__}")
    return data


def load_json_run(path: str | Path, text: str, order: Order = Order.SCORE, name: str = "") -> Run:
    """A run as ``{qid: {docid: score}}`` (pytrec_eval, ranx), ordered like a TREC run."""
    path = Path(path)
    data = _load_json_object(path, text, "a run object {qid: {docid: score}}")
    qids: list[str] = []
    slot_query: list[int] = []
    slot_docs: list[str] = []
    slot_scores: list[float] = []
    for qid, ranked in data.items():
        if not isinstance(ranked, dict):
            raise InputError(path, _line_of(text, qid), f"query {qid!r} to map ids to scores",
                             f"a JSON {type(ranked).__name__}")
        index = len(qids)
        qids.append(qid)
        for doc, value in ranked.items():
            slot_query.append(index)
            slot_docs.append(doc)
            slot_scores.append(_parse_score(value, path, _line_of(text, qid, doc), f"query {qid!r} id {doc!r}"))
    if not qids:
        raise InputError(path, 1, "at least one query", "an empty object")
    return _run_from_slots(name or _stem(path), path, qids, slot_query, slot_docs, slot_scores, order)


def load_json_qrels(path: str | Path, text: str) -> Judgments:
    """Judgments as ``{qid: {docid: grade}}`` (pytrec_eval, ranx); grades are integers."""
    path = Path(path)
    data = _load_json_object(path, text, "a qrels object {qid: {docid: grade}}")
    collector = _JudgmentCollector(path)
    for qid, graded in data.items():
        if not isinstance(graded, dict):
            raise InputError(path, _line_of(text, qid), f"query {qid!r} to map ids to grades",
                             f"a JSON {type(graded).__name__}")
        collector.add_query(qid)
        for doc, value in graded.items():
            line = _line_of(text, qid, doc)
            collector.add(qid, doc, _parse_grade(value, path, line, f"query {qid!r} id {doc!r}"), line)
    if not collector.queries:
        raise InputError(path, 1, "at least one judged query", "an empty object")
    return collector.judgments()


# ---------------------------------------------------------------------------------------------
# RAG JSONL


class _ConflictingKey(Exception):
    def __init__(self, key: str, first: Any, second: Any):
        self.key, self.first, self.second = key, first, second


def _no_conflicting_keys(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) == len(pairs):  # the usual case: no key twice
        return out
    out = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise _ConflictingKey(key, out[key], value)
        out[key] = value
    return out


def _json_lines(path: Path, text: str) -> list[tuple[int, Any]]:
    """(line number, decoded value) of every data line.

    All lines are decoded in one call, as the items of one JSON array; when that fails, or gives
    another count of items than lines, each line is decoded alone to name the one at fault.
    """
    lines = list(_data_lines(text))
    try:
        values = json.loads("[" + ",".join(line for _, line in lines) + "]", object_pairs_hook=_no_conflicting_keys)
        if len(values) == len(lines):
            return [(number, value) for (number, _), value in zip(lines, values)]
    except (json.JSONDecodeError, _ConflictingKey):
        pass
    out = []
    for number, line in lines:
        try:
            out.append((number, json.loads(line, object_pairs_hook=_no_conflicting_keys)))
        except json.JSONDecodeError as exc:
            raise InputError(path, number, "one JSON object per line", exc.msg) from None
        except _ConflictingKey as exc:
            raise InputError(path, number, f"one value for key {exc.key!r}",
                             f"{shorten(json.dumps(exc.first), quote=False)} and "
                             f"{shorten(json.dumps(exc.second), quote=False)}") from None
    return out


def load_jsonl(path: str | Path, text: str, *, with_judgments: bool = True,
               name: str = "") -> tuple[Run, Judgments | None]:
    """RAG JSONL: one object per line with an id, a ``retrieved`` list and ``relevant`` ids.

    ``relevant`` is a list of ids (grade 1 each) or an object ``{id: grade}``. ``query`` (text)
    and ``meta`` (an object) are optional. With ``with_judgments=False`` (judgments come from
    ``--qrels``) a line must not carry ``relevant``.
    """
    path = Path(path)
    seen: dict[str, int] = {}
    qids: list[str] = []
    texts: list[str | None] = []
    slot_query: list[int] = []
    slot_docs: list[str] = []
    judged: list[tuple[str, list[str], list[int]]] = []
    for number, record in _json_lines(path, text):
        if not isinstance(record, dict):
            raise InputError(path, number, "a JSON object per line", f"a JSON {type(record).__name__}")
        ragas = _RAGAS_RETRIEVED in record
        if ragas:  # RAGAS rows: ids of retrieved and reference contexts, the question as user_input
            record = {**record, "retrieved": record[_RAGAS_RETRIEVED]}
            if _RAGAS_REFERENCE in record:
                record["relevant"] = record[_RAGAS_REFERENCE]
            if _RAGAS_QUERY in record and "query" not in record:
                record["query"] = record[_RAGAS_QUERY]
        id_key = next((k for k in _ID_KEYS if k in record), None)
        if id_key is None and ragas:
            record["id"], id_key = f"row-{len(qids) + 1}", "id"  # RAGAS rows carry no id: number them
        if id_key is None:
            raise InputError(path, number, "a query id under 'id', 'query_id' or 'qid'",
                             f"keys {shorten(', '.join(record))}")
        qid = _parse_id(record[id_key], path, number, f"'{id_key}'")
        if qid in seen:
            raise InputError(path, number, f"each query once (query {qid!r} is also on line {seen[qid]})",
                             "it again")
        seen[qid] = number
        if "retrieved" not in record:
            raise InputError(path, number, f"a 'retrieved' list of ids for query {qid!r}", "no 'retrieved' key")
        retrieved = record["retrieved"]
        if not isinstance(retrieved, list):
            raise InputError(path, number, f"'retrieved' as a list of ids for query {qid!r}",
                             f"a JSON {type(retrieved).__name__}")
        query_text = record.get("query")
        if query_text is not None and not isinstance(query_text, str):
            raise InputError(path, number, f"'query' as text for query {qid!r}", f"a JSON {type(query_text).__name__}")
        meta = record.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise InputError(path, number, f"'meta' as an object for query {qid!r}", f"a JSON {type(meta).__name__}")
        index = len(qids)
        qids.append(qid)
        texts.append(query_text)
        slot_query.extend([index] * len(retrieved))
        slot_docs.extend(_id_list(retrieved, path, number, f"every retrieved id of query {qid!r}"))
        if with_judgments:
            if "relevant" not in record:
                raise InputError(path, number, f"'relevant' ids for query {qid!r} (or give --qrels)",
                                 "no 'relevant' key")
            docs, grades = _relevant(record["relevant"], qid, path, number)
            judged.append((qid, docs, grades))
        elif "relevant" in record:
            raise InputError(path, number, f"no 'relevant' key for query {qid!r} when --qrels gives the judgments",
                             "both")
    if not qids:
        raise InputError(path, None, "at least one JSON line", "an empty file")
    run = _run_from_slots(name or _stem(path), path, qids, slot_query, slot_docs, None, Order.FILE,
                          tuple(texts))
    return run, (Judgments.from_lists(judged, source=str(path)) if with_judgments else None)


def _id_list(values: list, path: Path, line: int, what: str) -> list[str]:
    """The ids of a JSON list as strings; the common all-strings case is checked in one pass."""
    if set(map(type, values)) <= {str} and "" not in values:  # C-level passes over the list
        return values
    return [_parse_id(v, path, line, what) for v in values]


def _relevant(relevant: Any, qid: str, path: Path, line: int) -> tuple[list[str], list[int]]:
    """(ids, grades) of one line's ``relevant``: a list (grade 1 each) or an object of grades.

    An id listed twice is one judgment; an object's repeated key with another grade was already
    refused by the JSON hook.
    """
    if isinstance(relevant, list):
        docs = list(dict.fromkeys(_id_list(relevant, path, line, f"every relevant id of query {qid!r}")))
        return docs, [1] * len(docs)
    if isinstance(relevant, dict):
        grades = [g if type(g) is int else _parse_grade(g, path, line, f"query {qid!r} id {d!r}")
                  for d, g in relevant.items()]
        return list(relevant), grades
    raise InputError(path, line, f"'relevant' as a list of ids or an object {{id: grade}} for query {qid!r}",
                     f"a JSON {type(relevant).__name__}")


# ---------------------------------------------------------------------------------------------
# Metadata


_META_KEYS = ("name", "retriever", "date", "label_source", "judge", "judge_error_rate",
              "pool_depth", "retriever_kind", "notes")


def _meta_line(text: str, key: str, is_toml: bool) -> int | None:
    pattern = rf'^\s*"?{re.escape(key)}"?\s*=' if is_toml else rf'"{re.escape(key)}"\s*:'
    match = re.search(pattern, text, flags=re.MULTILINE)
    return None if match is None else text.count("\n", 0, match.start()) + 1


def _toml():
    """The TOML reader, imported when metadata is TOML (scoring alone never needs it)."""
    try:  # Python 3.11+
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


def load_meta(path: str | Path) -> RunMeta:
    """Run metadata from TOML (``.toml``) or JSON, with the known keys validated.

    Known keys: ``name``, ``retriever``, ``judge``, ``notes`` (text); ``date`` (ISO 8601);
    ``label_source`` (``human`` | ``model``); ``judge_error_rate`` (0..1); ``pool_depth``
    (a positive integer); ``retriever_kind`` (``single`` | ``multi-hop`` | ``agentic``).
    Any other key is kept as given.
    """
    path = Path(path)
    text = read_text(path)
    is_toml = _bare_name(path).lower().endswith(".toml")
    if is_toml:
        try:
            data = _toml().loads(text)
        except _toml().TOMLDecodeError as exc:
            match = re.search(r"line (\d+)", str(exc))
            raise InputError(path, int(match.group(1)) if match else None, "valid TOML metadata", str(exc)) from None
    else:
        data = _load_json_object(path, text, "a metadata object")

    def fail(key: str, expected: str, value: Any) -> InputError:
        shown = shorten(value if isinstance(value, str) else json.dumps(value, default=str))
        return InputError(path, _meta_line(text, key, is_toml), f"metadata '{key}' {expected}", shown)

    known: dict[str, Any] = {}
    for key in ("name", "retriever", "judge", "notes"):
        if key in data:
            if not isinstance(data[key], str):
                raise fail(key, "as text", data[key])
            known[key] = data[key]
    if "name" in known and not known["name"].strip():
        raise fail("name", "as non-empty text", known["name"])
    if "date" in data:
        known["date"] = _parse_date(data["date"], fail)
    for key, enum in (("label_source", LabelSource), ("retriever_kind", RetrieverKind)):
        if key in data:
            try:
                known[key] = enum(data[key])
            except ValueError:
                raise fail(key, "to be one of " + ", ".join(m.value for m in enum), data[key]) from None
    if "judge_error_rate" in data:
        rate = data["judge_error_rate"]
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
            raise fail("judge_error_rate", "as a number from 0 to 1", rate)
        known["judge_error_rate"] = float(rate)
    if "pool_depth" in data:
        depth = data["pool_depth"]
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise fail("pool_depth", "as a positive integer", depth)
        known["pool_depth"] = depth
    extra = tuple((k, v) for k, v in data.items() if k not in _META_KEYS)
    return RunMeta(**known, extra=extra, source=str(path))


def _parse_date(value: Any, fail) -> _dt.date:
    if isinstance(value, _dt.date):  # TOML dates and date-times arrive parsed
        return value
    if isinstance(value, str):
        text = value.strip()
        for parse in (_dt.date.fromisoformat, _dt.datetime.fromisoformat):
            try:
                return parse(text.replace("Z", "+00:00"))
            except ValueError:
                continue
    raise fail("date", "as an ISO 8601 date (2026-11-30)", value)


def find_meta(run_path: str | Path) -> Path | None:
    """``RUN.meta.toml`` or ``RUN.meta.json`` beside the run (RUN with or without its extension)."""
    run_path = Path(run_path)
    bare = _bare_name(run_path)
    stems = [bare]
    if "." in bare:
        stems.insert(0, bare.rsplit(".", 1)[0])
    for stem in stems:
        for suffix in (".meta.toml", ".meta.json"):
            candidate = run_path.with_name(stem + suffix)
            if candidate.is_file():
                return candidate
    return None


def _stem(path: Path) -> str:
    bare = _bare_name(path)
    return bare.rsplit(".", 1)[0] if "." in bare.lstrip(".") else bare


# ---------------------------------------------------------------------------------------------
# Putting it together


@dataclass(frozen=True)
class LoadedRun:
    """A run with the judgments it is to be scored against."""

    run: Run
    judgments: Judgments


def sample_path() -> Path:
    """The preloaded sample's JSONL file, inside the installed package."""
    from importlib import resources  # only here: it costs a noticeable share of a small run's time

    return Path(str(resources.files("ragreport") / "sample" / "sample.jsonl"))


def load_qrels(path: str | Path, input_format: str | None = None) -> Judgments:
    """Judgments from TREC qrels or a JSON ``{qid: {docid: grade}}`` file."""
    text: str | None = None
    if input_format is None:
        input_format, text = detect_file_format(path, "judgment line")
    if input_format == "json":
        return load_json_qrels(path, text if text is not None else read_text(path))
    if input_format == "jsonl":
        raise InputError(path, None, "qrels as TREC lines, BEIR TSV or a JSON object", "JSON lines")
    judgments = read_trec_qrels_bytes(path)
    if judgments is not None:
        return judgments
    return load_trec_qrels(path, text if text is not None else read_text(path))


def load_runs(inputs: Sequence[str | Path], *, qrels: str | Path | None = None,
              metas: Sequence[str | Path] = (), input_format: str | None = None,
              order: Order = Order.SCORE) -> list[LoadedRun]:
    """Load every input run with its judgments and metadata; the sample when ``inputs`` is empty.

    Judgments come from ``qrels`` when given, else from the JSONL lines themselves. Metadata comes
    from ``metas`` (one per input, in order) or from ``RUN.meta.toml`` / ``RUN.meta.json`` beside
    the run. A run is named by its metadata ``name``, else its file stem; names must be unique.
    """
    paths = [Path(p) for p in inputs] or [sample_path()]
    if metas and len(metas) != len(paths):
        raise UsageError(f"--meta was given {len(metas)} time(s) for {len(paths)} run(s); give one per run, in order")
    if input_format is not None and input_format not in FORMATS:
        raise UsageError(f"--input-format must be one of {', '.join(FORMATS)}, got {input_format!r}")
    shared = load_qrels(qrels) if qrels is not None else None

    loaded: list[LoadedRun] = []
    for i, path in enumerate(paths):
        fmt, text = (input_format, None) if input_format else detect_file_format(path)
        judgments: Judgments | None = shared
        fast = read_trec_run_bytes(path, order) if fmt == "trec" else None
        if fast is not None:
            run = fast
        elif fmt == "jsonl":
            run, own = load_jsonl(path, text or read_text(path), with_judgments=shared is None)
            judgments = shared if shared is not None else own
        elif fmt == "json":
            run = load_json_run(path, text or read_text(path), order)
        elif fmt == "csv":
            run = load_delimited_run(path, text or read_text(path), order)
        else:
            run = load_trec_run(path, text or read_text(path), order)
        if judgments is None:
            raise UsageError(f"{path}: a {fmt.upper()} run needs judgments: give them with --qrels FILE")
        meta_path = Path(metas[i]) if metas else find_meta(path)
        meta = load_meta(meta_path) if meta_path is not None else RunMeta()
        run = run.with_meta(meta, meta.name or run.name)
        if not inputs:  # an install path would make the report differ between machines
            run = replace(run, source="preloaded sample (ragreport/sample/sample.jsonl)")
        loaded.append(LoadedRun(run, judgments))

    names: dict[str, str] = {}
    for item in loaded:
        if item.run.name in names:
            raise UsageError(
                f"two runs are named {item.run.name!r} ({names[item.run.name]} and {item.run.source}); "
                "set 'name' in their metadata or rename a file")
        names[item.run.name] = item.run.source
    return loaded
