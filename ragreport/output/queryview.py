"""The query view's data: for every query, its text, its judgments and each run's top K, side by
side, with each run's figures on the compared metrics; what the page's script draws when a query id
is opened (``queries.html#q=ID``).

Compact by design, as a report may hold 100,000 queries: every document id is written once (a
table of ids; lists hold indices into it), each run's list is its top K only, and a query keeps only
the judgments of the ids some run shows plus its relevant ids no run shows. Text comes only for the
queries the report chose (``--text-queries``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.values import family_values
from ..core.ids import as_text
from ..scoring.catalogue import COMPARED, Measure
from .view import encoded
from .view.distinct import numbered
from .wording import numbers as fmt
from .wording import report as say

if TYPE_CHECKING:
    from ..analysis.result import Analysis
    from ..analysis.summary import RunSummary

#: How many relevant ids that no run shows a query view lists (the count is always whole).
UNSHOWN_RELEVANT = 20


def _figure_rows(
    summary: RunSummary, measures: Sequence[Measure], places: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each scored query's values of every measure (rows x measures), and, for each of the
    report's ``n`` queries (``places``: the place of each of the run's queries), its row there
    (-1 where the run did not score it: written ``null``)."""
    rows = np.flatnonzero(summary.scores.scored)
    values = family_values(summary, rows, measures)
    row_at = np.full(n, -1, dtype=np.int64)
    row_at[places[rows]] = np.arange(len(rows))
    return values, row_at


def _figures(values: np.ndarray, row_at: np.ndarray) -> list[str]:
    """The values of the queries whose rows are ``row_at`` as written lists (``null`` at -1)."""
    present = row_at >= 0
    chosen = values[row_at[present]]
    written = [encoded.decimals(column) for column in chosen.T]
    lists = list(map("[{}]".format, map(",".join, zip(*written)))) if written else ["[]"] * len(chosen)
    out = np.full(len(row_at), "null", dtype=object)
    out[present] = lists
    return out.tolist()


def _in_report_order(
    numbers: np.ndarray, places: np.ndarray, per_query: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """A run's shown slots (their id numbers, query by query in the run's order) rearranged in the
    report's order of queries, and where each of the ``n`` report's queries starts and ends there
    (n + 1 bounds; a query the run does not show has none)."""
    order = np.argsort(places, kind="stable")
    counts = per_query[order]
    starts = (np.cumsum(per_query) - per_query)[order]
    slots = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()), dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    lengths[places] = per_query
    return numbers[slots], np.concatenate([[0], np.cumsum(lengths)])


def _grouped_slice(items: Callable[[int, int], list[str]], bounds: np.ndarray, a: int, b: int) -> list[str]:
    """:func:`~.view.encoded.grouped` of the report's queries ``a`` to ``b`` alone: ``items(lo,
    hi)`` gives the written items of their slots."""
    lo = int(bounds[a])
    return encoded.grouped(items(lo, int(bounds[b])), bounds[a : b + 1] - lo)


#: The query view's items are written this many queries at a time: their strings (about ten per
#: query) are let go chunk by chunk, not held for every query of the report at once
#: (docs/conventions.md section 22.25).
CHUNK_QUERIES = 8192


def text_table(texts: Mapping[str, tuple[str, str]] | None) -> dict[str, Any] | None:
    """The documents' text, once per report: the one table the run pages' top K and the query view
    share (docs/conventions.md section 24.3), column by column (a fifth smaller gzipped than one
    entry per document): ``ids``, ``titles``, ``texts`` (as much as a page shows on demand,
    :data:`~ragreport.output.wording.numbers.FULL_TEXT_CHARS`) and ``snippet``, where the page cuts
    each text for its snippet (None: whole), so that the script applies
    :func:`~ragreport.output.wording.numbers.snippet`'s cut, not a rule of its own. None without text."""
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


def query_view_data(analysis: Analysis, texts: Mapping[str, tuple[str, str]] | None = None) -> dict[str, Any]:
    """Everything the query view shows, for every query of the report (see the module's docstring);
    the documents' text is the report's one :func:`text_table`."""
    summaries = analysis.summaries
    k = summaries[0].k
    comparison = analysis.comparison
    baseline = comparison.baseline if comparison is not None else None
    measures = list(comparison.family) if comparison is not None else [Measure(m.key, k) for m in COMPARED]
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    position = {q: i for i, q in enumerate(every)}
    n = len(every)
    # Every query's pieces are written as JSON column by column (:mod:`.view.encoded`), in arrays
    # over the report's queries (``every``, in id order): no Python object per query or per id.
    # Every id some run shows is numbered in the order first shown, then the other judged ids in
    # the order first judged (:func:`.view.distinct.numbered`: by sorts, not a dict of strings).
    shown_parts: list[np.ndarray] = []  # per run, the ids of its shown slots, query by query
    slot_places: list[np.ndarray] = []  # and the report's query of each
    runs_lists: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per run: places, lengths shown, in_run
    query_text: list[str | None] = [None] * n
    judged_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for summary in summaries:
        judged = summary.judged
        places = np.array([position[q] for q in judged.query_ids.tolist()], dtype=np.int64)
        # The first min(length, K) slots of each query the run lists (a query only the qrels hold
        # has no list), by their positions: not a pass over every slot of every list.
        per_query = np.where(judged.in_run, np.minimum(judged.lengths, k), 0)
        keep = judged.top_slots(k, judged.in_run)
        shown_parts.append(judged.doc_ids[keep])
        slot_places.append(np.repeat(places, per_query))
        runs_lists.append((places, per_query, np.asarray(judged.in_run, dtype=bool)))
        for q, text in zip(places.tolist(), judged.query_text):
            if text and query_text[q] is None:
                query_text[q] = text
        # Runs judged by one label set hold the same judgments: a run's that repeat an earlier
        # run's add nothing (the first grade of each pair is kept).
        of_query, grades = places[judged.judgment_query], np.asarray(judged.judgment_grades)
        if not any(
            np.array_equal(of_query, q) and np.array_equal(grades, g) and np.array_equal(judged.judgment_doc_ids, d)
            for q, g, d in judged_parts
        ):
            judged_parts.append((of_query, grades, judged.judgment_doc_ids))
    distinct, numbers = numbered([*shown_parts, *(p[2] for p in judged_parts)])
    sizes = [len(p) for p in shown_parts]
    slots_shown = sum(sizes)
    del shown_parts
    shown_ids = int(numbers[:slots_shown].max()) + 1 if slots_shown else 0  # the shown ids come first
    # Each number written once (a shown id's number is below ``shown_ids``), then looked up; each
    # run's shown slots in the report's order of queries, so that a chunk of queries is a slice.
    written_numbers = np.array(list(map(str, range(shown_ids))), dtype=object)
    tops: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per run: slots, bounds, listed
    start = 0
    for size, (places, per_query, in_run) in zip(sizes, runs_lists):
        report_slots, report_bounds = _in_report_order(numbers[start : start + size], places, per_query, n)
        start += size
        listed = np.zeros(n, dtype=bool)
        listed[places[in_run]] = True
        tops.append((report_slots, report_bounds, listed))
    figures = [_figure_rows(s, measures, places, n) for s, (places, _, _) in zip(summaries, runs_lists)]
    level = summaries[0].judged.level

    # The judgments: the first grade any run's labels give each (query, id), in run order.
    total = len(distinct)
    j_query = np.concatenate([p[0] for p in judged_parts]) if judged_parts else np.zeros(0, dtype=np.int64)
    j_doc = numbers[slots_shown:]
    j_grade = np.concatenate([p[1] for p in judged_parts]).astype(np.int64) if judged_parts else j_doc
    _, first = np.unique(j_query * max(total, 1) + j_doc, return_index=True)  # sorted by query, id
    j_query, j_doc, j_grade = j_query[first], j_doc[first], j_grade[first]
    shown = j_doc < shown_ids
    if shown.any():
        slots = np.sort(np.concatenate(slot_places) * shown_ids + numbers[:slots_shown])
        wanted = j_query[shown] * shown_ids + j_doc[shown]
        at = np.minimum(np.searchsorted(slots, wanted), len(slots) - 1)
        shown[shown] = slots[at] == wanted
    del slot_places
    relevant = j_grade >= level
    # Shown judgments, as [index, grade] sorted by index (the ids' order within a query).
    pair_docs, pair_grades = j_doc[shown], j_grade[shown]
    pair_bounds = _bounds(j_query[shown], n)
    # Relevant ids no run shows, by id (as text) within each query, the first UNSHOWN_RELEVANT.
    unshown = relevant & ~shown
    u_query, u_doc = j_query[unshown], j_doc[unshown]
    unshown_ids = np.unique(u_doc)
    unshown_names = as_text(distinct[unshown_ids])
    names = np.empty(total, dtype=object)
    names[unshown_ids] = unshown_names
    rank = np.empty(total, dtype=np.int64)
    rank[unshown_ids[sorted(range(len(unshown_names)), key=unshown_names.__getitem__)]] = np.arange(len(unshown_ids))
    order = np.lexsort((rank[u_doc], u_query))
    u_query, u_doc = u_query[order], u_doc[order]
    u_bounds = _bounds(u_query, n)
    within = np.arange(len(u_query)) - np.repeat(u_bounds[:-1], np.diff(u_bounds))
    first_few = within < UNSHOWN_RELEVANT
    few_names = names[u_doc[first_few]]
    few_bounds = _bounds(u_query[first_few], n)
    relevant_counts = np.bincount(j_query[relevant], minlength=n)
    unshown_counts = np.diff(u_bounds)
    del names, numbers

    chosen = set(analysis.text_queries)
    meta = analysis.query_meta or {}
    item = (
        '{{"id":{},"text":{},"judged":{},"relevant":{},"unshown":{},"unshown_count":{},'
        '"tops":[{}],"values":[{}],"with_text":{}{}}}'
    ).format

    def pairs(lo: int, hi: int) -> list[str]:
        return list(map("[{},{}]".format, pair_docs[lo:hi].tolist(), pair_grades[lo:hi].tolist()))

    def unshown_texts(lo: int, hi: int) -> list[str]:
        return encoded.texts(few_names[lo:hi].tolist())

    def top_lists(a: int, b: int, report_slots: np.ndarray, bounds: np.ndarray, listed: np.ndarray) -> list[str]:
        lists = np.empty(b - a, dtype=object)
        lists[:] = _grouped_slice(lambda lo, hi: written_numbers[report_slots[lo:hi]].tolist(), bounds, a, b)
        out = np.full(b - a, "null", dtype=object)
        out[listed[a:b]] = lists[listed[a:b]]
        return out.tolist()

    # Every query's item, a chunk of queries at a time (its strings let go before the next).
    chunks = []
    for a in range(0, n, CHUNK_QUERIES):
        b = min(n, a + CHUNK_QUERIES)
        ids = every[a:b]
        chunk = map(
            item,
            encoded.texts(ids),
            encoded.texts(query_text[a:b]),
            _grouped_slice(pairs, pair_bounds, a, b),
            relevant_counts[a:b].tolist(),
            _grouped_slice(unshown_texts, few_bounds, a, b),
            unshown_counts[a:b].tolist(),
            map(",".join, zip(*(top_lists(a, b, *top) for top in tops))),
            map(",".join, zip(*(_figures(values, row_at[a:b]) for values, row_at in figures))),
            ("true" if q in chosen else "false" for q in ids),
            # only where there is some: a report may hold 100,000 queries
            (_meta(meta.get(q)) for q in ids),
        )
        chunks.append(",".join(chunk))
    docs_list = as_text(distinct[:shown_ids])
    return {
        "k": k,
        "level": level,
        "runs": [s.name for s in summaries],
        "baseline": baseline,
        "primary": analysis.primary_label,
        "metrics": [m.label() for m in measures],
        "docs": docs_list,
        "with_texts": bool(texts),
        "marks": list(say.MARKS),
        "words": say.QUERY_VIEW_WORDS,
        "queries": encoded.EncodedParts(chunks),
    }


def _meta(pairs: Mapping[str, Any] | None) -> str:
    """A query's metadata as the ``meta`` field's text, nothing without any."""
    return ',"meta":' + encoded.dumps([[key, value] for key, value in pairs.items()]) if pairs else ""


def _bounds(sorted_places: np.ndarray, n: int) -> np.ndarray:
    """Where each of ``n`` places starts and ends in an array of places in order (n + 1 bounds)."""
    return np.concatenate([[0], np.cumsum(np.bincount(sorted_places, minlength=n))])
