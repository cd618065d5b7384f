"""The mergeable bootstrap's costs (issue 42): query keys, Poisson weights, signs and the sums.

- keys: :func:`query_keys` of ``--queries`` ids (``q0``, ``q1``, ...; and the same with a
  non-ASCII prefix), seconds in all and ns per id;
- weights and signs: :func:`poisson_weights` and :func:`signs` in the blocks
  :meth:`ResampledSums.of` draws (16,384 queries x 64 resamples, or x 64 signs), ns per weight;
- sums: :meth:`ResampledSums.of` over ``--queries`` rows of ``--columns`` columns, ``--resamples``
  resamples and ``--permutations`` sign flips, seconds and ns per weight (hashing and the products
  together).

Each figure is the fastest of ``--repeats`` (this machine is shared; its speed moves). BLAS's
threads are as the environment sets them (``OPENBLAS_NUM_THREADS``); the sums' products are
BLAS's. Nothing here is a test: no time is asserted.

    python benchmarks/poisson.py [--queries 10000000] [--resamples 100] [--columns 12]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ragreport.analysis.poisson import ResampledSums, poisson_weights, query_keys, signs


def fastest(repeats: int, work) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000_000)
    parser.add_argument("--resamples", type=int, default=100)
    parser.add_argument("--permutations", type=int, default=0)
    parser.add_argument("--columns", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n = args.queries
    ids = np.char.add("q", np.arange(n).astype(str))
    ids = ids.astype(f"U{np.strings.str_len(ids).max()}")
    for label, these in (("ASCII", ids), ("non-ASCII", np.char.add("requête-", ids))):
        seconds = fastest(args.repeats, lambda these=these: query_keys(these, 0))
        print(f"keys of {n:,} {label} ids ({these.dtype}): {seconds:.2f} s, {seconds / n * 1e9:.0f} ns an id")
    keys = query_keys(ids, 0)
    block = keys[: 1 << 14]
    for label, work, cells in (
        ("weights", lambda: poisson_weights(block, 0, 64), 64 * len(block)),
        ("signs", lambda: signs(block, 0, 1), 64 * len(block)),
    ):
        seconds = fastest(args.repeats * 10, work)
        print(f"{label}: {seconds / cells * 1e9:.2f} ns each")
    values = np.random.default_rng(0).random((n, args.columns))
    seconds = fastest(args.repeats, lambda: ResampledSums.of(keys, values, args.resamples, args.permutations))
    cells = n * (args.resamples + args.permutations)
    print(
        f"sums of {n:,} queries x {args.columns} columns, {args.resamples} resamples, {args.permutations} "
        f"permutations: {seconds:.1f} s, {seconds / cells * 1e9:.1f} ns a weight or sign"
    )


if __name__ == "__main__":
    main()
