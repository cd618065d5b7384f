"""Markdown notes to safe HTML: render with ``markdown``, then keep only an allowlist.

Allowed: text formatting, lists, quotes, code, tables, headings and links with http(s), mailto or
in-page targets. Everything else is dropped: ``script``, ``style``, ``iframe`` and the like with
their content, other tags (their text is kept, escaped), every attribute not on the list (so no
``on*`` handlers and no ``style``), and any other URL scheme (``javascript:``, ``data:``, ...).
Images are dropped too: a report never fetches anything.
"""

from __future__ import annotations

import html
from html.parser import HTMLParser

import markdown as _markdown

ALLOWED_TAGS = frozenset(
    "p br hr strong b em i code pre blockquote ul ol li a h1 h2 h3 h4 h5 h6 "
    "table thead tbody tr th td del sup sub".split()
)
VOID_TAGS = frozenset({"br", "hr"})
DROP_WITH_CONTENT = frozenset(
    {"script", "style", "iframe", "object", "template", "noscript", "textarea", "title", "svg", "math", "frameset"}
)  # void tags (embed) have no content
ALLOWED_ATTRIBUTES = {"a": frozenset({"href", "title"}), "th": frozenset({"align"}), "td": frozenset({"align"})}
SAFE_SCHEMES = ("http://", "https://", "mailto:", "#")
# Headings in notes sit inside the report's own sections: shift them below its h2/h3.
HEADING_SHIFT = {"h1": "h4", "h2": "h5", "h3": "h6", "h4": "h6", "h5": "h6", "h6": "h6"}


def _safe_url(url: str) -> bool:
    cleaned = "".join(ch for ch in html.unescape(url) if ch > " ").lower()
    if cleaned.startswith(SAFE_SCHEMES):
        return True
    # A relative link has no scheme: nothing before the first ':' that ends a scheme name.
    head = cleaned.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return ":" not in head


class _Allowlist(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in DROP_WITH_CONTENT:
            self.skipping.append(tag)
        if self.skipping or tag not in ALLOWED_TAGS:
            return
        kept = [
            f' {name}="{html.escape(value, quote=True)}"'
            for name, value in attrs
            if name in ALLOWED_ATTRIBUTES.get(tag, ()) and value is not None and (name != "href" or _safe_url(value))
        ]
        if tag == "a":
            kept.append(' rel="noopener noreferrer nofollow"')
        name = HEADING_SHIFT.get(tag, tag)
        self.out.append(f"<{name}{''.join(kept)}>")
        if tag not in VOID_TAGS:
            self.open.append(name)

    def handle_startendtag(self, tag: str, attrs) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS and tag in ALLOWED_TAGS and not self.skipping and self.open:
            self.out.append(f"</{self.open.pop()}>")

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        name = HEADING_SHIFT.get(tag, tag)
        if tag in ALLOWED_TAGS and tag not in VOID_TAGS and name in self.open:
            while self.open:
                top = self.open.pop()
                self.out.append(f"</{top}>")
                if top == name:
                    break

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(html.escape(data, quote=False))

    def close(self) -> None:
        super().close()
        while self.open:
            self.out.append(f"</{self.open.pop()}>")


def sanitize_html(fragment: str) -> str:
    """``fragment`` reduced to the allowlist above; the result is safe to put in a page as is."""
    parser = _Allowlist()
    parser.feed(fragment)
    parser.close()
    return "".join(parser.out)


def render_notes(text: str) -> str:
    """Markdown ``text`` rendered (tables and fenced code on) and sanitised."""
    rendered = _markdown.markdown(text, extensions=["tables", "fenced_code"], output_format="html")
    return sanitize_html(rendered)
