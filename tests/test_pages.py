"""Page data: formats, ids from content, slugs, and JSON that cannot break out of its element."""

from __future__ import annotations

import json

from ragreport.output.pages import content_id, script_json
from ragreport.output.present import decimal
from ragreport.output.view import slug


def test_three_decimals_and_missing_values():
    assert decimal(0.5) == "0.500" and decimal(float("nan")) == "n/a" and decimal(None) == "n/a"


def test_script_json_cannot_close_its_element():
    text = str(script_json({"id": "</script><script>alert(1)</script> & <!--"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"id": "</script><script>alert(1)</script> & <!--"}


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
