"""The queries' text, the documents' text and the per-query metadata a report shows, beside its figures.

The runs may carry each query's text and metadata (RAG JSONL) and their documents' text; a
``--queries``, ``--corpus`` or ``--query-meta`` file (or the mappings :func:`ragreport.api.analyse`
takes) gives the rest. The documents' text is read only for the queries the report points at
most (:func:`shown_texts`), so that a corpus of millions of documents costs the few shown.

A file (or an ``irds:`` dataset) that gives its text or metadata for none of the report's ids is
refused, naming it and a few ids of each side; one that gives it for only some is warned of, with
the counts (:func:`check_matched`; docs/text-and-slices.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import UsageError, os_text, warn
from ..core.ids import as_bytes, as_text
from ..scoring.scorable import some_ids
from .compare import family_values
from .paired import paired_store

#: How many queries' top K are shown with the documents' text by default (--text-queries).
TEXT_QUERIES = 1_000
#: The most queries whose documents' text a report may keep (``--text-queries``; docs/conventions.md section 23).
MAX_TEXT_QUERIES = 1_000_000

if TYPE_CHECKING:
    from ..scoring.measures import Measure
    from .compare import ComparisonReport
    from .summary import RunSummary


class _Asked(set):
    """The ids wanted, keeping the first few ids a reader asks about (those it meets in a file, in
    file order): shown beside the report's when none of them is wanted."""

    def __init__(self, ids: set[str]):
        super().__init__(ids)
        self.met: list[str] = []

    def __contains__(self, item: object) -> bool:
        if len(self.met) < 4 and item not in self.met:  # 4: some_ids shows 3, and "..." past them
            self.met.append(str(item))
        return super().__contains__(item)


def check_matched(
    source: str,
    gives: str,
    wanted: set[str] | np.ndarray,
    found: Iterable[str],
    theirs: Sequence[str],
    what: str,
    whose: str = "the report's",
) -> None:
    """Refuse a file that gives ``gives`` (``"the text of"``) none of the report's ``wanted`` ids,
    ``what`` they are (``"queries"``): its ids are spelled otherwise, or it is another collection's.
    Warn, with the counts, of one that gives it for only some. ``found``: the ids it gives it for
    (any others are ignored; text, or an array of either kind); ``theirs``: a few of its ids, shown
    beside the report's; ``whose``: whose ids the wanted ones are, in the message (``"the sample's"``). Nothing is
    wanted: nothing to check. A file that gives it for every wanted id and more is the usual case
    (a topic file of a whole track for some of its queries)."""
    if not len(wanted):
        return
    if isinstance(wanted, np.ndarray):  # sorted UTF-8 bytes: every query of runs holding a sample's rows
        given = found if isinstance(found, np.ndarray) else np.array(list(found), dtype=str)
        matched = int(np.isin(as_bytes(given), wanted).sum()) if len(given) else 0
        first = as_text(wanted[:4])
    else:
        matched = sum(1 for i in (as_text(found) if isinstance(found, np.ndarray) else found) if i in wanted)
        first = sorted(wanted)[:4]
    if not matched:
        held = f"it has {some_ids(theirs)}; " if theirs else ""
        raise UsageError(
            f"{source} gives {gives} none of {whose} {what} ({held}the report has "
            f"{some_ids(first)}): check that both use the same ids"
        )
    if matched < len(wanted):
        left = len(wanted) - matched
        rest = f"the other {left:,} {'has' if left == 1 else 'have'} none"
        warn(f"{source} gives {gives} {matched:,} of {whose} {len(wanted):,} {what}; {rest}")


def with_query_text(
    summaries: Sequence[RunSummary], given: str | Path | Mapping[str, str], whose: str = "the report's"
) -> list[RunSummary]:
    """The summaries with each query's text from ``given`` where the run gives none; a file that
    gives the text of none of their queries (``whose``: the report's, or its sample's, when they
    hold a sample of them), or of only some, as :func:`check_matched` says."""
    from ..reading import irds
    from ..reading.texts import read_queries

    wanted = _Asked({q for s in summaries for q in s.judged.query_ids.tolist()})
    dataset = irds.dataset_id(given)
    if dataset is not None:  # --queries irds:ID: the dataset's queries, through ir_datasets
        texts = irds.read_queries(dataset, wanted)
    elif isinstance(given, (str, Path)):
        texts = read_queries(given, wanted)
    else:
        texts = {str(q): t for q, t in given.items()}
    if dataset is not None or isinstance(given, (str, Path)):
        check_matched(_named(given), "the text of", set(wanted), texts, wanted.met, "queries", whose)
    out = []
    for summary in summaries:
        judged = summary.judged
        filled = tuple(
            own if own is not None else texts.get(q) for q, own in zip(judged.query_ids.tolist(), judged.query_text)
        )
        out.append(dataclasses.replace(summary, judged=dataclasses.replace(judged, query_text=filled)))
    return out


def merged_query_meta(
    summaries: Sequence[RunSummary], given: str | Path | Mapping[str, Mapping[str, object]] | None
) -> Mapping[str, Mapping[str, object]]:
    """Per-query metadata: what the runs carry (the first run that gives a query's wins), each
    query's keys replaced by those ``given`` (a ``--query-meta`` file or a mapping). A file that
    gives metadata for none of the report's queries, or for only some, as :func:`check_matched`
    says. A file alone, for runs that carry none (TREC runs), is kept by column."""
    from ..reading.querymeta import read_query_meta

    merged: dict[str, dict[str, object]] = {}
    for summary in summaries:
        judged = summary.judged
        for query, fields in zip(judged.query_ids.tolist(), judged.query_meta):
            if fields and query not in merged:
                merged[query] = dict(fields)
    if given is None:
        return merged
    if not isinstance(given, (str, Path)):
        extra: Mapping[str, Mapping[str, object]] = given
    else:
        extra = table = read_query_meta(given)
        store = paired_store(summaries)
        wanted: set[str] | np.ndarray = (
            store.every
            if store is not None and store.every is not None
            else {q for s in summaries for q in s.judged.query_ids.tolist()}
        )
        check_matched(_named(given), "metadata for", wanted, table.ids, as_text(table.ids[:4]), "queries")
        if not merged:
            return table
    for query, fields in extra.items():
        merged.setdefault(str(query), {}).update(fields)
    return merged


def _named(given: object) -> str:
    """A file (or ``irds:ID``) as a message names it: a byte that was not UTF-8 shown as ``\\xff``."""
    return os_text(str(given))


def longer_texts(summaries: Sequence[RunSummary], given: str | Path | Mapping[str, str]) -> dict[str, str]:
    """Each query's longer text (a TREC topic's description and narrative) from a ``--queries``
    file; none from a mapping, an ir_datasets id or a file of another layout."""
    from ..reading import irds
    from ..reading.texts import read_query_details

    if not isinstance(given, (str, Path)) or irds.dataset_id(given) is not None:
        return {}
    return read_query_details(given, {q for s in summaries for q in s.judged.query_ids.tolist()})


def shown_texts(
    summaries: Sequence[RunSummary],
    comparison: ComparisonReport | None,
    primary: Measure,
    corpus: str | Path | Mapping[str, tuple[str, str]] | None,
    most: int,
    first: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> tuple[tuple[str, ...], dict[str, tuple[str, str]] | None]:
    """The queries shown with their documents' text, and (title, text) of every document in their
    top K in any run, from ``corpus`` or else from the text the run files carry; none when neither
    gives any text. A corpus file that gives the text of none of those documents, or of only some, as
    :func:`check_matched` says.

    The queries are those the report points at most, up to ``most``, sorted by id: ``first`` (the
    slices' examples), then by the largest difference from the baseline on the primary metric over
    every compared run (the movers first), then the rest by id; for one run, its lowest primary
    scores first (its failures).
    """
    from ..reading import irds
    from ..reading.texts import read_corpus

    inline = {d: ("", t) for s in summaries if s.judged.doc_text for d, t in s.judged.doc_text.items()}
    if corpus is None and not inline:
        return (), None
    if progress is not None:
        progress("reading the corpus")
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
    chosen = tuple(sorted(sorted(every, key=lambda q: (-score.get(q, -1.0), q))[: max(0, most)]))
    wanted = _Asked(set())
    shown = set(chosen)
    for summary in summaries:
        judged = summary.judged
        for row, q in enumerate(judged.query_ids.tolist()):
            if q in shown:
                start = int(judged.offsets[row])
                wanted.update(as_text(judged.doc_ids[start : min(int(judged.offsets[row + 1]), start + summary.k)]))
    corpus = {} if corpus is None else corpus
    dataset = irds.dataset_id(corpus)
    if dataset is not None:  # --corpus irds:ID: the shown documents only, from the document store
        found = irds.read_docs(dataset, wanted)
    elif isinstance(corpus, (str, Path)):
        found = {d: (t.title, t.text) for d, t in read_corpus(corpus, wanted).items()}
    else:
        found = {str(d): (str(v[0]), str(v[1])) for d, v in corpus.items() if str(d) in wanted}
    if dataset is not None or isinstance(corpus, (str, Path)):
        check_matched(_named(corpus), "the text of", set(wanted), found, wanted.met, "documents shown")
    for doc, text in inline.items():
        if doc in wanted:
            found.setdefault(doc, text)
    return chosen, dict(sorted(found.items()))
