"""Drift against a previous report.json: only on the same query set and label set."""

from __future__ import annotations

import json

import pytest

from ragreport.cli import main
from ragreport.core.errors import InputError

RUN = "".join(f"q{i} Q0 d{i} 1 2 t\nq{i} Q0 x{i} 2 1 t\n" for i in range(12))
LATER = "".join(f"q{i} Q0 x{i} 1 2 t\nq{i} Q0 d{i} 2 1 t\n" for i in range(12))
QRELS = "".join(f"q{i} 0 d{i} 1\n" for i in range(12))


def _build(tmp_path, name, run_text, qrels_text, *extra):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "qrels.txt").write_text(qrels_text)
    (folder / "search.trec").write_text(run_text)
    out = folder / "site"
    assert main(["build", "--qrels", str(folder / "qrels.txt"), str(folder / "search.trec"), "--out", str(out),
                 "--quiet", *extra]) == 0
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
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.trec"),
                 "--previous", str(bogus)]) == 2
    assert "report.json:1: expected a report.json with schema 'ragreport/1', got 'other'" in capsys.readouterr().err
    from ragreport.reading.previous import load_previous

    with pytest.raises(InputError):
        load_previous(tmp_path / "run.trec")


def _jsonl(path, queries, name):
    path.write_text("".join(json.dumps({"id": f"q{i}", "retrieved": [f"d{i}", "x"], "relevant": [f"d{i}"]}) + "\n"
                            for i in queries))
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
    assert main(["build", str(x_now), "--previous", str(tmp_path / "then" / "site" / "report.json"),
                 "--out", str(tmp_path / "now" / "site"), "--quiet"]) == 0
    drift = json.loads((tmp_path / "now" / "site" / "report.json").read_text())["drift"]
    assert drift["comparable"] is False and drift["rows"] == []
    assert drift["reasons"][0].startswith("for x, the query set differs")
    assert drift["notes"] == ["y was in the previous report and is not in this one."]
