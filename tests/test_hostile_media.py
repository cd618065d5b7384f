"""Hostile input, second round (docs/conventions.md section 23.4): the user's words escaped for each
medium by one function per medium. Markdown is checked by rendering it (the ``markdown`` package,
as a reader's renderer would), LaTeX by compiling it with pdflatex and reading the PDF's text."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import markdown as markdown_package
import pytest

from ragreport.cli import main
from ragreport.output.exports.history import history_href
from ragreport.output.exports.tables import latex_escape
from ragreport.output.site.media import (
    csv_no_workflow_commands,
    isolated,
    markdown_code,
    markdown_text,
    no_workflow_commands,
)

#: Names an attacker or a careless user gives a run (each a valid run name: no control character).
HOSTILE_NAMES = [
    "@someone please merge",
    "::warning file=x::forged",
    "  ::error::indented",
    "<img src=x onerror=alert(1)>",
    "[link](javascript:alert(1))",
    "# heading",
    "- item",
    "1. item",
    "a|b",
    "*bold* _it_ `code`",
    "x\u202ey",
]


def _render(text: str) -> str:
    return markdown_package.markdown(text, extensions=["tables"])


# --- Markdown ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_markdown_text_renders_as_the_literal_words_on_one_line(name):
    html = _render(f"{markdown_text(name)} scores 0.5.")
    assert html.startswith("<p>") and html.count("<p>") == 1  # no heading, list or block of its own
    for tag in ("<img", "<a ", "<em>", "<strong>", "<code>", "<h1", "<li>", "<script"):
        assert tag not in html, (name, html)
    plain = re.sub(r"<[^>]+>", "", html).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    shown = name.replace("\u202e", "\\u202e")  # a bidi control shown as its escape
    assert plain.replace("\u200b", "") == shown.strip() + " scores 0.5."  # a paragraph's leading blanks go


@pytest.mark.parametrize("name", ["@someone", "hi @team-a", "(@x)"])
def test_a_mention_is_neutralised_and_an_email_or_a_cutoff_is_left_alone(name):
    escaped = markdown_text(name)
    assert re.search(r"(?<![\w`])@[A-Za-z0-9]", escaped) is None  # GitHub's mention: '@' then a name
    assert "@\u200b" in escaped
    assert markdown_text("Recall@5 a@b.org") == "Recall@5 a@b.org"


@pytest.mark.parametrize("value", ["q_1", "<q>", "a`b", "``", "`x`", "a|b", "q\n1", "@x", "&amp;"])
def test_a_code_span_shows_the_id_exactly_in_a_table_cell(value):
    table = f"| id | n |\n|---|---|\n| {markdown_code(value)} | 1 |\n"
    html = _render(table)
    code = re.search(r"<code>(.*?)</code>", html, re.S)
    assert code is not None, html
    shown = code.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    shown = shown.replace(
        "\\|", "|"
    )  # GFM drops the backslash of \| in a cell's code (spec example 200); Python-Markdown keeps it
    assert shown.strip() == value.replace("\n", "\\x0a").strip("`").strip() or shown == value.replace("\n", "\\x0a")
    assert html.count("<td>") == 2  # the pipe stayed inside its cell


def test_a_code_span_holds_backticks_whole():
    for value in ("a`b", "a``b", "`lead", "trail`"):
        html = _render(markdown_code(value, in_table=False))
        code = re.search(r"<code>(.*?)</code>", html, re.S)
        assert code is not None and code.group(1).strip() == value, (value, html)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "qrels.txt").write_text("".join(f"q{q} 0 d{q} 1\n" for q in range(4)))
    for name, shift in (("base", 0), ("cand", 1)):
        lines = [f"q{q} Q0 d{(q + shift * (q % 2))} 1 0.9 r\nq{q} Q0 x{q} 2 0.5 r\n" for q in range(4)]
        (tmp_path / f"{name}.trec").write_text("".join(lines))
    return tmp_path


def _meta(folder: Path, run: str, name: str) -> None:
    (folder / f"{run}.meta.json").write_text(json.dumps({"name": name}))


def test_the_step_summary_and_the_comment_keep_hostile_names_and_titles_literal(files, capsys, monkeypatch):
    _meta(files, "base", "@someone merge")
    _meta(files, "cand", "# heading <b>x</b>")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(files / "summary.md"))
    title = "Report\n# injected <script>x</script> @team"
    argv = ["--no-config", "build", "base.trec", "cand.trec", "--qrels", "qrels.txt", "--out", "site"]
    code = main(
        [*argv, "--title", title, "--comment", "c.md", "--resamples", "100", "--permutations", "100", "--quiet"]
    )
    assert code == 0, capsys.readouterr().err
    for name in ("summary.md", "c.md"):
        text = (files / name).read_text()
        html = _render(text)
        assert "<script" not in html and "<b>" not in html
        assert re.search(r"(?<![\w`])@[A-Za-z0-9]", text) is None, name  # nobody is mentioned
        headings = re.findall(r"<h(\d)>(.*?)</h\1>", html)
        assert all("heading" not in h and "injected" not in h or h.startswith("ragreport") for _, h in headings), (
            headings
        )
    summary = (files / "summary.md").read_text()
    first = summary.splitlines()[0]
    assert first.startswith("## ragreport: ") and "injected" in first  # the title on the heading's one line


def test_under_github_actions_no_stdout_line_begins_with_a_workflow_command(files, capsys, monkeypatch):
    _meta(files, "base", "::warning file=x::forged")
    _meta(files, "cand", "::error::also")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    base = ["--no-config", "score", "base.trec", "cand.trec", "--qrels", "qrels.txt"]
    fast = ["--resamples", "100", "--permutations", "100", "--quiet"]
    for fmt in ("table", "markdown", "latex", "csv", "trec", "json"):
        extra = ["-q"] if fmt in ("trec",) else []
        assert main([*base, "--format", fmt, *extra, *fast]) == 0
        out = capsys.readouterr().out
        assert not [line for line in out.splitlines() if line.lstrip().startswith("::")], (fmt, out)
        if fmt == "csv":  # the value itself is kept: quoted, not changed
            rows = list(__import__("csv").reader(out.splitlines()))
            assert {r[0] for r in rows[1:]} == {"::warning file=x::forged", "::error::also"}
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert main([*base, "--format", "table", *fast]) == 0
    assert "::warning" in capsys.readouterr().out  # outside the runner the table shows names as they are


def test_no_workflow_commands_escapes_only_line_starts():
    text = "::a\n  ::b\nx ::c\n"
    assert no_workflow_commands(text) == "\\x3a:a\n  \\x3a:b\nx ::c\n"


def test_csv_no_workflow_commands_quotes_the_first_field_and_keeps_its_value():
    text = "query,nDCG@10\r\n::set-output x,0.5\r\nq ::b,1.0\r\n"
    quoted = csv_no_workflow_commands(text)
    assert quoted == 'query,nDCG@10\r\n"::set-output x",0.5\r\nq ::b,1.0\r\n'
    assert list(__import__("csv").reader(quoted.splitlines())) == list(__import__("csv").reader(text.splitlines()))


def test_render_an_export_with_gates_appends_no_step_summary(files, capsys, monkeypatch):
    fast = ["--resamples", "100", "--permutations", "100", "--quiet"]
    assert main(["--no-config", "build", "base.trec", "--qrels", "qrels.txt", "--out", "site", *fast]) == 0
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(files / "summary.md"))
    code = main(["--no-config", "render", "site/report.json", "--format", "csv", "--require", "nDCG@10>=0.1"])
    capsys.readouterr()
    assert code in (0, 1) and not (files / "summary.md").exists()


# --- LaTeX ------------------------------------------------------------------------------------------

PDFLATEX = shutil.which("pdflatex")


def test_latex_escape_braces_what_follows_a_line_break():
    assert latex_escape("[2cm]") == "{[}2cm{]}" and latex_escape("*x") == "{*}x"
    assert latex_escape("a<b>|c") == r"a\textless{}b\textgreater{}\textbar{}c"


@pytest.mark.slow
@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed")
def test_the_latex_table_compiles_and_prints_every_hostile_name(files, capsys, tmp_path):
    names = {"base": "[2cm]", "cand": "*x & 100% $y$ #1 _a_ {b} ~c^ <d>|e \\f"}
    for run, name in names.items():
        _meta(files, run, name)
    code = main(
        ["--no-config", "score", "base.trec", "cand.trec", "--qrels", "qrels.txt", "--format", "latex"]
        + ["--resamples", "100", "--permutations", "100", "--quiet"]
    )
    assert code == 0
    table = capsys.readouterr().out
    document = tmp_path / "t.tex"
    document.write_text(
        "\\pdfcompresslevel=0\\pdfobjcompresslevel=0\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{booktabs}\\usepackage{textcomp}"
        "\\begin{document}\n" + table + "\n\\end{document}\n"
    )
    run = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:]
    flat = re.sub(r"\s+", "", _pdf_text(tmp_path / "t.pdf"))
    for name in names.values():
        assert re.sub(r"\s+", "", name) in flat, (name, flat)


def _unescape(match: re.Match[str]) -> str:
    """A PDF string escape: ``\\134`` (octal) or ``\\(``."""
    code = match.group(1)
    return chr(int(code, 8)) if code[0] in "01234567" else code


def _pdf_text(pdf: Path) -> str:
    """The text of an uncompressed PDF: every literal string inside its text blocks (BT ... ET), in
    order (T1 fonts map ASCII to itself), PDF string escapes undone."""
    data = pdf.read_bytes().decode("latin-1")
    shown = []
    for block in re.findall(r"\bBT\b(.*?)\bET\b", data, re.S):
        for piece in re.findall(r"\(((?:[^()\\]|\\.)*)\)", block):
            shown.append(re.sub(r"\\([0-7]{1,3}|.)", _unescape, piece, flags=re.S))
    return "".join(shown)


# --- HTML: links and bidi isolation -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "label", "expected"),
    [
        ("reports/v1/index.html", "v1", "reports/v1/index.html"),
        ("javascript:alert(1)", "v1", None),
        ("https://evil.example/", "v1", None),
        ("//evil.example/reports/v1/index.html", "v1", None),
        ("reports/../../etc/index.html", "v1", None),
        ("reports/v2/index.html", "v1", None),  # another report's folder
        (None, "v1", None),
        ("reports/../index.html", "..", None),
        ("reports/v1/index.html", ["v1"], None),
    ],
)
def test_a_history_row_links_only_to_its_own_report(path, label, expected):
    assert history_href(path, label) == expected


def test_isolation_wraps_the_word_and_shows_its_controls():
    assert isolated("a\u202eb") == "\u2068a\\u202eb\u2069"
