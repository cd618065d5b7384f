"""reading.delimited: CSV/TSV runs and BEIR's TSV qrels; a TSV of TREC qrels goes to the TREC reader."""

from __future__ import annotations

import pytest
from helpers import grades_of, lists_of

from ragreport.core.errors import InputError
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
