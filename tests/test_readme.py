"""README.md starts with the project's two set-up commands, and stays true.

The reference the README used to hold is in docs/ (tests/test_docs.py checks those pages, and runs
every command of the README and the docs).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_the_setup_commands_are_the_first_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, flags=re.S).group(1)
    assert "pip install . && ragreport build" in first_block
    assert 'pip install ".[test]" && pytest' in first_block
    assert "pytest" in (ROOT / ".ci" / "run").read_text()
