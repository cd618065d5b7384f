"""Whether a joined run can be scored at all: ids that never meet are a mistake, not a score of 0."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError, warn
from ..core.ids import as_text
from ..core.model import Conventions, NoRelevant
from .condensed import Following
from .join import JudgedRun


@dataclass(frozen=True)
class Meeting:
    """What :func:`check_scorable` reads of a run, as counts that add up over partitions of its
    queries (a run whose partitions are never gathered, docs/conventions.md section 29.2): the
    queries the run lists, the judgments list and both list; the ids retrieved and the judgments;
    the queries where a retrieved id (at any depth) is a judged id of the query, and those with an
    id judged relevant; and the queries :data:`REFUSE_FROM` counts (a list, and ids judged both
    relevant and not); and the judgments graded below the relevance level."""

    listed: int
    judged: int
    shared: int
    retrieved: int
    labels: int
    met: int
    relevant: int
    pooled: int
    below: int  # judgments graded below the relevance level

    @classmethod
    def of(cls, judged: JudgedRun, following: Following | None = None) -> Meeting:
        """The counts of ``judged`` (its heads, with ``following``: see :func:`ids_missed`)."""
        met = judged.relevant_retrieved > 0
        met[judged.slot_query[judged.judged]] = True
        if following is not None:
            met |= following.lengths > 0
        below = judged.judgment_grades < judged.level
        not_relevant = np.bincount(judged.judgment_query[below], minlength=judged.n_queries)
        relevant = judged.relevant > 0
        return cls(
            int(judged.in_run.sum()),
            int(judged.has_judgments.sum()),
            int((judged.in_run & judged.has_judgments).sum()),
            len(judged.doc_ids),
            len(judged.judgment_query),
            int(met.sum()),
            int(relevant.sum()),
            int((relevant & (not_relevant > 0) & (judged.retrieved > 0)).sum()),
            int(not_relevant.sum()),
        )

    def __add__(self, other: Meeting) -> Meeting:
        return Meeting(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @property
    def missed(self) -> bool:
        """Whether the run retrieves ids, the judgments judge ids, and no retrieved id is a judged
        id of its query (:func:`ids_missed`)."""
        return bool(self.labels and self.retrieved and not self.met)

    @property
    def clean(self) -> bool:
        """Whether :func:`check_scorable` has nothing to refuse or warn of."""
        return bool(self.listed and self.judged and self.shared and self.relevant and not self.missed)


def some_ids(ids) -> str:
    shown = ", ".join(repr(str(q)) for q in list(ids)[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def check_scorable(
    judged: JudgedRun,
    judgments_source: str,
    conventions: Conventions = Conventions(),
    following: Following | None = None,
    meeting: Meeting | None = None,
) -> None:
    """Refuse a run that no judgment speaks to: ids that never meet are a mistake, not a score of 0.

    Judgments with no relevant id anywhere are refused too, unless ``no_relevant`` is ``zero``
    (``--no-relevant zero``), which averages such queries in as 0, as trec_eval does (then every
    figure is 0, and the report says why).

    Parameters
    ----------
    judged : JudgedRun
        The run joined with its judgments.
    judgments_source : str
        The judgments' name in the message (their file).
    conventions : Conventions, default Conventions()
        Read for ``no_relevant`` and the relevance level.
    following : Following, optional
        The judged ids past each list's head when ``judged`` holds only the heads (a run scored by
        partitions): :func:`ids_missed` reads them.
    meeting : Meeting, optional
        The whole run's counts, when ``judged`` holds only some of its queries (partitions never
        gathered): what is refused is read off them, the examples a message names off ``judged``.

    Returns
    -------
    None
        When the run can be scored.

    Raises
    ------
    ragreport.core.errors.UsageError
        An empty run, judgments that judge nothing, a run and judgments that share no query id, or
        a run none of whose ids (at any depth) is judged for its query, on every query, over at
        least :data:`REFUSE_FROM` queries that judge ids both relevant and not (docs/conventions.md
        section 20.1; over fewer, or against the run's own judgments, it is scored and warned of,
        a :class:`~ragreport.core.errors.RagreportWarning`).

    Examples
    --------
    >>> from ragreport.core.model import Judgments, Run
    >>> from ragreport.scoring.join import join
    >>> judged = join(Run.from_lists("bm25", [("q1", ["d1"])]), Judgments.from_lists([("q9", ["d1"], [1])]))
    >>> check_scorable(judged, "qrels.txt")
    Traceback (most recent call last):
    ...
    ragreport.core.errors.UsageError: ... share no query id (the run has 'q1'; the judgments have 'q9'): ...
    """
    counts = meeting if meeting is not None else Meeting.of(judged, following)
    run_ids = judged.query_ids[judged.in_run]
    judged_ids = judged.query_ids[judged.has_judgments]
    where = f"{judged.source} and {judgments_source}" if judged.source != judgments_source else judged.source
    if not counts.listed:  # an empty run (an empty data frame, partitions with no line)
        raise UsageError(f"{judged.source or judged.name}: the run has no rows, so nothing can be scored")
    if not counts.judged:
        raise UsageError(f"{judgments_source}: the judgments judge no query, so nothing can be scored")
    if not counts.shared:
        raise UsageError(
            f"{where} share no query id (the run has {some_ids(run_ids)}; the judgments have "
            f"{some_ids(judged_ids)}): check that both use the same ids"
        )
    if counts.missed:
        _refuse_missed(judged, judgments_source, counts.pooled)
    if counts.relevant:
        return
    if conventions.no_relevant is not NoRelevant.ZERO:
        raise ArgumentError(
            f"{where}: no query has an id judged relevant (grade {conventions.relevance_level} or more), "
            "so nothing can be scored (",
            Argument("no_relevant", "zero"),
            " scores every judged query 0, as trec_eval does)",
        )
    if not counts.labels:
        raise UsageError(f"{where}: the judgments judge no id at all, so nothing can be scored")


#: The fewest queries, each judging ids of both kinds (relevant and not) and each with a list, over
#: which a run that meets no judged id is refused (docs/conventions.md section 20.1): a run that
#: finds a judged id on a query at least half the time misses all 10 by chance at most once in 1,024.
REFUSE_FROM = 10


def ids_missed(judged: JudgedRun, following: Following | None = None) -> bool:
    """Whether the run retrieves ids, the judgments judge ids, and no retrieved id, at any depth, is
    a judged id (relevant or not) of its own query (docs/conventions.md section 20.1).

    ``judged`` may hold only the head of each list (a partition, a stored report): a relevant id
    anywhere in a whole list is one of its whole-list facts, and ``following`` holds the judged ids
    past the head that condensing reads, at least one wherever the list holds one past its top.
    """
    return Meeting.of(judged, following).missed


def _refuse_missed(judged: JudgedRun, judgments_source: str, pooled: int) -> None:
    """Refuse a run none of whose retrieved ids is a judged id of its query, on every query, where
    chance cannot explain it; else score it and warn, naming it (docs/conventions.md section 20.1).

    Such a run scores 0 everywhere, which reads as a bad retriever when the ids are spelled
    differently (``doc-17`` against ``D17``). It is refused when at least :data:`REFUSE_FROM` of
    its queries have a list and judge ids of both kinds (relevant at the relevance level, and
    not), unless its judgments are its own (a RAG JSONL's ``relevant``): one query that misses
    (ranx's ``test_reciprocal_rank_single_no_match``), or judgments that list only relevant ids,
    are a retriever's miss as much as a mistake.
    """
    # Examples from one query both sides list ids for, so that the two spellings can be set side by side.
    listed = np.bincount(judged.judgment_query, minlength=judged.n_queries) > 0
    both = np.flatnonzero(judged.in_run & listed & (judged.lengths > 0))
    first = int(both[0]) if len(both) else int(np.flatnonzero(judged.lengths > 0)[0])
    start, end = int(judged.offsets[first]), int(judged.offsets[first + 1])
    ids = as_text(judged.doc_ids[start : min(end, start + 3)])
    ids += ["..."] if judged.lengths[first] > 3 else []
    graded = as_text(judged.judgment_doc_ids[np.flatnonzero(judged.judgment_query == first)[:3]])
    graded += ["..."] if int((judged.judgment_query == first).sum()) > 3 else []
    query = str(judged.query_ids[first])
    named = judged.source or judged.name
    if not named.startswith("run "):  # an in-memory run's source names it already
        named += f" (run {judged.name!r})"
    mismatch = (
        f"{named} and {judgments_source} share no document id on any "
        f"query (for query {query!r} the run has {_listed(ids)}; the judgments have {_listed(graded)})"
    )
    own = judgments_source == judged.source  # a RAG JSONL's rows carry them
    if pooled >= REFUSE_FROM and not own:
        raise UsageError(f"{mismatch}: check that both use the same ids")
    why = "its own rows carry its judgments" if own else _too_few(pooled)
    warn(f"{mismatch}: scored all the same: {why} (docs/conventions.md section 20.1)")


def _too_few(pooled: int) -> str:
    judge = (
        "none of its queries judges"
        if not pooled
        else f"only {pooled:,} of its queries judge{'s' if pooled == 1 else ''}"
    )
    return f"{judge} ids both relevant and not, too few (under {REFUSE_FROM}) to rule out a miss by chance"


def _listed(ids: list[str]) -> str:
    return ", ".join(i if i == "..." else repr(i) for i in ids) or "none"
