"""Command line: parse arguments, call the library, turn a ragreport error into one line and exit 2.

- :mod:`~ragreport.cli.parser`: :func:`build_parser`, every command's options and their bounds;
- :mod:`~ragreport.cli.progress`: :class:`Progress`, the progress lines on stderr;
- :mod:`~ragreport.cli.commands`: the commands and :func:`main` (the console script
  ``ragreport = "ragreport.cli:main"``, and ``python -m ragreport``).
"""

from __future__ import annotations

from .commands import INTERNAL_ERROR_STATUS, main
from .parser import build_parser
from .progress import Progress

__all__ = ["INTERNAL_ERROR_STATUS", "Progress", "build_parser", "main"]
