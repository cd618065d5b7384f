"""The one signature every input format declares: ``READER = Reader(...)`` in its module, listed
by :mod:`ragreport.reading.registry`. What a reader returns is built by
:mod:`ragreport.reading.rows`, whose builders pass every id through the gate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.model import Judgments, Order, Run
from .columns import ColumnMap


@dataclass(frozen=True)
class Reader:
    """An input format: how to recognise it and how to read runs (and qrels) in it."""

    #: ``--input-format``'s value, and the one detection returns.
    name: str
    #: Name endings that decide the format before any content is looked at (``.gz`` aside).
    extensions: tuple[str, ...]
    #: ``sniff(first_line, text, complete)``: whether a file is in this format, from its first data
    #: line and its text (``complete``, else its head); None: the head cannot tell. Asked in registry
    #: order; None for the one catch-all format, which takes every file no other reader claims.
    sniff: Callable[[str, str, bool], bool | None] | None
    #: ``read_run(path, text, order, own_judgments)``: the run (``text``: when already read), and the
    #: judgments the file carries (None: from ``--qrels``), required when ``own_judgments``.
    read_run: Callable[[Path, str | None, Order, bool], tuple[Run, Judgments | None]]
    #: ``read_qrels(path, text)``: the judgments; None when the file turns out to be in the catch-all
    #: format, which then reads it. None: the format cannot hold qrels.
    read_qrels: Callable[[Path, str | None], Judgments | None] | None
    #: What a file of this format is, in an error that refuses it ("JSON lines").
    label: str
    #: ``read_run`` for a file detection found, where that differs (a found CSV run tells ranks from
    #: scores in its third column, a named one reads scores). None: ``read_run``.
    read_detected: Callable[[Path, str | None, Order, bool], tuple[Run, Judgments | None]] | None = None
    #: A table format (a preset): its column map and ``rows(path, text)``; the loader reads it with
    #: ``--columns`` over the map, and ``--id-from``. None: not a table format.
    table: tuple[ColumnMap, Callable[[Path, str | None], Any]] | None = None
