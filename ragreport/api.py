"""The library entry point: files in, one :class:`~ragreport.summary.RunSummary` per run out."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .join import join
from .loaders import load_runs
from .model import Conventions
from .summary import RunSummary, summarise

#: K when none is given: 10, except the preloaded sample's 5 (SPEC.md section 7).
DEFAULT_K = 10
SAMPLE_K = 5


def evaluate(inputs: Sequence[str | Path] = (), *, qrels: str | Path | None = None, k: int | None = None,
             conventions: Conventions = Conventions(), kmax: int | None = None,
             metas: Sequence[str | Path] = (), input_format: str | None = None) -> list[RunSummary]:
    """Load, join, score and summarise every run; the preloaded sample when ``inputs`` is empty."""
    loaded = load_runs(inputs, qrels=qrels, metas=metas, input_format=input_format, order=conventions.order)
    if k is None:
        k = DEFAULT_K if inputs else SAMPLE_K
    return [summarise(join(item.run, item.judgments), k, conventions, kmax) for item in loaded]
