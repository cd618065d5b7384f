"""reading.delimited: CSV/TSV runs and BEIR's TSV qrels; a TSV of TREC qrels goes to the TREC reader."""

from __future__ import annotations

import json
import re

import pytest
from helpers import grades_of, lists_of
from sitetools import read_page

from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.core.model import Order
from ragreport.reading.registry import load_qrels, load_runs


def test_a_csv_run_with_a_header_in_any_column_order(write):
    run = write("r.csv", "score,doc_id,query_id\n0.5,d1,q1\n0.9,d2,q1\n0.1,d3,q2\n")
    (loaded,) = load_runs([run], qrels=write("q", "q1 0 d1 1\n"))
    assert lists_of(loaded.run) == {"q1": ["d2", "d1"], "q2": ["d3"]}


def test_a_tsv_run_of_three_columns_is_qid_docid_score(write):
    run = write("r.tsv", "q1\td1\t2\nq1\td2\t1\n")
    (loaded,) = load_runs([run], qrels=write("q", "q1 0 d1 1\n"))
    assert lists_of(loaded.run) == {"q1": ["d1", "d2"]}  # no header: the third column is the score


def test_beir_qrels_and_trec_qrels_in_a_tsv_file(write):
    beir = write("beir.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n")
    assert grades_of(load_qrels(beir)) == {"q1": {"d1": 2, "d2": 0}}
    msmarco = write("qrels.dev.tsv", "q1\t0\td1\t1\nq2\t0\td3\t1\n")  # MS MARCO's qrels: TREC lines, tabs
    assert grades_of(load_qrels(msmarco)) == {"q1": {"d1": 1}, "q2": {"d3": 1}}
    with pytest.raises(InputError, match="qrels.dev.tsv:2: expected 4 fields 'qid iter docid grade', got 3"):
        load_qrels(write("qrels.dev.tsv", "q1\t0\td1\t1\nq2\t0\td3\n"))


def test_a_beir_header_alone_holds_no_judgment(write):
    with pytest.raises(InputError, match="q.tsv: expected at least one judgment line, got an empty file"):
        load_qrels(write("q.tsv", "query-id\tcorpus-id\tscore\n"))


def test_quoted_fields_follow_rfc_4180(write):
    run = write("r.csv", 'qid,docid,score\nq1,"d,1",2\nq1,"d""2",1\n')
    (loaded,) = load_runs([run], qrels=write("q", "q1 0 d1 1\n"))
    assert lists_of(loaded.run) == {"q1": ["d,1", 'd"2']}


def test_a_tsv_line_with_a_quoted_comma_is_still_tab_separated(write):
    run = write("r.tsv", 'q1\t"d,1"\t2\nq1\td2\t1\n')
    (loaded,) = load_runs([run], qrels=write("q", "q1 0 d1 1\n"))
    assert lists_of(loaded.run) == {"q1": ["d,1", "d2"]}


def test_an_unclosed_quote_names_the_line(write):
    run = write("r.csv", 'q1,d1,2\nq1,"d2,1\n')
    with pytest.raises(InputError, match=r"r.csv:2: expected fields quoted as RFC 4180 has it, got unexpected end"):
        load_runs([run], qrels=write("q", "q1 0 d1 1\n"))


# --- A headerless third column: ranks or scores (docs/formats.md) ------------------------------------

QRELS_Q1_Q2 = "q1 0 d1 1\nq2 0 d9 1\n"


def test_a_third_column_running_1_2_3_is_read_as_ranks_and_says_so(write):
    run = write("r.tsv", "q1\td1\t1\nq1\td2\t2\nq1\td3\t3\nq2\td9\t1\n")
    (loaded,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2))
    assert lists_of(loaded.run) == {"q1": ["d1", "d2", "d3"], "q2": ["d9"]}  # rank 1 first, not last
    assert dict(loaded.run.meta.extra) == {"third column": "read as ranks: it runs 1, 2, 3, ... within each query"}


def test_ranks_keep_the_metadata_file_beside_the_run(write):
    run = write("r.tsv", "q1\td1\t1\nq1\td2\t2\n")
    write("r.meta.toml", 'name = "bm25"\nteam = "search"\n')
    (loaded,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2))
    assert loaded.run.name == "bm25"
    assert dict(loaded.run.meta.extra) == {"team": "search", "third column": loaded.run.meta.extra[1][1]}


@pytest.mark.parametrize(
    "content, lists",
    [
        ("q1\td1\t9\nq1\td2\t7\nq1\td3\t7\n", {"q1": ["d1", "d3", "d2"]}),  # falling integers: scores, ties by id
        ("q1\td1\t0.1\nq1\td2\t0.5\n", {"q1": ["d2", "d1"]}),  # a fraction: scores, even rising
        ("q1\td1\t5\nq2\td9\t7\n", {"q1": ["d1"], "q2": ["d9"]}),  # lists of one read alike: no question
    ],
)
def test_a_third_column_of_scores_keeps_the_score_reading(write, content, lists):
    (loaded,) = load_runs([write("r.tsv", content)], qrels=write("q", QRELS_Q1_Q2))
    assert lists_of(loaded.run) == lists and loaded.run.meta.extra == ()


def test_a_list_of_one_decides_nothing(write):
    run = write("r.tsv", "q1\td3\t1\nq1\td1\t2\nq2\td9\t7\n")  # q2 reads alike either way
    (loaded,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2))
    assert lists_of(loaded.run) == {"q1": ["d3", "d1"], "q2": ["d9"]}


@pytest.mark.parametrize(
    "content, line, got",
    [
        (
            "q1\td1\t0\nq1\td2\t1\nq1\td3\t2\n",  # ranks from 0: rising, not 1, 2, 3
            1,
            "integers that are neither 1, 2, 3, ... nor falling (query 'q1': 0, 1, 2)",
        ),
        (
            "q1\td1\t1\nq1\td2\t2\nq2\td9\t8\nq2\td3\t5\nq2\td4\t4\nq2\td5\t3\nq2\td6\t2\n",
            3,
            "ranks in one query and scores in another (query 'q1': 1, 2; query 'q2': 8, 5, 4, 3, ...)",
        ),
    ],
)
def test_a_third_column_that_reads_both_ways_is_refused_naming_both_flags(write, content, line, got):
    run = write("r.tsv", content)
    with pytest.raises(InputError) as caught:
        load_runs([run], qrels=write("q", QRELS_Q1_Q2))
    message = str(caught.value)
    assert "\n" not in message and f"r.tsv:{line}: expected a third column of ranks" in message
    assert message.endswith(f"got {got}: --input-format msmarco reads it as ranks, --input-format csv as scores")
    # each flag picks its reading; --order file needs neither
    (ranks,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2), input_format="msmarco")
    (scores,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2), input_format="csv")
    assert lists_of(ranks.run)["q1"] == ["d1", "d2"] + (["d3"] if line == 1 else [])
    assert lists_of(scores.run)["q1"] == (["d3", "d2", "d1"] if line == 1 else ["d2", "d1"])
    assert scores.run.meta.extra == () and "msmarco" in ranks.run.meta.extra[0][1]
    (filed,) = load_runs([run], qrels=write("q", QRELS_Q1_Q2), order=Order.FILE)
    assert lists_of(filed.run)["q1"][0] == "d1"


@pytest.mark.parametrize(
    "content, expected",
    [
        ("q1\td1\t1\t9.5\n", "r.tsv:1: expected 3 columns 'qid pid rank' (MS MARCO), got 4 columns"),
        (
            "q1\td1\t1\nq1\td2\t1.5\n",
            "r.tsv:2: expected a rank (an integer from 0 up) for query 'q1' id 'd2', got '1.5'",
        ),
        ("q1\td1\t-1\n", "r.tsv:1: expected a rank (an integer from 0 up) for query 'q1' id 'd1', got '-1'"),
        ("qid\tpid\trank\n", "r.tsv:1: expected a rank (an integer from 0 up) for query 'qid' id 'pid', got 'rank'"),
        ("q1\t\t1\n", "r.tsv:1: expected a query id and a passage id, got an empty field"),
    ],
)
def test_the_msmarco_layout_refuses_any_other_line(write, content, expected):
    with pytest.raises(InputError, match=re.escape(expected)):
        load_runs([write("r.tsv", content)], qrels=write("q", QRELS_Q1_Q2), input_format="msmarco")


def test_ms_marco_ranks_score_as_ranks_end_to_end(tmp_path, capsys):
    """The issue's case: 30 queries, the relevant passage at rank 1 of 10; every figure is 1 by hand
    (it was 0 when the rank was read as a score), and the run page says how the column was read."""
    (tmp_path / "run.tsv").write_text(
        "".join(f"{q}\tp{q}-{r}\t{r}\n" for q in range(1, 31) for r in range(1, 11)), encoding="utf-8"
    )
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 p{q}-1 1\n" for q in range(1, 31)), encoding="utf-8")
    out = tmp_path / "site"
    args = ["--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.tsv"), "-k", "5", "--quiet"]
    assert main(["build", *args, "--out", str(out), "--resamples", "100"]) == 0
    metrics = json.loads((out / "report.json").read_text())["runs"][0]["metrics"]
    assert metrics["nDCG@5"]["mean"] == metrics["RR@5"]["mean"] == 1.0 and metrics["P@5"]["mean"] == pytest.approx(0.2)
    (run_page,) = out.glob("run-run*.html")
    page = read_page(run_page).text
    assert "third column" in page and "read as ranks: it runs 1, 2, 3, ... within each query" in page
