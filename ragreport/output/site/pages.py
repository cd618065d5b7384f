"""What the page templates need beyond the view model, which they read directly: Jinja filters for
what is particular to HTML (figures and tables serialised for the page's scripts under ids derived
from their content, the metadata notes as sanitised HTML) and the page's own words
(:mod:`ragreport.output.site.wording.page`, as ``words``), given by :func:`install`.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from .queryview import QueryView, packed
from .sanitize import render_notes
from .wording import page as words

if TYPE_CHECKING:
    import jinja2

    from .view.model import RunView


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def script_json(value: Any) -> Markup:
    """JSON safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` escaped, so no
    id or name can close the element or start another."""
    text = _json(value)
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def content_id(prefix: str, value: Any) -> str:
    """An element id derived from content (never random), so two builds give the same bytes."""
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


def figure(value: dict[str, Any] | None) -> dict[str, Any]:
    """A plotly figure as the page embeds it: an id from its content and its JSON."""
    if value is None:
        raise ValueError("the view was built without pages (build_view(..., pages=False))")
    return {"id": content_id("fig", value), "json": script_json(value)}


def query_table_id(run: RunView) -> str:
    """The id of a run's per-query table data (its name and query set: the same bytes every build)."""
    if run.queries is None:
        raise ValueError("the view was built without pages (build_view(..., pages=False))")
    return content_id("queries", [run.name, run.fingerprints["queries"]])


def query_view_id(query_view: QueryView) -> str:
    """The id of the query view's packed data."""
    return content_id("queryview", query_view.runs)


def notes_html(notes: str | None) -> Markup | None:
    """A run's Markdown notes rendered as sanitised HTML, None without notes."""
    return Markup(render_notes(notes)) if notes else None


def text_node(text: str) -> Markup:
    """Our own words escaped for a text node: ``&``, ``<`` and ``>``; quotes stay as they are (they
    close nothing outside an attribute), so an apostrophe reads as one in the page's source too."""
    return Markup(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def install(env: jinja2.Environment) -> None:
    """The filters and the words every page template may use."""
    env.filters.update(
        figure=figure,
        script_json=script_json,
        packed_json=packed,
        packed_query_view=QueryView.packed,
        query_table_id=query_table_id,
        query_view_id=query_view_id,
        notes_html=notes_html,
        text_node=text_node,
    )
    env.globals["words"] = words
