"""The text behind the ids: documents (``--corpus``) and queries (``--queries``), from the files
users have.

- Documents: BEIR ``corpus.jsonl`` (``{"_id", "title", "text"}`` per line); Pyserini's JSONL
  (``{"id" | "docid" | "doc_id", "contents" | "text", "title"?}``); TSV ``id<TAB>text`` (MS MARCO
  ``collection.tsv``), optionally ``id<TAB>title<TAB>text``; a BEIR folder (its ``corpus.jsonl``).
- Queries: BEIR ``queries.jsonl`` (``{"_id", "text"}``), JSONL with ``id``/``qid``/``query_id`` and
  ``text``/``query``/``title``; TSV ``qid<TAB>text`` (MS MARCO ``queries.*.tsv``); TREC topic files
  in every layout public collections use (:func:`_trec_topics`), whose descriptions and narratives
  are the queries' longer text (:func:`read_query_details`); a BEIR folder (its ``queries.jsonl``).

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
_OPENING = re.compile(r"<([a-z]+)>", re.I)
_CLOSING = re.compile(r"</[a-z]+>", re.I)
#: The label a classic TREC topic puts after a field's tag (``<num> Number: 301``, ``<desc> Description:``).
_LABEL = re.compile(r"\s*(?:Number|Topic|Description|Narrative)\s*:", re.I)
_TOPIC = re.compile(r"<topic\s+number\s*=\s*\"([^\"]+)\"[^>]*>(.*?)</topic>", re.S | re.I)
_XML_FIELD = re.compile(r"<(query|title|question|description|narrative)>(.*?)</\1>", re.S | re.I)
#: The fields that make a topic's longer text, in order: classic TREC's, then the XML tracks'.
_LONGER = ("desc", "narr", "question", "description", "narrative")


def _longer(fields: dict[str, str]) -> str:
    """A topic's longer text: its description and narrative fields, one paragraph each."""
    return "\n\n".join(" ".join(fields[key].split()) for key in _LONGER if fields.get(key, "").strip())


def _trec_topics(path: Path, text: str, wanted: Collection[str] | None) -> dict[str, tuple[str, str]]:
    """(title, longer text) of each topic of a TREC topic file, in the layouts public collections use:

    - ``<top>`` blocks, tags closed or not: classic TREC (Robust04, TREC-8: ``<num> Number: 301``,
      ``<title> ...``, ``<desc> Description:`` and ``<narr> Narrative:`` paragraphs, no closing
      tags) and terrier's (``<num>1</num><title>`` then the title on the next lines, ``</title>``).
      A field runs from its tag to the next tag; its label (``Number:``, ``Topic:``,
      ``Description:``, ``Narrative:``) is dropped; the id is the first word of ``<num>``; other
      fields (``<dom>``, ``<con>``, ...) are passed over.
    - XML ``<topic number="1">`` (TREC-COVID, the Web tracks): ``<query>`` (else ``<title>``) is
      the title, ``<question>``, ``<description>`` and ``<narrative>`` the longer text; entities are
      unescaped; subtopics are passed over.

    Blanks inside a field are collapsed; the longer text is its fields' paragraphs, joined by a
    blank line ("" when there is none). A topic without an id or a title is refused, naming its line."""
    import html

    found: dict[str, tuple[str, str]] = {}
    blocks = list(_TOP.finditer(text))
    for block in blocks:
        line = text.count("\n", 0, block.start()) + 1
        parts = _OPENING.split(_CLOSING.sub(" ", block.group(1)))  # [before, tag, body, tag, body, ...]
        fields: dict[str, str] = {}
        for tag, body in zip(parts[1::2], parts[2::2]):
            fields.setdefault(tag.lower(), _LABEL.sub("", body, count=1) if _LABEL.match(body) else body)
        number = fields.get("num", "").split()
        if not number:
            raise InputError(path, line, "<num> in each <top> topic", "none")
        title = " ".join(fields.get("title", "").split())
        if not title:
            raise InputError(path, line, f"<title> in topic {number[0]}", "none")
        if wanted is None or number[0] in wanted:
            found.setdefault(number[0], (title, _longer(fields)))
    if blocks:
        return found
    for topic in _TOPIC.finditer(text):
        fields = {m.group(1).lower(): html.unescape(m.group(2)) for m in _XML_FIELD.finditer(topic.group(2))}
        chosen = fields.get("query") or fields.get("title")
        if chosen is None:
            line = text.count("\n", 0, topic.start()) + 1
            raise InputError(path, line, "<query> or <title> in each <topic>", "none")
        identifier = topic.group(1).strip()
        if wanted is None or identifier in wanted:
            found.setdefault(identifier, (" ".join(chosen.split()), _longer(fields)))
    return found


def _topics_of(path: Path, wanted: Collection[str] | None) -> dict[str, tuple[str, str]] | None:
    """The topics of a TREC topic file (:func:`_trec_topics`); None when the file is no topic file
    (its first line starts with no tag)."""
    first, lines = _peek(_open_lines(path))
    if first is None or not first[1].lstrip().startswith("<"):
        return None
    found = _trec_topics(path, "\n".join(line for _, line in lines), wanted)
    if not found and wanted is None:
        raise InputError(path, first[0], "TREC topics (<top> with <num> and <title>, or <topic number=...>)", "none")
    return found


def read_query_details(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, str]:
    """The longer text (description, narrative) of each query of a TREC topic file whose id is in
    ``wanted`` and that has one; {} for the other query files, which hold none."""
    path = _in_folder(Path(path), "queries.jsonl", "--queries")
    topics = _topics_of(path, wanted) or {}
    return {identifier: longer for identifier, (_, longer) in topics.items() if longer}


def read_queries(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, str]:
    """The text of each query of ``path`` whose id is in ``wanted`` (every query when None). The
    format is told by the first line: a JSON object, a TREC topic tag (``<top>``, ``<topics>``,
    ``<topic``), else TSV."""
    path = _in_folder(Path(path), "queries.jsonl", "--queries")
    topics = _topics_of(path, wanted)
    if topics is not None:
        return {identifier: title for identifier, (title, _) in topics.items()}
    first, lines = _peek(_open_lines(path))
    if first is None:
        return {}
    if first[1].lstrip().startswith(("{", "[")):
        rows = _jsonl(path, lines, ("_id", "id", "qid", "query_id"), ("text", "query", "title"), wanted, "a query")
    else:
        rows = _tsv(path, lines, wanted, titled=False)
    result: dict[str, str] = {}
    for identifier, _, text in rows:
        result.setdefault(identifier, text)
    return result
