"""Measures with parameters (docs/conventions.md section 21): the three grammars, writing back,
and a measure's own relevance level against trec_eval's (pytrec_eval's relevance_level)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trec_eval import _write_trec, ours, qrels_strategy, run_strategy

from ragreport.core.errors import UsageError
from ragreport.core.model import TREC_EVAL, Conventions, Gain
from ragreport.scoring.catalogue import CATALOGUE
from ragreport.scoring.measures import Measure, parse_measure, parse_measures

DATA = Path(__file__).parent / "data" / "trec_eval_test"

# --- the grammars ------------------------------------------------------------------------------

IR_MEASURES = [
    "RR(rel=2)@10",
    "RR(rel=2)",
    "nDCG@10",
    "P(rel=2)@5",
    "AP(rel=2)",
    "AP(rel=3)@100",
    "R(rel=2)@1000",
    "Success@5",
    "Success(rel=2)@10",
    "Rprec(rel=2)",
    "nDCG(dcg='exp-log2')@10",
    "Judged@10",
    "NumRel",
    "Bpref",
    "Bpref(rel=2)",
    "infAP(rel=2)",
    "RBP(p=0.9,rel=2)@10",
    "RBP(rel=1)",
    "RBP(p=0.5,rel=3)",
    "ERR@10",
    "IPrec@0.5",
    "IPrec(rel=2)@0.3",
    "nDCG(judged_only=True)@10",
    "P(rel=2,judged_only=True)@5",
    "RR(judged_only=True)",
]


@pytest.mark.parametrize("text", IR_MEASURES)
def test_ir_measures_names_mean_what_ir_measures_parses_them_to(text):
    """ragreport's parse, written back in ir_measures' grammar, is the measure ir_measures reads."""
    theirs = ir_measures.parse_measure(text)
    ours_ = parse_measure(text)
    written = ours_.spelled("ir_measures", Conventions())
    assert written is not None
    again = ir_measures.parse_measure(written)
    assert (again.NAME, again.params) == (theirs.NAME, theirs.params), (text, written)  # in any order
    params = theirs.params
    assert ours_.cutoff == params.get("cutoff")
    if "rel" in params:
        assert ours_.rel == params["rel"]


@pytest.mark.parametrize(
    "names, expected",
    [
        (["RR(rel=2)@10", "mrr@10-l2", "RR( rel = 2 )@10"], Measure("RR", 10, params=(("rel", 2),))),
        (["AP(rel=2)", "map-l2"], Measure("AP", None, params=(("rel", 2),))),
        (["AP(rel=2)@100", "map@100-l2"], Measure("AP", 100, params=(("rel", 2),))),
        (["P(rel=2)@5", "precision@5-l2"], Measure("P", 5, params=(("rel", 2),))),
        (["nDCG(dcg='exp-log2')@10", "nDCG(gain=exp)@10", "ndcg_burges@10"], Measure("nDCG", 10, Gain.EXP)),
        (["nDCG(dcg=log2)@10"], Measure("nDCG", 10, Gain.LINEAR)),
        (["Success@5", "success_5", "hit_rate@5", "Hit@5"], Measure("Hit", 5)),
    ],
)
def test_every_grammar_reads_the_same_measure(names, expected):
    for name in names:
        assert parse_measure(name) == expected, name


def test_lists_keep_parameters_whole():
    assert parse_measures(["RR(rel=2)@10,P.5,10,AP(rel=2)"]) == (
        Measure("RR", 10, params=(("rel", 2),)),
        Measure("P", 5),
        Measure("P", 10),
        Measure("AP", None, params=(("rel", 2),)),
    )


@pytest.mark.parametrize(
    "name, message",
    [
        (
            "RR(depth=2)@10",
            "measure 'RR(depth=2)@10': RR takes no parameter 'depth'; it takes rel (a whole number of at least 1)",
        ),
        ("RR(rel=0)@10", "measure 'RR(rel=0)@10': rel: expected a whole number of at least 1, got '0'"),
        ("RR(rel=two)", "rel: expected a whole number of at least 1, got 'two'"),
        ("RR(rel=2,rel=3)", "rel is given twice"),
        ("nDCG(rel=2)@10", "nDCG takes no parameter 'rel'"),
        ("NumQ-l2", "measure 'NumQ-l2': NumQ takes no relevance level"),
        ("Judged(rel=2)@5", "Judged takes no parameter 'rel'; it takes none"),
    ],
)
def test_a_bad_parameter_is_one_line_naming_it_and_what_is_allowed(name, message):
    with pytest.raises(UsageError) as caught:
        parse_measures([name])
    assert message in str(caught.value) and "\n" not in str(caught.value)


# --- labels and writing back --------------------------------------------------------------------


def test_labels_carry_the_parameters_set():
    assert [m.label() for m in parse_measures(["RR(rel=2)@10", "AP(rel=2)", "nDCG@10", "map@100-l2"])] == [
        "RR(rel=2)@10",
        "AP(rel=2)",
        "nDCG@10",
        "AP(rel=2)@100",
    ]


def test_writing_back_in_every_tool():
    c = Conventions()
    rr = parse_measure("RR(rel=2)@10")
    assert [rr.spelled(t, c) for t in ("ragreport", "trec_eval", "ir_measures", "ranx")] == [
        "RR(rel=2)@10",
        None,  # trec_eval has one relevance level per run (-l), and no cutoff on recip_rank
        "RR(rel=2)@10",
        "mrr@10-l2",
    ]
    ap = parse_measure("AP(rel=2)")
    assert ap.spelled("trec_eval", c) is None and ap.spelled("trec_eval", replace(c, relevance_level=2)) == "map"
    ndcg = parse_measure("ndcg_cut_10")
    assert [ndcg.spelled(t, replace(c, gain=Gain.EXP)) for t in ("trec_eval", "ir_measures", "ranx")] == [
        None,
        "nDCG(dcg='exp-log2')@10",
        "ndcg_burges@10",
    ]
    # the run's level made explicit where the tool's default (1) differs
    assert parse_measure("P@5").spelled("ir_measures", replace(c, relevance_level=2)) == "P(rel=2)@5"
    assert parse_measure("P@5").spelled("ranx", replace(c, relevance_level=2)) == "precision@5-l2"


@pytest.mark.parametrize("tool", ["trec_eval", "ir_measures", "ranx"])
def test_every_name_written_back_reads_as_the_same_measure(tool):
    c = Conventions()
    for metric in CATALOGUE:
        for text in [f"{metric.key}@5", metric.key, f"{metric.key}(rel=2)@5", f"{metric.key}(rel=2)"]:
            try:
                measure = parse_measure(text)
            except UsageError:
                continue
            written = measure.spelled(tool, c)
            if written is None:
                continue
            again = parse_measure(written)
            if measure.rel is not None or again.rel is not None:
                assert again.level(c) == measure.level(c), (text, written)
                again = replace(again, params=measure.params)
            assert again == measure, (text, tool, written)


# --- a measure's own relevance level, against trec_eval -l (pytrec_eval's relevance_level) ----------


def _pytrec(qrels_path, run_path, names, level):
    qrels = pytrec_eval.parse_qrel(open(qrels_path))
    run = pytrec_eval.parse_run(open(run_path))
    return pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=level).evaluate(run)


@pytest.mark.parametrize("level", [2, 3])
def test_rel_per_measure_matches_trec_eval_at_that_level_on_its_own_test_files(level):
    """qrels.rel_level holds grades -1 to 4; the run's level stays 1, the measures set their own."""
    qrels, run = DATA / "qrels.rel_level", DATA / "results.test"
    expected = _pytrec(qrels, run, {"recip_rank", "map", "P.5,10", "recall.100", "success.10"}, level)
    names = [f"RR(rel={level})", f"AP(rel={level})", f"P(rel={level})@5", f"map@10-l{level}", f"R(rel={level})@100"]
    got = ours(run, qrels, names)
    twins = ["recip_rank", "map", "P_5", None, "recall_100"]
    checked = 0
    for name, twin in zip(names, twins):
        if twin is None:
            continue
        for qid, measures in expected.items():
            assert got[name][qid] == pytest.approx(measures[twin], abs=1e-9), (name, qid)
            checked += 1
    assert checked >= 12


def test_rel_per_measure_beside_a_suite_at_another_level(tmp_path):
    """nDCG on every grade beside RR at grade 2, as TREC DL papers report them."""
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    qrels = {"q1": {"a": 1, "b": 2, "c": 1}}
    run_path, qrels_path = _write_trec(tmp_path, run, qrels)
    got = ours(run_path, qrels_path, ["RR(rel=2)", "RR", "AP(rel=2)", "AP"])
    assert got["RR(rel=2)"]["q1"] == 0.5  # b, the only grade-2 id, at rank 2
    assert got["RR"]["q1"] == 1.0
    assert got["AP(rel=2)"]["q1"] == 0.5  # (1/2) / 1
    assert got["AP"]["q1"] == pytest.approx(1.0)


@pytest.mark.slow
@settings(max_examples=examples(500), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy, level=st.integers(2, 4))
def test_rel_per_measure_matches_pytrec_eval_on_generated_runs(scratch, run, qrels, level):
    if not set(run) & set(qrels):
        return
    run_path, qrels_path = _write_trec(scratch, run, qrels)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"recip_rank", "map", "P.3", "Rprec"}, relevance_level=level
    ).evaluate(run)
    names = [f"RR(rel={level})", f"AP(rel={level})", f"P(rel={level})@3", f"Rprec(rel={level})"]
    got = ours(run_path, qrels_path, names, replace(TREC_EVAL, relevance_level=1))
    for name, twin in zip(names, ["recip_rank", "map", "P_3", "Rprec"]):
        for qid, measures in expected.items():
            assert got[name][qid] == pytest.approx(measures[twin], abs=1e-9), (name, qid, level)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("generated")


# --- named sets --------------------------------------------------------------------------------


def test_named_sets_stand_for_their_benchmarks_measures():
    from ragreport.scoring.measures import MEASURE_SETS

    assert [m.label() for m in parse_measures(["trec-dl"])] == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    assert [m.label() for m in parse_measures(["beir,P@5"])] == ["nDCG@10", "R@100", "P@5"]
    assert [m.label() for m in parse_measures(["msmarco-dev"])] == ["RR@10", "R@1000"]
    assert [m.label() for m in parse_measures(["LoTTE"])] == ["Hit@5"]
    for name, (measures, source) in MEASURE_SETS.items():
        assert parse_measures([measures]) and source, name
        assert f"`{name}`" in Path(__file__).parent.parent.joinpath("docs", "compare.md").read_text(), name


def test_trec_dl_measures_are_the_ones_ir_datasets_documents():
    """ir_datasets' own documentation of TREC DL 2019 and 2020 names the same measures."""
    import ir_datasets

    docs = Path(ir_datasets.__file__).parent / "docs" / "msmarco-passage.yaml"
    import yaml

    table = yaml.safe_load(docs.read_text())
    for dataset in ("trec-dl-2019", "trec-dl-2020"):
        official = parse_measures([",".join(table[dataset]["official_measures"])])
        assert set(official) == set(parse_measures(["trec-dl"])), dataset
    assert parse_measures(table["dev/small"]["official_measures"]) == parse_measures(["msmarco-dev"])[:1]


def test_a_named_set_is_the_comparison_family():
    from ragreport.analysis.compare import choose_family

    family = choose_family(["trec-dl"], 10)
    assert [m.label() for m in family.measures] == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    assert family.lead.key == "nDCG"


# --- judged_only: the condensed list, against trec_eval -J (pytrec_eval's judged_docs_only_flag) --------

CONDENSED = {
    "P(judged_only=True)@5": "P_5",
    "P(judged_only=True)@10": "P_10",
    "R(judged_only=True)@10": "recall_10",
    "nDCG(judged_only=True)@10": "ndcg_cut_10",
    "AP(judged_only=True)": "map",
    "RR(judged_only=True)": "recip_rank",
    "nDCG(judged_only=True)": "ndcg",
    "Rprec(judged_only=True)": "Rprec",
    "Success(judged_only=True)@5": "success_5",
    "IPrec(judged_only=True)@0.2": "iprec_at_recall_0.20",
}
PYTREC_CONDENSED = {
    "P.5,10",
    "recall.10",
    "ndcg_cut.10",
    "map",
    "recip_rank",
    "ndcg",
    "Rprec",
    "success.5",
    "iprec_at_recall",
}


def _condensed_expected(qrels, run, level=1):
    return pytrec_eval.RelevanceEvaluator(
        qrels, PYTREC_CONDENSED, relevance_level=level, judged_docs_only_flag=True
    ).evaluate(run)


@pytest.mark.parametrize("qrels_name, level", [("qrels.test", 1), ("qrels.rel_level", 2)])
def test_judged_only_matches_trec_eval_J_on_its_test_files(qrels_name, level):
    qrels_path, run_path = DATA / qrels_name, DATA / "results.test"
    expected = _condensed_expected(
        pytrec_eval.parse_qrel(open(qrels_path)), pytrec_eval.parse_run(open(run_path)), level
    )
    names = list(CONDENSED)
    got = ours(run_path, qrels_path, names, replace(TREC_EVAL, relevance_level=level))
    plain = ours(run_path, qrels_path, [twin_name(n) for n in names], replace(TREC_EVAL, relevance_level=level))
    moved = 0
    for name, twin in CONDENSED.items():
        for qid, measures in expected.items():
            assert got[name][qid] == pytest.approx(measures[twin], abs=1e-9), (name, qid)
            moved += got[name][qid] != plain[twin_name(name)][qid]
    assert moved > 0  # the test files' runs hold unjudged ids: condensing changes figures


def twin_name(name: str) -> str:
    return name.replace("(judged_only=True)", "")


def test_judged_only_by_hand():
    from helpers import judged_run

    from ragreport.scoring.measures import score_measures

    # x and y are unjudged: the condensed list is a (relevant), b (judged 0), c (relevant)
    judged = judged_run([("q", ["x", "a", "y", "b", "c"], {"a": 1, "b": 0, "c": 1})])
    measures = parse_measures(["P(judged_only=True)@2,P@2,RR(judged_only=True),RR,AP(judged_only=True)"])
    values = score_measures(judged, measures, Conventions())[:, 0].tolist()
    assert values == pytest.approx([1 / 2, 1 / 2, 1.0, 1 / 2, (1 + 2 / 3) / 2])


@pytest.mark.slow
@settings(max_examples=examples(500), deadline=None)
@given(run=run_strategy, qrels=qrels_strategy, level=st.integers(1, 3))
def test_judged_only_matches_pytrec_eval_on_generated_runs(scratch, run, qrels, level):
    if not set(run) & set(qrels):
        return
    run_path, qrels_path = _write_trec(scratch, run, qrels)
    expected = _condensed_expected(qrels, run, level)
    got = ours(run_path, qrels_path, list(CONDENSED), replace(TREC_EVAL, relevance_level=level))
    for name, twin in CONDENSED.items():
        for qid, measures in expected.items():
            if twin.startswith("iprec"):
                continue  # trec_eval 9's rounding of recall levels (test_paper_measures compares where they agree)
            assert got[name][qid] == pytest.approx(measures[twin], abs=1e-9), (name, qid, level)


def test_report_json_says_each_named_measures_convention_and_names(capsys):
    import json

    from ragreport.cli import main

    data = Path(__file__).parent / "data"
    args = ["score", str(data / "ir_datasets_run.trec"), "--qrels", str(data / "qrels.trec"), "--format", "json"]
    assert main([*args, "--metrics", "RR(rel=2)@10,ERR@5,RBP,nDCG(judged_only=True)@5"]) == 0
    measures = json.loads(capsys.readouterr().out)["runs"][0]["measures"]
    assert list(measures) == ["RR(rel=2)@10", "ERR@5", "RBP", "RBP_resid", "nDCG(judged_only=True)@5"]
    rr = measures["RR(rel=2)@10"]
    assert "Relevant here means graded 2 or more (rel=2)" in rr["convention"]
    assert (rr["trec_eval"], rr["ir_measures"], rr["ranx"]) == (None, "RR(rel=2)@10", "mrr@10-l2")
    assert "g_max = 2" in measures["ERR@5"]["convention"]  # qrels.trec's highest grade
    assert "within the top" not in measures["RBP"]["convention"]  # the whole list
    assert measures["RBP"]["ir_measures"] == "RBP"  # graded without rel, in ragreport as in ir_measures
    assert "graded, as ir_measures' RBP without rel" in measures["RBP"]["convention"]
    assert measures["RBP_resid"]["ir_measures"] is None  # ir_measures has no residual
    assert "condensed list" in measures["nDCG(judged_only=True)@5"]["convention"]
