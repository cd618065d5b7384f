"""Fidelity with trec_eval: its own test data (copied into tests/data) and pytrec-eval-terrier.

The expected outputs were made by trec_eval itself (commands in tests/data/trec_eval_*/README.md), e.g.
``trec_eval -m all_trec -q test/qrels.test test/results.test > out.test.aq``. Under
``--compat trec_eval`` ragreport must give the same values, per query and mean.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict

import pytest
import pytrec_eval
from conftest import examples, oracle_dir
from hypothesis import given, settings
from hypothesis import strategies as st

from ragreport.cli import main
from ragreport.core.model import TREC_EVAL, Missing
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.reading.registry import load_runs
from ragreport.scoring.join import join
from ragreport.scoring.measures import Measure, parse_measures, score_measures

FAMILIES = ("P", "recall", "success", "map_cut", "ndcg_cut")


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


def compared_measures(expected) -> list[str]:
    names = []
    for name in expected:
        base, _, cut = name.rpartition("_")
        if (base in FAMILIES and cut.isdigit()) or name in (
            "recip_rank",
            "map",
            "ndcg",
            "Rprec",
            "num_rel",
            "num_ret",
            "num_rel_ret",
            "bpref",
            "infAP",
        ):
            names.append(name)
    return names


def ours(run_path, qrels_path, names, conventions=TREC_EVAL):
    """Per-query values and means of trec_eval measures, computed by ragreport under ``conventions``."""
    loaded = load_runs([run_path], qrels=qrels_path, order=conventions.order)[0]
    judged = join(loaded.run, loaded.judgments, conventions.relevance_level)
    measures = parse_measures(names)
    values = score_measures(judged, measures, conventions)
    from ragreport.scoring.metrics import score

    scored = score(judged, [1], conventions).scored
    ids = judged.query_ids.tolist()
    per_query = {name: {q: float(v) for q, v, s in zip(ids, values[i], scored) if s} for i, name in enumerate(names)}
    for name, m in zip(names, measures):
        column = [v for v in per_query[name].values()]
        per_query[name]["all"] = sum(column) if m.is_count else sum(column) / len(column)
    return per_query


def check(expected, got) -> int:
    checked = 0
    for name in compared_measures(expected):
        for qid, value in expected[name].items():
            assert got[name][qid] == pytest.approx(value, abs=5.1e-5), (name, qid)
            checked += 1
        assert set(got[name]) == set(expected[name]) or len(expected[name]) == 1, name  # same queries, or 'all' only
    return checked


@pytest.mark.parametrize(
    "output, run, qrels, extra, minimum",
    [
        ("out.test.aq", "results.test", "qrels.test", {}, 150),
        ("out.test.aqc", "results.trunc", "qrels.test", {"missing": Missing.ZERO}, 150),  # -c: topic 302 scored 0
        ("out.test", "results.test", "qrels.test", {}, 10),
        ("out.test", "results.test", "qrels.test.with-comments", {}, 10),
        ("out.comment.test", "results.comment.test", "qrels.comment.test", {}, 10),  # docnos holding '#'
        # trec_eval -l2 on grades -1 to 4: R, hits and ranks count grades 2 and up; ndcg gains from grades 1 and up
        ("out.test.aql", "results.test", "qrels.rel_level", {"relevance_level": 2}, 150),
    ],
)
def test_trec_eval_test_suite(output, run, qrels, extra, minimum):
    folder = oracle_dir("trec_eval_test")
    expected = read_trec_eval(folder / output)
    from dataclasses import replace

    got = ours(folder / run, folder / qrels, compared_measures(expected), replace(TREC_EVAL, **extra))
    assert check(expected, got) >= minimum


@pytest.mark.parametrize("output, extra", [("out.edge.q.v9", []), ("out.edge.qc", ["--missing", "zero"])])
def test_edge_cases_come_out_byte_for_byte(output, extra, capsys):
    """Score ties, negative grades, a query with only grade-0 judgments, queries only in the run or only
    in the qrels, short lists: `--format trec -q` prints exactly trec_eval's lines."""
    folder = oracle_dir("trec_eval_edge")
    measures = (
        "P.1,3,5,10,recall.1,3,5,10,map_cut.1,3,5,10,ndcg_cut.1,3,5,10,success.1,3,5,10,recip_rank,map,"
        "ndcg,Rprec,num_q,num_rel,num_ret,num_rel_ret"
    )
    assert (
        main(
            [
                "score",
                "--qrels",
                str(folder / "qrels.edge"),
                str(folder / "results.edge"),
                "--compat",
                "trec_eval",
                *extra,
                "--format",
                "trec",
                "-q",
                "--metrics",
                measures,
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == (folder / output).read_text()


def test_score_format_trec_reproduces_trec_eval_line_for_line(capsys):
    """The command of the issue: trec_eval -q -m P.5,10 -m recall.100 -m map_cut.100 -m ndcg_cut.10
    -m success.5 -m recip_rank, read off trec_eval's own all_trec output for those measures."""
    folder = oracle_dir("trec_eval_test")
    assert (
        main(
            [
                "score",
                "--qrels",
                str(folder / "qrels.test"),
                str(folder / "results.test"),
                "--compat",
                "trec_eval",
                "--format",
                "trec",
                "-q",
                "--metrics",
                "P.5,10",
                "--metrics",
                "recall.100",
                "--metrics",
                "map_cut.100,ndcg_cut.10",
                "--metrics",
                "success.5,recip_rank",
            ]
        )
        == 0
    )
    names = {"P_5", "P_10", "recall_100", "map_cut_100", "ndcg_cut_10", "success_5", "recip_rank"}
    theirs = [
        line for line in (folder / "out.test.aq").read_text().splitlines() if line.split("\t")[0].strip() in names
    ]
    assert capsys.readouterr().out.splitlines() == theirs and len(theirs) == 28


def test_without_per_query_only_the_all_lines(capsys):
    folder = oracle_dir("trec_eval_test")
    assert (
        main(
            [
                "score",
                "--qrels",
                str(folder / "qrels.test"),
                str(folder / "results.test"),
                "--compat",
                "trec_eval",
                "--format",
                "trec",
                "--metrics",
                "P.5,recip_rank",
            ]
        )
        == 0
    )
    capsys.readouterr()
    lines = [
        line
        for line in (folder / "out.test.aq").read_text().splitlines()
        if line.split("\t")[0].strip() in {"P_5", "recip_rank"} and line.split("\t")[1] == "all"
    ]
    assert (
        main(
            [
                "score",
                "--qrels",
                str(folder / "qrels.test"),
                str(folder / "results.test"),
                "--compat",
                "trec_eval",
                "--format",
                "trec",
                "--metrics",
                "P.5,recip_rank",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == lines


def test_repeated_ids_are_scored_by_rule_where_trec_eval_refuses_the_file(capsys):
    """trec_eval: 'duplicate docs u2', exit 4. ragreport: u2's second copy keeps rank 3 and scores nothing."""
    folder = oracle_dir("trec_eval_edge")
    assert (
        main(
            [
                "score",
                "--qrels",
                str(folder / "qrels.dup"),
                str(folder / "results.dup"),
                "--compat",
                "trec_eval",
                "--format",
                "trec",
                "-q",
                "--metrics",
                "P.3,num_ret,num_rel_ret",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "P_3                   \tqd\t0.3333\n" in out  # u2 (judged 0), u1 (relevant), u2 again (a repeat)
    assert "num_ret               \tqd\t4\n" in out and "num_rel_ret           \tqd\t2\n" in out


# --- Differential tests against pytrec-eval-terrier on generated TREC files ----------------------

DOCS = [f"d{i}" for i in range(9)]
SCORES = [-1.0, 0.0, 0.5, 1.0, 2.0, 3.25]  # few values, so ties are common
QUERIES = ["q1", "q2", "q3", "q4", "q10"]

run_strategy = st.dictionaries(
    st.sampled_from(QUERIES),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from(SCORES), min_size=1, max_size=len(DOCS)),
    min_size=1,
    max_size=len(QUERIES),
)  # keys drawn from a small set: the bounds keep generation fast
qrels_strategy = st.dictionaries(
    st.sampled_from(QUERIES),
    # Grades 0 to 3: pytrec-eval-terrier 0.5.11 crashes on -2 and below and, after a run of examples with
    # -1 (trec_eval's "pooled, unjudged"), hangs. Negative grades are checked against trec_eval's own
    # outputs above (qrels.edge).
    st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1, max_size=len(DOCS)),
    min_size=1,
    max_size=len(QUERIES),
)
CUTS = [1, 2, 3, 5, 10, 20]
PYTREC = {f"{name}.{','.join(map(str, CUTS))}" for name in ("P", "recall", "map_cut", "ndcg_cut", "success")}
PYTREC |= {"recip_rank", "map", "ndcg", "Rprec", "num_rel", "num_ret", "num_rel_ret", "bpref", "infAP"}
NAMES = [f"{name}_{c}" for name in FAMILIES for c in CUTS] + [
    "recip_rank",
    "map",
    "ndcg",
    "Rprec",
    "num_rel",
    "num_ret",
    "num_rel_ret",
    "bpref",
    "infAP",
]


def _write_trec(tmp_path, run, qrels):
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, docs in run.items() for d, s in docs.items()))
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return run_path, qrels_path


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """One folder the generated files are rewritten in (a new folder per example costs O(n) each)."""
    return tmp_path_factory.mktemp("generated")


@pytest.mark.slow
@settings(max_examples=examples(3000), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy)
def test_matches_pytrec_eval_per_query_and_mean(scratch, run, qrels):
    """Ties, negative and zero-only judgments, queries missing on either side, cutoffs past the list."""
    if not set(run) & set(qrels):
        return  # nothing in common: ragreport refuses such a pair (tested elsewhere), pytrec_eval returns {}
    run_path, qrels_path = _write_trec(scratch, run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)
    got = ours(run_path, qrels_path, NAMES)  # no relevant id anywhere: all zeros in both (--no-relevant zero)
    for name in NAMES:
        assert set(got[name]) - {"all"} == set(expected), name  # the same queries evaluated
        for qid, measures in expected.items():
            assert got[name][qid] == pytest.approx(measures[name], abs=1e-9), (qid, name)
        values = [measures[name] for measures in expected.values()]
        total = sum(values) if name.startswith("num_") else sum(values) / len(values)
        assert got[name]["all"] == pytest.approx(total, abs=1e-9), name


@pytest.mark.slow
@settings(max_examples=examples(1000), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy, level=st.integers(1, 4))
def test_matches_pytrec_eval_at_every_relevance_level(scratch, run, qrels, level):
    """--relevance-level N against pytrec_eval's relevance_level=N (trec_eval -l N), grades 0 to 3."""
    if not set(run) & set(qrels):
        return
    run_path, qrels_path = _write_trec(scratch, run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(qrels, PYTREC, relevance_level=level).evaluate(run)
    from dataclasses import replace

    got = ours(run_path, qrels_path, NAMES, replace(TREC_EVAL, relevance_level=level))
    for name in NAMES:
        assert set(got[name]) - {"all"} == set(expected), name
        for qid, measures in expected.items():
            assert got[name][qid] == pytest.approx(measures[name], abs=1e-9), (qid, name, level)


def test_lists_longer_than_a_thousand(tmp_path):
    rng = random.Random(7)
    run = {f"q{i}": {f"d{j}": float(rng.randint(0, 400)) for j in range(1500)} for i in range(3)}
    qrels = {q: {f"d{j}": rng.randint(0, 2) for j in rng.sample(range(1600), 40)} for q in run}
    run_path, qrels_path = _write_trec(tmp_path, run, qrels)
    cuts = "P.10,1000,1500,recall.1000,1500,map,ndcg,recip_rank,map_cut.1000"
    expected = pytrec_eval.RelevanceEvaluator(
        qrels,
        set(cuts.split(",")[:1]) | {"P.10,1000,1500", "recall.1000,1500", "map", "ndcg", "recip_rank", "map_cut.1000"},
    ).evaluate(run)
    names = ["P_10", "P_1000", "P_1500", "recall_1000", "recall_1500", "map", "ndcg", "recip_rank", "map_cut_1000"]
    got = ours(run_path, qrels_path, names)
    for qid, measures in expected.items():
        for name in names:
            assert got[name][qid] == pytest.approx(measures[name], abs=1e-9), (qid, name)


@settings(max_examples=examples(50), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy)
def test_json_dict_run_scores_like_the_same_trec_run(scratch, run, qrels):
    if not set(run) & set(qrels) or not any(g >= 1 for q in set(run) & set(qrels) for g in qrels[q].values()):
        return
    tmp_path = scratch
    run_path, qrels_path = _write_trec(tmp_path, run, qrels)
    (tmp_path / "run.json").write_text(json.dumps(run))
    (tmp_path / "qrels.json").write_text(json.dumps(qrels))
    assert ours(run_path, qrels_path, NAMES) == ours(tmp_path / "run.json", tmp_path / "qrels.json", NAMES)


def test_measures_of_every_spelling_score_alike(tmp_path):
    run_path, qrels_path = _write_trec(tmp_path, {"q1": {"a": 2.0, "b": 1.0, "c": 0.5}}, {"q1": {"b": 1, "c": 2}})
    loaded = load_runs([run_path], qrels=qrels_path)[0]
    judged = join(loaded.run, loaded.judgments)
    trec = score_measures(judged, parse_measures(["P_2,ndcg_cut_3,map_cut_3,success_1,recall_3"]), TREC_EVAL)
    ir = score_measures(judged, parse_measures(["P@2,nDCG@3,AP@3,Success@1,R@3"]), TREC_EVAL)
    ranx = score_measures(judged, parse_measures(["precision@2,ndcg@3,map@3,hit_rate@1,recall@3"]), TREC_EVAL)
    assert (trec == ir).all() and (trec == ranx).all()
    burges = score_measures(judged, [Measure("nDCG", 3, None)], TREC_EVAL)
    assert burges[0, 0] != score_measures(judged, parse_measures(["ndcg_burges@3"]), TREC_EVAL)[0, 0]


# --- Judgments that say nothing relevant, as pytrec_eval reads them -------------------------------


def _json_report(tmp_path, capsys, run, qrels, *extra):
    (tmp_path / "run.json").write_text(json.dumps(run))
    (tmp_path / "qrels.json").write_text(json.dumps(qrels))
    assert (
        main(
            [
                "score",
                "--qrels",
                str(tmp_path / "qrels.json"),
                str(tmp_path / "run.json"),
                "--compat",
                "trec_eval",
                "--metrics",
                "P_2,ndcg_cut_2,map,recip_rank",
                "--format",
                "json",
                *extra,
            ]
        )
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    return {**document["runs"][0], "queries": query_rows(document, document["runs"][0])}


def test_a_query_with_an_empty_judgment_object_is_not_judged(tmp_path, capsys):
    """``{"q1": {}}`` in JSON qrels: pytrec_eval evaluates no q1; q2 judged 0 only is averaged in as 0."""
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q3": {"d": 2.0, "e": 1.0}}
    qrels = {"q1": {}, "q2": {"c": 0}, "q3": {"e": 1}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P_2", "ndcg_cut_2", "map", "recip_rank"}).evaluate(run)
    assert sorted(expected) == ["q2", "q3"]
    got = _json_report(tmp_path, capsys, run, qrels)
    scored = {q["id"]: q for q in got["queries"] if q["scored"]}
    assert sorted(scored) == ["q2", "q3"]
    for name, label in (("P_2", "P@2"), ("ndcg_cut_2", "nDCG@2"), ("map", "AP"), ("recip_rank", "RR")):
        for q in expected:
            assert scored[q][label] == pytest.approx(expected[q][name], abs=1e-12), (q, name)
        mean = sum(v[name] for v in expected.values()) / len(expected)
        assert got["measures"][label]["mean"] == pytest.approx(mean, abs=1e-12)
    assert got["counts"]["excluded_no_relevant"] == 1 and got["counts"]["no_relevant_as_zero"] == 1


def test_judgments_with_no_relevant_id_anywhere_score_zero_under_no_relevant_zero(tmp_path, capsys):
    """trec_eval and pytrec_eval average every judged query in as 0; the default refuses (nothing to score)."""
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    qrels = {"q1": {"a": 0, "z": 0}, "q2": {"c": 0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P_2", "ndcg_cut_2", "map", "recip_rank"}).evaluate(run)
    assert sorted(expected) == ["q1", "q2"] and all(v == 0 for m in expected.values() for v in m.values())
    got = _json_report(tmp_path, capsys, run, qrels)
    assert got["counts"]["scored"] == 2 and got["counts"]["no_relevant_as_zero"] == 2
    assert all(got["measures"][label]["mean"] == 0.0 for label in ("P@2", "nDCG@2", "AP", "RR"))
    assert got["metrics"]["P@10"]["mean"] == 0.0
    assert (
        main(["score", "--qrels", str(tmp_path / "qrels.json"), str(tmp_path / "run.json"), "--no-relevant", "exclude"])
        == 2
    )
    assert capsys.readouterr().err == (
        f"ragreport: error: {tmp_path / 'run.json'} and {tmp_path / 'qrels.json'}: no query has an id judged "
        "relevant (grade 1 or more), so nothing can be scored (--no-relevant zero scores every judged query 0, "
        "as trec_eval does)\n"
    )
    (tmp_path / "empty.json").write_text(json.dumps({"q1": {}}))
    assert (
        main(["score", "--qrels", str(tmp_path / "empty.json"), str(tmp_path / "run.json"), "--compat", "trec_eval"])
        == 2
    )
    assert capsys.readouterr().err == (
        f"ragreport: error: {tmp_path / 'run.json'} and {tmp_path / 'empty.json'}: the judgments judge no id at all, "
        "so nothing can be scored\n"
    )
