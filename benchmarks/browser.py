"""How fluid the pages are in Chromium: load, paging, sorting, filtering and a query's detail.

Builds (or takes, ``--site``) a report of two runs of 100,000 queries (the wide pair of
``phases.py``, 100 ids a query) and opens each kind of page in headless Chromium from file://,
offline: the index, a run page (its per-query table holds one row a query) and the query view
(``queries.html``). Every time is taken inside the page with ``performance.now()``:

- load: from the navigation's start to the first paint, and to the page being usable: the
  per-query table's first rows in its body (the JSON parsed, the first 50 rows drawn), or the
  query view's prompt (its packed data inflated and parsed);
- each interaction: the script's own time (the event handler, run synchronously) and the time to
  the next frame after it (``requestAnimationFrame`` then a task: style, layout and paint of what
  the handler changed), which is what a reader waits for;
- the interactions: the next page, a sort by a number column (the primary metric; the first sort
  of a column and the reverse of it), by a text column (the id) and by the status, a filter typed a
  character at a time (each keystroke timed, with the table sorted), the status filter, opening a
  query's top K in the table and a query in the query view.

Each repetition opens the page afresh (a first sort is a first sort); the median of ``--repeat``
repetitions is printed as a Markdown table. Several ``--site`` folders are measured in turn, A B A
B ..., so that a before and an after share the machine's load. The load average is printed with
the table. Nothing here is a test: no time is asserted.

    python benchmarks/browser.py [--folder /tmp/ragreport-browser] [--repeat 5] [--site DIR ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from phases import inputs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-extensions", "--no-first-run", "--disable-background-networking"]

# Installed before the page's own scripts: records when the per-query table's body first holds rows
# and when the query view first shows something, on the page's own clock.
WATCH = """
window.__bench = {};
new MutationObserver(function () {
  var body = document.querySelector("table.queries tbody");
  if (body && body.firstChild && window.__bench.table === undefined) { window.__bench.table = performance.now(); }
  var view = document.querySelector(".query-body");
  if (view && view.firstChild && window.__bench.view === undefined) { window.__bench.view = performance.now(); }
}).observe(document, { childList: true, subtree: true });
"""

# One interaction: the handler's time and the time to the frame after it, in milliseconds.
TIMED = """
async () => {
  const settle = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  await settle();
  const act = ACTION;
  const start = performance.now();
  await act();
  const ran = performance.now();
  await settle();
  return [ran - start, performance.now() - start];
}
"""

CLICK = "() => document.querySelector({selector!r}).click()"
SORT = "() => document.querySelector(\"thead th[data-col='{col}'] button\").click()"
TYPE = (
    "() => {{ const input = document.querySelector('input[name=id]'); input.value = {text!r};"
    " input.dispatchEvent(new Event('input', {{ bubbles: true }})); }}"
)
STATUS = (
    "() => {{ const select = document.querySelector('select[name=status]'); select.value = {value!r};"
    " select.dispatchEvent(new Event('change', {{ bubbles: true }})); }}"
)
HASH = (
    "() => new Promise((done) => {{ window.addEventListener('hashchange', () => done(), {{ once: true }});"
    " window.location.hash = 'q=' + encodeURIComponent({query!r}); }})"
)


def build(folder: Path, queries: int) -> Path:
    """The site of the wide pair cut to ``queries`` queries, built once."""
    site = folder / f"browser-site-{queries}"
    if not (site / "index.html").exists():
        qrels, base, cand = inputs(folder, queries)
        command = [sys.executable, "-m", "ragreport", "build", "--qrels", str(qrels), str(base), str(cand)]
        subprocess.run([*command, "--out", str(site), "--quiet"], check=True)
    return site


def open_page(browser, path: Path, ready: str | None):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, offline=True)
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(120_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.resolve().as_uri(), wait_until="load")
    if ready:
        page.wait_for_function(f"() => window.__bench.{ready} !== undefined")
    times = page.evaluate(
        """() => {
          const paint = performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint");
          const nav = performance.getEntriesByType("navigation")[0];
          return { paint: paint ? paint.startTime : null, load: nav.loadEventEnd,
                   table: window.__bench.table, view: window.__bench.view };
        }"""
    )
    return context, page, times, errors


def timed(page, action: str) -> tuple[float, float]:
    script, frame = page.evaluate(TIMED.replace("ACTION", action))  # evaluated by the tool: no eval in the page
    return script, frame


def run_page(browser, path: Path) -> dict[str, tuple[float, float]]:
    context, page, times, errors = open_page(browser, path, "table")
    out: dict[str, tuple[float, float]] = {
        "load: first paint": (times["paint"], times["paint"]),
        "load: table drawn (parse + first 50 rows)": (times["table"], times["table"]),
        "load: load event": (times["load"], times["load"]),
    }
    kinds = page.evaluate(
        "JSON.parse(document.getElementById(document.querySelector('[data-query-table]')"
        ".getAttribute('data-query-table')).textContent).kinds"
    )
    number = kinds.index("score")
    status = kinds.index("status")
    out["next page"] = timed(page, CLICK.format(selector="button[data-page=next]"))
    out["sort by a number column, first"] = timed(page, SORT.format(col=number))
    out["sort by a number column, reversed"] = timed(page, SORT.format(col=number))
    out["sort by the id (text), first"] = timed(page, SORT.format(col=0))
    out["sort by the id (text), reversed"] = timed(page, SORT.format(col=0))
    out["sort by the status, first"] = timed(page, SORT.format(col=status))
    out["next page, sorted"] = timed(page, CLICK.format(selector="button[data-page=next]"))
    keys = [timed(page, TYPE.format(text=text)) for text in ("q", "q1", "q12", "q123")]
    out["filter by id, a keystroke (median of 4, sorted)"] = (
        statistics.median(k[0] for k in keys),
        statistics.median(k[1] for k in keys),
    )
    out["filter cleared"] = timed(page, TYPE.format(text=""))
    value = page.evaluate("document.querySelector('select[name=status] option:nth-child(2)').value")
    out["status filter"] = timed(page, STATUS.format(value=value))
    out["status filter cleared"] = timed(page, STATUS.format(value=""))
    out["open a query's top K"] = timed(page, CLICK.format(selector="button.expand"))
    out["close it"] = timed(page, CLICK.format(selector="button.expand[aria-expanded=true]"))
    context.close()
    assert errors == [], errors
    return out


def index_page(browser, path: Path) -> dict[str, tuple[float, float]]:
    context, _page, times, errors = open_page(browser, path, None)
    context.close()
    assert errors == [], errors
    return {"load: first paint": (times["paint"], times["paint"]), "load: load event": (times["load"], times["load"])}


def query_page(browser, path: Path, query: str) -> dict[str, tuple[float, float]]:
    context, page, times, errors = open_page(browser, path, "view")
    out = {
        "load: first paint": (times["paint"], times["paint"]),
        "load: view ready (inflate + parse)": (times["view"], times["view"]),
        "load: load event": (times["load"], times["load"]),
        "open a query": timed(page, HASH.format(query=query)),
    }
    context.close()
    assert errors == [], errors
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-browser"))
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--site", type=Path, action="append", help="a built site (several: measured in turn)")
    args = parser.parse_args()
    sites = args.site or [build(args.folder, args.queries)]
    from playwright.sync_api import sync_playwright

    results: dict[tuple[Path, str, str], list[tuple[float, float]]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(args.repeat):
            for site in sites:  # A B A B ...
                run = sorted(site.glob("run-*.html"))[0]
                pages = {"index.html": index_page(browser, site / "index.html"), run.name: run_page(browser, run)}
                if (site / "queries.html").exists():
                    pages["queries.html"] = query_page(browser, site / "queries.html", f"q{args.queries // 2}")
                for name, measured in pages.items():
                    for what, pair in measured.items():
                        results.setdefault((site, name, what), []).append(pair)
        browser.close()

    load = os.getloadavg()
    print(f"Chromium {CHROMIUM}; {args.repeat} repetitions, medians in ms; load average {load[0]:.1f}, {load[1]:.1f}\n")
    heads = " | ".join(f"{site.name}: script | {site.name}: to next frame" for site in sites)
    print(f"| page | measure | {heads} |")
    print("| --- | --- |" + " ---: | ---: |" * len(sites))
    for key in dict.fromkeys((name, what) for _site, name, what in results):
        cells = []
        for site in sites:
            pairs = results.get((site, *key), [])
            script = statistics.median(p[0] for p in pairs)
            frame = statistics.median(p[1] for p in pairs)
            cells.append(f"{script:,.0f} | {frame:,.0f}" if not key[1].startswith("load") else f"- | {frame:,.0f}")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")
    for site in sites:
        sizes = {page.name: page.stat().st_size / 1e6 for page in sorted(site.glob("*.html"))}
        print(f"\n{site}: " + ", ".join(f"{name} {size:.1f} MB" for name, size in sizes.items()))


if __name__ == "__main__":
    main()
