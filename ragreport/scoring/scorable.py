"""Whether a joined run can be scored at all: ids that never meet are a mistake, not a score of 0."""

from __future__ import annotations

from ..core.errors import Argument, ArgumentError, UsageError
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
        An empty run, judgments that judge nothing, or a run and judgments that share no query id.

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
