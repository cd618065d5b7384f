"""Where a build's time goes: each stage of ``ragreport build`` over two runs, timed in one process.

The stages are those ``ragreport build`` runs, called one by one from the library: read (the qrels
and both runs), join, score (every suite metric over the K sweep), readings (the two other readings of
unjudged ids, docs/conventions.md section 20.2), bands (the bootstrap and Wilson
bands of both runs, one shared resampling), comparison (limits, the paired bootstrap and the
randomization test), view (the view model of every page), pages (rendering the HTML, report.json
and summary.md) and write (the folder, its marker, the swap). Sizes: the two runs of
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

STAGES = ("read", "join", "score", "readings", "bands", "comparison", "view", "pages", "write")

TIMED = """
import json, resource, sys, time
from pathlib import Path
marks = {}
cpu = {}
clock, clock_cpu = time.perf_counter(), time.process_time()
def mark(stage):
    global clock, clock_cpu
    now, now_cpu = time.perf_counter(), time.process_time()
    marks[stage], cpu[stage] = now - clock, now_cpu - clock_cpu
    clock, clock_cpu = now, now_cpu
from ragreport.analysis.evaluation import shared_bands, shared_fingerprints
from ragreport.analysis.pipeline import analyse_runs
from ragreport.analysis.result import Analysis
from ragreport.analysis.summary import summarise
from ragreport.core.model import Conventions
from ragreport.output.document import report_document
from ragreport.output.site import prepare, render_site, write_site
from ragreport.output.view.build import build_view
from ragreport.reading.registry import load_inputs
from ragreport.scoring.cutoffs import DEFAULT_K, report_cutoffs
from ragreport.scoring.join import join
from ragreport.scoring.metrics import score
from ragreport.scoring.readings import score_readings
mark("import")
conventions = Conventions()
loaded = load_inputs(sys.argv[2:4], qrels=sys.argv[1])
mark("read")
judged = [join(item.run, item.judgments, conventions.relevance_level) for item in loaded]
mark("join")
asked, cutoffs = report_cutoffs(DEFAULT_K, None)
scores = [score(j, cutoffs, conventions) for j in judged]
mark("score")
readings = [score_readings(j, asked, conventions) for j in judged]
mark("readings")
drawn = shared_bands([(j, s, None) for j, s in zip(judged, scores)], conventions)
prints = shared_fingerprints(judged)
summaries = [
    summarise(j, s, asked, conventions, (), None, r, resampled=d, fingerprints=f)
    for j, s, r, d, f in zip(judged, scores, readings, drawn, prints)
]
mark("bands")
analysis = analyse_runs(summaries, make=Analysis)
mark("comparison")
view = build_view(analysis)
mark("view")
files = render_site(prepare(view, report_document(analysis)))
mark("pages")
write_site(files, sys.argv[4])
mark("write")
marks["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
marks["report_json_mb"] = len(files["report.json"]) / 1e6
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
