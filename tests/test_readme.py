"""README.md's commands run as written, and its two set-up commands stay true."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from ragreport.scoring.catalogue import CATALOGUE, SUITE

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 1)
    return README[start : end if end > 0 else None]


def _commands(title: str) -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", _section(title), flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip().startswith("ragreport ")]


def _run(command: str) -> subprocess.CompletedProcess:
    args = shlex.split(command)[1:]
    return subprocess.run(
        [sys.executable, "-m", "ragreport", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


PEERS = _commands("Coming from trec_eval, pytrec_eval, ranx or ir_measures")


def test_the_peer_section_has_a_command_per_peer():
    assert len(PEERS) == 4


@pytest.mark.slow
@pytest.mark.parametrize("command", PEERS)
def test_peer_commands_run(command):
    result = _run(command)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


@pytest.mark.slow
def test_the_trec_eval_command_gives_pytrec_evals_values():
    result = _run(PEERS[0])
    qrels = {}
    for line in (ROOT / "tests/data/qrels.trec").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run = {}
    for line in (ROOT / "tests/data/ir_datasets_run.trec").read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"P.5,10", "recall.100", "map_cut.100", "ndcg_cut.10", "success.5", "recip_rank"}
    ).evaluate(run)
    lines = [line.split("\t") for line in result.stdout.splitlines()]
    per_query = {(name.strip(), qid): float(value) for name, qid, value in lines if qid != "all"}
    assert len(per_query) == 2 * 7
    for (name, qid), value in per_query.items():
        assert value == pytest.approx(expected[qid][name], abs=5e-5)


@pytest.mark.slow
def test_the_ranx_command_reads_ranx_names():
    result = _run(PEERS[3])
    assert "ndcg_burges@10" not in result.stderr
    assert "nDCG@10 (exp gain)" in result.stdout and "hit_rate" not in result.stdout


def test_the_setup_commands_are_the_first_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, flags=re.S).group(1)
    assert "pip install . && ragreport build" in first_block
    assert 'pip install ".[test]" && pytest' in first_block
    assert "pytest" in (ROOT / ".ci" / "run").read_text()


@pytest.mark.slow
def test_json_of_an_ir_measures_command_holds_the_named_measures(tmp_path):
    result = _run(PEERS[2] + " --format json")
    measures = json.loads(result.stdout)["runs"][0]["measures"]
    assert list(measures) == ["P@5", "nDCG@10", "AP@100", "RR@10", "R@1000", "Hit@5"]


@pytest.mark.slow
def test_the_python_recipe_for_partitions_runs(tmp_path):
    section = _section("Large runs: speed, bounded memory, a Dask cluster")
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d9 2\nq2 0 d4 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the checkout, as the other commands here use
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str((len(SUITE), 2, 2))  # the suite's metrics, 2 queries, 2 cutoffs


def test_the_engine_commands_parse():
    commands = _commands("Large runs: speed, bounded memory, a Dask cluster")
    assert len(commands) == 3
    from ragreport.cli import build_parser

    for command in commands:
        args = build_parser().parse_args(shlex.split(command, comments=True)[1:])
        assert args.engine in ("stream", "dask")


def _metric_rows() -> list[list[str]]:
    lines = [line for line in _section("The metrics").splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in lines]


def _names(cell: str) -> set[str]:
    """Backticked names of a cell, cutoff (and recall-level) placeholders dropped: `map_cut_K`,
    `map@k`, `IPrec@L` -> map_cut, map, IPrec."""
    return {re.sub(r"(_K|_L|@[kKL])$", "", name) for name in re.findall(r"`([^`]+)`", cell)}


def test_the_metrics_table_is_the_catalogue():
    rows = _metric_rows()
    assert [re.sub(r"@[KL]$", "", re.findall(r"`([^`]+)`", row[0])[0]) for row in rows] == [m.key for m in CATALOGUE]
    for row, metric in zip(rows, CATALOGUE):
        key, name, _, band, shown, trec_eval, ir_measures, ranx = row
        assert name == metric.name and band.lower() == metric.interval.value, metric.key
        assert shown == (
            "by name" if not metric.in_suite else "suite, " + ("compared" if metric.compared else "not compared")
        ), metric.key
        assert _names(key) == {metric.key}
        for tool, cell in (("trec_eval", trec_eval), ("ir_measures", ir_measures), ("ranx", ranx)):
            assert _names(cell) == {s.name for s in metric.spellings(tool)}, (metric.key, tool)


def test_the_python_section_runs_as_doctests(tmp_path, monkeypatch):
    """Every ``>>>`` example of "Python and notebooks", in order, from a copy of the checkout's test data
    (so the site it builds lands in a temporary folder)."""
    import doctest
    import shutil

    section = _section("Python and notebooks")
    (tmp_path / "tests" / "data").mkdir(parents=True)
    for name in ("qrels.trec", "ir_datasets_run.trec"):
        shutil.copy(ROOT / "tests" / "data" / name, tmp_path / "tests" / "data" / name)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(section, {}, "README.md#python-and-notebooks", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 12
    assert (tmp_path / "notebook-site" / "index.html").is_file()
    assert "from ragreport import" in section and "## Python and notebooks" in README


@pytest.mark.slow
def test_the_render_and_export_commands_run(tmp_path):
    """Every command of "Re-rendering and exports", on four generated TREC runs, in a folder of its own."""
    sys.path.insert(0, str(ROOT / "tests"))
    from sitetools import four_trec_runs

    qrels, runs = four_trec_runs(tmp_path, queries=40)
    qrels.rename(tmp_path / "qrels.txt")
    runs[0].rename(tmp_path / "bm25.trec")
    runs[1].rename(tmp_path / "hybrid.trec")
    env = dict(os.environ, SOURCE_DATE_EPOCH="1764547200")
    run = functools.partial(subprocess.run, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    built = run([sys.executable, "-m", "ragreport", "build", "--qrels", "qrels.txt", "bm25.trec", "hybrid.trec"])
    assert built.returncode == 0, built.stderr
    commands = _commands("Re-rendering and exports")
    assert len(commands) == 5
    for command in commands:
        result = run([sys.executable, "-m", *shlex.split(command.split("#")[0])])
        assert result.returncode == 0, (command, result.stderr)
    assert (tmp_path / "site-again" / "index.html").read_bytes() == (tmp_path / "site" / "index.html").read_bytes()
    assert (tmp_path / "report.html").is_file()


def test_the_input_formats_section_is_the_registry():
    # The formats README names (its --input-format list) and --input-format's choices are the
    # registry's, in its order; every registered format has a paragraph of its own.
    from ragreport.cli import build_parser
    from ragreport.reading.registry import FORMATS, READERS

    section = _section("Input formats")
    (listed,) = re.findall(r"`--input-format ([a-z|]+)`", section)
    assert tuple(listed.split("|")) == FORMATS
    (option,) = [
        a
        for a in build_parser()._subparsers._group_actions[0].choices["score"]._actions
        if "--input-format" in a.option_strings
    ]
    assert tuple(option.choices) == FORMATS
    headings = [h.lower() for h in re.findall(r"^\*\*([^*]+)\*\*", section, flags=re.M)]
    for reader in READERS:
        assert any(re.search(rf"\b{reader.name}\b", h) for h in headings), reader.name
