"""README.md starts with the project's two set-up commands, and stays true.

The reference the README used to hold is in docs/ (tests/test_docs.py checks those pages, and runs
every command of the README and the docs).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_the_setup_commands_are_the_first_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, flags=re.S).group(1)
    assert "pip install . && ragreport build" in first_block
    assert 'pip install ".[test]" && pytest -n auto' in first_block
    assert "pytest -n auto" in (ROOT / ".ci" / "run").read_text()  # CI runs the README's command


def _quickstart() -> str:
    start = README.index("## Quickstart on your own files")
    return README[start : README.index("\n## ", start + 1)]


def test_the_readme_is_a_quickstart_under_250_lines():
    """Its first screen after the set-up: score one run, compare two, gate in CI, publish a history, the
    notebook call, each linking to its page in docs/, then a picture of the report."""
    assert len(README.splitlines()) < 250
    quickstart = _quickstart()
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    assert headings[0] == "Quickstart on your own files"
    commands = [c for b in re.findall(r"```sh\n(.*?)```", quickstart, flags=re.S) for c in b.strip().splitlines()]
    assert [c.split()[1] for c in commands] == ["score", "build", "build", "publish"]
    assert "--qrels" in commands[0] and "--baseline" in commands[1]
    # The gate names the run it gates: a bare metric would gate the baseline too.
    (rule,) = re.findall(r'--require "([^"]+)"', commands[2])
    run, metric = rule.split(":", 1)
    assert run in commands[2].replace(".trec", "").split() and ">=" in metric
    for page in ("score", "compare", "gates", "history", "python"):
        assert f"(docs/{page}.md)" in quickstart, page
    (picture,) = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", quickstart)
    assert (ROOT / picture).is_file() and picture.startswith("docs/screenshots/")
    assert quickstart.index("```python") < quickstart.index("![")


@pytest.mark.slow
def test_the_notebook_call_of_the_readme_runs(tmp_path, monkeypatch):
    """The quickstart's Python, on the files tests/docfiles.py makes under the names it uses."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from docfiles import workspace

    (code,) = re.findall(r"```python\n(.*?)```", _quickstart(), flags=re.S)
    monkeypatch.chdir(workspace(tmp_path))
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert (tmp_path / "site" / "index.html").is_file()
    assert [s.name for s in namespace["report"].summaries] == ["bm25", "hybrid"]
