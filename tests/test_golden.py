"""Every output a user sees, compared byte for byte with the copies in tests/data/golden.

The copies were written by the version before a restructuring; a change that means to alter what
users see updates them in the same commit, on purpose::

    RAGREPORT_GOLDEN_UPDATE=1 pytest tests/test_golden.py

and the diff of tests/data/golden shows a reviewer exactly what changed. plotly.js itself is left
out (it is the installed plotly's file, copied as it is).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from ragreport.cli import main

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"
UPDATE = bool(os.environ.get("RAGREPORT_GOLDEN_UPDATE"))
#: 2026-12-01T00:00:00Z: the build day every copy was made on.
EPOCH = "1764547200"


def _outputs(case: str, tmp: Path, capsys) -> dict[str, bytes]:
    """Every output of one case, by the file name its copy has."""
    runs: list[str] = []
    options: list[str] = []
    if case == "two_runs":
        shutil.copy(DATA / "trec_eval_test" / "results.test", tmp / "bm25.trec")
        shutil.copy(DATA / "trec_eval_test" / "results.trunc", tmp / "trunc.trec")
        shutil.copy(DATA / "trec_eval_test" / "qrels.test", tmp / "qrels.test")
        runs = ["bm25.trec", "trunc.trec"]
        options = ["--qrels", "qrels.test", "-k", "10,20", "--permutations", "2000", "--resamples", "200"]
    elif case == "drift":
        shutil.copy(GOLDEN / "sample" / "site" / "report.json", tmp / "previous.json")
        options = ["--previous", "previous.json", "--seed", "3"]
    out: dict[str, bytes] = {}
    for fmt in ("table", "markdown", "json"):
        assert main(["score", *runs, *options, "--format", fmt, "--quiet"]) == 0
        out[f"score.{fmt}"] = capsys.readouterr().out.encode("utf-8")
    assert main(["build", *runs, *options, "--out", "site", "--quiet"]) == 0
    for path in sorted((tmp / "site").rglob("*")):
        if path.is_file() and path.name != "plotly.min.js":
            out["site/" + path.relative_to(tmp / "site").as_posix()] = path.read_bytes()
    # the marker lists plotly.min.js's digest, which is the installed plotly's, as the file is
    out["site/.ragreport-site"] = re.sub(
        rb"(?m)^[0-9a-f]{64}(  assets/plotly\.min\.js)$", rb"(installed plotly)\1", out["site/.ragreport-site"])
    if case == "two_runs":
        assert main(["score", "bm25.trec", "--qrels", "qrels.test", "--compat", "trec_eval", "--format", "trec",
                     "-q", "--quiet"]) == 0
        out["score.trec"] = capsys.readouterr().out.encode("utf-8")
    return out


@pytest.mark.parametrize("case", ["sample", "two_runs", "drift"])
def test_outputs_match_their_copies(case, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(tmp_path)
    outputs = _outputs(case, tmp_path, capsys)
    folder = GOLDEN / case
    if UPDATE:
        shutil.rmtree(folder, ignore_errors=True)
        for name, data in outputs.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    stored = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert sorted(outputs) == sorted(stored), "the set of output files changed"
    for name, data in outputs.items():
        assert data == stored[name], f"{case}/{name} differs from its copy in tests/data/golden"
