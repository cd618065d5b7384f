"""An argument the library refuses is named as its caller spells it: the keyword from Python
(``permutations must be ...``), the flag on the command line (``--permutations must be ...``).

Each case below raises the same check once through the API and once through ``main``; an argument
the command line's own parser bounds first (``--keep``, ``--input-format``) is checked through the
error's command-line spelling.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
from pathlib import Path

import pytest

from ragreport.api import analyse, build, document, evaluate, open_history, publish
from ragreport.cli import build_parser, main
from ragreport.cli.parser import KEYWORD_FLAGS, flag
from ragreport.core.errors import ArgumentError
from ragreport.core.model import Conventions

PACKAGE = Path(__file__).resolve().parent.parent / "ragreport"

QRELS = {f"q{i}": {f"rel{i}": 1, **({"noise": 0} if i == 0 else {})} for i in range(4)}  # POOR meets it on q0
GOOD = {q: {next(iter(g)): 2.0, "other": 1.0} for q, g in QRELS.items()}
POOR = {q: {"other": 2.0, "noise": 1.0} for q in QRELS}


@pytest.fixture
def files(tmp_path):
    """Two TREC runs and their qrels, the same lists as GOOD, POOR and QRELS."""

    def trec(name: str, run: dict) -> str:
        lines = [f"{q} Q0 {d} {r} {s} {name}" for q, docs in run.items() for r, (d, s) in enumerate(docs.items(), 1)]
        (tmp_path / f"{name}.trec").write_text("\n".join(lines) + "\n")
        return str(tmp_path / f"{name}.trec")

    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, j in QRELS.items() for d, g in j.items()))
    return [trec("good", GOOD), trec("poor", POOR)], str(tmp_path / "qrels.txt")


def _api(call) -> ArgumentError:
    with pytest.raises(ArgumentError) as caught:
        call()
    return caught.value


def _cli(argv, capsys) -> str:
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ragreport: error: "), err
    return err.removeprefix("ragreport: error: ").rstrip("\n")


def _forged(tmp_path, change) -> Path:
    """A report.json of two runs with ``change`` applied, for ``ragreport render``."""
    made = document(analyse(evaluate({"good": GOOD, "poor": POOR}, qrels=QRELS, k=2)))
    forged = copy.deepcopy(made)
    change(forged)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    return path


def test_permutations(tmp_path, capsys):
    results = evaluate({"good": GOOD, "poor": POOR}, qrels=QRELS, k=2)
    error = _api(lambda: analyse(results, permutations=0))
    assert str(error) == "permutations must be from 1 to 10,000,000, got 0" and error.argument == "permutations"
    # The command line's parser bounds --permutations; a stored report's settings are held to the
    # same bound by its declared schema, which names the file and the field.
    forged = _forged(tmp_path, lambda d: d["settings"].update(permutations=0))
    assert _cli(["render", forged, "--format", "json"], capsys) == (
        f"{forged}: settings.permutations: expected an integer from 1 to 10,000,000, got 0"
    )


def test_resamples(tmp_path, capsys):
    error = _api(lambda: evaluate({"good": GOOD}, qrels=QRELS, conventions=Conventions(resamples=2_000_000)))
    assert str(error) == "resamples must be at most 1,000,000, got 2,000,000"

    def change(d):
        for run in d["runs"]:
            run["conventions"]["resamples"] = 2_000_000

    forged = _forged(tmp_path, change)
    assert _cli(["render", forged, "--format", "json"], capsys) == (
        f"{forged}: runs[0].conventions.resamples: expected an integer from 1 to 1,000,000, got 2000000"
    )


def test_baseline(files, capsys):
    runs, qrels = files
    results = evaluate({"good": GOOD, "poor": POOR}, qrels=QRELS, k=2)
    assert str(_api(lambda: analyse(results, baseline="bm25"))) == (
        "baseline 'bm25' names no run; the runs are 'good', 'poor'"
    )
    assert _cli(["score", *runs, "--qrels", qrels, "--baseline", "bm25"], capsys) == (
        "--baseline 'bm25' names no run; the runs are 'good', 'poor'"
    )


def test_primary(files, capsys):
    runs, qrels = files
    results = evaluate({"good": GOOD}, qrels=QRELS, k=2)
    assert str(_api(lambda: analyse(results, primary="bogus"))).startswith("primary 'bogus' is not a metric; choose ")
    assert _cli(["score", *runs, "--qrels", qrels, "-k", "2", "--primary", "bogus"], capsys).startswith(
        "--primary 'bogus' is not a metric; choose "
    )


def test_family_is_the_command_lines_metrics(files, capsys):
    runs, qrels = files
    results = evaluate({"good": GOOD, "poor": POOR}, qrels=QRELS, k=2)
    said = "NumRet: nothing to compare (counts and the Judged@K diagnostic get no test); name per-query scores"
    assert str(_api(lambda: analyse(results, family=["num_ret"]))).startswith(f"family {said}")
    assert _cli(["score", *runs, "--qrels", qrels, "-k", "2", "--metrics", "num_ret"], capsys).startswith(
        f"--metrics {said}"
    )


def test_slice_by_is_the_command_lines_slice(files, tmp_path, capsys):
    runs, qrels = files
    meta = tmp_path / "meta.jsonl"
    meta.write_text("".join(json.dumps({"id": q, "topic": f"t{i % 2}"}) + "\n" for i, q in enumerate(QRELS)))
    results = evaluate({"good": GOOD}, qrels=QRELS, k=2)
    said = "'tpoic' is not a key of any query's metadata (the keys: topic)"
    assert str(_api(lambda: analyse(results, slice_by=["tpoic"], query_meta=meta))) == f"slice_by {said}"
    assert _cli(["score", runs[0], "--qrels", qrels, "--query-meta", meta, "--slice", "tpoic"], capsys) == (
        f"--slice {said}"
    )


def test_kmax(files, capsys):
    runs, qrels = files
    assert str(_api(lambda: evaluate({"good": GOOD}, qrels=QRELS, k=5, kmax=4))) == "kmax (4) must be at least K (5)"
    assert _cli(["score", runs[0], "--qrels", qrels, "-k", "5", "--kmax", "4"], capsys) == (
        "--kmax (4) must be at least K (5)"
    )


def test_engine_and_qrels(files, tmp_path, capsys):
    runs, qrels = files
    said = " scores TREC run files (or folders of them) against "
    assert str(_api(lambda: evaluate([runs[0]], engine="stream"))) == f"engine='stream'{said}qrels; give both"
    assert _cli(["score", runs[0], "--engine", "stream"], capsys) == f"--engine stream{said}--qrels; give both"
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n')
    refused = f"{jsonl}: engine='stream' reads TREC runs; this file is not one"
    assert str(_api(lambda: evaluate([jsonl], qrels=qrels, engine="stream"))) == refused
    assert _cli(["score", jsonl, "--qrels", qrels, "--engine", "stream"], capsys) == refused.replace(
        "engine='stream'", "--engine stream"
    )
    # An engine's name: the command line's choices refuse it first, in argparse's words.
    error = _api(lambda: evaluate([runs[0]], qrels=qrels, engine="spark"))
    assert str(error) == "engine must be one of memory, stream, dask, got 'spark'"
    assert error.spelled(flag) == "--engine must be one of memory, stream, dask, got 'spark'"


def test_scheduler(files, capsys):
    runs, qrels = files
    assert str(_api(lambda: evaluate([runs[0]], qrels=qrels, scheduler="tcp://x:1"))) == (
        "scheduler is for engine='dask'"
    )
    assert _cli(["score", runs[0], "--qrels", qrels, "--scheduler", "tcp://x:1"], capsys) == (
        "--scheduler is for --engine dask"
    )


def test_metas_is_the_command_lines_meta(files, tmp_path, capsys):
    runs, qrels = files
    metas = [tmp_path / "a.toml", tmp_path / "b.toml"]
    for path in metas:
        path.write_text("")
    said = "was given 2 time(s) for 1 run(s); give one per run, in order"
    assert str(_api(lambda: evaluate([runs[0]], qrels=qrels, metas=metas))) == f"metas {said}"
    assert _cli(["score", runs[0], "--qrels", qrels, "--meta", metas[0], "--meta", metas[1]], capsys) == (
        f"--meta {said}"
    )


def test_input_format():
    """--input-format's choices refuse a name first on the command line; the API names the keyword."""
    error = _api(lambda: evaluate([str(PACKAGE / "sample" / "sample.jsonl")], input_format="xml"))
    assert (
        str(error)
        == "input_format must be one of jsonl, trec, json, csv, msmarco, llamaindex, mlflow, openinference, rank_eval, got 'xml'"
    )
    assert (
        error.spelled(flag)
        == "--input-format must be one of jsonl, trec, json, csv, msmarco, llamaindex, mlflow, openinference, rank_eval, got 'xml'"
    )


def test_no_relevant(files, tmp_path, capsys):
    runs, _ = files
    unjudged = tmp_path / "zero.txt"
    unjudged.write_text("".join(f"{q} 0 {d} 0\n" for q, j in QRELS.items() for d in j))
    said = "so nothing can be scored ({} scores every judged query 0, as trec_eval does)"
    message = str(_api(lambda: evaluate([runs[0]], qrels=unjudged)))
    assert message.endswith(said.format("no_relevant='zero'")), message
    assert _cli(["score", runs[0], "--qrels", unjudged], capsys).endswith(said.format("--no-relevant zero"))


def test_label_and_keep(files, tmp_path, capsys):
    runs, qrels = files
    said = "'no/slash': a label names a folder and a web address"
    assert str(_api(lambda: open_history(tmp_path / "history", label="no/slash"))).startswith(f"label {said}")
    assert _cli(["publish", tmp_path / "history", runs[0], "--qrels", qrels, "--label", "no/slash"], capsys).startswith(
        f"--label {said}"
    )
    # --keep is bounded by the command line's parser; the API's check names the keyword and its value.
    history = open_history(tmp_path / "history")
    analysis = analyse(evaluate({"good": GOOD}, qrels=QRELS, k=2), previous=history)
    error = _api(lambda: publish(analysis, history, keep=0))
    assert str(error) == "keep=0: keep at least 1 report"
    assert error.spelled(flag) == "--keep 0: keep at least 1 report"


def _flags() -> set[str]:
    """Every option string of every command."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {s for command in subparsers.choices.values() for action in command._actions for s in action.option_strings}


def test_every_argument_the_library_names_is_a_flag_of_the_command_line():
    """Every keyword an ArgumentError names in the package maps to a flag the parser has."""
    names = set()
    for path in PACKAGE.rglob("*.py"):
        names |= set(re.findall(r'Argument\("(\w+)"', path.read_text("utf-8")))
    assert {"permutations", "resamples", "baseline", "primary", "family", "slice_by", "kmax", "engine"} <= names
    flags = _flags()
    assert not [name for name in sorted(names) if flag(name) not in flags]
    assert set(KEYWORD_FLAGS) <= names  # no mapping for a keyword the library never names


def test_single_file(tmp_path, capsys):
    analysis = analyse(evaluate({"good": GOOD}, qrels=QRELS, k=2))
    (tmp_path / "folder").mkdir()
    said = f"{tmp_path / 'folder'} is a folder; give a file name such as report.html"
    assert str(_api(lambda: build(analysis, out=None, single_file=tmp_path / "folder"))) == f"single_file {said}"
    assert _cli(["build", "--single-file", tmp_path / "folder", "--quiet"], capsys) == f"--single-file {said}"
    (tmp_path / "notes.html").write_text("mine")
    refused = f"refusing to replace {tmp_path / 'notes.html'}: it is not an earlier ragreport report; choose another "
    assert str(_api(lambda: build(analysis, out=None, single_file=tmp_path / "notes.html"))) == (
        f"{refused}single_file or remove it"
    )
    assert _cli(["build", "--single-file", tmp_path / "notes.html", "--quiet"], capsys) == (
        f"{refused}--single-file or remove it"
    )


def test_out(tmp_path, capsys):
    """build(out=...) names ``out`` from Python, the command line ``--out``: an empty name, and a
    folder that is not an earlier report."""
    analysis = analyse(evaluate({"good": GOOD}, qrels=QRELS, k=2))
    assert str(_api(lambda: build(analysis, out=""))) == "out is empty; give a name"
    assert _cli(["build", "--out", "", "--quiet"], capsys) == "--out is empty; give a name"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    api_said = str(_api(lambda: build(analysis, out=mine)))
    assert api_said.startswith(f"refusing to replace {mine}: ") and api_said.endswith(
        "; choose another out or remove it"
    )
    cli_said = _cli(["build", "--out", mine, "--quiet"], capsys)
    assert cli_said == api_said.replace("choose another out", "choose another --out")
    assert (mine / "notes.txt").read_text() == "mine"
