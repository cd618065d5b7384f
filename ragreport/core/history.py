"""The layout of a history folder (``ragreport publish``) and the rule for its labels: names shared
by the reader of a history (:mod:`ragreport.output.exports.history_index`) and its writer (:mod:`ragreport.output`)."""

from __future__ import annotations

import re

HISTORY_MARKER = ".ragreport-history"
#: The first line of a history's marker; the lines below it list every file publish wrote and keeps
#: (ragreport.core.manifest).
HISTORY_HEADER = (
    "ragreport-history/2: written by `ragreport publish`; publish replaces or removes only the files "
    "listed below, unchanged, and keeps every other file."
)
#: The whole marker of histories published before the manifest: it lists nothing.
HISTORY_LEGACY = "This folder is a history written by `ragreport publish`; publish rewrites its index.\n"
HISTORY_FILE = "history.json"
HISTORY_SCHEMA = "ragreport-history/1"
#: Where each report of a history lives, relative to the history's folder.
REPORTS = "reports"
#: The keys every entry of ``history.json`` holds (the rest are read where they are shown).
ENTRY_KEYS = ("label", "date", "runs")
#: A label is a folder name and a segment of a web address on any system: no space, no slash, no
#: leading dot, nothing a URL would have to escape.
LABEL_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
LABEL_RULE = "letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters"


def valid_label(label: object) -> bool:
    return isinstance(label, str) and LABEL_PATTERN.fullmatch(label) is not None
