from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

#: Property tests run their full count of examples in CI and a fifth of it on a laptop; a test states
#: its CI count through examples(n). HYPOTHESIS_PROFILE=ci runs the full count anywhere.
settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
settings.load_profile(PROFILE)


def examples(ci_count: int) -> int:
    """How many examples a property test draws: ``ci_count`` in CI, a fifth of it (at least 10) elsewhere."""
    return ci_count if PROFILE == "ci" else max(10, ci_count // 5)


ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


def oracle_dir(name: str) -> Path:
    """A folder of trec_eval's test inputs and expected outputs, copied into tests/data."""
    return DATA / name


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> Path of a new file under tmp_path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return _write
