"""Tables of ids (--columns, --id-from: reading/columns.py, reading/table.py) and the RAG tools'
presets (reading/presets.py) beyond the scored examples of tests/test_formats.py: every layout
reads alike, ids from the query text follow the stated rule, wrong input is one line naming the
file, the line and what was expected."""

from __future__ import annotations

import hashlib
import json
import sys
import unicodedata
from pathlib import Path

import pytest
from helpers import grades_of, lists_of

from ragreport.api import evaluate
from ragreport.cli import main
from ragreport.core.errors import InputError, UsageError
from ragreport.core.model import Order
from ragreport.reading.columns import ColumnMap, parse_columns, text_id
from ragreport.reading.gate import has_passed
from ragreport.reading.presets import PRESETS
from ragreport.reading.registry import load_runs
from ragreport.reading.table import split_cell

STACKS = Path(__file__).parent / "data" / "rag_stacks"
MAP = "query=question,retrieved=docs,relevant=gold"
#: One table, three rows: by hand at K = 2, q1 finds d2 at rank 2 (R = 1), q2 finds d4 at rank 1 of
#: {d9, d4}, q3 lists nothing of {d7}.
ROWS = [
    {"question": "What is a?", "docs": ["d1", "d2", "d3"], "gold": ["d2"]},
    {"question": "What is b?", "docs": ["d4", "d5"], "gold": ["d9", "d4"]},
    {"question": "What is c?", "docs": ["d6"], "gold": ["d7"]},
]
LISTS = {text_id(r["question"]): r["docs"] for r in ROWS}
GRADES = {text_id(r["question"]): dict.fromkeys(r["gold"], 1) for r in ROWS}


def _layouts(tmp_path: Path) -> dict[str, Path]:
    """ROWS written in every layout a table may come in."""
    files = {
        "jsonl": "\n".join(json.dumps(r) for r in ROWS) + "\n",
        "json": json.dumps(ROWS, indent=2),
        "split.json": json.dumps({"columns": list(ROWS[0]), "data": [list(r.values()) for r in ROWS]}),
        # ids separated by commas inside a quoted cell, by | in a bare one
        "csv": "question,docs,gold\n"
        + "".join(f'{r["question"]},"{",".join(r["docs"])}",{"|".join(r["gold"])}\n' for r in ROWS),
        "pandas.csv": "question,docs,gold\n"
        + "".join(f'{r["question"]},"{r["docs"]!r}","{r["gold"]!r}"\n' for r in ROWS),
        "tsv": "question\tdocs\tgold\n"
        + "".join(f"{r['question']}\t{json.dumps(r['docs'])}\t{';'.join(r['gold'])}\n" for r in ROWS),
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"run.{name}"
        paths[name].write_text(text, "utf-8")
    return paths


def test_every_layout_reads_the_same_table(tmp_path):
    for name, path in _layouts(tmp_path).items():
        (loaded,) = load_runs([path], columns=MAP)
        assert lists_of(loaded.run) == LISTS, name
        assert grades_of(loaded.judgments) == GRADES, name
        assert loaded.run.query_text == tuple(r["question"] for r in ROWS), name


def test_parquet_list_columns(tmp_path):
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    path = tmp_path / "run.parquet"
    parquet.write_table(pyarrow.Table.from_pylist(ROWS), path)
    (loaded,) = load_runs([path], columns=MAP)
    assert lists_of(loaded.run) == LISTS and grades_of(loaded.judgments) == GRADES


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import fails as if pyarrow were not installed
    with pytest.raises(
        UsageError, match=r'run\.parquet: reading Parquet needs pyarrow: pip install "ragreport\[parquet\]"$'
    ):
        load_runs([path], columns=MAP)


def test_the_figures_of_a_table_by_hand(tmp_path):
    path = _layouts(tmp_path)["jsonl"]
    (summary,) = evaluate([str(path)], columns=MAP, k=2)
    assert summary.at_k["P@2"].mean == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert summary.at_k["R@2"].mean == pytest.approx((1 + 0.5 + 0) / 3)
    assert summary.at_k["RR@2"].mean == pytest.approx((0.5 + 1 + 0) / 3)


def test_the_id_from_the_query_text_is_the_stated_hash():
    # NFC, whitespace runs made one space, ends trimmed, case kept; written out here independently.
    decomposed = "  Cafe\u0301  au\tlait? "
    expected = "q-" + hashlib.sha256("Caf\u00e9 au lait?".encode()).hexdigest()[:12]
    assert text_id(decomposed) == expected
    assert unicodedata.normalize("NFC", "Cafe\u0301") == "Caf\u00e9"
    assert text_id("caf\u00e9 au lait?") != expected  # the case is kept


def test_id_from_row_and_an_id_column(tmp_path):
    path = _layouts(tmp_path)["jsonl"]
    (loaded,) = load_runs([path], columns="retrieved=docs,relevant=gold", id_from="row")
    assert list(lists_of(loaded.run)) == ["row-1", "row-2", "row-3"]
    (loaded,) = load_runs([path], columns="id=question,retrieved=docs,relevant=gold")
    assert list(lists_of(loaded.run)) == [r["question"] for r in ROWS]
    with pytest.raises(UsageError, match="^id_from must be one of query, row, got 'line'$"):
        load_runs([path], columns=MAP, id_from="line")


def test_scores_rank_the_list_and_grades_grade_the_relevant(tmp_path):
    path = tmp_path / "run.jsonl"
    row = {"q": "x", "docs": ["d1", "d2", "d3"], "s": [0.1, 0.9, 0.1], "gold": ["d1", "d3"], "g": [2, 1]}
    path.write_text(json.dumps(row) + "\n")
    columns = "id=q,retrieved=docs,scores=s,relevant=gold,grades=g"
    (loaded,) = load_runs([path], columns=columns)
    assert lists_of(loaded.run) == {"x": ["d2", "d3", "d1"]}  # score high to low, the tie by id descending
    assert grades_of(loaded.judgments) == {"x": {"d1": 2, "d3": 1}}
    (loaded,) = load_runs([path], columns=columns, order=Order.FILE)
    assert lists_of(loaded.run) == {"x": ["d1", "d2", "d3"]}


def test_qrels_overrule_the_rows_relevant(tmp_path):
    path = _layouts(tmp_path)["csv"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(f"{text_id('What is a?')} 0 d1 1\n")
    with pytest.warns(UserWarning, match="are set aside"):
        (loaded,) = load_runs([path], columns=MAP, qrels=qrels)
    assert grades_of(loaded.judgments) == {text_id("What is a?"): {"d1": 1}}
    (loaded,) = load_runs([path], columns="query=question,retrieved=docs", qrels=qrels)  # no relevant column
    assert grades_of(loaded.judgments) == {text_id("What is a?"): {"d1": 1}}


@pytest.mark.parametrize(
    "cell, values",
    [
        ('["d1", "d,2"]', ["d1", "d,2"]),  # JSON: any id
        ("['d1', 'd2']", ["d1", "d2"]),  # pandas' repr of a list
        ("d1 | d2|d3", ["d1", "d2", "d3"]),
        ("d1;d2", ["d1", "d2"]),
        ("d1,d2", ["d1", "d2"]),
        ("d1", ["d1"]),
        ("  ", []),
    ],
)
def test_a_list_in_one_cell(cell, values):
    assert split_cell(cell) == values


# --- --columns itself ------------------------------------------------------------------------------


def test_the_map_parses_and_keeps_defaults_for_roles_not_named():
    columns = parse_columns("retrieved=docs, relevant = gold,steps=hops")
    assert columns is not None
    assert (columns.retrieved, columns.relevant, columns.steps) == (("docs",), ("gold",), ("hops",))
    assert columns.id == ColumnMap().id and columns.named == ("retrieved", "relevant", "steps")
    assert parse_columns({"retrieved": "docs"}) == parse_columns("retrieved=docs")


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "answer=a",
            "--columns: unknown role 'answer': the roles are id, query, retrieved, relevant, scores, grades, steps",
        ),
        ("retrieved", "--columns: expected role=column pairs such as retrieved=doc_ids, got 'retrieved'"),
        ("retrieved=", "--columns: expected a column name after retrieved=, got nothing"),
        ("retrieved=a,retrieved=b", "--columns: role 'retrieved' named twice"),
        (" , ", "--columns: expected at least one role=column pair, such as retrieved=doc_ids"),
    ],
)
def test_a_wrong_map_is_one_line_naming_the_flag(text, message):
    with pytest.raises(UsageError) as caught:
        parse_columns(text)
    assert str(caught.value) == message


def test_a_missing_column_names_the_file_the_column_and_the_columns_present(tmp_path, capsys):
    path = _layouts(tmp_path)["csv"]
    assert main(["score", str(path), "--columns", "query=question,retrieved=documents,relevant=gold"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"ragreport: error: {path}: expected --columns retrieved=documents: a column of that name, "
        "got the columns 'question', 'docs', 'gold'"
    )
    with pytest.raises(InputError) as caught:
        load_runs([path], columns="query=question,retrieved=docs")
    assert str(caught.value) == (
        f"{path}: expected a 'relevant' column ('relevant'): a column of that name (or --qrels), "
        "got the columns 'question', 'docs', 'gold'"
    )


@pytest.mark.parametrize(
    "name, text, expected",
    [
        # a row lacking a column the first row has: its line
        (
            "r.jsonl",
            '{"question": "a", "docs": ["d1"], "gold": []}\n{"question": "b", "gold": []}\n',
            "r.jsonl:2: expected a 'docs' value, as the first row has, got keys 'question, gold'",
        ),
        # a cell that is no list
        (
            "r.jsonl",
            '{"question": "a", "docs": "d1", "gold": []}\n',
            "r.jsonl:1: expected 'docs' as a list (a JSON array, or ids separated by | ; ,), got 'd1'",
        ),
        # a row of another width (line 3: a quoted cell spans lines 2-3 of the row before)
        (
            "r.csv",
            'question,docs,gold\n"a\nb",d1,d1\nc,d2\n',
            "r.csv:4: expected 3 cells, as the header names, got 2 cells",
        ),
        # a forbidden character in an id, escaped
        (
            "r.jsonl",
            '{"question": "a", "docs": ["d\\u00001"], "gold": []}\n',
            "r.jsonl:1: expected every retrieved id of query",
        ),
        # one question twice: one id twice
        (
            "r.jsonl",
            '{"question": "a", "docs": [], "gold": []}\n{"question": " a", "docs": [], "gold": []}\n',
            "r.jsonl:2: expected each query once",
        ),
        # a JSON array's item that is no object: its line
        (
            "r.json",
            '[\n{"question": "a", "docs": [], "gold": []},\n7\n]',
            "r.json:3: expected an object per row, got a JSON int",
        ),
    ],
)
def test_wrong_rows_are_one_line_naming_file_and_line(write, name, text, expected):
    with pytest.raises(InputError) as caught:
        load_runs([write(name, text)], columns=MAP)
    message = str(caught.value)
    assert expected in message and "\n" not in message, message


def test_config_and_cli_take_the_map(tmp_path, capsys):
    path = _layouts(tmp_path)["tsv"]
    config = tmp_path / "ragreport.toml"
    config.write_text(f'columns = "{MAP}"\nid-from = "query"\n')
    assert main(["score", str(path), "--config", str(config), "--format", "json", "-k", "2"]) == 0
    from_config = json.loads(capsys.readouterr().out)["runs"][0]["metrics"]["RR@2"]["mean"]
    assert main(["score", str(path), "--columns", MAP, "--format", "json", "-k", "2"]) == 0
    assert (
        json.loads(capsys.readouterr().out)["runs"][0]["metrics"]["RR@2"]["mean"] == from_config == pytest.approx(0.5)
    )


def test_a_map_beside_a_format_that_is_no_table_is_refused(tmp_path):
    path = _layouts(tmp_path)["csv"]
    with pytest.raises(UsageError) as caught:
        evaluate([str(path)], columns=MAP, input_format="csv")
    assert str(caught.value) == (
        "columns reads a table of ids: leave out input_format='csv' or name a preset "
        "(llamaindex, mlflow, openinference, rank_eval)"
    )
    (summary,) = evaluate([str(path)], columns={"query": "question", "retrieved": "docs", "relevant": "gold"}, k=2)
    assert summary.at_k["RR@2"].mean == pytest.approx((0.5 + 1 + 0) / 3)  # a mapping, as the string


def test_the_partition_engines_refuse_a_table(tmp_path):
    path = _layouts(tmp_path)["jsonl"]
    with pytest.raises(UsageError, match="columns reads tables whole: leave out engine='stream'"):
        evaluate([str(path)], columns=MAP, engine="stream", qrels=str(path))


# --- the presets beyond their scored examples -----------------------------------------------------


def test_every_preset_passes_what_it_reads_through_the_gate():
    examples = {
        "llamaindex": ("llamaindex_results.jsonl", "llamaindex_dataset.json"),
        "mlflow": ("mlflow_eval_results_table.csv", None),
        "openinference": ("openinference_spans.jsonl", None),
        "rank_eval": ("rank_eval_response.json", "rank_eval_request.json"),
    }
    assert set(examples) == {p.name for p in PRESETS}
    for preset in PRESETS:
        run_file, qrels_file = examples[preset.name]
        run, own = preset.read_run(STACKS / run_file, None, Order.SCORE, False)
        assert has_passed(run) and (own is None or has_passed(own)), preset.name
        assert (qrels_file is None) == (preset.read_qrels is None)
        if preset.read_qrels is not None:
            assert has_passed(preset.read_qrels(STACKS / qrels_file, None)), preset.name


def test_openinference_leaves_out_other_spans_and_keys_by_the_question():
    run, own = next(p for p in PRESETS if p.name == "openinference").read_run(
        STACKS / "openinference_spans.jsonl", None, Order.SCORE, False
    )
    assert own is None
    assert lists_of(run) == {text_id("What is ragreport?"): ["d1", "d2", "d3"], text_id("Which metrics?"): ["d4", "d5"]}


def test_rank_eval_ratings_are_the_grades_and_a_null_score_keeps_the_order(write):
    judgments = next(p for p in PRESETS if p.name == "rank_eval").read_qrels(STACKS / "rank_eval_request.json", None)
    assert grades_of(judgments) == {"amsterdam_query": {"doc1": 0, "doc2": 1, "doc3": 2}, "berlin_query": {"doc4": 1}}
    sorted_by_field = {"q1": {"hits": {"hits": [{"_id": "b", "_score": None}, {"_id": "a", "_score": None}]}}}
    (loaded,) = load_runs(
        [write("search.json", json.dumps(sorted_by_field))],
        input_format="rank_eval",
        qrels=STACKS / "rank_eval_request.json",
    )
    assert lists_of(loaded.run) == {"q1": ["b", "a"]}


@pytest.mark.parametrize(
    "fmt, name, text, expected",
    [
        (
            "llamaindex",
            "d.json",
            '{"queries": {"u1": "a?"}, "corpus": {}, "relevant_docs": {"u1": ["n\\u00001"]}}',
            "d.json: expected a relevant id of query 'u1' without control or bidi characters",
        ),
        (
            "rank_eval",
            "r.json",
            '{"requests": [{"id": "q1", "ratings": [{"_id": "d1", "rating": 1.5}]}]}',
            "r.json:1: expected an integer grade for request 'q1' _id 'd1', got '1.5'",
        ),
        (
            "rank_eval",
            "r.json",
            '{"requests": [{"id": "q1"}]}',
            "r.json: expected requests[0] with an 'id' and a list of 'ratings'",
        ),
    ],
)
def test_a_preset_refuses_wrong_judgments_in_one_line(write, fmt, name, text, expected):
    reader = next(p for p in PRESETS if p.name == fmt)
    with pytest.raises(InputError) as caught:
        reader.read_qrels(write(name, text), None)
    assert str(caught.value).startswith(str(write(name, text)).removesuffix(name)) and expected in str(caught.value)


def test_a_llamaindex_dataset_given_as_a_run_is_named(capsys):
    assert main(["score", str(STACKS / "llamaindex_dataset.json"), "--input-format", "llamaindex"]) == 2
    assert "an EmbeddingQAFinetuneDataset: give it as --qrels" in capsys.readouterr().err


def test_a_csv_row_opening_a_hash_is_a_row_and_blank_lines_are_skipped(write):
    path = write("r.csv", 'question,docs,gold\n#1 question,d1,d1\n\n"two\nlines",d2,d3\n')
    (loaded,) = load_runs([path], columns=MAP)
    assert lists_of(loaded.run) == {text_id("#1 question"): ["d1"], text_id("two lines"): ["d2"]}


def test_openinference_spans_as_a_phoenix_parquet_export_read_as_the_jsonl_ones(tmp_path):
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    rows = [json.loads(line) for line in (STACKS / "openinference_spans.jsonl").read_text().splitlines()]
    phoenix = [
        rows[2],
        {
            **rows[2],
            "context.trace_id": "t1",
            "attributes.input.value": "What is ragreport?",
            "attributes.retrieval.documents": [
                {"document.id": d, "document.score": s} for d, s in (("d1", 0.9), ("d2", 0.8), ("d3", 0.95))
            ],
        },
    ]
    path = tmp_path / "spans.parquet"
    parquet.write_table(pyarrow.Table.from_pylist(phoenix), path)
    (loaded,) = load_runs(
        [path], input_format="openinference", columns="id=context.trace_id", qrels=STACKS / "openinference_qrels.json"
    )
    assert lists_of(loaded.run) == {"t2": ["d4", "d5"], "t1": ["d1", "d2", "d3"]}


@pytest.mark.parametrize(
    "fmt, text, expected",
    [
        (
            "rank_eval",
            '{"details": {\n"q1": 5}}',
            "r.json:2: expected a list of hits, each with an '_id', for request 'q1', got another value",
        ),
        (
            "rank_eval",
            '{"q1": {"hits": {"hits": [{"_score": 1}]}}}',
            "r.json:1: expected a list of hits, each with an '_id', for request 'q1', got another value",
        ),
        (
            "rank_eval",
            '{"took": 3}',
            "r.json: expected a _rank_eval response ('details') or an object of search responses by request id, got neither",
        ),
        ("openinference", "[\n3\n]", "r.json:2: expected a span as an object, got a JSON int"),
        (
            "openinference",
            '[{"attributes": {"retrieval.documents.1.document.id": "d1", "input.value": "a"}}]',
            "r.json:1: expected retrieval.documents.N.document.id for N = 0, 1, 2, ..., got a gap or a null id",
        ),
        ("openinference", '[{"span_kind": "LLM"}]', "r.json: expected at least one RETRIEVER span, got none"),
    ],
)
def test_a_preset_refuses_a_wrong_run_in_one_line(write, fmt, text, expected):
    path = write("r.json", text)
    with pytest.raises(InputError) as caught:
        qrels = "rank_eval_request.json" if fmt == "rank_eval" else "openinference_qrels.json"
        load_runs([path], input_format=fmt, qrels=STACKS / qrels)
    assert str(caught.value).endswith(expected) and "\n" not in str(caught.value), str(caught.value)


def test_a_steps_column_gives_a_multi_hop_run_its_hops(tmp_path):
    # By hand at K = 3: "a" finds its one relevant id (d3) only in hop 2; "b" finds e1 in hop 1 and
    # e3 in hop 2. Recall after hop 1: (0 + 1/2) / 2 = 0.25; after both: 1. Three relevant ids
    # found, two of them only by hop 2.
    table = tmp_path / "hops.csv"
    table.write_text(
        "question,hops,gold\n"
        'what is a,"[[""d1"", ""d2""], [""d3""]]","[""d3""]"\n'
        'what is b,"[[""e1""], [""e2"", ""e3""]]","[""e1"", ""e3""]"\n'
    )
    [summary] = evaluate([str(table)], k=3, columns="query=question,steps=hops,relevant=gold")
    assert summary.steps is not None
    assert [i.mean for i in summary.steps.recall] == pytest.approx([0.25, 1.0])
    assert summary.steps.found == (1, 3) and summary.steps.later == pytest.approx(2 / 3)
