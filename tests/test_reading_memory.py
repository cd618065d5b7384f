"""Runs and judgments in memory (ragreport/reading/memory.py, and registry.load_inputs that takes them):
the same objects, so the same figures, as the same data written to TREC files; one-line errors naming
the run, the query and what was expected; paths and objects mixed."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from helpers import grades_of, lists_of

from ragreport.api import analyse, document, evaluate
from ragreport.core.errors import InputError, UsageError
from ragreport.core.model import Conventions, Missing, NoRelevant, Order
from ragreport.reading.memory import (
    ObjectError,
    is_frame,
    judgments_from_object,
    named_inputs,
    run_from_object,
)
from ragreport.reading.registry import load_inputs

DAY = dt.date(2026, 1, 1)


class FakeSeries:
    """What the reader uses of a pandas Series: ``tolist()`` (Python scalars)."""

    def __init__(self, values):
        self._values = list(values)

    def tolist(self):
        return list(self._values)


class FakeFrame:
    """What the reader uses of a pandas DataFrame: ``columns``, ``frame[name]`` and (to be told from a
    mapping) ``to_dict``."""

    def __init__(self, data: dict[str, list]):
        self._data = data

    @property
    def columns(self):
        return list(self._data)

    def __getitem__(self, name):
        return FakeSeries(self._data[name])

    def to_dict(self, orient="dict"):
        raise AssertionError("the reader takes columns, not to_dict()")


def frame_of_run(run: dict) -> FakeFrame:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return FakeFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "score": [r[2] for r in rows]})


def frame_of_qrels(qrels: dict) -> FakeFrame:
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return FakeFrame(
        {"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows], "relevance": [r[2] for r in rows]}
    )


# Ties (q1: d2/d9 at 5.0, d10/d3 at 1.0; q2: all tied), graded judgments, a judged query the runs lack (q4),
# a query only in the run (q5), a judged query with no relevant id (q6), a query with nothing retrieved (q7),
# ids given as integers (query 8, document 42).
BM25 = {
    "q1": {"d1": 9.5, "d2": 5.0, "d9": 5.0, "d3": 1.0, "d10": 1.0, "d7": -2.0},
    "q2": {"a": 0.5, "c": 0.5, "b": 0.5},
    "q3": {"d1": 3.0, "d4": 2.0},
    "q5": {"x": 1.0},
    "q6": {"d5": 1.0, "d6": 0.5},
    8: {42: 2.0, "d8": 1.0},
}
DENSE = {
    "q1": {"d9": 0.9, "d2": 0.8, "d1": 0.7, "d3": 0.6},
    "q2": {"b": 0.9, "a": 0.1},
    "q3": {"d4": 0.5, "d1": 0.5, "d5": 0.4},
    "q6": {"d6": 0.3},
    "8": {"d8": 0.9, "42": 0.1},
}
QRELS = {
    "q1": {"d1": 2, "d9": 1, "d3": 0, "d10": 1},
    "q2": {"b": 1, "c": 3},
    "q3": {"d4": 1, "d5": 2},
    "q4": {"d1": 1},
    "q6": {"d5": 0, "d6": 0},
    "8": {"42": 1, "d8": 0},
}


def as_text(run: dict) -> dict:
    return {str(q): {str(d): s for d, s in docs.items()} for q, docs in run.items()}


def write_trec(tmp_path, name: str, run: dict):
    path = tmp_path / f"{name}.trec"
    lines = [
        f"{q} Q0 {d} {rank} {score!r} {name}"
        for q, docs in run.items()
        for rank, (d, score) in enumerate(docs.items(), start=1)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_qrels(tmp_path, qrels: dict):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return path


def without_sources(value):
    """The report document with the runs' sources (a file, or 'in memory') left out: every figure stays."""
    if isinstance(value, dict):
        return {k: without_sources(v) for k, v in value.items() if k != "source"}
    if isinstance(value, list):
        return [without_sources(v) for v in value]
    return value


CONVENTIONS = [
    Conventions(),
    Conventions(order=Order.FILE),
    Conventions(missing=Missing.SKIP, no_relevant=NoRelevant.ZERO),
]


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=["default", "order-file", "trec_eval"])
@pytest.mark.parametrize("form", ["dict", "frame", "frame-of-text", "numpy-scores"])
def test_in_memory_runs_give_every_figure_of_the_same_runs_as_trec_files(tmp_path, conventions, form):
    qrels_path = write_qrels(tmp_path, QRELS)
    paths = [write_trec(tmp_path, "bm25", BM25), write_trec(tmp_path, "dense", DENSE)]
    from_files = evaluate(paths, qrels=qrels_path, k=[3, 1], kmax=6, conventions=conventions)
    if form == "dict":
        runs, qrels = {"bm25": BM25, "dense": DENSE}, QRELS
    elif form == "frame":  # integer ids: each value checked one by one
        runs, qrels = {"bm25": frame_of_run(BM25), "dense": frame_of_run(DENSE)}, frame_of_qrels(QRELS)
    elif form == "frame-of-text":  # text ids and float scores: the columns taken at once
        runs = {"bm25": frame_of_run(as_text(BM25)), "dense": frame_of_run(as_text(DENSE))}
        qrels = frame_of_qrels(QRELS)
    else:
        runs = {
            name: {
                q: {d: np.float32(s) if s == 0.5 else np.float64(s) for d, s in docs.items()} for q, docs in run.items()
            }
            for name, run in (("bm25", BM25), ("dense", DENSE))
        }
        qrels = QRELS
    in_memory = evaluate(runs, qrels=qrels, k=[3, 1], kmax=6, conventions=conventions)

    for a, b in zip(from_files, in_memory):
        assert a.name == b.name
        assert a.at_k == b.at_k
        assert a.counts == b.counts
        assert a.status == b.status
        assert (a.query_fingerprint, a.label_fingerprint) == (b.query_fingerprint, b.label_fingerprint)
        assert a.judged.query_ids.tolist() == b.judged.query_ids.tolist()
        np.testing.assert_array_equal(a.scores.values, b.scores.values)
        for key in a.sweep.mean:
            np.testing.assert_array_equal(a.sweep.mean[key], b.sweep.mean[key])
            np.testing.assert_array_equal(a.sweep.low[key], b.sweep.low[key])
            np.testing.assert_array_equal(a.sweep.high[key], b.sweep.high[key])
    # Everything else the report says (comparison, p-values, headline, limits) follows from the same figures.
    files_doc = document(analyse(from_files, today=DAY, permutations=200))
    memory_doc = document(analyse(in_memory, today=DAY, permutations=200))
    assert without_sources(files_doc) == without_sources(memory_doc)


def test_a_dict_run_is_ordered_by_score_with_trec_evals_tie_rule_and_ids_as_text():
    run = run_from_object(BM25, "bm25")
    assert lists_of(run) == {
        "q1": ["d1", "d9", "d2", "d3", "d10", "d7"],  # ties by id descending in byte order: "d3" > "d10"
        "q2": ["c", "b", "a"],
        "q3": ["d1", "d4"],
        "q5": ["x"],
        "q6": ["d5", "d6"],
        "8": ["42", "d8"],
    }
    assert run.name == "bm25" and run.source == "run 'bm25' (in memory)"
    assert lists_of(run_from_object(BM25, "bm25", Order.FILE))["q1"] == ["d1", "d2", "d9", "d3", "d10", "d7"]


def test_an_empty_query_is_a_query_with_nothing_retrieved():
    run = run_from_object({"q1": {}, "q2": {"d1": 1.0}}, "r")
    assert lists_of(run) == {"q1": [], "q2": ["d1"]}


def test_judgments_keep_every_judged_query_even_one_with_no_judged_id():
    judgments = judgments_from_object({"q1": {"d1": 2, "d2": 0.0}, 7: {}, "q3": {"d3": np.int64(-1)}})
    assert grades_of(judgments) == {"q1": {"d1": 2, "d2": 0}, "7": {}, "q3": {"d3": -1}}
    assert judgments.source == "judgments (in memory)"


def test_a_frame_run_keeps_repeated_rows_as_a_trec_run_does(tmp_path):
    run = {"q1": {"d1": 3.0, "d2": 2.0}}
    frame = FakeFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", "d2", "d1"], "score": [3.0, 2.0, 1.0]})
    (tmp_path / "r.trec").write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d1 3 1.0 r\n")
    qrels = {"q1": {"d1": 1}}
    from_frame = evaluate({"r": frame}, qrels=qrels, k=3)[0]
    from_file = evaluate([tmp_path / "r.trec"], qrels=qrels, k=3)[0]
    assert from_frame.counts.repeats == from_file.counts.repeats == 1
    assert from_frame.at_k == from_file.at_k
    assert from_frame.at_k["P@3"].mean == pytest.approx(1 / 3)  # the repeat keeps its slot and scores nothing
    assert lists_of(run_from_object(run, "r")) == {"q1": ["d1", "d2"]}


def test_a_frame_is_told_by_its_columns_and_to_dict_not_by_its_type():
    assert is_frame(FakeFrame({"query_id": []}))
    assert not is_frame({"columns": [], "to_dict": 1})  # a mapping is a mapping
    assert not is_frame(["a"])


# ---------------------------------------------------------------------------------------------------
# Errors: one line, the run (or the judgments), the query, what was expected, what was found


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"q1": {"d1": 1.0, "d3": "abc"}}, "run 'bm25', query 'q1': expected a number for document 'd3', got 'abc'"),
        ({"q1": {"d3": "12.5"}}, "run 'bm25', query 'q1': expected a number for document 'd3', got '12.5'"),
        ({"q1": {"d3": float("nan")}}, "run 'bm25', query 'q1': expected a finite number for document 'd3', got nan"),
        ({"q1": {"d3": float("inf")}}, "run 'bm25', query 'q1': expected a finite number for document 'd3', got inf"),
        (
            {"q1": {"d3": 10**400}},
            "run 'bm25', query 'q1': expected a finite number for document 'd3', got " + "1" + "0" * 56 + "...",
        ),
        ({"q1": {"d3": True}}, "run 'bm25', query 'q1': expected a number for document 'd3', got True"),
        ({"q1": {"d3": None}}, "run 'bm25', query 'q1': expected a number for document 'd3', got None"),
        ({"q1": ["d1", "d2"]}, "run 'bm25', query 'q1': expected a mapping of document ids to scores, got a list"),
        ({1.5: {"d1": 1.0}}, "run 'bm25': expected a query id as a string (or an integer), got 1.5"),
        ({"": {"d1": 1.0}}, "run 'bm25': expected a query id as a non-empty string, got an empty string"),
        ({"q1": {None: 1.0}}, "run 'bm25', query 'q1': expected a document id as a string (or an integer), got None"),
        ({"q1": {}, 1: {}, "1": {}}, "run 'bm25': expected distinct query ids, got 1 and '1', which both are '1'"),
        (
            {"q1": {7: 1.0, "7": 2.0}},
            "run 'bm25', query 'q1': expected distinct document ids, got 7 and '7', which both are '7'",
        ),
        ({}, "run 'bm25': expected at least one query, got none"),
        (
            [("q1", "d1", 1.0)],
            "run 'bm25': expected a mapping {query_id: {doc_id: score}} or a data frame with "
            "columns query_id, doc_id, score, got a list",
        ),
        (
            FakeFrame({"qid": ["q1"], "docid": ["d1"], "score": [1.0]}),
            "run 'bm25': expected a mapping {query_id: {doc_id: score}} or a data frame with columns query_id, doc_id, "
            "score, got a data frame with columns ['qid', 'docid', 'score']",
        ),
        (
            FakeFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d2"], "score": [1.0, "x"]}),
            "run 'bm25', query 'q2': expected a number for document 'd2', got 'x'",
        ),
        (
            FakeFrame({"query_id": ["q1", float("nan")], "doc_id": ["d1", "d2"], "score": [1.0, 2.0]}),
            "run 'bm25': expected a query id as a string (or an integer), got nan",
        ),
    ],
)
def test_a_bad_run_is_one_line_naming_the_run_and_the_query(run, message):
    with pytest.raises(ObjectError) as caught:
        run_from_object(run, "bm25")
    assert str(caught.value) == message


def test_evaluate_names_the_run_by_its_key():
    with pytest.raises(ObjectError) as caught:
        evaluate({"bm25": {"q1": {"d1": 1.0, "d3": "abc"}}, "dense": {"q1": {"d1": 1.0}}}, qrels={"q1": {"d1": 1}})
    assert str(caught.value) == "run 'bm25', query 'q1': expected a number for document 'd3', got 'abc'"


def test_the_error_is_an_input_error_and_a_value_error():
    with pytest.raises(ObjectError) as caught:
        run_from_object({"q1": {"d1": "x"}}, "r")
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)
    assert caught.value.line is None


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        ({"q1": {"d1": 1.5}}, "judgments, query 'q1': expected an integer grade for document 'd1', got 1.5"),
        ({"q1": {"d1": "1"}}, "judgments, query 'q1': expected an integer grade for document 'd1', got '1'"),
        ({"q1": {"d1": False}}, "judgments, query 'q1': expected an integer grade for document 'd1', got False"),
        ({"q1": {"d1": float("nan")}}, "judgments, query 'q1': expected an integer grade for document 'd1', got nan"),
        ({"q1": 1}, "judgments, query 'q1': expected a mapping of document ids to grades, got 1"),
        ({}, "judgments: expected at least one judged query, got none"),
        (
            "q1 0 d1 1".split(),
            "judgments: expected a mapping {query_id: {doc_id: grade}} or a data frame with "
            "columns query_id, doc_id, relevance, got a list",
        ),
        (
            FakeFrame({"query_id": ["q1", "q1", "q1"], "doc_id": ["d1", "d2", "d1"], "relevance": [1, 0, 2]}),
            "judgments, query 'q1': expected one grade per document (document 'd1' is graded 1 in row 0), got grade 2 in row 2",
        ),
        (
            FakeFrame({"query_id": ["q1"], "doc_id": ["d1"], "grade": [1]}),
            "judgments: expected a mapping {query_id: {doc_id: grade}} or a data frame with columns query_id, doc_id, "
            "relevance, got a data frame with columns ['query_id', 'doc_id', 'grade']",
        ),
    ],
)
def test_bad_judgments_are_one_line_naming_the_query(qrels, message):
    with pytest.raises(ObjectError) as caught:
        judgments_from_object(qrels)
    assert str(caught.value) == message


def test_a_frame_may_repeat_a_judgment_with_the_same_grade():
    frame = FakeFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d1"], "relevance": [2, 2.0]})
    assert grades_of(judgments_from_object(frame)) == {"q1": {"d1": 2}}


def test_nothing_is_scored_when_the_last_run_is_bad():
    scored = []
    with pytest.raises(ObjectError, match="run 'late', query 'q1'"):
        evaluate(
            {"good": {"q1": {"d1": 1.0}}, "late": {"q1": {"d1": "?"}}}, qrels={"q1": {"d1": 1}}, progress=scored.append
        )
    assert not [stage for stage in scored if stage.startswith("scoring")]


# ---------------------------------------------------------------------------------------------------
# What evaluate() is given: one run, runs by name, lists, paths and objects mixed


def test_named_inputs_tell_one_run_from_runs_by_name(tmp_path):
    run = {"q1": {"d1": 1.0}}
    assert named_inputs(run) == [("run", run)]
    assert named_inputs({"a": run, "b": "b.trec"}) == [("a", run), ("b", "b.trec")]
    assert named_inputs({"q1": {}}) == [("run", {"q1": {}})]  # an empty query, not a run named q1
    assert named_inputs("x.trec") == [(None, "x.trec")]
    assert named_inputs(["x.trec", run]) == [(None, "x.trec"), (None, run)]
    frame = FakeFrame({"query_id": [], "doc_id": [], "score": []})
    assert named_inputs(frame) == [("run", frame)]
    with pytest.raises(UsageError, match=r"^runs, item 2: expected a path, .*got 3$"):
        named_inputs(["x.trec", 3])
    with pytest.raises(UsageError, match=r"^runs: expected a path, .*got 3$"):
        named_inputs(3)


def test_paths_and_objects_mixed_are_named_and_judged_as_documented(tmp_path):
    qrels = write_qrels(tmp_path, QRELS)
    path = write_trec(tmp_path, "bm25", BM25)
    # A list: a path named by its stem, an object by its position.
    loaded = load_inputs([path, DENSE], qrels=QRELS)
    assert [item.run.name for item in loaded] == ["bm25", "run-2"]
    assert grades_of(loaded[0].judgments) == {str(q): grades for q, grades in QRELS.items()}
    assert loaded[0].judgments is loaded[1].judgments  # read once, shared
    # A mapping: every run, path or object, under its key; judgments from a file.
    loaded = load_inputs({"lexical": path, "dense": DENSE}, qrels=qrels)
    assert [item.run.name for item in loaded] == ["lexical", "dense"]
    assert lists_of(loaded[0].run) == lists_of(run_from_object(BM25, "x"))
    # One path as a string, not a list of its characters.
    assert [s.name for s in evaluate(str(path), qrels=QRELS)] == ["bm25"]


def test_a_metadata_file_names_an_in_memory_run_given_in_a_list(tmp_path):
    meta = tmp_path / "dense.meta.toml"
    meta.write_text('name = "e5-dense"\nretriever = "e5"\n')
    loaded = load_inputs([DENSE], qrels=QRELS, metas=[meta])
    assert loaded[0].run.name == "e5-dense" and loaded[0].run.meta.retriever == "e5"
    assert load_inputs({"mine": DENSE}, qrels=QRELS, metas=[meta])[0].run.name == "mine"  # a key wins


def test_an_in_memory_run_needs_judgments_and_names_must_differ(tmp_path):
    with pytest.raises(UsageError, match=r"^run 'run' is in memory and carries no judgments: give them as qrels="):
        evaluate({"q1": {"d1": 1.0}})
    path = write_trec(tmp_path, "bm25", BM25)
    with pytest.raises(UsageError, match="two runs are named 'bm25'"):
        load_inputs([path, BM25], qrels=QRELS, metas=[_named(tmp_path, "bm25")] * 2)


def _named(tmp_path, name):
    meta = tmp_path / f"{name}.meta.json"
    meta.write_text(f'{{"name": "{name}"}}')
    return meta


def test_a_run_file_with_its_own_judgments_mixes_with_nothing_else(tmp_path):
    jsonl = tmp_path / "rag.jsonl"
    jsonl.write_text('{"id": "q1", "retrieved": ["d1", "d2"], "relevant": ["d2"]}\n')
    assert evaluate([jsonl], k=2)[0].at_k["RR@2"].mean == 0.5
    with pytest.raises(UsageError, match="run 'run-2' is in memory and carries no judgments"):
        evaluate([jsonl, {"q1": {"d1": 1.0}}])


def test_the_partition_engines_take_files_only():
    with pytest.raises(
        UsageError, match="^engine='stream' scores run files against a qrels file; give a list of paths$"
    ):
        evaluate({"q1": {"d1": 1.0}}, qrels={"q1": {"d1": 1}}, engine="stream")


def test_with_real_pandas_a_data_frame_gives_the_dicts_figures():
    pandas = pytest.importorskip("pandas")
    rows = [(q, d, s) for q, docs in BM25.items() for d, s in docs.items()]
    run = pandas.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    judged = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    qrels = pandas.DataFrame(judged, columns=["query_id", "doc_id", "relevance"])
    from_frame = evaluate({"bm25": run}, qrels=qrels, k=3)
    from_dict = evaluate({"bm25": BM25}, qrels=QRELS, k=3)
    assert from_frame[0].at_k == from_dict[0].at_k
    frame = from_dict.to_dataframe()
    assert list(frame.columns) == ["run", "metric", "mean", "low", "high", "interval", "n"]
    assert len(frame) == len(from_dict.to_records())


def test_in_memory_ids_have_the_files_bound_and_wide_ones_are_kept_as_bytes():
    from ragreport.core.errors import InputError
    from ragreport.reading.memory import run_from_object

    with pytest.raises(InputError, match=r"^run 'r': expected ids of at most 2,048 bytes, got an id of 3,000 bytes"):
        run_from_object({"q1": {"d1": 1.0, "z" * 3000: 0.5}}, "r")
    wide = run_from_object({"q1": {"d1": 1.0, "w" * 100: 0.5}}, "r")
    assert wide.doc_ids.dtype == np.dtype("S100")
    assert sorted(wide.doc_ids.tolist()) == [b"d1", b"w" * 100]


def test_in_memory_query_ids_and_judged_ids_have_the_files_bound_too():
    # The gate's length rule (docs/conventions.md section 18), which the in-memory path lacked for
    # query ids and judged ids.
    from ragreport.core.errors import InputError
    from ragreport.reading.memory import judgments_from_object, run_from_object

    long = "z" * 3000
    with pytest.raises(InputError, match=r"^run 'r': expected a query id of at most 2,048 bytes, got 3,000 bytes"):
        run_from_object({long: {"d1": 1.0}}, "r")
    with pytest.raises(InputError, match=r"^judgments, query 'q1': expected a document id of at most 2,048 bytes"):
        judgments_from_object({"q1": {long: 1}})
    with pytest.raises(InputError, match=r"^judgments: expected a query id of at most 2,048 bytes"):
        judgments_from_object({long: {"d1": 1}})
