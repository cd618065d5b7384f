"""The docstrings' examples run as doctests, and the public API's docstrings have numpydoc's sections.

Every module of the package whose source holds an example (``>>>``) is run with doctest; only those
are imported, so an optional dependency (dask, pyarrow) is never imported to collect them. The
examples build on the preloaded sample or on runs of a few queries in memory, and write to
temporary folders.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
from pathlib import Path

import pytest

import ragreport
import ragreport.api

PACKAGE = Path(ragreport.__file__).parent


def _with_examples() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " in path.read_text("utf-8"):
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = _with_examples()


def test_the_modules_with_examples_include_the_entry_points():
    assert {
        "ragreport.api",
        "ragreport.core.errors",
        "ragreport.core.model",
    } <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever an example writes by a relative name lands here
    found = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, raise_on_error=False)
    assert found.attempted >= 1 and found.failed == 0, found


def _public() -> dict[str, object]:
    """Every name the package exports, and every name ragreport.api lists."""
    names = {name: getattr(ragreport, name) for name in ragreport.__all__ if name != "__version__"}
    names.update({name: getattr(ragreport.api, name) for name in ragreport.api.__all__})
    return names


@pytest.mark.parametrize("name", sorted(_public()))
def test_every_public_name_has_a_numpydoc_docstring(name):
    item = _public()[name]
    doc = inspect.getdoc(item) or ""
    summary = doc.split("\n\n", 1)[0]
    assert summary and "\n" not in summary, f"{name}: a one-line summary first"
    sections = {line for line, rule in zip(doc.splitlines(), doc.splitlines()[1:]) if rule and set(rule) == {"-"}}
    assert "Examples" in sections, name
    if inspect.isfunction(item):
        params = [p for p in inspect.signature(item).parameters.values() if p.name != "self"]
        assert not params or "Parameters" in sections, name
        documented = {n for line in doc.splitlines() if " : " in line for n in line.split(" : ")[0].split(", ")}
        assert not [p.name for p in params if p.name not in documented], name  # under its own name
        assert "Returns" in sections, name
