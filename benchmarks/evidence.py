"""What the text behind the ids costs: a 100,000-query report built without and with a corpus of a
million passages (issue 15: within 1.5 times the time and 1.5 times the pages' size).

Two runs (the benchmark's "wide" size, 100,000 queries x 100 ids, two seeds) and a TSV corpus of
1,000,000 passages of about 300 characters; each build in a fresh process, the median of
``--repeat`` builds.

    python benchmarks/evidence.py --folder /tmp/ragreport-evidence [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from generate import generate

PASSAGES = 1_000_000
WORDS = np.array("the of and to in a is for on that with as by at from retrieval passage query answer".split())


def corpus(path: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    with path.open("w") as out:
        for start in range(0, PASSAGES, 10_000):
            words = WORDS[rng.integers(0, len(WORDS), size=(10_000, 50))]
            out.writelines(f"d{start + i}\t{' '.join(row)}\n" for i, row in enumerate(words))


def pages_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob("*.html"))


def build(arguments: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "ragreport", "build", *arguments, "--quiet"],
        check=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": "1790000000"},
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-evidence"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.folder
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "wide.qrels"
    if not (folder / "cand.run").exists():
        for name, seed in (("base", 0), ("cand", 1)):
            q, run = generate("wide", folder / name, seed)
            if name == "base":  # both runs judged by the first seed's qrels
                shutil.copy(q, qrels)
            (folder / f"{name}.run").write_text(run.read_text().replace(" bench\n", f" {name}\n"))
    if not (folder / "corpus.tsv").exists():
        corpus(folder / "corpus.tsv")
    runs = ["--qrels", str(qrels), str(folder / "base.run"), str(folder / "cand.run")]
    print(f"corpus: {PASSAGES:,} passages, {(folder / 'corpus.tsv').stat().st_size / 1e6:.0f} MB")
    rows = []
    for label, extra in (("without", []), ("with --corpus", ["--corpus", str(folder / "corpus.tsv")])):
        out = folder / ("site-" + label.split()[0])
        times = sorted(build([*runs, *extra, "--out", str(out)]) for _ in range(args.repeat))
        rows.append((label, times[len(times) // 2], pages_size(out), (out / "queries.html").stat().st_size))
    print("| build | time (median) | pages | of which queries.html |")
    print("| --- | ---: | ---: | ---: |")
    for label, seconds, size, view in rows:
        print(f"| {label} | {seconds:.1f} s | {size / 1e6:.1f} MB | {view / 1e6:.1f} MB |")
    print(f"ratio: time {rows[1][1] / rows[0][1]:.2f}, pages {rows[1][2] / rows[0][2]:.2f}")


if __name__ == "__main__":
    main()
