"""Formats users already have, each read from a small file under tests/data, all scoring alike."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragreport.cli import main
from ragreport.output.exports.reportjson.migrate import query_rows

DATA = Path(__file__).parent / "data"


def _means(capsys, *args):
    assert main(["score", "--format", "json", "-k", "2", *args]) == 0
    document = json.loads(capsys.readouterr().out)
    run = {**document["runs"][0], "queries": query_rows(document, document["runs"][0])}
    return {label: round(entry["mean"], 12) for label, entry in run["metrics"].items()}, run


@pytest.mark.parametrize(
    "run, qrels",
    [
        ("ir_datasets_run.trec", "qrels.trec"),  # ir_datasets export: rank from 0, tag 'run'
        ("ir_datasets_run.trec", "beir_qrels.tsv"),  # BEIR qrels: header query-id corpus-id score
        ("run.csv", "qrels.trec"),  # CSV with a header
        ("ranx_run.json", "ranx_qrels.json"),  # ranx / pytrec_eval dictionaries
    ],
)
def test_every_run_format_scores_like_the_trec_files(capsys, run, qrels):
    reference, _ = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / "ir_datasets_run.trec"))
    got, _ = _means(capsys, "--qrels", str(DATA / qrels), str(DATA / run))
    assert got == reference


def test_ties_in_a_csv_run_follow_the_trec_rule(capsys):
    _, run = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / "run.csv"))
    q1 = next(q for q in run["queries"] if q["id"] == "q1")
    assert q1["first_relevant_rank"] == 1  # d4 (0.9), then d3 before d1 (tie at 0.8, ids descending)


@pytest.mark.parametrize("run", ["run_rank.tsv", "run_rank_header.tsv"])  # qid docid rank score; rank only
def test_tsv_runs_with_a_rank_column(capsys, run):
    got, _ = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / run))
    reference, _ = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / "ir_datasets_run.trec"))
    assert got == reference


@pytest.mark.parametrize("named", [(), ("--input-format", "msmarco")])
def test_an_ms_marco_run_is_read_by_its_ranks(capsys, named):
    """Pyserini's --output-format msmarco: qid, pid, rank; detected (1, 2, 3, ... in each query) or named."""
    got, run = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / "run_msmarco.tsv"), *named)
    reference, _ = _means(capsys, "--qrels", str(DATA / "qrels.trec"), str(DATA / "ir_datasets_run.trec"))
    assert got == reference
    # by hand, at K = 2: q1 lists d4 (grade 2), d3 (unjudged); q2 d9 (grade 0), d2 (grade 1)
    assert got["RR@2"] == pytest.approx((1 + 1 / 2) / 2)
    assert got["nDCG@2"] == pytest.approx((2 / (2 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2)
    assert "read as ranks" in run["meta"]["third column"]  # what the run page's metadata shows


def test_ragas_rows_carry_their_own_judgments(capsys):
    got, run = _means(capsys, str(DATA / "ragas.jsonl"))
    assert [q["id"] for q in run["queries"]] == ["row-1", "row-2"]
    assert run["queries"][0]["query"] == "first question"
    assert got["R@2"] == pytest.approx((0.5 + 1.0) / 2)  # row-1 finds d4 of {d1, d4}; row-2 finds d2
    assert got["CP@2"] == pytest.approx((1.0 + 0.5) / 2)


#: Files written the way RAG tools write them; tests/data/README.md cites each layout's source and
#: version: LlamaIndex (llama-index-core 0.10.x, evaluation/retrieval/base.py and
#: llama_dataset/legacy/embedding.py), MLflow 2.x (the retriever evaluation table, written by
#: default_evaluator.py's to_csv), OpenInference (spec/semantic_conventions.md; Phoenix's span
#: export), Elasticsearch 8 (_rank_eval's request and response schemas).
STACKS = DATA / "rag_stacks"


@pytest.mark.parametrize(
    "example, args, expected",
    [
        # MLflow 2.x retriever evaluation table (docs/rag-stacks.md): K = 2, by hand. "What is
        # MLflow?" finds its id at rank 2; "What is Databricks?" at 1; the serving question lists 1
        # id, relevant, of 2 relevant (P@2 = 1/2: the short list still divides by K).
        (
            "mlflow_eval_results_table.csv",
            ("--input-format", "mlflow"),
            {"P@2": 0.5, "R@2": (1 + 1 + 0.5) / 3, "RR@2": (0.5 + 1 + 1) / 3},
        ),
        # LlamaIndex RetrievalEvalResult rows, their own expected_ids: node-1 at 1, node-4 at 2, none.
        (
            "llamaindex_results.jsonl",
            ("--input-format", "llamaindex"),
            {"P@2": 1 / 3, "R@2": 2 / 3, "RR@2": (1 + 0.5 + 0) / 3},
        ),
        # ... against its EmbeddingQAFinetuneDataset, which judges node-6 (rank 2) for the third
        # question: met by the question's text, its extra blank aside.
        (
            "llamaindex_results.jsonl",
            ("--input-format", "llamaindex", "--qrels", str(STACKS / "llamaindex_dataset.json"), "--labels", "qrels"),
            {"P@2": 0.5, "R@2": 1.0, "RR@2": (1 + 0.5 + 0.5) / 3},
        ),
        # OpenInference spans, ids from the trace: t1 lists d1, d2, d3 in the span's order (d3's
        # higher score does not reorder it), relevant d3 at rank 3; t2 finds d4 and d5 at 1 and 2.
        (
            "openinference_spans.jsonl",
            (
                "--input-format",
                "openinference",
                "--columns",
                "id=context.trace_id",
                "--qrels",
                str(STACKS / "openinference_qrels.json"),
            ),
            {"P@2": 0.5, "R@2": 0.5, "RR@2": (0 + 1) / 2},
        ),
        # Elasticsearch _rank_eval response against its request's ratings (grades 0, 1, 2): amsterdam
        # lists doc2 (1), doc1 (0); berlin doc5 (unrated), doc4 (1). nDCG@2: amsterdam 1 / (2 + 1/log2 3).
        (
            "rank_eval_response.json",
            ("--input-format", "rank_eval", "--qrels", str(STACKS / "rank_eval_request.json")),
            {
                "P@2": 0.5,
                "R@2": (0.5 + 1) / 2,
                "RR@2": (1 + 0.5) / 2,
                "nDCG@2": (1 / (2 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2,
            },
        ),
    ],
    ids=["mlflow", "llamaindex", "llamaindex-dataset", "openinference", "rank_eval"],
)
def test_a_rag_tool_preset_scores_its_example_by_hand(capsys, example, args, expected):
    got, _ = _means(capsys, str(STACKS / example), *args)
    for label, value in expected.items():
        assert got[label] == pytest.approx(value), label


def test_a_delimited_run_with_a_wrong_column_count(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("q1,d1,0.5\nq1,d2\n")
    assert main(["score", "--qrels", str(DATA / "qrels.trec"), str(bad)]) == 2
    assert "bad.csv:2: expected 3 columns as on the first line, got 2 columns" in capsys.readouterr().err


def test_a_beir_qrels_line_with_a_wrong_column_count(tmp_path, capsys):
    bad = tmp_path / "qrels.tsv"
    bad.write_text("query-id\tcorpus-id\tscore\nq1\td1\n")
    assert main(["score", "--qrels", str(bad), str(DATA / "run.csv")]) == 2
    assert "qrels.tsv:2: expected 3 columns 'query-id corpus-id score', got 2 fields" in capsys.readouterr().err


#: The example files the tests above score, by the run format the registry detects in each.
SCORED_EXAMPLES = ("ir_datasets_run.trec", "run.csv", "ranx_run.json", "run_rank.tsv", "ragas.jsonl")
#: The formats detection never returns (read by name only), each with its example scored above.
NAMED_EXAMPLES = {
    "msmarco": "run_msmarco.tsv",
    "llamaindex": "llamaindex_results.jsonl",
    "mlflow": "mlflow_eval_results_table.csv",
    "openinference": "openinference_spans.jsonl",
    "rank_eval": "rank_eval_response.json",
}


def test_every_registered_format_has_an_example_scored_here():
    """A format added to the registry without an example file in tests/data scored above fails
    here: the examples' detected formats are exactly the registry's."""
    from ragreport.reading.registry import FORMATS, detect_file_format

    detected = {detect_file_format(DATA / name)[0] for name in SCORED_EXAMPLES}
    assert detected | set(NAMED_EXAMPLES) == set(FORMATS) and not detected & set(NAMED_EXAMPLES)
    source = Path(__file__).read_text("utf-8")
    for name in (*SCORED_EXAMPLES, *NAMED_EXAMPLES.values()):  # each is used by a test of this file, not only listed
        assert source.count(f'"{name}"') >= 2, name
