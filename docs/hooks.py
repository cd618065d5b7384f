"""MkDocs hooks (``hooks:`` in mkdocs.yml): what the site generates from the code while it is built.

A page holds a marker where generated text goes, an HTML comment that GitHub's view of the page
leaves out:

- ``<!-- generated: cli -->``: the command-line reference, every command and option of
  ``ragreport/cli/parser.py``'s ``build_parser`` with its argument, default, choices and help;
- ``<!-- generated: metrics -->``: the metrics table, one row per entry of
  ``ragreport/scoring/catalogue.py``'s ``CATALOGUE``;
- ``<!-- generated: gallery -->``: the gallery's list of example reports (:data:`GALLERY`), which
  :func:`on_files` builds from the repository's own test data (tests/data) into the site;
- ``<!-- include: PATH -->``: a file of the repository (a workflow of examples/), as a code block.

Nothing is written into docs/: the reference and the table are made from the parser and the
catalogue of the checkout being built, so they cannot drift from the code. ``tests/test_docs.py``
checks the generators against the parser and the catalogue, and runs every command of the pages.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the checkout's ragreport, whatever else is installed
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"<!-- (generated|include): ([\w./-]+) -->")
#: 2026-12-01T00:00:00Z: the gallery's reports are dated as the golden copies are, so a build of the
#: docs gives the same bytes every day.
EPOCH = "1764547200"


# --- Text a Markdown table cell can hold ----------------------------------------------------------


def cell(text: str) -> str:
    """Plain text as one cell of a Markdown table: HTML escaped, Markdown's own marks escaped."""
    text = html.escape(" ".join(str(text).split()), quote=False)
    return re.sub(r"([\\`*_|\[\]])", r"\\\1", text)


def code(text: str) -> str:
    """``text`` as inline code in a table cell (a ``|`` in it escaped for the table)."""
    return "`" + str(text).replace("|", "\\|") + "`"


# --- The command-line reference, from the parser ---------------------------------------------------


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _takes(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return str(action.metavar or action.dest.upper())


def _default(action: argparse.Action) -> str:
    value = action.default
    if value is None or value is argparse.SUPPRESS or value is False or value == []:
        return ""
    return str(value)


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    lines: list[str] = []
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS
        ]
        if not actions:
            continue
        title = {"positional arguments": "arguments", "optional arguments": "options"}.get(group.title, group.title)
        lines += ["", f"**{cell(title)}**", "", "| option | takes | default | what it does |"]
        lines.append("| --- | --- | --- | --- |")
        for action in actions:
            names = ", ".join(code(name) for name in action.option_strings) or code(action.metavar or action.dest)
            takes = _takes(action)
            default = _default(action)
            lines.append(
                f"| {names} | {code(takes) if takes else ''} | {code(default) if default else ''} | "
                f"{cell(action.help or '')} |"
            )
    return lines


def _usage(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=96)
    return parser.format_usage().strip()


def cli_reference() -> str:
    """Every command of ``ragreport`` and every option, as the parser declares them."""
    from ragreport.cli.parser import build_parser

    parser = build_parser()
    lines = [f"```text\n{_usage(parser)}\n```", "", cell(parser.description or ""), *_options_table(parser)]
    for name, command in _subcommands(parser).items():
        lines += ["", f"## ragreport {name}", "", f"```text\n{_usage(command)}\n```", "", cell(command.description)]
        lines += _options_table(command)
    return "\n".join(lines) + "\n"


# --- The metrics table, from the catalogue ---------------------------------------------------------


def _forms(name: str, rule, cut: str) -> list[str]:
    from ragreport.scoring.catalogue import CutoffRule

    if rule is CutoffRule.REQUIRED:
        return [name + cut]
    if rule is CutoffRule.FORBIDDEN:
        return [name]
    return [name + cut, name]


def _spelled(metric, tool: str) -> str:
    cut = "_K" if tool == "trec_eval" else "@k"
    names = []
    for spelling in metric.spellings(tool):
        forms = ", ".join(code(form) for form in _forms(spelling.name, metric.rule(spelling), cut))
        names.append(forms + (f" ({spelling.gain.value} gain)" if spelling.gain else ""))
    return ", ".join(names)


def _shown(metric) -> str:
    if not metric.in_suite:
        return "by name"
    return "suite, compared" if metric.compared else "suite, not compared"


def metrics_table() -> str:
    """The catalogue, in its order: a table of each metric's key, name, band, where it is shown and
    every tool's names; then each metric's definition, what it measures and its per-query figure
    under the default conventions (the sentence the report prints beside it, at K)."""
    from ragreport.core.model import Conventions
    from ragreport.scoring.catalogue import CATALOGUE

    lines = [
        "| key | metric | band | shown | trec_eval | ir_measures | ranx |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    definitions = ["", "## What each one measures", ""]
    for metric in CATALOGUE:
        key = ", ".join(code(form) for form in _forms(metric.key, metric.cutoff, "@K"))
        row = [
            key,
            cell(metric.name),
            metric.interval.value.replace("wilson", "Wilson"),
            _shown(metric),
            *(_spelled(metric, tool) for tool in ("trec_eval", "ir_measures", "ranx")),
        ]
        lines.append("| " + " | ".join(row) + " |")
        definitions.append(
            f"- **{key} {cell(metric.name)}.** {cell(metric.plain)} "
            f"Per query: {cell(metric.convention('K', Conventions()))}"
        )
    return "\n".join(lines + definitions) + "\n"


# --- The gallery: example reports built from tests/data --------------------------------------------

DATA = ROOT / "tests" / "data"


@dataclass(frozen=True)
class Example:
    """One report of the gallery: built in a folder holding ``files`` (tests/data's files under the
    names the commands use) by ``commands`` (ragreport's arguments), opened at ``entry``."""

    name: str
    title: str
    about: str
    commands: tuple[tuple[str, ...], ...]
    entry: str
    files: tuple[tuple[str, str], ...] = ()


FAST = ("--quiet",)
TREC = (("qrels.test", "trec_eval_test/qrels.test"), ("bm25.trec", "trec_eval_test/results.test"))
TRUNC = (("trunc.trec", "trec_eval_test/results.trunc"),)

GALLERY = (
    Example(
        "sample",
        "The bundled sample",
        "One RAG run of ten queries at K = 5: the report of a single run, with its figures, bands and honest limits.",
        (("build", "--out", "sample", *FAST),),
        "sample/index.html",
    ),
    Example(
        "two-runs",
        "Two TREC runs compared",
        "trec_eval's own test run (bm25.trec is tests/data/trec_eval_test/results.test) against its "
        "truncated copy (trunc.trec, results.trunc): three queries of up to 500 ids with TREC qrels, "
        "K = 10 and 20. The verdict, the forest plot, the paired comparison and the per-query tables; "
        "on three queries the bands are wide, and the report says no difference is clear.",
        (("build", "--qrels", "qrels.test", "bm25.trec", "trunc.trec", "-k", "10,20", "--out", "two-runs", *FAST),),
        "two-runs/index.html",
        TREC + TRUNC,
    ),
    Example(
        "drift",
        "Drift since a previous report",
        "The sample built again with another bootstrap seed, against the sample's report.json: figures "
        "then and now, with a paired band on each change.",
        (
            ("build", "--out", "previous", *FAST),
            ("build", "--previous", "previous/report.json", "--seed", "3", "--out", "drift", *FAST),
        ),
        "drift/index.html",
    ),
    Example(
        "audit",
        "A model judge, audited",
        "The sample's labels read as a model judge's, audited by human labels for its ten queries "
        "(human.qrels is tests/data/sample_audit.qrels): the Labels section gives both kappas with "
        "their bands, the confusion matrix as a heat map, the run under both label sets and corrected.",
        (("build", "--audit", "human.qrels", "--out", "audit", *FAST),),
        "audit/index.html",
        (("human.qrels", "sample_audit.qrels"),),
    ),
    Example(
        "single-file",
        "One HTML file",
        "The two TREC runs as one self-contained file (--single-file), for a pull request or an e-mail.",
        (("build", "--qrels", "qrels.test", "bm25.trec", "trunc.trec", "--single-file", "two-runs.html", *FAST),),
        "two-runs.html",
        TREC + TRUNC,
    ),
    Example(
        "history",
        "A published history",
        "Three reports published into one history folder: bm25.trec alone, then beside trunc.trec, then "
        "both against graded qrels (qrels.rel_level: another label set, so the trend is broken there "
        "and the page says why).",
        (
            ("publish", "history", "--qrels", "qrels.test", "bm25.trec", "--label", "week-1", *FAST),
            ("publish", "history", "--qrels", "qrels.test", "bm25.trec", "trunc.trec", "--label", "week-2", *FAST),
            ("publish", "history", "--qrels", "graded.test", "bm25.trec", "trunc.trec", "--label", "week-3", *FAST),
        ),
        "history/index.html",
        TREC + TRUNC + (("graded.test", "trec_eval_test/qrels.rel_level"),),
    ),
)


def build_gallery(folder: Path) -> list[Path]:
    """Build every example of :data:`GALLERY` under ``folder/gallery/``, with the checkout's ragreport
    in a process of its own, dated :data:`EPOCH`, reading no config file. Returns every file written."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH=EPOCH)
    out = folder / "gallery"
    for example in GALLERY:
        work = Path(tempfile.mkdtemp(prefix=f"gallery-{example.name}-"))
        try:
            for name, source in example.files:
                shutil.copy(DATA / source, work / name)
            for args in example.commands:
                command = [sys.executable, "-m", "ragreport", *args, "--no-config"]
                done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
                if done.returncode != 0:
                    said = f"{' '.join(args)} exited {done.returncode}: {done.stderr}"
                    raise RuntimeError(f"gallery {example.name}: {said}")
            top = example.entry.split("/")[0]
            target = out / top
            if (work / top).is_dir():
                shutil.copytree(work / top, target, dirs_exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(work / top, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return sorted(p for p in out.rglob("*") if p.is_file())


def _shown_command(args: tuple[str, ...]) -> str:
    import shlex

    return "ragreport " + " ".join(shlex.quote(a) for a in args if a not in FAST)


def gallery_list() -> str:
    """The gallery page's list: each example's title linking to its report, what it shows, and the
    commands that built it (in a folder holding the test files under the names they use)."""
    lines: list[str] = []
    for example in GALLERY:
        lines += [f"## {example.title}", "", f"{example.about} [Open it](gallery/{example.entry}).", ""]
        if example.files:
            copied = ", ".join(f"`{name}` is `tests/data/{source}`" for name, source in example.files)
            lines += [f"Built from the checkout's test data ({copied}):", ""]
        else:
            lines += ["Built from the bundled sample:", ""]
        lines += ["```text", *(_shown_command(args) for args in example.commands), "```", ""]
    return "\n".join(lines)


# --- Includes ---------------------------------------------------------------------------------------


def include(path: str) -> str:
    """A file of the repository as a code block, named by its path."""
    source = (ROOT / path).resolve()
    if ROOT not in source.parents:
        raise ValueError(f"include: {path} is outside the repository")
    language = {".yml": "yaml", ".yaml": "yaml", ".toml": "toml", ".py": "python"}.get(source.suffix, "text")
    return f"`{path}`:\n\n```{language}\n{source.read_text('utf-8').rstrip()}\n```\n"


GENERATED = {"cli": cli_reference, "metrics": metrics_table, "gallery": gallery_list}


def expand(markdown: str) -> str:
    """A page's Markdown with every marker replaced by what it names."""

    def replace(match: re.Match) -> str:
        kind, what = match.groups()
        if kind == "include":
            return include(what)
        return GENERATED[what]()

    return MARKER.sub(replace, markdown)


# --- MkDocs' events ---------------------------------------------------------------------------------

_built: list[Path] = []


def on_page_markdown(markdown, page, config, files):
    return expand(markdown)


def on_files(files, config):
    """Build the gallery in a temporary folder and add its files to the site, so that the gallery
    page's links are checked against them as links to pages are."""
    from mkdocs.structure.files import File

    class Copied(File):
        """A report's file, copied as it is: its summary.md is the report's, not a page of the site."""

        def is_documentation_page(self) -> bool:
            return False

        def is_static_page(self) -> bool:
            return False

    folder = Path(tempfile.mkdtemp(prefix="ragreport-docs-"))
    _built.append(folder)
    for path in build_gallery(folder):
        files.append(Copied(path.relative_to(folder).as_posix(), str(folder), config["site_dir"], False))
    return files


def on_post_build(config):
    while _built:
        shutil.rmtree(_built.pop(), ignore_errors=True)
