"""The report rendered and written: a site folder and/or one file (:func:`build`), or a report
added to a history (:func:`publish`). Both are entry points, re-exported by :mod:`ragreport.api`;
the commands call them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import Argument
from .exports.gates import GateResult, GateRules
from .exports.history import (
    REPORTS,
    ROOT,
    History,
    choose_label,
    digest,
    history_entry,
    keep_newest,
    place,
    render_history,
    write_history,
)
from .exports.reportjson.write import report_document, with_gates
from .site.render import prepare, render_single, render_site, write_file, write_site
from .site.view.build import build_view
from .site.writing import target_path

if TYPE_CHECKING:
    from ..analysis.pipeline import Analysis


def _quiet(stage: str) -> None:
    return None


def build(
    analysis: Analysis,
    *,
    out: str | Path | None = "site",
    single_file: str | Path | None = None,
    title: str | None = None,
    progress: Callable[[str], None] = _quiet,
    gates: Sequence[GateResult] = (),
    document: dict | None = None,
    rules: GateRules | None = None,
) -> list[Path]:
    """Render the report and write the site folder ``out`` and/or the one-file report ``single_file``.

    Every page is self-contained (no network, its script and stylesheet inline). A folder is
    written beside its target and moved into place; one that is not an earlier ragreport build is
    refused, never replaced.

    Parameters
    ----------
    analysis : Analysis
        What :func:`analyse` (or :func:`reanalyse`) returns.
    out : path or None, default "site"
        The site folder (index.html, a page per run, the comparison, report.json, summary.md);
        None: no folder.
    single_file : path, optional
        One HTML file holding the whole report.
    title : str, optional
        The report's title.
    progress : callable, optional
        Called with the name of each stage as it starts.
    gates : sequence of GateResult, default ()
        Gate results (:func:`check_gates`), shown on the index, in summary.md and in report.json.
    document : dict, optional
        The report document, when the caller made it already (:func:`document`).
    rules : GateRules, optional
        The rules ``gates`` checked, kept in report.json's settings.

    Returns
    -------
    list of pathlib.Path
        What was written: the folder, then the single file.

    Raises
    ------
    ragreport.core.errors.UsageError
        An empty name, or a target that is not an earlier ragreport output.
    ragreport.core.errors.WriteError
        An output that could not be written; what was there before is left as it was.

    See Also
    --------
    publish : the report added to a history of reports.
    document : report.json alone.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ragreport.api import analyse, evaluate
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> written = build(analyse(evaluate(k=5)), out=folder / "site", single_file=folder / "report.html")
    >>> [path.name for path in written]
    ['site', 'report.html']
    >>> (folder / "site" / "index.html").is_file()
    True
    """
    if out is not None:  # an empty name is an error before anything is rendered or written
        target_path(out, Argument("out"))
    if single_file is not None:
        target_path(single_file, Argument("single_file"))
    progress("rendering")
    made = with_gates(document if document is not None else report_document(analysis, title), gates, rules)
    report = prepare(build_view(analysis, title=title, gates=gates), made)
    outputs = []
    site_files = render_site(report) if out is not None else None
    single = render_single(report) if single_file is not None else None
    progress("writing")
    if out is not None and site_files is not None:
        outputs.append(write_site(site_files, out))
    if single_file is not None and single is not None:
        outputs.append(write_file(single, single_file))
    return outputs


def publish(
    analysis: Analysis,
    history: History,
    *,
    title: str | None = None,
    keep: int | None = None,
    progress: Callable[[str], None] = _quiet,
    gates: Sequence[GateResult] = (),
    document: dict | None = None,
    rules: GateRules | None = None,
) -> Path:
    """Add the report to a history of reports and rewrite its page; the report's folder.

    The report goes to ``reports/LABEL/`` (a label published again replaces that report only),
    ``history.json`` and ``index.html`` are made again from the entries, ``keep`` prunes the
    oldest reports; everything is written beside the folder and moved into place in one rename.

    Parameters
    ----------
    analysis : Analysis
        What :func:`analyse` returns, made with ``previous=history`` for the
        drift since the report published before.
    history : History
        The history folder, from :func:`open_history`.
    title : str, optional
        The report's title.
    keep : int, optional
        Keep the newest ``keep`` reports (at least 1); default all.
    progress : callable, optional
        Called with the name of each stage as it starts.
    gates : sequence of GateResult, default ()
        Gate results (:func:`check_gates`), shown as :func:`build` shows them.
    document : dict, optional
        The report document, when the caller made it already.
    rules : GateRules, optional
        The rules ``gates`` checked.

    Returns
    -------
    pathlib.Path
        The report's folder, ``history.folder / "reports" / LABEL``.

    Raises
    ------
    ragreport.core.errors.ArgumentError
        ``keep`` below 1 (``keep=0: keep at least 1 report``).
    ragreport.core.errors.WriteError
        A history that could not be written; the one there before is left as it was.

    See Also
    --------
    open_history : the history, checked before any run is read.
    build : one report's site alone.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ragreport.api import analyse, evaluate, open_history
    >>> history = open_history(pathlib.Path(tempfile.mkdtemp()) / "history", label="first")
    >>> report = analyse(evaluate(k=5), previous=history)
    >>> publish(report, history).name
    'first'
    >>> sorted(path.name for path in history.folder.iterdir() if not path.name.startswith("."))
    ['assets', 'history.json', 'index.html', 'reports']
    """
    progress("rendering")
    made = with_gates(document if document is not None else report_document(analysis, title), gates, rules)
    label = choose_label(history.label, str(made["date"]), history.entries)
    report = prepare(build_view(analysis, title=title, gates=gates), made)
    shared: dict[str, bytes] = {}  # the documents' text: once in the history's assets/, by content
    site = render_site(report, root=ROOT, texts_asset=shared)
    entry = history_entry(made, label, digest(site["report.json"]), history.previous_digest)
    entries, dropped = keep_newest(place(list(history.entries), entry), keep)
    files = render_history(entries)
    if any(e["label"] == label for e in entries):
        files.update({f"{REPORTS}/{label}/{name}": data for name, data in site.items()})
        files.update(shared)
    progress("writing")
    replaced = [label] if any(e["label"] == label for e in history.entries) else []
    write_history(history.folder, files, replaced=replaced + dropped, index=history.index)
    return history.folder / REPORTS / label
