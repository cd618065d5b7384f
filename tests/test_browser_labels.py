"""The audit's Labels section (issue 22; docs/conventions.md section 25.10) in a real browser: at
1,400 px, at 390 px and on A4 paper, with the helpers and the browser of tests/test_browser.py (which
skips this module too where Chromium or playwright is missing)."""

from __future__ import annotations

import pytest
from test_browser import A4_WIDTH, SCREENSHOTS, Visit, _fits, _fits_its_boxes, browser  # noqa: F401 (a fixture)

from ragreport.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    from sitetools import audit_qrels, new_user_inputs

    root = tmp_path_factory.mktemp("audited")
    args = new_user_inputs(root, queries=120)
    audit = audit_qrels(root, 30)
    site = root / "site"
    assert (
        main(
            [
                "build",
                *args,
                "--audit",
                str(audit),
                "--resamples",
                "200",
                "--permutations",
                "500",
                "--out",
                str(site),
                "--quiet",
            ]
        )
        == 0
    )
    return site


@pytest.mark.parametrize("width", (1400, 390, "print"))
@pytest.mark.parametrize("page_name", ["index.html", "run-bm25-rerun.html"])
def test_the_labels_section_fits_every_width_and_paper(browser, audited, page_name, width):  # noqa: F811
    printed = width == "print"
    visit = Visit(
        browser, audited / page_name, width=A4_WIDTH if printed else width, height=844 if width == 390 else 900
    )
    page = visit.page
    visit.charts(page.locator(".chart").count())
    if printed:
        page.emulate_media(media="print")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    page.wait_for_timeout(300)
    section = page.locator("#labels" if page_name == "index.html" else "section.labels")
    assert section.count() == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SCREENSHOTS / f"labels-{page_name[:-5]}-{width}.png"))
    _fits(page) if printed else _fits_its_boxes(page)  # paper does not scroll: every box is open
    # nothing of the section reaches past the window (or the paper), nothing scrolls inside it
    inner = A4_WIDTH if printed else width
    wide = page.evaluate(
        "(w) => Array.from(document.querySelectorAll('section.labels *')).filter(e => e.getClientRects().length && "
        "e.getBoundingClientRect().right > w + 1).map(e => [e.tagName, e.className])",
        inner,
    )
    assert wide == []
    boxes = page.evaluate(
        "Array.from(document.querySelectorAll('section.labels .scroll')).map(b => [b.scrollWidth, b.clientWidth])"
    )
    assert boxes and all(s <= c + 1 for s, c in boxes), boxes
    if page_name == "index.html":
        # the heat map's counts are its text, on screen and on paper, and each shaded cell keeps its shade
        cells = page.evaluate(
            "Array.from(document.querySelectorAll('table.heatmap td.heat')).map(c => "
            "[c.textContent.trim(), getComputedStyle(c).backgroundColor, getComputedStyle(c).color, c.className])"
        )
        assert cells and all(text for text, *_ in cells)
        for _, background, colour, css in cells:
            if "shade-0" not in css:
                assert background != colour and background not in ("rgba(0, 0, 0, 0)", "transparent"), css
        links = page.evaluate(
            "Array.from(document.querySelectorAll('.site-header nav a')).map(a => a.getAttribute('href'))"
        )
        assert "index.html#labels" in links or printed  # paper hides the navigation
    visit.assert_clean()
