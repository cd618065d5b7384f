"""Small builders shared by the tests."""

from __future__ import annotations

from ragreport.scoring.join import JudgedRun, join
from ragreport.core.model import Judgments, Run


def judged_run(queries: list[tuple[str, list[str], dict[str, int]]], *, extra_judged=(), name="t") -> JudgedRun:
    """JudgedRun from (qid, retrieved, {id: grade}) triples; ``extra_judged`` are judged-only queries."""
    run = Run.from_lists(name, [(q, list(r)) for q, r, _ in queries])
    judgments = Judgments.from_lists(
        [(q, list(g), list(g.values())) for q, _, g in queries if g is not None]
        + [(q, list(g), list(g.values())) for q, g in extra_judged])
    return join(run, judgments)
