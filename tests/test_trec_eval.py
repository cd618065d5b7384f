"""Fidelity with trec_eval: its own test data (../shared/oracle) and pytrec-eval-terrier.

The expected outputs were made by trec_eval itself (commands in ../shared/oracle/*/README.md), e.g.
``trec_eval -m all_trec -q test/qrels.test test/results.test > out.test.aq``.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
import pytrec_eval
from conftest import oracle_dir
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.join import join
from ragreport.loaders import load_runs
from ragreport.metrics import METRICS, score
from ragreport.model import Conventions, Missing

TWINS = {"P": "P_{k}", "R": "recall_{k}", "Hit": "success_{k}", "AP": "map_cut_{k}", "nDCG": "ndcg_cut_{k}"}
DEEP = 1000  # at least the longest list, so RR@DEEP is trec_eval's recip_rank


def read_trec_eval(path):
    """{measure: {qid or 'all': value}} from trec_eval's output layout."""
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        measure, qid, value = line.split("\t")
        try:
            table[measure.strip()][qid] = float(value)
        except ValueError:
            continue
    return table


def ours(run_path, qrels_path, cutoffs, conventions=Conventions()):
    loaded = load_runs([run_path], qrels=qrels_path, order=conventions.order)[0]
    judged = join(loaded.run, loaded.judgments)
    return judged, score(judged, sorted(set(cutoffs) | {DEEP}), conventions)


def trec_values(judged, scores, measure, k):
    """(per-query dict, values) of one of our metrics under its trec_eval name."""
    keys = [m.key for m in METRICS]
    if measure == "recip_rank":
        values = scores.values[keys.index("RR"), :, scores.column(DEEP)]
    else:
        key = next(key for key, pattern in TWINS.items() if pattern.format(k=k) == measure)
        values = scores.values[keys.index(key), :, scores.column(k)]
    return {str(q): float(v) for q, v in zip(judged.query_ids, values)}


def check(expected, judged, scores, *, average_over=None):
    """Every P/recall/success/map_cut/ndcg_cut/recip_rank line of ``expected``, per query and 'all'.

    trec_eval averages over the qrels topics it evaluates, queries without a relevant id
    included as 0; ``average_over`` names those topics.
    """
    checked = 0
    for measure, per_query in expected.items():
        base, _, cut = measure.rpartition("_")
        if measure == "recip_rank":
            k = DEEP
        elif base in ("P", "recall", "success", "map_cut", "ndcg_cut") and cut.isdigit():
            k = int(cut)
        else:
            continue
        got = trec_values(judged, scores, measure, k)
        for qid, value in per_query.items():
            if qid == "all":
                topics = average_over or [q for q in per_query if q != "all"] or [
                    str(q) for q in judged.query_ids[judged.in_run & judged.has_judgments]]
                mean = sum(got[q] for q in topics) / len(topics)
                assert mean == pytest.approx(value, abs=5.1e-5), (measure, "all")
            else:
                assert got[qid] == pytest.approx(value, abs=5.1e-5), (measure, qid)
            checked += 1
    return checked


def test_trec_eval_test_suite_per_query_and_mean():
    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / "out.test.aq")
    cutoffs = [1, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
    judged, scores = ours(folder / "results.test", folder / "qrels.test", cutoffs)
    assert check(expected, judged, scores) >= 150


def test_trec_eval_missing_topic_scored_as_zero_like_dash_c():
    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / "out.test.aqc")
    judged, scores = ours(folder / "results.trunc", folder / "qrels.test", [1, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
    assert "302" in judged.query_ids[~judged.in_run]
    assert check(expected, judged, scores) >= 150


@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.test.with-comments"])
def test_trec_eval_default_measures_with_and_without_comment_lines(qrels):
    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / "out.test")
    judged, scores = ours(folder / "results.test", folder / qrels, [5, 10, 15, 20, 30, 100, 200, 500, 1000])
    assert check(expected, judged, scores) >= 10


def test_trec_eval_docnos_holding_hash_signs():
    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / "out.comment.test")
    judged, scores = ours(folder / "results.comment.test", folder / "qrels.comment.test",
                          [5, 10, 15, 20, 30, 100, 200, 500, 1000])
    assert check(expected, judged, scores, average_over=None) >= 10


def test_trec_eval_edges_ties_negative_grades_missing_and_unjudged_queries():
    folder = oracle_dir("trec_eval_edge")
    expected = read_trec_eval(folder / "out.edge.qc")
    judged, scores = ours(folder / "results.edge", folder / "qrels.edge", [1, 3, 5, 10])
    # trec_eval -c averages over every qrels topic (q7, with no relevant id, as 0); we exclude q7.
    topics = ["q1", "q2", "q3", "q5", "q6", "q7"]
    assert check(expected, judged, scores, average_over=topics) >= 100
    assert list(judged.query_ids[scores.scored]) == ["q1", "q2", "q5", "q6", "q3"]


def test_trec_eval_9_without_dash_c_skips_the_missing_topic():
    folder = oracle_dir("trec_eval_edge")
    expected = read_trec_eval(folder / "out.edge.q.v9")
    conventions = Conventions(missing=Missing.SKIP)
    judged, scores = ours(folder / "results.edge", folder / "qrels.edge", [1, 3, 5, 10], conventions)
    assert check(expected, judged, scores, average_over=["q1", "q2", "q5", "q6", "q7"]) >= 100
    assert "q3" not in list(judged.query_ids[scores.scored])


# --- Differential tests against pytrec-eval-terrier on generated TREC files ----------------------

DOCS = [f"d{i}" for i in range(9)]
SCORES = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.25]  # few values, so ties are common
QUERIES = ["q1", "q2", "q3", "q4"]

run_strategy = st.dictionaries(
    st.sampled_from(QUERIES),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=9),
    min_size=1)
qrels_strategy = st.dictionaries(
    st.sampled_from(QUERIES),
    st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1, max_size=9),
    min_size=1)
CUTS = [1, 2, 3, 5, 10]
MEASURES = {f"{name}.{','.join(map(str, CUTS))}" for name in ("P", "recall", "map_cut", "ndcg_cut", "success")}
MEASURES.add("recip_rank")


def _write_trec(tmp_path, run, qrels):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items()))
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return run_path, qrels_path


@settings(max_examples=200, deadline=None)
@given(run=run_strategy, qrels=qrels_strategy)
def test_matches_pytrec_eval_on_generated_trec_files(tmp_path_factory, run, qrels):
    tmp_path = tmp_path_factory.mktemp("trec")
    run_path, qrels_path = _write_trec(tmp_path, run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    judged, scores = ours(run_path, qrels_path, CUTS)
    for qid, measures in expected.items():
        for measure, value in measures.items():
            base, _, cut = measure.rpartition("_")
            k = DEEP if measure == "recip_rank" else int(cut)
            got = trec_values(judged, scores, measure, k)[qid]
            assert got == pytest.approx(value, abs=1e-9), (qid, measure)


@settings(max_examples=50, deadline=None)
@given(run=run_strategy, qrels=qrels_strategy)
def test_json_dict_run_scores_like_the_same_trec_run(tmp_path_factory, run, qrels):
    tmp_path = tmp_path_factory.mktemp("json")
    run_path, qrels_path = _write_trec(tmp_path, run, qrels)
    (tmp_path / "run.json").write_text(json.dumps(run))
    (tmp_path / "qrels.json").write_text(json.dumps(qrels))
    judged_a, scores_a = ours(run_path, qrels_path, CUTS)
    judged_b, scores_b = ours(tmp_path / "run.json", tmp_path / "qrels.json", CUTS)
    assert list(judged_a.query_ids) == list(judged_b.query_ids)
    assert (scores_a.values == scores_b.values).all()


def test_cli_means_at_10_with_missing_skip_equal_trec_eval(capsys):
    from ragreport.cli import main

    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / "out.test.aq")
    assert main(["score", "--qrels", str(folder / "qrels.test"), str(folder / "results.test"), "-k", "10",
                 "--missing", "skip", "--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["runs"][0]["metrics"]
    for label, measure in [("P@10", "P_10"), ("R@10", "recall_10"), ("Hit@10", "success_10"),
                           ("AP@10", "map_cut_10"), ("nDCG@10", "ndcg_cut_10")]:
        assert metrics[label]["mean"] == pytest.approx(expected[measure]["all"], abs=5.1e-5), label
        assert metrics[label]["trec_eval"] == measure
