"""The query view's data: for every query, its text, its judgments and each run's top K, side by
side, with each run's figures on the compared metrics; what the page's script draws when a query id
is opened (``queries.html#q=ID``).

Compact by design, as a report may hold 100,000 queries: every document id is written once (a
table of ids; lists hold indices into it), each run's list is its top K only, and a query keeps only
the judgments of the ids some run shows plus its relevant ids no run shows. Text comes only for the
queries the report chose (``--text-queries``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis.values import family_values
from ..core.ids import as_text
from ..scoring.catalogue import COMPARED, Measure
from .wording import numbers as fmt
from .wording import report as say

if TYPE_CHECKING:
    from ..analysis.result import Analysis
    from ..analysis.summary import RunSummary

#: How many relevant ids that no run shows a query view lists (the count is always whole).
UNSHOWN_RELEVANT = 20


def _figures(summary: RunSummary, measures: Sequence[Measure]) -> dict[str, list[float | None]]:
    """Each query's value of every measure (None where the run did not score it), by query id."""
    rows = np.flatnonzero(summary.scores.scored)
    values = family_values(summary, rows, measures)
    out: dict[str, list[float | None]] = {}
    for q, row in zip(summary.judged.query_ids[rows].tolist(), values.tolist()):
        out[q] = [round(v, 6) for v in row]
    return out


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
    doc_index: dict[str, int] = {}

    def index_of(doc: str) -> int:
        found = doc_index.get(doc)
        if found is None:
            found = doc_index[doc] = len(doc_index)
        return found

    tops: list[dict[str, list[int]]] = []
    query_text: dict[str, str] = {}
    judgments: dict[str, dict[str, int]] = {}
    for summary in summaries:
        judged = summary.judged
        top: dict[str, list[int]] = {}
        ids = judged.query_ids.tolist()
        offsets = judged.offsets.tolist()
        docs = as_text(judged.doc_ids[judged.slot_rank <= k]) if len(judged.doc_ids) else []
        at = 0
        for q, query in enumerate(ids):
            length = min(offsets[q + 1] - offsets[q], k)
            if judged.in_run[q]:
                top[query] = [index_of(d) for d in docs[at : at + length]]
            at += length
        tops.append(top)
        for query, text in zip(ids, judged.query_text):
            if text and query not in query_text:
                query_text[query] = text
        query_of = judged.query_ids[judged.judgment_query].tolist()
        for query, doc, grade in zip(query_of, as_text(judged.judgment_doc_ids), judged.judgment_grades.tolist()):
            judgments.setdefault(query, {}).setdefault(doc, int(grade))
    figures = [_figures(s, measures) for s in summaries]
    level = summaries[0].judged.level
    every = sorted({q for s in summaries for q in s.judged.query_ids.tolist()})
    chosen = set(analysis.text_queries)
    meta = analysis.query_meta or {}
    queries = []
    for query in every:
        shown = {i for top in tops for i in top.get(query, [])}
        own = judgments.get(query, {})
        judged_shown = sorted([[doc_index[d], g] for d, g in own.items() if d in doc_index and doc_index[d] in shown])
        unshown = sorted(d for d, g in own.items() if g >= level and (d not in doc_index or doc_index[d] not in shown))
        queries.append(
            {
                "id": query,
                "text": query_text.get(query),
                "judged": judged_shown,
                "relevant": sum(1 for g in own.values() if g >= level),
                "unshown": unshown[:UNSHOWN_RELEVANT],
                "unshown_count": len(unshown),
                "tops": [top.get(query) for top in tops],
                "values": [f.get(query) for f in figures],
                "with_text": query in chosen,
            }
        )
        if meta.get(query):  # only where there is some: a report may hold 100,000 queries
            queries[-1]["meta"] = [[key, value] for key, value in meta[query].items()]
    docs_list = list(doc_index)
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
        "queries": queries,
    }
