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

from ..analysis.values import family_values
from ..core.apart import Apart
from ..core.ids import as_text
from ..scoring.catalogue import COMPARED, Measure
from .view.cells import rounded
from .wording import numbers as fmt
from .wording import report as say

if TYPE_CHECKING:
    from ..analysis.result import Analysis

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
    """The query view's block as the page holds it (:func:`query_view_data`, :func:`packed` at
    :data:`QUERY_VIEW_LEVEL`), made in a forked child process while the rest of the site is built
    (:class:`~ragreport.core.apart.Apart`; docs/conventions.md section 22.25): ``runs`` is what the
    page reads of it before its text."""

    def __init__(self, analysis: Analysis) -> None:
        self.runs = [s.name for s in analysis.summaries]
        make = partial(query_view_data, analysis, analysis.doc_texts)
        queries = sum(s.judged.n_queries for s in analysis.summaries)
        self._apart = Apart(lambda: packed(make(), QUERY_VIEW_LEVEL).encode("ascii"), queries)

    def packed(self) -> str:
        """The block's packed text (the child's, once it is done)."""
        return self._apart.result().decode("ascii")


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
    """Everything the query view shows, for every query of the report in id order (see the module's
    docstring); the documents' text is the report's one :func:`text_table`.

    Every id some run shows is numbered in the order first shown (run by run, query by query, slot
    by slot): ``docs`` lists them, each run's top K (``tops``, None where the run lists nothing)
    holds their numbers. A query keeps the judgments of the ids some run shows for it (``judged``:
    ``[number, grade]`` by number; the first grade any run's labels give), the count of its
    relevant ids and the first :data:`UNSHOWN_RELEVANT` relevant ids no run shows (by id), each
    run's values of the compared measures (``values``, None where not scored) and its metadata."""
    summaries = analysis.summaries
    k = summaries[0].k
    comparison = analysis.comparison
    measures = list(comparison.family) if comparison is not None else [Measure(m.key, k) for m in COMPARED]
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    position = {q: i for i, q in enumerate(every)}
    n = len(every)
    numbers: dict[str, int] = {}
    tops: list[list[list[int] | None]] = []
    values: list[list[list[float] | None]] = []
    query_text: list[str | None] = [None] * n
    grades: list[dict[str, int]] = [{} for _ in range(n)]
    seen_labels: list[tuple[np.ndarray, ...]] = []
    for summary in summaries:
        judged = summary.judged
        places = np.array([position[q] for q in judged.query_ids.tolist()], dtype=np.int64)
        shown = as_text(judged.doc_ids[judged.top_slots(k, judged.in_run)])
        top: list[list[int] | None] = [None] * n
        at = 0
        for place, listed, length in zip(places.tolist(), judged.in_run.tolist(), judged.lengths.tolist()):
            if listed:
                count = min(length, k)
                top[place] = [numbers.setdefault(d, len(numbers)) for d in shown[at : at + count]]
                at += count
        tops.append(top)
        rows = np.flatnonzero(summary.scores.scored)
        figures: list[list[float] | None] = [None] * n
        for place, row in zip(places[rows].tolist(), rounded(family_values(summary, rows, measures))):
            figures[place] = row
        values.append(figures)
        for place, text in zip(places.tolist(), judged.query_text):
            if text and query_text[place] is None:
                query_text[place] = text
        # Runs judged by one label set hold the same judgments: read once.
        labels = (judged.judgment_query, judged.judgment_grades, judged.judgment_doc_ids)
        if any(all(np.array_equal(a, b) for a, b in zip(labels, seen)) for seen in seen_labels):
            continue
        seen_labels.append(labels)
        ids = as_text(judged.judgment_doc_ids)
        for place, doc, grade in zip(places[judged.judgment_query].tolist(), ids, judged.judgment_grades.tolist()):
            grades[place].setdefault(doc, grade)

    level = summaries[0].judged.level
    chosen = set(analysis.text_queries)
    meta = analysis.query_meta or {}
    items = []
    for place, query in enumerate(every):
        shown_here = {d for top in tops for d in top[place] or ()}
        judged_here = sorted((numbers[d], g) for d, g in grades[place].items() if numbers.get(d) in shown_here)
        unshown = sorted(d for d, g in grades[place].items() if g >= level and numbers.get(d) not in shown_here)
        item: dict[str, Any] = {
            "id": query,
            "text": query_text[place],
            "judged": [list(pair) for pair in judged_here],
            "relevant": sum(g >= level for g in grades[place].values()),
            "unshown": unshown[:UNSHOWN_RELEVANT],
            "unshown_count": len(unshown),
            "tops": [top[place] for top in tops],
            "values": [figures[place] for figures in values],
            "with_text": query in chosen,
        }
        if meta.get(query):  # only where there is some: a report may hold 100,000 queries
            item["meta"] = [[key, value] for key, value in meta[query].items()]
        items.append(item)
    return {
        "k": k,
        "level": level,
        "runs": [s.name for s in summaries],
        "baseline": comparison.baseline if comparison is not None else None,
        "primary": analysis.primary_label,
        "metrics": [m.label() for m in measures],
        "docs": list(numbers),
        "with_texts": bool(texts),
        "marks": list(say.MARKS),
        "words": say.QUERY_VIEW_WORDS,
        "queries": items,
    }
