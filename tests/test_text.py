"""Terminal and Markdown renderings of the report document."""

from __future__ import annotations

from ragreport.api import analyse, document, evaluate
from ragreport.output.text import markdown, table


def _doc():
    return document(analyse(evaluate()))


def test_table_wraps_conventions_under_their_column():
    text = table(_doc(), width=80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    hit = next(i for i, line in enumerate(lines) if line.startswith("Hit@5"))
    assert lines[hit].startswith("Hit@5     0.778  [0.453, 0.937]   wilson     1 when at least one")
    assert lines[hit + 1].startswith(" " * 45) and lines[hit + 1].strip()


def test_markdown_escapes_names_from_the_users_files():
    doc = _doc()
    doc["runs"][0]["name"] = "*bold* `code` <b>|x|"
    out = markdown(doc)
    assert out.startswith("### \\*bold\\* \\`code\\` &lt;b&gt;\\|x\\| (K = 5)")
    assert "**\\*bold\\* \\`code\\` &lt;b&gt;\\|x\\|**:" in out


def test_markdown_puts_several_runs_side_by_side():
    doc = _doc()
    other = dict(doc["runs"][0], name="other")
    doc["runs"].append(other)
    out = markdown(doc)
    assert "| metric | sample | other | interval |" in out
    assert "| Hit@5 | 0.778 [0.453, 0.937] | 0.778 [0.453, 0.937] | wilson |" in out
