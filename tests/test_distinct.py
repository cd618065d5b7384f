"""The pages' distinct ids by sorts of words (ragreport/output/view/distinct.py) against numpy's
own sort of the strings and a dict numbering them one at a time; the packed data blocks made on a
thread (view/encoded.PackedAhead) against gzip and base64 of json.dumps."""

from __future__ import annotations

import base64
import gzip
import json

import numpy as np
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.output.pages import packed_json
from ragreport.output.view import encoded
from ragreport.output.view.distinct import numbered, unique_ids

# Byte ids of every width (one word, several, a shared prefix longer than a word), bytes from 128
# up (UTF-8 and not) that a signed comparison would misorder.
PIECES = st.sampled_from([b"a", b"b", b"z", b"0", b"d1", b"\xc3\xa9", b"\xff", b"msmarco_passage_", b"~"])
IDS = st.lists(st.lists(PIECES, min_size=1, max_size=5).map(b"".join), max_size=40)


@settings(max_examples=examples(300), deadline=None)
@given(IDS)
def test_the_distinct_ids_are_those_numpy_gives_of_the_strings(ids):
    array = np.array(ids, dtype="S") if ids else np.zeros(0, dtype="S1")
    distinct, inverse = unique_ids(array)
    expected, back = np.unique(array, return_inverse=True)
    assert distinct.tolist() == expected.tolist()
    assert distinct.dtype == expected.dtype
    assert inverse.tolist() == back.reshape(-1).tolist()
    assert [distinct[i] for i in inverse.tolist()] == array.tolist()


@settings(max_examples=examples(300), deadline=None)
@given(IDS, IDS, st.integers(0, 8))
def test_ids_are_numbered_as_a_dict_numbers_them_in_order_of_appearance(first, second, wider):
    parts = [
        np.array(first, dtype="S") if first else np.zeros(0, dtype="S3"),
        # another width: the parts are joined at the wider one
        np.array(second, dtype=f"S{max(map(len, second), default=1) + wider}"),
    ]
    numbers: dict[bytes, int] = {}
    expected = [numbers.setdefault(d, len(numbers)) for d in [*first, *second]]
    distinct, got = numbered(parts)
    assert got.tolist() == expected
    assert distinct.tolist() == list(numbers)


def test_text_ids_and_a_mix_of_kinds_are_numbered_alike():
    parts = [np.array(["b", "a", "b"]), np.array([b"a", b"c"], dtype="S1")]
    distinct, got = numbered(parts)
    assert got.tolist() == [0, 1, 0, 1, 2]
    assert distinct.tolist() == ["b", "a", "c"]
    assert unique_ids(np.array(["b", "a", "b"]))[1].tolist() == [1, 0, 1]
    assert numbered([])[1].tolist() == []


def test_a_block_packed_on_its_own_thread_is_the_same_text():
    value = {"runs": ["a", "é"], "queries": encoded.listed(['{"id":"q<1>"}', "[1,2.5]"]), "n": 3}
    ahead = encoded.PackedAhead(value)
    assert ahead == value
    text = packed_json(ahead)
    assert text == packed_json(dict(value)) == encoded.packed(value)
    plain = json.dumps(
        {"runs": ["a", "é"], "queries": [{"id": "q<1>"}, [1, 2.5]], "n": 3}, ensure_ascii=False, separators=(",", ":")
    )
    assert gzip.decompress(base64.b64decode(text)).decode("utf-8") == plain
    assert base64.b64decode(text)[4:8] == b"\0\0\0\0"  # mtime 0: the same bytes every build


def test_a_failure_on_the_packing_thread_is_raised_where_the_text_is_asked_for():
    ahead = encoded.PackedAhead({"x": float("nan")})
    try:
        ahead.packed()
    except ValueError as exc:
        assert "JSON" in str(exc)
    else:
        raise AssertionError("a NaN was packed")
