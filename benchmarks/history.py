"""What a history costs: ``ragreport publish`` against ``ragreport build`` as the history grows.

Publishes the same evaluation (four TREC runs of 300 queries, the layout tests' data) N times into
one history, each in a fresh process, and prints per publish its time and the history's size, with
``build`` of the same inputs beside it; then the folder against N separate sites.

    python benchmarks/history.py --reports 30 --folder /tmp/ragreport-history-bench
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sitetools import four_trec_runs  # noqa: E402


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _run(arguments: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "ragreport", *arguments, "--quiet"],
        check=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1790000000"},
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=30)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-history-bench"))
    args = parser.parse_args()
    shutil.rmtree(args.folder, ignore_errors=True)
    args.folder.mkdir(parents=True)
    qrels, runs = four_trec_runs(args.folder)
    inputs = ["--qrels", str(qrels), *map(str, runs)]
    build = sorted(_run(["build", *inputs, "--out", str(args.folder / f"site{i}")]) for i in range(3))[1]
    site = _size(args.folder / "site0")
    history = args.folder / "history"
    print(f"build: {build:.2f} s, one site {site / 1e6:.2f} MB")
    print("| reports | publish | index.html | history.json | history folder | as separate sites |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in range(1, args.reports + 1):
        seconds = _run(["publish", str(history), *inputs, "--label", f"r{n:03d}"])
        if n in (1, 2, 5, 10, 20, 30) or n == args.reports:
            print(
                f"| {n} | {seconds:.2f} s | {(history / 'index.html').stat().st_size / 1e3:.0f} KB | "
                f"{(history / 'history.json').stat().st_size / 1e3:.0f} KB | {_size(history) / 1e6:.1f} MB | "
                f"{n * site / 1e6:.1f} MB |"
            )


if __name__ == "__main__":
    main()
