"""Notes are Markdown rendered and reduced to an allowlist."""

from __future__ import annotations

import pytest

from ragreport.output.site.sanitize import render_notes, sanitize_html


def test_markdown_formatting_survives():
    html = render_notes("# Title\n\nSome **bold**, `code` and [a link](https://example.org).\n\n- one\n- two\n")
    assert "<h4>Title</h4>" in html and "<strong>bold</strong>" in html and "<code>code</code>" in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">a link</a>' in html
    assert "<ul>" in html and "<li>one</li>" in html


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "</script><script>alert(1)</script>",
        "<iframe src=https://evil.example></iframe>",
        "<style>body{display:none}</style>",
        '<a href="javascript:alert(1)">x</a>',
        '<a href="JaVaScRiPt:alert(1)">x</a>',
        '<a href="jav&#x09;ascript:alert(1)">x</a>',
        '<a href="data:text/html,<script>alert(1)</script>">x</a>',
        "[x](javascript:alert(1))",
        '<p onclick="alert(1)" style="color:red">p</p>',
        "<svg><script>alert(1)</script></svg>",
        '<object data="x"></object><embed src="x">',
        "![tracker](https://evil.example/pixel.png)",
        '<form action="https://evil.example"><input></form>',
    ],
)
def test_hostile_markup_is_dropped(hostile):
    html = render_notes(f"before {hostile} after")
    lowered = html.lower()
    for bad in (
        "<script",
        "onerror",
        "onclick",
        "javascript:",
        "data:",
        "<iframe",
        "<style",
        "style=",
        "<img",
        "<svg",
        "<object",
        "<embed",
        "<form",
        "<input",
        "evil.example",
    ):
        assert bad not in lowered, (hostile, html)
    assert "before" in html and "after" in html


def test_text_is_escaped_and_tags_are_balanced():
    assert sanitize_html("<p>a < b & c</p>") == "<p>a &lt; b &amp; c</p>"
    assert sanitize_html("<strong>unclosed") == "<strong>unclosed</strong>"
    assert sanitize_html("<em>x</strong></em>") == "<em>x</em>"


def test_relative_and_anchor_links_are_kept():
    assert 'href="#results"' in render_notes("[r](#results)")
    assert 'href="other.html"' in render_notes("[o](other.html)")
    assert "href" not in render_notes("[v](vbscript:msgbox)")
