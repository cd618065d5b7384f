"""Where a build's time goes: each stage of ``ragreport build`` over two runs, timed in one process.

The stages are those of ``ragreport build`` itself, run in one process through its command line
(``ragreport.cli.commands.main``), each the time spent inside the functions that do it: read (the
qrels and both runs), join, score (every suite metric over the K sweep), readings (the two other
readings of unjudged ids, docs/conventions.md section 20.2), bands (the bootstrap and Wilson bands
of both runs, one shared resampling, and each run's summary), comparison (limits, the paired
bootstrap and the randomization test), view (the view model of every page), pages (report.json's
document and bytes, the HTML and summary.md), write (the folder, its marker, the swap) and other
(the command's own steps between them). So every setting of the command (its memory settings, the
lists cut once scored, report.json written as it is made) is timed as a user runs it. Sizes: the two runs of
``evidence.py`` cut to their first N queries (10,000 and 100,000 by default), so the growth from
one size to the next is the report's alone. Each size is the median of ``--repeat`` fresh
processes.

    python benchmarks/phases.py --folder /tmp/ragreport-phases [--queries 10000 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from generate import generate

STAGES = ("read", "join", "score", "readings", "bands", "comparison", "view", "pages", "write", "other")

TIMED = """
import json, resource, sys, time
from pathlib import Path

import ragreport.analysis.evaluation, ragreport.analysis.pipeline, ragreport.analysis.summary
import ragreport.cli.commands, ragreport.output.building, ragreport.output.exports.reportjson.write
ragreport.output.site.render, ragreport.output.site.view.build
import ragreport.reading.registry, ragreport.scoring.join, ragreport.scoring.metrics
import ragreport.scoring.readings

# Each stage is the time inside the functions that do it, as `ragreport build` calls them: every
# module's name for the function is replaced by a timed one. A call inside another timed call
# counts for the outer stage (the readings' own scoring is the readings'), and what lies outside
# every timed call (the command's own steps between stages) is "other".
TIMED_FUNCTIONS = {
    "read": [("ragreport.reading.registry", "load_inputs")],
    "join": [("ragreport.scoring.join", "join")],
    "score": [("ragreport.scoring.metrics", "score")],
    "readings": [("ragreport.scoring.readings", "score_readings")],
    "bands": [("ragreport.analysis.evaluation", "shared_bands"), ("ragreport.analysis.summary", "summarise")],
    "comparison": [("ragreport.analysis.pipeline", "analyse_runs")],
    "view": [("ragreport.output.site.view.build", "build_view")],
    "pages": [
        ("ragreport.output.exports.reportjson.write", "report_document"),
        ("ragreport.output.exports.reportjson.write", "report_json"),
        ("ragreport.output.site.render", "render_site"),
    ],
    "write": [("ragreport.output.site.render", "write_site")],
}
wall = dict.fromkeys(TIMED_FUNCTIONS, 0.0)
cpu = dict.fromkeys(TIMED_FUNCTIONS, 0.0)
depth = [0]


def timed(stage, function):
    def wrapper(*args, **kwargs):
        if depth[0]:
            return function(*args, **kwargs)
        depth[0] += 1
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            wall[stage] += time.perf_counter() - started
            cpu[stage] += time.process_time() - started_cpu
            depth[0] -= 1

    return wrapper


for stage, functions in TIMED_FUNCTIONS.items():
    for module_name, name in functions:
        original = getattr(sys.modules[module_name], name)
        wrapper = timed(stage, original)
        for module_name_, module in list(sys.modules.items()):
            if module_name_.startswith("ragreport") and getattr(module, name, None) is original:
                setattr(module, name, wrapper)

qrels, base, cand, out = sys.argv[1:5]
started, started_cpu = time.perf_counter(), time.process_time()
code = ragreport.cli.commands.main(["--no-config", "build", "--qrels", qrels, base, cand, "--out", out, "--quiet"])
assert code == 0, code
marks = dict(wall)
marks["other"] = time.perf_counter() - started - sum(wall.values())
cpu["other"] = time.process_time() - started_cpu - sum(cpu.values())
marks["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
marks["report_json_mb"] = Path(out, "report.json").stat().st_size / 1e6
marks["cpu"] = cpu
print(json.dumps(marks))
"""


def cut(source: Path, target: Path, queries: int) -> None:
    """The lines of ``source`` whose query is among the first ``queries`` (q0 ... q{queries-1})."""
    with source.open() as lines, target.open("w") as out:
        for line in lines:
            if int(line.split(" ", 1)[0][1:]) < queries:
                out.write(line)


def inputs(folder: Path, queries: int) -> list[Path]:
    """The qrels and the two runs (base, cand) of the wide size, cut to ``queries`` queries."""
    full = folder / "full"
    if not (full / "cand.run").exists():
        for name, seed in (("base", 0), ("cand", 1)):
            qrels, run = generate("wide", full / name, seed)
            if name == "base":  # both runs judged by the first seed's qrels
                shutil.copy(qrels, full / "wide.qrels")
            (full / f"{name}.run").write_text(run.read_text().replace(" bench\n", f" {name}\n"))
    sized = folder / str(queries)
    sized.mkdir(parents=True, exist_ok=True)
    paths = [sized / "wide.qrels", sized / "base.run", sized / "cand.run"]
    for path in paths:
        if not path.exists():
            cut(full / path.name, path, queries)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-phases"))
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = {}
    for queries in args.queries:
        paths = inputs(args.folder, queries)
        runs = []
        for _ in range(args.repeat):
            out = args.folder / f"site-{queries}"
            done = subprocess.run(
                [sys.executable, "-c", TIMED, *map(str, paths), str(out)], capture_output=True, text=True, check=True
            )
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        runs.sort(key=lambda r: sum(r[s] for s in STAGES))
        rows[queries] = runs[len(runs) // 2]
        print(f"  {queries:,} queries: {sum(rows[queries][s] for s in STAGES):.1f} s", file=sys.stderr)
    print("Seconds of wall clock (and of CPU, all threads) per stage, the median build of each size.\n")
    print("| stage | " + " | ".join(f"{q:,} queries" for q in rows) + " | growth (wall) |")
    print("| --- | " + " | ".join("---:" for _ in rows) + " | ---: |")
    first, last = rows[min(rows)], rows[max(rows)]
    for stage in (*STAGES, "total"):
        cells = [sum(r[s] for s in STAGES) if stage == "total" else r[stage] for r in rows.values()]
        cpu = [sum(r["cpu"][s] for s in STAGES) if stage == "total" else r["cpu"][stage] for r in rows.values()]
        growth = cells[-1] / cells[0] if cells[0] else float("nan")
        label = f"**{stage}**" if stage == "total" else stage
        shown = " | ".join(f"{c:.2f} s ({u:.2f})" for c, u in zip(cells, cpu))
        print(f"| {label} | {shown} | {growth:.1f}x |")
    print(
        "| peak memory | " + " | ".join(f"{r['peak_mb']:.0f} MB" for r in rows.values()) + f" | "
        f"{last['peak_mb'] / first['peak_mb']:.1f}x |"
    )
    print(
        "| report.json | " + " | ".join(f"{r['report_json_mb']:.1f} MB" for r in rows.values()) + f" | "
        f"{last['report_json_mb'] / first['report_json_mb']:.1f}x |"
    )


if __name__ == "__main__":
    main()
