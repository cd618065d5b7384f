"""The package's shape: stages import only from earlier stages, and no cycle, seen or hidden.

The stages, in the order data flows through them: ``core`` (errors, typed objects, ids) ->
``reading`` (files into those objects) -> ``scoring`` (join, metrics) -> ``analysis`` (bands,
limits, comparison, drift) -> ``output`` (the document, sentences, pages, site) -> the entry points
``api``, ``config`` (the config file under the command line) and ``cli``. A module may import from its own stage or an earlier one, never a later one.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ragreport"
STAGES = ("core", "reading", "scoring", "analysis", "output", "api", "config", "cli", "__main__")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_nodes(tree: ast.AST):
    """Every node that runs: ``if TYPE_CHECKING:`` blocks (imports for annotations only) are skipped."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


@lru_cache(maxsize=1)
def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at module level or inside a function)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in _runtime_nodes(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    for candidate in (f"{target}.{alias.name}", target):
                        if candidate in modules:
                            found.add(candidate)
                            break
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
        found.discard(name)
        graph[name] = found
    return graph


def stage(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:  # the package itself: its version and lazy exports, importing nothing eagerly
        return -1
    return STAGES.index(parts[1])


def levels(graph: dict[str, set[str]]) -> dict[str, int]:
    out: dict[str, int] = {}

    def level(module: str, path: tuple[str, ...]) -> int:
        if module in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(module) :] + (module,)))
        if module not in out:
            out[module] = 1 + max((level(d, path + (module,)) for d in graph[module]), default=0)
        return out[module]

    for module in graph:
        level(module, ())
    return out


def test_every_module_belongs_to_a_stage():
    for module in import_graph():
        assert module == "ragreport" or module.split(".")[1] in STAGES, module


def test_imports_point_from_a_later_stage_to_an_earlier_one():
    backwards = [(m, d) for m, deps in import_graph().items() for d in deps if stage(d) > stage(m)]
    assert not backwards, backwards


def test_no_import_cycle():
    assert levels(import_graph())  # raises on a cycle, naming it


def test_no_import_hidden_from_the_graph():
    """A module is imported by an import statement, where the two tests above see it, never by
    name at run time (``importlib.import_module``), which would hide a cycle from them: only the
    package's lazy exports in ragreport/__init__.py do so, and they import nothing back."""
    hidden = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" or path.parent != PACKAGE
        if "import_module(" in path.read_text("utf-8") or "__import__(" in path.read_text("utf-8")
    ]
    assert not hidden, hidden


def test_the_graph_is_read_from_the_source():
    graph = import_graph()
    assert "ragreport.scoring.catalogue" in graph["ragreport.scoring.metrics"]
    assert "ragreport.scoring.join" not in graph["ragreport.scoring.metrics"]  # under TYPE_CHECKING
    assert (
        "ragreport.analysis.pipeline" in graph["ragreport.api"] and "ragreport.cli.commands" in graph["ragreport.cli"]
    )
    assert levels({"a": {"b"}, "b": {"c"}, "c": set()})["a"] == 3
    typed = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import Y\nimport z\n")
    assert [type(n).__name__ for n in _runtime_nodes(typed) if isinstance(n, (ast.Import, ast.ImportFrom))] == [
        "Import",
        "ImportFrom",
    ]


def test_nothing_refers_to_a_path_outside_the_repository():
    """The repository is self-contained: its rules are docs/conventions.md, its test data tests/data."""
    root = PACKAGE.parent
    outside = ("../shared", "SPEC.md", "/work/")
    files = [root / "README.md", root / "pyproject.toml", root / ".ci" / "run", *root.glob("*.md")]
    for folder in ("ragreport", "tests", "templates", "benchmarks", "docs"):
        files += [
            p
            for p in (root / folder).rglob("*")
            if p.is_file() and p.suffix in (".py", ".md", ".html", ".toml", ".js", ".css")
        ]
    found = [
        (p.relative_to(root).as_posix(), needle)
        for p in files
        if "golden" not in p.parts
        for needle in outside
        if needle in p.read_text("utf-8", errors="replace") and p.name != "test_layout.py"
    ]
    assert not found, found
