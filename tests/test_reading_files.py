"""reading.files: gzip whatever the name, UTF-8 with the line of a bad byte, files that are not there."""

from __future__ import annotations

import gzip
import json

import pytest

from ragreport.core.errors import InputError
from ragreport.reading.files import data_lines, decode_text, read_text, split_fields, stem
from ragreport.reading.registry import detect_format, load_runs


def test_gzip_is_read_whatever_the_extension(write, tmp_path):
    text = json.dumps({"id": "a", "retrieved": ["d1"], "relevant": ["d1"]}) + "\n"
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "other").write_bytes(gzip.compress(text.encode()))
    assert read_text(tmp_path / "run.jsonl.gz") == text
    assert detect_format(tmp_path / "run.jsonl.gz", text) == "jsonl"
    assert load_runs([tmp_path / "other"])[0].run.name == "other"


def test_gzip_that_is_cut_short(tmp_path):
    (tmp_path / "run.gz").write_bytes(gzip.compress(b"q1 Q0 d1 1 1 t\n" * 100)[:30])
    with pytest.raises(InputError, match="run.gz: expected a complete gzip file"):
        read_text(tmp_path / "run.gz")


def test_a_gz_name_without_gzip_data(tmp_path):
    (tmp_path / "run.txt.gz").write_text("q1 Q0 d1 1 1 t\n")
    with pytest.raises(InputError, match=r"run.txt.gz: expected gzip data \(the name ends in .gz\)"):
        read_text(tmp_path / "run.txt.gz")


def test_text_that_is_not_utf8(tmp_path):
    (tmp_path / "run.txt").write_bytes(b"q1 Q0 d1 1 1 t\nq1 Q0 \xff 2 1 t\n")
    with pytest.raises(InputError, match=r"run.txt:2: expected UTF-8 text, got byte 0xff"):
        read_text(tmp_path / "run.txt")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.txt: expected a readable file, got no such file"):
        load_runs([tmp_path / "nope.txt"])


def test_a_byte_order_mark_is_dropped(tmp_path):
    (tmp_path / "run.txt").write_bytes(b"\xef\xbb\xbfq1 Q0 d1 1 1 t\n")
    assert read_text(tmp_path / "run.txt") == "q1 Q0 d1 1 1 t\n"


def test_data_lines_skip_blanks_and_comments_and_split_only_at_newlines():
    text = '# head\n\n  \t\na b\r\n{"q": "x\u2028y"}\n'
    assert list(data_lines(text)) == [(4, "a b"), (5, '{"q": "x\u2028y"}')]
    assert split_fields("q1\u00a0x Q0\td1") == ["q1\u00a0x", "Q0", "d1"]  # a no-break space is part of an id


@pytest.mark.parametrize(
    "name, expected",
    [("run.trec", "run"), ("run.trec.gz", "run"), ("run", "run"), (".hidden", ".hidden"), ("a.b.jsonl", "a.b")],
)
def test_a_run_is_named_by_its_file_stem(tmp_path, name, expected):
    assert stem(tmp_path / name) == expected


@pytest.mark.parametrize("raw, line", [(b"a\rb\n", 1), (b"a\r\nb\r\nc\rd", 3), (b"a\nb\n\r", 3)])
def test_a_cr_alone_is_refused_with_its_line(tmp_path, raw, line):
    (tmp_path / "f").write_bytes(raw)
    with pytest.raises(InputError, match=rf"f:{line}: expected lines ending in LF or CRLF, got a CR alone"):
        read_text(tmp_path / "f")


def test_decode_text_counts_lines_from_where_the_bytes_start_and_keeps_an_inner_bom(tmp_path):
    with pytest.raises(InputError, match=r"f:12: expected lines ending in LF or CRLF"):
        decode_text(tmp_path / "f", b"a\nb\rc", lines_before=10, at_start=False)
    assert decode_text(tmp_path / "f", "\ufeffa\n".encode(), at_start=False) == "\ufeffa\n"
    assert decode_text(tmp_path / "f", "\ufeffa\r\n".encode()) == "a\r\n"


def test_special_files_are_refused_before_they_are_opened(tmp_path):
    import os

    from ragreport.reading.files import raw_bytes, special_kind

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "plain").write_text("x")
    assert special_kind(tmp_path / "fifo") == "a FIFO (named pipe)"
    assert special_kind("/dev/zero") == "a character device"
    assert special_kind(tmp_path / "plain") is None and special_kind(tmp_path) is None
    assert special_kind(tmp_path / "missing") is None  # opening it says so
    (tmp_path / "link").symlink_to(tmp_path / "fifo")
    assert special_kind(tmp_path / "link") == "a FIFO (named pipe)"  # links are followed
    # a FIFO nobody writes to: opened, this would block forever
    with pytest.raises(InputError, match=r"fifo: expected a regular file, got a FIFO \(named pipe\)$"):
        raw_bytes(tmp_path / "fifo")
    with pytest.raises(InputError, match="^/dev/zero: expected a regular file, got a character device$"):
        read_text("/dev/zero")


def test_read_text_refuses_more_than_its_limit_gzip_unpacked_too(tmp_path):
    (tmp_path / "small.toml").write_text("a" * 10)
    assert read_text(tmp_path / "small.toml", 10) == "a" * 10
    with pytest.raises(InputError, match=r"small.toml: expected a file of at most 9 bytes, got a larger one"):
        read_text(tmp_path / "small.toml", 9)
    (tmp_path / "bomb.toml").write_bytes(gzip.compress(b"#" * 2_000_000))  # 2 KB packed, 2 MB unpacked
    with pytest.raises(InputError, match=r"expected a file of at most 1,048,576 bytes"):
        read_text(tmp_path / "bomb.toml", 1 << 20)
