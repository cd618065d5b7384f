"""Small builders shared by the tests."""

from __future__ import annotations

from ragreport.core.model import Judgments, Run
from ragreport.scoring.join import JudgedRun, join


def judged_run(queries: list[tuple[str, list[str], dict[str, int]]], *, extra_judged=(), name="t") -> JudgedRun:
    """JudgedRun from (qid, retrieved, {id: grade}) triples; ``extra_judged`` are judged-only queries."""
    run = Run.from_lists(name, [(q, list(r)) for q, r, _ in queries])
    judgments = Judgments.from_lists(
        [(q, list(g), list(g.values())) for q, _, g in queries if g is not None]
        + [(q, list(g), list(g.values())) for q, g in extra_judged]
    )
    return join(run, judgments)


def lists_of(run: Run) -> dict[str, list[str]]:
    """{query id: its ranked ids} of a run, ids as text."""
    from ragreport.core.ids import as_text

    return {q: as_text(run.doc_ids[run.offsets[i] : run.offsets[i + 1]]) for i, q in enumerate(run.query_ids.tolist())}


def grades_of(judgments: Judgments) -> dict[str, dict[str, int]]:
    """{query id: {id: grade}} of judgments, ids as text."""
    from ragreport.core.ids import as_text

    return {
        q: dict(
            zip(
                as_text(judgments.doc_ids[judgments.offsets[i] : judgments.offsets[i + 1]]),
                judgments.grades[judgments.offsets[i] : judgments.offsets[i + 1]].tolist(),
            )
        )
        for i, q in enumerate(judgments.query_ids.tolist())
    }


#: One good line of each kind, for the file an error test does not look at.
RUN_LINE = "q1 Q0 d1 1 1.0 tag\n"
QRELS_LINE = "q1 0 d1 1\n"


def load_error(write, name: str, content: str, role: str) -> str:
    """The one-line InputError message of loading ``content`` as a run or as qrels (``role``),
    with a good file of the other kind."""
    import pytest

    from ragreport.core.errors import InputError
    from ragreport.reading.registry import load_runs

    path = write(name, content)
    other = write("other_qrels.txt", QRELS_LINE) if role == "run" else write("other_run.txt", RUN_LINE)
    with pytest.raises(InputError) as caught:
        if role == "run":
            load_runs([path], qrels=None if name.endswith(".jsonl") else other)
        else:
            load_runs([other], qrels=path)
    message = str(caught.value)
    assert "\n" not in message
    return message
