"""The packaged action (action.yml at the top level): its inputs and shape, and its scripts run
with bash as the runner would run them, against a local bare repository standing in for origin
(its Pages branch holding a published history), with a ragreport that is this checkout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ragreport.cli import main

ROOT = Path(__file__).resolve().parents[1]
QRELS = "".join(f"q{i} 0 d{i} 1\nq{i} 0 e{i} 1\n" for i in range(30))
# the relevant ids at ranks 2 and 3 of every query: nDCG@10 (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3)) = 0.693
CAND = "".join(f"q{i} Q0 x{i} 1 3 cand\nq{i} Q0 d{i} 2 2 cand\nq{i} Q0 e{i} 3 1 cand\n" for i in range(30))
# the older report's cand: both relevant ids first
RIGHT = "".join(f"q{i} Q0 d{i} 1 3 cand\nq{i} Q0 e{i} 2 2 cand\nq{i} Q0 x{i} 3 1 cand\n" for i in range(30))
GIT = shutil.which("git")


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _step(name: str) -> dict:
    return next(s for s in _action()["runs"]["steps"] if s.get("name", "").startswith(name))


def test_the_action_is_composite_with_its_inputs_and_calls_ragreport_pr():
    action = _action()
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    needed = {"runs", "qrels", "config", "baseline", "gates", "title", "base-path", "history-branch", "preview"}
    assert needed <= inputs and action["inputs"]["runs"]["required"] is True
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    install = _step("Install ragreport")
    assert install["run"] == 'python -m pip install --quiet "$ACTION_PATH"'  # the action's own ref
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert re.search(r"^ragreport pr ", _step("Build the report")["run"], re.M)
    assert any(s.get("uses", "").startswith("actions/upload-artifact@") for s in steps)
    assert steps[-1]["run"] == 'exit "${STATUS:-2}"'  # the gates' status
    for step in steps:  # an input is never pasted into a shell line (a title could hold `$(...)`)
        assert "${{" not in step.get("run", ""), step.get("name")
        if "run" in step:
            assert step["shell"] == "bash"
            if shutil.which("bash"):
                subprocess.run(["bash", "-n"], input=step["run"], text=True, check=True)


@pytest.fixture
def origin(tmp_path):
    """A bare origin whose main holds the runs and whose gh-pages holds a history of two reports
    (older: the runs ranked right; newest: as cand.trec ranks them), and a checkout of main."""
    if GIT is None:
        pytest.skip("git is not installed")  # the runner's image always has it
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"

    def git(*args, cwd):
        subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True)

    bare = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", str(bare), cwd=tmp_path)
    pages = tmp_path / "pages"
    git("init", "--quiet", "-b", "gh-pages", str(pages), cwd=tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    right = tmp_path / "right" / "cand.trec"
    right.parent.mkdir()
    right.write_text(RIGHT)
    (tmp_path / "cand.trec").write_text(CAND)
    for label, run in (("older", right), ("newest", tmp_path / "cand.trec")):
        args = ["publish", str(pages / "eval"), "--qrels", str(tmp_path / "qrels.txt"), str(run)]
        assert main([*args, "--label", label, "--resamples", "200", "--quiet"]) == 0
    git("add", "-A", cwd=pages)
    git("commit", "--quiet", "-m", "history", cwd=pages)
    git("push", "--quiet", str(bare), "gh-pages", cwd=pages)
    work = tmp_path / "work"
    work.mkdir()
    git("init", "--quiet", "-b", "main", cwd=work)
    (work / "README").write_text("x")
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "main", cwd=work)
    git("remote", "add", "origin", str(bare), cwd=work)
    git("push", "--quiet", "origin", "main", cwd=work)
    return tmp_path


def _run(step: str, folder: Path, **env: str) -> dict[str, str]:
    """The step's script run by bash in the checkout, as the runner runs it; its outputs."""
    outputs = folder / "outputs.txt"
    outputs.write_text("")
    tools = folder / "bin"
    tools.mkdir(exist_ok=True)
    (tools / "ragreport").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragreport "$@"\n')
    (tools / "ragreport").chmod(0o755)
    full = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "RUNNER_TEMP": str(folder / "temp"),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_REPOSITORY_OWNER": "o",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_RUN_ID": "42",
        "GIT_AUTHOR_NAME": "t",
        "GIT_COMMITTER_NAME": "t",
        **env,
    }
    (folder / "temp").mkdir(exist_ok=True)
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", _step(step)["run"]],
        cwd=folder / "work",
        env=full,
        text=True,
    )
    assert done.returncode in (0, 1), done
    return dict(line.split("=", 1) for line in outputs.read_text().splitlines())


def test_the_action_finds_the_base_in_the_published_history_builds_comments_and_previews(origin):
    found = _run("Find the base's report", origin, HISTORY_BRANCH="gh-pages", HISTORY_FOLDER="eval", BASE_PATH="")
    base = Path(found["path"])
    newest = origin / "pages" / "eval" / "reports" / "newest" / "report.json"
    assert base == origin / "temp" / "ragreport-base" / "report.json" and base.read_bytes() == newest.read_bytes()
    runs = f"{origin / 'cand.trec'}\n"
    report = _run(
        "Build the report",
        origin,
        RUNS=runs,
        QRELS=str(origin / "qrels.txt"),
        TITLE="Retrieval evaluation",
        BASE=str(base),
        GATES="--require cand:nDCG@10>=0.9 --resamples 200 --quiet",
        PREVIEW="true",
        PR_NUMBER="7",
    )
    assert report["status"] == "1"  # nDCG@10 0.693 everywhere: the gate fails, the step does not
    folder = Path(report["folder"])
    comment = (folder / "comment.md").read_text()
    assert "#### What changed since the base" in comment and "\ncand: unchanged." in comment  # the same run
    assert comment.rstrip().endswith(
        "**[Open the full report](https://o.github.io/r/pr-7/)**: every figure, chart and query."
    )
    assert {p.name for p in folder.iterdir()} >= {"site", "comment.md", "summary.md", "junit.xml", "metrics.txt"}
    assert json.loads((folder / "site" / "report.json").read_text())["drift"]["comparable"] is True

    given = _run("Find the base's report", origin, BASE_PATH="my/base.json", HISTORY_BRANCH="gh-pages")
    assert given["path"] == "my/base.json"  # a path given comes first
    nothing = _run("Find the base's report", origin, HISTORY_BRANCH="no-such-branch", HISTORY_FOLDER="eval")
    assert nothing["path"] == ""  # ragreport pr then says the head is judged alone

    _run(
        "Keep the preview", origin, HISTORY_BRANCH="gh-pages", PR_NUMBER="7", CLOSED="false", SITE=str(folder / "site")
    )
    listed = subprocess.run(
        [GIT, "--git-dir", str(origin / "origin.git"), "ls-tree", "--name-only", "gh-pages"],
        capture_output=True,
        text=True,
    )
    assert listed.stdout.split() == ["eval", "pr-7"]
    shutil.rmtree(origin / "temp" / "ragreport-pages")
    subprocess.run([GIT, "worktree", "prune"], cwd=origin / "work", check=True)
    _run("Keep the preview", origin, HISTORY_BRANCH="gh-pages", PR_NUMBER="7", CLOSED="true", SITE="")
    listed = subprocess.run(
        [GIT, "--git-dir", str(origin / "origin.git"), "ls-tree", "--name-only", "gh-pages"],
        capture_output=True,
        text=True,
    )
    assert listed.stdout.split() == ["eval"]  # removed when the pull request closes


def test_the_documented_workflow_is_at_most_15_lines_and_uses_the_actions_inputs():
    text = (ROOT / "examples" / "github-pull-request.yml").read_text()
    assert len(text.splitlines()) <= 15
    workflow = yaml.safe_load(text)
    # PyYAML reads the key `on` as True (YAML 1.1); GitHub reads it as `on`
    assert workflow[True]["pull_request"]["types"] == ["opened", "synchronize", "reopened", "closed"]
    step = workflow["jobs"]["evaluate"]["steps"][-1]
    assert step["uses"].split("@")[0].endswith("/ragreport")
    inputs = _action()["inputs"]
    assert set(step["with"]) <= set(inputs)
    assert {name for name, i in inputs.items() if i.get("required")} <= set(step["with"])
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write", "actions": "read"}
