"""The one number grammar (docs/conventions.md section 17): an optional sign, ASCII digits with at
most one decimal point, an optional exponent. Not numbers: ``1_0`` and ``0_1`` (which Python's
``float`` and ``int`` read as 10 and 1), ``nan``, ``inf``, ``0x1p3``, blanks inside, and non-ASCII
digits (``٠.٥``, ``０.５``, which ``float`` reads too). Every reader of a number written as text
uses it: the files' readers, the command line's and the config file's numbers, the measures'
parameters (``RR(rel=2)``, ``RBP(p=0.5)``, ``IPrec@0.5``) and the gates' thresholds. A whole
number is the same without a decimal point or an exponent (:data:`WHOLE`)."""

from __future__ import annotations

import re

NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: A whole number: an optional sign and ASCII digits (``int`` also reads ``1_0`` and ``٢``).
WHOLE = re.compile(r"[+-]?[0-9]+")


def read_number(text: str) -> float | None:
    """``text`` (stripped of ASCII blanks) as a float when the grammar admits it, else None."""
    stripped = text.strip(" \t\r\n\f\v")
    return float(stripped) if NUMBER.fullmatch(stripped) else None
