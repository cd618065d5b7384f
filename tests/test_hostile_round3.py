"""Hostile input, third round (issue 41; docs/safety.md): what was added last (the audit, measure
parameters, named sets, ``irds:`` ids, the gates' own additions, ``--min-effect``) keeps the Safety
promises at every entry point: the command line (one ``ragreport: error:`` line, exit 2, naming the
file or flag), the Python API (a ``ValueError`` naming the argument) and ``render`` of a report.json
edited by hand (one line naming the report). Each case is a kind, written once per entry point."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from ragreport.api import analyse, document, evaluate
from ragreport.cli import main

#: 12 queries (the audit needs 10), two ids each; ``a`` ranks d1 first, ``b`` d2.
QUERIES = [f"q{i:02d}" for i in range(12)]
MODEL = {q: {"d1": 1, "d2": i % 2} for i, q in enumerate(QUERIES)}
RUNS = {
    "a": {q: {"d1": 2.0, "d2": 1.0, "d3": 0.5} for q in QUERIES},
    "b": {q: {"d2": 2.0, "d1": 1.0, "d3": 0.5} for q in QUERIES},
}
HUMAN = {q: {"d1": 1, "d2": (i // 2) % 2} for i, q in enumerate(QUERIES)}


def _qrels_text(labels: dict[str, dict[str, int]]) -> str:
    return "".join(f"{q} 0 {d} {g}\n" for q, grades in labels.items() for d, g in grades.items())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "qrels.txt").write_text(_qrels_text(MODEL))
    for name, run in RUNS.items():
        lines = [f"{q} Q0 {d} {r} {s} {name}\n" for q, docs in run.items() for r, (d, s) in enumerate(docs.items(), 1)]
        (tmp_path / f"{name}.trec").write_text("".join(lines))
    (tmp_path / "human.qrels").write_text(_qrels_text(HUMAN))
    return tmp_path


def _score(folder: Path, *extra: str) -> list[str]:
    return ["--no-config", "score", "--qrels", str(folder / "qrels.txt"), str(folder / "a.trec"), str(folder / "b.trec"),
            "-k", "3", "--resamples", "100", "--permutations", "100", *extra]  # fmt: skip


def refused(capsys, argv: list[str], *needles: str) -> str:
    """``argv`` ends with exit 2 and one ``ragreport: error:`` line holding each of ``needles``,
    nothing else on stderr (no traceback, no library output), nothing on stdout."""
    code = main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("ragreport: error: "), err
    assert out == "", out
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# --- The audit: one gate, every entry point ---------------------------------------------------


def _summaries():
    return evaluate(RUNS, qrels=MODEL, k=3)


@pytest.mark.parametrize(
    ("audit", "needles"),
    [
        ([1, 2], ("audit: expected a path", "got a list")),
        ({"q01": 1}, ("audit, query 'q01'", "a mapping of document ids to grades")),
        ({**HUMAN, "q00": {"d1": 1.5}}, ("audit, query 'q00'", "an integer grade", "1.5")),
        ({**HUMAN, "q00": {"d\u202e1": 1}}, ("audit, query 'q00'", "without control or bidi", "U+202E")),
        ({**HUMAN, "q00": {"d\ud8001": 1}}, ("audit, query 'q00'", "without control or bidi", "U+D800")),
        ({**HUMAN, "q00": {"": 1}}, ("audit, query 'q00'", "non-empty")),
        ({**HUMAN, "q00": {"d1": 2**63}}, ("audit, query 'q00'", "within signed 64 bits")),
    ],
)
def test_the_apis_audit_is_gated_as_qrels_is(audit, needles):
    with pytest.raises(ValueError) as found:
        analyse(_summaries(), audit=audit, permutations=50)
    for needle in needles:
        assert needle in str(found.value)


def test_judgments_built_by_hand_pass_the_gate_again():
    from ragreport.core.model import Judgments

    built = Judgments.from_lists([(q, ["d\u202e1"], [1]) for q in QUERIES], source="mine")
    with pytest.raises(ValueError, match="mine, query .q00.: expected a document id without control or bidi"):
        analyse(_summaries(), audit=built, permutations=50)


@pytest.mark.parametrize("grade", [1000, 2**63 - 1, -(2**63)])
def test_an_audit_grade_anywhere_in_64_bits_is_read_with_small_arrays(grade):
    # Every human grade of the first query moved to ``grade``: the agreement's arrays hold the
    # grades that occur, not every value between 0 and the grade (a grade of 1000 ran out of memory).
    human = {**HUMAN, "q00": {"d1": grade, "d2": grade}}
    report = analyse(_summaries(), audit=human, permutations=50)
    found = report.audit.agreement
    assert grade in found.grades and found.confusion.shape == (len(found.grades),) * 2
    # By hand: 24 pairs; q00's two are (1, grade) and (0, grade); the others as HUMAN.
    model = [MODEL[q][d] for q in QUERIES for d in ("d1", "d2")]
    truth = [human[q][d] for q in QUERIES for d in ("d1", "d2")]
    rel_m, rel_h = np.array(model) >= 1, np.array(truth) >= 1
    p_o = np.mean(rel_m == rel_h)
    p_e = rel_m.mean() * rel_h.mean() + (1 - rel_m.mean()) * (1 - rel_h.mean())
    assert found.kappa == pytest.approx((p_o - p_e) / (1 - p_e))


def test_a_large_audit_grade_costs_what_a_small_one_does(tmp_path):
    import tracemalloc

    peaks = []
    for grade in (2, 1000, 2**62):
        tracemalloc.start()
        analyse(_summaries(), audit={**HUMAN, "q00": {"d1": grade}}, permutations=50)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert max(peaks) < 2 * peaks[0], peaks


@pytest.mark.parametrize(
    ("line", "needles"),
    [
        ("q00 0 d1 1.5", ("human.qrels:1", "integer grade")),
        ("q00 0 d1 9223372036854775808", ("human.qrels:1", "64 bits")),
        ("q00 0 d\u202e1 1", ("human.qrels:1", "U+202E")),
        ("q00 Q0 d1 1 2.0 run", ("human.qrels:1", "this looks like a run", "not as judgments")),
    ],
)
def test_the_command_lines_audit_file_names_its_line(files, capsys, line, needles):
    (files / "human.qrels").write_text(line + "\n" + _qrels_text(HUMAN))
    error = refused(capsys, _score(files, "--audit", str(files / "human.qrels")), *needles)
    assert "--qrels" not in error


def test_the_command_lines_audit_of_the_largest_grade_is_scored(files, capsys):
    (files / "human.qrels").write_text(_qrels_text({**HUMAN, "q00": {"d1": 2**63 - 1, "d2": 2**63 - 1}}))
    assert main(_score(files, "--audit", str(files / "human.qrels"))) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_an_audit_by_an_unknown_irds_id_names_audit(files, capsys):
    pytest.importorskip("ir_datasets")
    refused(capsys, _score(files, "--audit", "irds:no-such-dataset"), "--audit irds:no-such-dataset")


def _report(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(document(analyse(_summaries(), audit=HUMAN, permutations=50))))
    return path


def _render(path: Path) -> list[str]:
    return ["render", str(path), "--out", str(path.parent / "site"), "--quiet"]


def _edited(path: Path, change) -> Path:
    stored = json.loads(path.read_text())
    change(stored)
    path.write_text(json.dumps(stored))
    return path


@pytest.mark.parametrize(
    ("change", "needles"),
    [
        (lambda d: d["audit"]["labels"]["q00"].update({"d\u202e9": 1}), ("U+202E",)),
        (lambda d: d["audit"]["labels"]["q00"].update({"": 1}), ("non-empty",)),
        (lambda d: d["audit"].update(labels={q: d["audit"]["labels"][q] for q in QUERIES[:3]}), ("at least 10",)),
        (lambda d: d["audit"]["labels"]["q00"].update({"d1": 2**64}), ("audit",)),
        (lambda d: d["audit"]["labels"]["q00"].update({"d1": 1.5}), ("audit",)),
    ],
)
def test_render_of_hand_edited_audit_labels_names_the_report(tmp_path, capsys, change, needles):
    path = _edited(_report(tmp_path), change)
    error = refused(capsys, _render(path), str(path), *needles)
    assert "human.qrels" not in error
    assert not (tmp_path / "site").exists()


def test_render_of_a_report_with_the_largest_audit_grade(tmp_path, capsys):
    path = _edited(_report(tmp_path), lambda d: d["audit"]["labels"]["q00"].update({"d1": 2**63 - 1}))
    assert main(_render(path)) == 0
    assert "Traceback" not in capsys.readouterr().err


# --- Display -------------------------------------------------------------------------------------


def test_an_exp_gain_of_a_large_grade_warns_nothing():
    # A grade of 2000 on q (2^2000 overflows a double) beside q2's top grade of 1: the ideal list's
    # padding once read q's grade for q2 and numpy warned of an overflow it then masked.
    # By hand, exp gain: q ranks d2 (gain 1) then d1 (gain 2^2000 - 1): nDCG = (1 + g/log2 3) / (g + 1/log2 3)
    # with g = 2^2000 - 1, which is 1 / log2(3) = 0.6309 to every printed digit; q2 scores 1.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = evaluate(
            {"r": {"q": {"d2": 2.0, "d1": 1.0}, "q2": {"d1": 1.0}}},
            qrels={"q": {"d1": 2000, "d2": 1}, "q2": {"d1": 1}},
            k=10,
            measures=["nDCG(dcg='exp-log2')@10"],
        )
    per_query = results[0].measure_values[0]
    assert per_query[0] == pytest.approx(1 / np.log2(3)) and per_query[1] == 1.0
