"""Gates and CI outputs end to end: exit statuses, the step summary, workflow commands, JUnit, the
pull-request comment, and the example GitHub Pages workflow run command by command (the pull
request's action: tests/test_action.py)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ragreport.cli import main
from ragreport.output.exports.text import COMMENT_LIMIT

ROOT = Path(__file__).resolve().parents[1]
QRELS = "".join(f"q{i} 0 d{i} 1\nq{i} 0 e{i} 1\n" for i in range(30))
GOOD = "".join(f"q{i} Q0 d{i} 1 3 good\nq{i} Q0 e{i} 2 2 good\nq{i} Q0 x{i} 3 1 good\n" for i in range(30))
# the relevant ids a rank lower on every query: clearly worse than GOOD
WORSE = "".join(f"q{i} Q0 x{i} 1 3 worse\nq{i} Q0 d{i} 2 2 worse\nq{i} Q0 e{i} 3 1 worse\n" for i in range(30))


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "good.trec").write_text(GOOD)
    (tmp_path / "worse.trec").write_text(WORSE)
    return tmp_path


def _args(folder, *extra):
    return [
        "--qrels",
        str(folder / "qrels.txt"),
        str(folder / "good.trec"),
        str(folder / "worse.trec"),
        "--resamples",
        "200",
        "--quiet",
        *extra,
    ]


def test_exit_status_is_0_when_every_gate_passes_1_when_one_fails_2_for_bad_input(inputs, capsys):
    out = inputs / "site"
    assert main(["build", *_args(inputs, "--require", "good:nDCG@10>=0.9", "--out", str(out))]) == 0
    # good ranks both relevant ids first on every query: nDCG@10 1 everywhere, a band of 1.000 to 1.000
    assert (
        "PASS  require good:nDCG@10>=0.9  good nDCG@10: lower band bound 1.000 >= 0.9 (mean 1.000)"
        in capsys.readouterr().err
    )
    assert main(["build", *_args(inputs, "--fail-on", "worse", "--out", str(out))]) == 1
    err = capsys.readouterr().err
    # worse: nDCG@10 (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3)) = 0.693 on every query, good 1
    assert (
        "ragreport: FAIL  fail-on worse  worse nDCG@10: verdict clearly worse: difference -0.307, band -0.307 to -0.307"
        in err
    )
    index = (out / "index.html").read_text()  # the site is written all the same: it shows why
    assert '<section id="gates"' in index and "1 of 1 gate check failed" in index
    headline = index[index.index('id="headline"') : index.index('<figure class="forest">')]
    assert '<a href="#gates">Gates</a>: 1 of 1 gate check failed' in headline  # the first screen says it
    report = json.loads((out / "report.json").read_text())
    assert [(g["rule"], g["run"], g["passed"]) for g in report["gates"]] == [("fail-on worse", "worse", False)]
    assert "| **FAIL** | `fail-on worse` | worse | nDCG@10 |" in (out / "summary.md").read_text()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(["build", *_args(inputs, "--require", "nDCG@10>=x", "--out", str(out))]) == 2
    assert "expected a number after the operator, got 'x'" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing touched


def test_score_prints_the_gates_and_keeps_json_clean(inputs, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["score", *_args(inputs, "--max-drop", "nDCG@10=0.05", "--format", "json")]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)  # stdout stays one JSON document
    (gate,) = document["gates"]
    assert gate["rule"] == "max-drop nDCG@10=0.05" and gate["passed"] is False and gate["threshold"] == -0.05
    assert (
        "::error title=ragreport gate max-drop nDCG@10=0.05::FAIL  max-drop nDCG@10=0.05  worse nDCG@10" in captured.err
    )
    assert main(["score", *_args(inputs, "--max-drop", "nDCG@10=0.05")]) == 1
    table = capsys.readouterr().out
    assert "Gates: 1 of 1 gate check failed: the command exits with status 1." in table
    assert "::error title=ragreport gate" in table  # GitHub reads workflow commands from stdout


def test_step_summary_is_appended_unless_turned_off(inputs, capsys, monkeypatch):
    summary = inputs / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["build", *_args(inputs, "--fail-on", "worse", "--out", str(inputs / "site"))]) == 1
    text = summary.read_text()
    assert text.startswith("# earlier step\n") and "clearly worse" in text
    assert "| **FAIL** | `fail-on worse` | worse | nDCG@10 |" in text
    assert main(["build", *_args(inputs, "--out", str(inputs / "site"), "--no-step-summary")]) == 0
    assert summary.read_text() == text


def test_junit_file_holds_one_case_per_check(inputs):
    target = inputs / "out" / "gates.xml"
    assert (
        main(["score", *_args(inputs, "--fail-on", "worse", "--require", "nDCG@10>=0.5", "--junit", str(target))]) == 1
    )
    suite = ET.parse(target).getroot()[0]
    cases = [(c.get("classname"), c.get("name"), c.find("failure") is not None) for c in suite.findall("testcase")]
    assert cases == [
        ("fail-on worse", "worse nDCG@10", True),
        ("require nDCG@10>=0.5", "good nDCG@10", False),
        ("require nDCG@10>=0.5", "worse nDCG@10", False),
    ]


def _tables_whole(text: str) -> bool:
    """Every Markdown table has its header, its rule and rows of the header's width."""
    for block in re.split(r"\n(?!\|)", text):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if not rows:
            continue
        widths = {len(re.split(r"(?<!\\)\|", row)) for row in rows}
        if len(rows) < 2 or not re.fullmatch(r"\|(-+:?\|)+", rows[1].replace("---:", "---")) or len(widths) != 1:
            return False
    return True


def test_comment_of_a_small_report_is_the_whole_summary(inputs):
    target = inputs / "comment.md"
    assert main(["build", *_args(inputs, "--out", str(inputs / "site"), "--comment", str(target))]) == 0
    assert target.read_text() == (inputs / "site" / "summary.md").read_text()


@pytest.mark.slow
def test_comment_of_fifty_runs_fits_githubs_limit_by_dropping_whole_blocks(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    lines_of = {}
    for r in range(50):  # each run misses a different share of the relevant ids
        lines_of[r] = "".join(
            f"q{i} Q0 {'d' if (i + r) % 7 else 'x'}{i} 1 2 run{r}\nq{i} Q0 e{i} 2 1 run{r}\n" for i in range(30)
        )
    runs = []
    for r, text in lines_of.items():
        path = tmp_path / f"retriever-with-a-rather-long-descriptive-name-{r:02d}.trec"
        path.write_text(text)
        runs.append(str(path))
    (tmp_path / "qrels.txt").write_text(QRELS)
    target = tmp_path / "comment.md"
    assert (
        main(
            [
                "build",
                "--qrels",
                str(tmp_path / "qrels.txt"),
                *runs,
                "--resamples",
                "100",
                "--permutations",
                "200",
                "--out",
                str(tmp_path / "site"),
                "--comment",
                str(target),
                "--quiet",
                "--require",
                "nDCG@10>=0.2",
            ]
        )
        == 0
    )
    full = (tmp_path / "site" / "summary.md").read_text()
    comment = target.read_text()
    assert len(full) > COMMENT_LIMIT >= len(comment)
    assert comment.rstrip().endswith("The report's site and summary.md hold everything._")
    left_out = re.search(r"_Left out to fit GitHub's 65,536-character limit on a comment: (.*)\. The", comment)
    assert left_out and "each run's counts and honest limits" in left_out.group(1)
    assert _tables_whole(comment)
    assert comment.count("| PASS | `require nDCG@10>=0.2` |") == 50  # the gates are never dropped
    assert all(f"retriever-with-a-rather-long-descriptive-name-{r:02d} scores" in comment for r in range(1, 50))


def _run_blocks(workflow: str) -> list[str]:
    """The shell of each `run:` step of a workflow file (a `run: |` block or a one-line `run:`)."""
    blocks, lines, i = [], workflow.splitlines(), 0
    while i < len(lines):
        found = re.match(r"^(\s*)(?:- )?run: (.*)$", lines[i])
        i += 1
        if not found:
            continue
        if found.group(2).strip() != "|":
            blocks.append(found.group(2))
            continue
        body, indent = [], None
        while i < len(lines) and (not lines[i].strip() or indent is None or lines[i].startswith(indent)):
            if lines[i].strip():
                indent = indent or re.match(r"^\s*", lines[i]).group(0)
                if len(re.match(r"^\s*", lines[i]).group(0)) <= len(found.group(1)):
                    break
            body.append(lines[i][len(indent or "") :])
            i += 1
        blocks.append("\n".join(body))
    return blocks


def _by_query(first: str, second: str, name: str) -> str:
    """A run of GOOD's ranking (``first``/``second``: ``good`` or ``worse``) on even and odd queries."""
    order = {"good": ("d", "e", "x"), "worse": ("x", "d", "e")}
    return "".join(
        f"q{i} Q0 {doc}{i} {rank} {4 - rank} {name}\n"
        for i in range(30)
        for rank, doc in enumerate(order[first if i % 2 == 0 else second], 1)
    )


def test_every_gate_line_says_the_figure_it_read_on_every_medium(inputs, capsys, monkeypatch):
    # nDCG@10 of a query: 1 with both relevant ids first (good), (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3))
    # = 0.693426 with them second and third (worse). mixed (the baseline) and flipped score 1 on half
    # the queries and 0.693 on the other half: mean 0.846713 each, paired differences +-0.307, mean
    # 0 (no clear difference); worse is 0.693 everywhere: -0.153287 against mixed (clearly worse).
    (inputs / "mixed.trec").write_text(_by_query("good", "worse", "mixed"))
    (inputs / "flipped.trec").write_text(_by_query("worse", "good", "flipped"))
    step = inputs / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    runs = [str(inputs / f"{name}.trec") for name in ("mixed", "flipped", "worse")]
    rules = ["--fail-on", "worse", "--require", "mixed:nDCG@10>=0.84", "--max-drop", "nDCG@10=0.05"]
    outputs = ["--out", str(inputs / "site"), "--junit", str(inputs / "gates.xml"), "--comment", str(inputs / "c.md")]
    args = ["--qrels", str(inputs / "qrels.txt"), *runs, "--baseline", "mixed", "--resamples", "200", "--quiet"]
    assert main(["build", *args, *rules, *outputs]) == 1
    err = capsys.readouterr().err
    report = json.loads((inputs / "site" / "report.json").read_text())
    mixed = report["runs"][0]["metrics"]["nDCG@10"]
    assert mixed["mean"] == pytest.approx((1 + 0.693426) / 2, abs=1e-6) and mixed["low"] < 0.84  # the premise
    band = {c["run"]: c for c in report["comparisons"] if c["metric"] == "nDCG@10"}
    assert band["flipped"]["delta"] == pytest.approx(0) and band["flipped"]["verdict"] == "unclear"
    assert band["worse"]["delta"] == pytest.approx(-0.153287, abs=1e-6) and band["worse"]["verdict"] == "worse"
    # Before, the clear drop of worse carried "underpowered": the test could only see 0.115 or more.
    assert band["worse"]["detectable"] > 0.05 and band["flipped"]["detectable"] > 0.05

    def ends(c):
        return f"{c['low']:+.3f} to {c['high']:+.3f}"

    flipped, worse = band["flipped"], band["worse"]
    figures = [
        f"verdict no clear difference: difference 0.000, band {ends(flipped)}, corrected p 1.000",
        f"verdict clearly worse: difference -0.153, band {ends(worse)}, corrected p {worse['p_adjusted']:.3f}",
        f"lower band bound {mixed['low']:.3f} < 0.84 (mean 0.847; to gate the mean: mean:mixed:nDCG@10>=0.84)",
        f"against mixed: lower band bound {flipped['low']:+.3f} < -0.05 (difference 0.000, band {ends(flipped)}); "
        f"underpowered: with 30 queries this comparison could only detect differences of "
        f"{flipped['detectable']:.3f} or more (80% power)",
        f"against mixed: lower band bound {worse['low']:+.3f} < -0.05 (difference -0.153, band {ends(worse)})",
    ]
    lines = [
        f"PASS  fail-on worse  flipped nDCG@10: {figures[0]}",
        f"FAIL  fail-on worse  worse nDCG@10: {figures[1]}",
        f"FAIL  require mixed:nDCG@10>=0.84  mixed nDCG@10: {figures[2]}",
        f"FAIL  max-drop nDCG@10=0.05  flipped nDCG@10: {figures[3]}",
        f"FAIL  max-drop nDCG@10=0.05  worse nDCG@10: {figures[4]}",
    ]
    # the terminal: one line per check on stderr
    assert [line for line in err.splitlines() if line.startswith("ragreport: ")] == [f"ragreport: {x}" for x in lines]
    # JUnit: the line as the failure's message, the figure as its text (a pass: the line as its output)
    cases = ET.parse(inputs / "gates.xml").getroot()[0].findall("testcase")
    assert cases[0].find("system-out").text == lines[0]
    assert [(c.find("failure").get("message"), c.find("failure").text) for c in cases[1:]] == list(
        zip(lines[1:], figures[1:], strict=True)
    )
    # Markdown: summary.md, the pull-request comment and the job summary hold the same rows
    from ragreport.output.site.media import markdown_text

    rows = [
        f"| PASS | `fail-on worse` | flipped | nDCG@10 | {markdown_text(figures[0])} |",
        f"| **FAIL** | `fail-on worse` | worse | nDCG@10 | {markdown_text(figures[1])} |",
        f"| **FAIL** | `require mixed:nDCG@10>=0.84` | mixed | nDCG@10 | {markdown_text(figures[2])} |",
        f"| **FAIL** | `max-drop nDCG@10=0.05` | flipped | nDCG@10 | {markdown_text(figures[3])} |",
        f"| **FAIL** | `max-drop nDCG@10=0.05` | worse | nDCG@10 | {markdown_text(figures[4])} |",
    ]
    low = f"{mixed['low']:.3f}"  # the rule's characters as Markdown shows them, written out once
    assert (
        f"lower band bound {low} &lt; 0.84 \\(mean 0.847; to gate the mean: mean:mixed:nDCG@10&gt;=0.84\\)" in rows[2]
    )
    for medium in (inputs / "site" / "summary.md", inputs / "c.md", step):
        text = medium.read_text()
        assert "\n".join(rows) in text, medium.name
        assert text.count("underpowered") == 1, medium.name  # beside the unclear check alone
    assert html.escape(figures[2], quote=False) in (inputs / "site" / "index.html").read_text()
    # the rule the line gives gates the mean: 0.847 >= 0.84 passes
    assert main(["score", *args, "--require", "mean:mixed:nDCG@10>=0.84", "--no-step-summary"]) == 0
    assert "ragreport: PASS  require mean:mixed:nDCG@10>=0.84  mixed nDCG@10: mean 0.847 >= 0.84" in (
        capsys.readouterr().err
    )


def test_max_drop_against_the_previous_report(inputs, capsys):
    then, now = inputs / "then", inputs / "now"
    then.mkdir()
    now.mkdir()
    (then / "cand.trec").write_text(GOOD)
    (now / "cand.trec").write_text(WORSE)
    qrels = ["--qrels", str(inputs / "qrels.txt"), "--resamples", "200", "--quiet"]
    assert main(["build", str(then / "cand.trec"), *qrels, "--out", str(then / "site")]) == 0
    assert (
        main(
            [
                "score",
                str(now / "cand.trec"),
                *qrels,
                "--previous",
                str(then / "site" / "report.json"),
                "--max-drop",
                "RR@10=0.1",
                "--format",
                "json",
            ]
        )
        == 1
    )
    (gate,) = json.loads(capsys.readouterr().out)["gates"]
    # every query's first relevant id moved from rank 1 to rank 2: RR falls by exactly 0.5 on each
    assert (gate["run"], gate["value"], gate["passed"]) == ("cand", -0.5, False)
    assert gate["figure"] == (
        "against the previous report: lower band bound -0.500 < -0.1 (difference -0.500, band -0.500 to -0.500)"
    )


def test_render_checks_the_stored_gates_again_byte_for_byte_or_the_ones_it_is_given(inputs, capsys, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    built = inputs / "built"
    assert (
        main(["build", *_args(inputs, "--fail-on", "worse", "--require", "good:nDCG@10>=0.9", "--out", str(built))])
        == 1
    )
    stored = json.loads((built / "report.json").read_text())
    assert stored["settings"]["gates"] == {
        "fail_on": ["worse"],
        "require": ["good:nDCG@10>=0.9"],
        "max_drop": [],
        "gated": None,
    }
    alone = inputs / "alone"
    alone.mkdir()
    (alone / "report.json").write_bytes((built / "report.json").read_bytes())
    again = inputs / "again"
    assert main(["render", str(alone / "report.json"), "--out", str(again), "--quiet"]) == 1  # the stored rules
    files = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((built / f).read_bytes() == (again / f).read_bytes() for f in files)
    capsys.readouterr()
    # a gate option given to render replaces the stored rules of that option; the others stay
    assert main(["render", str(alone / "report.json"), "--format", "json", "--require", "nDCG@10>=0.5"]) == 1
    gates = json.loads(capsys.readouterr().out)["gates"]
    assert [(g["rule"], g["run"], g["passed"]) for g in gates] == [
        ("fail-on worse", "worse", False),
        ("require nDCG@10>=0.5", "good", True),
        ("require nDCG@10>=0.5", "worse", True),
    ]
    # an export given no gate option checks none: exit 0, no gate lines
    assert main(["render", str(alone / "report.json"), "--format", "csv"]) == 0
    assert "gate" not in capsys.readouterr().err


def test_fail_on_worse_reads_every_metric_of_the_comparison_family(inputs, capsys):
    assert main(["score", *_args(inputs, "--metrics", "RR@10,P@10", "--fail-on", "worse", "--format", "json")]) == 1
    gates = json.loads(capsys.readouterr().out)["gates"]
    # the relevant ids a rank lower: RR falls from 1 to 0.5 on every query; P@10 does not move
    assert [(g["metric"], g["passed"]) for g in gates] == [("RR@10", False), ("P@10", True)]


def test_a_bad_rule_from_the_config_file_names_the_file(inputs, capsys, monkeypatch):
    (inputs / "ragreport.toml").write_text(
        'runs = ["good.trec", "worse.trec"]\nqrels = "qrels.txt"\nrequire = ["nDCG@10=>0.6"]\n'
    )
    monkeypatch.chdir(inputs)
    assert main(["score", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ragreport: error: ragreport.toml: key 'require': --require 'nDCG@10=>0.6': expected")


def _git(*args, cwd):
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_example_pages_workflow_keeps_a_history_on_the_gh_pages_branch(inputs):
    """The workflow's steps, run twice against a local repository standing in for GitHub: each push
    adds a report to the history on gh-pages, and the second measures drift against the first."""
    workflow = (ROOT / "examples" / "github-pages-history.yml").read_text()
    blocks = _run_blocks(workflow)
    assert blocks[0] == "pip install ragreport"
    origin = inputs / "origin.git"
    _git("init", "-q", "--bare", str(origin), cwd=inputs)
    seed = inputs / "seed"
    _git("init", "-q", "-b", "gh-pages", str(seed), cwd=inputs)
    _git("commit", "-q", "--allow-empty", "-m", "pages", cwd=seed)  # the branch, made once by hand
    _git("push", "-q", str(origin), "gh-pages", cwd=seed)
    eval_dir = inputs / "eval"
    eval_dir.mkdir()
    (eval_dir / "qrels.txt").write_text(QRELS)
    (eval_dir / "bm25.trec").write_text(GOOD.replace(" good", " bm25"))
    tools = inputs / "bin"
    tools.mkdir()
    (tools / "ragreport").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragreport "$@"\n')
    (tools / "ragreport").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "SOURCE_DATE_EPOCH": "1790000000",
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    for sha, candidate in (("a1b2c3d4e5f6a7b8", WORSE), ("0f0e0d0c0b0a0908", GOOD.replace(" good", " candidate"))):
        (eval_dir / "candidate.trec").write_text(candidate.replace(" worse", " candidate"))
        pages = inputs / "pages"  # actions/checkout of gh-pages into pages/
        shutil.rmtree(pages, ignore_errors=True)
        _git("clone", "-q", "-b", "gh-pages", str(origin), str(pages), cwd=inputs)
        for block in blocks[1:]:
            done = subprocess.run(
                ["bash", "-e", "-c", block], cwd=inputs, capture_output=True, text=True, env={**env, "GITHUB_SHA": sha}
            )
            assert done.returncode == 0, (block, done.stdout, done.stderr)
    check = inputs / "check"
    _git("clone", "-q", "-b", "gh-pages", str(origin), str(check), cwd=inputs)
    history = json.loads((check / "eval" / "history.json").read_text())
    assert [r["label"] for r in history["reports"]] == ["0f0e0d0c0b0a", "a1b2c3d4e5f6"]
    drift = history["reports"][0]["drift"]
    assert drift["previous"] == "a1b2c3d4e5f6"
    assert {r["run"]: r["verdict"] for r in drift["rows"]} == {"bm25": "unclear", "candidate": "better"}
    assert (check / "eval" / "reports" / "a1b2c3d4e5f6" / "index.html").is_file()
    assert _git("log", "--format=%s", cwd=check).splitlines() == [
        "Retrieval evaluation 0f0e0d0c0b0a",
        "Retrieval evaluation a1b2c3d4e5f6",
        "pages",
    ]


@pytest.mark.slow
def test_score_and_build_print_the_same_gate_lines_on_stderr_never_wrapped(inputs):
    # A long run name and a narrow terminal: each check is still one line, the same from both commands.
    long = "a-candidate-run-with-a-name-far-longer-than-any-terminal-is-wide-" * 2
    (inputs / "worse.meta.toml").write_text(f'name = "{long}"\n')
    rules = ("--fail-on", "worse", "--require", "nDCG@10>=0.5", "--max-drop", "nDCG@10=0.02")
    env = {**os.environ, "COLUMNS": "40", "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_ACTIONS", None)
    lines = {}
    for command in ("score", "build"):
        extra = ("--out", str(inputs / "site")) if command == "build" else ()
        done = subprocess.run(
            [sys.executable, "-m", "ragreport", command, *_args(inputs, *rules, *extra)],
            capture_output=True,
            text=True,
            env=env,
            cwd=inputs,
        )
        assert done.returncode == 1, done.stderr
        lines[command] = [
            line for line in done.stderr.splitlines() if line.startswith(("ragreport: PASS", "ragreport: FAIL"))
        ]
        assert "PASS  " not in done.stdout and "FAIL  " not in done.stdout  # stdout: the table, or nothing
    assert lines["score"] == lines["build"]
    assert len(lines["score"]) == 4  # fail-on and max-drop on the candidate, require on both runs
    assert all(len(line) > 40 for line in lines["score"])
    assert any(
        line.startswith(f"ragreport: FAIL  fail-on worse  {long} nDCG@10: verdict clearly worse: ")
        for line in lines["score"]
    )


def test_fail_on_worse_than_margin_from_the_command_line_and_the_config_file(inputs, capsys, monkeypatch):
    """Non-inferiority: 'worse' drops nDCG@10 by 0.307 on every query (band -0.307 to -0.307), which
    reaches minus the margin 0.02; under a margin of 0.5 it does not."""
    assert main(["score", *_args(inputs, "--fail-on", "worse-than-margin", "--format", "json")]) == 1
    out, err = capsys.readouterr()
    line = (
        "FAIL  fail-on worse-than-margin  worse nDCG@10: lower band bound -0.307 <= -0.02, minus the margin 0.02 "
        "(difference -0.307, band -0.307 to -0.307); a drop of 0.02 or more cannot be ruled out"
    )
    assert f"ragreport: {line}" in err
    assert [(g["rule"], g["value"], g["threshold"], g["passed"]) for g in json.loads(out)["gates"]] == [
        ("fail-on worse-than-margin", pytest.approx(-0.3066, abs=1e-4), -0.02, False)
    ]
    (inputs / "ragreport.toml").write_text(
        'runs = ["good.trec", "worse.trec"]\nqrels = "qrels.txt"\nresamples = 200\n'
        'fail_on = ["worse-than-margin"]\nmin_effect = 0.5\n'
    )
    monkeypatch.chdir(inputs)
    assert main(["score", "--quiet"]) == 0
    assert "PASS  fail-on worse-than-margin  worse nDCG@10: lower band bound -0.307 > -0.5, minus the margin 0.5 (" in (
        capsys.readouterr().err
    )
