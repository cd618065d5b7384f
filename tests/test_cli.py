"""End to end: the ragreport command as a user runs it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import pytest

from ragreport.cli import Progress, main
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.scoring.catalogue import SUITE

RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n"
QRELS = "q1 0 d2 1\nq2 0 d3 1\nq3 0 d9 1\n"


def _run(*args, cwd=None):
    env = dict(os.environ, COLUMNS="250")  # wide enough that no convention sentence wraps
    return subprocess.run(
        [sys.executable, "-m", "ragreport", *args], capture_output=True, text=True, cwd=cwd, timeout=120, env=env
    )


@pytest.mark.slow
def test_python_dash_m_prints_the_sample_table_from_any_directory(tmp_path):
    result = _run("score", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "sample  (K = 5)" in out
    assert "10 queries, 9 scored, 1 excluded (no relevant id)" in out
    assert "Hit@5     0.778  [0.453, 0.937]   Wilson" in out
    assert "R@5       0.676" in out
    for label in ("P@5", "RR@5", "AP@5", "nDCG@5", "CP@5"):
        assert f"\n{label} " in out
    assert "as trec_eval's P_5" in out


@pytest.mark.slow
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 high t\n")
    result = _run("score", "--qrels", "qrels.txt", "run.txt", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr
        == "ragreport: error: run.txt:1: expected a numeric score for query 'q1' id 'd1' (field 5), got 'high'\n"
    )


def test_json_format_keeps_the_documented_shape(capsys):
    assert main(["score", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "ragreport/4"
    run = doc["runs"][0]
    assert set(run) >= {"name", "k", "conventions", "counts", "metrics", "sweep", "queries"}
    assert run["conventions"] == {
        "denominator": "relevant",
        "gain": "linear",
        "missing": "zero",
        "order": "score",
        "no_relevant": "exclude",
        "confidence": 0.95,
        "resamples": 1000,
        "seed": 0,
        "relevance_level": 1,
    }
    assert set(run["counts"]) >= {
        "queries",
        "scored",
        "excluded_no_relevant",
        "missing_from_run",
        "repeats",
        "queries_with_repeats",
    }
    assert list(run["metrics"]) == [m.label(5) for m in SUITE]
    assert set(run["metrics"]["P@5"]) >= {"mean", "low", "high", "interval"}
    assert set(run["sweep"]) == {"k"} | {m.key for m in SUITE}
    assert set(run["sweep"]["nDCG"]) == {"mean", "low", "high"}
    # columns (``id`` and ``scored`` left out where derivable: docs/conventions.md section 22.13)
    assert set(run["queries"]) >= {"status", "retrieved", *(m.label(5) for m in SUITE)}
    assert all(len(column) == len(run["queries"]["status"]) for column in run["queries"].values())
    first = query_rows(doc, run)[0]
    assert set(first) >= {
        "id",
        "scored",
        "relevant",
        "retrieved",
        "repeats",
        "first_relevant_rank",
        *(m.label(5) for m in SUITE),
    }
    assert first["Hit@5"] == 1 and isinstance(first["Hit@5"], int)


def test_trec_files_with_missing_skip_equal_trec_eval_by_hand(tmp_path, capsys):
    # q1: relevant d2 at rank 2 of 2; q2: d3 at rank 1; q3 judged but absent (skipped like trec_eval without -c).
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    assert (
        main(
            [
                "score",
                "--qrels",
                str(tmp_path / "qrels.txt"),
                str(tmp_path / "run.txt"),
                "-k",
                "10",
                "--missing",
                "skip",
                "--format",
                "json",
            ]
        )
        == 0
    )
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["counts"]["scored"] == 2 and run["counts"]["missing_from_run"] == 1
    means = {label: entry["mean"] for label, entry in run["metrics"].items()}
    assert means["P@10"] == pytest.approx((0.1 + 0.1) / 2)
    assert means["RR@10"] == pytest.approx((0.5 + 1.0) / 2)
    assert means["AP@10"] == pytest.approx((0.5 + 1.0) / 2)
    assert means["nDCG@10"] == pytest.approx((1 / 1.5849625007211562 + 1.0) / 2)


def test_markdown_format(capsys):
    assert main(["score", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sample scores ") and "\n\n### sample (K = 5)\n" in out  # the verdict first
    assert "| Hit@5 | 0.778 | [0.453, 0.937] | Wilson |" in out


def test_switches_reach_the_figures(capsys):
    assert (
        main(
            [
                "score",
                "--format",
                "json",
                "-k",
                "3",
                "--kmax",
                "12",
                "--seed",
                "7",
                "--resamples",
                "200",
                "--confidence",
                "0.9",
                "--gain",
                "exp",
            ]
        )
        == 0
    )
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["k"] == 3 and run["sweep"]["k"][-1] == 12
    assert run["conventions"]["seed"] == 7 and run["conventions"]["resamples"] == 200
    assert run["conventions"]["confidence"] == 0.9 and run["conventions"]["gain"] == "exp"
    assert "exp gain" in run["metrics"]["nDCG@3"]["convention"]


def test_several_runs_in_one_call(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.txt").write_text(RUN)
    (tmp_path / "b.txt").write_text(RUN.replace("2.0", "0.5"))
    assert (
        main(
            [
                "score",
                "--qrels",
                str(tmp_path / "qrels.txt"),
                str(tmp_path / "a.txt"),
                str(tmp_path / "b.txt"),
                "--format",
                "json",
            ]
        )
        == 0
    )
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["name"] for r in runs] == ["a", "b"]
    assert runs[0]["metrics"]["RR@10"]["mean"] < runs[1]["metrics"]["RR@10"]["mean"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["-k", "0"], "expected a positive integer, got '0'"),
        (["--confidence", "1.5"], "expected a number strictly between 0 and 1"),
        (["--denominator", "all"], "invalid choice: 'all'"),
        (["--seed", "-1"], "expected a whole number from 0 up, got '-1'"),
        (["--resamples", "10"], "expected at least 100 resamples, got '10'"),
        (["--relevance-level", "0"], "argument --relevance-level: expected a relevance level of 1 or more, got '0'"),
        (["--relevance-level", "two"], "expected a relevance level of 1 or more, got 'two'"),
    ],
)
def test_bad_switches_exit_2(args, message, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["score", *args])
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_ids_that_never_meet_are_an_error_not_a_score_of_zero(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text(QRELS.upper())
    (tmp_path / "run.txt").write_text(RUN)
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]) == 2
    err = capsys.readouterr().err
    assert "share no query id (the run has 'q1', 'q2'; the judgments have 'Q1', 'Q2', 'Q3')" in err
    (tmp_path / "zero.txt").write_text("q1 0 d1 0\n")
    assert main(["score", "--qrels", str(tmp_path / "zero.txt"), str(tmp_path / "run.txt")]) == 2
    assert "no query has an id judged relevant (grade 1 or more)" in capsys.readouterr().err
    (tmp_path / "one.txt").write_text("q1 0 d1 1\n")
    assert (
        main(["score", "--qrels", str(tmp_path / "one.txt"), str(tmp_path / "run.txt"), "--relevance-level", "2"]) == 2
    )
    assert "no query has an id judged relevant (grade 2 or more)" in capsys.readouterr().err


def test_usage_errors_exit_2_with_one_line(tmp_path, capsys):
    (tmp_path / "run.txt").write_text(RUN)
    assert main(["score", str(tmp_path / "run.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give them with --qrels FILE" in err
    assert main(["score", "-k", "20", "--kmax", "10"]) == 2
    assert "--kmax (10) must be at least K (20)" in capsys.readouterr().err


def test_several_cutoffs_at_once(capsys):
    assert main(["score", "--format", "json", "-k", "1,5,10"]) == 0
    document = json.loads(capsys.readouterr().out)
    run = document["runs"][0]
    assert run["k"] == 1 and run["cutoffs"] == [1, 5, 10]
    assert {"P@1", "P@5", "P@10", "Hit@10", "CP@5"} <= set(run["metrics"])
    assert round(run["metrics"]["Hit@5"]["mean"], 3) == 0.778 and round(run["metrics"]["Hit@10"]["mean"], 3) == 0.889
    assert query_rows(document, run)[0]["P@10"] == 0.2 == run["queries"]["P@10"][0]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_lines_start_after_the_delay_and_follow_every_stage():
    stream = _Terminal()
    progress = Progress(stream, delay=0.2)
    progress("reading")
    assert stream.getvalue() == ""  # quick work prints nothing
    time.sleep(0.5)
    progress("scoring")
    progress.close()
    lines = stream.getvalue().splitlines()
    assert [line.split("...")[0] for line in lines] == ["ragreport: reading", "ragreport: scoring"]


def test_progress_is_silent_when_quiet_or_not_a_terminal():
    for stream, quiet in ((_Terminal(), True), (io.StringIO(), False)):
        progress = Progress(stream, quiet=quiet, delay=0.0)
        time.sleep(0.1)
        progress("reading")
        progress.close()
        assert stream.getvalue() == ""


def test_a_sigterm_exits_through_the_cleanups(tmp_path):
    """A CI timeout's SIGTERM leaves no spilled buckets behind: it exits as Ctrl-C does (143)."""
    import signal
    from pathlib import Path

    script = (
        "import sys, time\n"
        "import numpy as np\n"
        "from ragreport.cli import commands\n"
        "from ragreport.analysis.paired import PairedRows\n"
        "def slow(args):\n"
        "    rows = PairedRows()\n"
        "    rows.add(0, {0: (np.array(['q1']), np.array([1], dtype=np.uint64), np.zeros((1, 1)))})\n"
        "    print(rows.path, flush=True)\n"
        "    time.sleep(60)\n"
        "    return 0\n"
        "commands.COMMANDS['build'] = slow\n"
        "sys.exit(commands.main(['build', '--quiet', '--out', sys.argv[1]]))\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "site")], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    spilled = Path(child.stdout.readline().strip())
    assert spilled.is_dir()
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == 128 + signal.SIGTERM
    assert not spilled.exists()
