"""Id arrays: hashes that ignore padding, one kind for two arrays, duplicates, text."""

from __future__ import annotations

import numpy as np
import pytest

from ragreport.core.ids import (
    all_allowed,
    as_text,
    common_kind,
    forbidden_character,
    forbidden_in_utf8,
    has_duplicates,
    hash_ids,
)


def test_hash_does_not_depend_on_the_array_width():
    narrow = np.array([b"d1", b"doc-22"], dtype="S6")
    wide = np.array([b"d1", b"doc-22"], dtype="S40")
    assert hash_ids(narrow).tolist() == hash_ids(wide).tolist()
    assert hash_ids(narrow, query=[0, 1]).tolist() == hash_ids(wide, query=[0, 1]).tolist()


def test_hash_tells_apart_ids_queries_and_long_ids():
    ids = np.array(["a" * 20 + "x", "a" * 20 + "y", "a" * 20 + "x"])
    assert len(set(hash_ids(ids).tolist())) == 2
    assert hash_ids(ids[:1], query=[0])[0] != hash_ids(ids[:1], query=[1])[0]


def test_common_kind_encodes_text_as_utf8_when_one_side_is_bytes():
    text, raw = common_kind(np.array(["dé", "d1"]), np.array([b"d1"]))
    assert text.dtype.kind == "S" and as_text(text) == ["dé", "d1"] and raw.dtype.kind == "S"
    both = common_kind(np.array(["a"]), np.array(["b"]))
    assert [a.dtype.kind for a in both] == ["U", "U"]


def test_has_duplicates():
    assert has_duplicates(np.array([3, 1, 3], dtype=np.uint64))
    assert not has_duplicates(np.array([3, 1, 2], dtype=np.uint64))
    assert not has_duplicates(np.zeros(0, dtype=np.uint64))


def test_forbidden_characters_are_named_and_the_rest_pass():
    assert forbidden_character("q1\x00") == "U+0000"
    assert forbidden_character("a\u202eb\x01") == "U+202E"  # the first one
    assert forbidden_character("dé d\u00a0\u200d#") is None
    assert all_allowed(["q1", "dé"]) and not all_allowed(["q1", "d\x7f"])


def test_the_bytes_check_allows_the_separators_and_flags_multibyte_controls():
    def check(text: str) -> bool:
        return forbidden_in_utf8(np.frombuffer(text.encode(), dtype=np.uint8))

    assert not check("q1 Q0\td1 1 2 t\r\n")
    assert check("q\x0b1") and check("q\x7f") and check("q\x85") and check("q\u2069") and check("q\ufeff")
    assert not check("q\u2065\u202f\u2028€")  # neighbours of the set, and other three-byte characters
    assert check("\xc2") is False  # a lead byte at the very end reads past nothing


# --- The gate (reading/gate.py): the one place the id rule is applied ---


def test_the_gate_names_the_first_id_at_fault_and_why():
    from ragreport.reading.gate import all_pass, first_problem, problem

    assert problem("d1", "an id") is None
    assert problem("", "a query id") == ("a query id as a non-empty string", "an empty string")
    assert problem("d\x1b1", "a document id") == (
        "a document id without control or bidi characters",
        r"'d\x1b1' (holds U+001B)",
    )
    assert problem("é" * 1100, "a document id", "an id")[0] == "an id of at most 2,048 bytes"  # 2,200 bytes
    assert problem("é" * 1000, "an id") is None  # 2,000 bytes
    # Printable-looking but unprintable characters that ids may hold take the slower path, and pass.
    assert all_pass(["d\u2028", "d\u200d", "d\ue000", "dé"]) and not all_pass(["d1", ""])
    assert first_problem(["a", "b\u202e", "", "c"], lambda i: f"id {i}") == (
        1,
        "id 1 without control or bidi characters",
        r"'b\u202e' (holds U+202E)",
    )
    assert first_problem(["a", "z" * 3000], "an id")[0] == 1
    assert first_problem([], "an id") is None


def test_the_gate_reports_the_earliest_line_at_fault_and_a_query_given_twice():

    from ragreport.core.errors import InputError
    from ragreport.reading.gate import check_rows

    def error(*args, **kwargs) -> str:
        with pytest.raises(InputError) as caught:
            check_rows("f", *args, **kwargs)
        return str(caught.value)

    # A bad id on line 3 and a bad query id on line 5: line 3 is named.
    assert error(["q1", "q\x002"], [1, 5], ["d1", "d\x7f", "d3"], [1, 3, 5], [0, 0, 1]) == (
        r"f:3: expected a document id for query 'q1' without control or bidi characters, got 'd\x7f' (holds U+007F)"
    )
    assert error(["q1", "q2", "q1"], [1, 2, 4], ["d1"], [1], [0]) == (
        "f:4: expected each query once (query 'q1' is also on line 1), got it again"
    )
    check_rows("f", ["q1", "q2"], [1, 2], ["d1", "d1"], [1, 2], [0, 1])  # all good
    check_rows("f", ["q1", "q1"], None, [], None, [], once=False)  # rows merged elsewhere: not checked
    assert error(["q1"], lambda i: 7, [""], lambda j: 8, [0]) == (
        "f:8: expected a document id for query 'q1' as a non-empty string, got an empty string"
    )
