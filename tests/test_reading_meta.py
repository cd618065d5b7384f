"""reading.meta: run metadata found or given, validated key by key; the checks every path makes once."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from ragreport.api import evaluate
from ragreport.core.errors import InputError, UsageError
from ragreport.core.model import LabelSource, RetrieverKind, RunMeta
from ragreport.reading.meta import check_meta_count, check_unique_names, find_meta, load_meta, run_name
from ragreport.reading.registry import load_runs

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


META_ERRORS = [
    ('label_source = "robot"\n', "m.toml:1: expected metadata 'label_source' to be one of human, model, got 'robot'"),
    (
        'name = "x"\nretriever_kind = "swarm"\n',
        "m.toml:2: expected metadata 'retriever_kind' to be one of single, multi-hop, agentic",
    ),
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


def test_meta_count_must_match_runs(write):
    run = write("r.jsonl", '{"id": "a", "retrieved": [], "relevant": ["x"]}\n')
    with pytest.raises(UsageError, match="^metas was given 2 time"):
        load_runs([run], metas=["a.toml", "b.toml"])


def test_the_checks_are_one_function_each():
    check_meta_count([], 3)
    check_meta_count(["a", "b"], 2)
    with pytest.raises(UsageError, match=r"^metas was given 1 time\(s\) for 2 run\(s\); give one per run, in order$"):
        check_meta_count(["a"], 2)
    check_unique_names([("a", "x"), ("b", "y")])
    with pytest.raises(
        UsageError,
        match=r"^two runs are named 'a' \(x and z\); set 'name' in their metadata or "
        r"rename a file$",
    ):
        check_unique_names([("a", "x"), ("b", "y"), ("a", "z")])
    assert run_name(RunMeta(name="n"), "dir/run.trec") == "n"
    assert run_name(RunMeta(), "dir/run.trec") == run_name(None, "dir/run.trec.gz") == "run"


@pytest.mark.parametrize("engine", ["memory", "stream"])
def test_every_engine_makes_the_same_checks(write, engine):
    first, second = write("a/run.trec", "q1 Q0 d1 1 1 t\n"), write("b/run.trec", "q1 Q0 d1 1 1 t\n")
    qrels = write("q", "q1 0 d1 1\n")
    with pytest.raises(UsageError, match=f"two runs are named 'run' \\({first} and {second}\\)"):
        evaluate([first, second], qrels=qrels, engine=engine)
    with pytest.raises(UsageError, match="^metas was given 1 time\\(s\\) for 2 run\\(s\\)"):
        evaluate([first, second], qrels=qrels, engine=engine, metas=[write("m.toml", "")])


def test_metadata_values_must_fit_report_json(write):
    """NaN and infinities are refused with the key's line (not stored as text); nesting is bounded."""
    with pytest.raises(InputError) as caught:
        load_meta(write("m.meta.toml", 'name = "x"\n\n[scores]\nbest = [0.5, nan]\n'))
    assert str(caught.value).endswith("m.meta.toml:3: expected metadata 'scores' with finite numbers, got nan")
    deep = '{"ok": 1,\n"v": ' + "[" * 33 + "]" * 33 + "}"
    with pytest.raises(InputError) as caught:
        load_meta(write("m.meta.json", deep))
    assert str(caught.value).endswith("m.meta.json:2: expected metadata 'v' nested at most 32 levels, got 33 levels")
    fine = load_meta(write("ok.meta.json", '{"v": ' + "[" * 32 + "]" * 32 + ', "n": 1e308}'))
    assert dict(fine.extra)["n"] == 1e308
