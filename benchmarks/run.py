"""Time ragreport and its peers on the same files, each tool in its own process.

Measures reading the qrels and the run and scoring P@10, R@100, AP@100, nDCG@10, RR@10 and Hit@10
per query with their means, and the peak memory of the process; plus ragreport's whole `build`.
Peers that are not installed (`pip install ".[bench]"`) are skipped and said so.

    python benchmarks/run.py small --folder /tmp/bench
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
{body}
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": elapsed, "peak_mb": peak, "check": check}}))
"""

TOOLS = {
    "ragreport": """
from ragreport.join import join
from ragreport.loaders import load_runs
from ragreport.measures import parse_measures, score_measures
from ragreport.model import TREC_EVAL
loaded = load_runs([sys.argv[2]], qrels=sys.argv[1])[0]
judged = join(loaded.run, loaded.judgments)
values = score_measures(judged, parse_measures(["P@10,R@100,AP@100,nDCG@10,RR@10,Success@10"]), TREC_EVAL)
check = float(values[3].mean())
""",
    "pytrec_eval": """
import pytrec_eval
qrels, run = {}, {}
for line in open(sys.argv[1]):
    q, _, d, g = line.split(); qrels.setdefault(q, {})[d] = int(g)
for line in open(sys.argv[2]):
    q, _, d, _, s, _ = line.split(); run.setdefault(q, {})[d] = float(s)
result = pytrec_eval.RelevanceEvaluator(qrels, {"P.10", "recall.100", "map_cut.100", "ndcg_cut.10", "recip_rank",
                                                "success.10"}).evaluate(run)
check = sum(r["ndcg_cut_10"] for r in result.values()) / len(result)
""",
    "ir_measures": """
import ir_measures
from ir_measures import P, R, AP, nDCG, RR, Success
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
result = ir_measures.calc_aggregate([P@10, R@100, AP@100, nDCG@10, RR@10, Success@10], qrels, run)
check = result[nDCG@10]
""",
    "ranx (first call, with JIT)": """
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
result = evaluate(qrels, run, ["precision@10", "recall@100", "map@100", "ndcg@10", "mrr@10", "hit_rate@10"],
                  make_comparable=True)
check = result["ndcg@10"]
""",
}


def time_tool(name: str, body: str, qrels: Path, run: Path) -> dict:
    code = MEASURE_SNIPPET.format(body=textwrap.dedent(body))
    result = subprocess.run([sys.executable, "-c", code, str(qrels), str(run)], capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["failed"])[-1]
        return {"tool": name, "error": last}
    return {"tool": name, **json.loads(result.stdout.strip().splitlines()[-1])}


def time_build(qrels: Path, run: Path, out: Path) -> dict:
    code = MEASURE_SNIPPET.format(body=textwrap.dedent("""
        from ragreport.cli import main
        check = main(["build", "--qrels", sys.argv[1], sys.argv[2], "--out", sys.argv[3], "--quiet"])
    """))
    result = subprocess.run([sys.executable, "-c", code, str(qrels), str(run), str(out)], capture_output=True,
                            text=True)
    if result.returncode != 0:
        return {"tool": "ragreport build (bands, sweep, pages)", "error": result.stderr.strip()[-200:]}
    return {"tool": "ragreport build (bands, sweep, pages)", **json.loads(result.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", choices=sorted(SIZES))
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-bench"))
    args = parser.parse_args()
    qrels, run = args.folder / f"{args.size}.qrels", args.folder / f"{args.size}.run"
    if not run.exists():
        qrels, run = generate(args.size, args.folder)
    rows = [time_tool(name, body, qrels, run) for name, body in TOOLS.items()]
    peers = [r["seconds"] for r in rows if "seconds" in r and r["tool"] != "ragreport"]
    fastest = min(peers) if peers else None
    rows.append(time_build(qrels, run, args.folder / f"{args.size}-site"))
    print(f"size {args.size}: run file {run.stat().st_size / 1e6:.1f} MB")
    print(f"{'tool':<40} {'seconds':>8} {'x fastest peer':>15} {'peak MB':>8} {'nDCG@10 mean':>13}")
    for r in rows:
        if "error" in r:
            print(f"{r['tool']:<40} skipped: {r['error'][:70]}")
            continue
        ratio = f"{r['seconds'] / fastest:.2f}" if fastest else "-"
        check = f"{r['check']:.4f}" if isinstance(r["check"], float) else str(r["check"])
        print(f"{r['tool']:<40} {r['seconds']:>8.2f} {ratio:>15} {r['peak_mb']:>8.0f} {check:>13}")


if __name__ == "__main__":
    main()
