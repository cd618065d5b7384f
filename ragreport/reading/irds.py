"""Datasets by ir_datasets id: ``--qrels irds:ID``, ``--queries irds:ID``, ``--corpus irds:ID``.

With the optional extra ``ragreport[irds]`` (ir_datasets), a value ``irds:msmarco-passage/dev/small``
reads the dataset's judgments, queries or the shown documents' text through ir_datasets and its
cache (``IR_DATASETS_HOME``, default ``~/.ir_datasets``), as ir_measures' CLI, ranx's
``Qrels.from_ir_datasets``, PyTerrier and diffir take them (docs/conventions.md section 21.6).
ir_datasets is imported only when such a value is given. The judgments go through the same
builder, and so the same id gate, as a qrels file's: their fingerprint is the file's. Their source
reads ``irds:ID``; the report records the id and ir_datasets' version (:func:`dataset_record`).
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager, redirect_stderr
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import UsageError, shorten
from .rows import JudgmentCollector

if TYPE_CHECKING:
    from ..core.model import Judgments

PREFIX = "irds:"


def dataset_id(value: object) -> str | None:
    """The dataset id of an ``irds:ID`` value, None for any other (a path)."""
    if isinstance(value, (str, Path)) and str(value).startswith(PREFIX):
        return str(value)[len(PREFIX) :]
    return None


def version() -> str | None:
    """ir_datasets' version, None when it is not installed (read without importing it)."""
    from importlib import metadata

    try:
        return metadata.version("ir_datasets")
    except metadata.PackageNotFoundError:
        return None


def _dataset(identifier: str, flag: str, has: str) -> Any:
    try:
        import ir_datasets  # type: ignore[import-untyped]
    except ImportError:
        install = "pip install 'ragreport[irds]'"
        raise UsageError(f"irds: datasets by id need ir_datasets, which is not installed: {install}") from None
    try:
        dataset = ir_datasets.load(identifier)
    except KeyError:
        raise UsageError(f"{flag} irds:{shorten(identifier, quote=False)}: ir_datasets knows no such dataset") from None
    if not getattr(dataset, f"has_{has}")():
        raise UsageError(f"{flag} irds:{shorten(identifier, quote=False)}: the dataset has no {has}")
    return dataset


@contextmanager
def _fetching(identifier: str, flag: str, part: str) -> Iterator[Any]:
    """The dataset, to read its ``part`` (qrels, queries, docs) with ir_datasets' own output kept
    off the terminal; a dataset neither cached nor fetchable is one line naming it and the
    ``ir_datasets export`` command that would get it.

    ir_datasets logs through its own handler (``[WARNING] Download failed: ...``, ``[INFO]``) and
    draws tqdm progress bars (``docs_iter: 0%``), both on ``sys.stderr``: its loggers are silenced
    up to WARNING and ``sys.stderr`` is held for the call, so the one error line is all a refusal
    prints (docs/safety.md), and a fetch that works says what ragreport's own progress says."""
    dataset = _dataset(identifier, flag, part)
    quiet = logging.root.manager.disable  # ir_datasets' loggers set their own levels
    logging.disable(max(quiet, logging.WARNING))
    try:
        with redirect_stderr(io.StringIO()):
            yield dataset
    except (UsageError, KeyboardInterrupt):
        raise
    except Exception as exc:  # a download error of any kind (requests, OSError, a checksum)
        home = os.environ.get("IR_DATASETS_HOME", "~/.ir_datasets")
        raise UsageError(
            f"{flag} irds:{shorten(identifier, quote=False)}: not in the ir_datasets cache ({home}) and "
            f"could not be fetched ({type(exc).__name__}); where there is a network, "
            f"`ir_datasets export {identifier} {part}` writes it, or set IR_DATASETS_HOME to a cache that holds it"
        ) from None
    finally:
        logging.disable(quiet)


def read_qrels(identifier: str, flag: str = "--qrels") -> Judgments:
    """The dataset's judgments, built as a qrels file's are (the id gate, one grade per pair);
    ``flag`` (``--qrels``, ``--audit``) names them in an error.

    A record's number is its line in ``ir_datasets export ID qrels``, which errors name."""
    collector = JudgmentCollector(Path(PREFIX + identifier))
    with _fetching(identifier, flag, "qrels") as dataset:
        for line, qrel in enumerate(dataset.qrels_iter(), start=1):
            collector.add(str(qrel.query_id), str(qrel.doc_id), int(qrel.relevance), line)
    return collector.judgments()


def read_queries(identifier: str, wanted: Collection[str] | None = None) -> dict[str, str]:
    """The text of each of the dataset's queries in ``wanted`` (all when None)."""
    found: dict[str, str] = {}
    with _fetching(identifier, "--queries", "queries") as dataset:
        for query in dataset.queries_iter():
            qid = str(query.query_id)
            if wanted is None or qid in wanted:
                found.setdefault(qid, str(query.default_text()))
    return found


def read_docs(identifier: str, wanted: Collection[str]) -> dict[str, tuple[str, str]]:
    """(title, text) of the documents in ``wanted``, through the dataset's document store: only
    the shown documents are looked up, never the whole corpus read."""
    with _fetching(identifier, "--corpus", "docs") as dataset:
        found = dataset.docs_store().get_many(list(wanted))
    return {
        str(doc_id): (str(getattr(doc, "title", "") or ""), str(getattr(doc, "text", None) or doc.default_text()))
        for doc_id, doc in found.items()
    }


def official_measures(identifier: str) -> tuple[str, ...]:
    """The measures ir_datasets documents as the dataset's official ones (``official_measures``),
    () when it documents none."""
    dataset = _dataset(identifier, "--qrels", "qrels")
    documentation = dataset.documentation() if hasattr(dataset, "documentation") else {}
    return tuple(str(m) for m in (documentation or {}).get("official_measures", ()))


def dataset_record(source: str) -> dict[str, str | None] | None:
    """What the report records of judgments read by id: the dataset id and ir_datasets' version
    (None for judgments from a file)."""
    identifier = dataset_id(source)
    return None if identifier is None else {"dataset": identifier, "ir_datasets": version()}
