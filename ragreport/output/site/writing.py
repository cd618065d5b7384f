"""Writing a site, a history or one file so that nothing of the user's is lost (docs/conventions.md section 16).

Every writer goes through :func:`guarded`: the target's parent is made, a lock file beside the
target (``.NAME.lock``, ``flock``) serialises runs writing the same target, the leftovers of a run
that was killed (``.NAME.building-*``, ``.NAME.old-*``, ``.NAME.publishing-*``,
``.NAME.writing-*``) are put back or removed, and every :class:`OSError` becomes one
:class:`~ragreport.core.errors.WriteError` line. A folder is then written beside the target and
swapped in with :func:`swap`: one atomic exchange where the system has it (Linux ``renameat2``),
else two renames, undone on any error. The target is never missing after a failure; when putting
the previous folder back fails too, the line says where it is, and the next run puts it back.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import shutil
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from ...core.errors import Argument, ArgumentError, UsageError, WriteError
from ...core.manifest import NotAMarker, file_digest, read_marker
from .wording import messages as say

MARKER = ".ragreport-site"
#: The first line of a site's marker; the lines below it list every file the build wrote.
SITE_HEADER = (
    "ragreport-site/2: written by `ragreport build`; a later build replaces this folder only while it "
    "holds nothing but the files listed below, unchanged."
)
#: The whole marker of builds before the manifest (ragreport 0.x): it lists nothing.
SITE_LEGACY = "This folder is written by `ragreport build`; the next build replaces all of it.\n"
#: What such a build wrote: a folder with this marker is replaced only when it holds these alone.
LEGACY_SITE_FILE = re.compile(
    r"index\.html|queries\.html|report\.json|summary\.md|assets/plotly\.min\.js|run-[a-z0-9_-]+\.html"
)
LEGACY_SITE_FOLDERS = frozenset({"assets"})

#: How long a run waits for another one writing the same target before it gives up.
LOCK_WAIT = 30.0
LEFTOVER_KINDS = ("building", "old", "publishing", "writing")
#: The folder a killed run's previous target is found in, by leftover kind.
RETIRED = {"old": "site", "publishing": "retired"}


def target_path(path: str | Path, option: str | Argument) -> Path:
    """``path`` as a target: not empty (``--out ""`` is an error, not ``./site``). ``option`` names
    it: a library keyword as an :class:`~ragreport.core.errors.Argument` (``out``, spelt ``--out`` on
    the command line), or a literal name (``publish DIR``)."""
    if str(path) == "":
        raise ArgumentError(*say.empty_path(option))
    return Path(path)


def folder_problem(target: Path) -> str | None:
    """Why ``target`` cannot be a folder a run replaces whole, whatever it holds (None: it can)."""
    try:
        resolved: Path | None = target.resolve()
        here = Path.cwd().resolve()
    except (OSError, RuntimeError):  # a loop of links: writing fails with one line (ELOOP)
        resolved = None
    if resolved is not None and (resolved == here or resolved in here.parents):
        return say.OUT_HOLDS_CWD
    if not os.path.lexists(target):
        return None
    if target.is_symlink():
        return say.OUT_IS_LINK
    if not target.is_dir():
        return say.OUT_IS_FILE
    if os.path.ismount(target):
        return say.OUT_IS_MOUNT
    return None


# --- The lock and the leftovers of killed runs ------------------------------------------------------


def lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


@contextlib.contextmanager
def locked(target: Path, wait: float | None = None) -> Iterator[None]:
    """Hold ``.NAME.lock`` beside ``target`` (``flock``, released by the kernel when the process
    dies), waiting up to :data:`LOCK_WAIT` seconds for another run; the file is removed on release."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): runs are not serialised
        yield
        return
    path = lock_path(target)
    limit = LOCK_WAIT if wait is None else wait
    deadline = time.monotonic() + limit
    while True:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            if time.monotonic() >= deadline:
                raise UsageError(say.another_writer(str(target), str(path), limit)) from None
            time.sleep(0.05)
            continue
        except BaseException:
            os.close(descriptor)
            raise
        # the run before may have removed the file between our open and our lock: lock the new one
        with contextlib.suppress(FileNotFoundError):
            if os.path.samestat(os.fstat(descriptor), os.stat(path, follow_symlinks=False)):
                break
        os.close(descriptor)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(descriptor)


def leftovers(target: Path) -> list[Path]:
    """What killed runs of ``target`` left beside it, oldest first."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.({'|'.join(LEFTOVER_KINDS)})-[a-z0-9_]{{8}}")
    try:
        names = os.listdir(target.parent)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [target.parent / n for n in names if pattern.fullmatch(n)]
    return sorted(found, key=lambda p: (p.lstat().st_mtime_ns, p.name))


def recover(target: Path) -> None:
    """Put back the previous target a killed run left aside (when ``target`` is missing), then remove
    every leftover. Called with the lock held, so no live run owns them."""
    found = leftovers(target)
    if not os.path.lexists(target):
        for leftover in reversed(found):  # the newest first
            kind = leftover.name.rsplit(".", 1)[1].split("-", 1)[0]
            kept = leftover / RETIRED.get(kind, "")
            if kind in RETIRED and kept.is_dir() and not kept.is_symlink():
                os.rename(kept, target)
                break
    for leftover in found:
        if leftover.is_dir() and not leftover.is_symlink():
            shutil.rmtree(leftover, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                leftover.unlink()


def recover_before_reading(target: Path) -> None:
    """Put back what a killed run left aside before ``target`` is read (``publish`` reads its history
    first); nothing is done, and no lock taken, when nothing is left beside it."""
    if leftovers(target):
        with guarded(target):
            pass


# --- One line for every filesystem error ---------------------------------------------------------------


def _reason(exc: OSError, target: Path) -> str:
    reason = exc.strerror or str(exc)
    if exc.filename and Path(exc.filename) != target and target.is_relative_to(Path(exc.filename)):
        if exc.errno in (errno.EEXIST, errno.ENOTDIR):  # --out below a regular file: name that file
            culprit = Path(exc.filename)
            for path in [culprit, *culprit.parents]:
                if os.path.lexists(path) and not path.is_dir():
                    return say.not_a_folder(str(path), link=path.is_symlink())
        reason += f" ({exc.filename})"  # a parent folder: it names the culprit
    return reason


@contextlib.contextmanager
def guarded(target: Path) -> Iterator[bool]:
    """Make ``target``'s parent, lock ``target``, recover the leftovers of killed runs, and turn any
    :class:`OSError` of the body into one :class:`WriteError` line. Yields whether ``target`` exists."""
    existed = os.path.lexists(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with locked(target):
            recover(target)
            existed = os.path.lexists(target)
            yield existed
    except OSError as exc:
        raise WriteError(say.cannot_write(str(target), _reason(exc, target), existed)) from None


# --- The swap ---------------------------------------------------------------------------------------------


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _renameat2() -> object | None:
    try:  # the process's own symbols hold libc's (find_library would start a process: slow)
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_EXCHANGE = _renameat2()


def exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one atomic step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or the file system has no such call."""
    if _EXCHANGE is None:
        return False
    result = _EXCHANGE(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)  # type: ignore[operator]
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def swap(staging: Path, target: Path, retired: Path) -> None:
    """Put the folder ``staging`` in ``target``'s place. ``target`` is never missing afterwards: one
    exchange (then ``staging`` holds the previous folder, removed here), or two renames through
    ``retired``, the first undone when the second fails. When undoing fails too, the
    :class:`WriteError` says where the previous folder is (and the next run puts it back)."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return
    if exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)
        return
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except OSError as exc:
        try:
            os.rename(retired, target)
        except OSError:
            raise WriteError(say.cannot_restore(str(target), _reason(exc, target), str(retired))) from None
        raise
    shutil.rmtree(retired, ignore_errors=True)


def make_readable(folder: Path) -> None:
    """``mkdtemp`` makes 0700 folders; a published site must be readable."""
    for directory in [folder, *(p for p in folder.rglob("*") if p.is_dir() and not p.is_symlink())]:
        directory.chmod(0o755)


def stage(files: Mapping[str, bytes], folder: Path) -> None:
    """Write ``files`` (relative path -> bytes) into ``folder``."""
    for relative, data in sorted(files.items()):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o644)


# --- What a folder holds, without following links -----------------------------------------------------


def _listing(folder: Path) -> Iterator[os.DirEntry]:
    with os.scandir(folder) as scan:
        return iter(sorted(scan, key=lambda e: e.name))


def entries(folder: Path, prefix: str = "") -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry below ``folder`` as (relative path, entry), sorted, a folder before what it holds;
    links are listed, never followed. A stack, not recursion: any depth; a folder is read only when
    the caller goes on past it."""
    stack = [(prefix, _listing(folder))]
    while stack:
        start, listing = stack[-1]
        entry = next(listing, None)
        if entry is None:
            stack.pop()
            continue
        relative = start + entry.name
        yield relative, entry
        if entry.is_dir(follow_symlinks=False):
            stack.append((relative + "/", _listing(Path(entry.path))))


def is_regular(entry: os.DirEntry) -> bool:
    return stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)


def site_problem(out: Path) -> str | None:
    """What stops a build from replacing ``out`` (None: it may).

    ``out`` may be missing or empty, or hold a marker that proves an earlier build and nothing that
    build did not write: every other entry is a regular file the manifest lists, with its digest, or
    a folder holding such files. A legacy marker (no manifest) admits only the files a legacy build
    writes.
    """
    problem = folder_problem(out)
    if problem is not None or not os.path.lexists(out):
        return problem
    listing = entries(out)
    first = next(listing, None)
    if first is None:
        return None
    marker = out / MARKER

    def foreign(relative: str, entry: os.DirEntry) -> str:  # a folder is named with its slash
        return say.not_written_by(str(out / relative) + ("/" if entry.is_dir(follow_symlinks=False) else ""), "build")

    try:
        found = read_marker(marker, SITE_HEADER, SITE_LEGACY)
    except FileNotFoundError:
        return foreign(*first)
    except NotAMarker as exc:
        proves_nothing = say.marker_proves_nothing(str(marker), exc.reason)
        other = next(((r, e) for r, e in [first, *listing] if r != MARKER), None)
        return proves_nothing if other is None else f"{foreign(*other)} ({proves_nothing})"
    if found.legacy:
        folders = set(LEGACY_SITE_FOLDERS)
    else:
        folders = {"/".join(p.split("/")[:i]) for p in found.files for i in range(1, p.count("/") + 1)}
    for relative, entry in [first, *listing]:
        folder = entry.is_dir(follow_symlinks=False)
        if relative == MARKER or (folder and relative in folders):
            continue
        listed = LEGACY_SITE_FILE.fullmatch(relative) if found.legacy else relative in found.files
        if folder or not is_regular(entry) or not listed:
            return foreign(relative, entry)
        if not found.legacy and file_digest(out / relative) != found.files[relative]:
            return say.changed_since(str(out / relative), "build")
    return None
