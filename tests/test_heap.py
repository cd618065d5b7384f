"""core/heap.py: glibc is asked to keep freed memory, and to hand it back only where a build asks."""

from __future__ import annotations

import pytest

from ragreport.core import heap


class FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def mallopt(self, parameter: int, value: int) -> int:
        self.calls.append(("mallopt", parameter, value))
        return 1

    def malloc_trim(self, pad: int) -> int:
        self.calls.append(("malloc_trim", pad))
        return 1


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> FakeLibc:
    fake = FakeLibc()
    monkeypatch.setattr(heap, "_libc", lambda: fake)
    monkeypatch.setattr(heap, "_handing_back", False)
    monkeypatch.setattr(heap, "_kept", False)
    return fake


def test_score_keeps_freed_memory_and_never_trims(libc: FakeLibc) -> None:
    heap.keep_freed_memory()
    heap.hand_back()
    assert [c[0] for c in libc.calls] == ["mallopt"] * 4
    assert ("mallopt", -3, 32 << 20) in libc.calls and ("mallopt", -8, 1) in libc.calls


def test_a_build_hands_the_free_pages_back_at_each_stage(libc: FakeLibc) -> None:
    heap.hand_back()  # nothing asked yet: glibc's own rules stand
    assert libc.calls == []
    heap.keep_freed_memory(hand_back=True)
    heap.hand_back()
    heap.hand_back()
    assert libc.calls[-2:] == [("malloc_trim", 0), ("malloc_trim", 0)]
    heap.keep_freed_memory()  # a later score in the same process: no more trimming
    heap.hand_back()
    assert libc.calls[-1][0] == "mallopt"


def test_a_dask_worker_keeps_freed_memory_once_and_a_build_keeps_its_own(libc: FakeLibc, monkeypatch) -> None:
    heap.keep_freed_memory_here()  # not a worker: a program using the library keeps glibc's settings
    assert libc.calls == []
    monkeypatch.setattr(heap, "_in_dask_worker", lambda: True)
    heap.keep_freed_memory_here()  # a worker: nothing set yet, so glibc is asked
    heap.keep_freed_memory_here()  # the next partition: asked once only
    assert [c[0] for c in libc.calls] == ["mallopt"] * 4
    libc.calls.clear()
    heap.keep_freed_memory(hand_back=True)  # a build's process, scoring partitions itself (stream)
    heap.keep_freed_memory_here()
    heap.hand_back()
    assert libc.calls[-1] == ("malloc_trim", 0)  # its trimming at each stage stands


def test_a_partition_scored_in_a_dask_worker_asks_glibc_to_keep_freed_memory(monkeypatch, tmp_path) -> None:
    from ragreport.analysis.evaluation import load_qrels
    from ragreport.core.model import Conventions
    from ragreport.scoring import partition

    asked: list[str] = []
    monkeypatch.setattr(partition, "keep_freed_memory_here", lambda: asked.append("kept"))
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.trec").write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n")
    conventions = Conventions()
    parts = partition.partitions_of(tmp_path / "r.trec")
    scored = partition.score_span(
        *parts[0], str(tmp_path / "q.txt"), load_qrels, conventions.order, (1, 2), conventions, ()
    )
    assert asked == ["kept"] and scored.scores.values.shape[1] == 1


def test_outside_a_dask_worker_it_is_not_a_worker() -> None:
    assert heap._in_dask_worker() is False


def test_without_glibc_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_libc", lambda: None)
    monkeypatch.setattr(heap, "_handing_back", False)
    heap.keep_freed_memory(hand_back=True)
    heap.hand_back()
    assert heap._handing_back is False


def test_the_real_glibc_call_runs_where_it_is_found() -> None:
    # On Linux with glibc both functions are there; elsewhere _libc says None and nothing runs.
    libc = heap._libc()
    if libc is None:
        pytest.skip("no glibc here")
    assert libc.malloc_trim(0) in (0, 1)


@pytest.fixture
def numpy_advice():
    """numpy's own switch for its hugepage advice, put back as it was after the test."""
    import numpy as np

    multiarray = np._core.multiarray
    before = multiarray._get_madvise_hugepage()
    multiarray._set_madvise_hugepage(True)
    yield multiarray
    multiarray._set_madvise_hugepage(before)


def test_a_build_stops_numpy_advising_hugepages_and_score_does_not(libc, numpy_advice, monkeypatch) -> None:
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    heap.keep_freed_memory()  # score: numpy's default stands
    assert numpy_advice._get_madvise_hugepage() is True
    heap.keep_freed_memory(hand_back=True, small_pages=True)  # build
    assert numpy_advice._get_madvise_hugepage() is False


def test_a_user_s_own_numpy_madvise_hugepage_stands(libc, numpy_advice, monkeypatch) -> None:
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    heap.keep_freed_memory(hand_back=True, small_pages=True)
    assert numpy_advice._get_madvise_hugepage() is True
    assert heap.small_pages_for_numpy() is False


def test_a_build_s_process_runs_with_numpy_s_small_pages(tmp_path) -> None:
    """The command itself, in a process of its own: after `ragreport build` numpy no longer
    advises hugepages."""
    import subprocess
    import sys

    code = (
        "import numpy as np, sys\n"
        "from ragreport.cli.commands import main\n"
        f"assert main(['--no-config', 'build', '--out', {str(tmp_path / 'site')!r}, '--quiet']) == 0\n"
        "print(np._core.multiarray._get_madvise_hugepage())\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "False"
