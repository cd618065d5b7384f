"""The measures IR papers report (docs/conventions.md section 21.3): bpref, RBP and its residual,
ERR, infAP, gm_map and interpolated precision, by hand, against trec_eval's own outputs on its test
files and against pytrec_eval on generated runs."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from conftest import examples
from helpers import judged_run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trec_eval import _write_trec, ours, qrels_strategy, read_trec_eval, run_strategy

from ragreport.analysis.evaluation import score_and_summarise
from ragreport.cli import main
from ragreport.core.model import TREC_EVAL, Conventions, NoRelevant
from ragreport.scoring.measures import parse_measures, score_measures

DATA = Path(__file__).parent / "data" / "trec_eval_test"
ELEVEN = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]


def values(queries, names, conventions=Conventions()):
    judged = judged_run(queries)
    measures = parse_measures(names)
    return {m.label(): row.tolist() for m, row in zip(measures, score_measures(judged, measures, conventions))}


# --- by hand ------------------------------------------------------------------------------------


def test_rbp_and_its_residual_by_hand():
    # a relevant, b judged 0, c unjudged, d relevant; p = 0.5, weights (1 - p) p^(i-1) = 1/2, 1/4, 1/8, 1/16
    got = values([("q", ["a", "b", "c", "d"], {"a": 1, "b": 0, "d": 1, "z": 1})], ["RBP(p=0.5)", "RBP(p=0.5)@2"])
    assert got["RBP(p=0.5)"] == [pytest.approx(1 / 2 + 1 / 16)]
    assert got["RBP_resid(p=0.5)"] == [pytest.approx(1 / 8 + 1 / 16)]  # c, then every rank past d: p^4
    assert got["RBP(p=0.5)@2"] == [pytest.approx(1 / 2)]
    assert got["RBP_resid(p=0.5)@2"] == [0.0]  # a and b are judged: nothing within 2 could rise
    # a list shorter than the cutoff: the empty ranks could hold relevant ids
    short = values([("q", ["a"], {"a": 1})], ["RBP(p=0.5)@3"])
    assert short["RBP_resid(p=0.5)@3"] == [pytest.approx(1 / 4 + 1 / 8)]


def test_rbp_is_graded_without_rel_and_binary_with_it_as_ir_measures():
    """ir_measures' RBP: rel is "minimum relevance score to be considered relevant (inclusive), or
    NOT_PROVIDED to use graded relevance". p = 0.5: a (2), b (0), c (unjudged), d (1), e (-1)."""
    queries = [("q", ["a", "b", "c", "d", "e"], {"a": 2, "b": 0, "d": 1, "e": -1})]
    got = values(queries, ["RBP(p=0.5)", "RBP(p=0.5,rel=1)", "RBP(p=0.5,rel=2)"])
    assert got["RBP(p=0.5)"] == [pytest.approx(2 / 2 + 1 / 16)]  # the grade times the weight: 1.0625
    assert got["RBP(p=0.5,rel=1)"] == [pytest.approx(1 / 2 + 1 / 16)]  # 0.5625
    assert got["RBP(p=0.5,rel=2)"] == [pytest.approx(1 / 2)]
    # c and e could still hold an id of the top grade 2, and the ranks past e: p^5
    assert got["RBP_resid(p=0.5)"] == [pytest.approx(2 * (1 / 8 + 1 / 32 + 1 / 32))]
    assert got["RBP_resid(p=0.5,rel=1)"] == [pytest.approx(1 / 8 + 1 / 32 + 1 / 32)]
    # a at grade 2 is judged: at rel=2, d (grade 1) cannot rise either
    assert got["RBP_resid(p=0.5,rel=2)"] == got["RBP_resid(p=0.5,rel=1)"]
    # the names they go by: ragreport's is ir_measures', trec_eval's rbp is graded (at p = 0.9)
    graded, binary = parse_measures(["rbp", "RBP(p=0.9,rel=1)"])[::2]
    assert (graded.label(), graded.trec_eval_name(Conventions())) == ("RBP(p=0.9)", "rbp")
    assert (binary.spelled("ir_measures", Conventions()), binary.trec_eval_name(Conventions())) == (
        "RBP(p=0.9,rel=1)",
        None,
    )
    assert graded.spelled("ir_measures", Conventions()) == "RBP(p=0.9)"


def _rbp_queries(seed: int, n: int = 30):
    """Lists of 40 ids with distinct scores (the providers average tied ranks' weights, trectools,
    or order ties otherwise), judged -1 to 3, some judged ids not retrieved, some retrieved unjudged."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(n):
        docs = [f"d{d}" for d in rng.choice(300, size=40, replace=False)]
        run += [f"q{q} Q0 {d} {r + 1} {100 - r} x\n" for r, d in enumerate(docs)]
        judged = set(rng.choice(docs, size=20, replace=False)) | {f"e{q}"}
        qrels += [f"q{q} 0 {d} {int(rng.integers(-1, 4))}\n" for d in sorted(judged)]
    return "".join(run), "".join(qrels)


@pytest.mark.parametrize("p", [0.8, 0.5, 0.95])
def test_rbp_against_ir_measures_providers(tmp_path, p):
    """Graded RBP against ir_measures' trectools provider (the one that scores RBP without rel),
    binary RBP against its cwl_eval provider (the default pipeline's for RBP with rel), per query."""
    import ir_measures

    run, qrels = _rbp_queries(int(p * 100))
    (tmp_path / "run.trec").write_text(run)
    (tmp_path / "qrels.txt").write_text(qrels)
    graded, binary, strict = ir_measures.RBP(p=p), ir_measures.RBP(p=p, rel=1), ir_measures.RBP(p=p, rel=2)
    names = [str(m) for m in (graded, binary, strict)]
    at = Conventions(no_relevant=NoRelevant.ZERO)
    # one name a call: each brings its residual along, after it
    got = {name: ours(tmp_path / "run.trec", tmp_path / "qrels.txt", [name], at)[name] for name in names}
    for measure, provider in ((graded, ir_measures.trectools), (binary, ir_measures.cwl_eval), (strict, None)):
        evaluated = (provider or ir_measures).iter_calc(
            [measure],
            ir_measures.read_trec_qrels(str(tmp_path / "qrels.txt")),
            ir_measures.read_trec_run(str(tmp_path / "run.trec")),
        )
        theirs = {m.query_id: m.value for m in evaluated}
        assert len(got[str(measure)]) == 31  # every query, and the mean
        for q, value in got[str(measure)].items():
            if q != "all":  # trectools leaves out a query with nothing relevant retrieved: 0
                assert value == pytest.approx(theirs.get(q, 0.0), abs=1e-12), (str(measure), q)
    # the graded figure exceeds the binary one wherever an id graded above 1 is found
    assert got[names[0]]["all"] > 1.2 * got[names[1]]["all"] > 1.2 * got[names[2]]["all"]


def test_rbp_relevance_is_binary_at_its_level():
    got = values([("q", ["a", "b"], {"a": 1, "b": 2})], ["RBP(p=0.5,rel=2)", "RBP(p=0.5,rel=1)", "RBP(p=0.5)"])
    assert got["RBP(p=0.5,rel=2)"] == [pytest.approx(1 / 4)]
    assert got["RBP(p=0.5,rel=1)"] == [pytest.approx(1 / 2 + 1 / 4)]
    assert got["RBP(p=0.5)"] == [pytest.approx(1 / 2 + 2 / 4)]  # graded: b gains its grade, 2
    # a at grade 1 is not relevant at rel=2, but it is judged: it cannot rise either
    assert got["RBP_resid(p=0.5,rel=2)"] == [pytest.approx(1 / 4)]  # p^2: the ranks past the list


def test_err_by_hand_with_its_grade_scale():
    # grades 3, 0, 2 on a 0-3 scale: R = 7/8, 0, 3/8
    queries = [("q", ["a", "b", "c"], {"a": 3, "b": 0, "c": 2})]
    got = values(queries, ["ERR@1", "ERR@3", "ERR", "ERR(max_grade=4)@3"])
    assert got["ERR@1"] == [pytest.approx(7 / 8)]
    assert got["ERR@3"] == [pytest.approx(7 / 8 + (1 / 3) * (3 / 8) * (1 / 8))]
    assert got["ERR"] == got["ERR@3"]
    assert got["ERR(max_grade=4)@3"] == [pytest.approx(7 / 16 + (1 / 3) * (3 / 16) * (9 / 16))]


def test_err_reads_g_max_off_every_query_of_the_judgments():
    # q2's grade 4 sets the scale for q1 too: R_3 = 7/16 for q1's top id
    got = values([("q1", ["a"], {"a": 3}), ("q2", ["b"], {"b": 4})], ["ERR@1"])
    assert got["ERR@1"] == [pytest.approx(7 / 16), pytest.approx(15 / 16)]


def test_bpref_by_hand():
    # n1 judged 0, r1, u unjudged, r2, n2 judged 0; R = 3 (r3 not retrieved), N = 2
    got = values([("q", ["n1", "r1", "u", "r2", "n2"], {"n1": 0, "n2": 0, "r1": 1, "r2": 1, "r3": 1})], ["bpref"])
    assert got["Bpref"] == [pytest.approx((0.5 + 0.5) / 3)]  # 1 - 1/min(3, 2) for each


def test_infap_by_hand():
    # r1 at rank 1: 1; u (-1: pooled, unjudged) at 2; n (0) at 3; r2 at rank 4 (j = 3): h = 1, n = 1, u = 1
    got = values([("q", ["r1", "u", "n", "r2"], {"r1": 1, "u": -1, "n": 0, "r2": 1})], ["infAP"])
    e = 0.00001
    second = 1 / 4 + (3 / 4) * ((1 + 1 + 1) / 3) * ((1 + e) / (1 + 1 + 2 * e))
    assert got["infAP"] == [pytest.approx((1 + second) / 2)]


def test_iprec_by_hand():
    # R = 5; relevant at ranks 1, 3, 5 (precision 1, 2/3, 3/5)
    queries = [("q", ["a", "x", "c", "b", "d", "y"], {"a": 1, "b": 0, "c": 1, "d": 1, "f": 1, "g": 1})]
    got = values(queries, ELEVEN)
    levels = [got[f"IPrec@{level / 10}"][0] for level in range(11)]
    # round(L x 5) relevant ids: 0, 1 (0.5 rounds up), 1, 2 (1.5), 2, 3 (2.5), 3, 4 > 3 found: 0 ...
    assert levels == pytest.approx([1, 1, 1, 2 / 3, 2 / 3, 3 / 5, 3 / 5, 0, 0, 0, 0])


def test_gm_map_is_a_geometric_mean_floored_at_its_epsilon():
    queries = [
        ("q1", ["a", "x"], {"a": 1, "b": 1}),  # AP = 1/2
        ("q2", ["x", "y", "z", "a"], {"a": 1, "b": 1}),  # AP = (1/4) / 2 = 1/8
        ("q3", ["x"], {"a": 1}),  # AP = 0, floored at 0.00001
    ]
    judged = judged_run(queries)
    measures = parse_measures(["gm_map", "map"])
    summary = score_and_summarise(judged, 1, Conventions(), measures=measures)
    assert summary.measure_at["GMAP"].mean == pytest.approx((0.5 * 0.125 * 0.00001) ** (1 / 3))
    assert summary.measure_at["AP"].mean == pytest.approx((0.5 + 0.125) / 3)
    band = summary.measure_at["GMAP"]
    assert band.low <= band.mean <= band.high
    # per query it is shown as AP
    assert summary.measure_values[0].tolist() == pytest.approx([0.5, 0.125, 0.0])


def test_the_residual_and_gm_map_are_left_out_of_a_comparison_family():
    from ragreport.analysis.compare import choose_family

    family = choose_family(["nDCG@10", "RBP", "gm_map", "bpref"], 10)
    assert [m.label() for m in family.measures] == ["nDCG@10", "RBP", "Bpref"]
    assert [m.label() for m in family.left_out] == ["RBP_resid", "GMAP"]


# --- trec_eval's own outputs --------------------------------------------------------------------


def _check(expected, got, names, skip=()):
    checked = 0
    for name in names:
        for qid, value in expected[name].items():
            if (name, qid) in skip:
                continue
            assert got[name][qid] == pytest.approx(value, abs=5.1e-5), (name, qid)
            checked += 1
    return checked


def test_trec_eval_test_files_binary():
    expected = read_trec_eval(DATA / "out.test.aq")
    names = ["bpref", "infAP", *ELEVEN, "rbp"]  # rbp last: it brings its residual along, after it
    got = ours(DATA / "results.test", DATA / "qrels.test", names)
    assert _check(expected, got, names) == len(names) * 4
    resid = ours(DATA / "results.test", DATA / "qrels.test", ["rbp_resid"])
    assert _check(expected, resid, ["rbp_resid"]) == 4


@pytest.mark.parametrize("how", ["switch", "per measure"])
def test_trec_eval_test_files_graded_at_level_2(how):
    """qrels.rel_level: grades -1 to 4, trec_eval -l2; as --relevance-level 2 or as rel=2 per measure."""
    expected = read_trec_eval(DATA / "out.test.aql")
    twins = ["bpref", "infAP", *ELEVEN, "map"]
    if how == "switch":
        got = ours(DATA / "results.test", DATA / "qrels.rel_level", twins, replace(TREC_EVAL, relevance_level=2))
    else:
        names = ["Bpref(rel=2)", "infAP(rel=2)", *[f"IPrec(rel=2)@{level / 10}" for level in range(11)], "AP(rel=2)"]
        raw = ours(DATA / "results.test", DATA / "qrels.rel_level", names)
        got = {twin: raw[name] for twin, name in zip(twins, names)}
    assert _check(expected, got, twins) == len(twins) * 4


def test_gm_map_and_the_rest_through_the_trec_layout(capsys):
    """The product's own means, in trec_eval's layout, line for line as trec_eval printed them."""
    names = "map,gm_map,bpref,iprec_at_recall_0.50,infAP,rbp"
    args = ["score", str(DATA / "results.test"), "--qrels", str(DATA / "qrels.test"), "--compat", "trec_eval"]
    assert main([*args, "--format", "trec", "--metrics", names]) == 0
    out = capsys.readouterr().out
    wanted = ("map", "gm_map", "bpref", "iprec_at_recall_0.50", "infAP", "rbp", "rbp_resid")
    lines = [line for line in (DATA / "out.test.aq").read_text().splitlines() if line.split("\t")[1] == "all"]
    expected = [next(line for line in lines if line.split()[0] == name) for name in wanted]
    assert out.splitlines() == expected


# --- pytrec_eval on generated runs ----------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


@pytest.mark.slow
@settings(max_examples=examples(1000), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy, level=st.integers(1, 3))
def test_matches_pytrec_eval_on_generated_runs(scratch, run, qrels, level):
    if not set(run) & set(qrels):
        return
    run_path, qrels_path = _write_trec(scratch, run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"bpref", "infAP", "gm_map", "iprec_at_recall"}, relevance_level=level
    ).evaluate(run)
    names = ["bpref", "infAP", "gm_map", *ELEVEN]
    got = ours(run_path, qrels_path, names, replace(TREC_EVAL, relevance_level=level))
    for name in names:
        for qid, measures in expected.items():
            if name.startswith("iprec") and not _same_rule(float(name[-4:]), qrels[qid], level):
                continue  # pytrec_eval is trec_eval 9: its own rounding (the v10 files check ours)
            want = math.exp(measures[name]) if name == "gm_map" else measures[name]
            if name == "gm_map" and want <= 0.00001 + 1e-12:
                assert got[name][qid] <= 0.00001 + 1e-9, (name, qid)  # floored
                continue
            assert got[name][qid] == pytest.approx(want, abs=1e-9), (name, qid, level)


def _same_rule(level: float, grades: dict[str, int], relevance_level: int) -> bool:
    """Whether trec_eval 9's ``(long) (L x R + 0.9)`` and version 10's ``lround(L x R)`` read the
    same number of relevant ids at recall level L."""
    r = sum(g >= relevance_level for g in grades.values())
    return int(level * r + 0.9) == math.floor(level * r + 0.5)


def _naive_rbp(ranked, grades, p, level):
    rbp = sum((1 - p) * p**i for i, d in enumerate(ranked) if grades.get(d, 0) >= level)
    unjudged = sum((1 - p) * p**i for i, d in enumerate(ranked) if d not in grades or grades[d] < 0)
    return rbp, unjudged + p ** len(ranked)


@settings(max_examples=examples(300), deadline=None)
@given(
    lists=st.lists(
        st.tuples(
            st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=8, unique=True),
            st.dictionaries(st.sampled_from("abcdefghij"), st.integers(-1, 3), min_size=1, max_size=6),
        ),
        min_size=1,
        max_size=4,
    ),
    p=st.sampled_from([0.5, 0.8, 0.9, 0.95]),
    level=st.integers(1, 3),
)
def test_rbp_and_residual_match_the_formula_of_moffat_and_zobel(lists, p, level):
    queries = [(f"q{i}", ranked, grades) for i, (ranked, grades) in enumerate(lists)]
    got = values(queries, [f"RBP(p={p},rel={level})"])
    label = f"RBP(p={p},rel={level})" if p != 0.8 else f"RBP(rel={level})"
    resid = label.replace("RBP", "RBP_resid", 1)
    for i, (ranked, grades) in enumerate(lists):
        rbp, residual = _naive_rbp(ranked, grades, p, level)
        assert got[label][i] == pytest.approx(rbp, abs=1e-12)
        assert got[resid][i] == pytest.approx(residual, abs=1e-12)
        assert got[label][i] + got[resid][i] <= 1 + 1e-12


def test_default_scoring_is_untouched_by_the_new_entries():
    """The measures IR papers report are by name only: none of them joined the suite."""
    from ragreport.scoring.catalogue import SUITE

    by_name = {
        "ERR",
        "RBP",
        "RBP_resid",
        "Bpref",
        "infAP",
        "GMAP",
        "IPrec",
        "Rprec",
        "NumQ",
        "NumRet",
        "NumRel",
        "NumRelRet",
    }
    assert not by_name & {m.key for m in SUITE}
    assert not np.isnan(values([("q", ["a"], {"a": 1})], ["ERR@5"])["ERR@5"][0])


def test_err_reads_the_whole_judgments_g_max_in_every_partition(tmp_path):
    """A partition engine hands each partition only its own judgments: g_max still comes from all."""
    from ragreport.analysis.evaluation import evaluate_runs

    run, qrels = tmp_path / "run.trec", tmp_path / "qrels.txt"
    lines, judged = [], []
    for q in range(60):
        for rank, doc in enumerate(("a", "b", "c")):
            lines.append(f"q{q:02d} Q0 {doc} {rank + 1} {3 - rank} r\n")
        judged.append(f"q{q:02d} 0 a {3 if q == 59 else 1}\n")  # only the last query holds grade 3
    run.write_text("".join(lines))
    qrels.write_text("".join(judged))
    measures = parse_measures(["ERR@3", "RBP(p=0.5)@3"])
    memory = evaluate_runs([run], qrels=qrels, measures=measures)[0]
    stream = evaluate_runs([run], qrels=qrels, measures=measures, engine="stream", partition_bytes=400)[0]
    assert memory.measure_values[0][0] == pytest.approx(1 / 8)  # (2^1 - 1) / 2^3 at rank 1
    order = np.argsort(stream.judged.query_ids)
    assert np.allclose(stream.measure_values[:, order], memory.measure_values[:, np.argsort(memory.judged.query_ids)])
