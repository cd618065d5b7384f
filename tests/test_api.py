"""The library's entry points (ragreport/api.py): what evaluate() and analyse() return, as a notebook
shows it (the site's own suite matrix) and as rows. The docstrings' examples run in
tests/test_doctests.py."""

from __future__ import annotations

import datetime as dt
import re

import pytest

import ragreport
from ragreport.analysis.pipeline import Analysis
from ragreport.analysis.summary import RunSummary
from ragreport.api import Report, Results, analyse, build, document, evaluate
from ragreport.core.model import Conventions
from ragreport.scoring.catalogue import COMPARED, SUITE

DAY = dt.date(2026, 1, 1)
# Twelve queries: "good" finds each query's relevant id first, "poor" never finds it, "same" is "good"
# under another name with a tie broken the other way on one query: clear verdicts and a non-verdict.
# "noise" is judged (not relevant) on q00 alone: poor's ids meet the judgments somewhere, or it
# would be refused as ids that never meet (docs/conventions.md section 20.1).
QRELS = {f"q{i:02d}": {f"rel{i}": 1, **({"noise": 0} if i == 0 else {})} for i in range(12)}
GOOD = {q: {next(iter(g)): 2.0, "other": 1.0} for q, g in QRELS.items()}
POOR = {q: {"other": 2.0, "noise": 1.0} for q in QRELS}


@pytest.fixture(scope="module")
def results():
    return evaluate({"good": GOOD, "poor <b>&": POOR}, qrels=QRELS, k=2)


def test_evaluate_returns_a_list_of_summaries_and_analyse_an_analysis(results, tmp_path):
    assert isinstance(results, Results) and isinstance(results, list)
    assert all(isinstance(s, RunSummary) for s in results) and [s.name for s in results] == ["good", "poor <b>&"]
    report = analyse(results, today=DAY)
    assert isinstance(report, Report) and isinstance(report, Analysis)
    assert document(report)["runs"][1]["name"] == "poor <b>&"  # the report document and the site as before
    assert [p.name for p in build(report, out=tmp_path / "site")] == ["site"]
    assert evaluate(k=5)[0].counts.queries == 10  # no runs: the preloaded sample, as before


def _suite_body(html: str) -> str:
    """The suite matrix's rows, links to run pages left out, white space collapsed."""
    table = re.search(r'<table class="suite-matrix">.*?<tbody>(.*?)</tbody>', html, flags=re.S)
    assert table is not None
    body = re.sub(r'<a href="[^"]*">|</a>', "", table.group(1))
    return re.sub(r"\s+", " ", body).strip()


def test_a_notebook_shows_the_sites_suite_matrix_escaped(results, tmp_path):
    report = analyse(results, today=DAY)
    html = report._repr_html_()
    build(report, out=tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert _suite_body(html) == _suite_body(index)  # the same figures, bands, bold, marks and bars
    body = _suite_body(html)
    assert "poor &lt;b&gt;&amp;" in body and "<b>" not in body
    # By hand: good finds every relevant id at rank 1, poor none; the paired test finds poor clearly worse.
    good = next(row for row in body.split("<tr>") if 'class="name">good</th>' in row)
    means = dict(zip((m.key for m in SUITE), re.findall(r'<span class="mean">([0-9.]+)</span>', good), strict=True))
    assert {key: means[key] for key in ("P", "R", "Hit", "RR", "AP", "nDCG", "CP", "Judged")} == {
        "P": "0.500",
        "R": "1.000",
        "Hit": "1.000",
        "RR": "1.000",
        "AP": "1.000",
        "nDCG": "1.000",
        "CP": "1.000",
        "Judged": "0.500",  # the relevant id and "other", which nobody judged
    }
    # every compared metric clearly worse for poor
    assert body.count('aria-hidden="true">▼</span>') == len(COMPARED) and "▲" not in body
    assert "Bold: the highest mean of its column." in html and "<style>" in html


def test_results_show_what_their_analysis_with_defaults_shows(results):
    assert results._repr_html_() == analyse(results)._repr_html_()


def test_one_run_shows_its_figures_without_bars_or_marks():
    html = evaluate({"only": GOOD}, qrels=QRELS, k=2)._repr_html_()
    assert "only" in html and "<svg" not in html and "▲" not in html and "▼" not in html
    assert 'class="table-key"' not in html


def test_rows_are_the_same_from_results_and_from_the_report(results):
    report = analyse(results, today=DAY)
    assert results.to_records() == report.to_records()
    assert results.to_records(per_query=True) == report.to_records(per_query=True)
    assert len(results.to_records()) == 2 * len(SUITE)  # a row per run and suite metric
    assert len(results.to_records(per_query=True)) == 2 * 12 * len(SUITE)  # and per query
    poor = {r["metric"]: r["mean"] for r in results.to_records() if r["run"] == "poor <b>&"}
    assert poor["P@2"] == 0.0 and poor["Judged@2"] == 1 / 24  # "noise" on q00: 1 of 2 slots, 1 query of 12


def test_to_dataframe_without_pandas_says_so(results, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install pandas"):
        results.to_dataframe(per_query=True)


def test_the_package_exports_the_result_types_lazily():
    assert ragreport.Results is Results and ragreport.Report is Report


def test_every_public_result_has_a_one_line_repr(tmp_path):
    # 4 runs of 500 queries: the repr says what the object holds in a line, not every array.
    qrels = {f"q{i:03d}": {f"d{i}": 1} for i in range(500)}
    runs = {f"run{r}": {q: {f"d{i}": 1.0, "x": 2.0 - r / 2} for i, q in enumerate(qrels)} for r in range(4)}
    results = evaluate(runs, qrels=qrels, k=10, conventions=Conventions(resamples=100))
    assert repr(results) == "Results(runs=4, queries=500, k=10)"
    assert repr(results[0]) == "RunSummary(name='run0', queries=500, scored=500, k=10)"
    report = analyse(results, today=DAY, permutations=100)
    assert repr(report) == "Report(runs=4, queries=500, k=10, primary='nDCG@10', baseline='run0')"
    from ragreport.api import open_history

    history = open_history(tmp_path / "eval", label="v1")
    assert repr(history) == f"History(folder={str(tmp_path / 'eval')!r}, reports=0, label='v1', previous=None)"
    # the notebook's view is still the table
    assert '<table class="suite-matrix">' in report._repr_html_()


def test_the_package_lists_its_exports_for_completion():
    listed = dir(ragreport)
    assert {"evaluate", "analyse", "build", "calc", "document", "Conventions", "parse_measures"} <= set(listed)
    assert not {"importlib", "annotations", "Any"} & set(listed)
    assert all(getattr(ragreport, name) is not None for name in ragreport.__all__)


def test_measures_are_named_as_strings_everywhere(results):
    # evaluate() and analyse() take a metric's name in any grammar, a list of them, or parsed objects
    from ragreport.scoring.catalogue import by_key
    from ragreport.scoring.measures import parse_measures

    named = evaluate({"good": GOOD}, qrels=QRELS, k=2, measures=["nDCG@20", "recip_rank"])[0]
    assert [m.label() for m in named.measures] == ["nDCG@20", "RR"]
    one = evaluate({"good": GOOD}, qrels=QRELS, k=2, measures="P@5,R@100")[0]
    assert [m.label() for m in one.measures] == ["P@5", "R@100"]
    parsed = evaluate({"good": GOOD}, qrels=QRELS, k=2, measures=parse_measures(["nDCG@20"]))[0]
    assert parsed.measure_at["nDCG@20"] == named.measure_at["nDCG@20"]
    entry = evaluate({"good": GOOD}, qrels=QRELS, k=2, measures=[by_key("AP")])[0]
    assert [m.label() for m in entry.measures] == ["AP"]
    assert analyse(results, family="nDCG@2").comparison.labels == ("nDCG@2",)
    with pytest.raises(ragreport.core.errors.UsageError, match="nDCG@zz"):
        evaluate({"good": GOOD}, qrels=QRELS, k=2, measures=["nDCG@zz"])


def test_calc_gives_means_and_per_query_values_as_pytrec_eval_does():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"d": 1}, "q3": {"e": 0}}
    run = {"q1": {"b": 3.0, "a": 2.0, "x": 1.0, "c": 0.5}, "q2": {"y": 2.0, "d": 1.0}, "q3": {"e": 1.0}}
    means, per_query = ragreport.calc(qrels, run, ["ndcg_cut_3", "map", "P_2", "recip_rank", "num_rel_ret"])
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg_cut.3", "map", "P.2", "recip_rank", "num_rel_ret"}
    ).evaluate(run)
    names = {"nDCG@3": "ndcg_cut_3", "AP": "map", "P@2": "P_2", "RR": "recip_rank"}
    # trec_eval averages over the queries with a relevant id (q3 has none) and sums the count
    for label, name in names.items():
        assert set(per_query[label]) == {"q1", "q2"}
        for q in ("q1", "q2"):
            assert per_query[label][q] == pytest.approx(reference[q][name], abs=1e-12)
        assert means[label] == pytest.approx((reference["q1"][name] + reference["q2"][name]) / 2, abs=1e-12)
    assert means["NumRelRet"] == reference["q1"]["num_rel_ret"] + reference["q2"]["num_rel_ret"] == 3


def test_the_command_line_calls_the_python_entry_points():
    # one way in: the commands run evaluate(), analyse(), reanalyse() and build() of ragreport.api
    import ast
    from pathlib import Path

    source = (Path(ragreport.__file__).parent / "cli" / "commands.py").read_text()
    imported = {
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert not {"analysis.evaluation.evaluate_runs", "analysis.pipeline.analyse_runs"} & imported
    assert "api.evaluate(" in source and "api.analyse(" in source and "api.reanalyse(" in source
