"""Drift against a previous report.json: only on the same query set and label set."""

from __future__ import annotations

import html
import json
import math
import re

import pytest

from ragreport.analysis.drift import label_change
from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.output.exports.reportjson.migrate import expanded

RUN = "".join(f"q{i} Q0 d{i} 1 2 t\nq{i} Q0 x{i} 2 1 t\n" for i in range(12))
LATER = "".join(f"q{i} Q0 x{i} 1 2 t\nq{i} Q0 d{i} 2 1 t\n" for i in range(12))
QRELS = "".join(f"q{i} 0 d{i} 1\n" for i in range(12))
# pooled: n<i> judged not relevant (and never retrieved), so that Judged@10 is shown (section 20.2)
POOLED = QRELS + "".join(f"q{i} 0 n{i} 0\n" for i in range(12))


def _plain(page) -> str:
    """A page's text as a browser shows it: tags dropped (no space put in their place), entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def _build(tmp_path, name, run_text, qrels_text, *extra):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "qrels.txt").write_text(qrels_text)
    (folder / "search.trec").write_text(run_text)
    out = folder / "site"
    assert (
        main(
            [
                "build",
                "--qrels",
                str(folder / "qrels.txt"),
                str(folder / "search.trec"),
                "--out",
                str(out),
                "--quiet",
                *extra,
            ]
        )
        == 0
    )
    return out


def test_same_queries_and_labels_show_figures_then_and_now(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    after = _build(tmp_path, "after", LATER, QRELS, "--previous", str(before / "report.json"))
    report = json.loads((after / "report.json").read_text())
    drift = report["drift"]
    assert drift["comparable"] is True and drift["reasons"] == []
    rr = next(r for r in drift["rows"] if r["metric"] == "RR@10")
    assert (rr["then"], rr["now"], rr["delta"], rr["queries"]) == (1.0, 0.5, -0.5, 12)
    assert (rr["low"], rr["high"]) == (-0.5, -0.5)  # every query moved the same way
    text = (after / "index.html").read_text()
    assert "Since the previous report" in text and "their fingerprints match" in text
    assert str(before) not in text and str(before) not in (after / "report.json").read_text()  # named, no path
    assert report["drift"]["previous"] == "report.json"
    summary = (after / "summary.md").read_text()
    assert "their fingerprints match" in summary
    assert "| search | RR@10 | 1.000 | 0.500 | -0.500 | [-0.500, -0.500] |" in summary


def test_another_label_set_claims_no_drift_and_says_why(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    relabelled = QRELS.replace("q0 0 d0 1", "q0 0 d0 2")
    after = _build(tmp_path, "after", RUN, relabelled, "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["comparable"] is False and drift["rows"] == []
    assert len(drift["reasons"]) == 1 and drift["reasons"][0].startswith("for search, the label set differs")
    assert "No drift can be claimed for search, the label set differs" in (after / "index.html").read_text()


def test_another_query_set_claims_no_drift(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    fewer = "".join(line + "\n" for line in QRELS.splitlines()[:-1])
    after = _build(tmp_path, "after", RUN, fewer, "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["comparable"] is False
    assert drift["reasons"][0].startswith("for search, the query set differs")
    assert " and the label set differs" in drift["reasons"][0]


def test_another_k_is_noted_not_compared(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    after = _build(tmp_path, "after", RUN, QRELS, "-k", "5", "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["comparable"] is False and drift["rows"] == [] and drift["reasons"] == []
    assert drift["notes"] == ["search was scored at K = 10 then and K = 5 now: figures at different K do not compare."]


def test_a_file_that_is_not_a_report(tmp_path, capsys):
    bogus = tmp_path / "report.json"
    bogus.write_text('{"schema": "other"}')
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    assert (
        main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.trec"), "--previous", str(bogus)])
        == 2
    )
    assert (
        "report.json:1: expected a report.json with schema 'ragreport/4' or 'ragreport/3' or 'ragreport/2' or 'ragreport/1', got 'other'"
        in capsys.readouterr().err
    )
    from ragreport.output.exports.reportjson.read import load_previous

    with pytest.raises(InputError):
        load_previous(tmp_path / "run.trec")


def _jsonl(path, queries, name):
    path.write_text(
        "".join(json.dumps({"id": f"q{i}", "retrieved": [f"d{i}", "x"], "relevant": [f"d{i}"]}) + "\n" for i in queries)
    )
    path.with_name(path.stem + ".meta.toml").write_text(f'name = "{name}"\n')
    return path


def test_fingerprints_are_checked_run_by_run(tmp_path):
    """Two runs whose query sets swap between reports: the union is the same, each run's is not."""
    (tmp_path / "then").mkdir()
    (tmp_path / "now").mkdir()
    x_then = _jsonl(tmp_path / "then" / "x.jsonl", range(0, 6), "x")
    y_then = _jsonl(tmp_path / "then" / "y.jsonl", range(6, 12), "y")
    assert main(["build", str(x_then), str(y_then), "--out", str(tmp_path / "then" / "site"), "--quiet"]) == 0
    x_now = _jsonl(tmp_path / "now" / "x.jsonl", range(0, 12), "x")
    assert (
        main(
            [
                "build",
                str(x_now),
                "--previous",
                str(tmp_path / "then" / "site" / "report.json"),
                "--out",
                str(tmp_path / "now" / "site"),
                "--quiet",
            ]
        )
        == 0
    )
    drift = json.loads((tmp_path / "now" / "site" / "report.json").read_text())["drift"]
    assert drift["comparable"] is False and drift["rows"] == []
    assert drift["reasons"][0].startswith("for x, the query set differs")
    assert drift["notes"] == ["y was in the previous report and is not in this one."]
    # x kept its own judgments in the earlier report (they are not the report's union): what changed is named
    (change,) = drift["changes"]
    assert change["runs"] == ["x"] and change["queries_added"]["count"] == 6
    assert change["queries_added"]["first"] == [[q, 1] for q in sorted(f"q{i}" for i in range(6, 12))]


def test_a_changed_run_gets_the_comparison_s_verdicts_and_p_values(tmp_path):
    """RR, AP, nDCG and CP fall on all 12 queries; P, R and Hit do not move. The randomization test
    is exact (2^12 sign vectors): only the two all-same-sign vectors reach |mean| = 0.5, so
    p = 2/4096; Holm over the 4 tests in which a score moved gives 4 x 2/4096. The family is named
    (section 2's seven compared metrics) so that the worked figures do not move with the catalogue."""
    before = _build(tmp_path, "before", RUN, POOLED)
    seven = "P@10,R@10,Hit@10,RR@10,AP@10,nDCG@10,CP@10"
    after = _build(tmp_path, "after", LATER, POOLED, "--previous", str(before / "report.json"), "--metrics", seven)
    drift = json.loads((after / "report.json").read_text())["drift"]
    rows = {r["metric"]: r for r in drift["rows"]}
    for label in ("RR@10", "AP@10", "nDCG@10", "CP@10"):
        assert rows[label]["p"] == pytest.approx(2 / 4096)
        assert rows[label]["p_adjusted"] == pytest.approx(8 / 4096)
        assert rows[label]["verdict"] == "worse" and rows[label]["changed"] == 12
    assert rows["nDCG@10"]["delta"] == pytest.approx(1 / math.log2(3) - 1)
    for label in ("P@10", "R@10", "Hit@10"):
        assert (rows[label]["p"], rows[label]["p_adjusted"], rows[label]["verdict"]) == (1.0, 1.0, "unclear")
        assert rows[label]["changed"] == 0 and rows[label]["delta"] == 0.0
    assert rows["Judged@10"]["p"] is None and rows["Judged@10"]["verdict"] is None  # a diagnostic
    assert drift["unchanged"] == [] and drift["correction"] == "holm"
    page = _plain(after / "index.html")
    assert "corrected (holm) across the 4 tests of this section" in page
    assert "▼ lower now: band below 0, corrected p below 0.05" in page
    assert "not tested (a diagnostic)" in page
    summary = (after / "summary.md").read_text()
    assert "| search | RR@10 | 1.000 | 0.500 | -0.500 | [-0.500, -0.500] | 0.002 | ▼ lower now" in summary


def test_a_run_whose_scores_did_not_move_is_one_line(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    after = _build(tmp_path, "after", RUN, QRELS, "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["comparable"] is True and drift["unchanged"] == ["search"]
    assert all(r["delta"] == 0.0 and r["changed"] == 0 for r in drift["rows"])
    source = (after / "index.html").read_text()
    page = _plain(after / "index.html")
    assert (
        "search: unchanged. No query's score moved on any metric (12 queries scored both times); "
        "nDCG@10 is 1.000, as before." in page
    )
    assert "drift-matrix" not in source and "+0.000" not in source and "-0.000" not in source
    summary = (after / "summary.md").read_text()
    assert "search: unchanged." in summary and "| search | RR@10 |" not in summary


def test_a_relabelled_judgment_is_named(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    relabelled = QRELS.replace("q0 0 d0 1", "q0 0 d0 2") + "q3 0 x3 1\n"
    after = _build(tmp_path, "after", RUN, relabelled, "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    (change,) = drift["changes"]
    assert change["runs"] == ["search"]
    assert change["regraded"] == {"count": 1, "first": [["q0", "d0", 1, 2]]}
    assert change["judgments_added"] == {"count": 1, "first": [["q3", "x3", 1]]}
    assert change["judgments_removed"]["count"] == change["queries_added"]["count"] == 0
    assert change["queries_removed"]["count"] == 0
    page = _plain(after / "index.html")
    assert (
        "What changed for search: queries 0 added, 0 removed; judgments on the queries judged both times "
        "1 added (q3/x3 at grade 1), 0 removed, 1 regraded (q0/d0 1 → 2)." in page
    )


def test_a_removed_query_is_named_with_its_judgments(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    fewer = "".join(line + "\n" for line in QRELS.splitlines()[:-1])
    after = _build(tmp_path, "after", RUN, fewer, "--previous", str(before / "report.json"))
    (change,) = json.loads((after / "report.json").read_text())["drift"]["changes"]
    assert change["queries_removed"] == {"count": 1, "first": [["q11", 1]]}
    assert change["judgments_removed"]["count"] == 0  # the query's own judgment goes with it
    assert "queries 0 added, 1 removed (q11 with 1 judgment)" in _plain(after / "index.html")


def test_a_report_that_lists_no_judgments_gets_fingerprints_only(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS)
    old = expanded(json.loads((before / "report.json").read_text()))  # as schema ragreport/1 wrote it
    del old["judgments"]
    (before / "report.json").write_text(json.dumps(old))
    after = _build(
        tmp_path, "after", RUN, QRELS.replace("q0 0 d0 1", "q0 0 d0 2"), "--previous", str(before / "report.json")
    )
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["changes"] == []
    assert (
        "The previous report does not list the judgments of search (it was written by an earlier ragreport)"
        in _plain(after / "index.html")
    )


def test_runs_whose_sets_changed_alike_are_named_together(tmp_path):
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "qrels.txt").write_text(QRELS)
    (folder / "a.trec").write_text(RUN)
    (folder / "b.trec").write_text(LATER)
    args = ["build", "--qrels", str(folder / "qrels.txt"), str(folder / "a.trec"), str(folder / "b.trec"), "--quiet"]
    assert main([*args, "--out", str(folder / "then")]) == 0
    (folder / "qrels.txt").write_text(QRELS.replace("q5 0 d5 1", "q5 0 d5 3"))
    assert main([*args, "--out", str(folder / "now"), "--previous", str(folder / "then" / "report.json")]) == 0
    drift = json.loads((folder / "now" / "report.json").read_text())["drift"]
    assert len(drift["reasons"]) == 1 and drift["reasons"][0].startswith("for every run (a, b), the label set")
    (change,) = drift["changes"]
    assert change["runs"] == ["a", "b"] and change["regraded"]["first"] == [["q5", "d5", 1, 3]]
    assert "What changed for every run: " in _plain(folder / "now" / "index.html")


def test_label_change_on_hand_written_sets():
    then = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}, "q3": {}}
    now = {"q1": {"a": 2, "d": 1}, "q3": {}, "q4": {"e": 1, "f": 0}}
    found = label_change(("r",), then, now)
    assert found.queries_added == (("q4", 2),) and found.queries_removed == (("q2", 1),)
    assert found.judgments_added == (("q1", "d", 1),) and found.judgments_removed == (("q1", "b", 0),)
    assert found.regraded == (("q1", "a", 1, 2),)
    assert label_change(("r",), now, now).as_dict()["regraded"] == {"count": 0, "first": []}


def test_drift_basis_keeps_only_what_drift_reads_and_gives_the_same_drift(tmp_path):
    from ragreport.analysis.drift import drift, drift_basis
    from ragreport.api import evaluate

    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d3 1 1 r\nq3 Q0 d5 1 1 r\n")
    qrels = tmp_path / "q.trec"
    qrels.write_text("q1 0 d2 1\nq2 0 d3 1\nq3 0 d5 1\n")
    previous = {
        "date": "2026-01-01",
        "fingerprints": {"queries": "x", "labels": "y"},
        "judgments": {"q1": {"d2": 1}},
        "runs": [
            {
                "name": "r",
                "k": 10,
                "conventions": {"denominator": "relevant", "gain": "linear", "missing": "zero", "order": "score"},
                "fingerprints": None,
                "metrics": {"P@10": {"mean": 0.1, "low": 0.0, "high": 0.2}, "R@10": {"mean": 1.0}},
                "queries": [
                    {"id": "q1", "scored": True, "P@10": 0.1, "status": "full"},
                    {"id": "q9", "scored": False, "P@10": None},
                ],
                "sweep": {"k": [1, 2]},
            },
            {"name": "gone", "k": 10, "queries": [{"id": "q1", "scored": True}]},
        ],
    }
    summaries = evaluate([run], qrels=qrels)
    now = summaries[0]
    previous["runs"][0]["fingerprints"] = {"queries": now.query_fingerprint, "labels": now.label_fingerprint}
    basis = drift_basis(previous, summaries)
    assert basis == {
        "date": "2026-01-01",
        "fingerprints": {"queries": "x", "labels": "y"},
        "runs": [
            {
                "name": "r",
                "k": 10,
                "conventions": previous["runs"][0]["conventions"],
                "fingerprints": previous["runs"][0]["fingerprints"],
                "metrics": {"P@10": {"mean": 0.1}, "R@10": {"mean": 1.0}},
                "queries": [{"id": "q1", "scored": True, "P@10": 0.1}],
            },
            {"name": "gone"},  # named only: a run no longer in the report
        ],
    }  # no judgments: the fingerprints match, so drift never reads them
    assert drift_basis(basis, summaries) == basis
    assert drift(basis, "p.json", summaries).as_dict() == drift(previous, "p.json", summaries).as_dict()
    # a run whose labels differ keeps the judgments drift lists the changes from
    previous["runs"][0]["fingerprints"] = {"queries": now.query_fingerprint, "labels": "sha256:other"}
    basis = drift_basis(previous, summaries)
    assert basis["judgments"] == {"q1": {"d2": 1}} and "queries" not in basis["runs"][0]
    assert drift(basis, "p.json", summaries).as_dict() == drift(previous, "p.json", summaries).as_dict()


def test_another_relevance_level_is_another_convention(tmp_path):
    before = _build(tmp_path, "before", RUN, QRELS.replace(" 1\n", " 2\n"))
    after = _build(
        tmp_path,
        "after",
        RUN,
        QRELS.replace(" 1\n", " 2\n"),
        "--relevance-level",
        "2",
        "--previous",
        str(before / "report.json"),
    )
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert drift["notes"] == [
        "search was scored under other conventions then (relevance_level): its figures do not compare."
    ]
    assert drift["rows"] == []
