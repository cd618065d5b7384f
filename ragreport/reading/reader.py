"""The one signature every input format declares: a :class:`Reader`.

A format is a module that declares ``READER = Reader(...)``; :mod:`ragreport.reading.registry`
lists the readers, and detection, ``--input-format`` and loading go through that list only. So a
new format is one module and one line in the registry. A reader builds what it returns with the
builders of :mod:`ragreport.reading.rows`, which pass every id through the gate
(:mod:`ragreport.reading.gate`); the registry refuses anything else. A reader checks no id itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from ..core.model import Judgments, Order, Run


class Sniff(Protocol):
    def __call__(self, first_line: str, text: str, complete: bool) -> bool | None:
        """Whether a file is in this format, from its first data line and its ``text`` (all of it
        when ``complete``, else its head). None: the head cannot tell, give the whole text."""


class ReadRun(Protocol):
    def __call__(self, path: Path, text: str | None, order: Order, own_judgments: bool) -> tuple[Run, Judgments | None]:
        """The run at ``path`` (``text``: its text when already read, else None), each list ranked
        as ``order`` says; and, with ``own_judgments``, the judgments the file itself carries (None
        for a format that carries none: they then must come from ``--qrels``)."""


class ReadQrels(Protocol):
    def __call__(self, path: Path, text: str | None) -> Judgments | None:
        """The judgments at ``path`` (``text``: its text when already read, else None); None when
        the file turns out to be in the catch-all format, which then reads it."""


@dataclass(frozen=True)
class Reader:
    """An input format: how to recognise it and how to read runs (and qrels) in it."""

    #: The format's name: ``--input-format``'s value and the one detection returns.
    name: str
    #: Name endings that decide the format before any content is looked at (``.gz`` aside).
    extensions: tuple[str, ...]
    #: Content detection, asked in registry order; None for the catch-all format, which takes
    #: every file no other reader claims (the registry has exactly one).
    sniff: Sniff | None
    read_run: ReadRun
    #: None when the format cannot hold qrels.
    read_qrels: ReadQrels | None
    #: What a file of this format is, in an error that refuses it ("JSON lines").
    label: str
