"""Characters that must not reach a reader raw: shown as visible escapes in every text output.

A run name, an id or a metadata value may hold control characters (an escape sequence that
recolours or clears a terminal, a newline that forges a line of trec_eval's layout or a Markdown
block) or bidirectional controls (U+202E turns the rest of a line right to left, so a name could
reverse the report's own sentence around it). Text outputs (the terminal table, Markdown,
``--format trec``, LaTeX) show each such character as a Python-style escape (``\\x1b``,
``\\u202e``); the site isolates the user's words instead (``<bdi>``, ``dir="auto"``) and the
HTML escaping does the rest. CSV and JSON keep values as they are: they are data, and their own
quoting (RFC 4180, JSON strings) already keeps every character inside its field.
"""

from __future__ import annotations

import re

from .errors import BIDI_CONTROLS, _escape, os_text, os_text_problem, visible

__all__ = ["BIDI_CONTROLS", "field", "os_text", "os_text_problem", "visible"]

#: The ASCII blanks too (the readers' separators: a no-break space belongs to an id): a field of
#: trec_eval's layout cannot hold a separator.
_UNSAFE_IN_FIELD = re.compile(f"[ \\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")


def field(text: str) -> str:
    """``text`` as one blank-separated field: white space, controls and bidi characters escaped."""
    text = str(text)
    return _UNSAFE_IN_FIELD.sub(_escape, text) if _UNSAFE_IN_FIELD.search(text) else text
