"""Every table of benchmarks/RESULTS.md, from one command: the tools side by side at every size
(run.py), where a build's time goes at 10,000 and 100,000 queries (phases.py), the pages in
Chromium at 100,000 queries (browser.py, on phases.py's files) and the 100-million-line run on the
stream and Dask engines (cluster.py).

    pip install ".[bench]"
    python benchmarks/results.py --folder /tmp/ragreport-bench > /tmp/results.md

Each script runs in its own process and prints Markdown; this one prints them in order under
their headings. The files are generated once (benchmarks/generate.py, seeded) and reused: about
4.5 GB of disk for every size.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def run(script: str, *arguments: str) -> str:
    done = subprocess.run([sys.executable, str(HERE / script), *arguments], capture_output=True, text=True, check=True)
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-bench"))
    parser.add_argument("--repeat", type=int, default=3, help="processes per timing (the median is shown)")
    args = parser.parse_args()
    folder = str(args.folder)
    print("## The tools side by side\n")
    print(run("run.py", "small", "msmarco", "wide", "--markdown", "--repeat", str(args.repeat), "--folder", folder))
    print(run("run.py", "large", "huge", "--markdown", "--repeat", "1", "--folder", folder))
    print("\n## Where a build's time goes\n")
    print(run("phases.py", "--folder", str(args.folder / "phases"), "--repeat", str(args.repeat)))
    print("\n## The pages in Chromium at 100,000 queries\n")
    print(run("browser.py", "--folder", str(args.folder / "phases"), "--repeat", str(max(args.repeat, 5))))
    print("\n## 100 million lines: stream and Dask\n")
    print(run("cluster.py", "--folder", folder))


if __name__ == "__main__":
    main()
