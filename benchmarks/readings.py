"""What the readings of unjudged ids and the power figures cost (issue 21: the readings at most
double the scoring time; a build stays within 1.3 times the build without them).

For each size (msmarco: 7,000 queries x 1,000 ids; wide: 100,000 queries x 100 ids), two runs
judged by the first seed's qrels (as benchmarks/evidence.py makes them):

- **scoring**, in this process, the median of ``--repeat``: a joined run scored at the report's
  cutoffs (every cutoff of the K sweep to 20, as ``score_and_summarise`` does), and the two
  readings at K = 10 (:func:`ragreport.scoring.readings.score_readings`);
- **build**: ``ragreport build`` of the two runs compared (readings, the comparison under each
  reading, power, caveats), each in a fresh process, the median of ``--repeat``; with
  ``--before DIR`` (a checkout of the code before the readings: ``git archive <commit> | tar -x -C
  DIR``) the same build with that code, for the ratio.

    python benchmarks/readings.py --folder /tmp/ragreport-readings [--repeat 3] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from generate import generate


def runs(folder: Path, size: str) -> tuple[Path, Path, Path]:
    """(qrels, base run, candidate run) of ``size``, made once."""
    place = folder / size
    qrels, base, cand = place / "qrels", place / "base.run", place / "cand.run"
    if not cand.exists():
        for name, seed in (("base", 0), ("cand", 1)):
            q, run = generate(size, place / name, seed)
            if name == "base":
                shutil.copy(q, qrels)
            (place / f"{name}.run").write_text(run.read_text().replace(" bench\n", f" {name}\n"))
    return qrels, base, cand


def scoring(qrels: Path, run: Path, repeat: int) -> tuple[float, float]:
    """Median seconds of the default scoring and of the two readings, on one joined run."""
    from ragreport.core.model import Conventions
    from ragreport.reading.registry import load_runs
    from ragreport.scoring.cutoffs import report_cutoffs
    from ragreport.scoring.join import join
    from ragreport.scoring.metrics import score
    from ragreport.scoring.readings import score_readings

    loaded = load_runs([str(run)], qrels=str(qrels))[0]
    judged = join(loaded.run, loaded.judgments)
    asked, cutoffs = report_cutoffs(10)
    default, readings = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        score(judged, cutoffs, Conventions())
        middle = time.perf_counter()
        score_readings(judged, asked, Conventions())
        default.append(middle - start)
        readings.append(time.perf_counter() - middle)
    return sorted(default)[repeat // 2], sorted(readings)[repeat // 2]


def build(arguments: list[str], code: Path | None) -> tuple[float, float]:
    """One ``ragreport build`` in a fresh process: (wall seconds, CPU seconds of the process)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1790000000"}
    if code is not None:
        env["PYTHONPATH"] = str(code)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ragreport", "build", *arguments, "--quiet"], check=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def builds(arguments: list[str], folder: Path, before: Path | None, repeat: int) -> tuple[list, list]:
    """The medians (wall, CPU) of ``repeat`` builds with this code and, when given, the code
    before, taken in turn (now, before, now, ...) so that a busy machine weighs on both alike."""
    now, then = [], []
    for _ in range(repeat):
        now.append(build([*arguments, str(folder / "site")], None))
        if before is not None:
            then.append(build([*arguments, str(folder / "before")], before))

    def median(times: list[tuple[float, float]]) -> list[float]:
        return [sorted(t[i] for t in times)[len(times) // 2] for i in range(2)] if times else []

    return median(now), median(then)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-readings"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="the code before the readings, for the build's ratio")
    parser.add_argument("--sizes", nargs="*", default=["msmarco", "wide"])
    args = parser.parse_args()
    print(
        "| size | scoring | readings | readings / scoring | build (2 runs): wall, CPU | before: wall, CPU "
        "| ratio: wall, CPU |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in args.sizes:
        qrels, base, cand = runs(args.folder, size)
        default, readings = scoring(qrels, cand, args.repeat)
        arguments = ["--qrels", str(qrels), str(base), str(cand), "--out"]
        now, then = builds(arguments, args.folder / size, args.before, args.repeat)
        shown = f"{then[0]:.1f} s, {then[1]:.1f} s" if then else "-"
        ratio = f"{now[0] / then[0]:.2f}, {now[1] / then[1]:.2f}" if then else "-"
        print(
            f"| {size} | {default:.2f} s | {readings:.2f} s | {readings / default:.2f} | "
            f"{now[0]:.1f} s, {now[1]:.1f} s | {shown} | {ratio} |"
        )


if __name__ == "__main__":
    main()
