"""Render the static report site and write it atomically.

Two phases, one direction: :func:`render_site` turns the report's view and document into a mapping of relative
path -> bytes (every page rendered before anything touches the disk), then :func:`write_site`
writes that mapping into a temporary folder beside the target and moves it into place in one
rename. A failed build leaves the previous site untouched; a folder that is not an earlier
ragreport build is never replaced.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from ...core.errors import Argument, ArgumentError, UsageError
from ...core.escape import visible
from ...core.manifest import digest, manifest_text
from ...reading.files import special_kind
from ..exports.reportjson.write import report_json
from ..exports.text import markdown
from .pages import install
from .queryview import packed as packed_json
from .wording import history as say_history
from .wording import messages as say
from .wording import page as say_page
from .wording import report as say_report
from .writing import (
    MARKER,
    SITE_HEADER,
    folder_problem,
    guarded,
    make_readable,
    site_problem,
    stage,
    swap,
    target_path,
)

if TYPE_CHECKING:
    from .view.model import ReportView

PLOTLY_ASSET = "assets/plotly.min.js"
PLOTLY_PACKED_ID = "plotly-packed"
#: The id of the single file's block of the documents' text (the one table its pages share).
TEXTS_PACKED_ID = "report-texts"


def text_asset(table: Mapping[str, Any]) -> tuple[str, bytes]:
    """The documents' text as the site's and the history's one file: ``assets/texts-HASH.js``,
    named by its content (a history keeps one copy of a text published again, as it keeps one
    plotly.js), a script that sets the packed table (gzip, base64) for the pages to inflate."""
    packed = packed_json(table)
    body = f"window.ragreportTexts = {json.dumps({'data': packed, 'unsupported': say_report.TEXTS_UNSUPPORTED})};\n"
    data = body.encode("utf-8")
    return f"assets/texts-{hashlib.sha256(data).hexdigest()[:16]}.js", data


def template_dir() -> Path:
    """The templates shipped inside the package, or the checkout's ``templates/`` when run from source."""
    packaged = Path(str(resources.files("ragreport") / "templates"))
    if (packaged / "base.html").is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "templates"
    if (checkout / "base.html").is_file():
        return checkout
    raise FileNotFoundError("ragreport's templates are missing from the installation")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir())),
        autoescape=True,  # every template, every value: ids, names and notes are never trusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # <title> holds text only, where no <bdi> can isolate a name: controls and bidi shown as escapes
    env.filters["visible"] = visible
    install(env)  # the HTML-only filters (figures, ids, notes) and the page's words
    return env


@dataclass(frozen=True)
class Assets:
    css: str
    js: str
    unpack: str


@lru_cache(maxsize=1)
def assets() -> Assets:
    folder = template_dir() / "assets"
    return Assets(
        css=(folder / "site.css").read_text("utf-8"),
        js=(folder / "site.js").read_text("utf-8"),
        unpack=(folder / "unpack.js").read_text("utf-8"),
    )


@lru_cache(maxsize=1)
def plotly_source() -> str:
    """plotly.min.js exactly as the installed plotly package ships it (never a CDN, never a copy)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """plotly.js from the installed plotly package, safe to inline in a script element."""
    return plotly_source().replace("</script", "<\\/script")


@lru_cache(maxsize=1)
def plotly_packed() -> str:
    """The installed plotly.min.js gzipped (level 9, mtime 0: the same bytes every build) in base64.

    The single file carries it in a data block that never runs; ``unpack.js`` inflates it with the
    browser's DecompressionStream and inserts it as an inline script, which the policy admits by
    the hash of :func:`plotly_source` (no eval). A third of the size of the plain source.
    """
    packed = gzip.compress(plotly_source().encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


@lru_cache(maxsize=1)
def plotly_injected_style_ids() -> tuple[str, ...]:
    """Ids of the style elements plotly.js injects at load time unless an element with the id exists.

    They hold CSS for trace types a report never draws (map tiles); the pages pre-empt them with
    empty style elements, which the policy admits, so strict CSP sees no violation.
    """
    pattern = r'if\(!document\.getElementById\("([^"]+)"\)\)\{var \w+=document\.createElement\("style"\)'
    return tuple(dict.fromkeys(re.findall(pattern, plotly_js())))


def source_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: Sequence[str], styles: Sequence[str], external_scripts: bool) -> str:
    """A policy that runs only the page's own scripts and styles and forbids every fetch.

    Inline scripts and style elements are allowed by hash; the shared plotly.js file by 'self'
    (the report's own folder). Nothing may connect, load fonts or frames, or submit forms;
    images only from data: URLs (plotly's download button).
    """
    script_src = " ".join((["'self'"] if external_scripts else []) + [source_hash(s) for s in scripts])
    # plotly.js adds an empty <style> element and fills it through the CSSOM (not subject to CSP);
    # the hash of the empty string admits exactly that empty element and nothing else.
    style_src = " ".join(source_hash(s) for s in [*styles, ""])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {script_src}",
            # plotly.js sets style attributes on the SVG it draws; element styles stay hash-only.
            f"style-src-elem {style_src}",
            "style-src-attr 'unsafe-inline'",
            "img-src data:",
            "font-src 'none'",
            "connect-src 'none'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


@dataclass(frozen=True)
class BuiltReport:
    """What one build produces, before anything is written: report.json's document and the view
    (the pages and summary.md lay it out)."""

    document: dict[str, Any]
    view: ReportView


def prepare(view: ReportView, document: dict[str, Any]) -> BuiltReport:
    """The view (built with its pages) and the document, ready to render."""
    return BuiltReport(document=document, view=view)


def render_notebook(view: ReportView) -> str:
    """The index page's suite matrix (figures, bands, bold best means, ▲/▼ verdicts, † marks) as
    one HTML fragment with its own few styles, for a notebook (``_repr_html_``); escaped like
    every page."""
    conventions = view.conventions
    return (
        environment()
        .get_template("notebook.html")
        .render(
            suite=view.suite,
            marks=conventions.marks if conventions is not None else {},
            notice=conventions.notice if conventions is not None else "",
        )
    )


#: summary.md's name inside a history: docs builders (MkDocs) turn a .md file into a page of their
#: own and break the link, and browsers show a .txt file inline where they download a .md.
HISTORY_SUMMARY = "summary.txt"


def _page(
    site: ReportView, *, single: bool, current: str | None, history: str | None = None, summary: str = "summary.md"
) -> dict[str, Any]:
    runs = site.runs
    hrefs = [f"#run-{r.slug}" if single else f"run-{r.slug}.html" for r in runs]
    nav = [{"href": history, "text": say_history.HISTORY_NAV, "current": False}] if history else []
    nav += [{"href": "#main" if single else "index.html", "text": say_page.OVERVIEW_NAV, "current": current == "index"}]
    nav += [{"href": href, "text": r.name, "current": current == r.slug} for href, r in zip(hrefs, runs)]
    if site.labels is not None:  # the index's Labels section (--audit)
        nav.append({"href": ("#" if single else "index.html#") + "labels", "text": site.labels.nav, "current": False})
    if site.query_view is not None:
        nav.append(
            {
                "href": "#queries" if single else "queries.html",
                "text": say_report.QUERIES_NAV,
                "current": current == "queries",
            }
        )
    return {
        "home": "#main" if single else "index.html",
        "query_href": "#q=" if single else "queries.html#q=",
        "index_prefix": "" if single else "index.html",
        "nav": nav,
        "run_hrefs": hrefs,
        "downloads": []
        if single
        else [{"href": "report.json", "text": "report.json"}, {"href": summary, "text": summary}],
    }


def _render(
    env: jinja2.Environment,
    template: str,
    *,
    site: ReportView | dict[str, Any],
    page: dict[str, Any],
    scripts: list[dict[str, Any]],
    external: bool,
    **extra: Any,
) -> bytes:
    css = assets().css
    inline = [s["inline"] for s in scripts if s["inline"] is not None]
    inline += [s["block"]["runs"] for s in scripts if s["block"] is not None and s["block"]["runs"] is not None]
    page = dict(
        page,
        scripts=scripts,
        csp=content_security_policy(inline, [css], external_scripts=external),
        preempted_styles=plotly_injected_style_ids(),
    )
    text = env.get_template(template).render(site=site, page=page, assets={"css": Markup(css)}, **extra)
    return text.encode("utf-8")


def render_site(
    report: BuiltReport,
    *,
    root: str | None = None,
    texts_asset: dict[str, bytes] | None = None,
) -> dict[str, bytes]:
    """Every file of the site: pages, the shared plotly.js, report.json and summary.md (the marker,
    which lists them, is added by :func:`write_site`).

    ``root``: the report is one of a history's (``ragreport publish``), and ``root`` is the relative
    path from its folder to the history's (``../../``). Its pages then load the history's one
    plotly.js, link back to the history page, the summary is ``summary.txt`` (:data:`HISTORY_SUMMARY`),
    and the folder holds no plotly.js; the documents' text file goes into ``texts_asset`` (its path
    in the history -> bytes), not among the report's files.
    """
    if texts_asset is None:
        texts_asset = {}
    env = environment()
    site = report.view
    js = assets().js
    files: dict[str, bytes] = {}

    def add(path: str, data: bytes) -> None:
        if path in files:
            raise RuntimeError(f"the site would write {path} twice")
        files[path] = data

    history = None if root is None else f"{root}index.html"
    summary = "summary.md" if root is None else HISTORY_SUMMARY
    scripts: list[dict[str, Any]] = [
        {"src": PLOTLY_ASSET if root is None else root + PLOTLY_ASSET, "inline": None, "block": None},
        {"src": None, "inline": Markup(js), "block": None},
    ]
    # The documents' text once, in a file of its own that the run pages and the query view load
    # (a history's: in its assets/, named by content, so an unchanged text is kept once).
    with_texts = scripts
    if site.texts is not None:
        asset, data = text_asset(site.texts)
        if root is None:
            add(asset, data)
        else:
            texts_asset[asset] = data
        with_texts = [{"src": (root or "") + asset, "inline": None, "block": None}, *scripts]
    pages: list[tuple[str, str, str, dict[str, Any]]] = [("index.html", "index.html", "index", {})]
    pages += [(f"run-{run.slug}.html", "run.html", run.slug, {"run": run}) for run in site.runs]
    if site.query_view is not None:
        pages.append(("queries.html", "queries.html", "queries", {}))
    # report.json and the summary first, the query view's page last: its block may still be in the
    # making in a child process (docs/conventions.md section 22.25).
    document = report.document if root is None else _shared_texts(report.document, root, texts_asset)
    last = {"report.json": report_json(document, compact=True), summary: markdown(report.view).encode("utf-8")}
    for path, template, current, extra in pages:
        page = _page(site, single=False, current=current, history=history, summary=summary)
        used = scripts if current == "index" else with_texts
        add(path, _render(env, template, site=site, page=page, scripts=used, external=True, **extra))
    for path, data in last.items():
        add(path, data)
    if root is None:
        add(PLOTLY_ASSET, plotly_js().encode("utf-8"))
    return files


def _shared_texts(document: Mapping[str, Any], root: str, shared: dict[str, bytes]) -> Mapping[str, Any]:
    """A history's report.json: its documents' text kept once, in the history's
    ``assets/docs-HASH.json`` (named by content), which ``texts.docs`` names by its path from the
    report's folder; ``ragreport render`` reads it there (docs/conventions.md section 24.3)."""
    texts = document.get("texts")
    if not texts or not texts.get("docs"):
        return document
    data = report_json(texts["docs"])
    path = f"assets/docs-{hashlib.sha256(data).hexdigest()[:16]}.json"
    shared[path] = data
    return {**document, "texts": {**texts, "docs": root + path}}


def render_single(report: BuiltReport) -> bytes:
    """One HTML file holding everything: the overview, every run, plotly.js (gzipped) and the data."""
    env = environment()
    packed = {
        "id": PLOTLY_PACKED_ID,
        "data": plotly_packed(),
        "runs": plotly_source(),  # what unpack.js inserts: the policy lists its hash
        "unsupported": say_report.PLOTLY_UNSUPPORTED,
        "failed": say_report.PLOTLY_FAILED,
    }
    scripts: list[dict[str, Any]] = [
        {"src": None, "inline": None, "block": packed},
        {"src": None, "inline": Markup(assets().unpack), "block": None},
        {"src": None, "inline": Markup(assets().js), "block": None},
    ]
    if report.view.texts is not None:  # the documents' text once, shared by every run and the query view
        texts = {
            "id": TEXTS_PACKED_ID,
            "data": packed_json(report.view.texts),
            "runs": None,  # data only: nothing of it runs
            "unsupported": say_report.TEXTS_UNSUPPORTED,
            "failed": say_report.TEXTS_UNSUPPORTED,
        }
        scripts.insert(0, {"src": None, "inline": None, "block": texts})
    return _render(
        env,
        "single.html",
        site=report.view,
        page=_page(report.view, single=True, current=None),
        scripts=scripts,
        external=False,
    )


def write_site(files: dict[str, bytes], out: str | Path) -> Path:
    """Write ``files`` and their marker into a folder beside ``out``, then swap it into place.

    ``out`` is replaced only when it is missing, empty or an earlier build that holds nothing the
    build did not write (:func:`~ragreport.output.site.writing.site_problem`); otherwise the build refuses
    with one line and writes nothing. Runs into one ``out`` are serialised by a lock; a failure at any
    point leaves ``out`` as it was (docs/conventions.md section 16).
    """
    out = target_path(out, Argument("out"))
    problem = folder_problem(out)
    if problem is not None:
        raise ArgumentError(*say.refusing_to_replace(str(out), problem, advice=False))
    with guarded(out):
        problem = site_problem(out)
        if problem is not None:
            raise ArgumentError(*say.refusing_to_replace(str(out), problem))
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
        try:
            # the marker: its header and every file's digest (docs/conventions.md section 16)
            marker = manifest_text(SITE_HEADER, {path: digest(data) for path, data in files.items() if path != MARKER})
            stage({**files, MARKER: marker}, staging)
            make_readable(staging)
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent)) / "site"
            try:
                swap(staging, out, retired)
            finally:
                if os.path.lexists(out):
                    shutil.rmtree(retired.parent, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return out


#: Where a link leads to a descriptor or a device rather than a file (``/dev/stdout`` is a link to
#: ``/proc/self/fd/1``): an output named so is refused as the device itself.
_DESCRIPTOR_PLACES = ("/proc/", "/dev/")


def link_problem(path: Path) -> str | None:
    """What ``path``, a symbolic link, leads to when an output may not be written there (None: a
    link to a regular file or to nothing, which the rename replaces as the link itself, never
    writing through it). Every hop of the chain is read: a hop into ``/proc`` or ``/dev`` (a
    descriptor, ``/proc/self/fd/1``) or a loop is refused, whatever the last hop is."""
    hop, seen = path, set[Path]()
    while hop.is_symlink():
        if hop in seen or len(seen) > 40:
            return say.LINK_LOOP
        seen.add(hop)
        try:
            leads = Path(os.readlink(hop))
        except OSError:
            return say.LINK_LOOP
        hop = leads if leads.is_absolute() else hop.parent / leads
        if os.path.normpath(hop).startswith(_DESCRIPTOR_PLACES) or str(hop) in ("/proc", "/dev"):
            return say.link_to_descriptor(str(hop))
    kind = special_kind(hop)
    return None if kind is None else say.link_to_special(str(hop), kind)


def refuse_special_output(path: Path, option: str) -> None:
    """Refuse, before anything is opened, an output that names a device, a FIFO or a socket, or a
    link to one (or to a descriptor, as ``/dev/stdout`` is): writing would block on a FIFO with no
    reader, and the rename would replace the device, or the link to it, by a file
    (docs/conventions.md sections 18 and 23.1)."""
    if path.is_symlink():
        problem = link_problem(path)
        if problem is not None:
            raise UsageError(f"{option} {path} is {problem}; give a file name")
        return
    kind = special_kind(path)
    if kind is not None:
        raise UsageError(f"{option} {path} is {kind}, not a regular file; give a file name")


def write_file(data: bytes, path: str | Path) -> Path:
    """Write one file atomically: a temporary file beside it, then a rename."""
    path = target_path(path, Argument("single_file"))
    refuse_special_output(path, "--single-file")
    if path.is_dir():
        raise ArgumentError(Argument("single_file"), f" {path} is a folder; give a file name such as report.html")
    with guarded(path):
        if path.exists():
            with path.open("rb") as stream:
                if b'<meta name="generator" content="ragreport ' not in stream.read(4096):
                    problem = "it is not an earlier ragreport report"
                    raise ArgumentError(*say.refusing_to_replace(str(path), problem, Argument("single_file")))
        _atomic_write(data, path)
    return path


def _atomic_write(data: bytes, path: Path) -> Path:
    """A temporary file beside ``path`` (``.NAME.writing-*``), then a rename: ``path`` is the old
    file or the new one, never a part."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.writing-", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def write_text_file(path: str | Path, text: str, option: str) -> Path:
    """A companion file (``--comment``, ``--junit``) written atomically, UTF-8; a folder is refused."""
    path = target_path(path, option)
    refuse_special_output(path, option)
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder; give a file name")
    with guarded(path):
        _atomic_write(text.encode("utf-8"), path)
    return path
