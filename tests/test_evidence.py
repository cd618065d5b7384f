"""Verdicts that survive their evidence (docs/conventions.md section 20): ids that never meet,
the readings of unjudged ids, the power of a paired comparison and the headline's caveats."""

from __future__ import annotations

import pytest

from ragreport.cli import main
from ragreport.core.errors import UsageError
from ragreport.core.model import Judgments, Run
from ragreport.scoring.join import join
from ragreport.scoring.scorable import check_scorable

# --- 20.1 ids that never meet ------------------------------------------------------------------


def test_disjoint_document_ids_are_refused_with_one_line_naming_the_run_and_both_spellings(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 D17 1\nq1 0 D3 0\nq1 0 D4 0\nq1 0 D5 0\nq2 0 D5 2\n")
    lines = [f"q1 Q0 doc-{d} {r} {10 - r} bm25" for r, d in enumerate((17, 3, 4, 8), 1)] + ["q2 Q0 doc-5 1 1 bm25"]
    (tmp_path / "bm25.trec").write_text("\n".join(lines) + "\n")
    code = main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "bm25.trec")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (
        f"{tmp_path / 'bm25.trec'} (run 'bm25') and {tmp_path / 'qrels.txt'} share no document id on any query" in err
    )
    assert (
        "(for query 'q1' the run has 'doc-17', 'doc-3', 'doc-4', ...; the judgments have 'D17', 'D3', 'D4', ...)" in err
    )


def test_one_judged_id_anywhere_in_any_list_is_enough():
    judgments = Judgments.from_lists([("q1", ["d1", "x"], [1, 0]), ("q2", ["d2"], [1])])
    # a non-relevant judged id at rank 3 of one query: the ids meet, the run is scored
    check_scorable(join(Run.from_lists("r", [("q1", ["a", "b", "x"]), ("q2", ["c"])]), judgments), "qrels")
    with pytest.raises(UsageError, match="share no document id on any query"):
        check_scorable(join(Run.from_lists("r", [("q1", ["a", "b", "d2"]), ("q2", ["d1"])]), judgments), "qrels")
