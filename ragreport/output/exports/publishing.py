"""A history folder opened for ``ragreport publish`` (:func:`open_history`), before any run is read.

Opening checks the folder (a history, or missing or empty), puts back a history a killed publish
left aside, reads ``history.json`` and the report the new one is measured against;
:func:`ragreport.api.publish` then adds the report (:mod:`ragreport.output.exports.history` makes the
entries and the page's context, :mod:`ragreport.output.site.render` writes the folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import UsageError
from ...core.history import HISTORY_FILE, REPORTS
from ..site.wording import messages as say
from ..site.writing import folder_problem, recover_before_reading, target_path
from .history import check_label, digest, previous_entry
from .history_index import load_history
from .reportjson.previous import load_previous


@dataclass(frozen=True)
class History:
    """A history folder opened for :func:`ragreport.api.publish`, checked before any run is read.

    Attributes
    ----------
    folder : pathlib.Path
        The history's folder.
    entries : tuple of dict
        Its entries (``history.json``), newest first.
    label : str or None
        The label asked for (None: the report's date, made unique).
    previous : dict or None
        The report.json of the report a new one is measured against.
    previous_label, previous_digest : str or None
        That report's label and the digest of its report.json.
    index : bytes or None
        ``history.json``'s bytes as read (``b""``: none), so that a publish that ran meanwhile
        is noticed.

    See Also
    --------
    open_history : makes it.

    Examples
    --------
    A new history has no entries, and so nothing to measure drift against:

    >>> import pathlib, tempfile
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "new")
    >>> history.entries, history.previous, history.previous_basis
    ((), None, None)
    """

    folder: Path
    entries: tuple[dict[str, Any], ...]
    label: str | None
    previous: dict[str, Any] | None  # that report's report.json
    previous_label: str | None
    previous_digest: str | None
    #: history.json's bytes as read (b"": none), so that a publish that ran meanwhile is noticed
    index: bytes | None = None

    def __repr__(self) -> str:
        """One line: ``History(folder='eval', reports=3, label='v4', previous='v3')``."""
        return (
            f"History(folder={str(self.folder)!r}, reports={len(self.entries)}, label={self.label!r}, "
            f"previous={self.previous_label!r})"
        )

    @property
    def previous_basis(self) -> tuple[dict, str] | None:
        """What :func:`analyse` takes to measure the drift since the previous report."""
        return None if self.previous is None or self.previous_label is None else (self.previous, self.previous_label)


def open_history(folder: str | Path, label: str | None = None) -> History:
    """The history in ``folder``, checked before any run is read; a new one when missing or empty.

    The drift of the report to publish is measured against the report published before it: the
    newest one, or for a ``label`` published again the one older than that label.

    Parameters
    ----------
    folder : path
        The history's folder (``ragreport publish DIR``).
    label : str, optional
        The new report's label (its folder and address under ``reports/``); default its date,
        made unique. A label published already replaces that report.

    Returns
    -------
    History
        The folder, its entries and the report the new one is measured against
        (:attr:`History.previous_basis`).

    Raises
    ------
    ragreport.core.errors.UsageError
        A folder that is not a history, or a broken ``history.json``.
    ragreport.core.errors.ArgumentError
        A ``label`` that cannot name a folder and a web address.

    See Also
    --------
    ragreport.api.publish : adds a report to it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "history")
    >>> history.entries, history.previous_basis
    ((), None)
    >>> open_history(history.folder, label="no/slash")
    Traceback (most recent call last):
    ...
    ragreport.core.errors.ArgumentError: label 'no/slash': a label names a folder and a web address: ...
    """
    folder = target_path(folder, "publish DIR")
    problem = folder_problem(folder)
    if problem is not None:
        raise UsageError(say.refusing_to_publish(str(folder), problem, advice=False))
    recover_before_reading(folder)  # a history a killed publish left aside is put back first
    entries = tuple(load_history(folder))
    if label is not None:
        check_label(label)
    before = previous_entry(entries, label) if label is not None else (entries[0] if entries else None)
    previous = previous_label = previous_digest = None
    if before is not None:
        previous_label = str(before["label"])
        path = folder / REPORTS / previous_label / "report.json"
        previous = load_previous(path)
        previous_digest = digest(path.read_bytes())
    index_path = folder / HISTORY_FILE
    index = index_path.read_bytes() if index_path.is_file() else b""
    return History(folder, entries, label, previous, previous_label, previous_digest, index)
