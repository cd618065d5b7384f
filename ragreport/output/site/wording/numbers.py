"""Number formats and the marked text every sentence is built of.

Text taken from the user's files (run names, ids, paths) is marked with :class:`Quoted` inside a
:class:`Text`, so that each renderer can escape it its own way (Markdown escapes only those parts;
HTML escapes everything anyway).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: What a missing figure reads as, everywhere.
NA = "n/a"


# --- Text with the user's words marked -------------------------------------------------------------


class Quoted(str):
    """A piece of text taken from the user's files (a run name, an id, a path), never ours."""


@dataclass(frozen=True)
class Text:
    """A sentence as pieces: our words (``str``) and the user's (:class:`Quoted`).

    ``str(text)`` is the plain sentence (terminal, HTML, where the template escapes it);
    ``text.render(quote)`` passes only the user's pieces through ``quote`` (Markdown escaping).
    """

    parts: tuple[str, ...]

    def __str__(self) -> str:
        return "".join(self.parts)

    def __add__(self, other: Text | str) -> Text:
        """The sentence followed by ``other`` (a plain ``str`` is our words)."""
        return Text(self.parts + (other.parts if isinstance(other, Text) else (other,)))

    def render(self, quote: Callable[[str], str]) -> str:
        return "".join(quote(p) if isinstance(p, Quoted) else p for p in self.parts)

    @property
    def pieces(self) -> tuple[tuple[str, bool], ...]:
        """(piece, taken from the user's files) pairs, for a template that styles the user's words."""
        return tuple((p, isinstance(p, Quoted)) for p in self.parts)


def said(template: str, **words: str) -> Text:
    """``template`` as a :class:`Text`, each ``{name}`` in it the user's word ``words[name]``.

    Written as an f-string of our words with the user's doubled (``f"{{run}} scores {decimal(x)}"``):
    only the names given are read, so the template holds only our words (figures, metric labels,
    this package's sentences), never text read from a file: that is added after it (``said(...) +``)."""
    pieces = re.split("{(" + "|".join(words) + ")}", template) if words else [template]
    return Text(tuple(Quoted(words[p]) if i % 2 else p for i, p in enumerate(pieces) if p or i % 2))


def listed(words: Sequence[str], sep: str = ", ", last: str | None = None) -> Text:
    """The user's ``words`` joined by ``sep``, the last two by ``last`` (``sep`` when None): ``a, b and c``."""
    parts: list[str] = []
    for i, word in enumerate(words):
        if i:
            parts.append(last if last is not None and i == len(words) - 1 else sep)
        parts.append(Quoted(word))
    return Text(tuple(parts))


# --- Numbers ----------------------------------------------------------------------------------------


def is_missing(value: float | None) -> bool:
    """None or NaN: a figure that could not be taken."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def snippet(text: str, most: int) -> str:
    """``text`` up to ``most`` characters, cut at a space where one is near, with an ellipsis."""
    cut = snippet_cut(text, most)
    return text if cut is None else text[:cut] + "…"


def snippet_cut(text: str, most: int) -> int | None:
    """Where :func:`snippet` cuts ``text`` (its kept length, before the ellipsis), None when it is
    kept whole: the pages' script cuts the shared text table's texts by these."""
    if len(text) <= most:
        return None
    cut = text.rfind(" ", most - 40, most)
    return len(text[: cut if cut > 0 else most].rstrip())


#: What a page shows of a document's text: a snippet, and the text on demand up to a length.
SNIPPET_CHARS = 240
FULL_TEXT_CHARS = 4_000


def decimal(value: float | None) -> str:
    """Three decimals, or ``n/a`` for a missing value: every mean, band end and score. A value that
    rounds to zero is ``0.000``, never ``-0.000`` (a kappa of exactly 0 is often ``-0.0``, or
    ``-1e-17`` from its subtraction)."""
    if is_missing(value):
        return NA
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def signed(value: float | None) -> str:
    """A difference with its sign and three decimals (``+0.012``), or ``n/a``; one that rounds
    to zero is ``0.000`` (never ``-0.000``)."""
    text = decimal(value)
    return text if text in (NA, "0.000") or text.startswith("-") else "+" + text


def p_value(p: float | None) -> str:
    """A p-value: three decimals, ``< 0.001`` below that, ``n/a`` when missing."""
    if p is None or math.isnan(p):
        return NA
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def band(low: float | None, high: float | None) -> str:
    """A band as ``[low, high]`` with three decimals, ``n/a`` for a missing end."""
    return f"[{decimal(low)}, {decimal(high)}]"


def signed_band(low: float | None, high: float | None) -> str:
    """A band on a difference: ``[-0.010, +0.034]``, ``n/a`` for a missing end."""
    return f"[{signed(low)}, {signed(high)}]"


def band_words(
    low: float | None, high: float | None, confidence: float | None = None, end: Callable[[float | None], str] = signed
) -> str:
    """A band in a sentence: ``band -0.010 to +0.034``; at a level, ``95% band -0.010 to +0.034``;
    ``end`` writes each end (a difference's by default)."""
    level = "" if confidence is None else f"{percent(confidence)} "
    return f"{level}band {end(low)} to {end(high)}"


def count(n: int) -> str:
    """A whole number with thousands separators: ``12,345``."""
    return f"{n:,}"


def counted(n: int, noun: str) -> str:
    """A count and its noun, plural unless it is 1: ``1 query``, ``12,345 queries``, ``2 pairs``."""
    if n != 1:
        noun = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{count(n)} {noun}"


def percent(confidence: float) -> str:
    """A confidence level as a whole percentage: ``95%``."""
    return f"{confidence:.0%}"


def alpha(value: float) -> str:
    """The level a corrected p is read at, as short as it goes: ``0.05``."""
    return f"{value:g}"


def short_hash(fingerprint: str) -> str:
    """A fingerprint as the first screen shows it: ``sha256:8cd2d2b78ead``; the full one stays a click away."""
    algorithm, _, digest = fingerprint.partition(":")
    return f"{algorithm}:{digest[:12]}" if digest else fingerprint[:19]
