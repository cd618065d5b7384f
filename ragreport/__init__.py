"""ragreport: retrieval-evaluation reports with every convention stated and every mean banded."""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Imported on first use, so that `import ragreport.reading.registry` (or the scoring path alone) does not
# pay for the report and site modules.
_EXPORTS = {
    **dict.fromkeys(("calc", "Calculated", "evaluate", "analyse", "document", "build", "Results", "Report"), "api"),
    **dict.fromkeys(("reanalyse", "check_gates", "open_history", "publish", "History"), "api"),
    "load_runs": "reading.registry",
    "parse_measures": "scoring.measures",
    "Measure": "scoring.catalogue",
    **dict.fromkeys(("Conventions", "Denominator", "Gain", "Missing", "Order"), "core.model"),
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'ragreport' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
