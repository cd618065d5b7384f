"""ragreport/core/budget.py: memory estimates checked against the memory available; the longest id."""

from __future__ import annotations

import numpy as np
import pytest

from ragreport.core import budget
from ragreport.core.budget import MAX_ID_BYTES, WIDE_ID, check_fits, id_array, id_too_long, size_text
from ragreport.core.errors import InputError, UsageError


def test_available_memory_is_read_from_the_system():
    available = budget.available_memory()
    assert available is None or available > 0


def test_memory_limit_is_half_the_available(monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 3 << 30)
    assert budget.memory_limit() == 3 << 29
    monkeypatch.setattr(budget, "available_memory", lambda: None)
    assert budget.memory_limit() is None
    check_fits(1 << 50, "anything")  # nothing known: nothing refused


@pytest.mark.parametrize(
    "size, text",
    [
        (900, "900 bytes"),
        (1536, "1.5 KiB"),
        (12 << 20, "12.0 MiB"),
        (int(5.6 * (1 << 30)), "5.6 GiB"),
        (1 << 41, "2.0 TiB"),
    ],
)
def test_size_text(size, text):
    assert size_text(size) == text


def test_check_fits_refuses_in_one_line_with_the_estimate_and_the_limit(monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 30)
    check_fits(512 << 20, "exactly the limit")  # 512 MiB = half of 1 GiB: allowed
    with pytest.raises(UsageError) as refused:
        check_fits((512 << 20) + 1, "the thing")
    assert str(refused.value) == (
        "the thing would need about 512.0 MiB of memory; the limit is 512.0 MiB (half the 1.0 GiB available)"
    )


@pytest.mark.parametrize(
    "text, found",
    [("a" * 2048, None), ("a" * 2049, 2049), ("é" * 1024, None), ("é" * 1025, 2050), ("😀" * 512, None), ("x", None)],
)
def test_id_too_long_counts_utf8_bytes(text, found):
    assert MAX_ID_BYTES == 2048
    assert id_too_long(text) == found


def test_id_array_keeps_short_ids_as_unicode_and_wide_ones_as_bytes():
    short = id_array(["d1", "d22"], "f")
    assert short.dtype == np.dtype("U3")
    assert id_array([], "f").dtype.kind == "U"
    wide = ["w" * (WIDE_ID + 1), "é"]
    kept = id_array(wide, "f")
    assert kept.dtype == np.dtype(f"S{WIDE_ID + 1}")  # 65 bytes each, not 4 x 65
    assert [v.decode() for v in kept.tolist()] == wide


def test_id_array_refuses_an_overlong_id_and_a_padding_that_would_not_fit(monkeypatch):
    with pytest.raises(InputError, match=r"^f: expected ids of at most 2,048 bytes, got an id of 2,049 bytes"):
        id_array(["d1", "a" * 2049], "f")
    monkeypatch.setattr(budget, "available_memory", lambda: 128 << 20)  # the limit is 64 MiB
    ids = ["a" * 2048] + ["d"] * 40_000  # 40,001 x 2,048 bytes = 78.1 MiB padded
    with pytest.raises(
        UsageError,
        match=r"^f: 40,001 ids padded to the longest \(2,048 bytes\) would need about "
        r"78.1 MiB of memory; the limit is 64.0 MiB",
    ):
        id_array(ids, "f")
