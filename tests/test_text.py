"""Terminal and Markdown renderings of the report's view."""

from __future__ import annotations

from dataclasses import replace

from ragreport.api import analyse, evaluate
from ragreport.output.exports.text import markdown, table
from ragreport.output.site.view.build import build_view


def _view():
    return build_view(analyse(evaluate()), pages=False)


def test_table_wraps_conventions_under_their_column():
    text = table(_view(), width=80)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    hit = next(i for i, line in enumerate(lines) if line.startswith("Hit@5"))
    assert lines[hit].startswith("Hit@5     0.778  [0.453, 0.937]   Wilson     1 when at least one")
    assert lines[hit + 1].startswith(" " * 45) and lines[hit + 1].strip()


def test_markdown_escapes_names_from_the_users_files():
    view = _view()
    view = replace(view, runs=(replace(view.runs[0], name="*bold* `code` <b>|x|"),))
    out = markdown(view)
    assert "\n### \\*bold\\* \\`code\\` &lt;b&gt;\\|x\\| (K = 5)\n" in out
    assert "**\\*bold\\* \\`code\\` &lt;b&gt;\\|x\\|**:" in out


def test_markdown_puts_several_runs_side_by_side():
    view = _view()
    other = replace(view.runs[0], name="other")
    rows = tuple(replace(row, cells=row.cells * 2) for row in view.metric_rows)
    out = markdown(replace(view, runs=(*view.runs, other), metric_rows=rows))
    assert "| metric | sample | other | interval |" in out
    assert "| Hit@5 | 0.778 [0.453, 0.937] | 0.778 [0.453, 0.937] | Wilson |" in out
