"""The report rendered and written: a site folder and/or one file (:func:`build_outputs`), or a
report added to a history (:func:`publish_report`); what :func:`ragreport.api.build` and
:func:`ragreport.api.publish` and the commands run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.history import REPORTS
from .document import report_document, with_gates
from .gates import GateResult, GateRules
from .history import ROOT, choose_label, digest, history_entry, keep_newest, place
from .publishing import History
from .site import prepare, render_history, render_single, render_site, write_file, write_history, write_site
from .view import build_view
from .writing import target_path

if TYPE_CHECKING:
    from ..analysis.result import Analysis


def _quiet(stage: str) -> None:
    return None


def build_outputs(
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
    """The site folder ``out`` and/or the one-file report ``single_file`` written; what was
    written (:func:`ragreport.api.build` says what each argument takes)."""
    if out is not None:  # an empty name is an error before anything is rendered or written
        target_path(out, "--out")
    if single_file is not None:
        target_path(single_file, "--single-file")
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


def publish_report(
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
    """The report added to ``history`` and its page rewritten; the report's folder
    (:func:`ragreport.api.publish` says what each argument takes)."""
    progress("rendering")
    made = with_gates(document if document is not None else report_document(analysis, title), gates, rules)
    label = choose_label(history.label, str(made["date"]), history.entries)
    report = prepare(build_view(analysis, title=title, gates=gates), made)
    site = render_site(report, root=ROOT)
    entry = history_entry(made, label, digest(site["report.json"]), history.previous_digest)
    entries, dropped = keep_newest(place(list(history.entries), entry), keep)
    files = render_history(entries)
    if any(e["label"] == label for e in entries):
        files.update({f"{REPORTS}/{label}/{name}": data for name, data in site.items()})
    progress("writing")
    replaced = [label] if any(e["label"] == label for e in history.entries) else []
    write_history(history.folder, files, replaced=replaced + dropped, index=history.index)
    return history.folder / REPORTS / label
