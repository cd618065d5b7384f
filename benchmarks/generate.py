"""Seeded synthetic TREC qrels and runs for the benchmark.

Sizes (queries x documents per query): small 1,000 x 100; msmarco 7,000 x 1,000 with 1-3 relevant
each; large 20,000 x 1,000; wide 100,000 x 100; huge 100,000 x 1,000 (100 million lines, about
3.7 GB: the size users outgrow a machine at). Judgments are graded 0-3, scores have ties, and a
few queries have no relevant id.

    python benchmarks/generate.py small /tmp/bench
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

SIZES = {
    "small": (1_000, 100),
    "msmarco": (7_000, 1_000),
    "large": (20_000, 1_000),
    "wide": (100_000, 100),
    "huge": (100_000, 1_000),  # 100 million lines, about 3.7 GB of TREC text
    # The whole report past one machine (issue 42): a million and ten million queries x 10 ids.
    "million": (1_000_000, 10),
    "ten_million": (10_000_000, 10),
}


def generate(size: str, folder: Path, seed: int = 0) -> tuple[Path, Path]:
    queries, depth = SIZES[size]
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = folder / f"{size}.qrels", folder / f"{size}.run"
    corpus = depth * 20
    with qrels_path.open("w") as qrels, run_path.open("w") as run:
        for q in range(queries):
            relevant = rng.choice(corpus, size=rng.integers(1, 4), replace=False)
            grades = rng.integers(1, 4, size=len(relevant))
            if q % 97 == 0:
                grades[:] = 0  # a few queries with no relevant id
            judged_non = rng.choice(corpus, size=5, replace=False)
            lines = [f"q{q} 0 d{d} {g}\n" for d, g in zip(relevant, grades)]
            lines += [f"q{q} 0 d{d} 0\n" for d in judged_non if d not in relevant]
            qrels.writelines(lines)
            docs = rng.choice(corpus, size=depth, replace=False)
            hits = rng.random(len(relevant)) < 0.7
            docs[rng.integers(0, depth, size=hits.sum())] = relevant[hits][: hits.sum()]
            docs = list(dict.fromkeys(docs.tolist()))  # no repeats: trec_eval and the peers refuse them
            scores = np.round(np.sort(rng.random(len(docs)))[::-1] * 50, 1)  # one decimal: ties
            run.writelines(f"q{q} Q0 d{d} {r + 1} {s} bench\n" for r, (d, s) in enumerate(zip(docs, scores)))
    return qrels_path, run_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", choices=sorted(SIZES))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for path in generate(args.size, args.folder, args.seed):
        print(f"{path}  {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
