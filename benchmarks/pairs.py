"""The wide build against pytrec_eval's read and score of one of its runs, in alternated pairs.

Issue 24's target: ``ragreport build`` over two runs of 100,000 queries x 100 ids (the wide pair
of ``phases.py``) takes at most as long as pytrec_eval's read and score of one of them. Both are
whole fresh processes, started in turn, A B A B ..., after one pair not counted; each pair's ratio
of wall clock is its own, so that a machine whose speed drifts over minutes (this one's moved by
40% within the hour) is shared by the two halves of a pair. pytrec_eval's side is the body of
``run.py``'s pytrec_eval row (read both files into dicts, evaluate P@10, R@100, AP@100, nDCG@10,
RR@10 and Hit@10, average them).

For each process: its wall clock (from the start of the process to its exit), its CPU (user +
system, with every child it waited for: the build's report.json child of docs/conventions.md
22.23) and its peak resident set (the largest of it and its children), from ``os.wait4``, as
``/usr/bin/time -v`` reads them. Prints the minimum, median and maximum of each, and of the
pairs' ratios. Nothing here is a test: no time is asserted.

    python benchmarks/pairs.py [--folder /tmp/ragreport-phases] [--pairs 8]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from phases import inputs
from run import MEASURE_SNIPPET, TOOLS


def timed(command: list[str], env: dict[str, str]) -> dict[str, float]:
    """One fresh process: wall seconds, CPU seconds (its waited-for children included), peak MB."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{command[0]} ... failed ({child.returncode}): {errors.decode()[-500:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss / 1024}


def spread(values: list[float], digits: int = 2) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f} to {max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-phases"))
    parser.add_argument("--pairs", type=int, default=8)
    args = parser.parse_args()
    qrels, base, cand = inputs(args.folder, 100_000)
    out = args.folder / "site-pairs"
    env = dict(os.environ, SOURCE_DATE_EPOCH="1")
    build = [sys.executable, "-m", "ragreport", "--no-config", "build", "--qrels", str(qrels), str(base), str(cand)]
    build += ["--out", str(out), "--quiet"]
    peer = [sys.executable, "-c", MEASURE_SNIPPET.format(body=textwrap.dedent(TOOLS["pytrec_eval"])), str(qrels)]
    peer.append(str(base))
    rows: dict[str, list[dict[str, float]]] = {"build": [], "pytrec_eval": []}
    for pair in range(args.pairs + 1):
        a, b = timed(build, env), timed(peer, env)
        if pair:  # the first pair warms the page cache and is not counted
            rows["build"].append(a)
            rows["pytrec_eval"].append(b)
        print(f"  pair {pair}: {a['wall']:.2f} s against {b['wall']:.2f} s", file=sys.stderr)
    ratios = [a["wall"] / b["wall"] for a, b in zip(rows["build"], rows["pytrec_eval"])]
    cpu = [a["cpu"] / b["cpu"] for a, b in zip(rows["build"], rows["pytrec_eval"])]
    print(f"{args.pairs} alternated pairs: median (min to max)\n")
    print("| process | wall s | CPU s | peak MB |")
    print("| --- | ---: | ---: | ---: |")
    for name, runs in rows.items():
        cells = [spread([r[key] for r in runs], 1 if key == "peak" else 2) for key in ("wall", "cpu", "peak")]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"| **build / pytrec_eval** | **{spread(ratios)}x** | {spread(cpu)}x | |")


if __name__ == "__main__":
    main()
