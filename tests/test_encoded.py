"""The pages' large lists written column by column (ragreport/output/view/encoded.py) against
json.dumps of the same values built one row at a time, as the per-query table and the query view
were built before (a plain loop per query, per slot and per judgment)."""

from __future__ import annotations

import json
import math

import numpy as np
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.analysis.status import Status
from ragreport.analysis.values import family_values
from ragreport.api import analyse, evaluate
from ragreport.core.ids import as_text
from ragreport.output.queryview import UNSHOWN_RELEVANT, query_view_data
from ragreport.output.view import encoded
from ragreport.output.view.run import query_table
from ragreport.scoring.catalogue import SUITE, by_key


def plain(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# Ids with what JSON escapes (quotes, backslashes, control characters), what it does not (U+2028,
# non-ASCII), and what the pages escape afterwards (<, >, &).
IDS = st.text(alphabet=st.sampled_from(["a", "b", '"', "\\", "\n", "\x01", "\u2028", "é", "<", "&", "7"]), max_size=4)
FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(IDS, st.none() | IDS, FLOATS, st.integers(-(2**40), 2**40), st.booleans()), max_size=30))
def test_columns_are_written_as_json_dumps_writes_the_rows(items):
    ids = [i[0] for i in items]
    texts = [i[1] for i in items]
    values = np.array([i[2] for i in items], dtype=np.float64)
    whole = np.array([i[3] for i in items], dtype=np.int64)
    present = np.array([i[4] for i in items], dtype=bool)
    columns = [
        encoded.texts(ids),
        encoded.texts(texts),
        encoded.decimals(values),
        encoded.decimals(values, present),
        encoded.integers(whole, present),
        encoded.integers(values, present, truncate=True) if np.all(np.abs(values) < 2**62) else encoded.texts(ids),
        encoded.cells([i[3] if i[4] else i[2] for i in items]),
    ]
    rows = [
        [
            i[0],
            i[1],
            round(i[2], 6),
            round(i[2], 6) if i[4] else None,
            i[3] if i[4] else None,
            (int(i[2]) if i[4] else None) if np.all(np.abs(values) < 2**62) else i[0],
            i[3] if i[4] else i[2],
        ]
        for i in items
    ]
    value = {"k": 3, "rows": encoded.rows(columns), "nested": [{"a": encoded.listed(columns[0])}, (1, "x")]}
    assert encoded.dumps(value) == plain({"k": 3, "rows": rows, "nested": [{"a": ids}, [1, "x"]]})
    bounds = sorted({0, len(ids), *(len(i[0]) % (len(ids) + 1) for i in items)})
    assert encoded.dumps(encoded.listed(encoded.grouped(columns[0], bounds))) == plain(
        [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    )


SCALARS = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | FLOATS | IDS
NESTED = st.recursive(
    SCALARS | SCALARS.map(lambda v: ("encoded", v)),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(IDS, inner, max_size=4),
    max_leaves=30,
)


def _as_encoded(value):
    """("encoded", v) leaves as Encoded(json of v), the rest as they are."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "encoded":
        return encoded.Encoded(plain(value[1]))
    if isinstance(value, dict):
        return {k: _as_encoded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_as_encoded(v) for v in value)
    return value


def _as_plain(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "encoded":
        return value[1]
    if isinstance(value, dict):
        return {k: _as_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_plain(v) for v in value]
    return value


@settings(max_examples=examples(300), deadline=None)
@given(NESTED)
def test_dumps_writes_encoded_parts_anywhere_as_json_dumps_writes_their_values(value):
    """Encoded values at any depth of dicts, lists and tuples (beside columns of plain scalars,
    which the writer skips by their types): json.dumps of the same values."""
    assert encoded.dumps(_as_encoded(value)) == plain(_as_plain(value))


def test_minus_zero_and_tiny_and_huge_values_keep_their_own_text():
    values = np.array([-0.0, 0.0, 1e-7, 5e-5, 0.1 + 0.2, 1e300, -2.5e-6, 1 / 3, 1 / 3])
    assert encoded.decimals(values) == [plain(round(v, 6)) for v in values.tolist()]
    assert encoded.decimals(values)[:2] == ["-0.0", "0.0"]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300),
    st.sampled_from([np.int64, np.int32, np.uint16, np.int8]),
    st.integers(1, 70),
)
def test_a_whole_list_is_the_json_of_its_numbers_whatever_its_chunks(numbers, dtype, chunk):
    """whole_list writes a chunk of numbers at a time (22.25): the text is json.dumps's of the
    same list, whatever the chunk's size against the list's (shorter, equal, longer, none)."""
    info = np.iinfo(dtype)
    values = np.array([min(max(v, info.min), info.max) for v in numbers], dtype=dtype)
    saved = encoded._WHOLE_CHUNK
    try:
        encoded._WHOLE_CHUNK = chunk
        written = encoded.whole_list(values)
    finally:
        encoded._WHOLE_CHUNK = saved
    assert written.text == plain(values.tolist())
    assert encoded.dumps({"doc": written, "k": 3}) == plain({"doc": values.tolist(), "k": 3})


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**64 - 1) | st.sampled_from([0, -1, 9, 10, 99, 100, 2**31, 2**63]), max_size=60),
    st.sampled_from([np.int64, np.uint64, np.int32, np.uint32, np.int16, np.uint8, np.int8]),
)
def test_whole_text_is_python_s_repr_of_each_number(numbers, dtype):
    """whole_text writes every number's digits by array operations (a pass per decimal place):
    the text is ``",".join`` of Python's repr of each, at both ends of every integer type (2^64 - 1,
    -2^63, 0) and at each power of ten."""
    info = np.iinfo(dtype)
    values = np.array([min(max(v, info.min), info.max) for v in numbers], dtype=dtype)
    assert encoded.whole_text(values) == ",".join(map(repr, values.tolist()))
    assert encoded.integers(values) == list(map(repr, values.tolist()))


def test_a_whole_list_refuses_numbers_that_are_not_whole():
    try:
        encoded.whole_list(np.array([1.0, 2.0]))
    except TypeError as error:
        assert "whole numbers" in str(error)
    else:
        raise AssertionError("floats were written as whole numbers")


def test_a_value_json_cannot_hold_is_refused_as_json_dumps_refuses_it():
    for bad in (math.nan, math.inf):
        for write in (encoded.decimals, lambda v: encoded.integers(v, truncate=True)):
            try:
                write(np.array([1.0, bad]))
            except ValueError:
                continue
            raise AssertionError("a value JSON cannot hold was written")


def plain_table(summary, differences=None):
    """The per-query table's rows and top K built one query and one slot at a time."""
    judged, scores, k = summary.judged, summary.scores, summary.k
    index = {s: i for i, s in enumerate(Status)}
    rows = []
    for q in range(judged.n_queries):
        scored = bool(scores.scored[q])
        row = [
            str(judged.query_ids[q]),
            index[summary.status[q]],
            judged.query_text[q],
            int(judged.relevant[q]),
            int(judged.retrieved[q]),
            int(scores.first_relevant_rank[q]) or None,
        ]
        for metric in SUITE:
            value = float(scores.of(metric, k)[q])
            row.append(None if not scored else int(value) if metric.kind.whole else round(value, 6))
        row.append(int(judged.repeats[q]))
        if differences is not None:
            d = differences[1].get(row[0])
            row.append(None if d is None else round(d, 6))
        rows.append(row)
    if all(row[2] in (None, "") for row in rows):
        for row in rows:
            del row[2]
    top = []
    for q in range(judged.n_queries):
        slots = []
        for s in range(int(judged.offsets[q]), int(judged.offsets[q + 1])):
            if judged.slot_rank[s] > k:
                continue
            if judged.repeat[s]:
                mark = 3
            elif not judged.judged[s]:
                mark = 2
            else:
                mark = 0 if judged.grades[s] >= judged.level else 1
            grade = int(judged.grades[s]) if judged.judged[s] else None
            slots.append([as_text(judged.doc_ids[s : s + 1])[0], grade, mark])
        top.append(slots)
    return rows, top


QRELS = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", 'q"4']),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e\\", "é"]), st.integers(0, 3), min_size=1, max_size=4),
    min_size=1,
    max_size=4,
)
RUN = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", 'q"4', "q5"]),
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d", "e\\", "é", "x", "y<"]),
        st.integers(0, 9).map(float),
        min_size=1,
        max_size=6,
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=examples(60), deadline=None)
@given(QRELS, RUN, RUN)
def test_the_query_table_and_the_query_view_are_those_of_a_plain_loop(qrels, base, cand):
    # Scorable whatever was drawn: q1 judges a relevant, which both runs retrieve.
    qrels = {**qrels, "q1": {**qrels.get("q1", {}), "a": 1}}
    base, cand = ({**run, "q1": {"a": 0.5, **run.get("q1", {})}} for run in (base, cand))
    report = analyse(evaluate({"base": base, "cand": cand}, qrels=qrels, k=3), baseline="base", permutations=50)
    for summary in report.summaries:
        by_query = {q: (hash(q) % 7 - 3) / 7 for q in summary.judged.query_ids.tolist()[::2]}
        table = query_table(summary, differences=("delta", by_query)).data
        rows, top = plain_table(summary, ("delta", by_query))
        assert encoded.dumps(table["rows"]) == plain(rows)
        assert _slots_of(json.loads(encoded.dumps(table["top"]))) == top  # as the page reads it
        lead = query_table(summary, differences=("delta", by_query), primary=by_key("RR")).data
        order = [table["columns"].index(c) for c in lead["columns"]]
        assert encoded.dumps(lead["rows"]) == plain([[row[i] for i in order] for row in rows])
    assert encoded.dumps(query_view_data(report)) == plain(plain_query_view(report))


def _slots_of(top):
    """The columnar top K (docs/conventions.md section 22.6) read back as each query's
    ``[id, grade or None, mark]`` slots, as the page's script reads it."""
    grades = iter(top["grade"])
    out, start = [], 0
    for end in top["ends"]:
        slots = []
        for j in range(start, end):
            code = int(top["mark"][j])
            slots.append([top["ids"][top["doc"][j]], next(grades) if code >= 4 else None, code % 4])
        out.append(slots)
        start = end
    return out


def plain_query_view(analysis):
    """The query view built one query, one slot and one judgment at a time (as it was before)."""
    summaries = analysis.summaries
    k = summaries[0].k
    measures = list(analysis.comparison.family)
    doc_index: dict[str, int] = {}
    tops, query_text, judgments = [], {}, {}
    for summary in summaries:
        judged = summary.judged
        top = {}
        ids = judged.query_ids.tolist()
        for q, query in enumerate(ids):
            if judged.in_run[q]:
                shown = [
                    as_text(judged.doc_ids[s : s + 1])[0]
                    for s in range(int(judged.offsets[q]), int(judged.offsets[q + 1]))
                    if judged.slot_rank[s] <= k
                ]
                top[query] = [doc_index.setdefault(d, len(doc_index)) for d in shown]
        tops.append(top)
        for query, text in zip(ids, judged.query_text):
            if text and query not in query_text:
                query_text[query] = text
        for j in range(len(judged.judgment_grades)):
            query = ids[judged.judgment_query[j]]
            doc = as_text(judged.judgment_doc_ids[j : j + 1])[0]
            judgments.setdefault(query, {}).setdefault(doc, int(judged.judgment_grades[j]))
    figures = []
    for summary in summaries:
        rows = np.flatnonzero(summary.scores.scored)
        values = family_values(summary, rows, measures)
        ids = summary.judged.query_ids[rows].tolist()
        figures.append({q: [round(v, 6) for v in row] for q, row in zip(ids, values.tolist())})
    level = summaries[0].judged.level
    queries = []
    for query in sorted({q for s in summaries for q in s.judged.query_ids.tolist()}):
        shown = {i for top in tops for i in top.get(query, [])}
        own = judgments.get(query, {})
        unshown = sorted(d for d, g in own.items() if g >= level and (d not in doc_index or doc_index[d] not in shown))
        queries.append(
            {
                "id": query,
                "text": query_text.get(query),
                "judged": sorted([doc_index[d], g] for d, g in own.items() if doc_index.get(d, -1) in shown),
                "relevant": sum(1 for g in own.values() if g >= level),
                "unshown": unshown[:UNSHOWN_RELEVANT],
                "unshown_count": len(unshown),
                "tops": [top.get(query) for top in tops],
                "values": [f.get(query) for f in figures],
                "with_text": query in set(analysis.text_queries),
            }
        )
    data = query_view_data(analysis)
    return {**data, "docs": list(doc_index), "queries": queries}
