from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
ORACLE = SHARED / "oracle"


def oracle_dir(name: str) -> Path:
    """A folder of ../shared/oracle; CI lays shared/ beside the clone, so it must be there."""
    path = ORACLE / name
    if not path.is_dir():
        if os.environ.get("CI"):
            raise AssertionError(f"{path} is missing: CI must have ../shared/oracle")
        pytest.skip(f"{path} not present outside CI")
    return path


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> Path of a new file under tmp_path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    return _write
