"""RAG JSONL: one JSON object per line, one query each, with its judgments on the same line.

``{"id": "q01", "retrieved": ["d3", "d1"], "relevant": ["d1"] | {"d1": 2, "d7": 0}}``

- The query id is under ``id``, ``query_id`` or ``qid`` (a string, or an integer); each query once.
- ``retrieved`` is the ranked list of ids, best first: the file's order is the ranking.
- ``relevant`` is a list of ids (grade 1 each) or an object ``{id: grade}`` of integer grades.
  Without it the judgments come from ``--qrels``. Given ``--qrels`` too, the lines' own are set
  aside with a note, or score this run with ``--labels own`` (:func:`~ragreport.reading.registry.load_inputs`);
  a file carries it on every line or on none.
- ``steps`` (a multi-hop or agentic retriever, in place of ``retrieved``): a list of hops, each a
  list of ids, ``[["d3", "d1"], ["d1", "d8"]]``. The ranked list is their union in order of first
  appearance, ``d3 d1 d8``, scored as any list (cut at K); the run keeps how long the union was
  after each hop (:attr:`~ragreport.core.model.Run.steps`), so that the report shows what each hop
  added (docs/conventions.md section 8). A line gives ``retrieved`` or ``steps``, not both; a line
  without ``steps`` in such a file is one hop.
- ``query`` (text) and ``meta`` (an object) are optional.
- ``contexts`` (optional): the documents' text, an object ``{id: text}`` or a list aligned with
  ``retrieved``.
- RAGAS rows are read too: ``retrieved_context_ids``, ``reference_context_ids`` and the question
  as ``user_input``; rows without an id are numbered ``row-1``, ``row-2``, ... Contexts given as
  text (``retrieved_contexts``, ``reference_contexts``) are the documents' text; without ids each
  gets one from its text (:func:`context_id`), so a retrieved context is relevant when its text is
  a reference context's.

A key given twice with two values is an error. The format is detected from a ``.jsonl`` or
``.ndjson`` name, or from a first line that opens a JSON object, unless the whole file is one
JSON map (:mod:`ragreport.reading.jsonmap`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InputError, shorten
from ..core.model import Judgments, Order, Run
from .files import data_lines, stem, text_of
from .jsontext import ConflictingKey, check_surrogates, decode, json_integer, no_conflicting_keys, typed, unfit_number
from .reader import Reader
from .rows import GRADE_MAX, GRADE_MIN, check_ids, judgments_from_lists, parse_grade, parse_id, run_from_slots

ID_KEYS = ("id", "query_id", "qid")
# RAGAS's dataset columns for ID-based context precision and recall.
RAGAS_RETRIEVED, RAGAS_REFERENCE, RAGAS_QUERY = "retrieved_context_ids", "reference_context_ids", "user_input"
# ... and its columns of contexts as text (LLM-based context precision and recall).
RAGAS_RETRIEVED_TEXT, RAGAS_REFERENCE_TEXT = "retrieved_contexts", "reference_contexts"
#: A line's documents' text: ``{"d1": "text"}``, or a list of text aligned with ``retrieved``.
CONTEXTS = "contexts"
#: Keys that make a JSON object one query's line, not a whole ``{qid: ...}`` map.
#: A multi-hop retriever's hops, each a list of ids, in place of ``retrieved``.
STEPS = "steps"
RECORD_KEYS = ("retrieved", STEPS, RAGAS_RETRIEVED, RAGAS_RETRIEVED_TEXT, *ID_KEYS)


def context_id(text: str) -> str:
    """The id of a context given only as text: ``ctx-`` and the first 12 hex digits of the sha256 of
    the text with its runs of whitespace made one space and its ends trimmed. The same passage gets
    the same id on every row and in every file, so a retrieved context is relevant when its text is
    a reference context's."""
    normal = " ".join(text.split())
    return "ctx-" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]


def _text_list(value: Any, path: Path, line: int, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, line, f"{key!r} as a list of text", shorten(json.dumps(value)[:60]))
    return value


def _ragas_record(record: dict[str, Any], path: Path, line: int, row: int) -> dict[str, Any]:
    """A RAGAS row as a RAG JSONL line: its context ids, or ids made from its contexts' text
    (:func:`context_id`), as ``retrieved`` and ``relevant``; the texts as ``contexts``; the question
    as ``query``; ``row-N`` as its id when it has none (RAGAS rows carry none)."""
    out = dict(record)
    if RAGAS_RETRIEVED_TEXT in record:
        texts = _text_list(record[RAGAS_RETRIEVED_TEXT], path, line, RAGAS_RETRIEVED_TEXT)
        if RAGAS_RETRIEVED not in record:
            out["retrieved"] = [context_id(t) for t in texts]
        elif not isinstance(record[RAGAS_RETRIEVED], list) or len(texts) != len(record[RAGAS_RETRIEVED]):
            raise InputError(
                path, line, f"{RAGAS_RETRIEVED_TEXT!r} aligned with {RAGAS_RETRIEVED!r}", "lists of two lengths"
            )
        out.setdefault(CONTEXTS, texts)
    if RAGAS_RETRIEVED in record:
        out["retrieved"] = record[RAGAS_RETRIEVED]
    if RAGAS_REFERENCE in record:
        out["relevant"] = record[RAGAS_REFERENCE]
    elif RAGAS_REFERENCE_TEXT in record:
        references = _text_list(record[RAGAS_REFERENCE_TEXT], path, line, RAGAS_REFERENCE_TEXT)
        out["relevant"] = list(dict.fromkeys(context_id(t) for t in references))
    if RAGAS_QUERY in record:
        out.setdefault("query", record[RAGAS_QUERY])
    if not any(k in out for k in ID_KEYS):
        out["id"] = f"row-{row}"
    return out


def _contexts(
    record: dict[str, Any], retrieved: list[Any], into: dict[str, str], path: Path, line: int, qid: str
) -> None:
    """The line's documents' text (``contexts``: an object of id to text, or a list aligned with
    ``retrieved``) added to ``into``; an id's first text counts."""
    given = record.get(CONTEXTS)
    if given is None:
        return
    if isinstance(given, dict):
        pairs = list(given.items())
    elif isinstance(given, list) and len(given) == len(retrieved):
        pairs = list(zip(retrieved, given))
    else:
        raise InputError(
            path,
            line,
            f"{CONTEXTS!r} as an object of id to text, or a list aligned with 'retrieved', for query {qid!r}",
            f"a JSON {type(given).__name__}" + (f" of {len(given)}" if isinstance(given, list) else ""),
        )
    for doc, text in pairs:
        into.setdefault(str(doc), typed(text, str, path, line, f"the text of context {str(doc)!r} of query {qid!r}"))


def sniff(first_line: str, text: str, complete: bool) -> bool | None:
    """A first line that opens a JSON object, unless the whole text is one object that is no
    query's line (a JSON map); a head alone cannot tell."""
    if not first_line.lstrip().startswith("{"):
        return False
    if not complete:
        return None
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        return True  # several values (or too deep to tell): lines, whose reader names the line at fault
    return not (isinstance(whole, dict) and not any(k in whole for k in RECORD_KEYS))


def json_lines(path: Path, text: str) -> list[tuple[int, Any]]:
    """(line number, decoded value) of every data line.

    All lines are decoded in one call, as the items of one JSON array; when that fails, or gives
    another count of items than lines, each line is decoded alone to name the one at fault.
    """
    lines = list(data_lines(text))
    try:
        joined = "[" + ",".join(line for _, line in lines) + "]"
        values = json.loads(joined, object_pairs_hook=no_conflicting_keys, parse_int=json_integer)
    except (ValueError, ConflictingKey, RecursionError):  # ValueError: JSONDecodeError, or a too long integer
        values = None
    if values is None or len(values) != len(lines):
        return [(number, decode(path, line, number, "one JSON object per line")) for number, line in lines]
    if "\\u" in text:
        for (number, line), value in zip(lines, values):
            check_surrogates(path, line, value, number)
    return [(number, value) for (number, _), value in zip(lines, values)]


#: The key of a record's scores, aligned with ``retrieved``: only table rows (``--columns
#: scores=...``) carry it, so a RAG JSONL line's own keys never collide with it.
SCORES = "\x00scores"


def parse_records(
    path: Path,
    records: Iterable[tuple[int, Any]],
    *,
    with_judgments: bool = True,
    name: str = "",
    order: Order = Order.FILE,
    what: str = "JSON line",
) -> tuple[Run, Judgments | None]:
    """A run and the judgments its records carry, from records decoded as ``(line, record)``: RAG
    JSONL lines, or a table's rows made records (:mod:`ragreport.reading.table`). A record with
    :data:`SCORES` ranks its list by them as ``order`` says; the lists are in file order otherwise.

    With ``with_judgments`` (no ``--qrels``) every record must carry ``relevant``. Without, the
    judgments are read where given (None when no record carries any) for the loader to use or set
    aside (``--labels``); a file whose records carry them must carry them on every one, so that no
    query is scored against labels its record left out."""
    scored: list[float] | None = None
    qids: list[str] = []
    query_lines: list[int] = []
    texts: list[str | None] = []
    metas: list[dict | None] = []
    doc_texts: dict[str, str] = {}
    slot_query: list[int] = []
    slot_docs: list[str] = []
    judged: list[tuple[str, list[str], list[int]]] = []
    carrying = 0  # the first line with 'relevant'
    lacking: tuple[int, str] | None = None  # the first (line, query) without
    step_ends: list[list[int]] = []  # per query, the union's length after each hop
    for number, record in records:
        typed(record, dict, path, number, "a JSON object per line")
        if RAGAS_RETRIEVED in record or RAGAS_RETRIEVED_TEXT in record:
            record = _ragas_record(record, path, number, len(qids) + 1)
        id_key = next((k for k in ID_KEYS if k in record), None)
        if id_key is None:
            raise InputError(
                path, number, "a query id under 'id', 'query_id' or 'qid'", f"keys {shorten(', '.join(record))}"
            )
        qid = parse_id(record[id_key], path, number, f"'{id_key}'")
        if STEPS in record:
            retrieved, ends = _steps(record, path, number, qid)
            step_ends.append(ends)
        elif "retrieved" not in record:
            raise InputError(path, number, f"a 'retrieved' list of ids for query {qid!r}", "no 'retrieved' key")
        else:
            expected = f"'retrieved' as a list of ids for query {qid!r}"
            retrieved = typed(record["retrieved"], list, path, number, expected)
            step_ends.append([len(retrieved)])
        query_text = typed(record.get("query"), (str, type(None)), path, number, f"'query' as text for query {qid!r}")
        meta = typed(record.get("meta"), (dict, type(None)), path, number, f"'meta' as an object for query {qid!r}")
        if meta:
            bad = unfit_number(meta)
            if bad is not None:  # a slice by it would hold NaN, an infinity or a wrapped integer
                expected = f"'meta' numbers finite and within 64 bits for query {qid!r}"
                raise InputError(path, number, expected, shorten(str(bad), quote=False))
        _contexts(record, retrieved, doc_texts, path, number, qid)
        slot_query.extend([len(qids)] * len(retrieved))
        qids.append(qid)
        query_lines.append(number)
        texts.append(query_text)
        metas.append(meta)
        slot_docs.extend(_id_list(retrieved, path, number, f"every retrieved id of query {qid!r}"))
        if SCORES in record:
            scored = scored if scored is not None else []
            scored.extend(record[SCORES])
        if "relevant" in record:
            docs, grades = _relevant(record["relevant"], qid, path, number)
            judged.append((qid, docs, grades))
            carrying = carrying or number
        elif with_judgments:
            raise InputError(path, number, f"'relevant' ids for query {qid!r} (or give --qrels)", "no 'relevant' key")
        else:
            lacking = lacking or (number, qid)
    if not qids:
        raise InputError(path, None, f"at least one {what}", "an empty file")
    if judged and lacking:  # a file's own labels are every row's or none: a row left out is no silent loss
        expected = f"'relevant' ids for query {lacking[1]!r}, as line {carrying} carries (a file's rows all or none)"
        raise InputError(path, lacking[0], expected, "no 'relevant' key")
    # Each query once: the gate refuses a second line for one query, naming both lines.
    run = run_from_slots(
        name or stem(path),
        path,
        qids,
        slot_query,
        slot_docs,
        scored,
        order if scored is not None else Order.FILE,
        tuple(texts),
        query_lines=query_lines,
        slot_lines=lambda j: query_lines[slot_query[j]],
        query_meta=tuple(metas) if any(m for m in metas) else (),
        doc_text=doc_texts or None,
        steps=_step_matrix(step_ends) if any(len(ends) > 1 for ends in step_ends) else None,
    )
    return run, (judgments_from_lists(path, judged, query_lines) if judged else None)


def _steps(record: dict[str, Any], path: Path, line: int, qid: str) -> tuple[list[Any], list[int]]:
    """A multi-hop line's ranked list, the union of its hops in order of first appearance, and the
    union's length after each hop. An id a later hop finds again keeps its first place, so a hop
    that adds nothing new leaves the length as it was."""
    expected = f"'steps' as a list of hops, each a list of ids, for query {qid!r}"
    if "retrieved" in record:
        raise InputError(path, line, f"'retrieved' or 'steps' for query {qid!r}, not both", "both keys")
    hops = typed(record[STEPS], list, path, line, expected)
    union: dict[str, None] = {}
    ends = []
    for hop in hops:
        ids = _id_list(typed(hop, list, path, line, expected), path, line, f"every id of a step of query {qid!r}")
        union.update(dict.fromkeys(ids))
        ends.append(len(union))
    if not ends:
        raise InputError(path, line, expected, "no hop")
    return list(union), ends


def _step_matrix(step_ends: list[list[int]]) -> np.ndarray:
    """Queries x hops: each query's union length after each hop, a query of fewer hops repeating its last."""
    hops = max(map(len, step_ends))
    return np.array([ends + ends[-1:] * (hops - len(ends)) for ends in step_ends], dtype=np.int64)


def _id_list(values: list[Any], path: Path, line: int, what: str) -> list[str]:
    """The ids of a JSON list as strings, named ``what`` in an error (the gate's rule, checked here
    under this name; all strings, the common case, in one vectorised pass)."""
    if set(map(type, values)) <= {str}:
        check_ids(values, path, lambda _: line, what)
        return values
    return [parse_id(v, path, line, what) for v in values]


def _relevant(relevant: Any, qid: str, path: Path, line: int) -> tuple[list[str], list[int]]:
    """(ids, grades) of one line's ``relevant``: a list (grade 1 each; an id listed twice is one
    judgment) or an object of grades (a key repeated with another grade was refused by the JSON hook)."""
    expected = f"'relevant' as a list of ids or an object {{id: grade}} for query {qid!r}"
    if isinstance(typed(relevant, (list, dict), path, line, expected), list):
        docs = list(dict.fromkeys(_id_list(relevant, path, line, f"every relevant id of query {qid!r}")))
        return docs, [1] * len(docs)
    check_ids(list(relevant), path, lambda _: line, f"a relevant id of query {qid!r}")
    grades = [
        g if type(g) is int and GRADE_MIN <= g <= GRADE_MAX else parse_grade(g, path, line, f"query {qid!r} id {d!r}")
        for d, g in relevant.items()
    ]
    return list(relevant), grades


def read_run(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
    """A RAG JSONL run in file order (``order`` does not apply: the lists carry no score), with
    the judgments its lines carry (required on every line when ``own_judgments``)."""
    return parse_records(path, json_lines(path, text_of(path, text)), with_judgments=own_judgments)


READER = Reader(
    name="jsonl", extensions=(".jsonl", ".ndjson"), sniff=sniff, read_run=read_run, read_qrels=None, label="JSON lines"
)
