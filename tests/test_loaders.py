"""Loaders: every input format, the TREC ordering rule, metadata, and one test per error message."""

from __future__ import annotations

import datetime as dt
import gzip
import json

import numpy as np
import pytest

from ragreport.core.errors import InputError, UsageError
from ragreport.core.ids import as_text
from ragreport.reading.loaders import detect_format, find_meta, load_meta, load_runs, read_text
from ragreport.core.model import LabelSource, Order, RetrieverKind


def _lists(run):
    return {q: as_text(run.doc_ids[run.offsets[i]:run.offsets[i + 1]]) for i, q in enumerate(run.query_ids.tolist())}


def _grades(judgments):
    return {q: dict(zip(as_text(judgments.doc_ids[judgments.offsets[i]:judgments.offsets[i + 1]]),
                        judgments.grades[judgments.offsets[i]:judgments.offsets[i + 1]].tolist()))
            for i, q in enumerate(judgments.query_ids.tolist())}


# --- Formats ------------------------------------------------------------------------------------

def test_jsonl_with_every_id_key_graded_and_plain_relevant(write):
    path = write("run.jsonl", "\n".join([
        json.dumps({"id": "a", "retrieved": ["d1", "d2"], "relevant": ["d2"], "query": "what?"}),
        json.dumps({"query_id": "b", "retrieved": ["d3"], "relevant": {"d3": 2, "d4": 0}, "meta": {"x": 1}}),
        json.dumps({"qid": 7, "retrieved": [], "relevant": []}),
    ]) + "\n")
    (loaded,) = load_runs([path])
    assert loaded.run.name == "run"
    assert _lists(loaded.run) == {"a": ["d1", "d2"], "b": ["d3"], "7": []}
    assert loaded.run.query_text == ("what?", None, None)
    assert _grades(loaded.judgments) == {"a": {"d2": 1}, "b": {"d3": 2, "d4": 0}, "7": {}}


def test_gzip_is_read_whatever_the_extension(write, tmp_path):
    text = json.dumps({"id": "a", "retrieved": ["d1"], "relevant": ["d1"]}) + "\n"
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "other").write_bytes(gzip.compress(text.encode()))
    assert read_text(tmp_path / "run.jsonl.gz") == text
    assert detect_format(tmp_path / "run.jsonl.gz", text) == "jsonl"
    assert load_runs([tmp_path / "other"])[0].run.name == "other"


def test_trec_run_is_ordered_by_score_then_docid_descending(write):
    run = write("run.trec", "q1 Q0 d2 1 1.0 t\nq1 Q0 d3 2 1.0 t\nq1 Q0 d10 3 5 t\nq1 Q0 d1 4 1.0 t\n"
                            "# a comment\n\nq0 Q0 x 1 0.1 t\n")
    qrels = write("qrels.txt", "q1 0 d1 1\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert _lists(loaded.run) == {"q1": ["d10", "d3", "d2", "d1"], "q0": ["x"]}
    (kept,) = load_runs([run], qrels=qrels, order=Order.FILE)
    assert _lists(kept.run)["q1"] == ["d2", "d3", "d10", "d1"]


def test_trec_qrels_accept_integral_floats_and_identical_duplicates(write):
    qrels = write("qrels", "q1 0 d1 2.0\nq1 0 d1 2\nq1 0 d2 -1\n")
    run = write("run", "q1 Q0 d1 1 1 t\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert _grades(loaded.judgments) == {"q1": {"d1": 2, "d2": -1}}


def test_json_dicts_like_pytrec_eval_and_ranx(write):
    run = write("run.json", json.dumps({"q1": {"a": 0.5, "b": 0.9, "c": 0.5}}))
    qrels = write("qrels.json", json.dumps({"q1": {"a": 1, "z": 2}}))
    (loaded,) = load_runs([run], qrels=qrels)
    assert _lists(loaded.run) == {"q1": ["b", "c", "a"]}
    assert _grades(loaded.judgments) == {"q1": {"a": 1, "z": 2}}


def test_format_detection_by_content(write):
    assert detect_format("x.txt", '{"id": "a", "retrieved": []}\n') == "jsonl"
    assert detect_format("x.txt", '{"q1": {"d1": 1.0}}') == "json"
    assert detect_format("x.txt", "# comment\nq1 Q0 d1 1 1.0 tag\n") == "trec"
    assert detect_format("x.ndjson.gz", "") == "jsonl"


def test_input_format_overrides_detection(write):
    path = write("run.json", json.dumps({"id": "a", "retrieved": ["d1"], "relevant": ["d1"]}) + "\n")
    (loaded,) = load_runs([path], input_format="jsonl")
    assert _lists(loaded.run) == {"a": ["d1"]}


def test_jsonl_judgments_from_qrels(write):
    run = write("run.jsonl", json.dumps({"id": "q1", "retrieved": ["d1"]}) + "\n")
    qrels = write("qrels", "q1 0 d1 3\n")
    (loaded,) = load_runs([run], qrels=qrels)
    assert _grades(loaded.judgments) == {"q1": {"d1": 3}}


# --- Metadata -----------------------------------------------------------------------------------

META_TOML = """name = "hybrid-v2"
retriever = "bm25 + e5"
date = 2026-10-01
label_source = "model"
judge = "gpt-judge"
judge_error_rate = 0.12
pool_depth = 20
retriever_kind = "agentic"
notes = "**bold**"
team = "search"
"""


def test_metadata_found_beside_the_run_and_validated(write):
    run = write("run.jsonl", json.dumps({"id": "a", "retrieved": [], "relevant": ["x"]}) + "\n")
    write("run.meta.toml", META_TOML)
    assert find_meta(run).name == "run.meta.toml"
    (loaded,) = load_runs([run])
    meta = loaded.run.meta
    assert loaded.run.name == "hybrid-v2"
    assert meta.date == dt.date(2026, 10, 1)
    assert meta.label_source is LabelSource.MODEL and meta.retriever_kind is RetrieverKind.AGENTIC
    assert meta.judge_error_rate == 0.12 and meta.pool_depth == 20
    assert meta.extra == (("team", "search"),)
    assert meta.as_dict()["team"] == "search"


def test_metadata_as_json_given_with_meta(write):
    run = write("r.jsonl", json.dumps({"id": "a", "retrieved": [], "relevant": ["x"]}) + "\n")
    meta = write("m.json", json.dumps({"date": "2026-10-01T12:00:00Z", "label_source": "human"}))
    (loaded,) = load_runs([run], metas=[meta])
    assert loaded.run.meta.date.year == 2026 and loaded.run.name == "r"


# --- One test per error message -----------------------------------------------------------------

RUN_LINE = "q1 Q0 d1 1 1.0 tag\n"
QRELS_LINE = "q1 0 d1 1\n"

ERRORS = [
    # (file name, content, as, expected message fragment)
    ("run.txt", RUN_LINE + "q1 Q0 d2 2 1.0\n", "run", "run.txt:2: expected 6 fields 'qid Q0 docid rank score tag', got 5 fields"),
    ("run.txt", "q1 0 d1 1\n", "run", "run.txt:1: expected 6 fields 'qid Q0 docid rank score tag', got 4 fields (this looks like qrels"),
    ("run.txt", RUN_LINE + "q1 Q0 d2 2 high tag\n", "run", "run.txt:2: expected a numeric score for query 'q1' id 'd2' (field 5), got 'high'"),
    ("run.txt", "q1 Q0 d2 2 nan tag\n", "run", "run.txt:1: expected a finite numeric score"),
    ("run.txt", "\n# only a comment\n", "run", "run.txt: expected at least one run line, got an empty file"),
    ("qrels.txt", QRELS_LINE + "q1 0 d2\n", "qrels", "qrels.txt:2: expected 4 fields 'qid iter docid grade', got 3 fields"),
    ("qrels.txt", RUN_LINE, "qrels", "got 6 fields (this looks like a run"),
    ("qrels.txt", QRELS_LINE + "q1 0 d2 1.7\n", "qrels", "qrels.txt:2: expected an integer grade for query 'q1' id 'd2' (field 4), got '1.7'"),
    ("qrels.txt", "q1 0 d2 high\n", "qrels", "qrels.txt:1: expected an integer grade"),
    ("qrels.txt", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n", "qrels",
     "qrels.txt:3: expected one grade per query and id (query 'q1' id 'd1' was graded 1 on line 1), got grade 2"),
    ("qrels.txt", "", "qrels", "qrels.txt: expected at least one judgment line, got an empty file"),
    ("r.jsonl", '{"id": "a", "retrieved": []\n', "run", "r.jsonl:1: expected one JSON object per line"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": []}\n[1, 2]\n', "run", "r.jsonl:2: expected a JSON object per line, got a JSON list"),
    ("r.jsonl", '{"id": "a", "relevant": []}\n', "run", "r.jsonl:1: expected a 'retrieved' list of ids for query 'a', got no 'retrieved' key"),
    ("r.jsonl", '{"retrieved": []}\n', "run", "r.jsonl:1: expected a query id under 'id', 'query_id' or 'qid'"),
    ("r.jsonl", '{"id": "", "retrieved": []}\n', "run", "r.jsonl:1: expected 'id' as a non-empty string"),
    ("r.jsonl", '{"id": "a", "retrieved": "d1", "relevant": []}\n', "run", "r.jsonl:1: expected 'retrieved' as a list of ids for query 'a', got a JSON str"),
    ("r.jsonl", '{"id": "a", "retrieved": [null], "relevant": []}\n', "run", "r.jsonl:1: expected every retrieved id of query 'a' as a string, got 'null'"),
    ("r.jsonl", '{"id": "a", "retrieved": []}\n', "run", "r.jsonl:1: expected 'relevant' ids for query 'a' (or give --qrels), got no 'relevant' key"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": "d1"}\n', "run", "r.jsonl:1: expected 'relevant' as a list of ids or an object {id: grade}"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": {"d1": 1.5}}\n', "run", "r.jsonl:1: expected an integer grade for query 'a' id 'd1', got '1.5'"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": {"d1": 1, "d1": 2}}\n', "run", "r.jsonl:1: expected one value for key 'd1', got 1 and 2"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": []}\n\n{"id": "a", "retrieved": [], "relevant": []}\n', "run",
     "r.jsonl:3: expected each query once (query 'a' is also on line 1)"),
    ("r.jsonl", '{"id": "a", "retrieved": [], "relevant": [], "query": 3}\n', "run", "r.jsonl:1: expected 'query' as text for query 'a', got a JSON int"),
    ("r.jsonl", "", "run", "r.jsonl: expected at least one JSON line, got an empty file"),
    ("run.json", '{"q1": {"d1": 1.0,\n "d2": "x"}}', "run", "run.json:2: expected a numeric score for query 'q1' id 'd2', got 'x'"),
    ("run.json", '{"q1": [1, 2]}', "run", "run.json:1: expected query 'q1' to map ids to scores, got a JSON list"),
    ("run.json", '{"q1": {"d1": 1.0}', "run", "run.json:1: expected valid JSON (a run object {qid: {docid: score}})"),
    ("qrels.json", '{\n"q1": {"d1": true}}', "qrels", "qrels.json:2: expected an integer grade for query 'q1' id 'd1', got true"),
    ("qrels.json", '{"q1": {"d1": 1,\n "d1": 0}}', "qrels", "qrels.json:1: expected one value for key 'd1', got 1 and 0"),
    ("run.json", '{"q1": {"d1": 1.0},\n "q1": {"d2": 2.0}}', "run", "run.json:1: expected one value for key 'q1'"),
]


@pytest.mark.parametrize("name, content, role, message", ERRORS, ids=[e[3][:50] for e in ERRORS])
def test_error_names_file_line_and_expectation(write, name, content, role, message):
    path = write(name, content)
    other = write("other_qrels.txt", QRELS_LINE) if role == "run" else write("other_run.txt", RUN_LINE)
    with pytest.raises(InputError) as caught:
        if role == "run":
            load_runs([path], qrels=None if name.endswith(".jsonl") else other)
        else:
            load_runs([other], qrels=path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_jsonl_relevant_together_with_qrels_is_ambiguous(write):
    run = write("r.jsonl", '{"id": "a", "retrieved": [], "relevant": ["x"]}\n')
    with pytest.raises(InputError, match="r.jsonl:1: expected no 'relevant' key for query 'a' when --qrels"):
        load_runs([run], qrels=write("q", QRELS_LINE))


def test_gzip_that_is_cut_short(tmp_path):
    (tmp_path / "run.gz").write_bytes(gzip.compress(b"q1 Q0 d1 1 1 t\n" * 100)[:30])
    with pytest.raises(InputError, match="run.gz: expected a complete gzip file"):
        read_text(tmp_path / "run.gz")


def test_a_gz_name_without_gzip_data(tmp_path):
    (tmp_path / "run.txt.gz").write_text("q1 Q0 d1 1 1 t\n")
    with pytest.raises(InputError, match=r"run.txt.gz: expected gzip data \(the name ends in .gz\)"):
        read_text(tmp_path / "run.txt.gz")


def test_text_that_is_not_utf8(tmp_path):
    (tmp_path / "run.txt").write_bytes(b"q1 Q0 d1 1 1 t\nq1 Q0 \xff 2 1 t\n")
    with pytest.raises(InputError, match=r"run.txt:2: expected UTF-8 text, got byte 0xff"):
        read_text(tmp_path / "run.txt")


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="nope.txt: expected a readable file, got no such file"):
        load_runs([tmp_path / "nope.txt"])


def test_trec_run_without_qrels(write):
    with pytest.raises(UsageError, match="needs judgments: give them with --qrels FILE"):
        load_runs([write("run.txt", RUN_LINE)])


def test_two_runs_with_one_name(write, tmp_path):
    line = '{"id": "a", "retrieved": [], "relevant": ["x"]}\n'
    first, second = write("a/run.jsonl", line), write("b/run.jsonl", line)
    with pytest.raises(UsageError, match="two runs are named 'run'"):
        load_runs([first, second])


def test_meta_count_must_match_runs(write):
    run = write("r.jsonl", '{"id": "a", "retrieved": [], "relevant": ["x"]}\n')
    with pytest.raises(UsageError, match="--meta was given 2 time"):
        load_runs([run], metas=["a.toml", "b.toml"])


META_ERRORS = [
    ('label_source = "robot"\n', "m.toml:1: expected metadata 'label_source' to be one of human, model, got 'robot'"),
    ('name = "x"\nretriever_kind = "swarm"\n', "m.toml:2: expected metadata 'retriever_kind' to be one of single, multi-hop, agentic"),
    ('date = "last tuesday"\n', "m.toml:1: expected metadata 'date' as an ISO 8601 date"),
    ("judge_error_rate = 1.5\n", "m.toml:1: expected metadata 'judge_error_rate' as a number from 0 to 1, got '1.5'"),
    ("pool_depth = 0\n", "m.toml:1: expected metadata 'pool_depth' as a positive integer, got '0'"),
    ("name = 3\n", "m.toml:1: expected metadata 'name' as text, got '3'"),
    ('name = "x\n', "m.toml:1: expected valid TOML metadata"),
]


@pytest.mark.parametrize("content, message", META_ERRORS, ids=[m[1][:40] for m in META_ERRORS])
def test_metadata_errors(write, content, message):
    with pytest.raises(InputError) as caught:
        load_meta(write("m.toml", content))
    assert message in str(caught.value)


def test_metadata_json_error_line(write):
    path = write("m.json", '{\n  "name": "x",\n  "label_source": "crowd"\n}')
    with pytest.raises(InputError, match="m.json:3: expected metadata 'label_source' to be one of human, model"):
        load_meta(path)


def test_loaded_arrays_are_read_only(write):
    (loaded,) = load_runs([write("r.jsonl", '{"id": "a", "retrieved": ["x"], "relevant": ["x"]}\n')])
    with pytest.raises(ValueError):
        loaded.judgments.grades[0] = 5
    assert isinstance(loaded.run.offsets, np.ndarray)


def test_jsonl_lines_that_only_parse_together_are_still_refused_line_by_line(write):
    # "[" + ",".join(lines) + "]" would read these two lines as three values: each line decides.
    path = write("run.jsonl", '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}, {}\n'
                              '{"id": "q2", "retrieved": ["d1"], "relevant": ["d1"]}\n')
    with pytest.raises(InputError, match=r"run.jsonl:1: expected one JSON object per line, got Extra data"):
        load_runs([path])
