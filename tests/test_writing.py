"""The pieces every writer shares (ragreport/output/site/writing.py; docs/conventions.md section 16).

The writers end to end, under faults, are in tests/test_hostile_writes.py."""

from __future__ import annotations

import errno
import os
import sys
import threading
import time

import pytest

from ragreport.core.errors import UsageError, WriteError
from ragreport.output.site import writing
from ragreport.output.site.writing import (
    exchange,
    folder_problem,
    guarded,
    leftovers,
    lock_path,
    locked,
    site_problem,
    swap,
    target_path,
)


def test_an_empty_target_is_an_error_and_any_other_name_is_a_path():
    with pytest.raises(UsageError, match="--out is empty"):
        target_path("", "--out")
    assert str(target_path("site", "--out")) == "site"


def test_folder_problems(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "dir")
    assert folder_problem(tmp_path / "dir") is None and folder_problem(tmp_path / "missing") is None
    assert "current folder" in folder_problem(tmp_path)
    assert "current folder" in folder_problem(tmp_path.parent)
    assert "symbolic link" in folder_problem(tmp_path / "link")
    assert "a file, not a folder" in folder_problem(tmp_path / "file")
    assert "mount point" in folder_problem(writing.Path("/proc"))


def test_missing_and_empty_folders_may_be_replaced(tmp_path):
    assert site_problem(tmp_path / "missing") is None
    (tmp_path / "empty").mkdir()
    assert site_problem(tmp_path / "empty") is None


def test_leftovers_are_ragreports_names_for_this_target_only(tmp_path):
    names = [
        ".site.building-abcdefgh",
        ".site.old-a_c4efgh",
        ".site.publishing-00000000",
        ".site.writing-zzzzzzzz",
        ".site.building-abcdefg",
        ".site.building-abcdefghi",
        ".site.build-abcdefgh",
        ".site.x.old-abcdefgh",
        ".sitex.old-abcdefgh",
        "site.old-abcdefgh",
        ".site.old-ABCDEFGH",
        ".site.lock",
    ]
    for name in names:
        (tmp_path / name).mkdir()
    assert sorted(p.name for p in leftovers(tmp_path / "site")) == sorted(names[:4])
    assert [p.name for p in leftovers(tmp_path / "site.x")] == [".site.x.old-abcdefgh"]


def test_the_lock_is_held_once_waited_for_and_removed(tmp_path):
    target = tmp_path / "site"
    with locked(target):
        assert lock_path(target).is_file()
        start = time.monotonic()
        with pytest.raises(UsageError, match=r"another ragreport run is writing .*site \(it holds .*\.site\.lock\)"):
            with locked(target, wait=0.2):
                pass
        assert time.monotonic() - start >= 0.2
    assert not lock_path(target).exists()
    order = []

    def second():
        with locked(target, wait=5):
            order.append("second")

    with locked(target):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)
        order.append("first")
    thread.join()
    assert order == ["first", "second"] and not lock_path(target).exists()
    lock_path(target).write_text("")  # stale: nobody holds it
    with locked(target, wait=0):
        pass


def test_exchange_swaps_two_folders_in_one_step(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "from-a").write_text("a")
    (tmp_path / "b").mkdir()
    if not exchange(tmp_path / "a", tmp_path / "b"):
        pytest.fail("renameat2(RENAME_EXCHANGE) is missing on this Linux system")
    assert os.listdir(tmp_path / "b") == ["from-a"] and os.listdir(tmp_path / "a") == []


def test_swap_without_exchange_goes_through_retired_and_removes_it(tmp_path, monkeypatch):
    monkeypatch.setattr(writing, "_EXCHANGE", None)
    assert exchange(tmp_path / "x", tmp_path / "y") is False
    for name in ("new", "target"):
        (tmp_path / name).mkdir()
        (tmp_path / name / name).write_text(name)
    swap(tmp_path / "new", tmp_path / "target", tmp_path / "retired")
    assert sorted(os.listdir(tmp_path)) == ["target"] and os.listdir(tmp_path / "target") == ["new"]
    (tmp_path / "first").mkdir()
    swap(tmp_path / "first", tmp_path / "fresh", tmp_path / "retired")  # no target yet: one rename
    assert sorted(os.listdir(tmp_path)) == ["fresh", "target"]


def test_guarded_turns_os_errors_into_one_line_and_says_whether_there_was_a_previous_one(tmp_path):
    with pytest.raises(WriteError) as caught:
        with guarded(tmp_path / "new") as existed:
            assert existed is False
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert str(caught.value) == f"cannot write {tmp_path / 'new'}: No space left on device; nothing was left behind"
    (tmp_path / "old").mkdir()
    with pytest.raises(WriteError, match="Read-only file system; the previous one is untouched"):
        with guarded(tmp_path / "old") as existed:
            assert existed is True
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    assert sorted(os.listdir(tmp_path)) == ["old"]  # the lock file went with the run


def test_entries_lists_sorted_without_following_links_at_any_depth(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z").write_text("")
    (tmp_path / "a").write_text("")
    (tmp_path / "c").symlink_to(tmp_path / "b")
    assert [r for r, _ in writing.entries(tmp_path)] == ["a", "b", "b/z", "c"]
    deep = tmp_path / "deep"
    path = deep
    path.mkdir()
    for _ in range(300):
        path = path / "d"
        path.mkdir()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)  # folders nested deeper than Python may recurse
    try:
        count = sum(1 for _ in writing.entries(deep))
    finally:
        sys.setrecursionlimit(limit)
    assert count == 300
