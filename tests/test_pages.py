"""Page data: formats, ids from content, slugs, and JSON that cannot break out of its element."""

from __future__ import annotations

import json

from ragreport.output.site.pages import content_id, notes_html, script_json, text_node
from ragreport.output.site.view.run import slug
from ragreport.output.site.wording.numbers import decimal


def test_three_decimals_and_missing_values():
    assert decimal(0.5) == "0.500" and decimal(float("nan")) == "n/a" and decimal(None) == "n/a"


def test_script_json_cannot_close_its_element():
    text = str(script_json({"id": "</script><script>alert(1)</script> & <!--"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"id": "</script><script>alert(1)</script> & <!--"}


def test_a_text_node_escapes_markup_and_keeps_its_quotes():
    assert str(text_node('the run\'s <b> & "x"')) == 'the run\'s &lt;b&gt; &amp; "x"'


def test_notes_are_rendered_sanitised_or_absent():
    assert notes_html(None) is None and notes_html("") is None
    html = str(notes_html("**bold** <script>alert(1)</script>"))
    assert "<strong>bold</strong>" in html and "<script" not in html


def test_ids_come_from_content():
    assert content_id("fig", {"a": 1}) == content_id("fig", {"a": 1}) != content_id("fig", {"a": 2})


def test_slugs_are_safe_and_unique():
    taken: set[str] = set()
    assert slug("bm25", taken) == "bm25"
    assert slug("bm25", taken).startswith("bm25-")
    weird = slug("<img src=x onerror=alert(1)>", taken)
    assert weird.startswith("img-src-x-onerror-alert-1-") and len(weird) <= 49
    assert slug("A/B", taken) != slug("a b", taken)
    assert slug("", taken).startswith("run-")


def test_a_slug_never_repeats_nor_lines_up_with_another_pages_ids():
    taken: set[str] = set()
    hashed = slug("a b", set())
    assert hashed == "a-b-" + __import__("hashlib").sha256(b"a b").hexdigest()[:8]
    # a clean name that spells another's hashed slug is hashed itself; a taken slug is numbered
    assert slug(hashed, taken) == hashed + "-" + __import__("hashlib").sha256(hashed.encode()).hexdigest()[:8]
    assert slug("a b", taken) == hashed
    assert slug("a b", {hashed}) == hashed + "-2"
    # names that would line up with a page id (run-S-h, S-summary, compare-S, a fixed id) are hashed
    for name in ("h", "compare", "x-h", "summary", "run-1", "x-2", "a--b", "verdict"):
        assert slug(name, set()).startswith(name.strip("-")) and slug(name, set()) != name
    for name in ("bm25", "bm25-rm3", "e5-large-v2", "colbert_v2"):
        assert slug(name, set()) == name
    assert slug("\udcff", set()).startswith("run-")  # a name from a file name that is not UTF-8
