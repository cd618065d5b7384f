"""The built site in a real browser: headless Chromium opens it from file:// with the network off.

Needs Debian's ``chromium`` and the ``playwright`` package (a test dependency; it drives the
system Chromium, it downloads no browser). Outside CI a missing Chromium skips these tests; in CI
(``CI`` set) it is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from sitetools import FOUR_RUNS, INJECTIONS, four_trec_runs, second_sample_run

from ragreport.cli import main
from ragreport.scoring.catalogue import COMPARED, NDCG, RECALL, SUITE

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None

if CHROMIUM is None or sync_playwright is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must run the browser tests: install Debian's chromium and the playwright package")
    pytest.skip("Chromium or playwright is not installed (CI installs both)", allow_module_level=True)

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
]
WATCH_CSP = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def wait_until(page, expression: str, timeout: float = 15.0) -> None:
    """Poll ``expression`` with ``page.evaluate`` until it is true. Playwright's
    ``wait_for_function`` polls a string by evaluating it inside the page, which the report's
    Content-Security-Policy (no 'unsafe-eval') refuses whenever the first check is false."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


class Visit:
    """One page opened offline, with its console, requests, dialogs and CSP violations recorded."""

    def __init__(self, browser, path: Path | str, width: int = 1200, color_scheme: str = "light", height: int = 900):
        # a file opens offline; an http:// address (a history served from a sub-path) needs the network
        served = isinstance(path, str)
        self.context = browser.new_context(
            viewport={"width": width, "height": height},
            offline=not served,
            java_script_enabled=True,
            color_scheme=color_scheme,
        )
        self.context.add_init_script(WATCH_CSP)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.console: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.origin = "/".join(path.split("/")[:3]) + "/" if isinstance(path, str) else "file:"
        self.page.goto(path if isinstance(path, str) else path.resolve().as_uri())
        self.page.wait_for_load_state("load")

    def charts(self, count: int) -> list[tuple[int, int]]:
        """Wait for ``count`` plotly charts; return (traces given, traces drawn) for each."""
        wait_until(self.page, f"document.querySelectorAll('.js-plotly-plot').length >= {count}")
        return [
            tuple(pair)
            for pair in self.page.evaluate(
                "Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => "
                "[gd.data.length, gd.querySelectorAll('.cartesianlayer g.trace').length])"
            )
        ]

    def hover_first_point(self) -> str:
        """Move the mouse onto the first mean marker of the first chart; return the hover label."""
        point = self.page.locator(".js-plotly-plot .scatterlayer .trace .point").first
        point.scroll_into_view_if_needed()
        box = point.bounding_box()
        self.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        self.page.wait_for_selector(".hoverlayer .hovertext")
        return self.page.evaluate("document.querySelector('.hoverlayer').textContent")

    def rows(self, scope: str = "") -> list[str]:
        return self.page.eval_on_selector_all(
            f"{scope} table.queries tbody > tr:not(.detail) > th", "cells => cells.map(c => c.textContent)"
        )

    def assert_clean(self):
        assert self.console == [], self.console
        assert self.page.evaluate("window.__csp") == []
        assert [u for u in self.requests if not u.startswith((self.origin, "data:"))] == []
        assert self.dialogs == []
        self.context.close()


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    assert main(["build", "--out", str(root / "site"), "--single-file", str(root / "one.html"), "--quiet"]) == 0
    return root


def test_index_chart_renders_and_the_metric_selector_switches(browser, sample_site):
    visit = Visit(browser, sample_site / "site" / "index.html")
    # the headline's forest plot (one dot with its band), then the K sweep: every metric's band and
    # mean, one metric shown at a time
    assert visit.charts(2) == [(1, 1), (2 * len(SUITE), 2)]
    sweep = "document.querySelector('#sweep .js-plotly-plot')"

    def shown():
        return visit.page.evaluate(f"{sweep}.data.map((t, i) => t.visible === true ? i : -1).filter(i => i >= 0)")

    at = 2 * SUITE.index(NDCG)
    assert shown() == [at, at + 1]  # the primary metric first: nDCG's band and mean
    visit.page.click("#sweep .updatemenu-header-group")
    visit.page.locator("#sweep .updatemenu-dropdown-button", has_text=re.compile(r"^R@K$")).click()
    wait_until(visit.page, f"{sweep}.data[{2 * SUITE.index(RECALL) + 1}].visible === true")
    at = 2 * SUITE.index(RECALL)
    assert shown() == [at, at + 1]  # Recall's band and mean
    assert "Hit@5" in visit.page.inner_text("#suite") and "0.778" in visit.page.inner_text("#suite")
    visit.assert_clean()


def test_the_headline_is_on_the_first_screen(browser, sample_site):
    visit = Visit(browser, sample_site / "site" / "index.html", width=1400)
    visit.charts(2)
    box = visit.page.locator("#headline").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 900  # sentence and forest plot, unscrolled
    assert visit.page.locator("#headline .headline-sentence").first.inner_text().startswith("sample scores ")
    assert visit.page.locator("#suite").bounding_box()["y"] > box["y"]
    visit.assert_clean()


def test_run_page_chart_table_sort_filter_and_expand(browser, sample_site):
    visit = Visit(browser, sample_site / "site" / "run-sample.html")
    assert visit.charts(1) == [(2 * len(SUITE), 2 * len(SUITE))]
    label = visit.hover_first_point()
    assert "P@1: 0.556" in label and "bootstrap band" in label
    page = visit.page
    assert visit.rows() == [f"q{i:02d}" for i in range(1, 11)]

    headers = page.eval_on_selector_all("thead th[data-col]", "cells => cells.map(c => c.textContent.trim())")
    assert headers[:3] == ["id", "status", "nDCG@5"]  # the id, the status and the primary metric first
    recall = f"th[data-col='{headers.index('R@5')}']"
    page.click(f"{recall} button")  # R@5, ascending: zeros first, excluded (null) last
    assert visit.rows()[:2] == ["q03", "q06"] and visit.rows()[-1] == "q08"
    assert page.get_attribute(recall, "aria-sort") == "ascending"
    page.click(f"{recall} button")
    assert visit.rows()[0] == "q01" and visit.rows()[-1] == "q08"
    assert page.get_attribute(recall, "aria-sort") == "descending"

    page.select_option("select[name=status]", label="partial (2)")
    assert sorted(visit.rows()) == ["q04", "q09"]
    page.select_option("select[name=status]", value="")
    page.fill("input[name=id]", "q1")
    assert visit.rows() == ["q10"]
    assert "Rows 1–1 of 1 (filtered from 10)" in page.inner_text(".where")

    page.click("button.expand[aria-label='Show the top 5 for query q10']")
    marks = page.eval_on_selector_all("tr.detail tbody tr td[class^=mark-]", "cells => cells.map(c => c.textContent)")
    assert marks == ["relevant", "repeat", "relevant", "judged non-relevant", "unjudged"]
    assert page.get_attribute("button.expand", "aria-expanded") == "true"
    page.fill("input[name=id]", "")
    assert len(visit.rows()) == 10 and page.locator("tr.detail").count() == 1  # q10 stays open
    visit.assert_clean()


def test_single_file_works_on_its_own(browser, sample_site):
    # Offline, under the page's own policy: the packed plotly.js is unpacked, admitted by its hash
    # (no violation recorded, no eval), and the charts are drawn once it has run.
    visit = Visit(browser, sample_site / "one.html")
    traces = 2 * len(SUITE)  # a band and a mean per metric
    assert visit.charts(3) == [(1, 1), (traces, 2), (traces, traces)]  # the forest plot first
    installed = (resources.files("plotly") / "package_data" / "plotly.min.js").read_text("utf-8")
    assert "plotly.js v" + visit.page.evaluate("window.Plotly.version") in installed[:300]
    assert visit.page.evaluate("document.querySelectorAll('.chart-missing').length") == 0
    assert "unsafe-eval" not in visit.page.get_attribute("meta[http-equiv=Content-Security-Policy]", "content")
    assert len(visit.rows("#run-sample")) == 10
    visit.page.click("a[href='#run-sample']")
    assert visit.page.evaluate("location.hash") == "#run-sample"
    visit.assert_clean()


def test_single_file_says_so_in_place_of_each_chart_without_decompression_stream(browser, sample_site):
    context = browser.new_context(offline=True)
    context.add_init_script("delete window.DecompressionStream;" + WATCH_CSP)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.goto((sample_site / "one.html").resolve().as_uri())
    wait_until(page, "document.querySelectorAll('.chart-missing').length >= 3")
    holders = page.eval_on_selector_all("[data-figure]", "hs => hs.map(h => h.textContent)")
    assert len(holders) == 3 and all("newer browser" in t and "DecompressionStream" in t for t in holders)
    assert page.evaluate("typeof window.Plotly") == "undefined"
    assert errors == [] and page.evaluate("window.__csp") == []
    context.close()


def test_hostile_inputs_stay_text_in_the_browser(browser, tmp_path):
    bad, close = INJECTIONS
    line = {"id": bad, "query": close, "retrieved": [bad, "ok"], "relevant": {bad: 1}}
    run = tmp_path / "hostile.jsonl"
    run.write_text(json.dumps(line) + "\n")
    (tmp_path / "hostile.meta.toml").write_text(f"name = {json.dumps(bad)}\nnotes = {json.dumps(bad + close)}\n")
    assert main(["build", str(run), "--out", str(tmp_path / "site"), "--quiet"]) == 0
    for page_path in sorted((tmp_path / "site").glob("*.html")):
        if page_path.name == "queries.html":  # no chart; its hostile text is checked in the query view's test
            continue
        visit = Visit(browser, page_path)
        visit.charts(1)
        assert bad in visit.page.inner_text("main")
        assert visit.page.evaluate("document.querySelectorAll('main img, main iframe').length") == 0
        # The name shows as text in the chart: the run chart's title, the index chart's legend and hover.
        assert bad in visit.page.evaluate("document.querySelector('.js-plotly-plot').textContent")
        hover = visit.hover_first_point()
        assert bad in hover if page_path.name == "index.html" else "P@1: 1.000" in hover
        visit.assert_clean()


def test_a_large_run_is_paged_not_a_huge_dom(browser, tmp_path):
    lines = [
        json.dumps({"id": f"q{i:05d}", "retrieved": [f"d{i}", "x"], "relevant": [f"d{i % 3 * i}"]}) for i in range(3000)
    ]
    run = tmp_path / "large.jsonl"
    run.write_text("\n".join(lines) + "\n")
    assert main(["build", str(run), "--out", str(tmp_path / "site"), "--quiet", "--resamples", "100"]) == 0
    visit = Visit(browser, tmp_path / "site" / "run-large.html")
    visit.charts(1)
    assert len(visit.rows()) == 50
    assert visit.page.inner_text(".where") == "Rows 1–50 of 3,000"
    visit.page.click("button[data-page=next]")
    assert visit.rows()[0] == "q00050"
    assert visit.page.evaluate("document.querySelectorAll('table.queries tr').length") <= 52
    visit.assert_clean()


def test_narrow_screen_has_no_console_errors(browser, sample_site):
    visit = Visit(browser, sample_site / "site" / "index.html", width=390)
    visit.charts(1)
    assert visit.page.evaluate("getComputedStyle(document.querySelector('table.suite thead')).display") == "none"
    visit.assert_clean()


def test_comparison_view_draws_its_charts(browser, tmp_path):
    from ragreport.reading.registry import sample_path

    second = second_sample_run(tmp_path)
    assert main(["build", str(sample_path()), str(second), "-k", "5", "--out", str(tmp_path / "site"), "--quiet"]) == 0
    visit = Visit(browser, tmp_path / "site" / "index.html")
    charts = visit.charts(3)
    titles = visit.page.evaluate(
        "Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => gd.layout.title.text)"
    )
    drawn = dict(zip(titles, charts))  # run names isolated in the titles (FSI ... PDI)
    assert drawn["Per query at K = 5: \u2068sample-reversed\u2069 against \u2068sample\u2069"] == (len(COMPARED), 1)
    assert drawn["Queries won, tied and lost by \u2068sample-reversed\u2069"] == (3, 3)
    assert drawn["K sweep of every run, one metric at a time"] == (4 * len(SUITE), 4)
    point = visit.page.locator(".chart-scatter .scatterlayer .trace .point").first
    point.scroll_into_view_if_needed()
    box = point.bounding_box()
    visit.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    visit.page.wait_for_selector(".chart-scatter .hoverlayer .hovertext")
    label = visit.page.evaluate("document.querySelector('.chart-scatter .hoverlayer').textContent")
    assert label.startswith("q") and "sample:" in label and "sample-reversed:" in label
    assert visit.page.locator("table.comparison tbody tr").count() == len(COMPARED)
    visit.assert_clean()


# --- Layout: four runs of 300 TREC queries at a laptop's, a small laptop's and a phone's width --------

WIDTHS = (1400, 1024, 390)
#: Where the layout tests leave their screenshots for a person to look at.
SCREENSHOTS = Path(os.environ.get("RAGREPORT_SCREENSHOTS") or Path(tempfile.gettempdir()) / "ragreport-screenshots")
RUN_PAGE = f"run-{FOUR_RUNS[2]}.html"

#: Each chart's box, the bottom of what plotly drew in it, and the top of the next thing on the page.
CHART_BOXES = """
Array.from(document.querySelectorAll('.chart')).map(chart => {
  const box = chart.getBoundingClientRect();
  const svgs = Array.from(chart.querySelectorAll('svg.main-svg')).map(svg => svg.getBoundingClientRect());
  const drawn = Math.max(box.top, ...svgs.map(r => r.bottom));
  const wide = Math.max(box.left, ...svgs.map(r => r.right));
  let node = chart, next = null;
  while (node && !next) {
    let sibling = node.nextElementSibling;
    while (sibling && (sibling.tagName === 'SCRIPT' || !sibling.getClientRects().length)) {
      sibling = sibling.nextElementSibling;
    }
    next = sibling;
    node = node.parentElement;
  }
  return {id: chart.id, bottom: box.bottom, drawn: drawn, right: box.right, wide: wide,
          next: next ? next.getBoundingClientRect().top : null};
})
"""


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("four-runs")
    qrels, runs = four_trec_runs(root)
    (root / f"{FOUR_RUNS[2]}.meta.toml").write_text(
        'notes = """\n## Training data\n\nTrained on MS MARCO passages only.\n"""\n'
    )
    site = root / "site"
    # Absolute paths: nothing of them may reach the site.
    assert (
        main(
            ["build", *(str(r.resolve()) for r in runs), "--qrels", str(qrels.resolve()), "--out", str(site), "--quiet"]
        )
        == 0
    )
    return site


def _no_overlap(page) -> None:
    for chart in page.evaluate(CHART_BOXES):
        assert chart["drawn"] <= chart["bottom"] + 1, chart  # the figure stays in its box
        assert chart["wide"] <= chart["right"] + 1, chart  # and fits its width (nothing cut off)
        if chart["next"] is not None:
            assert chart["bottom"] <= chart["next"] + 1, chart  # the box ends before what follows


def _fits(page) -> None:
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_name", ["index.html", RUN_PAGE])
def test_four_runs_fit_the_width_before_and_after_a_resize(browser, four_runs, page_name, width):
    visit = Visit(browser, four_runs / page_name, width=width)
    page = visit.page
    visit.charts(page.locator(".chart").count())
    page.wait_for_timeout(200)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{page_name[:-5]}-{width}.png"), full_page=True)
    _fits(page)
    _no_overlap(page)
    # Run names are never broken mid-word: each name's text sits on one line (the header row, hidden
    # where the tables become cards, aside).
    lines = page.eval_on_selector_all(
        "table.suite-matrix th.name, table.delta-matrix th.name",
        "cells => cells.filter(c => c.checkVisibility()).map(c => { const r = document.createRange(); r.selectNodeContents(c); "
        "return [c.textContent.trim(), new Set(Array.from(r.getClientRects()).filter(x => x.width > 0)"
        ".map(x => Math.round(x.bottom))).size]; })",
    )
    assert lines and all(n == 1 for _, n in lines), lines
    for other in (w for w in (*WIDTHS, width) if w != width):
        page.set_viewport_size({"width": other, "height": 900})
        page.wait_for_timeout(400)  # the script's resize settles after 60 ms
        _fits(page)
        _no_overlap(page)
    visit.assert_clean()


#: A laptop's and a tablet's first screen, and a phone's (390 x 844, an iPhone 12 to 15).
FIRST_SCREENS = {1400: 900, 1024: 900, 390: 844}


@pytest.fixture(scope="module")
def four_runs_caveats(tmp_path_factory):
    """Four runs on 30 queries with half the judgments left out: each verdict carries a caveat (an
    unjudged reading that changes it, or a difference too small for 30 queries to show)."""
    import random

    root = tmp_path_factory.mktemp("four-runs-caveats")
    qrels, runs = four_trec_runs(root, queries=30)
    rng = random.Random(3)
    qrels.write_text("".join(line + "\n" for line in qrels.read_text().splitlines() if rng.random() < 0.5))
    site = root / "site"
    assert main(["build", *map(str, runs), "--qrels", str(qrels), "--out", str(site), "--quiet"]) == 0
    return site


#: Words a manager does not use, kept off the first screen (issue 38): they stay in the details.
JARGON = ("condensed", "corrected p", "power", "slots", "holm", "bootstrap", "exit status")


@pytest.mark.parametrize("width", WIDTHS)
def test_four_runs_decision_and_forest_plot_on_the_first_screen(browser, four_runs_caveats, width):
    visit = Visit(browser, four_runs_caveats / "index.html", width=width, height=FIRST_SCREENS[width])
    page = visit.page
    visit.charts(page.locator(".chart").count())
    page.wait_for_timeout(200)
    for selector in ("#headline .summary-line", "table.run-lines tbody tr", "figure.forest .js-plotly-plot"):
        boxes = [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]
        assert boxes and all(b["y"] + b["height"] <= FIRST_SCREENS[width] for b in boxes), (selector, boxes)
    # One line a run, best first, the baseline among them; the full sentences wait behind "details".
    names = page.locator("table.run-lines tbody th").all_inner_texts()
    assert sorted(names) == sorted(FOUR_RUNS), names
    assert not page.locator("#headline .headline-sentence").first.is_visible()
    caveats = page.locator("#headline .first-caveats li").all_inner_texts()
    assert len(caveats) == 3 and all(len(line) <= 160 for line in caveats), caveats
    shown = page.locator("#headline").inner_text().lower()  # what is rendered: not the closed details
    assert "clearly" in shown and not [word for word in JARGON if word in shown], shown
    page.locator("details.headline-details > summary").click()
    assert page.locator("#headline .headline-sentence").first.is_visible()
    # Every run name of the forest plot is drawn: on the axis when wide, above its row on a phone.
    drawn = page.evaluate(
        "Array.from(document.querySelectorAll('figure.forest .ytick text, figure.forest "
        ".annotation-text')).map(t => t.textContent)"
    )
    assert set(FOUR_RUNS[1:]) <= set(drawn), drawn
    visit.assert_clean()


def test_four_runs_suite_and_comparison_are_matrices(browser, four_runs):
    visit = Visit(browser, four_runs / "index.html", width=1400)
    page = visit.page
    names = page.eval_on_selector_all("table.suite-matrix tbody th.name", "cells => cells.map(c => c.textContent)")
    assert names == list(FOUR_RUNS)
    marks = page.eval_on_selector_all("table.suite-matrix td .mark", "cells => cells.map(c => c.textContent)")
    assert set(marks) == {"▲", "▼"}  # the test runs hold a clearly better and a clearly worse run
    assert page.locator("table.suite-matrix td.best").count() >= 8  # one or more per column
    assert page.eval_on_selector_all("table.delta-matrix tbody th.name", "c => c.map(x => x.textContent)") == list(
        FOUR_RUNS[1:]
    )
    # At 1,400 px both matrices fit in their box: nothing to scroll to.
    for table in ("table.suite-matrix", "table.delta-matrix"):
        assert page.evaluate(
            f"document.querySelector('{table}').parentElement.scrollWidth <= "
            f"document.querySelector('{table}').parentElement.clientWidth"
        )
    visit.assert_clean()


def test_four_runs_per_query_table_scrolls_in_its_box_without_an_empty_column(browser, four_runs):
    visit = Visit(browser, four_runs / RUN_PAGE, width=390)
    page = visit.page
    headers = page.eval_on_selector_all("table.queries thead th", "cells => cells.map(c => c.textContent.trim())")
    assert "query" not in headers and "nDCG@10" in headers and "CP@10" in headers  # TREC input has no query text
    box = page.evaluate(
        "(() => { const b = document.querySelector('table.queries').parentElement; "
        "return [b.scrollWidth, b.clientWidth, getComputedStyle(b).overflowX]; })()"
    )
    assert box[0] > box[1] and box[2] == "auto"  # wider than a phone: it scrolls in its own box
    page.evaluate("document.querySelector('table.queries').parentElement.scrollLeft = 400")
    stuck = page.evaluate(
        "(() => { const b = document.querySelector('table.queries').parentElement; "
        "const id = document.querySelector('table.queries tbody th'); "
        "return [id.getBoundingClientRect().left, b.getBoundingClientRect().left]; })()"
    )
    assert abs(stuck[0] - stuck[1]) <= 2, stuck  # the id column stays in view
    visit.assert_clean()


def test_four_runs_pairwise_matrix_scrolls_in_its_box_with_a_cue(browser, four_runs):
    """At 390 px the pairwise matrix is wider than the phone: it scrolls in its own box, the run
    column held and the "More columns" button shown until the last column is in view; at 1,400 px
    it fits and the button stays hidden (docs/conventions.md section 27)."""
    state = (
        "(() => { const b = document.querySelector('#pairs .table-box'); "
        "const run = document.querySelector('#pairs tbody th'); "
        "return {wide: b.scrollWidth, shown: b.clientWidth, cue: !document.querySelector('#pairs .scroll-cue').hidden, "
        "stuck: run.getBoundingClientRect().left - b.getBoundingClientRect().left}; })()"
    )
    visit = Visit(browser, four_runs / "index.html", width=390)
    page = visit.page
    assert page.locator("#pairs table.pair-matrix tbody tr").count() == 4
    before = page.evaluate(state)
    assert before["wide"] > before["shown"] and before["cue"], before
    page.evaluate("document.querySelector('#pairs .table-box').scrollLeft = 10000")
    wait_until(page, "document.querySelector('#pairs .scroll-cue').hidden")
    after = page.evaluate(state)
    assert not after["cue"] and abs(after["stuck"]) <= 2, after  # the run column stays in view
    _fits(page)
    visit.assert_clean()
    wide = Visit(browser, four_runs / "index.html", width=1400)
    assert wide.page.evaluate(state)["cue"] is False
    wide.assert_clean()


def test_four_runs_print_keeps_every_run_verdict_and_convention(browser, four_runs):
    for page_name in ("index.html", RUN_PAGE):
        visit = Visit(browser, four_runs / page_name, width=720)  # about an A4 page's width
        page = visit.page
        visit.charts(1)
        page.emulate_media(media="print")
        page.wait_for_timeout(200)
        shown = page.evaluate(
            """(selector) => Array.from(document.querySelectorAll(selector)).map(e => {
            const r = e.getBoundingClientRect();
            let clipped = false;
            for (let p = e.parentElement; p; p = p.parentElement) {
              const q = p.getBoundingClientRect(), o = getComputedStyle(p).overflowX;
              if (o !== 'visible' && (r.right > q.right + 1 || r.left < q.left - 1)) { clipped = true; }
            }
            return [e.textContent.trim(), e.checkVisibility(), r.right <= window.innerWidth + 1 && !clipped];
        })""",
            "table.suite-matrix th.name, table.suite td.convention, table.suite td.mono, "
            "table.comparison td.verdict, table.comparison th, table.suite-matrix td.figure, table.scored th",
        )
        assert shown and all(visible and inside for _, visible, inside in shown), [
            s for s in shown if not (s[1] and s[2])
        ][:5]
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        page.wait_for_timeout(200)
        widths = page.evaluate(
            "Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => "
            "[gd.getBoundingClientRect().right, ...Array.from(gd.querySelectorAll('svg.main-svg'))"
            ".map(svg => svg.getBoundingClientRect().right)])"
        )
        assert widths and all(max(w[1:]) <= w[0] + 1 for w in widths), widths  # each chart fits its box on paper
        texts = {text for text, _, _ in shown}
        if page_name == "index.html":
            assert set(FOUR_RUNS) <= texts
            verdicts = page.locator("table.comparison td.verdict").count()
            assert verdicts == 3 * len(COMPARED)  # every run but the baseline, every compared metric
        else:
            assert FOUR_RUNS[2] in texts
            note = page.locator("p.print-only")
            assert note.is_visible() and "report.json holds all 300" in note.inner_text()
            assert len(visit.rows()) == 300  # on paper, every row (beforeprint was sent above)
            page.evaluate("window.dispatchEvent(new Event('afterprint'))")
            assert len(visit.rows()) == 50
        page.pdf(path=str(SCREENSHOTS / f"{page_name[:-5]}.pdf")) if SCREENSHOTS.is_dir() else None
        visit.assert_clean()


def _whiteish(colour: str) -> bool:
    channels = [int(float(v)) for v in re.findall(r"[\d.]+", colour)[:3]]
    return len(channels) == 3 and min(channels) > 200


@pytest.mark.parametrize("page_name", ["index.html", RUN_PAGE])
def test_four_runs_dark_mode_colours_every_axis(browser, four_runs, page_name):
    visit = Visit(browser, four_runs / page_name, width=1400, color_scheme="dark")
    visit.charts(visit.page.locator(".chart").count())
    per_plot = visit.page.evaluate("""Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
        const axes = Object.keys(gd._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k));
        return {axes: axes.map(k => [k, gd._fullLayout[k].gridcolor, gd._fullLayout[k].linecolor]),
                strokes: Array.from(gd.querySelectorAll('.gridlayer path, .zerolinelayer path'))
                  .map(p => getComputedStyle(p).stroke)};
    })""")
    assert per_plot
    for plot in per_plot:
        assert plot["axes"]
        for name, grid, line in plot["axes"]:
            assert not _whiteish(grid) and not _whiteish(line), (name, grid, line)
        assert not [s for s in plot["strokes"] if _whiteish(s)]
    if page_name == RUN_PAGE:
        assert len([a for a in per_plot[0]["axes"] if a[0].startswith("xaxis")]) == len(SUITE)  # every panel
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    visit.page.screenshot(path=str(SCREENSHOTS / f"{page_name[:-5]}-dark.png"), full_page=True)
    visit.assert_clean()


def test_four_runs_scatter_menu_clear_of_its_title_and_notes_headings_large(browser, four_runs):
    for width in (1400, 390):
        visit = Visit(browser, four_runs / "index.html", width=width)
        visit.charts(visit.page.locator(".chart").count())
        boxes = visit.page.evaluate("""Array.from(document.querySelectorAll('.js-plotly-plot')).filter(
            gd => gd.querySelector('.updatemenu-container')).map(gd => {
              const t = gd.querySelector('.g-gtitle').getBoundingClientRect();
              const m = gd.querySelector('.updatemenu-header').getBoundingClientRect();
              return [t.bottom, m.top, t.right, m.left];
        })""")
        assert boxes
        for title_bottom, menu_top, _, _ in boxes:
            assert title_bottom <= menu_top + 1, boxes
        visit.assert_clean()
    visit = Visit(browser, four_runs / RUN_PAGE)
    sizes = visit.page.evaluate(
        "[getComputedStyle(document.querySelector('.notes h5')).fontSize, "
        "getComputedStyle(document.querySelector('.notes p')).fontSize]"
    )
    assert float(sizes[0][:-2]) > float(sizes[1][:-2]), sizes
    visit.assert_clean()


def test_four_runs_site_holds_no_path_of_the_build_machine(four_runs):
    root = str(four_runs.parent.resolve())
    tmp = str(Path(tempfile.gettempdir()).resolve())
    for path in sorted(four_runs.rglob("*")):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            assert root not in text and tmp not in text, path.name
            assert str(Path.home()) not in text, path.name


# --- A history served from a sub-path (ragreport publish) ---------------------------------------


@pytest.fixture(scope="module")
def served_history(tmp_path_factory):
    from sitetools import history_inputs, publish_three, serve

    root = history_inputs(tmp_path_factory.mktemp("history"))
    publish_three(root, root / "www" / "docs" / "eval")
    server = serve(root / "www")
    yield f"http://127.0.0.1:{server.server_address[1]}/docs/eval/"
    server.shutdown()


@pytest.mark.parametrize("width", (1400, 390))
def test_a_history_served_from_a_sub_path_draws_every_trend_within_its_policy(browser, served_history, width):
    visit = Visit(browser, served_history, width=width, height=900 if width > 500 else 844)
    page = visit.page
    charts = page.locator(".chart").count()
    assert charts == len(SUITE)  # a trend per metric at K: the primary first
    drawn = visit.charts(charts)
    assert drawn[0] == (4, 4)  # nDCG@10: base and cand each a line from v1 to v2, then a point at v3
    page.wait_for_timeout(200)
    _fits(page)
    _no_overlap(page)
    # the decision on the first screen: what changed since the previous report, and the trend begins
    since = page.locator("#since").bounding_box()
    assert since["y"] + since["height"] <= (900 if width > 500 else 844)
    assert "No drift can be claimed" in page.inner_text("#since")
    assert page.evaluate("document.querySelector('.js-plotly-plot').layout.annotations[0].text") == "label set changed"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"history-{width}.png"), full_page=True)
    visit.assert_clean()  # no console error, no CSP violation, no request beyond the server


def test_a_published_report_draws_its_charts_from_the_shared_plotly(browser, served_history):
    visit = Visit(browser, served_history + "reports/v2/run-cand.html")
    visit.charts(visit.page.locator(".chart").count())
    assert any(u.endswith("/docs/eval/assets/plotly.min.js") for u in visit.requests)
    visit.page.click("text=History")
    visit.page.wait_for_url(served_history + "index.html")
    visit.assert_clean()


def test_a_history_opens_from_a_file_too(browser, served_history, tmp_path):
    from sitetools import history_inputs, publish_three

    history = publish_three(history_inputs(tmp_path), tmp_path / "eval")
    visit = Visit(browser, history / "index.html")
    visit.charts(8)
    visit.assert_clean()


def test_documents_text_in_a_top_k_is_text_in_the_browser(browser, tmp_path):
    from test_texts_site import write_inputs

    args = write_inputs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", *args, "--out", str(out)]) == 0
    visit = Visit(browser, out / "run-cand.html", width=390, height=844)
    page = visit.page
    page.fill("input[name=id]", "301")
    page.click("button.expand[aria-label='Show the top 10 for query 301']")
    detail = page.locator("tr.detail")
    assert detail.locator("td.doc .doc-title").first.inner_text() == "Paris"
    texts = detail.locator("td.doc .snippet").all_inner_texts()
    assert INJECTIONS[0] in texts  # the payload shown as text
    assert page.locator("tr.detail img").count() == 0
    detail.locator("summary").first.click()
    assert detail.locator(".full-text").first.inner_text().startswith("Paris is the capital of France.")
    box = detail.locator("table").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # the top K stays in view on a phone
    visit.assert_clean()


def _ranked(path: Path) -> dict[str, list[str]]:
    """A TREC run's lists as trec_eval ranks them: score high to low, ties by id descending."""
    lists: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, doc, _, score, _ = line.split()
        lists.setdefault(q, []).append((float(score), doc))
    ranked = {}
    for q, items in lists.items():
        by_id = sorted(items, key=lambda t: t[1], reverse=True)  # ties: id descending
        ranked[q] = [d for _, d in sorted(by_id, key=lambda t: -t[0])]  # stable: score high to low
    return ranked


def test_the_query_view_shows_each_runs_top_k_item_by_item(browser, tmp_path):
    from test_texts_site import write_inputs

    args = write_inputs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", *args, "--out", str(out), "--single-file", str(tmp_path / "one.html")]) == 0
    base, cand = _ranked(tmp_path / "base.trec"), _ranked(tmp_path / "cand.trec")
    # from a run page's per-query table, the id opens the view
    visit = Visit(browser, out / "run-cand.html")
    visit.page.click("table.queries tbody th a:text-is('301')")
    visit.page.wait_for_url("**/queries.html#q=301")
    page = visit.page
    page.wait_for_selector(".query-run")
    columns = page.locator(".query-run")
    assert columns.nth(0).locator("h4").inner_text() == "base (baseline)"  # said in words, not by CSS
    for n, expected in ((0, base["301"]), (1, cand["301"])):
        ids = columns.nth(n).locator("li.item .item-line .mono").all_inner_texts()
        assert ids == expected[:10]
    marks = columns.nth(1).locator("li.item .item-mark").all_inner_texts()
    assert marks == ["relevant (1)", "unjudged", "unjudged"]
    assert columns.nth(1).locator("li.item .move").all_inner_texts() == ["▲2", "▼1", "▼1"]
    assert columns.nth(0).locator("li.item .snippet").all_inner_texts()[0] == INJECTIONS[0]  # text, not HTML
    assert page.locator(".query-view img").count() == 0
    assert "capital cities" in page.inner_text(".query-title")
    figures = page.locator("table.query-figures tbody tr", has_text="nDCG@10").all_inner_texts()[0]
    assert "+0.500" in figures  # 1 - 1/log2(4)
    page.fill("input[name=q]", "no-such-query")
    page.click(".query-pick button")
    page.wait_for_selector(".query-body p.notice")  # the address changes, then the view follows
    assert page.inner_text(".query-body") == "No query of this report has that id."
    visit.assert_clean()
    # the single file holds the same view, opened by its address
    visit = Visit(browser, tmp_path / "one.html")
    visit.page.evaluate("window.location.hash = 'q=302'")
    visit.page.wait_for_selector(".query-run")
    assert visit.page.locator(".query-run").nth(1).locator("li.item .mono").all_inner_texts() == ["b"]
    visit.assert_clean()


def test_the_query_view_looks_up_prototype_names_as_ids(browser, tmp_path):
    # Ids such as __proto__ or valueOf were looked up on a plain object: the page threw instead of
    # opening the query or saying the id is unknown (docs/conventions.md section 23.4).
    run = "".join(f"{q} Q0 d{i} {i + 1} {1 - i / 10} r\n" for q in ("valueOf", "q1") for i in range(3))
    (tmp_path / "run.trec").write_text(run)
    (tmp_path / "qrels.txt").write_text("valueOf 0 d0 1\nq1 0 d1 1\n")
    out = tmp_path / "site"
    assert main(["build", str(tmp_path / "run.trec"), "--qrels", str(tmp_path / "qrels.txt"), "--out", str(out)]) == 0
    visit = Visit(browser, out / "queries.html")
    page = visit.page
    page.evaluate("window.location.hash = 'q=valueOf'")
    page.wait_for_selector(".query-run")
    assert "valueOf" in page.inner_text(".query-title")
    for unknown in ("__proto__", "constructor", "toString", "hasOwnProperty"):
        page.evaluate(f"window.location.hash = 'q={unknown}'")
        page.wait_for_selector(".query-body p.notice")
        assert page.inner_text(".query-body") == "No query of this report has that id."
    visit.assert_clean()


def test_a_mover_and_a_scatter_point_open_their_query(browser, tmp_path):
    from test_texts_site import write_inputs

    args = write_inputs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", *args, "--out", str(out)]) == 0
    visit = Visit(browser, out / "index.html")
    visit.charts(visit.page.locator(".chart").count())
    assert visit.page.get_attribute("table.movers tbody th a", "href") == "queries.html#q=301"
    scatter = visit.page.locator("section.per-query-view .js-plotly-plot .scatterlayer .point").first
    scatter.scroll_into_view_if_needed()
    box = scatter.bounding_box()
    visit.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    visit.page.wait_for_url("**/queries.html#q=*")
    assert visit.page.url.split("#q=")[1] in ("301", "302", "303")
    visit.page.wait_for_selector(".query-run")
    visit.assert_clean()


# --- Fits and reads (issue 25): a new user's report at every width and on paper --------------------

#: Paper: an A4 page (210 mm, 794 px at 96 dpi) less Chromium's default margins (0.4 in each side).
A4_WIDTH = 718


@pytest.fixture(scope="module")
def new_user(tmp_path_factory):
    from sitetools import new_user_inputs

    root = tmp_path_factory.mktemp("new-user")
    args = new_user_inputs(root)
    site = root / "site"
    assert main(["build", *args, "--resamples", "200", "--permutations", "500", "--out", str(site), "--quiet"]) == 0
    return site


#: Every box that scrolls sideways and is not the per-query table's: each must hold what it holds.
BOXES = """
Array.from(document.querySelectorAll('main .scroll, main .table-box')).filter(
  b => !b.querySelector('table.queries') && !b.hasAttribute('data-scroll-cue') && b.getClientRects().length).map(
  b => [b.querySelector('table') ? b.querySelector('table').className : b.className, b.scrollWidth, b.clientWidth])
"""

#: The per-query table: its first header cells, and whether each lies inside its scroll box.
FIRST_COLUMNS = """
(() => {
  const box = document.querySelector('table.queries').parentElement.getBoundingClientRect();
  return Array.from(document.querySelectorAll('table.queries thead th')).slice(1, 5).map(th => {
    const r = th.getBoundingClientRect();
    return [th.textContent.trim(), r.left >= box.left - 1 && r.right <= box.right + 1];
  });
})()
"""

#: Each chart's labels (titles, axis titles, legend, annotations, menu) as boxes, by chart id.
LABELS = """
Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const boxes = [];
  const add = (kind, el) => { const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) boxes.push([kind + ':' + el.textContent.slice(0, 30), r.left, r.top, r.right, r.bottom]); };
  gd.querySelectorAll('text[class$="title"]').forEach(t => add('title', t));
  gd.querySelectorAll('g.legend').forEach(l => add('legend', l));
  gd.querySelectorAll('g.annotation').forEach(a => add('note', a));
  gd.querySelectorAll('.updatemenu-header-group').forEach(m => add('menu', m));
  return [gd.parentElement.id || gd.id, boxes];
})
"""


def _labels_apart(page) -> None:
    for chart, boxes in page.evaluate(LABELS):
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = a[3] <= b[1] + 1 or b[3] <= a[1] + 1 or a[4] <= b[2] + 1 or b[4] <= a[2] + 1
                assert apart, (chart, a, b)


def _fits_its_boxes(page) -> None:
    _fits(page)
    # only the per-query table and the pairwise matrix scroll, each with its cue
    assert [b for b in page.evaluate(BOXES) if b[1] > b[2] + 1] == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_name", ["index.html", "run-bm25-rerun.html", "queries.html#q=1003"])
def test_a_new_users_pages_hide_nothing_at_every_width(browser, new_user, page_name, width):
    name = page_name.split("#")[0]
    visit = Visit(browser, (new_user / name).resolve().as_uri() + page_name[len(name) :], width=width)
    page = visit.page
    if name != "queries.html":
        visit.charts(page.locator(".chart").count())
    else:
        page.wait_for_selector(".query-run")
    page.wait_for_timeout(300)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"new-user-{name[:-5]}-{width}.png"), full_page=True)
    _fits_its_boxes(page)
    # every page's links are in reach: inside the window, none behind a sideways scroll
    links = page.evaluate(
        "Array.from(document.querySelectorAll('.site-header nav a')).map(a => "
        "{ const r = a.getBoundingClientRect(); return [a.textContent, r.left >= 0 && r.right <= innerWidth]; })"
    )
    assert len(links) == 6 and all(inside for _, inside in links), links
    assert page.evaluate("(n => n.scrollWidth <= n.clientWidth + 1)(document.querySelector('.site-header nav'))")
    if name.startswith("run-"):
        # id, status, the primary metric and the difference from the baseline, in view unscrolled
        first = page.evaluate(FIRST_COLUMNS)
        assert [t for t, _ in first] == ["id", "status", "nDCG@10", "nDCG@10 minus bm25"], first
        assert all(inside for _, inside in first), first
    if name == "index.html":
        assert page.locator("table.slices").count() == 2  # by difficulty and by topic: both fit (above)
    if name == "queries.html":
        # the query's metadata, and every run's difference from the baseline in view
        pairs = page.eval_on_selector_all("dl.query-meta dt, dl.query-meta dd", "n => n.map(x => x.textContent)")
        assert pairs == ["difficulty", "easy", "topic", "travel"]
        deltas = page.evaluate(
            "Array.from(document.querySelectorAll('table.query-figures td .delta')).map(d => "
            "{ const r = d.getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth; })"
        )
        assert len(deltas) == 3 * len(COMPARED) and all(deltas)  # three candidates, every compared metric
    visit.assert_clean()


@pytest.mark.parametrize("page_name", ["index.html", "run-bm25-rerun.html"])
def test_no_chart_label_overlaps_another_at_any_width_or_after_a_resize(browser, new_user, four_runs, page_name):
    for site, name in ((new_user, page_name), (four_runs, "index.html" if page_name == "index.html" else RUN_PAGE)):
        for width in WIDTHS:
            visit = Visit(browser, site / name, width=width)
            page = visit.page
            visit.charts(page.locator(".chart").count())
            page.wait_for_timeout(200)
            _labels_apart(page)
            for other in (w for w in WIDTHS if w != width):
                page.set_viewport_size({"width": other, "height": 900})
                page.wait_for_timeout(400)
                _labels_apart(page)
            visit.assert_clean()


def test_the_charts_read_without_colour_and_their_legends_follow_their_bars(browser, new_user):
    visit = Visit(browser, new_user / "index.html", width=1400)
    page = visit.page
    visit.charts(page.locator(".chart").count())
    # the forest plot: each run's mark by its verdict, as the first screen's lines say it (colour and shape)
    verdicts = page.evaluate(
        "Array.from(document.querySelectorAll('table.run-lines tbody tr:not(.verdict-single)')).map(r => "
        "[r.querySelector('th').textContent.trim(), r.className.slice(8)])"
    )
    assert verdicts == [["bm25-rerun", "better"], ["hybrid-rrf", "better"], ["dense-e5", "worse"]]
    figure = page.evaluate("document.querySelector('figure.forest .js-plotly-plot').data[0]")
    assert figure["y"] == ["bm25-rerun", "hybrid-rrf", "dense-e5"]
    assert figure["marker"]["symbol"] == ["triangle-up", "triangle-up", "triangle-down"]
    fills = page.evaluate(
        "Array.from(document.querySelectorAll('figure.forest .scatterlayer .point')).map(p => p.style.fill)"
    )
    assert fills[0] == fills[1] != fills[2], fills
    # the scatter's note sits clear of every point
    for scatter in range(page.locator(".chart-scatter").count()):
        clear = page.evaluate(
            """(n) => { const gd = document.querySelectorAll('.chart-scatter')[n];
            const note = gd.querySelector('g.annotation').getBoundingClientRect();
            return Array.from(gd.querySelectorAll('.scatterlayer .point')).every(p => {
              const r = p.getBoundingClientRect();
              return r.right <= note.left || note.right <= r.left || r.bottom <= note.top || note.bottom <= r.top; }); }""",
            scatter,
        )
        assert clear
    # won, tied, lost: the legend reads left to right as the bars stack
    order = page.evaluate(
        """(() => { const gd = document.querySelector('.chart-outcome');
        const legend = Array.from(gd.querySelectorAll('.legend .traces')).map(t =>
          [t.getBoundingClientRect().left, t.textContent]).sort((a, b) => a[0] - b[0]).map(t => t[1]);
        const bars = Array.from(gd.querySelectorAll('.barlayer .trace')).map((t, i) =>
          [t.querySelector('path').getBoundingClientRect().left, gd.data[i].name]).sort((a, b) => a[0] - b[0]).map(t => t[1]);
        return [legend, bars]; })()"""
    )
    assert order[0] == order[1] == ["wins", "ties", "losses"], order
    visit.assert_clean()


@pytest.mark.parametrize("page_name", ["index.html", "run-bm25-rerun.html", "queries.html"])
def test_every_page_prints_inside_an_a4_page_without_its_menus(browser, new_user, page_name):
    visit = Visit(browser, new_user / page_name, width=A4_WIDTH)
    page = visit.page
    if page_name != "queries.html":
        visit.charts(page.locator(".chart").count())
    page.emulate_media(media="print")
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    page.wait_for_timeout(300)
    wide = page.evaluate(
        "Array.from(document.querySelectorAll('main *')).filter(e => e.getClientRects().length && "
        "e.getBoundingClientRect().right > innerWidth + 1).slice(0, 5).map(e => [e.tagName, e.className, "
        "Math.round(e.getBoundingClientRect().right)])"
    )
    assert wide == [] and page.evaluate("document.documentElement.scrollWidth") <= A4_WIDTH
    shown = page.evaluate(
        "Array.from(document.querySelectorAll('.updatemenu-container')).filter(m => m.getClientRects().length).length"
    )
    assert shown == 0  # plotly's menus are for the screen
    if page_name.startswith("run-"):
        # on paper a number's header ends where its numbers do, and no scroll cue shades the last column
        misaligned = page.evaluate(
            """Array.from(document.querySelectorAll('table.queries thead th[data-col]')).flatMap(th => {
              const cell = document.querySelector('table.queries tbody tr').children[Number(th.dataset.col) + 1];
              if (!cell.classList.contains('num')) return [];
              const text = document.createRange();
              text.selectNodeContents(th.querySelector('button'));
              const ends = Array.from(text.getClientRects()).map(r => r.right);
              const gap = Math.min(...ends) - cell.getBoundingClientRect().right;  // each line's end
              return Math.abs(gap) > 12 ? [[th.textContent.trim(), Math.round(gap)]] : []; })"""
        )
        assert misaligned == []
        shade = "(b => { b.classList.add('more-right'); return getComputedStyle(b).boxShadow; })"
        assert page.evaluate(shade + "(document.querySelector('table.queries').closest('.table-box'))") == "none"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"new-user-{page_name[:-5]}-print.png"), full_page=True)
    page.pdf(path=str(SCREENSHOTS / f"new-user-{page_name[:-5]}.pdf"), format="A4")
    visit.assert_clean()


def _rr(i: int) -> float | None:
    """The reciprocal rank the large table's query ``i`` was made with; None for an excluded query."""
    if i % 10 == 9:
        return None  # no relevant id: excluded, its metrics blank
    return [1.0, 1 / 2, 1 / 3, 0.0][i % 4]  # the relevant id at rank 1, 2, 3, or not retrieved


def _expected(ids: list[int], ascending: bool) -> list[str]:
    """The rows' order sorted by RR, worked out from how the rows were made: values up or down, ties in
    the rows' order, blanks last either way."""
    scored = [i for i in ids if _rr(i) is not None]
    blank = [i for i in ids if _rr(i) is None]
    order = sorted(scored, key=lambda i: (_rr(i) if ascending else -_rr(i), i)) + blank
    return [f"q{i:05d}" for i in order]


def test_a_large_table_sorts_filters_and_pages_its_20000_rows_correctly(browser, tmp_path):
    n = 20_000
    lines = []
    for i in range(n):
        retrieved = [f"d{i}-{j}" for j in range(5)]
        hit = retrieved[i % 4] if i % 4 < 3 else f"unretrieved{i}"  # the relevant id, graded 1 to 3
        relevant = {} if i % 10 == 9 else {hit: i % 3 + 1, retrieved[4]: 0}  # the fifth judged non-relevant
        lines.append(json.dumps({"id": f"q{i:05d}", "retrieved": retrieved, "relevant": relevant}))
    run = tmp_path / "wide.jsonl"
    run.write_text("\n".join(lines) + "\n")
    assert main(["build", str(run), "--out", str(tmp_path / "site"), "--quiet", "--resamples", "100"]) == 0
    visit = Visit(browser, tmp_path / "site" / "run-wide.html")
    page = visit.page
    assert visit.rows() == [f"q{i:05d}" for i in range(50)]
    assert page.inner_text(".where") == "Rows 1–50 of 20,000"
    headers = page.eval_on_selector_all("thead th[data-col]", "cells => cells.map(c => c.textContent.trim())")
    rr = f"thead th[data-col='{headers.index('RR@10')}'] button"
    status = f"thead th[data-col='{headers.index('status')}'] button"
    every = list(range(n))

    page.click(rr)  # ascending: 0 first, then 1/3, 1/2, 1; ties in the rows' order; blanks last
    ascending = _expected(every, True)
    assert visit.rows() == ascending[:50]
    page.click("button[data-page=next]")
    assert visit.rows() == ascending[50:100]
    assert page.inner_text(".where") == "Rows 51–100 of 20,000"
    page.click(rr)  # descending: back to the first page, 1 first, ties still in the rows' order
    descending = _expected(every, False)
    assert visit.rows() == descending[:50] and page.get_attribute(rr.rsplit(" ", 1)[0], "aria-sort") == "descending"
    assert page.is_disabled("button[data-page=prev]") and page.is_enabled("button[data-page=next]")

    page.fill("input[name=id]", "q0001")  # q00010 ... q00019, in the sorted order, the blank one last
    assert visit.rows() == _expected(list(range(10, 20)), False) == [
        "q00012", "q00016", "q00013", "q00017", "q00010", "q00014", "q00018", "q00011", "q00015", "q00019"
    ]  # fmt: skip
    assert page.inner_text(".where") == "Rows 1–10 of 10 (filtered from 20,000)"
    page.click(rr)  # ascending again, the filter kept
    assert visit.rows() == _expected(list(range(10, 20)), True)
    assert visit.rows()[-1] == "q00019"  # the blank stays last
    page.fill("input[name=id]", "Q1999")  # a fragment, any case: q19990 ... q19999 (q01999 has no "q1999")
    assert visit.rows() == _expected(list(range(19990, 20000)), True)
    page.fill("input[name=id]", " 1999 ")  # trimmed: every id that holds 1999
    assert sorted(visit.rows()) == sorted(["q01999", "q11999", *(f"q{i}" for i in range(19990, 20000))])
    page.fill("input[name=id]", "")

    page.select_option("select[name=status]", label="excluded (2,000)")
    assert visit.rows() == [f"q{i:05d}" for i in range(9, 500, 10)]  # all blank: the rows' order
    assert page.inner_text(".where") == "Rows 1–50 of 2,000 (filtered from 20,000)"
    page.select_option("select[name=status]", value="")
    page.click(status)  # by the status's words: complete miss, excluded, full; ties in the rows' order
    words = {True: "complete miss", False: "full"}
    misses = [f"q{i:05d}" for i in every if i % 4 == 3 and i % 10 != 9]
    assert visit.rows() == misses[:50]
    page.click(status)  # descending: full first
    full = [f"q{i:05d}" for i in every if i % 4 != 3 and i % 10 != 9]
    assert visit.rows() == full[:50]
    assert set(page.eval_on_selector_all("table.queries tbody td.status", "c => c.map(x => x.textContent)")) == {
        words[False]
    }

    page.click("thead th[data-col='0'] button")  # by the id, descending after ascending
    page.click("thead th[data-col='0'] button")
    assert visit.rows() == [f"q{i:05d}" for i in range(n - 1, n - 51, -1)]
    page.click("button.expand")  # the first row's top K opens under it
    assert page.locator("tr.detail").count() == 1
    assert page.eval_on_selector_all("tr.detail tbody td.doc", "c => c.map(x => x.textContent)") == [
        f"d19999-{j}" for j in range(5)
    ]
    page.click("button.expand")  # closed again
    for i in (19996, 2, 10001, 7):  # a late row's top K, then earlier ones: each slot's grade and mark
        page.fill("input[name=id]", f"q{i:05d}")
        page.click("button.expand[aria-expanded=false]")
        grades = page.eval_on_selector_all("tr.detail tbody tr", "rows => rows.map(r => r.children[2].textContent)")
        marks = page.eval_on_selector_all("tr.detail tbody td[class^=mark-]", "c => c.map(x => x.textContent)")
        hit = i % 4 if i % 4 < 3 else None
        assert grades == [str(i % 3 + 1) if r == hit else "0" if r == 4 else "–" for r in range(5)], i
        assert marks == ["relevant" if r == hit else "judged non-relevant" if r == 4 else "unjudged" for r in range(5)]
        page.click("button.expand[aria-expanded=true]")
    visit.assert_clean()


def test_the_query_view_folds_a_topics_longer_text_under_its_title(browser, tmp_path):
    """A TREC topic's description and narrative: folded under the title (the first screen is as
    long as without them), opened on demand, shown as text (a hostile narrative stays text)."""
    import html

    topics = tmp_path / "topics.xml"
    topics.write_text(
        '<topics><topic number="301"><query>capital cities</query>'
        f"<question>which cities are capitals?</question><narrative>{html.escape(INJECTIONS[0])}</narrative>"
        "</topic></topics>\n"
    )
    (tmp_path / "run.trec").write_text("301 Q0 a 1 2 r\n301 Q0 b 2 1 r\n")
    (tmp_path / "qrels.txt").write_text("301 0 a 1\n")
    out = tmp_path / "site"
    args = [str(tmp_path / "run.trec"), "--qrels", str(tmp_path / "qrels.txt"), "--queries", str(topics)]
    assert main(["build", *args, "--out", str(out), "--quiet"]) == 0
    visit = Visit(browser, out / "queries.html")
    page = visit.page
    page.evaluate("window.location.hash = 'q=301'")
    page.wait_for_selector(".query-run")
    assert "capital cities" in page.inner_text(".query-title")
    detail = page.locator("details.query-detail")
    assert detail.get_attribute("open") is None and not detail.locator("p").first.is_visible()  # folded
    detail.locator("summary").click()
    assert detail.locator("p").all_inner_texts() == ["which cities are capitals?", INJECTIONS[0]]  # text, not HTML
    assert page.locator(".query-view img").count() == 0
    visit.assert_clean()


# --- Real data, every shape: query text, numeric ids, lists 100 deep, a slice key --------------


@pytest.fixture(scope="module")
def deep_site(tmp_path_factory):
    """Two RAG JSONL runs of 60 queries (ids 1 to 60) with a sentence of text each, lists of 100
    ids, one label set and a slice key; built with the defaults."""
    root = tmp_path_factory.mktemp("deep")
    rng = np.random.default_rng(7)
    words = "how do rotate key without downtime rate limit search endpoint export audit logs policy".split()
    texts = [" ".join(rng.choice(words, size=12)).capitalize() + "?" for _ in range(60)]
    relevant = [{f"d{d}": int(rng.integers(1, 4)) for d in rng.choice(300, size=3, replace=False)} for _ in range(60)]
    for name in ("bm25", "dense-retriever-v2"):
        lines = []
        for q in range(60):
            docs = [f"d{d}" for d in rng.permutation(300)[:100]]
            lines.append(
                json.dumps(
                    {
                        "id": str(q + 1),
                        "query": texts[q],
                        "retrieved": docs,
                        "relevant": relevant[q],
                        "meta": {"topic": ("billing", "security", "search api")[q % 3]},
                    }
                )
            )
        (root / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
    site = root / "site"
    runs = [str(root / "bm25.jsonl"), str(root / "dense-retriever-v2.jsonl")]
    assert main(["build", *runs, "--slice", "topic", "--out", str(site), "--quiet", "--no-config"]) == 0
    return site


def _headers(page) -> dict[str, tuple[float, float]]:
    """Each per-query header's left and right edge, and the box's visible left and right."""
    return page.evaluate(
        "(() => { const b = document.querySelector('.query-table .table-box').getBoundingClientRect(); "
        "const out = {box: [b.left, b.right]}; "
        "document.querySelectorAll('table.queries thead th[data-col]').forEach(th => { "
        "const r = th.getBoundingClientRect(); out[th.textContent.trim()] = [r.left, r.right]; }); return out; })()"
    )


def test_the_per_query_table_at_1400_shows_every_metric_and_a_cue_for_the_rest(browser, deep_site):
    visit = Visit(browser, deep_site / "run-dense-retriever-v2.html", width=1400)
    page = visit.page
    edges = _headers(page)
    left, right = edges.pop("box")
    # The runs' judgments list only relevant ids: Judged@10 is not a figure there (conventions 20.2).
    assert "Judged@10" not in edges
    shown = [f"{m.key}@10" for m in SUITE if m.key not in ("nDCG", "Judged")]
    key = ["id", "status", "nDCG@10", "nDCG@10 minus bm25", "query", *shown]
    assert [h for h in key if not left <= edges[h][0] and edges[h][1] <= right] == []
    assert max(r for _, r in edges.values()) > right  # the counts are out of view ...
    cue = page.locator(".query-table .scroll-cue")
    assert cue.is_visible() and cue.inner_text() == "More columns →"  # ... and the page says so
    assert "more-right" in page.get_attribute(".query-table .table-box", "class")
    cue.click()
    page.evaluate("document.querySelector('.query-table .table-box').scrollLeft = 10000")
    wait_until(page, "document.querySelector('.query-table .scroll-cue').hidden")
    assert "more-right" not in page.get_attribute(".query-table .table-box", "class")
    page.click("button.expand[aria-label='Show the top 10 for query 1']")
    assert page.inner_text("tr.detail caption") == "Top 10 for query 1"
    visit.assert_clean()


def test_on_a_phone_each_query_text_is_in_view_beside_the_key_columns(browser, deep_site):
    visit = Visit(browser, deep_site / "run-dense-retriever-v2.html", width=390, height=844)
    page = visit.page
    edges = _headers(page)
    left, right = edges.pop("box")
    assert [h for h in ("id", "status", "nDCG@10", "nDCG@10 minus bm25") if edges[h][1] > right] == []
    # each shown text's characters whose box lies inside the scroll box's visible width
    seen = page.evaluate(
        "(() => { const b = document.querySelector('.query-table .table-box').getBoundingClientRect(); "
        "const range = document.createRange(); "
        "return [...document.querySelectorAll('table.queries tbody tr:not(.detail) td, "
        "table.queries tbody tr.text-line span')].filter(e => e.matches('td.query-text, span') && "
        "e.getClientRects().length).map(e => { const t = e.firstChild; let n = 0; "
        "for (let i = 0; i < t.length; i++) { range.setStart(t, i); range.setEnd(t, i + 1); "
        "const r = range.getBoundingClientRect(); if (r.width && r.left >= b.left && r.right <= b.right) n++; } "
        "return [t.length, n]; }); })()"
    )
    assert len(seen) == 50  # a page of rows, each with its text
    assert [pair for pair in seen if pair[1] < min(20, pair[0])] == []
    visit.assert_clean()


def test_the_scatter_stays_inside_0_to_1_and_slice_figures_line_up(browser, deep_site):
    for width in (1400, 390):
        visit = Visit(browser, deep_site / "index.html", width=width, height=900)
        visit.charts(2)
        ranges = visit.page.evaluate(
            "[...document.querySelectorAll('.js-plotly-plot')].filter(gd => gd.layout.meta && "
            "gd.layout.meta.opensQuery).map(gd => [gd._fullLayout.xaxis.range, gd._fullLayout.yaxis.range])"
        )
        assert len(ranges) == 1
        assert all(-0.05 <= axis[0] and axis[1] <= 1.05 for axis in ranges[0]), ranges  # (x, y)
        # each cell's figures end at one x (right-aligned in a column they share), in every row
        ends = visit.page.evaluate(
            "[...document.querySelectorAll('table.slices td.stack:nth-of-type(2)')].map(td => "
            "[...td.querySelectorAll('.figure')].map(f => Math.round(f.getBoundingClientRect().right)))"
        )
        assert len(ends) == 3 and len({x for cell in ends for x in cell}) == 1, ends
        visit.assert_clean()


def test_the_history_dodges_the_runs_error_bars(browser, tmp_path):
    from sitetools import history_inputs, publish_three

    history = publish_three(history_inputs(tmp_path), tmp_path / "eval")
    visit = Visit(browser, history / "index.html")
    visit.charts(8)
    # the pixel x of every run's marker at the first report, in the first trend chart
    xs = visit.page.evaluate(
        "(() => { const gd = document.querySelector('.js-plotly-plot'); "
        "return [...gd.querySelectorAll('.scatterlayer .trace')].map(t => t.querySelector('.point')).filter(p => p)"
        ".map(p => Number(p.getAttribute('transform').match(/translate\\(([-\\d.]+)/)[1])); })()"
    )
    first = sorted(xs)[:2]
    assert len(xs) >= 2 and first[1] - first[0] >= 8, xs  # apart by more than an error bar's width
    visit.assert_clean()
