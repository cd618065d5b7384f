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


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=40), max_size=30),
    st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=20), st.none()), max_size=4),
    st.sampled_from([1, 5, 9]),
)
def test_a_block_packed_piece_by_piece_is_the_text_packed_at_once(parts, others, level):
    """packed_ascii (22.25, packed's one maker) compresses the text as it is written, the query
    view's parts one by one: the very bytes of gzipping json.dumps's whole text at once (mtime 0)
    and writing them in base64, at any level, with parts or none."""
    written = [json.dumps(p, ensure_ascii=False) for p in parts]  # each part a run of written items
    value = {**others, "queries": encoded.EncodedParts(written)}
    text = json.dumps({**others, "queries": parts}, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    whole = base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=level, mtime=0))
    assert encoded.packed_ascii(value, level) == whole
    assert encoded.packed(value, level) == whole.decode("ascii")
    assert encoded.dumps(value) == text


def test_the_parts_of_a_list_are_its_text_and_a_block_made_apart_is_its_packed_text():
    """EncodedParts joins its parts only when asked (the pages read its text, the packing streams
    them); PackedApart packs what its maker gives, in a child or here, shows only what it is given
    to show, and the page's filter takes its text as it is."""
    parts = encoded.EncodedParts(['{"id":"a"}', '{"id":"b"},{"id":"c"}'])
    assert parts.text == '[{"id":"a"},{"id":"b"},{"id":"c"}]' and parts.value() == [{"id": x} for x in "abc"]
    block = {"runs": ["r"], "queries": parts}
    made = encoded.PackedApart(lambda: block, {"runs": ["r"]}, encoded.QUERY_VIEW_LEVEL, queries=10**6)
    assert made == {"runs": ["r"]}
    assert packed_json(made) == encoded.packed(block, encoded.QUERY_VIEW_LEVEL)
