"""JSON maps as pytrec_eval and ranx use them: one JSON object for the whole file.

- Run: ``{qid: {docid: score}}``; each list is ordered like a TREC run (score high to low, ties
  by id descending) unless ``--order file`` keeps the object's order.
- Qrels: ``{qid: {docid: grade}}``; grades are integers (``2.0`` is 2); a query may map to ``{}``.

A key given twice with two values is an error (Python's ``json`` would keep the last). The format
is detected from a ``.json`` name, or from a file that is one JSON object and not a RAG JSONL
line (the JSONL reader, asked first, claims those).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..core.errors import InputError
from ..core.model import Judgments, Order, Run
from .files import stem, text_of
from .jsontext import line_of, load_json_object
from .reader import Reader
from .rows import JudgmentCollector, parse_grade, parse_score, run_from_slots


def sniff(first_line: str, text: str, complete: bool) -> bool:
    """A first line that opens a JSON object."""
    return first_line.lstrip().startswith("{")


def _maps(path: Path, text: str, kind: str, value: str) -> Iterator[tuple[str, dict]]:
    """(qid, its object) of a ``{qid: {docid: value}}`` object."""
    for qid, per_query in load_json_object(path, text, f"a {kind} object {{qid: {{docid: {value}}}}}").items():
        if not isinstance(per_query, dict):
            got = f"a JSON {type(per_query).__name__}"
            raise InputError(path, line_of(text, qid), f"query {qid!r} to map ids to {value}s", got)
        yield qid, per_query


def read_run(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
    """A run ``{qid: {docid: score}}`` (pytrec_eval, ranx), ordered like a TREC run; it carries no judgments."""
    text = text_of(path, text)
    qids: list[str] = []
    slot_query: list[int] = []
    slot_docs: list[str] = []
    slot_scores: list[float] = []
    for qid, ranked in _maps(path, text, "run", "score"):
        qids.append(qid)
        for doc, value in ranked.items():
            slot_query.append(len(qids) - 1)
            slot_docs.append(doc)
            slot_scores.append(parse_score(value, path, line_of(text, qid, doc), f"query {qid!r} id {doc!r}"))
    if not qids:
        raise InputError(path, 1, "at least one query", "an empty object")
    # The lines of a key, found only when the gate names one at fault.
    run = run_from_slots(
        stem(path),
        path,
        qids,
        slot_query,
        slot_docs,
        slot_scores,
        order,
        query_lines=lambda i: line_of(text, qids[i]),
        slot_lines=lambda j: line_of(text, qids[slot_query[j]], slot_docs[j]),
    )
    return run, None


def read_qrels(path: Path, text: str | None) -> Judgments:
    """Judgments ``{qid: {docid: grade}}`` (pytrec_eval, ranx); grades are integers."""
    text = text_of(path, text)
    collector = JudgmentCollector(path)
    for qid, graded in _maps(path, text, "qrels", "grade"):
        collector.add_query(qid, line_of(text, qid))
        for doc, value in graded.items():
            line = line_of(text, qid, doc)
            collector.add(qid, doc, parse_grade(value, path, line, f"query {qid!r} id {doc!r}"), line)
    return collector.judgments((1, "at least one judged query", "an empty object"))


READER = Reader(
    name="json", extensions=(".json",), sniff=sniff, read_run=read_run, read_qrels=read_qrels, label="a JSON object"
)
