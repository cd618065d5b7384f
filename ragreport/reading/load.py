"""Reading runs to score: every input run with its judgments, metadata and name.

The formats and their detection are in :mod:`ragreport.reading.registry`; the metadata and the
naming rules in :mod:`ragreport.reading.meta`. Every problem with a file is an
:class:`~ragreport.core.errors.InputError` naming the file and the line; arguments that do not
fit together are a :class:`~ragreport.core.errors.UsageError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..core.errors import UsageError
from ..core.model import Judgments, Order, Run
from .meta import check_meta_count, check_unique_names, meta_for, run_name
from .registry import check_input_format, detect_file_format, load_qrels, reader_for


@dataclass(frozen=True)
class LoadedRun:
    """A run with the judgments it is to be scored against."""

    run: Run
    judgments: Judgments


def sample_path() -> Path:
    """The preloaded sample's JSONL file, inside the installed package."""
    # Imported only here: it costs a noticeable share of a small run's time.
    from importlib import resources

    return Path(str(resources.files("ragreport") / "sample" / "sample.jsonl"))


def load_runs(
    inputs: Sequence[str | Path],
    *,
    qrels: str | Path | None = None,
    metas: Sequence[str | Path] = (),
    input_format: str | None = None,
    order: Order = Order.SCORE,
) -> list[LoadedRun]:
    """Load every input run with its judgments and metadata; the sample when ``inputs`` is empty.

    Judgments come from ``qrels`` when given, else from the runs' own files (RAG JSONL). Metadata
    comes from ``metas`` (one per input, in order) or from ``RUN.meta.toml`` / ``RUN.meta.json``
    beside the run. A run is named by its metadata ``name``, else its file stem; names must be
    unique. ``input_format`` (a name of :data:`~ragreport.reading.registry.FORMATS`) skips
    detection.
    """
    paths = [Path(p) for p in inputs] or [sample_path()]
    check_meta_count(metas, len(paths))
    check_input_format(input_format)
    shared = load_qrels(qrels) if qrels is not None else None

    loaded: list[LoadedRun] = []
    for i, path in enumerate(paths):
        fmt, text = (input_format, None) if input_format else detect_file_format(path)
        run, own = reader_for(fmt).read_run(path, text, order, shared is None)
        judgments = shared if shared is not None else own
        if judgments is None:
            raise UsageError(f"{path}: a {fmt.upper()} run needs judgments: give them with --qrels FILE")
        meta = meta_for(path, metas[i] if metas else None)
        run = run.with_meta(meta, run_name(meta, path))
        if not inputs:  # an install path would make the report differ between machines
            run = replace(run, source="preloaded sample (ragreport/sample/sample.jsonl)")
        loaded.append(LoadedRun(run, judgments))
    check_unique_names((item.run.name, item.run.source) for item in loaded)
    return loaded
