"""Scores computed outside ragreport (--scores): means, bands, comparisons and gates, worked by hand."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from ragreport.analysis.intervals import bootstrap_interval
from ragreport.api import analyse, document, evaluate
from ragreport.cli import main
from ragreport.core.errors import ArgumentError, InputError

RUN = [
    {"id": "q1", "retrieved": ["d1", "d2"], "relevant": ["d1"]},
    {"id": "q2", "retrieved": ["d3"], "relevant": ["d4"]},
    {"id": "q3", "retrieved": ["d5"], "relevant": ["d5"]},
    {"id": "q4", "retrieved": ["d6"], "relevant": ["d6"]},
]
# faithfulness is 0/1 (Wilson bands); grade a 1-5 judge's grade (bootstrap bands); 'answer' is text, not read.
SCORES = """query_id,run,judge,faithfulness,grade,answer
q1,run_a,gpt-judge,1,4,yes
q2,run_a,gpt-judge,0,2,no
q3,run_a,gpt-judge,1,5,yes
q4,run_a,gpt-judge,1,3,yes
q1,run_b,gpt-judge,1,5,yes
q2,run_b,gpt-judge,1,3,no
q3,run_b,gpt-judge,1,5,yes
q4,run_b,gpt-judge,1,4,yes
"""


def _runs(write):
    lines = "".join(json.dumps(line) + "\n" for line in RUN)
    return [write("run_a.jsonl", lines), write("run_b.jsonl", lines)]


def _report(write, scores=SCORES, name="scores.csv", **kwargs):
    return analyse(evaluate(_runs(write), k=2), scores=write(name, scores), **kwargs)


def test_means_and_bands_worked_by_hand(write):
    scores = _report(write).scores
    a, b = scores.figure("run_a", "faithfulness"), scores.figure("run_b", "faithfulness")
    # 3 of 4 and 4 of 4. Wilson at 95%: z = 1.9599640, z^2 / n = 0.9603647, z^2 / 4n^2 = 0.0600228,
    # z / (1 + z^2/n) = 0.9997956. 3 of 4: centre (0.75 + 0.4801824) / 1.9603647 = 0.6275273, half
    # 0.9997956 * sqrt(0.046875 + 0.0600228) = 0.3268854; 4 of 4: centre (1 + 0.4801824) / 1.9603647 =
    # 0.7550546, half 0.9997956 * sqrt(0 + 0.0600228) = 0.2449454, the high end exactly 1.
    assert (a.interval.mean, a.interval.method.value) == (0.75, "wilson")
    assert (a.interval.low, a.interval.high) == pytest.approx((0.3006419, 0.9544127), abs=2e-7)
    assert (b.interval.mean, b.interval.low, b.interval.high) == pytest.approx((1.0, 0.5101092, 1.0), abs=2e-7)
    # grade: (4 + 2 + 5 + 3) / 4 = 3.5 and (5 + 3 + 5 + 4) / 4 = 4.25, on 1-5 as given, never rescaled.
    grade = scores.figure("run_a", "grade")
    assert (grade.interval.mean, grade.interval.method.value) == (3.5, "bootstrap")
    assert scores.figure("run_b", "grade").interval.mean == 4.25
    _, low, high = bootstrap_interval(np.array([4.0, 2.0, 5.0, 3.0]))  # q1..q4, id order
    assert (grade.interval.low, grade.interval.high) == (low[0], high[0])
    assert (scores.scales["faithfulness"].text, scores.scales["grade"].text) == ("0/1", "1-5")
    assert scores.names == ("faithfulness", "grade") and scores.judges == ("gpt-judge",)
    assert (grade.queries, grade.judged) == (4, 4)


def test_paired_comparison_against_the_randomization_test_by_enumeration(write):
    report = _report(write)
    by_metric = {c.metric: c for c in report.scores.comparisons}
    # run_b - run_a per query: faithfulness (0, 1, 0, 0), grade (1, 1, 0, 1). Every one of the 2^4 sign
    # vectors, by hand: the share whose |mean| reaches the observed one.
    for metric, d in (("faithfulness", [0, 1, 0, 0]), ("grade", [1, 1, 0, 1])):
        observed = abs(sum(d)) / 4
        flips = [abs(sum(s * x for s, x in zip(signs, d))) / 4 for signs in itertools.product((1, -1), repeat=4)]
        assert by_metric[metric].p == sum(f >= observed - 1e-12 for f in flips) / 16
    assert (by_metric["faithfulness"].p, by_metric["grade"].p) == (1.0, 0.25)  # 16 of 16; 4 of 16
    # Holm over the two: 0.25 x 2 = 0.5, then max(0.5, 1.0 x 1) = 1.0.
    assert (by_metric["grade"].p_adjusted, by_metric["faithfulness"].p_adjusted) == (0.5, 1.0)
    grade = by_metric["grade"]
    assert (grade.baseline, grade.run, grade.delta) == ("run_a", "run_b", 0.75)
    assert (grade.wins, grade.ties, grade.losses, grade.queries) == (3, 1, 0, 4)
    assert grade.min_effect == pytest.approx(0.08)  # --min-effect 0.02 of the 1-5 scale's width 4
    _, low, high = bootstrap_interval(np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.0, 1.0]]))
    assert (grade.low, grade.high) == (low[1], high[1])
    assert grade.verdict == "band above 0"  # the band excludes 0, the corrected p does not reach 0.05


def test_report_json_and_pages_keep_them_apart_and_say_who_made_them(write, tmp_path):
    report = _report(write)
    stored = document(report)
    assert stored["scores"]["source"] == "scores.csv" and stored["scores"]["judges"] == ["gpt-judge"]
    assert stored["scores"]["scales"]["grade"]["how"] == "inferred from the values"
    assert stored["runs"][0]["scores"]["faithfulness"]["mean"] == 0.75
    assert "faithfulness" not in stored["runs"][0]["metrics"]  # never among the ranked-list figures
    assert not {"faithfulness", "grade"} & {c["metric"] for c in stored["comparisons"]}  # nor in their comparisons
    out = tmp_path / "site"
    runs = _runs(write)
    assert main(["build", *map(str, runs), "-k", "2", "--scores", str(write("s.csv", SCORES)), "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    assert "Scores computed outside ragreport, read from s.csv (judge: gpt-judge): ragreport computed none" in index
    assert "grade 1-5, inferred from the values" in index
    assert "Scores computed outside ragreport" in (out / "run-run_b.html").read_text()


def test_a_given_scale_is_stated_and_values_outside_it_refused(write):
    report = analyse(evaluate(_runs(write), k=2), scores=write("s.csv", SCORES), scores_scale=["grade=0-10"])
    assert report.scores.scales["grade"].text == "0-10" and report.scores.scales["grade"].how.startswith("given")
    assert report.scores.figure("run_a", "grade").interval.mean == 3.5  # shown on the scale given, not rescaled
    with pytest.raises(InputError) as caught:
        analyse(evaluate(_runs(write), k=2), scores=write("s.csv", SCORES), scores_scale=["0-1"])
    assert str(caught.value).endswith(
        "s.csv:2: expected a score 'grade' on its scale 0-1 (given with --scores-scale), got 4"
    )
    with pytest.raises(ArgumentError):
        analyse(evaluate(_runs(write), k=2), scores=write("s.csv", SCORES), scores_scale=["five"])


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "s.csv",
            "qid,run,x\nq1,run_a,1\n",
            "s.csv: expected a 'id' column ('query_id', 'id'): a column of that name (or a query's text: "
            "'query' or 'question'), got the columns 'qid', 'run', 'x'",
        ),
        (
            "s.csv",
            "id,run,x\nq1,run_a,1\nq2,run_a,high\n",
            "s.csv:3: expected a numeric score for 'x' of query 'q2', got 'high'",
        ),
        (
            "s.jsonl",
            '{"id": "q1", "run": "run_a", "x": 1}\n{"id": "q9", "run": "run_a", "x": 0}\n',
            "s.jsonl:2: expected a query the judgments of run 'run_a' hold, got query 'q9'",
        ),
        (
            "s.csv",
            "id,x\nq1,1\n",
            "s.csv:2: expected a 'run' column naming one of the report's runs ('run_a', 'run_b'), got none",
        ),
        ("s.csv", "id,run,x\nq1,run_c,1\n", "s.csv:2: expected a run of the report ('run_a', 'run_b'), got 'run_c'"),
        (
            "s.csv",
            "id,run,x\nq1,run_a,1\nq1,run_a,0\n",
            "s.csv:3: expected one row per run and query ('run_a' 'q1' is on line 2)",
        ),
        ("s.csv", "id,run,note\nq1,run_a,fine\n", "s.csv:2: expected at least one column of numeric scores, got none"),
        (  # the first bad row is named: a query not judged before a row given twice, or another run
            "s.csv",
            "id,run,x\nq1,run_a,1\nq9,run_a,1\nq2,run_a,0\nq2,run_a,1\n",
            "s.csv:3: expected a query the judgments of run 'run_a' hold, got query 'q9'",
        ),
        (
            "s.csv",
            "id,run,x\nq9,run_b,1\nq1,run_c,1\n",
            "s.csv:2: expected a query the judgments of run 'run_b' hold, got query 'q9'",
        ),
    ],
)
def test_bad_score_files_are_one_line_naming_the_file_and_line(write, name, text, message):
    with pytest.raises(InputError) as caught:
        _report(write, text, name)
    said = str(caught.value)
    assert "\n" not in said and said.endswith(message), said


def test_a_gate_on_a_score_end_to_end(write, capsys):
    runs = [str(r) for r in _runs(write)]
    scores = str(write("s.csv", SCORES))
    args = ["build", *runs, "-k", "2", "--scores", scores, "--out", str(write("x", "").parent / "site")]
    assert main([*args, "--require", "run_b:faithfulness>=0.5"]) == 0  # Wilson's lower bound 0.510
    assert (
        "PASS  require run_b:faithfulness>=0.5  run_b faithfulness: lower band bound 0.510 >= 0.5"
        in capsys.readouterr().err
    )
    assert main([*args, "--require", "run_a:faithfulness>=0.5", "--require", "mean:grade>=4"]) == 1
    err = capsys.readouterr().err
    assert "FAIL  require run_a:faithfulness>=0.5  run_a faithfulness: lower band bound 0.301 < 0.5" in err
    assert "FAIL  require mean:grade>=4  run_a grade: mean 3.500 < 4" in err
    assert "PASS  require mean:grade>=4  run_b grade: mean 4.250 >= 4" in err
    # Without the file the rule cannot be read: a usage error, not a pass.
    assert (
        main(
            ["build", *runs, "-k", "2", "--out", str(write("y", "").parent / "site2"), "--require", "faithfulness>=0.5"]
        )
        == 2
    )
    assert "holds no score 'faithfulness' for run 'run_a'" in capsys.readouterr().err


def test_a_threshold_off_the_scores_scale_is_a_usage_error(write):
    from ragreport.output.exports.gates import check_gates, parse_rules

    stored = document(_report(write))
    with pytest.raises(ArgumentError, match="grade lies on 1-5, so a threshold of 7 would fail every run"):
        check_gates(stored, parse_rules(require=["grade>=7"]))
    (result,) = check_gates(stored, parse_rules(require=["run_b:grade>=3"]))
    assert (result.run, result.metric, result.passed) == ("run_b", "grade", True)  # bootstrap low 3.500


def _tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_render_draws_the_scores_again_byte_for_byte(write, tmp_path):
    # a given scale (grade=0-10, so 0.02 of it is a margin of 0.2) must come back as given, not inferred
    scores = write("s.csv", SCORES)
    given = ["--scores", str(scores), "--scores-scale", "grade=0-10", "--baseline", "run_a"]
    built, again, first = tmp_path / "built", tmp_path / "again", tmp_path / "first"
    runs = list(map(str, _runs(write)))
    assert main(["build", *runs, "-k", "2", *given, "--out", str(first), "--quiet"]) == 0
    # built against a previous report: its drift basis and the scores both come back
    given += ["--previous", str(first / "report.json")]
    assert main(["build", *runs, "-k", "2", *given, "--out", str(built), "--quiet"]) == 0
    stored = json.loads((built / "report.json").read_text())
    assert stored["drift"]["previous"]
    # what render reads: the names, and per run each query's values in their order, q1..q4
    assert stored["scores"]["names"] == ["faithfulness", "grade"]
    assert stored["scores"]["values"]["run_b"] == {"q1": [1, 5], "q2": [1, 3], "q3": [1, 5], "q4": [1, 4]}
    assert main(["render", str(built / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert _tree(again) == _tree(built)
    restored = json.loads((again / "report.json").read_text())["scores"]
    assert restored["scales"]["grade"]["how"] == "given with --scores-scale"
    grade = next(c for c in restored["comparisons"] if c["metric"] == "grade")
    assert grade["min_effect"] == pytest.approx(0.2)


def test_a_report_stored_before_the_values_renders_without_them(write, tmp_path):
    built = tmp_path / "built"
    scores = str(write("s.csv", SCORES))
    assert main(["build", *map(str, _runs(write)), "-k", "2", "--scores", scores, "--out", str(built), "--quiet"]) == 0
    document_ = json.loads((built / "report.json").read_text())
    for key in ("names", "values"):
        del document_["scores"][key]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(document_))
    assert main(["render", str(older), "--out", str(tmp_path / "again"), "--quiet"]) == 0
    assert "scores" not in json.loads((tmp_path / "again" / "report.json").read_text())
    document_["scores"]["values"] = {"run_a": {"q1": [1]}}  # one number where two names are stored
    older.write_text(json.dumps(document_))
    with pytest.raises(InputError, match="'scores.names'"):
        analyse_again(older)


def analyse_again(path):
    from ragreport.api import reanalyse

    return reanalyse(path)


def _parquet(path, rows):
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    parquet.write_table(pyarrow.Table.from_pylist(rows), path)
    return path


def test_a_parquet_score_file_is_read_as_the_csv(write, tmp_path):
    lines = SCORES.splitlines()
    header = lines[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
    for row in rows:  # Parquet keeps numbers as numbers
        row["faithfulness"], row["grade"] = int(row["faithfulness"]), float(row["grade"])
    path = _parquet(tmp_path / "judge.parquet", rows)
    scores = analyse(evaluate(_runs(write), k=2), scores=path).scores
    # as by hand above: 3 of 4 faithful and grades 4, 2, 5, 3 for run_a; 4 of 4 and 5, 3, 5, 4 for run_b
    assert [scores.figure(r, n).interval.mean for r in ("run_a", "run_b") for n in scores.names] == [
        0.75,
        3.5,
        1.0,
        4.25,
    ]
    assert scores.source == "judge.parquet" and scores.judges == ("gpt-judge",)
    # a row of Parquet is named by its number: row 2 is q2 of run_a
    rows[1]["grade"] = None
    _parquet(path, rows)
    with pytest.raises(InputError, match=r"judge\.parquet:2: expected a numeric score for 'grade' of query 'q2'"):
        analyse(evaluate(_runs(write), k=2), scores=path)


def test_a_parquet_score_file_without_pyarrow_names_the_extra(write, tmp_path, monkeypatch):
    import sys

    from ragreport.core.errors import UsageError

    path = tmp_path / "judge.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # the import fails as without pyarrow
    with pytest.raises(
        UsageError, match=r'judge\.parquet: reading Parquet needs pyarrow: pip install "ragreport\[parquet\]"$'
    ):
        analyse(evaluate(_runs(write), k=2), scores=path)


# The same scores under a tool's own names: its id 'qid', run 'system' and judge 'model'.
OWN = SCORES.replace("query_id,run,judge,", "qid,system,model,")


def test_a_score_files_own_column_names(write, tmp_path, capsys):
    runs = list(map(str, _runs(write)))
    own = ["--scores", str(write("own.csv", OWN)), "--scores-columns", "id=qid,run=system,judge=model"]
    assert main(["score", *runs, "-k", "2", *own, "--format", "json"]) == 0
    stored = json.loads(capsys.readouterr().out)
    # as by hand above: 3 of 4 faithful for run_a, grades 4, 2, 5, 3 -> 3.5; run_b 4 of 4 and 4.25
    assert [stored["runs"][0]["scores"][n]["mean"] for n in ("faithfulness", "grade")] == [0.75, 3.5]
    assert [stored["runs"][1]["scores"][n]["mean"] for n in ("faithfulness", "grade")] == [1.0, 4.25]
    assert stored["scores"]["judges"] == ["gpt-judge"] and stored["scores"]["names"] == ["faithfulness", "grade"]
    # a column named and absent: one line naming the file, the column asked for and the columns present
    wrong = ["--scores", str(write("own.csv", OWN)), "--scores-columns", "id=qid,run=pipeline"]
    assert main(["score", *runs, "-k", "2", *wrong, "--format", "json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.endswith(
        "own.csv: expected --scores-columns run=pipeline: a column of that name, got the columns "
        "'qid', 'system', 'model', 'faithfulness', 'grade', 'answer'"
    ), err
    # 'scores' is the run tables' role (their retrieval scores), not a score file's
    with pytest.raises(SystemExit):
        main(["score", *runs, "--scores", str(write("own.csv", OWN)), "--scores-columns", "scores=grade"])
    assert "unknown role 'scores': the roles are id, query, run, judge" in capsys.readouterr().err


def test_rows_known_by_their_question_pair_with_a_table_run_by_its_text(write):
    from ragreport.reading.columns import text_id

    # a run table without ids (its ids the hash of each question) and a RAGAS-like score file the same
    run = [{"question": f"What is {n}?", "retrieved": [n], "relevant": [n if n != "b" else "z"]} for n in "abc"]
    lines = "".join(json.dumps(row) + "\n" for row in run)
    scores = "question,faithfulness\nWhat is a?,0.5\nWhat is b?,0.25\nWhat  is c?,1\n"  # c's blanks normalised
    run_file = write("r.jsonl", lines)
    report = analyse(evaluate([run_file], k=1, columns="query=question"), scores=write("ragas.csv", scores))
    figure = report.scores.figure("r", "faithfulness")
    assert figure.interval.mean == pytest.approx((0.5 + 0.25 + 1) / 3)  # 0.5833333
    assert figure.queries == 3 and text_id("What is a?") in report.scores.values["r"]


def test_the_gallerys_ragas_scores_beside_the_mlflow_table(capsys):
    # docs/rag-stacks.md's command: RAGAS's user_input pairs each row with the MLflow table's question
    data = "tests/data/rag_stacks/"
    given = ["--input-format", "mlflow", "-k", "2", "--scores", data + "ragas_scores.csv"]
    assert main(["score", data + "mlflow_eval_results_table.csv", *given]) == 2
    assert "expected a 'id' column" in capsys.readouterr().err  # without it: no id, no 'query' or 'question'
    given += ["--scores-columns", "query=user_input", "--format", "json"]
    assert main(["score", data + "mlflow_eval_results_table.csv", *given]) == 0
    figures = json.loads(capsys.readouterr().out)["runs"][0]["scores"]
    # faithfulness (1 + 0.5 + 1) / 3 = 0.8333333; answer_relevancy (0.92 + 0.85 + 0.97) / 3 = 0.9133333
    assert figures["faithfulness"]["mean"] == pytest.approx(0.8333333, abs=1e-7)
    assert figures["answer_relevancy"]["mean"] == pytest.approx(0.9133333, abs=1e-7)
    assert figures["faithfulness"]["queries"] == 3


def test_publish_keeps_each_scores_mean_per_run_and_draws_its_trend(write):
    runs = [str(r) for r in _runs(write)]
    history = write("x", "").parent / "history"
    for label in ("v1", "v2"):
        assert (
            main(["publish", str(history), *runs, "-k", "2", "--scores", str(write("s.csv", SCORES)), "--label", label])
            == 0
        )
    entries = json.loads((history / "history.json").read_text())["reports"]
    a = {r["name"]: r for r in entries[0]["runs"]}["run_a"]
    # 3 of 4 faithful (Wilson, as worked above); grade (4 + 2 + 5 + 3) / 4 = 3.5 on 1-5
    assert a["scores"]["faithfulness"]["mean"] == 0.75 and a["scores"]["faithfulness"]["scale"] == "0/1"
    assert (a["scores"]["faithfulness"]["low"], a["scores"]["faithfulness"]["high"]) == pytest.approx(
        (0.3006419, 0.9544127), abs=2e-7
    )
    assert (a["scores"]["grade"]["mean"], a["scores"]["grade"]["scale"]) == (3.5, "1-5")
    assert "faithfulness" not in a["metrics"] and "grade" not in a["metrics"]
    page = (history / "index.html").read_text()
    assert 'id="score-trends"' in page and "faithfulness across reports" in page and "grade across reports" in page


def test_each_slice_gives_each_runs_mean_of_each_score_apart_from_its_metrics(write, tmp_path):
    meta = {"q1": {"topic": "billing"}, "q2": {"topic": "billing"}, "q3": {"topic": "ship"}, "q4": {"topic": "ship"}}
    found = _report(write, query_meta=meta, slice_by=["topic"]).slices
    billing, ship = found.slices
    a = billing.scores["run_a"]["faithfulness"]
    # run_a's faithfulness over billing: q1 1, q2 0, 1 of 2. Wilson at 95%: z^2 / n = 1.9207294, centre
    # (0.5 + 0.9603647) / 2.9207294 = 0.5, half (1.9599640 / 2.9207294) * sqrt(0.125 + 0.2400912) = 0.4054688.
    assert (a.mean, a.queries) == (0.5, 2)
    assert (a.low, a.high) == pytest.approx((0.0945312, 0.9054688), abs=2e-7)
    # over ship: q3 1, q4 1, 2 of 2: centre 1.9603647 / 2.9207294 = 0.6711898, half 0.6710541 * 0.4899910.
    b = ship.scores["run_a"]["faithfulness"]
    assert (b.mean, b.low, b.high) == pytest.approx((1.0, 0.3423802, 1.0), abs=2e-7)
    # grade (1-5, bootstrap): run_a billing (4 + 2) / 2 = 3, ship (5 + 3) / 2 = 4; run_b (5 + 3) / 2 = 4 and
    # (5 + 4) / 2 = 4.5. Two values resampled: the means 2, 3, 4 with chances 1/4, 1/2, 1/4, so the 2.5%
    # and 97.5% points are the two values themselves.
    grade = billing.scores["run_a"]["grade"]
    assert (grade.mean, grade.low, grade.high) == (3.0, 2.0, 4.0)
    assert ship.scores["run_a"]["grade"].mean == 4.0
    assert (billing.scores["run_b"]["grade"].mean, ship.scores["run_b"]["grade"].mean) == (4.0, 4.5)
    assert "faithfulness" not in billing.runs["run_a"] and "grade" not in billing.runs["run_a"]
    # the report: its own column of the slice table, and report.json's slices
    runs = [str(r) for r in _runs(write)]
    meta_file = write("meta.jsonl", "".join(json.dumps({"id": q, **m}) + "\n" for q, m in meta.items()))
    out = tmp_path / "site"
    args = ["build", *runs, "-k", "2", "--scores", str(write("s.csv", SCORES)), "--query-meta", str(meta_file)]
    assert main([*args, "--slice", "topic", "--out", str(out)]) == 0
    stored = json.loads((out / "report.json").read_text())["slices"]
    assert stored[0]["scores"]["run_a"]["faithfulness"]["mean"] == 0.5
    assert stored[1]["scores"]["run_b"]["grade"] == {"mean": 4.5, "low": 4.0, "high": 5.0, "queries": 2}
    page = (out / "index.html").read_text()
    assert "scores computed outside ragreport, per run" in page
    assert '<bdi class="run">run_a faithfulness</bdi> <span class="figure">0.500</span>' in page
    # render draws the slices' scores again from report.json alone, byte for byte
    again = tmp_path / "again"
    assert main(["render", str(out / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert _tree(again) == _tree(out)


def test_score_as_text_and_markdown_prints_the_scores_tables_and_their_slices(write, capsys):
    runs = [str(r) for r in _runs(write)]
    meta = write(
        "m.jsonl",
        "".join(
            json.dumps({"id": q, "topic": "billing" if q < "q3" else "ship"}) + "\n" for q in "q1 q2 q3 q4".split()
        ),
    )
    args = [
        "score",
        *runs,
        "-k",
        "2",
        "--scores",
        str(write("s.csv", SCORES)),
        "--query-meta",
        str(meta),
        "--slice",
        "topic",
    ]
    assert main([*args, "--format", "table"]) == 0
    text = capsys.readouterr().out
    # the figures worked in test_means_and_bands_worked_by_hand and in the slices' test above
    assert "run_a  faithfulness  0/1    0.750  [0.301, 0.954]  4 of 4" in text
    assert "run_b  grade         1-5    4.250  [3.500, 5.000]  4 of 4" in text
    # (the slices' lines wrap to the terminal's width: read as one line)
    assert "scores computed outside ragreport, per run: run_a faithfulness 0.500 [0.095, 0.905]" in " ".join(
        text.split()
    )
    assert main([*args, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| run\\_a | faithfulness | 0/1 | 0.750 | [0.301, 0.954] | 4 of 4 |" in md
    assert "run\\_a faithfulness 0.500 [0.095, 0.905]; run\\_a grade 3.000 [2.000, 4.000];" in md
    # never a row of the ranked-list table
    suite = md[md.index("| metric |") : md.index("Hit@K carries")]
    assert "faithfulness" not in suite and "grade" not in suite


def test_the_row_number_pandas_writes_first_is_no_score(tmp_path):
    from ragreport.reading.scores import read_scores

    # exactly as pandas' DataFrame.to_csv() writes a frame of scores (index=True, its default)
    path = tmp_path / "scores.csv"
    path.write_text(",query_id,run,faithfulness\n0,q1,run_a,1\n1,q2,run_a,0\n")
    found = read_scores(path)
    assert found.names == ("faithfulness",) and found.values.tolist() == [[1.0], [0.0]]
