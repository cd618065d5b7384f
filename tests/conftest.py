from __future__ import annotations

from pathlib import Path

import pytest

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
