"""The queries' text, the documents' text and the per-query metadata a report shows, beside its figures.

The runs may carry each query's text and metadata (RAG JSONL) and their documents' text; a
``--queries``, ``--corpus`` or ``--query-meta`` file (or the mappings :func:`ragreport.api.analyse`
takes) gives the rest. The documents' text is read only for the queries the report points at
most (:func:`pointed_queries`), so that a corpus of millions of documents costs the few shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.ids import as_text
from .compare import family_values

#: How many queries' top K are shown with the documents' text by default (--text-queries).
TEXT_QUERIES = 1_000
#: The most queries whose documents' text a report may keep (``--text-queries``; docs/conventions.md section 23).
MAX_TEXT_QUERIES = 1_000_000

if TYPE_CHECKING:
    from ..scoring.measures import Measure
    from .compare import ComparisonReport
    from .summary import RunSummary


def with_query_text(summaries: Sequence[RunSummary], given: str | Path | Mapping[str, str]) -> list[RunSummary]:
    """The summaries with each query's text from ``given`` where the run gives none."""
    from ..reading import irds
    from ..reading.texts import read_queries

    wanted = {q for s in summaries for q in s.judged.query_ids.tolist()}
    dataset = irds.dataset_id(given)
    if dataset is not None:  # --queries irds:ID: the dataset's queries, through ir_datasets
        texts = irds.read_queries(dataset, wanted)
    elif isinstance(given, (str, Path)):
        texts = read_queries(given, wanted)
    else:
        texts = {str(q): t for q, t in given.items()}
    out = []
    for summary in summaries:
        judged = summary.judged
        filled = tuple(
            own if own is not None else texts.get(q) for q, own in zip(judged.query_ids.tolist(), judged.query_text)
        )
        out.append(dataclasses.replace(summary, judged=dataclasses.replace(judged, query_text=filled)))
    return out


def longer_texts(summaries: Sequence[RunSummary], given: str | Path | Mapping[str, str]) -> dict[str, str]:
    """Each query's longer text (a TREC topic's description and narrative) from a ``--queries``
    file; none from a mapping, an ir_datasets id or a file of another layout."""
    from ..reading import irds
    from ..reading.texts import read_query_details

    if not isinstance(given, (str, Path)) or irds.dataset_id(given) is not None:
        return {}
    return read_query_details(given, {q for s in summaries for q in s.judged.query_ids.tolist()})


def pointed_queries(
    summaries: Sequence[RunSummary],
    comparison: ComparisonReport | None,
    primary: Measure,
    most: int,
    first: Sequence[str] = (),
) -> tuple[str, ...]:
    """The queries the report points at most, up to ``most``: ``first`` (the slices' examples),
    then by the largest difference from the baseline on the primary metric over every compared run
    (the movers first), then the rest by id; for one run, its lowest primary scores first (its
    failures). Sorted by id."""
    score: dict[str, float] = {q: float("inf") for q in first}
    if comparison is not None:
        for run in comparison.runs:
            for q, d in (run.differences(primary.label()) or {}).items():
                score[q] = max(score.get(q, 0.0), abs(d))
    else:
        summary = summaries[0]
        rows = np.flatnonzero(summary.scores.scored)
        values = family_values(summary, rows, [primary])[:, 0]
        for q, v in zip(summary.judged.query_ids[rows].tolist(), values.tolist()):
            score[q] = max(score.get(q, 0.0), 1.0 - v)
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    ranked = sorted(every, key=lambda q: (-score.get(q, -1.0), q))
    return tuple(sorted(ranked[: max(0, most)]))


def read_texts(
    summaries: Sequence[RunSummary],
    queries: Sequence[str],
    corpus: str | Path | Mapping[str, tuple[str, str]],
    inline: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, tuple[str, str]]:
    """(title, text) of every document in the top K of ``queries`` in any run: from ``corpus``,
    else from the text the run files carry (``inline``)."""
    from ..reading import irds
    from ..reading.texts import read_corpus

    chosen = set(queries)
    wanted: set[str] = set()
    for summary in summaries:
        judged, k = summary.judged, summary.k
        rows = [i for i, q in enumerate(judged.query_ids.tolist()) if q in chosen]
        for row in rows:
            start = int(judged.offsets[row])
            end = min(int(judged.offsets[row + 1]), start + k)
            wanted.update(as_text(judged.doc_ids[start:end]))
    dataset = irds.dataset_id(corpus)
    if dataset is not None:  # --corpus irds:ID: the shown documents only, from the document store
        found = irds.read_docs(dataset, wanted)
    elif isinstance(corpus, (str, Path)):
        found = {d: (t.title, t.text) for d, t in read_corpus(corpus, wanted).items()}
    else:
        found = {str(d): (str(v[0]), str(v[1])) for d, v in corpus.items() if str(d) in wanted}
    for doc, text in (inline or {}).items():
        if doc in wanted:
            found.setdefault(doc, text)
    return dict(sorted(found.items()))


def merged_query_meta(
    summaries: Sequence[RunSummary], given: str | Path | Mapping[str, Mapping[str, object]] | None
) -> dict[str, dict[str, object]]:
    """Per-query metadata: what the runs carry (the first run that gives a query's wins), each
    query's keys replaced by those ``given`` (a ``--query-meta`` file or a mapping)."""
    from ..reading.querymeta import read_query_meta

    merged: dict[str, dict[str, object]] = {}
    for summary in summaries:
        judged = summary.judged
        for query, fields in zip(judged.query_ids.tolist(), judged.query_meta):
            if fields and query not in merged:
                merged[query] = dict(fields)
    if given is not None:
        extra = read_query_meta(given) if isinstance(given, (str, Path)) else given
        for query, fields in extra.items():
            merged.setdefault(str(query), {}).update(fields)
    return merged


def shown_texts(
    summaries: Sequence[RunSummary],
    comparison: ComparisonReport | None,
    primary: Measure,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None,
    most: int,
    first: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> tuple[tuple[str, ...], dict[str, tuple[str, str]] | None]:
    """The queries shown with their documents' text (:func:`pointed_queries`) and those documents'
    (title, text), from ``corpus`` or the runs' own; none when neither gives any text."""
    inline = {d: ("", t) for s in summaries if s.judged.doc_text for d, t in s.judged.doc_text.items()}
    if corpus is None and not inline:
        return (), None
    if progress is not None:
        progress("reading the corpus")
    chosen = pointed_queries(summaries, comparison, primary, most, first)
    return chosen, read_texts(summaries, chosen, corpus if corpus is not None else {}, inline)
