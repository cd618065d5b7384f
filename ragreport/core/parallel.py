"""Two cores for numpy work: a function mapped over items on threads.

numpy lets go of the GIL inside its array loops (comparisons, gathers, sorts), so threads over
independent blocks of a run keep both cores busy without copying data to other processes.
"""

from __future__ import annotations

from typing import Callable, Iterable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Threads used by the reader, the ordering and the join.
THREADS = 2


def thread_map(function: Callable[[T], R], items: Iterable[T], threads: int = THREADS) -> list[R]:
    """``[function(item) for item in items]``, on ``threads`` threads when there is more than one item."""
    items = list(items)
    if threads <= 1 or len(items) <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor  # on first use: small inputs never pay for it

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(function, items))
