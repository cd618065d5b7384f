"""What the second hostile round's checks cost (issue 26): the benchmark's 4 x 300 case (four TREC
runs of 300 queries, the layout tests' data) built, rendered again and published twice, each command
in a fresh process, by this checkout and by an earlier one (``--before``, a folder holding an
older ragreport, e.g. ``git archive d196bcb | tar -x -C /tmp/before``). CPU time (user + system)
of the child process, the steadier figure on a shared machine; median of ``--repeat``.

    python benchmarks/hostile.py --before /tmp/before [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sitetools import four_trec_runs  # noqa: E402

HERE = Path(__file__).resolve().parent.parent


def _cpu(arguments: list[str], root: Path) -> float:
    """CPU seconds of ``python -m ragreport ARGUMENTS`` with ``root`` first on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [sys.executable, "-m", "ragreport", "--no-config", *arguments, "--quiet"],
        check=True,
        env={**os.environ, "PYTHONPATH": str(root), "SOURCE_DATE_EPOCH": "1790000000"},
        stdout=subprocess.DEVNULL,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _measure(root: Path, folder: Path, repeat: int) -> dict[str, float]:
    qrels, runs = four_trec_runs(folder)
    inputs = ["--qrels", str(qrels), *map(str, runs)]
    times: dict[str, list[float]] = {"build": [], "render": [], "publish (second report)": []}
    for i in range(repeat):
        site = folder / f"site{i}"
        times["build"].append(_cpu(["build", *inputs, "--out", str(site)], root))
        times["render"].append(_cpu(["render", str(site / "report.json"), "--out", str(folder / f"again{i}")], root))
        history = folder / f"history{i}"
        _cpu(["publish", str(history), *inputs, "--label", "v1"], root)
        times["publish (second report)"].append(_cpu(["publish", str(history), *inputs, "--label", "v2"], root))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-hostile-bench"))
    args = parser.parse_args()
    results = {}
    for name, root in (("before", args.before), ("now", HERE)):
        folder = args.folder / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        results[name] = _measure(root, folder, args.repeat)
    print("| command (4 runs x 300 queries) | before | now | change |")
    print("| --- | ---: | ---: | ---: |")
    for step in results["now"]:
        then, now = results["before"][step], results["now"][step]
        print(f"| {step} | {then:.2f} s | {now:.2f} s | {100 * (now - then) / then:+.1f}% |")


if __name__ == "__main__":
    main()
