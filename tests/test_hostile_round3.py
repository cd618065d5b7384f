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


# --- One number grammar, one spelling per parameter, distinct names ------------------------------

#: Numbers Python reads and the grammar does not (core/grammar.py): underscores, other scripts' digits.
NOT_NUMBERS = ("0_5", "\u0660.\u0665", "\uff10.\uff15")


@pytest.mark.parametrize(
    "name",
    [
        *(f"RBP(p={n})" for n in NOT_NUMBERS),
        *(f"IPrec@{n}" for n in NOT_NUMBERS),
        "RR(rel=\u0662)@10",
        "RR(rel=1_0)@10",
        "RR(rel=\u00b2)@10",  # a superscript two: str.isdigit() says it is a digit
        "map@100-l\u0662",
    ],
)
def test_a_measure_parameter_outside_the_grammar_is_refused(files, capsys, name):
    refused(capsys, _score(files, "--metrics", f"nDCG@3,{name}"), "measure")
    with pytest.raises(ValueError):
        evaluate(RUNS, qrels=MODEL, k=3, measures=[name])


@pytest.mark.parametrize(
    "name",
    [
        "IPrec(recall=0.3)@0.5",
        "IPrec(recall=0.5)@0.5",
        "map(rel=2)@100-l2",
        "ndcg_burges(gain=exp)@10",
        "nDCG(gain=exp,dcg='exp-log2')@10",
        "RR(rel=2,rel=2)@10",
        "rbp(p=0.9)",
    ],
)
def test_a_parameter_given_twice_is_refused_in_either_form(files, capsys, name):
    refused(capsys, _score(files, "--metrics", f"nDCG@3,{name}"), "measure")
    with pytest.raises(ValueError):
        evaluate(RUNS, qrels=MODEL, k=3, measures=[name])


def test_distinct_recall_levels_have_distinct_names_in_every_format(files, capsys):
    levels = ("IPrec@0.12", "IPrec@0.123", "IPrec@0.5")
    for form in ("trec", "csv", "json"):
        assert main(_score(files, "--metrics", ",".join(("nDCG@3", *levels)), "--format", form)) == 0
        out = capsys.readouterr().out
        if form == "trec":
            names = list(
                dict.fromkeys(line.split()[0] for line in out.splitlines() if line.lower().startswith("iprec"))
            )
            # trec_eval prints two decimals: 0.123 has no twin of its own name, so it keeps ragreport's
            assert names == ["iprec_at_recall_0.12", "IPrec@0.123", "iprec_at_recall_0.50"]
        else:
            assert all(level in out for level in levels)


@pytest.mark.parametrize("value", [*NOT_NUMBERS, "1e-300", 1e-300, 0])
def test_the_configs_min_effect_follows_the_grammar_and_names_its_line(files, capsys, monkeypatch, value):
    monkeypatch.chdir(files)
    (files / "ragreport.toml").write_text(f"k = 3\nmin_effect = {json.dumps(value)}\n")
    argv = ["score", "--qrels", "qrels.txt", "a.trec", "b.trec", "--resamples", "100", "--permutations", "100"]
    refused(capsys, argv, "ragreport.toml:2", "min_effect", "a difference from 1e-06 to 1")


def test_min_effect_from_python_is_a_value_error():
    with pytest.raises(ValueError, match="min_effect must be a difference from 1e-06 to 1"):
        analyse(_summaries(), min_effect=1e-300)


# --- render of hand-edited measures ---------------------------------------------------------------


def _measured_report(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    summaries = evaluate(RUNS, qrels=MODEL, k=3, measures=["nDCG@3", "RR(rel=2)@3", "RBP(p=0.5)"])
    path.write_text(json.dumps(document(analyse(summaries, family=["nDCG@3", "RR(rel=2)@3"], permutations=50))))
    return path


def _measure(stored: dict, key: str) -> dict:
    return next(m for m in stored["settings"]["metrics"] if m["key"] == key and m.get("params"))


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: _measure(d, "RR")["params"].update(rel=0), "rel"),
        (lambda d: _measure(d, "RR")["params"].update(rel=10**30), "rel"),
        (lambda d: _measure(d, "RBP")["params"].update(p=1.5), "p"),
        (lambda d: _measure(d, "RBP")["params"].update(q=1), "q"),
        (lambda d: _measure(d, "RR").update(key="NoSuchMeasure"), "NoSuchMeasure"),
        (lambda d: _measure(d, "RR").update(cutoff=2), "RR"),
    ],
)
def test_render_of_hand_edited_measure_parameters_names_the_report(tmp_path, capsys, change, needle):
    path = _edited(_measured_report(tmp_path), change)
    refused(capsys, _render(path), str(path), "'settings", needle)
    assert not (tmp_path / "site").exists()


def test_a_report_with_measure_parameters_renders(tmp_path, capsys):
    assert main(_render(_measured_report(tmp_path))) == 0


# --- Bidi isolation of the user's words in the new sections ---------------------------------------

FSI, PDI = "\u2068", "\u2069"
REVERSING = "x\u202eslauq.namuh"  # a U+202E inside a file name: the text after it reads right to left


def _audited_site(files: Path, name: str = REVERSING) -> Path:
    audit = files / name
    audit.write_text(_qrels_text(HUMAN))
    out = files / "site"
    argv = _score(files, "--audit", str(audit), "--out", str(out), "--quiet")
    argv[argv.index("score")] = "build"
    assert main(argv) == 0
    return out


def _texts(path: Path) -> str:
    import html

    return html.unescape(path.read_text())


def test_the_audit_files_name_is_isolated_in_every_sentence_that_shows_it(files, capsys):
    site = _audited_site(files)
    shown = f"{FSI}{REVERSING.replace(chr(0x202E), chr(92) + 'u202e')}{PDI}"  # escaped inside, then isolated
    index, run_page = _texts(site / "index.html"), _texts(site / "run-b.html")
    # the Labels sentence, the queries fact's note, the run page's lede and its judge limit
    assert f"Audited by {shown} on 12 queries" in index
    assert f"queries audited by {shown}," in run_page
    assert f"on 12 queries ({shown}): on the" in run_page
    for page in (index, run_page):
        assert "\u202e" not in page
        # no name from the audit outside an isolate: every occurrence is FSI-wrapped
        assert page.count(REVERSING.replace("\u202e", "\\u202e")) == page.count(shown)
    # the baseline in the Labels comparisons caption
    assert f"difference from the baseline {FSI}a{PDI}:" in index


def test_the_terminal_shows_the_audit_files_name_plain_with_its_controls_escaped(files, capsys):
    audit = files / REVERSING
    audit.write_text(_qrels_text(HUMAN))
    assert main(_score(files, "--audit", str(audit))) == 0
    out = capsys.readouterr().out
    assert "x\\u202eslauq.namuh" in out and FSI not in out and "\u202e" not in out


def test_a_kappa_of_zero_prints_without_a_sign(files, capsys):
    # Every human grade 2: the human side has one class and one grade, so both kappas are 0 and so
    # is every resample's; the subtraction leaves some at -2.2e-16, once printed "-0.000".
    grades = [2, 0, 1, 2, 0, 0, 0, 1, 2, 0, 1, 1, 2, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0, 2]
    model = {q: {"d1": grades[2 * i], "d2": grades[2 * i + 1]} for i, q in enumerate(QUERIES)}
    (files / "qrels.txt").write_text(_qrels_text(model))
    (files / "human.qrels").write_text(_qrels_text({q: {"d1": 2, "d2": 2} for q in QUERIES}))
    site = files / "site"
    argv = _score(files, "--audit", str(files / "human.qrels"), "--out", str(site), "--quiet")
    argv[argv.index("score")] = "build"
    assert main(argv) == 0
    audit = json.loads((site / "report.json").read_text())["audit"]
    assert audit["weighted_kappa"] == 0 and audit["weighted_low"] <= 0  # the stored figure as computed
    assert main(_score(files, "--audit", str(files / "human.qrels"))) == 0
    shown = [capsys.readouterr().out, _texts(site / "index.html"), _texts(site / "run-b.html")]
    for text in shown:
        assert "-0.000" not in text and "-0.00 " not in text and "-0.00)" not in text
    assert "weighted kappa 0.000 (95% band 0.000 to 0.000)" in " ".join(shown[0].split())  # wrapped at any width


# --- Gates against the report's own additions ----------------------------------------------------


def test_fail_on_worse_reads_the_measures_named_not_the_ones_the_report_adds(files, capsys):
    # RBP brings its residual (RBP_resid), which is reported, never compared: the gate reads RBP.
    assert main(_score(files, "--metrics", "nDCG@3,RBP", "--fail-on", "worse")) in (0, 1)
    err = capsys.readouterr().err
    assert "holds no" not in err and "fail-on worse  b nDCG@3" in err and "fail-on worse  b RBP:" in err


@pytest.mark.parametrize("name", ["nDGC@10", "RR(rel=0)@3", "RBP(p=0_5)", "IPrec(recall=0.3)@0.5"])
def test_a_bad_measure_in_the_configs_metrics_names_the_file_and_key(files, capsys, monkeypatch, name):
    monkeypatch.chdir(files)
    (files / "ragreport.toml").write_text(f"k = 3\nmetrics = [{json.dumps(name)}]\n")
    argv = ["score", "--qrels", "qrels.txt", "a.trec", "b.trec", "--resamples", "100", "--permutations", "100"]
    refused(capsys, argv, "ragreport.toml: key 'metrics': ", "measure")
    (files / "ragreport.toml").write_text(f'k = 3\nmetrics = [{json.dumps(name)}]\nfail_on = ["worse"]\n')
    refused(capsys, argv, "ragreport.toml: key 'metrics': ", "measure")


@pytest.mark.parametrize("bad", ["d\u202e9", "", "d\x1b9"])
def test_render_of_hand_edited_run_judgments_keeps_the_id_gate(tmp_path, capsys, bad):
    # The runs' stored judgments pass the gate the audit's stored labels pass (one rule for every
    # judgment render reads); a refusal names the report and writes nothing.
    from ragreport.output.exports.reportjson.migrate import expanded

    path = tmp_path / "report.json"
    stored = expanded(json.loads(_report(tmp_path).read_text()))
    labels = stored["runs"][0].get("judgments") or stored["judgments"]
    labels[QUERIES[0]][bad] = 1
    path.write_text(json.dumps(stored))
    refused(capsys, _render(path), str(path), "a document id for query 'q00'")
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("value", [1e-300, 0, 2, "0.1"])
def test_render_of_a_hand_edited_min_effect_names_the_report_not_the_flag(tmp_path, capsys, value):
    path = _edited(_report(tmp_path), lambda d: d["settings"].update(min_effect=value))
    error = refused(capsys, _render(path), str(path), "settings.min_effect", "1e-06 to 1")
    assert "--min-effect" not in error
