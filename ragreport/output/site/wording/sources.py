"""How the outputs name the user's files."""

from __future__ import annotations

import re

from ....core.escape import os_text


def shown_source(source: str) -> str:
    """A run's file as the outputs show it: as given when relative; an absolute path only by its file
    name, so no report carries the layout of the machine that built it."""
    if source.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", source) or source.startswith("\\\\"):
        source = re.split(r"[\\/]", source)[-1]
    return os_text(source)  # a file name that is not UTF-8: its stray bytes as \xff
