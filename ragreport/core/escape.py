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

#: Bidirectional controls: marks, embeddings, overrides and isolates (Unicode's Bidi_Control).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: C0 and C1 controls and DEL, the line and paragraph separators, and the bidi controls.
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")
_UNSAFE_KEEP_NEWLINES = re.compile(f"[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")
#: The ASCII blanks too (the readers' separators: a no-break space belongs to an id): a field of
#: trec_eval's layout cannot hold a separator.
_UNSAFE_IN_FIELD = re.compile(f"[ \\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{BIDI_CONTROLS}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control, separator and bidi character shown as an escape (``\\x1b``,
    ``\\u202e``); with ``keep_newlines``, ``\\n`` stays a line break (a whole output's final pass)."""
    text = str(text)
    pattern = _UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def field(text: str) -> str:
    """``text`` as one blank-separated field: white space, controls and bidi characters escaped."""
    text = str(text)
    return _UNSAFE_IN_FIELD.sub(_escape, text) if _UNSAFE_IN_FIELD.search(text) else text
