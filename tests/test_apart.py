"""core/apart.py: bytes made in a forked child, or here (docs/conventions.md section 22.23)."""

from __future__ import annotations

import os

import pytest

import ragreport.core.apart as apart
from ragreport.core.apart import Apart

pytestmark = pytest.mark.skipif(not apart.can_fork(), reason="fork is Linux's: elsewhere the bytes are made in place")


def test_the_child_s_bytes_are_the_ones_made_here_whatever_their_size():
    """Sizes past the pipe's buffer (the parent reads them as they come) and none at all; made in
    the child (its pid), not here."""
    parent = os.getpid()
    for size in (0, 1, 65_536, 5_000_001):

        def make(size=size):
            marker = b"child" if os.getpid() != parent else b"parent"
            return marker + bytes(range(256)) * (size // 256) + b"x" * (size % 256)

        made = Apart(make)
        data = made.result()
        assert data.startswith(b"child") and data[5:] == make()[6:]
        assert len(data) == 5 + size


def test_a_child_that_fails_leaves_the_bytes_to_the_parent_and_its_error_is_raised_here():
    """A child that raises exits non-zero: the parent makes the bytes itself, so an error is the
    parent's own (raised by result, as if nothing had been forked)."""
    parent = os.getpid()

    def only_here() -> bytes:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return b"made here"

    assert Apart(only_here).result() == b"made here"

    def never() -> bytes:
        raise ValueError("no bytes")

    with pytest.raises(ValueError, match="no bytes"):
        Apart(never).result()


def test_without_fork_or_for_a_small_report_the_bytes_are_made_when_asked_for(monkeypatch):
    """No fork (not Linux), or fewer than APART_QUERIES queries (a fork costs more than it saves):
    made here, when asked for."""
    calls: list[int] = []
    small = Apart(lambda: calls.append(os.getpid()) or b"small", queries=apart.APART_QUERIES - 1)
    assert calls == [] and small() == b"small" and calls == [os.getpid()]
    monkeypatch.setattr(apart, "can_fork", lambda: False)
    made = Apart(lambda: calls.append(os.getpid()) or b"here")
    assert calls == [os.getpid()]  # nothing made until asked
    assert made() == b"here" and calls == [os.getpid()] * 2


def _counted_forks(monkeypatch) -> list[int]:
    """Every os.fork from now on, counted (one 1 each)."""
    forks: list[int] = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real_fork())
    return forks


def _same_files(here, forked) -> list[str]:
    """The two folders' files, the same names and the same bytes; their names."""
    names = sorted(str(p.relative_to(here)) for p in here.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(forked)) for p in forked.rglob("*") if p.is_file())
    for name in names:
        assert (forked / name).read_bytes() == (here / name).read_bytes(), name
    return names


def test_a_site_s_report_json_and_query_view_made_apart_are_the_ones_made_in_place(tmp_path, monkeypatch):
    """`ragreport build` encodes report.json in a child (22.23) and makes and packs the query
    view's data in another (22.25): the folder is byte for byte the one of making both in place."""
    from ragreport.cli.commands import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    monkeypatch.setattr(apart, "APART_QUERIES", 0)  # the sample's 60 queries forked too
    forks = _counted_forks(monkeypatch)
    assert main(["--no-config", "build", "--out", str(tmp_path / "forked"), "--quiet"]) == 0
    assert forks == [1, 1]  # report.json's child, then the query view's
    monkeypatch.setattr(apart, "can_fork", lambda: False)
    assert main(["--no-config", "build", "--out", str(tmp_path / "here"), "--quiet"]) == 0
    assert forks == [1, 1]
    names = _same_files(tmp_path / "here", tmp_path / "forked")
    assert "report.json" in names and "queries.html" in names


def test_a_comparison_s_query_view_made_apart_is_the_one_made_in_place(tmp_path, monkeypatch):
    """Two runs compared: the query view's data (both runs' top K and figures, 22.25) made and
    packed in a child is the one made here, byte for byte, as is every other file."""
    from sitetools import second_sample_run

    from ragreport.cli.commands import main
    from ragreport.reading.registry import sample_path

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    monkeypatch.setattr(apart, "APART_QUERIES", 0)
    forks = _counted_forks(monkeypatch)
    runs = [str(sample_path()), str(second_sample_run(tmp_path))]
    assert main(["--no-config", "build", *runs, "--out", str(tmp_path / "forked"), "--quiet"]) == 0
    assert forks == [1, 1]
    monkeypatch.setattr(apart, "can_fork", lambda: False)
    assert main(["--no-config", "build", *runs, "--out", str(tmp_path / "here"), "--quiet"]) == 0
    assert "queries.html" in _same_files(tmp_path / "here", tmp_path / "forked")


def test_a_library_build_does_not_fork_its_caller_s_process(tmp_path, monkeypatch):
    """Only `ragreport build` makes things apart (22.23, 22.25): `ragreport.api.build` in a
    caller's own process (a notebook's, a service's) forks nothing, whatever the report's size."""
    from ragreport.api import analyse, build, evaluate

    monkeypatch.setattr(apart, "APART_QUERIES", 0)
    forks = _counted_forks(monkeypatch)
    written = build(analyse(evaluate(k=5)), out=tmp_path / "site")
    assert forks == [] and (written[0] / "queries.html").is_file()


@pytest.mark.parametrize("gated", [False, True])
def test_report_json_s_document_is_made_by_the_child_unless_a_gate_reads_it(gated, tmp_path, monkeypatch):
    """Without gates nothing in the parent reads report.json's document, so the child makes it
    too (22.26): the parent never makes it. With a gate (`--require`) the parent makes it, checks
    the gate on it and the child encodes it. Either way the folder is byte for byte the one made in
    place, its report.json holding the gate's check when there is one."""
    import json

    import ragreport.cli.commands as commands
    from ragreport.cli.commands import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    monkeypatch.setattr(apart, "APART_QUERIES", 0)
    made_in: list[int] = []
    real = commands.report_document
    monkeypatch.setattr(commands, "report_document", lambda *a, **k: made_in.append(os.getpid()) or real(*a, **k))
    gate = ["--require", "P@5>=0.1"] if gated else []
    forks = _counted_forks(monkeypatch)
    assert main(["--no-config", "build", *gate, "--out", str(tmp_path / "forked"), "--quiet"]) == 0
    assert forks == [1, 1]
    assert made_in == ([os.getpid()] if gated else [])  # the child's own call is not seen here
    monkeypatch.setattr(apart, "can_fork", lambda: False)
    assert main(["--no-config", "build", *gate, "--out", str(tmp_path / "here"), "--quiet"]) == 0
    assert made_in == [os.getpid()] * (2 if gated else 1)
    _same_files(tmp_path / "here", tmp_path / "forked")
    gates = json.loads((tmp_path / "forked" / "report.json").read_text())["gates"]
    assert [(g["metric"], g["passed"]) for g in gates] == ([("P@5", True)] if gated else [])
