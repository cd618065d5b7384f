"""One escaping function per medium the user's words (run names, ids, titles, metadata values, gate
rules) reach, used wherever that medium is written (docs/conventions.md section 23.4): Markdown
(summary.md, the step summary, ``--comment``, ``--format markdown``), the runner's workflow commands
(stdout under ``GITHUB_ACTIONS=true``) and plain text a browser lays out outside HTML markup (a
plotly title, an ``aria-label``). LaTeX has its own,
:func:`ragreport.output.exports.tables.latex_escape`; HTML is escaped by the templates (autoescape)
and isolated with ``<bdi>``.
"""

from __future__ import annotations

import re

from ...core.errors import visible

#: Every character Markdown (CommonMark and GitHub's) reads as a marker inside a line, escaped with a
#: backslash; ``<``, ``>`` and ``&`` as entities (a backslash does not stop an HTML tag in every
#: renderer).
_MARKDOWN_SPECIAL = str.maketrans(
    {c: "\\" + c for c in "\\`*_[]()#!|~"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " "}
)
#: An ``@`` that starts a mention (not inside a word, as in ``Recall@5`` or an e-mail address):
#: followed by a zero-width space, ``@name`` mentions nobody.
_MENTION = re.compile(r"(?<![0-9A-Za-z_`])@(?=[0-9A-Za-z])")
#: What starts a block when it begins a line: a list item (``-``, ``+``, ``1.``, ``1)``) or a
#: setext underline (``=``); escaped at the start of the text, which may begin a line.
_BLOCK_START = re.compile(r"^([-+=]|\d{1,9}(?=[.)]))")


def markdown_text(text: object) -> str:
    """The user's ``text`` as literal Markdown, on one line: control and bidi characters shown as
    escapes (``\\u202e``), every marker escaped, ``@name`` shown as ``@\\u200bname`` (no mention)."""
    escaped = _MENTION.sub("@\u200b", visible(str(text)).translate(_MARKDOWN_SPECIAL))
    return _BLOCK_START.sub(lambda m: m.group() + "\\" if m.group()[0].isdigit() else "\\" + m.group(), escaped)


_BACKTICKS = re.compile(r"`+")


def markdown_code(text: object, in_table: bool = True) -> str:
    """The user's ``text`` as one Markdown code span, shown exactly (controls as escapes, a newline
    as ``\\x0a``): fenced by one backtick more than its longest run of backticks, padded with a
    space when it starts or ends with one. In a table, ``|`` is escaped (GFM splits cells first)."""
    shown = visible(str(text))
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(shown)), default=0)
    fence = "`" * (longest + 1)
    if in_table:
        shown = shown.replace("|", "\\|")
    pad = " " if shown.startswith(("`", " ")) or shown.endswith(("`", " ")) or not shown else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def no_workflow_commands(text: str) -> str:
    """``text`` with every line that would begin with ``::`` (the runner reads such a line as a
    workflow command, leading blanks aside) starting with ``\\x3a:`` instead."""
    if "::" not in text:
        return text
    return "".join(
        re.sub(r"^(\s*):", r"\1\\x3a", line, count=1) if line.lstrip().startswith("::") else line
        for line in text.splitlines(keepends=True)
    )


def csv_no_workflow_commands(text: str) -> str:
    """CSV ``text`` with the first field of every line that would begin with ``::`` quoted (the
    value unchanged, as a CSV reader reads it), so that no line is a workflow command to a runner."""
    if "::" not in text:
        return text
    return "".join(
        '"' + line.replace("\r\n", "").split(",", 1)[0] + '"' + line[len(line.split(",", 1)[0]) :]
        if line.startswith("::")
        else line
        for line in text.splitlines(keepends=True)
    )


FSI, PDI = "\u2068", "\u2069"


def isolated(text: object) -> str:
    """The user's word isolated for plain text a browser lays out (a chart's title, an aria-label):
    between FSI and PDI, its own controls shown as escapes, so it cannot reorder the words around it."""
    return f"{FSI}{visible(str(text))}{PDI}"
