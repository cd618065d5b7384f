"""The one signature every input format declares: a :class:`Reader`.

A format is a module that declares ``READER = Reader(...)``; :mod:`ragreport.reading.registry`
lists the readers, and detection, ``--input-format`` and loading go through that list only. So a
new format is one module and one line in the registry. A reader builds what it returns with the
builders of :mod:`ragreport.reading.rows`, which pass every id through the gate
(:mod:`ragreport.reading.gate`); the registry refuses anything else. A reader checks no id itself.
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

    #: The format's name: ``--input-format``'s value and the one detection returns.
    name: str
    #: Name endings that decide the format before any content is looked at (``.gz`` aside).
    extensions: tuple[str, ...]
    #: ``sniff(first_line, text, complete)``: whether a file is in this format, from its first data
    #: line and its text (all of it when ``complete``, else its head); None: the head cannot tell,
    #: give the whole text. Asked in registry order; None for the catch-all format, which takes
    #: every file no other reader claims (the registry has exactly one).
    sniff: Callable[[str, str, bool], bool | None] | None
    #: ``read_run(path, text, order, own_judgments)``: the run at ``path`` (``text``: its text when
    #: already read, else None), each list ranked as ``order`` says; and the judgments the file
    #: itself carries (None when it carries none: they then must come from ``--qrels``). With
    #: ``own_judgments`` (no ``--qrels``) a format that can carry them requires them.
    read_run: Callable[[Path, str | None, Order, bool], tuple[Run, Judgments | None]]
    #: ``read_qrels(path, text)``: the judgments at ``path``; None when the file turns out to be in
    #: the catch-all format, which then reads it. None when the format cannot hold qrels.
    read_qrels: Callable[[Path, str | None], Judgments | None] | None
    #: What a file of this format is, in an error that refuses it ("JSON lines").
    label: str
    #: ``read_run`` for a file detection found in this format, where that must differ from one
    #: ``--input-format`` names: a found CSV run tells ranks from scores in its third column and
    #: refuses when it cannot, a named one reads scores there. None: ``read_run``.
    read_detected: Callable[[Path, str | None, Order, bool], tuple[Run, Judgments | None]] | None = None
    #: A table format (a preset, :mod:`ragreport.reading.presets`): its column map and how its rows
    #: are got (``rows(path, text)``, :func:`~ragreport.reading.table.table_rows` or a shape of its
    #: own). The loader reads it with the user's ``--columns`` over the map, and ``--id-from``.
    #: None: not a table format.
    table: tuple[ColumnMap, Callable[[Path, str | None], Any]] | None = None
