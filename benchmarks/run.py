"""Time ragreport and its peers on the same files, each tool in its own process.

Measures reading the qrels and the run and scoring P@10, R@100, AP@100, nDCG@10, RR@10 and Hit@10
per query with their means, and the peak memory of the process; plus ragreport's whole `build`.
Peers that are not installed (`pip install ".[bench]"`) are skipped and said so.

    python benchmarks/run.py small msmarco --folder /tmp/bench [--repeat 3] [--markdown]

The ``huge`` size (100 million lines) times the stream engine alone (see STREAM_ONLY).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from generate import SIZES, generate

MEASURE_SNIPPET = """
import json, resource, sys, time
start = time.perf_counter()
marks = {{}}
{body}
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": elapsed, "read": marks["read"] - start if "read" in marks else None, "peak_mb": peak,
                  "check": check, "extra": marks.get("extra", {{}})}}))
"""

MEASURES = "P@10, R@100, AP@100, nDCG@10, RR@10, Hit@10"

# Each body starts its clock before its imports, sets marks["read"] once both files are read, and
# leaves the nDCG@10 mean in `check` (so the table shows the tools agree).
TOOLS = {
    "ragreport": """
from ragreport.scoring.join import join
from ragreport.reading.registry import load_runs
from ragreport.scoring.measures import parse_measures, score_measures
from ragreport.core.model import TREC_EVAL
loaded = load_runs([sys.argv[2]], qrels=sys.argv[1])[0]
marks["read"] = time.perf_counter()
judged = join(loaded.run, loaded.judgments)
values = score_measures(judged, parse_measures(["P@10,R@100,AP@100,nDCG@10,RR@10,Success@10"]), TREC_EVAL)
means = [float(v.mean()) for v in values]
check = means[3]
""",
    "pytrec_eval": """
import pytrec_eval
qrels, run = {}, {}
for line in open(sys.argv[1]):
    q, _, d, g = line.split(); qrels.setdefault(q, {})[d] = int(g)
for line in open(sys.argv[2]):
    q, _, d, _, s, _ = line.split(); run.setdefault(q, {})[d] = float(s)
marks["read"] = time.perf_counter()
result = pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "recall.100", "map_cut.100", "ndcg_cut.10", "recip_rank",
                                                "success.10"}).evaluate(run)
means = {m: sum(r[m] for r in result.values()) / len(result) for m in next(iter(result.values()))}
check = means["ndcg_cut_10"]
""",
    "ir_measures": """
import ir_measures
from ir_measures import P, R, AP, nDCG, RR, Success
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
marks["read"] = time.perf_counter()
measures = [P@10, R@100, AP@100, nDCG@10, RR@10, Success@10]
per_query = list(ir_measures.iter_calc(measures, qrels, run))
ndcg = [m.value for m in per_query if m.measure == nDCG@10]
check = sum(ndcg) / len(ndcg)
""",
    "ranx": """
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
marks["read"] = time.perf_counter()
metrics = ["precision@10", "recall@100", "map@100", "ndcg@10", "mrr@10", "hit_rate@10"]
first = time.perf_counter()
result = evaluate(qrels, run, metrics, make_comparable=True)
second = time.perf_counter()
evaluate(qrels, run, metrics, make_comparable=True)
marks["extra"] = {"first_call": second - first, "warm_call": time.perf_counter() - second}
check = result["ndcg@10"]
""",
}


def _measure(code: str, *args: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True)
    if result.returncode != 0:
        return {"error": (result.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def time_tool(body: str, qrels: Path, run: Path, repeat: int) -> dict:
    """The median run (by seconds) of ``repeat`` fresh processes."""
    code = MEASURE_SNIPPET.format(body=textwrap.dedent(body))
    runs = [_measure(code, qrels, run) for _ in range(repeat)]
    if any("error" in r for r in runs):
        return next(r for r in runs if "error" in r)
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]


def time_cli(arguments: list[str], qrels: Path, run: Path, out: Path, repeat: int) -> dict:
    """``ragreport ARGUMENTS`` in a fresh process (sys.argv[1:4] are the qrels, the run, the output)."""
    body = f"""
        import contextlib, io
        from ragreport.cli import main
        argv = [a.replace("QRELS", sys.argv[1]).replace("RUN", sys.argv[2]).replace("OUT", sys.argv[3])
                for a in {arguments!r}]
        with contextlib.redirect_stdout(io.StringIO()):
            check = main(argv)
    """
    code = MEASURE_SNIPPET.format(body=textwrap.dedent(body))
    runs = [_measure(code, qrels, run, out) for _ in range(repeat)]
    if any("error" in r for r in runs):
        return next(r for r in runs if "error" in r)
    return sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]


#: Sizes whose run is past what an in-memory read is for (100 million lines, 3.1 GB): only the
#: stream engine is timed, and the peers, which hold the whole run as Python objects (pytrec_eval
#: peaks at 5.6 times the run file on msmarco: some 17 GB here), are left out and said so.
STREAM_ONLY = {"huge"}


def table(size: str, folder: Path, repeat: int) -> tuple[list[dict], float]:
    """One row per tool (ranx twice: first call with its JIT compile, and a warm call)."""
    qrels, run = folder / f"{size}.qrels", folder / f"{size}.run"
    if not run.exists():
        qrels, run = generate(size, folder)
    if size in STREAM_ONLY:
        return stream_rows(qrels, run, folder, size, repeat), run.stat().st_size / 1e6
    rows = []
    for name, body in TOOLS.items():
        print(f"  timing {name} ...", file=sys.stderr)
        result = time_tool(body, qrels, run, repeat)
        if name == "ranx" and "extra" in result:
            read, calls = result["read"], result["extra"]
            rows.append({**result, "tool": "ranx (first call, with JIT)", "seconds": read + calls["first_call"]})
            rows.append({**result, "tool": "ranx (warm call)", "seconds": read + calls["warm_call"]})
        else:
            rows.append({**result, "tool": name})
    print("  timing ragreport build and the stream engine ...", file=sys.stderr)
    rows.append(
        {
            **time_cli(
                ["build", "--qrels", "QRELS", "RUN", "--out", "OUT", "--quiet"],
                qrels,
                run,
                folder / f"{size}-site",
                repeat,
            ),
            "tool": "ragreport build (bands, sweep, pages)",
        }
    )
    rows.append(
        {
            **time_cli(
                [
                    "score",
                    "--qrels",
                    "QRELS",
                    "RUN",
                    "--engine",
                    "stream",
                    "--partition-mb",
                    "32",
                    "--metrics",
                    "P@10,R@100,AP@100,nDCG@10,RR@10,Success@10",
                    "--format",
                    "json",
                ],
                qrels,
                run,
                folder / "unused",
                repeat,
            ),
            "tool": "ragreport score --engine stream (32 MB partitions)",
        }
    )
    return rows, run.stat().st_size / 1e6


def stream_rows(qrels: Path, run: Path, folder: Path, size: str, repeat: int) -> list[dict]:
    """The stream engine's score and build of a run too large to read whole; the peers are left out."""
    metrics = ["--metrics", "P@10,R@100,AP@100,nDCG@10,RR@10,Success@10", "--format", "json"]
    rows = [{"tool": f"{name} (not run: the whole run in memory)", "error": "left out"} for name in TOOLS]
    print("  timing ragreport score and build --engine stream ...", file=sys.stderr)
    rows.append(
        {
            **time_cli(
                ["score", "--qrels", "QRELS", "RUN", "--engine", "stream", *metrics], qrels, run, folder, repeat
            ),
            "tool": "ragreport score --engine stream",
        }
    )
    build = ["build", "--qrels", "QRELS", "RUN", "--engine", "stream", "--out", "OUT", "--quiet"]
    rows.append(
        {**time_cli(build, qrels, run, folder / f"{size}-site", repeat), "tool": "ragreport build --engine stream"}
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="+", choices=sorted(SIZES))
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-bench"))
    parser.add_argument("--repeat", type=int, default=3, help="processes per tool; the median is shown")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table for RESULTS.md")
    args = parser.parse_args()
    for size in args.sizes:
        rows, megabytes = table(size, args.folder, args.repeat)
        peers = [r["seconds"] for r in rows if "seconds" in r and not r["tool"].startswith("ragreport")]
        fastest = min(peers) if peers else None
        if args.markdown:
            print(f"\n**{size}** ({SIZES[size][0]:,} queries x {SIZES[size][1]:,} ids, run file {megabytes:.0f} MB)\n")
            print("| tool | seconds | read | x fastest peer | peak MB | peak / run file | nDCG@10 mean |")
            print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        else:
            print(f"size {size}: run file {megabytes:.1f} MB")
            print(
                f"{'tool':<40} {'seconds':>8} {'read':>7} {'x fastest peer':>15} {'peak MB':>8} "
                f"{'peak/file':>9} {'nDCG@10':>8}"
            )
        for r in rows:
            if r.get("error") == "left out":
                print(f"| {r['tool']} | - | - | - | - | - | - |" if args.markdown else f"{r['tool']:<40} left out")
                continue
            if "error" in r:
                print(
                    f"| {r['tool']} | failed: {r['error'][:70]} |"
                    if args.markdown
                    else f"{r['tool']:<40} failed: {r['error'][:70]}"
                )
                continue
            ratio = f"{r['seconds'] / fastest:.2f}" if fastest else "-"
            check = f"{r['check']:.4f}" if isinstance(r["check"], float) else "-"
            read = "-" if r.get("read") is None else f"{r['read']:.2f}"
            peak = f"{r['peak_mb']:.0f}"
            cells = (f"{r['seconds']:.2f}", read, ratio, peak, f"{r['peak_mb'] / megabytes:.1f}", check)
            if args.markdown:
                print(f"| {r['tool']} | " + " | ".join(cells) + " |")
            else:
                print(
                    f"{r['tool']:<40} {cells[0]:>8} {cells[1]:>7} {cells[2]:>15} {cells[3]:>8} {cells[4]:>9} "
                    f"{cells[5]:>8}"
                )


if __name__ == "__main__":
    main()
