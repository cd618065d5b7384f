"""How many threads BLAS may use for the analysis's products: one for a small product.

OpenBLAS spreads a product over every core once it is past a few thousand multiply-adds, and its
threads then wait for work spinning. A small report's products take tens of microseconds on one
core; spread over two on a machine busy with other work (a CI runner with browsers and
subprocesses, a laptop) each waited milliseconds for the other thread: 0.11 s for 1,000 products of
(160 x 30) by (30 x 200) on one thread against 6.2 s on two, with the other core loaded, and a
small report's render ran two to three times slower for it (docs/conventions.md section 22.18).
Below :data:`SMALL_PRODUCT` multiply-adds a product runs on one thread; a large one keeps every
thread. The figures do not depend on the thread count (section 22.5): the sums are of whole
numbers, exact in any order.

threadpoolctl (scikit-learn's way to the same switch) finds the BLAS numpy loaded and sets its
threads; without it nothing is limited.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np  # noqa: F401  (loaded first: the controller sees the BLAS numpy loads)

#: Multiply-adds below which a product (or a stage of products) runs on one BLAS thread: about
#: 1 ms of one core's work, where a second thread gains less than waking it can cost.
SMALL_PRODUCT = 1 << 24


@functools.cache
def _controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a dependency; without it BLAS keeps its threads
        return None
    return ThreadpoolController()


@contextmanager
def blas_threads_for(multiply_adds: float) -> Iterator[None]:
    """Within: BLAS on one thread when the work in hand (``multiply_adds``, all its products
    together) is below :data:`SMALL_PRODUCT`, else as it was."""
    controller = _controller() if multiply_adds < SMALL_PRODUCT else None
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield
