"""What an audit of the model's labels costs (issue 22: ``--audit`` adds at most 1.5 times to a build).

A seeded pair of runs over ``--queries`` queries (100 ids each), judged by "model" qrels (every
query: 3 relevant ids graded 1-3 and 5 judged not relevant, among the run's ids and outside them),
and an audit of ``--audited`` of those queries whose grades differ from the model's on about a
fifth of the pairs. Each build (``ragreport build a b --qrels model [--audit human]``) runs in a
fresh process, the two alternated (without, with, without, ...) ``--repeat`` times; CPU seconds
(user + sys of the child) and wall seconds, the median of each.

    python benchmarks/audit.py --folder /tmp/ragreport-audit [--queries 2000] [--audited 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def make(folder: Path, queries: int, audited: int, seed: int = 0) -> tuple[Path, Path, Path, Path]:
    """(model qrels, audit, run a, run b), written once."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = model, human, a, b = tuple(folder / n for n in ("model.qrels", "human.qrels", "a.run", "b.run"))
    if all(p.exists() for p in paths):
        return model, human, a, b
    rng = np.random.default_rng(seed)
    model_lines, human_lines, a_lines, b_lines = [], [], [], []
    for q in range(queries):
        ids = rng.choice(2_000, size=108, replace=False)
        grades = np.concatenate([rng.integers(1, 4, size=3), np.zeros(5, dtype=np.int64)])
        for d, g in zip(ids[:8], grades):
            model_lines.append(f"q{q} 0 d{d} {g}\n")
            if q < audited:
                h = int(rng.integers(0, 4)) if rng.random() < 0.2 else int(g)
                human_lines.append(f"q{q} 0 d{d} {h}\n")
        for lines, name in ((a_lines, "a"), (b_lines, "b")):
            ranked = rng.permutation(ids)[:100]
            scores = np.sort(rng.random(100))[::-1]
            lines.extend(f"q{q} Q0 d{d} {r + 1} {s:.6f} {name}\n" for r, (d, s) in enumerate(zip(ranked, scores)))
    for path, lines in zip(paths, (model_lines, human_lines, a_lines, b_lines)):
        path.write_text("".join(lines))
    return model, human, a, b


def build(args: list[str], out: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``ragreport build`` in a fresh process."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ragreport", "build", *args, "--out", str(out), "--quiet"], check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-audit"))
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--audited", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    model, human, a, b = make(options.folder / f"{options.queries}-{options.audited}", options.queries, options.audited)
    common = [str(a), str(b), "--qrels", str(model)]
    times: dict[str, list[tuple[float, float]]] = {"without": [], "with": []}
    for _ in range(options.repeat):
        times["without"].append(build(common, options.folder / "out"))
        times["with"].append(build([*common, "--audit", str(human)], options.folder / "out"))
    median = {key: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for key, v in times.items()}
    load = os.getloadavg()[0]
    print(
        f"{options.queries:,} queries, {options.audited:,} audited, {options.repeat} alternated pairs, load {load:.2f}"
    )
    for key, (cpu, wall) in median.items():
        print(f"{key} --audit: CPU {cpu:.2f} s, wall {wall:.2f} s")
    (cpu_with, wall_with), (cpu_without, wall_without) = median["with"], median["without"]
    print(f"ratio: CPU {cpu_with / cpu_without:.2f}x, wall {wall_with / wall_without:.2f}x")


if __name__ == "__main__":
    main()
