"""The templates hold markup, not English: every word a reader sees comes from the wording
(ragreport.output.site.wording; the page's own words in wording/page.py, reached as ``words``)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from ragreport.output.site.wording import page

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
#: Jinja comments, statements and expressions: what a template computes rather than says.
JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
#: Attributes a reader sees or hears; their literal text is as much English as a text node.
SHOWN_ATTRIBUTES = ("title", "alt", "placeholder", "aria-label", "aria-description")
#: Text a template may hold as it is (none needed so far: add a marker here only if it is no word).
ALLOWED: frozenset[str] = frozenset()


class _Words(HTMLParser):
    """The text nodes and shown attributes holding a letter, outside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside_code = 0
        self.found: list[tuple[int, str]] = []

    def _keep(self, text: str) -> None:
        text = " ".join(text.split())
        if re.search(r"[^\W\d_]", text) and text not in ALLOWED:
            self.found.append((self.getpos()[0], text))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.inside_code += 1
        for name, value in attrs:
            if name in SHOWN_ATTRIBUTES and value:
                self._keep(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.inside_code -= 1

    def handle_data(self, data: str) -> None:
        if not self.inside_code:
            self._keep(data)


def hard_coded(source: str) -> list[tuple[int, str]]:
    """(line, text) of each piece of English a template's source states itself."""
    parser = _Words()
    # each Jinja construct becomes a space, keeping the line count for the message
    parser.feed(JINJA.sub(lambda m: " " + "\n" * m.group().count("\n"), source))
    parser.close()
    return parser.found


def _templates() -> list[Path]:
    found = sorted(TEMPLATES.rglob("*.html"))
    assert len(found) >= 10, found  # the folder is where this test thinks it is
    return found


def test_the_check_finds_english_in_markup_and_not_in_jinja():
    source = (
        "<h2>{{ words.RUNS_TITLE }}</h2>\n<p>{% if x %}Hard-coded{% endif %} <b>{{ n }}</b> 12 · ×</p>\n"
        '<input placeholder="filter" data-x="ok"><script>var a = "script";</script><style>p { a: b }</style>\n'
        "{# a comment #}<td title=\"{{ t }}\">{{ 'literal' }}</td>"
    )
    assert hard_coded(source) == [(2, "Hard-coded"), (3, "filter")]


def test_no_template_hard_codes_a_word():
    found = [
        f"{path.relative_to(TEMPLATES)}:{line}: {text!r}"
        for path in _templates()
        for line, text in hard_coded(path.read_text("utf-8"))
    ]
    assert not found, "English in a template (say it in ragreport/output/site/wording/page.py):\n" + "\n".join(found)


def test_every_word_a_template_names_is_in_the_wording():
    named = {name for path in _templates() for name in re.findall(r"\bwords\.(\w+)", path.read_text("utf-8"))}
    assert "RUNS_TITLE" in named  # the templates do read the page's words
    assert not sorted(name for name in named if not hasattr(page, name))


def test_a_sentence_is_stated_once():
    """The drift's heading and the history's heading of the newest drift are one constant."""
    from ragreport.output.site.wording import comparison, history

    assert page.SINCE_PREVIOUS is comparison.SINCE_PREVIOUS
    assert not hasattr(history, "HISTORY_SINCE_TITLE")


#: A string literal of the page's scripts that reads as words: a capital and a word after it, or
#: two words (the CSS classes, ids and attribute names they use are single lower-case words or hyphenated).
SCRIPT_WORDS = re.compile(r'"([A-Z][a-z]+[ ,.:][^"]*|[a-z]+ [a-z]+[^"]*)"')


def test_the_pages_scripts_state_no_words_of_their_own():
    # every sentence the scripts show comes with the page's data or attributes, from the wording
    for name in ("site.js", "unpack.js"):
        source = (TEMPLATES / "assets" / name).read_text("utf-8")
        code = "\n".join(line.split("//")[0] for line in source.splitlines())  # comments aside
        code_strings = ("use strict", "item is-", "thead th[data-col]")  # a directive, a class, a selector
        found = [m.group(1) for m in SCRIPT_WORDS.finditer(code) if m.group(1) not in code_strings]
        assert found == [], (name, found)
    assert SCRIPT_WORDS.search('x = "No query matches."') and not SCRIPT_WORDS.search('el("span", {"class": "mono"})')
