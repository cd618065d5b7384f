"""Slices end to end: RAG JSONL meta and --query-meta files into report.json, the index's section,
the honest limits, Markdown, and ragreport render."""

from __future__ import annotations

import json

import pytest
from sitetools import INJECTIONS, read_page, site_files

from ragreport.cli import main

TOPICS = ("billing", "shipping", "returns")


def topic(q: int) -> str:
    return TOPICS[q % 3]


def write_runs(folder, with_meta=True):
    """60 queries, two relevant ids each, 20 per topic. The baseline ranks both relevant ids 3rd
    and 4th everywhere; the candidate ranks them 1st and 2nd on shipping, 9th and 10th on billing,
    as the baseline on returns."""
    base, cand = [], []
    for q in range(60):
        rel = [f"r{q}a", f"r{q}b"]
        junk = [f"x{q}-{i}" for i in range(8)]
        meta = {"meta": {"topic": topic(q), "n": q}} if with_meta else {}
        base_list = junk[:2] + rel + junk[2:]
        cand_list = {"shipping": rel + junk, "billing": junk + rel, "returns": base_list}[topic(q)]
        base.append({"id": f"q{q}", "retrieved": base_list, "relevant": rel, **meta})
        cand.append({"id": f"q{q}", "retrieved": cand_list, "relevant": rel, **meta})
    for name, rows in (("base", base), ("cand", cand)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder / "base.jsonl", folder / "cand.jsonl"


# nDCG@10 with two relevant ids (linear gain) at ranks (a, b): (1/log2(a+1) + 1/log2(b+1)) / (1 + 1/log2 3)
IDEAL = 1 + 1 / 1.584962500721156
AT_3_4 = (1 / 2 + 1 / 2.321928094887362) / IDEAL
AT_1_2 = 1.0
AT_9_10 = (1 / 3.321928094887362 + 1 / 3.4594316186372973) / IDEAL


def test_report_json_holds_every_slice_with_hand_worked_figures(tmp_path, capsys):
    base, cand = write_runs(tmp_path)
    assert main(["score", str(base), str(cand), "--format", "json", "--resamples", "200"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["settings"]["slice_by"] == ["topic"]  # "n" is a number: not sliced by default
    by_value = {s["value"]: s for s in document["slices"]}
    assert list(by_value) == ["billing", "returns", "shipping"]
    assert all(s["queries"] == 20 and s["small"] for s in by_value.values())
    assert by_value["shipping"]["runs"]["base"]["nDCG@10"]["mean"] == pytest.approx(AT_3_4)
    assert by_value["shipping"]["runs"]["cand"]["nDCG@10"]["mean"] == pytest.approx(AT_1_2)
    assert by_value["billing"]["runs"]["cand"]["nDCG@10"]["mean"] == pytest.approx(AT_9_10)
    (billing,) = by_value["billing"]["comparisons"]
    assert billing["delta"] == pytest.approx(AT_9_10 - AT_3_4) and billing["low"] == billing["high"] == billing["delta"]
    assert billing["verdict"] == "worse" and billing["p_adjusted"] < 0.05
    (returns,) = by_value["returns"]["comparisons"]
    assert returns["delta"] == 0 and returns["verdict"] == "unclear"
    overall = next(c for c in document["comparisons"] if c["metric"] == "nDCG@10")["delta"]
    assert overall == pytest.approx((AT_1_2 - AT_3_4 + AT_9_10 - AT_3_4) / 3)
    assert overall > 0  # better overall, clearly worse on billing
    assert document["query_meta"]["q0"] == {"topic": "billing"}


def test_the_site_shows_the_slices_and_the_limit(tmp_path):
    base, cand = write_runs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", str(base), str(cand), "--out", str(out), "--quiet", "--resamples", "200"]) == 0
    page = read_page(out / "index.html")
    assert "Slices by query metadata" in page.text
    assert "Where topic is billing (20 queries), cand scores lower than base on nDCG@10" in page.text
    assert "The average hides it." in page.text
    rows = page.source.split('id="slice-1"')[1].split("</table>")[0]
    assert rows.count("too few queries to read") == 3  # 20 queries each, under 30
    # each slice names the queries to open first, linked to their view (billing: every query loses
    # alike, ties by id)
    assert '<a class="mono" href="queries.html#q=q0">q0</a>, <a class="mono" href="queries.html#q=q12">' in rows
    run_page = read_page(out / "run-cand.html")
    assert "A slice goes the other way" in run_page.text
    assert "A slice goes the other way" not in read_page(out / "run-base.html").text
    summary = (out / "summary.md").read_text()
    assert "| billing (too few queries to read) | 20 |" in summary


def test_query_meta_file_for_trec_runs_and_slice_chooses_keys(tmp_path, capsys):
    base, cand = write_runs(tmp_path, with_meta=False)
    meta = tmp_path / "meta.tsv"
    meta.write_text(
        "qid\ttopic\tlength\n" + "".join(f"q{q}\t{topic(q)}\t{'long' if q < 30 else 'short'}\n" for q in range(60))
    )
    assert (
        main(
            [
                "score",
                str(base),
                str(cand),
                "--query-meta",
                str(meta),
                "--slice",
                "length",
                "--format",
                "json",
                "--resamples",
                "200",
            ]
        )
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert [(s["key"], s["value"], s["queries"], s["small"]) for s in document["slices"]] == [
        ("length", "long", 30, False),
        ("length", "short", 30, False),
    ]
    assert main(["score", str(base), "--query-meta", str(meta), "--slice", "colour"]) == 2
    assert "--slice 'colour' is not a key of any query's metadata (the keys: length, topic)" in capsys.readouterr().err


def test_render_gives_the_same_slices_byte_for_byte(tmp_path):
    base, cand = write_runs(tmp_path)
    out, again = tmp_path / "site", tmp_path / "again"
    assert main(["build", str(base), str(cand), "--out", str(out), "--quiet", "--resamples", "200"]) == 0
    assert main(["render", str(out / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert site_files(out) == site_files(again)


def test_slice_values_and_keys_are_escaped(tmp_path):
    rows = []
    for q in range(10):
        value = INJECTIONS[q % 2]
        rows.append({"id": f"q{q}", "retrieved": ["a", "b"], "relevant": ["a"], "meta": {INJECTIONS[1]: value}})
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "site"
    assert main(["build", str(run), "--out", str(out), "--quiet", "--resamples", "100"]) == 0
    page = read_page(out / "index.html")
    assert page.attrs_of("img") == [] and INJECTIONS[0] in page.text
    assert not any("alert" in s for s in page.inline_scripts)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        (
            "query_meta",
            True,
            "'query_meta' as an object of query ids to objects of text, numbers or booleans, got a JSON bool",
        ),
        ("query_meta", {"q1": [1]}, "got a JSON list for query 'q1'"),
        ("query_meta", {"q1": {"topic": None}}, "got null for query 'q1' key 'topic'"),
        ("texts", {"docs": True, "queries": []}, "got docs a JSON bool, queries a JSON list"),
        ("texts", {"docs": {"d": {"title": 1}}, "queries": []}, "got a JSON dict for document 'd'"),
    ],
)
def test_a_forged_report_with_bad_slices_or_texts_is_one_line(tmp_path, capsys, field, value, expected):
    base, cand = write_runs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", str(base), str(cand), "--out", str(out), "--quiet", "--resamples", "100"]) == 0
    document = json.loads((out / "report.json").read_text())
    document[field] = value
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    assert main(["render", str(forged), "--format", "json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"ragreport: error: {forged}:1: expected ") and expected in err
    assert len(err.splitlines()) == 1


def test_a_slices_count_reads_as_every_count_does():
    from ragreport.analysis.compare import Correction
    from ragreport.analysis.slices import Slice, SliceReport
    from ragreport.output.site.view.slices import slices_view

    report = SliceReport(("topic",), (Slice("topic", "a", 12345, {}),), (), "nDCG@10", Correction.HOLM, ())
    (table,) = slices_view(report, (), None, 0.95).tables
    assert [row.queries for row in table.rows] == ["12,345"]
