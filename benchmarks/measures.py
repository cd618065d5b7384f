"""The cost of each measure by name at a size (docs/conventions.md section 21): scoring time on a
run already read and joined, the median of a few calls, for the default measures and for each new
measure on its own.

    python benchmarks/measures.py msmarco --folder /tmp/bench [--repeat 3] [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generate import SIZES, generate  # noqa: E402

from ragreport.core.model import Conventions  # noqa: E402
from ragreport.reading.registry import load_runs  # noqa: E402
from ragreport.scoring.join import join  # noqa: E402
from ragreport.scoring.measures import parse_measures, score_measures  # noqa: E402

#: The benchmark's default set (benchmarks/run.py), then each measure of section 21 on its own.
ROWS = [
    ("default: P@10, R@100, AP@100, nDCG@10, RR@10, Hit@10", "P@10,R@100,AP@100,nDCG@10,RR@10,Hit@10"),
    (
        "the same with RR(rel=2)@10 and AP(rel=2)@100 beside",
        "P@10,R@100,AP@100,nDCG@10,RR@10,Hit@10,RR(rel=2)@10,AP(rel=2)@100",
    ),
    ("bpref", "bpref"),
    ("RBP (p = 0.8) and its residual, whole list", "RBP"),
    ("RBP(p=0.9)@10 and its residual", "RBP(p=0.9)@10"),
    ("ERR@10", "ERR@10"),
    ("ERR, whole list", "ERR"),
    ("infAP", "infAP"),
    ("gm_map", "gm_map"),
    ("iprec_at_recall, 11 levels", ",".join(f"iprec_at_recall_{level / 10:.2f}" for level in range(11))),
    ("Success@10 (Hit@10)", "Success@10"),
    ("nDCG(judged_only=True)@10 (the condensed list)", "nDCG(judged_only=True)@10"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", choices=sorted(SIZES))
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    qrels, run = generate(args.size, args.folder)
    loaded = load_runs([run], qrels=qrels)[0]
    judged = join(loaded.run, loaded.judgments)
    conventions = Conventions()
    if args.markdown:
        print("| measures | seconds |\n| --- | ---: |")
    for label, names in ROWS:
        measures = parse_measures([names])
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            score_measures(judged, measures, conventions)
            times.append(time.perf_counter() - start)
        seconds = statistics.median(times)
        print(f"| {label} | {seconds:.2f} |" if args.markdown else f"{label}: {seconds:.3f} s")


if __name__ == "__main__":
    main()
