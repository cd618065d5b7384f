"""The marker and its manifest (ragreport/core/manifest.py; docs/conventions.md section 16)."""

from __future__ import annotations

import os

import pytest

from ragreport.core import manifest
from ragreport.core.manifest import NotAMarker, digest, file_digest, manifest_text, read_marker, safe_relative

HEADER = "tool/2: a header"
LEGACY = "the old sentence.\n"
#: SHA-256 of b"abc" (FIPS 180-2, appendix B.1) and of b"" (the empty message).
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_a_manifest_is_the_header_then_sorted_sha256sum_lines_and_reads_back(tmp_path):
    text = manifest_text(HEADER, {"b/c.html": digest(b"abc"), "a.json": digest(b"")})
    assert text == f"{HEADER}\n{EMPTY}  a.json\n{ABC}  b/c.html\n".encode()
    (tmp_path / "m").write_bytes(text)
    found = read_marker(tmp_path / "m", HEADER, LEGACY)
    assert dict(found.files) == {"a.json": EMPTY, "b/c.html": ABC} and not found.legacy
    (tmp_path / "m").write_text(LEGACY)
    assert read_marker(tmp_path / "m", HEADER, LEGACY).legacy


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "is empty"),
        (LEGACY + "\n", "does not start with the line ragreport writes"),
        ("tool/3: a header\n", "does not start with the line ragreport writes"),
        (HEADER, "does not start with the line ragreport writes"),  # no final newline: cut short
        (f"{HEADER}\n{ABC} one-space\n", "has a line that is not 'SHA256  PATH'"),
        (f"{HEADER}\n{ABC.upper()}  a\n", "has a line that is not 'SHA256  PATH'"),
        (f"{HEADER}\n{ABC}  a\n{ABC}  a\n", "has a line that is not 'SHA256  PATH'"),
        (f"{HEADER}\n{ABC}  /etc/passwd\n", "has a line that is not 'SHA256  PATH'"),
        (f"{HEADER}\n{ABC}  a/../../b\n", "has a line that is not 'SHA256  PATH'"),
        (f"{HEADER}\n{ABC}  b\n{ABC}  a\n", "lists its files out of order"),
        (f"{HEADER}\n\n", "has a line that is not 'SHA256  PATH'"),
    ],
)
def test_what_proves_nothing(tmp_path, text, reason):
    (tmp_path / "m").write_text(text)
    with pytest.raises(NotAMarker) as caught:
        read_marker(tmp_path / "m", HEADER, LEGACY)
    assert caught.value.reason.startswith(reason)


def test_links_folders_fifos_and_huge_files_are_not_markers(tmp_path, monkeypatch):
    (tmp_path / "real").write_text(LEGACY)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")  # read without blocking: it is refused before it is opened
    for name, reason in (
        ("link", "is a symbolic link"),
        ("folder", "is not a regular file"),
        ("fifo", "is not a regular file"),
    ):
        with pytest.raises(NotAMarker, match=reason):
            read_marker(tmp_path / name, HEADER, LEGACY)
    monkeypatch.setattr(manifest, "MARKER_LIMIT", 10)
    with pytest.raises(NotAMarker, match="is larger than a marker"):
        read_marker(tmp_path / "real", HEADER, LEGACY)
    with pytest.raises(FileNotFoundError):
        read_marker(tmp_path / "none", HEADER, LEGACY)


def test_file_digest_reads_regular_files_only(tmp_path):
    (tmp_path / "abc").write_bytes(b"abc")
    assert file_digest(tmp_path / "abc") == ABC
    os.mkfifo(tmp_path / "fifo")
    assert file_digest(tmp_path / "fifo") == ""  # opened without blocking, matches no digest
    (tmp_path / "link").symlink_to(tmp_path / "abc")
    with pytest.raises(OSError):
        file_digest(tmp_path / "link")


@pytest.mark.parametrize(
    ("path", "safe"),
    [
        ("index.html", True),
        ("assets/plotly.min.js", True),
        ("a b.html", True),
        ("", False),
        ("/abs", False),
        ("a//b", False),
        ("./a", False),
        ("a/..", False),
        ("a\nb", False),
        ("a\tb", False),
        ("a\x7f", False),
    ],
)
def test_the_paths_a_manifest_may_list(path, safe):
    assert safe_relative(path) is safe
    if not safe:
        with pytest.raises(ValueError):
            manifest_text(HEADER, {path: ABC})
