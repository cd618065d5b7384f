"""Blocks made one ahead, in a thread of their own, while the caller works on the one before: the
bootstrap's counts and the randomization test's signs (docs/conventions.md sections 22.10 and
22.18). In ``core``: both the bands and the test read it."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Block = TypeVar("Block")

#: A draw of fewer cells than this in all is made in the caller's thread (:func:`ahead`): about
#: 2 ms of drawing, less than a thread costs to start on a loaded machine.
AHEAD_CELLS = 1 << 18


def ahead(blocks: Iterator[Block], cells: int | None = None) -> Iterator[Block]:
    """``blocks`` in order, each next one made in a thread of its own while the caller works on
    the one it was given (docs/conventions.md section 22.10).

    The draws (numpy's ``Generator`` fills its output without holding the GIL) then run while BLAS
    multiplies the block before: the same blocks, from the same generator in the same order, so the
    same figures. At most two blocks are alive: the one given and the one being made. A producer
    that reuses buffers must therefore alternate two (the caller is done with a block once it asks
    for the next).

    ``cells``, the cells of every block together when the caller knows them: a draw of fewer than
    :data:`AHEAD_CELLS` is made here, without a thread (section 22.18): a small report's draws take
    less time than starting a thread does on a busy machine (milliseconds: it waits for the GIL).
    The blocks are the same either way.
    """
    if cells is not None and cells < AHEAD_CELLS:
        yield from blocks
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragreport-draw") as pool:
        pending = pool.submit(next, blocks, None)
        try:
            while True:
                block = pending.result()
                if block is None:
                    return
                pending = pool.submit(next, blocks, None)
                yield block
        finally:
            pending.cancel()
