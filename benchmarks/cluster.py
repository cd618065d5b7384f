"""The 100-million-line run on Dask: ``ragreport score --engine dask`` on local clusters of 1 and 2
worker processes, the stream engine beside them, and what N machines would take; with ``--build``,
the whole report of two runs (``ragreport build``, issue 42) at a size of ``generate.py``
(``million``, ``ten_million``: seeds 0 and 1, scored against the first seed's qrels).

Each timing is a fresh process (``ragreport score ... --scheduler ADDRESS``) against a cluster
started here (``dask.distributed.LocalCluster``, one thread per worker); the figures must be the
same as the stream engine's, byte for byte. The projection for N machines is on paper: the
measured time of one partition on one worker, times the partitions, divided by N, plus the time
the client spends outside the partitions (the 1-worker run minus its partitions' work).

    python benchmarks/cluster.py --folder /tmp/ragreport-huge [--workers 1 2] [--partition-mb 256]
    python benchmarks/cluster.py --build --size ten_million --folder /tmp/ragreport-10m --partition-mb 64
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from generate import generate


def timed(command: list[str], out: Path) -> tuple[float, float]:
    """Wall seconds and the peak resident memory (MB) of the command's process, by /usr/bin/time
    (the Dask workers are the cluster's processes, not the command's)."""
    start = time.perf_counter()
    with out.open("wb") as handle:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", *command],
            stdout=handle,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
            env={**os.environ, "SOURCE_DATE_EPOCH": "1790000000"},
        )
    seconds = time.perf_counter() - start
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024


def sample_agrees(qrels: Path, run: Path, stream: Path, queries: int = 5_000) -> tuple[int, int]:
    """The in-memory engine on the run's first ``queries`` queries (their lines cut out), against the
    stream engine's per-query figures for them: (figures compared, figures that differ)."""
    sample = run.with_name("sample.run")
    wanted = {f"q{i}" for i in range(queries)}
    with run.open() as lines, sample.open("w") as out:
        for line in lines:
            if line.split(" ", 1)[0] not in wanted:
                break  # the queries come in order: the sample is the file's head
            out.write(line)
    memory = run.with_name("sample-memory.json")
    with memory.open("wb") as handle:
        command = [sys.executable, "-m", "ragreport", "score", "--qrels", str(qrels), str(sample), "-k", "10"]
        subprocess.run([*command, "--format", "json"], stdout=handle, check=True)
    from ragreport.output.exports.reportjson.migrate import query_rows  # report.json's columns as rows

    made, streamed = json.loads(memory.read_text()), json.loads(stream.read_text())
    by_memory = {q["id"]: q for q in query_rows(made, made["runs"][0])}
    by_stream = {q["id"]: q for q in query_rows(streamed, streamed["runs"][0])}
    compared = differ = 0
    for qid in sorted(wanted):
        for key, value in by_memory[qid].items():
            compared += 1
            differ += value != by_stream[qid][key]
    return compared, differ


def two_runs(size: str, folder: Path) -> tuple[Path, Path, Path]:
    """The qrels and two runs of ``size`` (seeds 0 and 1), made once in ``folder``."""
    qrels, base, cand = folder / "a" / f"{size}.qrels", folder / "base.run", folder / "cand.run"
    if not cand.exists():
        for name, seed in (("base", 0), ("cand", 1)):
            _, run = generate(size, folder / "ab"[seed], seed)
            run.rename(folder / f"{name}.run")
    return qrels, base, cand


def site_bytes(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/ragreport-huge"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--partition-mb", type=int, default=256)
    parser.add_argument("--machines", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--build", action="store_true", help="build the report of two runs, not score one")
    parser.add_argument("--size", default="huge", help="generate.py's size (with --build: million, ten_million)")
    args = parser.parse_args()
    if args.build:
        qrels, run, cand = two_runs(args.size, args.folder)
        command = [sys.executable, "-m", "ragreport", "--no-config", "build", "--qrels", str(qrels), str(run)]
        command += [str(cand), "--quiet", "--partition-mb", str(args.partition_mb)]
        partitions = 2 * math.ceil(run.stat().st_size / (args.partition_mb << 20))
    else:
        qrels, run = args.folder / f"{args.size}.qrels", args.folder / f"{args.size}.run"
        if not run.exists():
            qrels, run = generate(args.size, args.folder)
        command = [sys.executable, "-m", "ragreport", "score", "--qrels", str(qrels), str(run), "-k", "10"]
        command += ["--format", "json", "--partition-mb", str(args.partition_mb)]
        partitions = math.ceil(run.stat().st_size / (args.partition_mb << 20))

    def timed_engine(engine: list[str], name: str) -> tuple[float, float, object]:
        """Wall, peak and what the command made: the site's files (--build), else its stdout."""
        out = args.folder / name
        if args.build:
            seconds, peak = timed([*command, *engine, "--out", str(out)], args.folder / f"{name}.log")
            return seconds, peak, site_bytes(out)
        seconds, peak = timed([*command, *engine], out)
        return seconds, peak, out.read_bytes()

    stream_seconds, stream_peak, reference = timed_engine(["--engine", "stream"], "stream")
    rows = [("stream (one process)", stream_seconds, stream_peak, True)]
    from dask.distributed import LocalCluster

    for workers in args.workers:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
            engine = ["--engine", "dask", "--scheduler", cluster.scheduler_address]
            seconds, peak, made = timed_engine(engine, f"dask-{workers}")
            rows.append((f"dask, {workers} worker{'s' if workers > 1 else ''}", seconds, peak, made == reference))
    print(f"{run.stat().st_size / 1e9:.2f} GB a run, {partitions} partitions of {args.partition_mb} MB")
    if not args.build:
        compared, differ = sample_agrees(qrels, run, args.folder / "stream")
        print(f"in memory on the first 5,000 queries: {compared:,} per-query figures, {differ} differ from stream's\n")
    print("| engine | seconds | peak MB (client) | same bytes as stream |")
    print("| --- | ---: | ---: | --- |")
    for label, seconds, peak, same in rows:
        print(f"| {label} | {seconds:.1f} | {peak:.0f} | {'yes' if same else 'NO'} |")
    one = dict((r[0], r[1]) for r in rows).get("dask, 1 worker")
    two = dict((r[0], r[1]) for r in rows).get("dask, 2 workers")
    if one and two:
        # T = S + P / w: the driver's serial work S and the partitions' work P, from the two points
        parallel = 2 * (one - two)
        print(f"\nspeed-up of 2 workers over 1: {one / two:.2f}x (S = {one - parallel:.0f} s, P = {parallel:.0f} s)")
        print("| workers | projected seconds, S + P / w |")
        print("| ---: | ---: |")
        for machines in args.machines:
            print(f"| {machines} | {one - parallel + parallel / machines:.0f} |")
        if args.build:  # the stream run's partitions are not its whole time: no per-partition projection
            return
    per_partition = stream_seconds / partitions
    print(f"\none partition on one worker: {per_partition:.2f} s (the stream run over {partitions} partitions)")
    print("| machines (one worker each) | projected seconds |")
    print("| ---: | ---: |")
    for machines in args.machines:
        waves = math.ceil(partitions / machines)
        print(f"| {machines} | {waves * per_partition:.1f} + the client's gather |")


if __name__ == "__main__":
    main()
