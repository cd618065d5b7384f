"""Whether a joined run can be scored at all: ids that never meet are a mistake, not a score of 0."""

from __future__ import annotations

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError
from ..core.ids import as_text
from ..core.model import Conventions, NoRelevant
from .join import JudgedRun


def _some(ids) -> str:
    shown = ", ".join(repr(str(q)) for q in list(ids)[:3])
    return shown + (", ..." if len(ids) > 3 else "")


def check_scorable(judged: JudgedRun, judgments_source: str, conventions: Conventions = Conventions()) -> None:
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

    Returns
    -------
    None
        When the run can be scored.

    Raises
    ------
    ragreport.core.errors.UsageError
        An empty run, judgments that judge nothing, a run and judgments that share no query id, or
        a run none of whose ids (at any depth) is judged for its query, on every query
        (docs/conventions.md section 20.1).

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
    run_ids = judged.query_ids[judged.in_run]
    judged_ids = judged.query_ids[judged.has_judgments]
    where = f"{judged.source} and {judgments_source}" if judged.source != judgments_source else judged.source
    if not judged.in_run.any():  # an empty run (an empty data frame, partitions with no line)
        raise UsageError(f"{judged.source or judged.name}: the run has no rows, so nothing can be scored")
    if not judged.has_judgments.any():
        raise UsageError(f"{judgments_source}: the judgments judge no query, so nothing can be scored")
    if not (judged.in_run & judged.has_judgments).any():
        raise UsageError(
            f"{where} share no query id (the run has {_some(run_ids)}; the judgments have "
            f"{_some(judged_ids)}): check that both use the same ids"
        )
    _check_ids_meet(judged, judgments_source)
    if (judged.relevant > 0).any():
        return
    if conventions.no_relevant is not NoRelevant.ZERO:
        raise ArgumentError(
            f"{where}: no query has an id judged relevant (grade {conventions.relevance_level} or more), "
            "so nothing can be scored (",
            Argument("no_relevant", "zero"),
            " scores every judged query 0, as trec_eval does)",
        )
    if not len(judged.judgment_query):
        raise UsageError(f"{where}: the judgments judge no id at all, so nothing can be scored")


def _check_ids_meet(judged: JudgedRun, judgments_source: str) -> None:
    """Refuse a run none of whose retrieved ids is a judged id of its query, on every query.

    Such a run scores 0 everywhere, which reads as a bad retriever when the ids are spelled
    differently (``doc-17`` against ``D17``). A head of the lists (a partition) still knows the
    relevant ids of each whole list, so a run with a relevant id below the head passes.
    """
    shared = judged.in_run & judged.has_judgments
    if not len(judged.judgment_query) or not len(judged.doc_ids):
        return
    if judged.judged.any() or judged.relevant_retrieved.any():
        return
    # Examples from one query both sides speak of, so that the two spellings can be set side by side.
    first = int(np.flatnonzero(shared & (judged.lengths > 0))[0]) if (shared & (judged.lengths > 0)).any() else 0
    start, end = int(judged.offsets[first]), int(judged.offsets[first + 1])
    ids = as_text(judged.doc_ids[start : min(end, start + 3)])
    ids += ["..."] if judged.lengths[first] > 3 else []
    graded = as_text(judged.judgment_doc_ids[np.flatnonzero(judged.judgment_query == first)[:3]])
    graded += ["..."] if int((judged.judgment_query == first).sum()) > 3 else []
    query = str(judged.query_ids[first])
    named = judged.source or judged.name
    if not named.startswith("run "):  # an in-memory run's source names it already
        named += f" (run {judged.name!r})"
    raise UsageError(
        f"{named} and {judgments_source} share no document id on any "
        f"query (for query {query!r} the run has {_listed(ids)}; the judgments have {_listed(graded)}): check "
        "that both use the same ids"
    )


def _listed(ids: list[str]) -> str:
    return ", ".join(i if i == "..." else repr(i) for i in ids)
