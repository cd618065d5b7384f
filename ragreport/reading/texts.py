"""The text behind the ids: documents (``--corpus``) and queries (``--queries``), from the files
users have.

- Documents: BEIR ``corpus.jsonl`` (``{"_id", "title", "text"}`` per line); Pyserini's JSONL
  (``{"id" | "docid" | "doc_id", "contents" | "text", "title"?}``); TSV ``id<TAB>text`` (MS MARCO
  ``collection.tsv``), optionally ``id<TAB>title<TAB>text``; a BEIR folder (its ``corpus.jsonl``).
- Queries: BEIR ``queries.jsonl`` (``{"_id", "text"}``), JSONL with ``id``/``qid``/``query_id`` and
  ``text``/``query``/``title``; TSV ``qid<TAB>text`` (MS MARCO ``queries.*.tsv``); TREC topic files
  (``<top>`` blocks with ``<num>`` and ``<title>``, or XML ``<topic number="N">`` with ``<query>``
  or ``<title>``); a BEIR folder (its ``queries.jsonl``).

Every file may be gzip-compressed (gzip's magic bytes decide). A file is read once, as a stream
of lines, and only the ids asked for are kept: a corpus of millions of passages costs the memory
of the passages a report shows. Every problem is one line naming the file and the line.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
import zlib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..core.errors import InputError, shorten
from .files import read_errors, refuse_special
from .jsontext import load_json_line

#: The file a BEIR folder keeps its documents in.
BEIR_CORPUS = "corpus.jsonl"


@dataclass(frozen=True)
class DocText:
    """A document's title (empty when the file gives none) and text."""

    title: str
    text: str


def _in_folder(path: Path, name: str, option: str) -> Path:
    """A BEIR folder's ``name`` (or ``name.gz``), else the path itself."""
    if not path.is_dir():
        return path
    for candidate in (path / name, path / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise InputError(path, None, f"a file, or a BEIR folder holding {name} (for {option})", "a folder without it")


def _open_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line without its end) of a UTF-8 text file, gunzipped when it is gzip."""
    refuse_special(path)  # a FIFO would block the open itself, /dev/zero never end
    with read_errors(path):
        raw: IO[bytes] = path.open("rb")
    number = 0
    with raw:
        magic = raw.read(2)
        raw.seek(0)
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw) if magic == b"\x1f\x8b" else raw  # type: ignore[assignment]
        try:
            for number, data in enumerate(stream, 1):
                try:
                    line = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(path, number, "UTF-8 text", f"byte 0x{data[exc.start]:02x}") from None
                if number == 1:
                    line = line.removeprefix("\ufeff")
                yield number, line.rstrip("\r\n")
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(path, number + 1, "a complete gzip file", str(exc) or type(exc).__name__) from None


def _text_value(value: object, path: Path, line: int, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(path, line, f"{what} as a string", type(value).__name__)
    return value


#: A JSONL line's id, found without parsing the line: a corpus line whose id is not wanted is
#: skipped at the cost of a regular expression, not of json.loads.
_JSON_ID = re.compile(r'"(?:_id|id|docid|doc_id|qid|query_id)"\s*:\s*(?:"((?:[^"\\]|\\.)*)"|(-?\d+))')


def _quick_id(line: str) -> str | None:
    """The line's id when the scan can tell it for sure, else None (the line is then parsed): one
    id key on the line, in the outermost object (a nested object's ``id`` before the document's
    own ``_id`` would skip the document)."""
    found = _JSON_ID.search(line)
    if found is None:
        return None
    before = line[: found.start()]
    if before.count("{") + before.count("[") != 1 or _JSON_ID.search(line, found.end()) is not None:
        return None
    if found.group(2) is not None:
        return found.group(2)
    raw = found.group(1)
    return json.loads(f'"{raw}"') if "\\" in raw else raw


def _jsonl(
    path: Path,
    lines: Iterator[tuple[int, str]],
    id_keys: tuple[str, ...],
    text_keys: tuple[str, ...],
    wanted: Collection[str] | None,
    what: str,
) -> Iterator[tuple[str, str, str]]:
    """(id, title, text) of each JSONL line whose id is wanted."""
    for number, line in lines:
        if not line.strip():
            continue
        if wanted is not None:
            quick = _quick_id(line)
            if quick is not None and quick.strip() not in wanted:
                continue
        record = load_json_line(path, number, line, what)
        id_key = next((key for key in id_keys if key in record), None)
        if id_key is None:
            raise InputError(path, number, f"an id under one of {', '.join(id_keys)}", ", ".join(record) or "none")
        raw_id = record[id_key]
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            raise InputError(path, number, f"{id_key} as a string or an integer", shorten(repr(raw_id)))
        identifier = str(raw_id).strip()
        if not identifier:
            raise InputError(path, number, f"a non-empty {id_key}", "an empty one")
        if wanted is not None and identifier not in wanted:
            continue
        text_key = next((key for key in text_keys if key in record), None)
        if text_key is None:
            raise InputError(path, number, f"text under one of {', '.join(text_keys)}", ", ".join(record))
        text = _text_value(record[text_key], path, number, text_key)
        title = _text_value(record.get("title"), path, number, "title") if text_key != "title" else ""
        yield identifier, title, text


def _tsv(
    path: Path, lines: Iterator[tuple[int, str]], wanted: Collection[str] | None, titled: bool
) -> Iterator[tuple[str, str, str]]:
    """(id, title, text) of each ``id<TAB>text`` (or ``id<TAB>title<TAB>text``) line whose id is wanted."""
    for number, line in lines:
        if not line.strip():
            continue
        identifier, tab, rest = line.partition("\t")
        if not tab:
            raise InputError(path, number, "id<TAB>text", shorten(line))
        identifier = identifier.strip()
        if wanted is not None and identifier not in wanted:
            continue
        if not identifier:
            raise InputError(path, number, "a non-empty id before the tab", "an empty one")
        title, text = "", rest
        if titled and "\t" in rest:
            title, _, text = rest.partition("\t")
        yield identifier, title, text


def _peek(lines: Iterator[tuple[int, str]]) -> tuple[tuple[int, str] | None, Iterator[tuple[int, str]]]:
    """The first non-blank line (None when there is none), and the lines again from the start."""
    seen: list[tuple[int, str]] = []
    for item in lines:
        seen.append(item)
        if item[1].strip():
            return item, itertools.chain(seen, lines)
    return None, iter(())


def read_corpus(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, DocText]:
    """The title and text of each document of ``path`` whose id is in ``wanted`` (every document
    when ``wanted`` is None). The format is told by the first line: a JSON object, else TSV."""
    path = _in_folder(Path(path), BEIR_CORPUS, "--corpus")
    first, lines = _peek(_open_lines(path))
    found: dict[str, DocText] = {}
    if first is None:
        return found
    if first[1].lstrip().startswith(("{", "[")):
        text_keys = ("text", "contents", "body", "passage")
        rows = _jsonl(path, lines, ("_id", "id", "docid", "doc_id"), text_keys, wanted, "a document")
    else:
        rows = _tsv(path, lines, wanted, titled=True)
    for identifier, title, text in rows:
        found.setdefault(identifier, DocText(title, text))  # the first line of an id counts
    return found


_TOP = re.compile(r"<top>(.*?)</top>", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*(\S+)", re.I)
_TITLE = re.compile(r"<title>\s*(?:Topic:)?\s*(.*?)\s*(?=<desc>|<narr>|<[a-z]+>|</top>|$)", re.S | re.I)
_TOPIC = re.compile(r"<topic\s+number\s*=\s*\"([^\"]+)\"[^>]*>(.*?)</topic>", re.S | re.I)
_XML_FIELD = re.compile(r"<(query|title)>(.*?)</\1>", re.S | re.I)


def _trec_topics(path: Path, text: str, wanted: Collection[str] | None) -> dict[str, str]:
    """Query text from TREC topic files: ``<top>`` blocks (``<num> Number: 301``, ``<title>``)
    or XML ``<topic number="1">`` with ``<query>`` (preferred) or ``<title>``."""
    import html

    found: dict[str, str] = {}
    blocks = list(_TOP.finditer(text))
    if blocks:
        for block in blocks:
            body = block.group(1)
            number = _NUM.search(body)
            title = _TITLE.search(body)
            line = text.count("\n", 0, block.start()) + 1
            if number is None:
                raise InputError(path, line, "<num> in each <top> topic", "none")
            if title is None or not title.group(1).strip():
                raise InputError(path, line, f"<title> in topic {number.group(1)}", "none")
            identifier = number.group(1).strip()
            if wanted is None or identifier in wanted:
                found.setdefault(identifier, " ".join(title.group(1).split()))
        return found
    for topic in _TOPIC.finditer(text):
        fields = {m.group(1).lower(): m.group(2) for m in _XML_FIELD.finditer(topic.group(2))}
        chosen = fields.get("query") or fields.get("title")
        if chosen is None:
            line = text.count("\n", 0, topic.start()) + 1
            raise InputError(path, line, "<query> or <title> in each <topic>", "none")
        identifier = topic.group(1).strip()
        if wanted is None or identifier in wanted:
            found.setdefault(identifier, html.unescape(" ".join(chosen.split())))
    return found


def read_queries(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, str]:
    """The text of each query of ``path`` whose id is in ``wanted`` (every query when None). The
    format is told by the first line: a JSON object, a TREC topic tag (``<top>``, ``<topics>``,
    ``<topic``), else TSV."""
    path = _in_folder(Path(path), "queries.jsonl", "--queries")
    first, lines = _peek(_open_lines(path))
    if first is None:
        return {}
    head = first[1].lstrip()
    if head.startswith("<"):
        text = "\n".join(line for _, line in lines)
        found = _trec_topics(path, text, wanted)
        if not found and wanted is None:
            raise InputError(
                path, first[0], "TREC topics (<top> with <num> and <title>, or <topic number=...>)", "none"
            )
        return found
    if head.startswith(("{", "[")):
        rows = _jsonl(path, lines, ("_id", "id", "qid", "query_id"), ("text", "query", "title"), wanted, "a query")
    else:
        rows = _tsv(path, lines, wanted, titled=False)
    result: dict[str, str] = {}
    for identifier, _, text in rows:
        result.setdefault(identifier, text)
    return result
