"""Hostile corpus for what ragreport writes (issue 14, item 1; docs/conventions.md section 16).

``--out``, ``--single-file``/``--comment``/``--junit`` and ``publish`` against forged markers, a
folder with the user's files in it, a kill (a real SIGKILL, in a forked child) at every step of
the swap, an error at every step, two runs at once, a full disk, a read-only folder, ``--out .``,
a mount point, a path below a file, and what killed runs leave behind. Every failure must be one
``ragreport: error:`` line, exit 2, and the previous output exactly as it was.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from sitetools import FAST, history_inputs, publish, site_files

from ragreport.api import open_history
from ragreport.cli import main
from ragreport.core.errors import UsageError, WriteError
from ragreport.output.exports.history import HISTORY_LEGACY, write_history
from ragreport.output.site import render as site_module
from ragreport.output.site import writing
from ragreport.output.site.render import write_file, write_site
from ragreport.output.site.writing import MARKER, SITE_HEADER, SITE_LEGACY, locked

ROOT = Path(__file__).resolve().parent.parent


def small_site(tag: str) -> dict[str, bytes]:
    """A site as render_site hands it over, small: the writer does not care what the pages say."""
    return {
        "index.html": f"<!doctype html><title>{tag}</title>\n".encode(),
        "report.json": json.dumps({"tag": tag}).encode() + b"\n",
        "run-a.html": f"run a of {tag}\n".encode(),
        "assets/plotly.min.js": f"/* plotly of {tag} */\n".encode(),
    }


def on_disk(folder: Path) -> dict[str, bytes]:
    """Every regular file below ``folder`` but the marker."""
    return {k: v for k, v in site_files(folder).items() if k != MARKER}


def beside(folder: Path) -> list[str]:
    return sorted(os.listdir(folder.parent))


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("ragreport: error: ") and err.count("\n") == 1, err
    return err.strip()


@pytest.fixture
def old(tmp_path) -> Path:
    """An earlier build of the small site ``old`` in tmp_path/site."""
    out = tmp_path / "site"
    write_site(small_site("old"), out)
    assert on_disk(out) == small_site("old")
    return out


# --- The marker and its manifest -------------------------------------------------------------------------


def test_the_marker_lists_every_file_with_its_sha256_as_sha256sum_reads_it(old):
    lines = (old / MARKER).read_text().splitlines()
    assert lines[0] == SITE_HEADER
    expected = [f"{hashlib.sha256(data).hexdigest()}  {path}" for path, data in sorted(small_site("old").items())]
    assert lines[1:] == expected
    if shutil.which("sha256sum"):  # an independent reader of the same lines
        checked = subprocess.run(
            ["sha256sum", "--check", "--strict", "-"],
            input="\n".join(lines[1:]) + "\n",
            cwd=old,
            capture_output=True,
            text=True,
        )
        assert checked.returncode == 0 and checked.stdout.count(": OK") == 4, checked


def forge(folder: Path, marker: str | bytes | None, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if marker is not None:
        data = marker.encode() if isinstance(marker, str) else marker
        (folder / MARKER).write_bytes(data)
    for name, text in files.items():
        (folder / name.replace("__", "/")).parent.mkdir(parents=True, exist_ok=True)
        (folder / name.replace("__", "/")).write_text(text)
    return folder


def listed(**files: str) -> str:
    return (
        SITE_HEADER
        + "\n"
        + "".join(f"{hashlib.sha256(text.encode()).hexdigest()}  {name}\n" for name, text in sorted(files.items()))
    )


@pytest.mark.parametrize(
    ("case", "found"),
    [
        # the case: `mkdir thesis; touch thesis/.ragreport-site`
        (
            lambda d: forge(d, "", **{"chapter1.tex": "years"}),
            "{d}/chapter1.tex was not written by ragreport build (its marker {d}/.ragreport-site is empty",
        ),
        (lambda d: forge(d, ""), "its marker {d}/.ragreport-site is empty, so it proves no earlier ragreport run"),
        (
            lambda d: forge(d, "This folder is written by `ragreport build`.\n", **{"a.txt": "x"}),
            "{d}/a.txt was not written by ragreport build (its marker {d}/.ragreport-site does not start with",
        ),
        (lambda d: forge(d, SITE_HEADER + "\nnot a line\n", **{"a.txt": "x"}), "has a line that is not 'SHA256  PATH'"),
        (lambda d: forge(d, SITE_HEADER + "\n" + "0" * 64 + "  ../escape\n"), "has a line that is not 'SHA256  PATH'"),
        (lambda d: forge(d, b"\xff\xfe", **{"a.txt": "x"}), "is not text ragreport wrote"),
        # a marker proving an earlier build of other files: the user's files beside them are not its
        (
            lambda d: forge(d, listed(**{"index.html": "x"}), **{"index.html": "x", "notes.txt": "mine"}),
            "{d}/notes.txt was not written by ragreport build; choose another --out or remove it",
        ),
        (
            lambda d: forge(d, listed(**{"index.html": "x"}), **{"index.html": "edited by hand"}),
            "{d}/index.html was changed since ragreport build wrote it",
        ),
        (
            lambda d: forge(d, listed(**{"index.html": "x"}), **{"index.html": "x", "drafts__ch1.tex": "y"}),
            "{d}/drafts/ was not written by ragreport build",
        ),
        # the marker of ragreport before the manifest admits only what such a build wrote
        (
            lambda d: forge(d, SITE_LEGACY, **{"index.html": "x", "thesis.tex": "y"}),
            "{d}/thesis.tex was not written by ragreport build",
        ),
        (
            lambda d: forge(d, SITE_LEGACY, **{"index.html": "x", "assets__fonts.css": "y"}),
            "{d}/assets/fonts.css was not written by ragreport build",
        ),
    ],
)
@pytest.mark.slow
def test_a_forged_or_foreign_marker_is_refused_and_nothing_is_touched(tmp_path, capsys, case, found):
    folder = case(tmp_path / "thesis")
    before = site_files(folder)
    assert main(["build", "--out", str(folder), "--quiet"]) == 2
    assert found.format(d=folder) in one_line_error(capsys)
    assert site_files(folder) == before
    assert beside(folder) == ["thesis"]


@pytest.mark.slow
def test_a_marker_that_is_a_link_or_a_folder_proves_nothing(tmp_path, old, capsys):
    for name, make in (("linked", lambda m: m.symlink_to(old / MARKER)), ("folder", lambda m: m.mkdir())):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "index.html").write_text("mine")
        make(folder / MARKER)
        assert main(["build", "--out", str(folder), "--quiet"]) == 2
        reason = "is a symbolic link" if name == "linked" else "is not a regular file"
        assert f"its marker {folder / MARKER} {reason}" in one_line_error(capsys)
        assert (folder / "index.html").read_text() == "mine"


@pytest.mark.slow
def test_a_link_inside_the_site_or_as_the_site_is_refused(tmp_path, old, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("keep")
    (old / "run-a.html").unlink()
    (old / "run-a.html").symlink_to(secret)  # listed in the manifest, but now a link
    assert main(["build", "--out", str(old), "--quiet"]) == 2
    assert f"{old / 'run-a.html'} was not written by ragreport build" in one_line_error(capsys)
    assert secret.read_text() == "keep" and (old / "run-a.html").is_symlink()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert main(["build", "--out", str(link), "--quiet"]) == 2
    assert "it is a symbolic link; give the folder it points to" in one_line_error(capsys)
    assert link.is_symlink() and not (tmp_path / "elsewhere").exists()


def test_an_earlier_build_a_legacy_build_an_empty_and_a_missing_folder_are_replaced(tmp_path, old):
    write_site(small_site("new"), old)
    assert on_disk(old) == small_site("new") and beside(old) == ["site"]
    legacy = forge(
        tmp_path / "legacy",
        SITE_LEGACY,
        **{"index.html": "x", "run-b.html": "y", "summary.md": "z", "report.json": "{}", "assets__plotly.min.js": "p"},
    )
    write_site(small_site("new"), legacy)
    assert on_disk(legacy) == small_site("new")
    empty = tmp_path / "empty"
    empty.mkdir()
    write_site(small_site("new"), empty)
    assert on_disk(empty) == small_site("new")
    write_site(small_site("new"), tmp_path / "a" / "b" / "missing")
    assert on_disk(tmp_path / "a" / "b" / "missing") == small_site("new")


# --- Paths that cannot be a site ---------------------------------------------------------------------------


@pytest.mark.slow
def test_out_dot_empty_a_mount_point_and_below_a_file_are_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    cases = {
        ".": "refusing to replace .: it is the current folder or holds it",
        "..": "refusing to replace ..: it is the current folder or holds it",
        "": "--out is empty; give a name",
        "/proc": "refusing to replace /proc: it is a mount point",
        "notes.txt": "refusing to replace notes.txt: it is a file, not a folder",
        "notes.txt/site": "cannot write notes.txt/site: notes.txt is a file, not a folder; nothing was left behind",
        "notes.txt/a/b": "cannot write notes.txt/a/b: notes.txt is a file, not a folder",
    }
    for out, expected in cases.items():
        assert main(["build", "--out", out, "--quiet"]) == 2, out
        assert expected in one_line_error(capsys), out
    (tmp_path / "loop").symlink_to("loop")
    assert main(["build", "--out", "loop/site", "--quiet"]) == 2
    assert "cannot write loop/site: loop is a symbolic link that leads to no folder" in one_line_error(capsys)
    (tmp_path / "loop").unlink()
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]  # no ./site for --out "", nothing else either
    assert (tmp_path / "notes.txt").read_text() == "mine"
    for option in ("--single-file", "--comment", "--junit"):
        assert main(["build", option, "", "--out", "s", "--quiet"]) == 2
        assert f"{option} is empty; give a name" in one_line_error(capsys)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]  # refused before the site was written


# --- A kill or an error at every step of the swap ----------------------------------------------------------

#: What the writers call on the way: each call is one step at which a run may be killed or fail.
STEPS = (
    ("os", "rename"),
    ("writing", "exchange"),
    ("Path", "write_bytes"),
    ("Path", "chmod"),
    ("tempfile", "mkdtemp"),
    ("shutil", "rmtree"),
)


def instrument(monkeypatch, action) -> list[str]:
    """Wrap every step; ``action(n, name)`` runs before the n-th call (1-based). Returns the names seen."""
    seen: list[str] = []
    owners = {"os": os, "writing": writing, "Path": Path, "tempfile": tempfile, "shutil": shutil}
    for owner, name in STEPS:
        real = getattr(owners[owner], name)

        def wrapped(*args, _real=real, _name=f"{owner}.{name}", **kwargs):
            seen.append(_name)
            action(len(seen), _name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(owners[owner], name, wrapped)
    return seen


def count_steps(tmp_path, monkeypatch, exchange: bool) -> list[str]:
    out = tmp_path / "count" / "site"
    write_site(small_site("old"), out)
    with monkeypatch.context() as patch:
        if not exchange:
            patch.setattr(writing, "_EXCHANGE", None)
        seen = instrument(patch, lambda n, name: None)
        write_site(small_site("new"), out)
    assert on_disk(out) == small_site("new")
    return list(seen)


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_an_error_at_every_step_leaves_the_previous_site_and_nothing_beside_it(tmp_path, monkeypatch, exchange):
    steps = count_steps(tmp_path, monkeypatch, exchange)
    assert ("writing.exchange" in steps) and (steps.count("os.rename") == (0 if exchange else 2))
    for step in range(1, len(steps) + 1):
        if steps[step - 1] == "shutil.rmtree":
            continue  # removing what is left is done with ignore_errors: a failure there fails nothing
        out = tmp_path / f"s{step}" / "site"
        write_site(small_site("old"), out)
        with monkeypatch.context() as patch:
            if not exchange:
                patch.setattr(writing, "_EXCHANGE", None)

            def fail(n, name, step=step):
                if n == step:
                    raise OSError(errno.EIO, "Input/output error")

            instrument(patch, fail)
            with pytest.raises(WriteError) as caught:
                write_site(small_site("new"), out)
        message = str(caught.value)
        assert message == f"cannot write {out}: Input/output error; the previous one is untouched", steps[step - 1]
        assert on_disk(out) == small_site("old"), steps[step - 1]
        assert beside(out) == ["site"], steps[step - 1]


def test_when_the_previous_site_cannot_be_put_back_the_line_says_where_it_is(old, monkeypatch, capsys):
    monkeypatch.setattr(writing, "_EXCHANGE", None)
    real = os.rename
    calls: list[str] = []

    def rename(source, target):
        calls.append(str(target))
        if len(calls) >= 2:  # the new site cannot take its place, and the old one cannot go back
            raise OSError(errno.EIO, "Input/output error")
        return real(source, target)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(WriteError) as caught:
        write_site(small_site("new"), old)
    where = Path(calls[0])
    assert str(caught.value) == (
        f"cannot write {old}: Input/output error, and the previous one could not be put "
        f"back: it is in {where} (the next run puts it back)"
    )
    assert on_disk(where) == small_site("old") and where.parent.name.startswith(".site.old-")
    monkeypatch.setattr(os, "rename", real)
    # the next run puts it back first, then replaces it as an earlier build
    (old.parent / "other").mkdir()
    write_site(small_site("old-again"), old.parent / "other")  # another target: leaves site's leftovers alone
    assert where.is_dir()
    with locked(old):
        writing.recover(old)
    assert on_disk(old) == small_site("old") and beside(old) == ["other", "site"]


def kill_at(step: int, out: Path, exchange: bool) -> int:
    """Fork a child that writes the ``new`` site into ``out`` and SIGKILLs itself at ``step``."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child never returns to pytest
        try:
            if not exchange:
                writing._EXCHANGE = None
            patch = pytest.MonkeyPatch()

            def die(n, name):
                if n == step:
                    os.kill(os.getpid(), signal.SIGKILL)

            instrument(patch, die)
            write_site(small_site("new"), out)
        finally:
            os._exit(0)
    _, status = os.waitpid(child, 0)
    return status


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_a_sigkill_at_every_step_loses_nothing_and_the_next_build_cleans_up(tmp_path, monkeypatch, exchange):
    steps = count_steps(tmp_path, monkeypatch, exchange)
    outcomes = set()
    for step in range(1, len(steps) + 1):
        out = tmp_path / f"k{step}" / "site"
        write_site(small_site("old"), out)
        status = kill_at(step, out, exchange)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, steps[step - 1]
        # right after the kill: the old site or the new one, whole; or (two renames, killed between
        # them) no site and the old one whole in .site.old-*/site
        if out.exists():
            state = on_disk(out)
            assert state in (small_site("old"), small_site("new")), steps[step - 1]
            assert writing.site_problem(out) is None  # its marker is its own
            outcomes.add("old" if state == small_site("old") else "new")
        else:
            assert not exchange
            (kept,) = [p / "site" for p in out.parent.iterdir() if p.name.startswith(".site.old-")]
            assert on_disk(kept) == small_site("old")
            outcomes.add("between the renames")
        # the next build puts back, removes the leftovers and the stale lock, and writes
        write_site(small_site("next"), out)
        assert on_disk(out) == small_site("next") and beside(out) == ["site"], steps[step - 1]
    assert outcomes == ({"old", "new"} if exchange else {"old", "new", "between the renames"})


@pytest.mark.slow
def test_a_build_killed_between_the_renames_is_put_back_by_the_next_command(tmp_path):
    """The CLI end to end: `ragreport build` SIGKILLed between its two renames, then run again."""
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--quiet"]) == 0
    before = site_files(out)
    script = (
        "import os, signal, sys\n"
        "from ragreport.output.site import writing\n"
        "writing._EXCHANGE = None\n"
        "real = os.rename\n"
        "calls = []\n"
        "def rename(a, b):\n"
        "    calls.append(b)\n"
        "    if len(calls) == 2: os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return real(a, b)\n"
        "os.rename = rename\n"
        "from ragreport.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    killed = subprocess.run(
        [sys.executable, "-c", script, "build", "--out", str(out), "--title", "killed", "--quiet"],
        env=env,
        capture_output=True,
    )
    assert killed.returncode == -signal.SIGKILL
    assert not out.exists()  # between the renames: the one moment a system without exchange has no --out
    again = subprocess.run(
        [sys.executable, "-m", "ragreport", "build", "--out", str(out), "--quiet"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert site_files(out) == before and beside(out) == ["site"]  # the same build again: byte for byte


# --- Leftovers and the lock ---------------------------------------------------------------------------------


def test_leftovers_of_killed_runs_are_removed_and_only_those(tmp_path, old):
    parent = old.parent
    for name in (".site.building-abcd1234", ".site.old-abcd_123", ".site.publishing-zzzzzzzz"):
        (parent / name / "x").mkdir(parents=True)
    (parent / ".site.writing-qwertyui").write_text("half a file")
    (parent / ".site.lock").write_text("")  # a stale lock: no process holds it
    # not ours: another target's leftovers, another pattern, the user's files
    keep = [".site.x.building-abcd1234", ".site.building-abc", ".site.building-ABCD1234", ".site.bak", "notes"]
    for name in keep:
        (parent / name).mkdir()
    write_site(small_site("new"), old)
    assert beside(old) == sorted([*keep, "site"])


@pytest.mark.slow
def test_a_held_lock_makes_a_build_wait_then_refuse_with_one_line(old, monkeypatch, capsys):
    monkeypatch.setattr(writing, "LOCK_WAIT", 0.3)
    with locked(old):
        assert main(["build", "--out", str(old), "--quiet"]) == 2
        line = one_line_error(capsys)
    assert line == (
        f"ragreport: error: another ragreport run is writing {old} (it holds {old.parent / '.site.lock'}); "
        "waited 0.3 s, try again when it ends"
    )
    assert on_disk(old) == small_site("old")
    assert main(["build", "--out", str(old), "--quiet"]) == 0  # released: the next one goes through


def test_two_builds_at_once_into_one_folder_both_land_one_after_the_other(tmp_path):
    out = tmp_path / "site"
    errors: list[BaseException] = []
    sites = [small_site(f"thread{i}") for i in range(2)]

    def build(files):
        try:
            for _ in range(10):
                write_site(files, out)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=build, args=(files,)) for files in sites]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert on_disk(out) in sites and writing.site_problem(out) is None and beside(out) == ["site"]


@pytest.mark.slow
def test_two_build_processes_at_once(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "ragreport", "build", "--out", str(tmp_path / "site"), "--quiet"]
    runs = [subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(run.wait(), run.stderr.read()) for run in runs]  # type: ignore[union-attr]
    assert results == [(0, ""), (0, "")]
    assert writing.site_problem(tmp_path / "site") is None and beside(tmp_path / "site") == ["site"]


# --- A full disk, a read-only folder --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("code", "text"),
    [
        (errno.ENOSPC, "No space left on device"),
        (errno.EROFS, "Read-only file system"),
        (errno.EACCES, "Permission denied"),
        (errno.EDQUOT, "Disk quota exceeded"),
    ],
)
def test_a_full_disk_or_a_read_only_folder_is_one_line_and_the_site_stays(old, monkeypatch, capsys, code, text):
    def refuse(self, data):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(Path, "write_bytes", refuse)
    assert main(["build", "--out", str(old), "--quiet"]) == 2
    assert one_line_error(capsys) == f"ragreport: error: cannot write {old}: {text}; the previous one is untouched"
    assert on_disk(old) == small_site("old") and beside(old) == ["site"]


def test_a_read_only_parent_folder(tmp_path, old, monkeypatch, capsys):
    """chmod where it binds (not as root); as root, where chmod binds nothing, the kernel's EACCES."""
    if os.geteuid() == 0:
        real = tempfile.mkdtemp

        def mkdtemp(*args, **kwargs):
            raise OSError(errno.EACCES, "Permission denied", kwargs.get("dir"))

        monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    else:
        old.parent.chmod(0o555)
    try:
        assert main(["build", "--out", str(old), "--quiet"]) == 2
        assert f"cannot write {old}: Permission denied" in one_line_error(capsys)
    finally:
        old.parent.chmod(0o755)
        if os.geteuid() == 0:
            monkeypatch.setattr(tempfile, "mkdtemp", real)
    assert on_disk(old) == small_site("old")


# --- One file: --single-file, --comment, --junit -------------------------------------------------------


@pytest.mark.slow
def test_single_file_errors_are_one_line_the_old_file_stays_and_leftovers_go(tmp_path, monkeypatch, capsys):
    report = tmp_path / "report.html"
    assert main(["build", "--single-file", str(report), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    before = report.read_bytes()
    real = os.replace

    def full(source, target):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    assert main(["build", "--single-file", str(report), "--quiet"]) == 2
    assert one_line_error(capsys) == (
        f"ragreport: error: cannot write {report}: No space left on device; the previous one is untouched"
    )
    monkeypatch.setattr(os, "replace", real)
    assert report.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["report.html", "s"]
    (tmp_path / ".report.html.writing-abcdefgh").write_text("a killed run's half")
    write_file(before, report)
    assert sorted(os.listdir(tmp_path)) == ["report.html", "s"]
    for option in ("--comment", "--junit"):
        assert main(["build", "--out", str(tmp_path / "s"), option, str(report / "x"), "--quiet"]) == 2
        assert f"cannot write {report / 'x'}: {report} is a file, not a folder" in one_line_error(capsys)


# --- publish -----------------------------------------------------------------------------------------------


@pytest.fixture
def history(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    history_inputs(tmp_path)
    folder = tmp_path / "eval"
    assert publish(tmp_path, folder, "worse", "qrels.txt", "--label", "v1") == 0
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(
    ("marker", "reason"),
    [
        ("", "is empty"),
        ("marker\n", "does not start with the line ragreport writes"),
        (None, "is a symbolic link"),
        (b"\x00\xff", "is not text ragreport wrote"),
    ],
)
def test_a_forged_history_marker_is_refused(history, capsys, marker, reason):
    path = history / ".ragreport-history"
    path.unlink()
    if marker is None:
        (history.parent / "elsewhere").write_text(HISTORY_LEGACY)
        path.symlink_to(history.parent / "elsewhere")
    else:
        path.write_bytes(marker.encode() if isinstance(marker, str) else marker)
    before = site_files(history)
    assert publish(history.parent, history, "better") == 2
    assert f"refusing to publish into {history}: its marker {path} {reason}" in one_line_error(capsys)
    assert site_files(history) == before


@pytest.mark.slow
def test_publish_keeps_the_users_files_and_refuses_to_replace_or_remove_them(history, capsys):
    for name, text in {"CNAME": "eval.example.org\n", ".nojekyll": "", "about.html": "mine"}.items():
        (history / name).write_text(text)
    (history / "reports" / "v1" / "notes.txt").write_text("what we changed")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 0
    assert (history / "CNAME").read_text() == "eval.example.org\n" and (history / "about.html").read_text() == "mine"
    assert (history / ".nojekyll").exists() and (history / "reports" / "v1" / "notes.txt").exists()
    # pruning v1 would remove notes.txt, which publish did not write: refused, nothing changes
    before = site_files(history)
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v3", "--keep", "2") == 2
    assert (
        f"refusing to publish into {history}: {history / 'reports' / 'v1' / 'notes.txt'} was not written by "
        "ragreport publish"
    ) in one_line_error(capsys)
    assert site_files(history) == before
    (history / "reports" / "v1" / "notes.txt").unlink()
    # publishing v2 again replaces its files: a page of it edited by hand is refused
    (history / "reports" / "v2" / "index.html").write_text("edited")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 2
    assert "reports/v2/index.html was changed since ragreport publish wrote it" in one_line_error(capsys)
    (history / "reports" / "v2" / "index.html").unlink()
    (history / "reports" / "v2" / "index.html").symlink_to(history / "CNAME")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 2
    assert "reports/v2/index.html was not written by ragreport publish" in one_line_error(capsys)
    assert (history / "CNAME").read_text() == "eval.example.org\n"


@pytest.mark.slow
def test_a_legacy_history_is_adopted_and_its_marker_rewritten(history):
    marker = history / ".ragreport-history"
    marker.write_text(HISTORY_LEGACY)
    (history / "CNAME").write_text("x\n")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2", "--keep", "1") == 0
    lines = marker.read_text().splitlines()
    assert lines[0].startswith("ragreport-history/2:")
    paths = [line.split("  ", 1)[1] for line in lines[1:]]
    assert "CNAME" not in paths and all(p.startswith("reports/v2/") for p in paths if p.startswith("reports/"))
    assert not (history / "reports" / "v1").exists() and (history / "CNAME").exists()


@pytest.mark.slow
def test_a_publish_that_ran_meanwhile_is_not_overwritten(history):
    first, second = open_history(history, "a"), open_history(history, "b")
    assert first.index == second.index == (history / "history.json").read_bytes()
    files = {"history.json": b'{"changed": 1}\n', "index.html": b"x"}
    write_history(history, files, index=first.index)
    with pytest.raises(UsageError, match="history.json changed while this publish ran"):
        write_history(history, {"history.json": b"lost\n"}, index=second.index)
    assert (history / "history.json").read_bytes() == b'{"changed": 1}\n'


@pytest.mark.slow
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_full_disk_during_publish_is_one_line_and_the_history_stays(history, monkeypatch, capsys, code):
    before = site_files(history)

    def refuse(self, data):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(Path, "write_bytes", refuse)
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 2
    assert one_line_error(capsys) == (
        f"ragreport: error: cannot write {history}: {os.strerror(code)}; the previous one is untouched"
    )
    assert site_files(history) == before and not [p for p in os.listdir(history.parent) if p.startswith(".")]


@pytest.mark.slow
def test_a_publish_killed_between_the_renames_is_put_back_by_the_next(history):
    """What a publish SIGKILLed between its two renames leaves: no history, the old one in
    .eval.publishing-*/retired beside the half-made new one. The next publish puts it back first."""
    before = site_files(history)
    leftover = history.parent / ".eval.publishing-k1ll3d00"
    leftover.mkdir()
    shutil.copytree(history, leftover / "history")
    (leftover / "history" / "index.html").write_text("half")
    history.rename(leftover / "retired")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 0
    labels = [e["label"] for e in json.loads((history / "history.json").read_text())["reports"]]
    assert labels == ["v2", "v1"]
    after = site_files(history)
    assert all(after[k] == v for k, v in before.items() if k.startswith("reports/v1/"))
    assert not leftover.exists() and not [p for p in os.listdir(history.parent) if p.startswith(".")]


@pytest.mark.slow
def test_publish_into_dot_a_link_or_below_a_file(history, tmp_path, monkeypatch, capsys):
    link = tmp_path / "link"
    link.symlink_to(history, target_is_directory=True)
    assert publish(tmp_path, link) == 2
    assert "it is a symbolic link; give the folder it points to" in one_line_error(capsys)
    (tmp_path / "notes.txt").write_text("mine")
    assert publish(tmp_path, tmp_path / "notes.txt" / "eval") == 2
    assert "notes.txt is a file, not a folder" in one_line_error(capsys)
    monkeypatch.chdir(tmp_path / "worse")
    assert main(["publish", ".", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "base.trec"), *FAST]) == 2
    assert "refusing to publish into .: it is the current folder or holds it" in one_line_error(capsys)
    assert sorted(os.listdir(tmp_path / "worse")) == ["cand.trec"]


def test_render_writes_through_the_same_guard(tmp_path, old, capsys):
    assert main(["build", "--out", str(tmp_path / "built"), "--quiet"]) == 0
    thesis = forge(tmp_path / "thesis", "", **{"chapter1.tex": "years"})
    assert main(["render", str(tmp_path / "built" / "report.json"), "--out", str(thesis), "--quiet"]) == 2
    assert f"{thesis / 'chapter1.tex'} was not written by ragreport build" in one_line_error(capsys)
    assert site_files(thesis) == {MARKER: b"", "chapter1.tex": b"years"}
    assert site_module.write_site is write_site


def small_history(tag: str) -> dict[str, bytes]:
    return {
        "index.html": f"history page {tag}\n".encode(),
        "history.json": f'{{"tag": "{tag}"}}\n'.encode(),
        f"reports/{tag}/index.html": f"report {tag}\n".encode(),
    }


def history_state(folder: Path) -> dict[str, bytes]:
    return {k: v for k, v in site_files(folder).items() if k != ".ragreport-history"}


@pytest.mark.slow
@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "two-renames"])
def test_a_sigkill_or_an_error_at_every_step_of_a_publish(tmp_path, monkeypatch, exchange):
    """The history's writer under the same faults as the site's: the old history (v1 and the user's
    CNAME) or the new one (v2 replacing v1, CNAME kept), whole; the next publish cleans up."""
    old = {**small_history("v1"), "CNAME": b"mine\n"}
    new = {**small_history("v2"), "CNAME": b"mine\n"}

    def fresh(name: str) -> Path:
        folder = tmp_path / name / "eval"
        write_history(folder, small_history("v1"))
        (folder / "CNAME").write_text("mine\n")
        assert history_state(folder) == old
        return folder

    def publish_v2(folder: Path) -> None:
        write_history(folder, small_history("v2"), replaced=["v1"])

    counted = fresh("count")
    with monkeypatch.context() as patch:
        if not exchange:
            patch.setattr(writing, "_EXCHANGE", None)
        steps = instrument(patch, lambda n, name: None)
        publish_v2(counted)
        steps = list(steps)
    assert history_state(counted) == new
    for step in range(1, len(steps) + 1):
        folder = fresh(f"k{step}")
        child = os.fork()
        if child == 0:  # pragma: no cover - the child never returns to pytest
            try:
                if not exchange:
                    writing._EXCHANGE = None
                instrument(pytest.MonkeyPatch(), lambda n, name, s=step: n == s and os.kill(os.getpid(), 9))
                publish_v2(folder)
            finally:
                os._exit(0)
        _, status = os.waitpid(child, 0)
        assert os.WIFSIGNALED(status), steps[step - 1]
        if folder.exists():
            assert history_state(folder) in (old, new), steps[step - 1]
        else:
            assert not exchange
            (kept,) = [p / "retired" for p in folder.parent.iterdir() if p.name.startswith(".eval.publishing-")]
            assert history_state(kept) == old
        publish_v2(folder)  # the next publish: puts back, cleans, writes
        assert history_state(folder) == new and beside(folder) == ["eval"], steps[step - 1]
        if steps[step - 1] == "shutil.rmtree":
            continue
        folder = fresh(f"e{step}")
        with monkeypatch.context() as patch:
            if not exchange:
                patch.setattr(writing, "_EXCHANGE", None)

            def fail(n, name, step=step):
                if n == step:
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            instrument(patch, fail)
            with pytest.raises(WriteError, match="No space left on device; the previous one is untouched"):
                publish_v2(folder)
        assert history_state(folder) == old and beside(folder) == ["eval"], steps[step - 1]
