"""The query view's data: for every query, its text, its judgments and each run's top K, side by
side, with each run's figures on the compared metrics; what the page's script draws when a query id
is opened (``queries.html#q=ID``).

Compact by design, as a report may hold 100,000 queries: every document id is written once (a
table of ids; lists hold indices into it), each run's list is its top K only, and a query keeps only
the judgments of the ids some run shows plus its relevant ids no run shows. Text comes only for the
queries the report chose (``--text-queries``).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analysis.compare import default_family, family_values
from ...core.apart import Apart
from ...core.ids import as_text, common_kind
from .view.cells import rounded
from .wording import numbers as fmt
from .wording import report as say

if TYPE_CHECKING:
    from ...analysis.pipeline import Analysis
    from ...analysis.shown import Shown

#: How many relevant ids that no run shows a query view lists (the count is always whole).
UNSHOWN_RELEVANT = 20

#: The query view's data block is gzipped at level 5: at 100,000 queries (29 MB of JSON) it packs
#: in 0.38 s of CPU to 5.97 MB, where level 9 takes 1.04 s for 5.63 MB; the browser inflates
#: either as fast (docs/conventions.md section 22.11).
QUERY_VIEW_LEVEL = 5


def packed(value: Any, level: int = 9) -> str:
    """JSON gzipped (at ``level``, mtime 0: the same bytes every build) in base64, for a data block
    the page's script inflates with the browser's DecompressionStream: about a fifth of the plain
    size."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=level, mtime=0)).decode("ascii")


class QueryView:
    """The query view's packed block, made in a forked child process while the rest of the site is
    built (docs/conventions.md section 22.25); ``runs`` and ``note`` (which queries it holds, when
    ``sample`` is given: section 29.1) are what the page reads of it before its text."""

    def __init__(self, analysis: Analysis, sample: Shown | None = None) -> None:
        self.runs = [s.name for s in analysis.summaries]
        self.note = None if sample is None else say.sample_note(say.VIEW_LISTING, sample)
        make = partial(query_view_data, analysis, analysis.doc_texts, sample)
        queries = sum(s.judged.n_queries for s in analysis.summaries)
        self._apart = Apart(lambda: packed(make(), QUERY_VIEW_LEVEL).encode("ascii"), queries)

    def packed(self) -> str:
        return self._apart.result().decode("ascii")


def text_table(texts: Mapping[str, tuple[str, str]] | None) -> dict[str, Any] | None:
    """The documents' text, once per report: the one table the run pages' top K and the query view
    share (docs/conventions.md section 24.3), column by column (a fifth smaller gzipped than one
    entry per document): ``ids``, ``titles``, ``texts`` (up to ``FULL_TEXT_CHARS``) and ``snippet``,
    where :func:`~.wording.numbers.snippet` cuts each text (None: whole), so that the page's script
    applies no rule of its own. None without text."""
    if not texts:
        return None
    ids = sorted(texts)
    bodies = [fmt.snippet(texts[d][1], fmt.FULL_TEXT_CHARS) for d in ids]
    return {
        "ids": ids,
        "titles": [texts[d][0] for d in ids],
        "texts": bodies,
        "snippet": [fmt.snippet_cut(b, fmt.SNIPPET_CHARS) for b in bodies],
    }


def _grouped(values: list[Any], counts: np.ndarray) -> list[list[Any]]:
    """``values`` cut into consecutive lists of ``counts`` items."""
    ends = np.cumsum(counts).tolist()
    return [values[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def _found(table: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Each value's index in the sorted ``table``, -1 where it is not there."""
    at = np.searchsorted(table, values)
    inside = at < len(table)
    hit = np.zeros(len(values), dtype=bool)
    hit[inside] = table[at[inside]] == values[inside]
    return np.where(hit, at, -1)


def query_view_data(
    analysis: Analysis, texts: Mapping[str, tuple[str, str]] | None = None, sample: Shown | None = None
) -> dict[str, Any]:
    """Everything the query view shows, for every query of the report in id order (see the module's
    docstring), or for those of ``sample`` alone (section 29.1); the documents' text is the report's
    one :func:`text_table`.

    ``queries`` holds one list per field, a query's values at one position in each. Every id some
    run shows is numbered in the order first shown (run by run, query by query, slot by slot):
    ``docs`` lists them, each run's top K (``tops[run]``, None where the run lists nothing) holds
    their numbers. A query keeps the judgments of the ids some run shows for it (``judged``:
    ``[number, grade]`` by number; the first grade any run's labels give), the count of its
    relevant ids and the first :data:`UNSHOWN_RELEVANT` relevant ids no run shows (by id), each
    run's values of the compared measures (``values[run]``, None where not scored), its metadata
    (``meta``, only when some query has any), its longer text (``detail``: a TREC topic's description
    and narrative, only when some query has one) and ``with_text`` lists the positions of the queries
    shown with their documents' text."""
    summaries = analysis.summaries
    k, level = summaries[0].k, summaries[0].judged.level
    comparison = analysis.comparison
    measures = list(comparison.family) if comparison is not None else list(default_family(k, summaries[0].suite))
    runs_queries = [as_text(s.judged.query_ids) for s in summaries]
    every = sorted({q for queries in runs_queries for q in queries})
    if sample is not None:
        every = sample.ids.tolist()
    position = {q: i for i, q in enumerate(every)}
    n = len(every)
    # Each run's queries by their place in ``every``, -1 where not listed.
    places = [np.array([position.get(q, -1) for q in queries], dtype=np.int64) for queries in runs_queries]
    listed = [s.judged.in_run & (place >= 0) for s, place in zip(summaries, places)]
    # Ids as one kind of array (UTF-8 bytes where a reader gave bytes: they sort as the text does).
    shown_counts = [np.where(flags, np.minimum(s.judged.lengths, k), 0) for s, flags in zip(summaries, listed)]
    kinds = common_kind(
        *(s.judged.doc_ids[s.judged.top_slots(k, flags)] for s, flags in zip(summaries, listed)),
        *(s.judged.judgment_doc_ids for s in summaries),
    )
    shown, label_ids = kinds[: len(summaries)], kinds[len(summaries) :]

    # Every shown id numbered in the order first shown; ``docs`` holds them sorted, for lookups.
    docs, first, inverse = np.unique(np.concatenate(shown), return_index=True, return_inverse=True)
    in_order = np.argsort(first, kind="stable")
    number_of = np.empty(len(docs), dtype=np.int64)
    number_of[in_order] = np.arange(len(docs))
    numbers = number_of[inverse.reshape(-1)]
    width = max(len(docs), 1)
    shown_keys = np.sort(np.concatenate([np.repeat(p, c) for p, c in zip(places, shown_counts)]) * width + numbers)

    # The judgments: the first grade any run's labels give each (query, id), in run order; the
    # runs of one label set hold the same ones, read once.
    labels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for summary, place, ids in zip(summaries, places, label_ids):
        own = (place[summary.judged.judgment_query], ids, np.asarray(summary.judged.judgment_grades, dtype=np.int64))
        if sample is not None:
            keep = own[0] >= 0
            own = (own[0][keep], own[1][keep], own[2][keep])
        if not any(all(np.array_equal(a, b) for a, b in zip(own, seen)) for seen in labels):
            labels.append(own)
    j_place, j_doc, j_grade = (np.concatenate(parts) for parts in zip(*labels))
    order = np.lexsort((np.arange(len(j_doc)), j_doc, j_place))  # by query, then id, then run order
    first_of = np.ones(len(order), dtype=bool)
    first_of[1:] = (np.diff(j_place[order]) != 0) | (j_doc[order][1:] != j_doc[order][:-1])
    j_place, j_doc, j_grade = (a[order[first_of]] for a in (j_place, j_doc, j_grade))  # by query, then id
    found = _found(docs, j_doc)
    j_number = np.where(found >= 0, number_of[found], -1)
    is_shown = (j_number >= 0) & (_found(shown_keys, j_place * width + j_number) >= 0)
    relevant = j_grade >= level
    pairs = np.lexsort((j_number, j_place))
    pairs = pairs[is_shown[pairs]]
    judged_lists = _grouped(
        np.stack([j_number[pairs], j_grade[pairs]], axis=1).tolist(), np.bincount(j_place[pairs], minlength=n)
    )
    unshown = relevant & ~is_shown  # by query, then id
    unshown_lists = _grouped(as_text(j_doc[unshown]), np.bincount(j_place[unshown], minlength=n))
    relevant_counts: list[int] = np.bincount(j_place[relevant], minlength=n).tolist()

    # Each run's top K and figures, by the report's place of each query; the queries' text.
    tops, values = [], []
    query_text: list[str | None] = [None] * n
    starts = np.cumsum([0, *map(len, shown)]).tolist()
    for summary, place, counts, start in zip(summaries, places, shown_counts, starts):
        top: list[list[int] | None] = [None] * n
        lists = _grouped(numbers[start : start + int(counts.sum())].tolist(), counts)
        for q, in_run, numbered in zip(place.tolist(), summary.judged.in_run.tolist(), lists):
            if in_run and q >= 0:
                top[q] = numbered
        tops.append(top)
        rows = np.flatnonzero(summary.scores.scored & (place >= 0))
        figures: list[list[float] | None] = [None] * n
        for q, row in zip(place[rows].tolist(), rounded(family_values(summary, rows, measures))):
            figures[q] = row
        values.append(figures)
        for q, text in zip(place.tolist(), summary.judged.query_text):
            if text and q >= 0 and query_text[q] is None:
                query_text[q] = text

    chosen = set(analysis.text_queries)
    meta = analysis.query_meta or {}
    # As columns, a query's values at one position in each: the keys are written once, not once a
    # query (a third of the block at 100,000 queries), and nothing is made per query but its lists.
    queries: dict[str, Any] = {
        "id": every,
        "text": query_text,
        "judged": judged_lists,
        "relevant": relevant_counts,
        "unshown": [ids[:UNSHOWN_RELEVANT] for ids in unshown_lists],
        "unshown_count": [len(ids) for ids in unshown_lists],
        "tops": tops,
        "values": values,
        "with_text": [q for q, query in enumerate(every) if query in chosen],
    }
    if any(meta.get(query) for query in every):  # only where there is some
        queries["meta"] = [[[k, v] for k, v in meta[query].items()] if meta.get(query) else None for query in every]
    details = analysis.query_details or {}
    if any(query in details for query in every):  # a TREC topic's description and narrative, where given
        queries["detail"] = [details.get(query) for query in every]
    return {
        "k": k,
        "level": level,
        "runs": [s.name for s in summaries],
        "baseline": comparison.baseline if comparison is not None else None,
        "primary": analysis.primary_label,
        "metrics": [m.label() for m in measures],
        "docs": as_text(docs[in_order]),
        "with_texts": bool(texts),
        "marks": list(say.MARKS),
        "words": say.QUERY_VIEW_WORDS if sample is None else {**say.QUERY_VIEW_WORDS, "unknown": say.unknown(sample)},
        "queries": queries,
    }
