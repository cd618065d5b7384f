"""core/escape.py: which characters are shown as escapes, and how (hand-written expectations)."""

from __future__ import annotations

from ragreport.core.errors import InputError, one_line
from ragreport.core.escape import BIDI_CONTROLS, field, visible


def test_controls_and_bidi_become_python_style_escapes():
    assert visible("a\x1b[31mb") == "a\\x1b[31mb"
    assert visible("x\u202ey") == "x\\u202ey"
    assert visible("a\nb\tc\x7f\x85\u2028") == "a\\x0ab\\x09c\\x7f\\x85\\u2028"
    assert [visible(c) for c in BIDI_CONTROLS] == [f"\\u{ord(c):04x}" for c in BIDI_CONTROLS]


def test_ordinary_text_is_left_alone():
    text = "café – 東京 \u00a0 ✓ 😀 \\x1b"  # a no-break space and a literal backslash are not controls
    assert visible(text) == text
    assert field("d\u00a0x") == "d\u00a0x"


def test_keep_newlines_for_a_whole_output():
    assert visible("line 1\nline\x002\n", keep_newlines=True) == "line 1\nline\\x002\n"


def test_a_field_also_shows_the_ascii_blanks():
    assert field("q 1\tx\r\n") == "q\\x201\\x09x\\x0d\\x0a"


def test_an_error_is_one_line_whatever_the_file_name():
    error = InputError("two\nlines.trec", 3, "a score", "'x'")
    assert str(error) == "two\\x0alines.trec:3: expected a score, got 'x'"
    assert one_line("a\nb\u202ec") == "a\\x0ab\\u202ec"
