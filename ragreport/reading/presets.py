"""Presets for the files RAG tools write: ``--input-format llamaindex|mlflow|openinference|rank_eval``.

Each is a table read (:mod:`ragreport.reading.table`) with a :class:`~ragreport.reading.columns.ColumnMap`
of the tool's own names, and for some a shape of its own; ``--columns`` given beside one overrides
the roles it names (``--input-format openinference --columns id=context.trace_id``). A preset is
named, never detected. Layouts, from each tool's documentation or source (tests/data/README.md
cites the files and versions):

- ``llamaindex``: ``RetrievalEvalResult`` rows (``query``, ``retrieved_ids``, ``expected_ids``) as
  JSONL, a JSON array or a table: a run whose rows carry their judgments. Its
  ``EmbeddingQAFinetuneDataset`` JSON (``queries``, ``corpus``, ``relevant_docs``) as ``--qrels``.
  Result rows carry no query id, so both are keyed by :func:`~ragreport.reading.columns.text_id` of
  the query text: a run's rows meet the dataset's judgments by their questions.
- ``mlflow``: the evaluation table of ``mlflow.evaluate(model_type="retriever")``: the question
  (``questions``, ``question``, ``inputs`` or ``query``), the retrieved ids (``retrieved_context``
  or ``retrieved_doc_ids``) and the expected ids (``ground_truth_context``, ``ground_truth`` or
  ``source``), as CSV, JSON (pandas' ``split`` layout, as ``mlflow.log_table`` writes it), JSONL or
  Parquet; ids from the question's text.
- ``openinference``: retriever spans as Phoenix exports them (JSONL, a JSON array or Parquet):
  ``retrieval.documents.N.document.id`` (flat attribute keys, an ``attributes`` object, or a list of
  documents), the question under ``input.value``; spans of another kind are left out. The ids keep
  the span's order (a ``document.score`` may be a distance); the id is the question's
  :func:`~ragreport.reading.columns.text_id` unless ``--columns id=...`` names another key
  (``context.trace_id``). Judgments from ``--qrels``.
- ``rank_eval``: Elasticsearch/OpenSearch. A ``_rank_eval`` request (``requests[].id``,
  ``requests[].ratings[]._id/rating``) as ``--qrels``; as a run, a ``_rank_eval`` response
  (``details.ID.hits[].hit._id/_score``) or an object of search responses by request id
  (``{"ID": {"hits": {"hits": [{"_id", "_score"}]}}}``), ranked by ``_score`` as a TREC run (in
  the response's order when a ``_score`` is null, as under a sort).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import InputError
from ..core.model import Judgments, Order, Run
from .columns import ColumnMap, text_id
from .files import HEAD, bare_name, text_of
from .jsontext import decode, line_of, typed
from .reader import Reader
from .rows import JudgmentCollector, parse_grade, parse_id
from .table import Rows, read_table, table_rows


def _preset(name: str, label: str, columns: ColumnMap, rows: Any = table_rows, read_qrels: Any = None) -> Reader:
    """A preset's reader: its ``read_run`` the table read with its map (the loader reads it with the
    user's ``--columns`` over the map through :attr:`~ragreport.reading.reader.Reader.table`)."""

    def read_run(path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
        return read_table(path, columns, order, own_judgments, text=text, rows=rows)

    never = lambda first_line, text, complete: False  # noqa: E731 - a preset is named, never detected
    return Reader(name, (), never, read_run, read_qrels, label, table=(columns, rows))


# --- LlamaIndex -----------------------------------------------------------------------------------
_DATASET_KEYS = ("queries", "relevant_docs")


def _llamaindex_rows(path: Path, text: str | None) -> tuple[Rows, bool]:
    """RetrievalEvalResult rows; its dataset given as a run is named as what it is."""
    if not bare_name(path).lower().endswith(".parquet"):
        text = text_of(path, text)
        if text.lstrip().startswith("{") and all(f'"{key}"' in text[:HEAD] for key in _DATASET_KEYS):
            whole = decode(path, text, None, "RetrievalEvalResult rows")
            if isinstance(whole, dict) and all(key in whole for key in _DATASET_KEYS):
                expected = "RetrievalEvalResult rows (query, retrieved_ids, expected_ids)"
                raise InputError(path, None, expected, "an EmbeddingQAFinetuneDataset: give it as --qrels")
    return table_rows(path, text)


def _llamaindex_qrels(path: Path, text: str | None) -> Judgments:
    """An EmbeddingQAFinetuneDataset's ``relevant_docs`` (grade 1 each), keyed by its query's text id."""
    data = decode(path, text_of(path, text), None, "an EmbeddingQAFinetuneDataset JSON object")
    if not isinstance(data, dict) or not all(isinstance(data.get(k), dict) for k in _DATASET_KEYS):
        raise InputError(path, None, "an EmbeddingQAFinetuneDataset: an object with 'queries' and 'relevant_docs'")
    collector = JudgmentCollector(path)
    for qid, docs in data["relevant_docs"].items():
        question = data["queries"].get(qid)
        if not isinstance(question, str):
            raise InputError(path, None, f"the text of query {qid!r} under 'queries'", "none")
        if not isinstance(docs, list):
            raise InputError(path, None, f"'relevant_docs' of query {qid!r} as a list of ids", type(docs).__name__)
        key = text_id(question)
        collector.add_query(key)
        for doc in docs:
            collector.add(key, parse_id(doc, path, None, f"a relevant id of query {qid!r}"), 1, None)
    return collector.judgments((None, "at least one query under 'relevant_docs'", "none"))


LLAMAINDEX = _preset(
    "llamaindex",
    "LlamaIndex RetrievalEvalResult rows",
    ColumnMap(query=("query",), retrieved=("retrieved_ids",), relevant=("expected_ids",)),
    _llamaindex_rows,
    _llamaindex_qrels,
)

# --- MLflow ---------------------------------------------------------------------------------------
MLFLOW = _preset(
    "mlflow",
    "an MLflow evaluation table",
    ColumnMap(
        query=("questions", "question", "inputs", "query"),
        retrieved=("retrieved_context", "retrieved_doc_ids"),
        relevant=("ground_truth_context", "ground_truth", "source"),
    ),
)

# --- OpenInference --------------------------------------------------------------------------------
_DOCUMENT = re.compile(r"retrieval\.documents\.([0-9]+)\.document\.(id|score)")
_KIND_KEYS = ("openinference.span.kind", "span_kind")


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """A span's nested objects as one level of dotted keys (lists kept as they are)."""
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, Any] = {}
    for key, item in value.items():
        out.update(_flat(item, f"{prefix}{key}.") if isinstance(item, dict) else {f"{prefix}{key}": item})
    return out


def _span(row: dict[str, Any], path: Path, line: int) -> dict[str, Any] | None:
    """A span as a row: its keys flattened, ``attributes.`` dropped; ``document.id`` and
    ``document.score`` lists in the span's order. None for a span of another kind than RETRIEVER."""
    flat = {k.removeprefix("attributes."): v for k, v in _flat(row).items()}
    kind = next((flat[k] for k in _KIND_KEYS if k in flat), "RETRIEVER")
    if kind != "RETRIEVER":
        return None
    documents = flat.pop("retrieval.documents", None)
    ids: dict[int, Any] = {}
    scores: dict[int, Any] = {}
    if isinstance(documents, list):
        for i, document in enumerate(documents):
            fields = _flat(document) if isinstance(document, dict) else {}
            ids[i], scores[i] = fields.get("document.id"), fields.get("document.score")
    for key in [k for k in flat if k.startswith("retrieval.documents.")]:
        match = _DOCUMENT.fullmatch(key)
        if match is not None:
            (ids if match[2] == "id" else scores)[int(match[1])] = flat.pop(key)
    if any(ids.get(i) is None for i in range(len(ids))):
        raise InputError(path, line, "retrieval.documents.N.document.id for N = 0, 1, 2, ...", "a gap or a null id")
    flat["document.id"] = [ids[i] for i in range(len(ids))]
    flat["document.score"] = [scores.get(i) for i in range(len(ids))]
    return flat


def _openinference_rows(path: Path, text: str | None) -> tuple[Rows, bool]:
    found, _ = table_rows(path, text)
    spans = []
    for line, row in found:
        spans.append((line, _span(typed(row, dict, path, line, "a span as an object"), path, line)))
    kept = [(line, span) for line, span in spans if span is not None]
    if not kept:
        raise InputError(path, None, "at least one RETRIEVER span", "none")
    return kept, False


OPENINFERENCE = _preset(
    "openinference",
    "OpenInference retriever spans",
    ColumnMap(id=(), query=("input.value",), retrieved=("document.id",), relevant=()),
    _openinference_rows,
)


# --- Elasticsearch / OpenSearch _rank_eval --------------------------------------------------------
def _rank_eval_rows(path: Path, text: str | None) -> tuple[Rows, bool]:
    """A ``_rank_eval`` response's hits, or search responses by request id, one row per request;
    a request whose hits are not a list of objects with an ``_id`` is refused at its id's line."""
    whole = text_of(path, text)
    data = decode(path, whole, None, "a _rank_eval response or search responses by request id")
    if isinstance(data, dict) and isinstance(data.get("details"), dict):
        responses, nested = data["details"], True  # details.ID.hits[].hit
    elif data and isinstance(data, dict) and all(isinstance(v, dict) and "hits" in v for v in data.values()):
        responses, nested = {qid: response["hits"] for qid, response in data.items()}, False  # ID.hits.hits[]
    else:
        expected = "a _rank_eval response ('details') or an object of search responses by request id"
        raise InputError(path, None, expected, "neither")
    rows: Rows = []
    for qid, response in responses.items():
        line = line_of(whole, qid) or 1
        listed = response.get("hits") if isinstance(response, dict) else None
        hits: list[Any] = listed if isinstance(listed, list) else [None]
        if nested:
            hits = [h.get("hit") if isinstance(h, dict) else None for h in hits]
        if not all(isinstance(h, dict) and "_id" in h for h in hits):
            raise InputError(path, line, f"a list of hits, each with an '_id', for request {qid!r}", "another value")
        rows.append((line, {"id": qid, "_id": [h["_id"] for h in hits], "_score": [h.get("_score") for h in hits]}))
    if any(score is None for _, row in rows for score in row["_score"]):  # sorted by a field: the listed order
        for _, row in rows:
            del row["_score"]
    return rows, False


def _rank_eval_qrels(path: Path, text: str | None) -> Judgments:
    """A ``_rank_eval`` request's ratings: ``requests[].ratings[]._id`` graded by ``rating``."""
    whole = text_of(path, text)
    data = decode(path, whole, None, "a _rank_eval request")
    requests = data.get("requests") if isinstance(data, dict) else None
    if not isinstance(requests, list) or not requests:
        raise InputError(path, None, "a _rank_eval request: an object with a list of 'requests'")
    collector = JudgmentCollector(path)
    for i, request in enumerate(requests):
        if not isinstance(request, dict) or "id" not in request or not isinstance(request.get("ratings"), list):
            raise InputError(path, None, f"requests[{i}] with an 'id' and a list of 'ratings'")
        qid = parse_id(request["id"], path, None, f"requests[{i}].id")
        line = line_of(whole, qid) or 1
        collector.add_query(qid, line)
        for rating in request["ratings"]:
            if not isinstance(rating, dict) or "_id" not in rating or "rating" not in rating:
                raise InputError(path, None, f"ratings of request {qid!r} with '_id' and 'rating'", str(rating)[:60])
            doc = parse_id(rating["_id"], path, line, f"a rated _id of request {qid!r}")
            collector.add(qid, doc, parse_grade(rating["rating"], path, line, f"request {qid!r} _id {doc!r}"), line)
    return collector.judgments()


RANK_EVAL = _preset(
    "rank_eval",
    "an Elasticsearch _rank_eval response",
    ColumnMap(id=("id",), query=(), retrieved=("_id",), relevant=(), scores=("_score",)),
    _rank_eval_rows,
    _rank_eval_qrels,
)

#: Every preset, in the order ``--input-format`` lists them.
PRESETS = (LLAMAINDEX, MLFLOW, OPENINFERENCE, RANK_EVAL)
