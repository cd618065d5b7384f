"""The documentation (docs/ and README.md) says what the code does.

- Every ``ragreport`` line of every ```sh block parses with the command line's parser (quick), and
  runs (slow), in a folder holding a file of each name the examples use (tests/docfiles.py), exit 0
  (or 1, a failed gate, for a command with a gate option). :data:`EXEMPT` lists, with the reason,
  the commands that cannot run here.
- The generated parts (docs/hooks.py): the command-line reference holds every option of the
  parser, the metrics table is the catalogue, every marker names something that exists.
- The pages' own claims: the peers' commands give the peers' numbers, the Python pages run as
  doctests, the input formats are the registry's, links between pages resolve.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval

from ragreport.cli import build_parser
from ragreport.core.model import Conventions
from ragreport.scoring.catalogue import CATALOGUE, SUITE

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_hooks"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


hooks = _hooks()


def page(name: str) -> str:
    return (ROOT / name).read_text("utf-8")


def section(name: str, title: str) -> str:
    """The section ``## title`` of a page, to the next ``## `` heading."""
    text = page(name)
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def commands(text: str) -> list[str]:
    """The ``ragreport`` lines of the ```sh blocks of ``text``, a line continued by ``\\`` joined."""
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = [line.strip() for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line.startswith("ragreport ")]


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


DOC_COMMANDS = [(_name(p), command) for p in PAGES for command in commands(p.read_text("utf-8"))]

#: Commands of the documentation that cannot run in a test, and why.
EXEMPT = {
    "ragreport build --qrels irds:msmarco-passage/trec-dl-2019/judged --queries irds:msmarco-passage/trec-dl-2019/judged "
    "--corpus irds:msmarco-passage bm25.trec dense.trec": (
        "needs MS MARCO in ir_datasets' cache or a network to fetch it; tests/test_irds.py reads a "
        "dataset registered from local files through the same options"
    ),
    "ragreport score --qrels qrels.txt parts/ --engine dask --scheduler tcp://scheduler:8786": (
        "needs a Dask scheduler listening at tcp://scheduler:8786 (a network); the page's command "
        "without --scheduler runs the dask engine on a local cluster, and a folder of partitions is "
        "read on one by tests/test_partition.py"
    ),
}
#: A command with one of these may exit 1: a gate failed, which is what a gate is for.
GATE_OPTIONS = ("--fail-on", "--require", "--max-drop")


def test_the_docs_have_commands_on_every_job_page():
    pages = {name for name, _ in DOC_COMMANDS}
    for job in ("score", "compare", "gates", "history", "report", "text-and-slices", "large-runs", "render", "config"):
        assert f"docs/{job}.md" in pages, job
    assert "README.md" in pages and len(DOC_COMMANDS) >= 40
    assert set(EXEMPT) <= {command for _, command in DOC_COMMANDS}, "an exemption names no command of the docs"


@pytest.mark.parametrize(("name", "command"), DOC_COMMANDS)
def test_every_command_of_the_docs_parses(name, command):
    """Every option a page names is an option of the command it gives it to, with a value it takes."""
    args = shlex.split(command, comments=True)[1:]
    try:
        build_parser().parse_args(args)
    except SystemExit as stop:  # argparse's error: the command is not one ragreport takes
        pytest.fail(f"{name}: {command!r} does not parse (exit {stop.code})")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from docfiles import workspace

    return workspace(tmp_path_factory.mktemp("docfiles"))


@pytest.mark.slow
def test_the_folder_holds_every_name_the_table_promises(files):
    from docfiles import PLACEHOLDERS

    for name in PLACEHOLDERS:
        path = files / name
        assert path.is_dir() if name.endswith("/") else path.is_file(), name
    assert json.loads((files / "base.jsonl").read_text().splitlines()[0])["meta"]["topic"] in ("billing", "search")


def _environment(folder: Path) -> dict[str, str]:
    """The checkout's ragreport as `ragreport` on PATH, the build day fixed, and nothing of a CI job
    the examples would otherwise write to (the step summary, annotations)."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "ragreport"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragreport "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
        SOURCE_DATE_EPOCH="1764547200",
        GITHUB_SHA="0123456789abcdef0123456789abcdef01234567",  # the workflow's label: ${GITHUB_SHA::12}
    )
    return env


def _steps(text: str) -> list[tuple[str, str]]:
    """A page's commands and the config files it writes, in the page's order: a ```toml block whose
    first line names a file (``# ragreport.toml, ...``) is ``("file", NAME + "\\n" + TEXT)``, so that
    the commands after it read it as the page says; a command is ``("run", COMMAND)``."""
    steps: list[tuple[str, str]] = []
    for language, block in re.findall(r"```(sh|toml)\n(.*?)```", text, flags=re.S):
        named = re.match(r"# (\S+\.toml)\b", block)
        if language == "toml" and named:
            steps.append(("file", named.group(1) + "\n" + block))
        elif language == "sh":
            steps += [("run", command) for command in commands(f"```sh\n{block}```")]
    return steps


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted({name for name, _ in DOC_COMMANDS}))
def test_every_command_of_the_docs_runs(name, files, tmp_path):
    """Each page's commands, in order, in a copy of the files the examples name."""
    folder = tmp_path / "work"
    shutil.copytree(files, folder, symlinks=True)
    env = _environment(folder)
    steps = _steps(page(name))
    assert [c for kind, c in steps if kind == "run"] == commands(page(name))
    for kind, step in steps:
        if kind == "file":
            file, content = step.split("\n", 1)
            (folder / file).write_text(content)
            continue
        if step in EXEMPT:
            continue
        done = subprocess.run(["bash", "-c", step], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        allowed = (0, 1) if any(option in step for option in GATE_OPTIONS) else (0,)
        assert done.returncode in allowed, f"{name}: {step}\nexit {done.returncode}\n{done.stderr}"
        assert "error:" not in done.stderr, f"{name}: {step}\n{done.stderr}"


# --- The generated parts ----------------------------------------------------------------------------


def _subcommands(parser):
    return parser._subparsers._group_actions[0].choices


def test_the_cli_reference_holds_every_option_with_its_help():
    reference = hooks.cli_reference()
    parser = build_parser()
    for name, command in [(None, parser), *_subcommands(parser).items()]:
        if name:
            assert f"## ragreport {name}\n" in reference, name
            part = reference.split(f"## ragreport {name}\n", 1)[1].split("\n## ragreport ", 1)[0]
        else:
            part = reference.split("\n## ragreport ", 1)[0]
        for action in command._actions:
            if action.help in (None, "==SUPPRESS==") or action.dest in ("help", "command"):
                continue
            rows = [line for line in part.splitlines() if hooks.cell(action.help) in line]
            assert rows, (name, action.dest)
            for option in action.option_strings:
                assert f"`{option}`" in rows[0], (name, option)
            if action.choices and action.nargs != 0:
                assert all(str(choice) in rows[0] for choice in action.choices), (name, action.dest)


def test_the_cli_reference_escapes_markdown_and_html():
    assert hooks.cell("qid<TAB>text | a_b *c*") == r"qid&lt;TAB&gt;text \| a\_b \*c\*"
    assert hooks.code("a|b") == r"`a\|b`"


def _metric_rows() -> list[list[str]]:
    lines = [line for line in hooks.metrics_table().splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])] for line in lines]


def _names(cell: str) -> set[str]:
    """Backticked names of a cell, cutoff placeholders dropped: `map_cut_K`, `map@k` -> map_cut, map."""
    return {re.sub(r"(_K|@[kK])$", "", name) for name in re.findall(r"`([^`]+)`", cell)}


def test_the_metrics_table_is_the_catalogue():
    rows = _metric_rows()
    assert [re.sub(r"@K$", "", re.findall(r"`([^`]+)`", row[0])[0]) for row in rows] == [m.key for m in CATALOGUE]
    for row, metric in zip(rows, CATALOGUE):
        key, name, band, shown, trec_eval, ir_measures, ranx = row
        assert name == hooks.cell(metric.name) and band.lower() == metric.interval.value, metric.key
        assert shown == (
            "by name" if not metric.in_suite else "suite, " + ("compared" if metric.compared else "not compared")
        ), metric.key
        assert _names(key) == {metric.key}
        for tool, cell in (("trec_eval", trec_eval), ("ir_measures", ir_measures), ("ranx", ranx)):
            assert _names(cell) == {s.name for s in metric.spellings(tool)}, (metric.key, tool)
    # A cutoff is written where the name takes one: RR@K and RR, P@K only, Rprec without.
    assert rows[[m.key for m in CATALOGUE].index("RR")][0] == "`RR@K`, `RR`"
    assert rows[[m.key for m in CATALOGUE].index("Rprec")][0] == "`Rprec`"


def test_every_metric_has_its_definition_under_the_table():
    definitions = [line for line in hooks.metrics_table().splitlines() if line.startswith("- **")]
    assert len(definitions) == len(CATALOGUE)
    for line, metric in zip(definitions, CATALOGUE):
        assert f" {hooks.cell(metric.name)}.** {hooks.cell(metric.plain)} Per query: " in line, metric.key
        assert line.endswith(hooks.cell(metric.convention("K", Conventions()))), metric.key


def test_every_marker_of_the_pages_names_something_that_exists():
    found = {}
    for path in PAGES:
        for kind, what in hooks.MARKER.findall(path.read_text("utf-8")):
            found.setdefault((kind, what), []).append(path.name)
            if kind == "include":
                assert (ROOT / what).is_file(), (path.name, what)
            else:
                assert what in hooks.GENERATED, (path.name, what)
    assert found[("generated", "cli")] == ["cli.md"]
    assert found[("generated", "metrics")] == ["metrics.md"]
    assert found[("generated", "gallery")] == ["gallery.md"]
    expanded = hooks.expand(page("docs/ci.md"))
    assert not hooks.MARKER.search(expanded) and page("examples/github-pull-request.yml").rstrip() in expanded


def test_an_include_outside_the_repository_is_refused():
    with pytest.raises(ValueError, match="outside the repository"):
        hooks.include("../etc/passwd")


@pytest.mark.slow
def test_the_gallery_builds_every_example(tmp_path):
    written = hooks.build_gallery(tmp_path)
    names = {path.relative_to(tmp_path / "gallery").as_posix() for path in written}
    for example in hooks.GALLERY:
        assert example.entry in names, example.name
        assert f"(gallery/{example.entry})" in hooks.gallery_list()
    assert {"history/reports/week-1/index.html", "history/reports/week-3/index.html"} <= names
    assert "drift" in (tmp_path / "gallery" / "drift" / "report.json").read_text("utf-8")


# --- Links ------------------------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_links_between_pages_are_relative_and_resolve(path):
    """mkdocs build --strict checks the site's links; this checks them in the quick loop, README's too."""
    text = re.sub(r"```.*?```", "", path.read_text("utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        assert not target.startswith("/"), (path.name, target)
        file = target.split("#", 1)[0]
        if file:
            assert (path.parent / file).resolve().exists(), (path.name, target)
            assert (path.parent / file).resolve().is_relative_to(DOCS) or path.parent == ROOT, (path.name, target)


# --- The peers' commands give the peers' numbers (docs/peers.md) ------------------------------------

PEERS = commands(page("docs/peers.md"))


def _run(command: str) -> subprocess.CompletedProcess:
    args = shlex.split(command)[1:]
    return subprocess.run(
        [sys.executable, "-m", "ragreport", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_peer_page_has_a_command_per_peer():
    assert len(PEERS) == 5  # ir_measures twice: its RR@k breaks ties apart from its other measures


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
    result = _run(PEERS[4])
    assert "ndcg_burges@10" not in result.stderr
    assert "nDCG@10 (exp gain)" in result.stdout and "hit_rate" not in result.stdout


@pytest.mark.slow
def test_json_of_an_ir_measures_command_holds_the_named_measures(tmp_path):
    result = _run(PEERS[2] + " --format json")
    measures = json.loads(result.stdout)["runs"][0]["measures"]
    assert list(measures) == [
        *("P@5", "nDCG@10", "AP@100", "R@1000", "Hit@5"),
        *("RBP", "RBP_resid", "RBP(rel=1)", "RBP_resid(rel=1)"),
    ]


@pytest.mark.slow
def test_the_ir_measures_commands_give_ir_measures_values():
    """ir_measures' own figures for the page's commands. tests/data/ir_datasets_run.trec ties d3
    (unjudged) and d1 (grade 1) at ranks 2 and 3 of q1, below d4 (grade 2); q2 ranks d9 (grade 0),
    d2 (grade 1). Weights at p = 0.8: 0.2, 0.16, 0.128."""
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(ROOT / "tests/data/qrels.trec")))
    run = list(ir_measures.read_trec_run(str(ROOT / "tests/data/ir_datasets_run.trec")))
    figures = {
        **json.loads(_run(PEERS[2] + " --format json").stdout)["runs"][0]["measures"],
        **json.loads(_run(PEERS[3] + " --format json").stdout)["runs"][0]["measures"],
    }
    rr, binary = ir_measures.RR @ 10, ir_measures.RBP(rel=1)
    assert figures["RR@10"]["mean"] == pytest.approx(ir_measures.calc_aggregate([rr], qrels, run)[rr], abs=1e-12)
    assert figures["RBP(rel=1)"]["mean"] == pytest.approx(
        ir_measures.calc_aggregate([binary], qrels, run)[binary], abs=1e-12
    )
    assert figures["RBP(rel=1)"]["mean"] == pytest.approx(((0.2 + 0.128) + 0.16) / 2)
    # graded RBP: ragreport's d1 at rank 3; ir_measures (trectools) gives d1 the mean weight of the
    # tied ranks 2 and 3, (0.16 + 0.128) / 2 = 0.144 (the exception docs/peers.md states)
    graded = ir_measures.trectools.calc_aggregate([ir_measures.RBP], qrels, run)[ir_measures.RBP]
    assert figures["RBP"]["mean"] == pytest.approx(((2 * 0.2 + 0.128) + 0.16) / 2)
    assert graded == pytest.approx(((2 * 0.2 + 0.144) + 0.16) / 2, abs=1e-12)


# --- Large runs (docs/large-runs.md) ----------------------------------------------------------------


@pytest.mark.slow
def test_the_python_recipe_for_partitions_runs(tmp_path):
    (code,) = re.findall(r"```python\n(.*?)```", page("docs/large-runs.md"), flags=re.S)
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d9 2\nq2 0 d4 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the checkout, as the other commands here use
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str((len(SUITE), 2, 2))  # the suite's metrics, 2 queries, 2 cutoffs


def test_the_engine_commands_parse():
    found = commands(page("docs/large-runs.md"))
    assert len(found) == 3
    for command in found:
        args = build_parser().parse_args(shlex.split(command, comments=True)[1:])
        assert args.engine in ("stream", "dask")


# --- Python and notebooks (docs/python.md) ----------------------------------------------------------


def test_the_python_page_runs_as_doctests(tmp_path, monkeypatch):
    """Every ``>>>`` example of docs/python.md, in order, from a copy of the checkout's test data
    (so the site it builds lands in a temporary folder)."""
    import doctest

    text = page("docs/python.md")
    (tmp_path / "tests" / "data").mkdir(parents=True)
    for name in ("qrels.trec", "ir_datasets_run.trec"):
        shutil.copy(ROOT / "tests" / "data" / name, tmp_path / "tests" / "data" / name)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/python.md", "docs/python.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 12
    assert (tmp_path / "notebook-site" / "index.html").is_file()
    assert "from ragreport import" in text


# --- Re-rendering and exports (docs/render.md) ------------------------------------------------------


@pytest.mark.slow
def test_the_render_and_export_commands_run(tmp_path):
    """Every command of docs/render.md, on four generated TREC runs, in a folder of its own; render
    gives the build's site byte for byte."""
    sys.path.insert(0, str(ROOT / "tests"))
    from sitetools import four_trec_runs

    qrels, runs = four_trec_runs(tmp_path, queries=40)
    qrels.rename(tmp_path / "qrels.txt")
    runs[0].rename(tmp_path / "bm25.trec")
    runs[1].rename(tmp_path / "hybrid.trec")
    env = dict(os.environ, SOURCE_DATE_EPOCH="1764547200", PYTHONPATH=str(ROOT))
    run = functools.partial(subprocess.run, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    built = run([sys.executable, "-m", "ragreport", "build", "--qrels", "qrels.txt", "bm25.trec", "hybrid.trec"])
    assert built.returncode == 0, built.stderr
    found = commands(page("docs/render.md"))
    assert len(found) == 5
    for command in found:
        result = run([sys.executable, "-m", *shlex.split(command.split("#")[0])])
        assert result.returncode == 0, (command, result.stderr)
    assert (tmp_path / "site-again" / "index.html").read_bytes() == (tmp_path / "site" / "index.html").read_bytes()
    assert (tmp_path / "report.html").is_file()


# --- Input formats (docs/formats.md) ----------------------------------------------------------------


def test_the_input_formats_page_is_the_registry():
    # The formats the page names (its --input-format list) and --input-format's choices are the
    # registry's, in its order; every registered format has a paragraph of its own.
    from ragreport.reading.registry import FORMATS, READERS

    text = page("docs/formats.md")
    (listed,) = re.findall(r"`--input-format ([a-z_|]+)`", text)
    assert tuple(listed.split("|")) == FORMATS
    (option,) = [a for a in _subcommands(build_parser())["score"]._actions if "--input-format" in a.option_strings]
    assert tuple(option.choices) == FORMATS
    headings = [h.lower() for h in re.findall(r"^\*\*([^*]+)\*\*", text, flags=re.M)]
    for reader in READERS:
        assert any(re.search(rf"\b{reader.name}\b", h) for h in headings), reader.name


# --- Reading report.json (docs/render.md) -----------------------------------------------------------


def test_the_pandas_and_jq_lines_give_the_rows_back(tmp_path, monkeypatch, capsys):
    """The page's pandas block and jq command, run on a built report.json, give each query's id,
    status and nDCG@10 as the rows of ragreport/1 hold them; its numpy block gives the stored lists,
    the judged ids after them and the judgments back from their packed strings."""
    import json

    from ragreport.cli import main
    from ragreport.output.exports.reportjson.migrate import expanded, judgment_map, query_rows

    text = section("docs/render.md", "Reading report.json (pandas, jq)")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "-k", "10", "--out", "site", "--quiet"]) == 0
    report = json.loads(Path("site/report.json").read_text())
    rows = query_rows(report, report["runs"][0])
    first, packed = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    scope: dict = {}
    exec(compile(first, "docs/render.md", "exec"), scope)
    capsys.readouterr()
    frame = scope["rows"]
    assert frame["id"].tolist() == [r["id"] for r in rows] and frame["status"].tolist() == [r["status"] for r in rows]
    assert [None if v != v else v for v in frame["nDCG@10"].tolist()] == [r["nDCG@10"] for r in rows]
    exec(compile(packed, "docs/render.md", "exec"), scope)
    back = expanded(report)["runs"][0]
    stored = [(row["id"], doc) for row, docs in zip(back["queries"], back["lists"]["ids"]) for doc in docs]
    assert list(zip(scope["top"]["id"].tolist(), scope["top"]["doc"].tolist())) == stored
    labels = judgment_map(report, report["judgments"])
    judged = [(q, d, g) for q, grades in labels.items() for d, g in grades.items()]
    assert list(zip(*(scope["judged"][c].tolist() for c in ("query", "doc", "grade")))) == judged
    following = [(row["id"], doc) for row, docs in zip(back["queries"], back["lists"]["next_judged"]) for doc in docs]
    assert list(zip(scope["following"]["id"].tolist(), scope["following"]["doc"].tolist())) == following
    if shutil.which("jq") is None:
        pytest.skip("jq is not installed")
    jq = re.search(r"```\n(jq .*?)```", text, flags=re.S).group(1)
    done = subprocess.run(["bash", "-c", jq], capture_output=True, text=True, check=True)
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"id": r["id"], "status": r["status"], "nDCG@10": r["nDCG@10"]} for r in rows
    ]
