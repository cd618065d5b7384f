"""The comparison family (--metrics, analyse(family=...)): what is compared, tested and corrected together.

The hand-worked case (docs/conventions.md section 15): six queries, one relevant id each (grade 1),
K = 2. The baseline puts it at rank 2 on every query, the run at rank 1. Per query the run gains
nDCG@2 1 - 1/log2(3), RR@2, AP@2 and CP@2 0.5, and P@2, R@2 and Hit@2 do not move. Six equal
positive differences: of the 2^6 sign vectors only the two all-same-sign ones reach the observed
|mean|, so p = 2/64 = 0.03125; a column of zeros has p = 1.

- Family P@2, R@2, Hit@2, RR@2, AP@2, nDCG@2, CP@2 (section 2's seven compared metrics, named): Holm
  sorts p = 0.03125 (four times) and 1 (three times); 0.03125 x 7, 6, 5, 4 = 0.21875, 0.1875,
  0.15625, 0.125, running maximum 0.21875.
- Family nDCG@2, R@2: Holm of (0.03125, 1) is (0.03125 x 2, 1) = (0.0625, 1): p x m with m = 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import judged_run

from ragreport.analysis.compare import Correction, choose_family, compare
from ragreport.api import analyse, document, score_and_summarise
from ragreport.cli import main
from ragreport.cli.parser import flag
from ragreport.core.errors import ArgumentError, UsageError
from ragreport.core.model import Conventions
from ragreport.scoring.catalogue import COMPARED, NDCG, RECALL, SUITE, Measure
from ragreport.scoring.measures import parse_measures

N = 6
#: The worked examples' family, named so that their corrected p-values stay hand-worked whatever the
#: catalogue compares by default.
SEVEN = ["P@2", "R@2", "Hit@2", "RR@2", "AP@2", "nDCG@2", "CP@2"]
BASE = [(f"q{i}", [f"x{i}", f"r{i}"], {f"r{i}": 1}) for i in range(N)]
BETTER = [(f"q{i}", [f"r{i}", f"x{i}"], {f"r{i}": 1}) for i in range(N)]
P = 2 / 2**N  # 0.03125


def _summaries(measures=()):
    measures = parse_measures(measures) if measures else ()
    return [
        score_and_summarise(judged_run(BASE, name="base"), 2, Conventions(), measures=measures),
        score_and_summarise(judged_run(BETTER, name="better"), 2, Conventions(), measures=measures),
    ]


def test_the_default_family_is_every_compared_metric_at_k():
    report = compare(_summaries())
    assert [c.metric for c in report.comparisons] == [m.label(2) for m in COMPARED] and not report.named
    named = compare(_summaries(), family=choose_family([m.label(2) for m in COMPARED], 2))
    assert [c.p_adjusted for c in report.comparisons] == [c.p_adjusted for c in named.comparisons]


def test_a_family_of_seven_corrects_over_seven_metrics():
    report = compare(_summaries(), family=choose_family(SEVEN, 2))
    by = {c.metric: c for c in report.comparisons}
    assert list(by) == SEVEN
    assert by["nDCG@2"].p == pytest.approx(P)
    assert by["nDCG@2"].p_adjusted == pytest.approx(7 * P)  # the running maximum of 7P, 6P, 5P, 4P
    assert by["R@2"].p == 1.0 and by["R@2"].p_adjusted == 1.0


@pytest.mark.parametrize("correction", [Correction.HOLM, Correction.BONFERRONI])
def test_a_named_family_of_two_corrects_over_two(correction):
    family = choose_family(["nDCG@2", "R@2"], 2)
    report = compare(_summaries(), family=family, correction=correction)
    assert [c.metric for c in report.comparisons] == ["nDCG@2", "R@2"] and report.named
    ndcg, recall = report.comparisons
    assert ndcg.p == pytest.approx(P) and ndcg.p_adjusted == pytest.approx(2 * P)  # 0.0625
    assert ndcg.delta == pytest.approx(1 - 1 / 1.584962500721156)
    assert ndcg.verdict == "band above 0" and (ndcg.wins, ndcg.ties, ndcg.losses) == (6, 0, 0)
    assert (recall.p, recall.p_adjusted, recall.delta) == (1.0, 1.0, 0.0)


def test_whole_list_measures_and_other_cutoffs_are_compared_from_their_per_query_values():
    # Whole-list AP and RR: 1/2 -> 1 on every query, p = 2/64 each; R@5 (another cutoff) does not move.
    summaries = _summaries(["nDCG@2", "map", "recip_rank", "R@5"])
    analysis = analyse(summaries, family=["nDCG@2", "map", "recip_rank", "R@5"])
    by = {c.metric: c for c in analysis.comparison.comparisons}
    assert list(by) == ["nDCG@2", "AP", "RR", "R@5"]
    assert by["AP"].delta == pytest.approx(0.5) and by["RR"].delta == pytest.approx(0.5)
    # Holm over 4: three p = 2/64 times 4, 3, 2 (running maximum 4 x 2/64), and p = 1 for R@5.
    assert [by[m].p_adjusted for m in ("nDCG@2", "AP", "RR")] == [pytest.approx(4 * P)] * 3
    assert by["R@5"].p_adjusted == 1.0


def test_report_json_records_the_family_and_what_was_left_out():
    analysis = analyse(_summaries(["nDCG@2", "R@2", "num_ret", "Judged@2"]), family=["nDCG@2", "R@2,num_ret,Judged@2"])
    report = document(analysis)
    assert report["comparison"]["family"] == ["nDCG@2", "R@2"]
    assert report["comparison"]["not_compared"] == ["NumRet", "Judged@2"]
    assert [c["metric"] for c in report["comparisons"]] == ["nDCG@2", "R@2"]
    assert report["comparisons"][0]["p_adjusted"] == pytest.approx(2 * P)
    assert "family" not in document(analyse(_summaries()))["comparison"]  # the default family: unchanged


def test_every_suite_metric_is_still_shown():
    analysis = analyse(_summaries(), family=["R@2"], primary="R@2")
    report = document(analysis)
    assert list(report["runs"][0]["metrics"]) == [m.label(2) for m in SUITE]  # the suite table is whole
    assert [c["metric"] for c in report["comparisons"]] == ["R@2"]
    assert report["headline"][0]["metric"] == "R@2"


def test_the_primary_is_the_first_compared_metric_at_k_of_the_family():
    assert choose_family(["map", "R@2", "nDCG@2"], 2).lead is RECALL
    assert choose_family(["nDCG@2"], 2, "nDCG@2").lead is NDCG
    assert choose_family(None, 2).measures == tuple(Measure(m.key, 2) for m in COMPARED)


@pytest.mark.parametrize(
    ("named", "primary", "message", "cli"),
    [
        (
            ["R@2"],
            "nDCG@2",
            "primary 'nDCG@2' is not in the comparison family (R@2): add nDCG@2 to family",
            "--primary 'nDCG@2' is not in the comparison family (R@2): add nDCG@2 to --metrics",
        ),
        (
            ["map", "R@5"],
            None,
            "family AP, R@5 holds no compared metric at K = 2 for the report to lead with; add one, such as "
            "nDCG@2, or choose K (k) at a cutoff it names",
            "--metrics AP, R@5 holds no compared metric at K = 2 for the report to lead with; add one, such as "
            "nDCG@2, or choose K (-k) at a cutoff it names",
        ),
        (
            ["num_ret", "Judged@2"],
            None,
            "family NumRet, Judged@2: nothing to compare (counts and the Judged@K "
            "diagnostic get no test); name per-query scores such as nDCG@2",
            "--metrics NumRet, Judged@2: nothing to compare (counts and the Judged@K "
            "diagnostic get no test); name per-query scores such as nDCG@2",
        ),
    ],
)
def test_a_family_the_report_cannot_use_is_one_clear_error(named, primary, message, cli):
    """Named as the library's keywords (analyse(family=...)), and as the command line's flags."""
    with pytest.raises(ArgumentError) as error:
        choose_family(named, 2, primary)
    assert str(error.value) == message
    assert error.value.spelled(flag) == cli


def test_with_nothing_compared_the_names_only_name_measures():
    # One run and no previous report: --metrics prints measures and leaves the primary alone.
    assert choose_family(["num_ret"], 2, compares=False).lead is NDCG


def test_a_member_without_per_query_values_is_refused():
    with pytest.raises(UsageError, match="R@50 is in the comparison family but base holds no per-query value"):
        analyse(_summaries(), family=["nDCG@2", "R@50"])


def _write(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 r{i} 1\n" for i in range(N)))
    for name, lists in (("base", BASE), ("better", BETTER)):
        lines = [f"{q} Q0 {d} {r + 1} {10 - r} {name}\n" for q, docs, _ in lists for r, d in enumerate(docs)]
        (tmp_path / f"{name}.trec").write_text("".join(lines))
    return ["--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "base.trec"), str(tmp_path / "better.trec")]


def test_cli_metrics_names_the_family_everywhere(tmp_path, capsys):
    files = _write(tmp_path)
    assert main(["score", *files, "-k", "2", "--metrics", "nDCG@2,R@2", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["comparison"]["family"] == ["nDCG@2", "R@2"]
    assert [c["p_adjusted"] for c in report["comparisons"]] == [pytest.approx(2 * P), 1.0]
    assert report["headline"][0]["p_adjusted"] == pytest.approx(2 * P)
    assert main(["score", *files, "-k", "2", "--metrics", "nDCG@2,R@2"]) == 0
    table = " ".join(capsys.readouterr().out.split())  # wrapped to the terminal's width
    assert "2 comparisons are corrected together" in table
    assert "nDCG@2 and R@2 are compared, tested and corrected together" in table
    assert main(["score", *files, "-k", "2", "--metrics", "nDCG@2,R@2,num_ret", "--format", "markdown"]) == 0
    markdown = " ".join(capsys.readouterr().out.split())
    assert "NumRet has no per-query score to test (a count or a diagnostic) and is not compared" in markdown
    out = tmp_path / "site"
    assert main(["build", *files, "-k", "2", "--metrics", "nDCG@2,R@2", "--out", str(out), "--quiet"]) == 0
    page = " ".join((out / "index.html").read_text().split())
    assert "2 comparisons are corrected together" in page
    assert json.loads((out / "report.json").read_text())["comparison"]["family"] == ["nDCG@2", "R@2"]


def test_cli_refuses_a_primary_outside_the_family_before_reading(tmp_path, capsys):
    files = _write(tmp_path)
    (tmp_path / "base.trec").unlink()  # never read: the names are checked first
    assert main(["score", *files, "-k", "2", "--metrics", "R@2", "--primary", "nDCG@2"]) == 2
    assert capsys.readouterr().err == (
        "ragreport: error: --primary 'nDCG@2' is not in the comparison family (R@2): add nDCG@2 to --metrics\n"
    )


def test_trec_layout_prints_no_comparison_so_metrics_only_names_measures(tmp_path, capsys):
    files = _write(tmp_path)
    assert main(["score", *files, "-k", "2", "--metrics", "P_5,num_ret", "--format", "trec"]) == 0
    assert "P_5" in capsys.readouterr().out
    assert main(["score", *files, "-k", "2", "--metrics", "P_5,num_ret", "--format", "json"]) == 2
    assert "--metrics P@5, NumRet holds no compared metric at K = 2" in capsys.readouterr().err


def test_drift_tests_only_the_family(tmp_path, capsys):
    """The run moves from BASE to BETTER: RR, AP, nDCG and CP change on 6 queries (p = 2/64 each).
    Family of section 2's seven (SEVEN): Holm over the 4 tests that moved, 4 x 2/64. Family nDCG@2,
    R@2: R@2 did not move, so nDCG@2 alone is counted: 2/64; RR@2 is shown, not tested."""
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 r{i} 1\n" for i in range(N)))
    for name, lists in (("before", BASE), ("after", BETTER)):
        lines = [f"{q} Q0 {d} {r + 1} {10 - r} t\n" for q, docs, _ in lists for r, d in enumerate(docs)]
        (tmp_path / name).mkdir()
        (tmp_path / name / "search.trec").write_text("".join(lines))
    qrels = ["--qrels", str(tmp_path / "qrels.txt")]
    assert main(["score", *qrels, str(tmp_path / "before" / "search.trec"), "-k", "2", "--format", "json"]) == 0
    (tmp_path / "before.json").write_text(capsys.readouterr().out)
    after = [*qrels, str(tmp_path / "after" / "search.trec"), "-k", "2", "--previous", str(tmp_path / "before.json")]
    assert main(["score", *after, "--metrics", ",".join(SEVEN), "--format", "json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)["drift"]["rows"]}
    assert rows["nDCG@2"]["p_adjusted"] == pytest.approx(4 * P)
    assert main(["score", *after, "--metrics", "nDCG@2,R@2", "--format", "json"]) == 0
    rows = {r["metric"]: r for r in json.loads(capsys.readouterr().out)["drift"]["rows"]}
    assert rows["nDCG@2"]["p"] == pytest.approx(P) and rows["nDCG@2"]["p_adjusted"] == pytest.approx(P)
    assert rows["RR@2"]["p"] is None and rows["RR@2"]["verdict"] is None
    assert main(["score", *after, "--metrics", "nDCG@2,R@2"]) == 0
    assert "not tested (not in the comparison family, --metrics)" in " ".join(capsys.readouterr().out.split())


def test_the_site_draws_the_family_and_opens_on_the_primary():
    from ragreport.output.site.view.build import build_view

    analysis = analyse(_summaries(["map", "R@2", "nDCG@2"]), family=["map", "R@2", "nDCG@2"], primary="nDCG@2")
    view = build_view(analysis)
    assert view.comparison.metrics == ("AP", "R@2", "nDCG@2")  # the matrix's columns
    scatter = view.comparison.pairs[0].scatter
    assert [t["name"] for t in scatter["data"]] == ["AP", "R@2", "nDCG@2"]
    assert [t["visible"] for t in scatter["data"]] == [False, False, True]
    assert scatter["layout"]["updatemenus"][0]["active"] == 2
    assert view.comparison.pairs[0].gains[0].run == "1.000"  # movers ranked by nDCG@2: 0.631 -> 1


ROOT = Path(__file__).resolve().parent.parent
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
