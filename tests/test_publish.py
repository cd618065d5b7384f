"""``ragreport publish`` end to end: a history of three reports, republishing, refusal, failures,
byte-identical output, pruning, and the history served from a sub-path over HTTP."""

from __future__ import annotations

import json
import os
import re
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from sitetools import (
    BETTER,
    FAST,
    INJECTIONS,
    history_inputs,
    publish,
    publish_three,
    read_page,
    serve,
    site_files,
)

from ragreport.cli import main
from ragreport.output.site import writing


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")  # 2026-09-21
    return history_inputs(tmp_path)


def history_of(history: Path) -> list[dict]:
    return json.loads((history / "history.json").read_text())["reports"]


@pytest.fixture
def three(inputs):
    """v1 and v2 on the same sets (the candidate gets better), v3 on another label set."""
    return publish_three(inputs, inputs / "eval")


@pytest.mark.slow
def test_three_publishes_give_three_rows_a_marked_break_and_one_drift_verdict(three):
    entries = history_of(three)
    assert [e["label"] for e in entries] == ["v3", "v2", "v1"]  # newest first
    assert sorted(p.name for p in (three / "reports").iterdir()) == ["v1", "v2", "v3"]
    assert [p.name for p in sorted(three.iterdir())] == [
        ".ragreport-history",
        "assets",
        "history.json",
        "index.html",
        "reports",
    ]
    page = read_page(three / "index.html")
    rows = [a for a in page.attrs_of("tr") if a.get("id", "").startswith("report-")]
    assert [r["id"] for r in rows] == ["report-v3", "report-v2", "report-v1"]
    for label in ("v1", "v2", "v3"):
        assert {"href": f"reports/{label}/index.html"} in page.attrs_of("a")
    # One drift verdict: v2 against v1, the candidate clearly higher; v1 has nothing before it and
    # v3's label set differs, so it claims none.
    drift = entries[1]["drift"]
    assert drift["previous"] == "v1" and drift["comparable"] is True
    assert [(r["run"], r["metric"], r["verdict"]) for r in drift["rows"]] == [
        ("base", "nDCG@10", "unclear"),
        ("cand", "nDCG@10", "better"),
    ]
    assert drift["unchanged"] == ["base"]
    assert entries[2]["drift"] is None
    assert entries[0]["drift"]["comparable"] is False
    assert "the label set differs" in entries[0]["drift"]["reasons"][0]
    # WORSE finds one of two relevant ids at rank 3: (1/log2 4) / (1 + 1/log2 3) = 0.307; BETTER both, on top
    assert "nDCG@10 0.307 then, 1.000 now, +0.693 (band +0.693 to +0.693): ▲ higher now." in page.text
    assert "▲ higher now" in page.text
    assert page.text.count("▲ higher now") == 1
    assert "No drift can be claimed for every run (base, cand), the label set differs" in page.text
    assert "This is the history's first report" in page.text
    # the trend: v1 and v2 joined, v3 apart, the break drawn and named
    trend = next(page.json(k) for k in page.json_blocks if "nDCG@10 across reports" in page.json_blocks[k])
    assert trend["layout"]["xaxis"]["categoryarray"] == ["v1", "v2", "v3"]
    cand = [t for t in trend["data"] if t["legendgroup"] == "cand"]
    assert [t["x"] for t in cand] == [["v1", "v2"], ["v3"]]
    assert [t["showlegend"] for t in cand] == [True, False]
    assert [(s["x0"], s["line"]["dash"]) for s in trend["layout"]["shapes"]] == [(1.5, "dash")]
    assert [a["text"] for a in trend["layout"]["annotations"]] == ["label set changed"]
    assert "Between v2 and v3 the label set changed for every run: the line is broken there." in page.text
    # the newest set is marked as changed in its row, not in the others
    assert page.text.count("changed") >= 1
    row_v3 = page.source.split('id="report-v3"')[1].split("</tr>")[0]
    row_v2 = page.source.split('id="report-v2"')[1].split("</tr>")[0]
    assert 'class="changed"' in row_v3 and 'class="changed"' not in row_v2


@pytest.mark.slow
def test_each_report_is_a_site_that_uses_the_shared_plotly_and_links_back(three):
    report = three / "reports" / "v2"
    assert sorted(p.name for p in report.iterdir()) == [
        "index.html",
        "queries.html",
        "report.json",
        "run-base.html",
        "run-cand.html",
        "summary.txt",
    ]
    for name in ("index.html", "run-cand.html"):
        page = read_page(report / name)
        assert [a["src"] for a in page.attrs_of("script") if "src" in a] == ["../../assets/plotly.min.js"]
        assert {"href": "../../index.html"} in page.attrs_of("a")
    document = json.loads((report / "report.json").read_text())
    assert document["drift"]["previous"] == "v1" and document["settings"]["previous"] == "v1"
    assert "Previous report: v1" in read_page(report / "index.html").text
    assert (three / "assets" / "plotly.min.js").stat().st_size > 1_000_000


@pytest.mark.slow
def test_publishing_a_label_again_replaces_that_report_only(three, inputs):
    before = site_files(three)
    stats = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (three / "reports").rglob("*") if p.is_file()}
    assert publish(inputs, three, "worse", "qrels.txt", "--label", "v2") == 0
    after = site_files(three)
    assert [e["label"] for e in history_of(three)] == ["v3", "v2", "v1"]  # in its place
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    # the marker lists every file with its digest (docs/conventions.md section 16), so it changes with v2's
    assert changed and all(
        k.startswith("reports/v2/") or k in ("index.html", "history.json", ".ragreport-history") for k in changed
    )
    for path, stat in stats.items():  # v1 and v3: the same files, never rewritten
        if "/v2/" not in path.as_posix():
            assert (path.stat().st_ino, path.stat().st_mtime_ns) == stat, path
    # v2 is measured against v1 again, and now the candidate is as it was then
    entry = history_of(three)[1]
    assert entry["drift"]["previous"] == "v1" and entry["drift"]["unchanged"] == ["base", "cand"]
    # v3 was measured against the v2 published before: the page says so
    assert "Against v2 (as it was then: it has been published again since):" in read_page(three / "index.html").text


@pytest.mark.slow
def test_two_publishes_of_the_same_inputs_are_byte_identical(inputs):
    for name in ("a", "b"):
        assert publish(inputs, inputs / name, "worse", "qrels.txt") == 0
        assert publish(inputs, inputs / name, "better", "qrels.txt") == 0
    assert site_files(inputs / "a") == site_files(inputs / "b")
    # default labels: the report's date, made unique
    assert [e["label"] for e in history_of(inputs / "a")] == ["2026-09-21-2", "2026-09-21"]
    files = site_files(inputs / "a")
    assert publish(inputs, inputs / "a", "better", "qrels.txt", "--label", "2026-09-21-2") == 0
    assert site_files(inputs / "a") == files  # the same label and inputs again: not a byte changes


@pytest.mark.slow
def test_keep_prunes_the_oldest_reports(inputs):
    history = inputs / "eval"
    for label in ("v1", "v2", "v3"):
        assert publish(inputs, history, "better", "qrels.txt", "--label", label, "--keep", "2") == 0
    assert [e["label"] for e in history_of(history)] == ["v3", "v2"]
    assert sorted(p.name for p in (history / "reports").iterdir()) == ["v2", "v3"]
    text = read_page(history / "index.html").text
    assert "Against v1 (no longer kept):" in text  # v2's drift was against v1, which is gone
    assert 'href="reports/v1' not in (history / "index.html").read_text()


@pytest.mark.parametrize("found", ["notes.txt", ".ragreport-site"])
def test_a_folder_that_is_not_a_history_is_refused(inputs, capsys, found):
    history = inputs / "eval"
    history.mkdir()
    (history / found).write_text("mine\n")
    assert publish(inputs, history) == 2
    err = capsys.readouterr().err
    assert "refusing to publish into" in err and "not a ragreport history" in err
    assert len(err.strip().splitlines()) == 1
    assert [p.name for p in history.iterdir()] == [found]


def test_bad_labels_are_refused_before_any_run_is_read(inputs, capsys):
    for label in ("../up", "a b", ".hidden", "x" * 65, "é"):
        assert publish(inputs, inputs / "eval", "worse", "qrels.txt", "--label", label) == 2
        assert "a label names a folder and a web address" in capsys.readouterr().err
    assert not (inputs / "eval").exists()
    assert publish(inputs, inputs / "eval", "worse", "qrels.txt", "--label", "Week-48") == 0
    assert publish(inputs, inputs / "eval", "worse", "qrels.txt", "--label", "week-48") == 2
    assert "differs only by case" in capsys.readouterr().err


@pytest.mark.slow
def test_a_failed_publish_leaves_the_history_as_it_was(three, inputs, monkeypatch, capsys):
    before = site_files(three)
    (inputs / "bad.trec").write_text("q1 Q0 d1\n")
    assert main(["publish", str(three), "--qrels", str(inputs / "qrels.txt"), str(inputs / "bad.trec"), *FAST]) == 2
    assert "bad.trec" in capsys.readouterr().err
    assert site_files(three) == before
    # a failure while the new history is written, and one at the very last rename
    real_write, real_rename = Path.write_bytes, os.rename
    for failure in ("write", "rename"):
        if failure == "write":
            monkeypatch.setattr(Path, "write_bytes", lambda self, data: (_ for _ in ()).throw(OSError(28, "full")))
        else:
            calls = []

            def rename(src, dst, calls=calls):
                calls.append(dst)
                if len(calls) == 2:  # the old history is moved aside, the new one fails to take its place
                    raise OSError(5, "I/O error")
                return real_rename(src, dst)

            monkeypatch.setattr(os, "rename", rename)
            monkeypatch.setattr(writing, "_EXCHANGE", None)  # the two-rename swap, where no exchange exists
        assert (
            main(["publish", str(three), "--qrels", str(inputs / "qrels.txt"), str(inputs / "base.trec"), *FAST]) == 2
        )
        err = capsys.readouterr().err
        assert err.startswith(f"ragreport: error: cannot write {three}: ") and len(err.splitlines()) == 1
        assert err.rstrip().endswith("the previous one is untouched")
        monkeypatch.setattr(Path, "write_bytes", real_write)
        monkeypatch.setattr(os, "rename", real_rename)
        assert site_files(three) == before, failure
        assert sorted(p.name for p in inputs.iterdir() if p.name.startswith(".")) == []  # nothing left beside it


@pytest.mark.slow
def test_a_broken_history_is_reported_with_its_file_and_line(three, inputs, capsys):
    index = three / "history.json"
    text = index.read_text()
    index.write_text(text.replace('"label": "v2"', '"label": "../../etc"', 1))
    assert publish(inputs, three) == 2
    err = capsys.readouterr().err.strip()
    line = next(n for n, t in enumerate(index.read_text().splitlines(), 1) if "../../etc" in t)
    assert err.startswith(f"ragreport: error: {index}:{line}:") and "'../../etc'" in err
    index.write_text(text.replace('"v3"', '"v4"', 1))
    assert publish(inputs, three) == 2
    assert "report 'v4'" in capsys.readouterr().err
    index.write_text("{")
    assert publish(inputs, three) == 2
    assert f"{index}:1:" in capsys.readouterr().err


def test_publish_takes_no_previous_and_no_out(inputs, capsys):
    for option in ("--previous", "--out", "--single-file"):
        with pytest.raises(SystemExit) as stop:
            publish(inputs, inputs / "eval", "worse", "qrels.txt", option, "x")
        assert stop.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_user_text_is_escaped_on_the_history_page(inputs):
    hostile = inputs / "hostile"
    hostile.mkdir()
    (hostile / "cand.trec").write_text(BETTER)
    (hostile / "cand.meta.toml").write_text(f"name = {json.dumps(INJECTIONS[0])}\n")
    history = inputs / "eval"
    assert (
        main(
            [
                "publish",
                str(history),
                "--qrels",
                str(inputs / "qrels.txt"),
                str(hostile / "cand.trec"),
                *FAST,
                "--title",
                INJECTIONS[1],
            ]
        )
        == 0
    )
    page = read_page(history / "index.html")
    assert page.attrs_of("img") == [] and INJECTIONS[0] in page.text
    assert not any("alert" in s for s in page.inline_scripts)


def test_gates_are_checked_and_the_report_is_published_anyway(inputs, capsys):
    history = inputs / "eval"
    assert publish(inputs, history, "worse", "qrels.txt", "--fail-on", "worse") == 1
    assert history_of(history)[0]["gates"] == {"failed": 1, "total": 1}
    assert "gates: 1 of 1 failed" in read_page(history / "index.html").text


# --- Served from a sub-path -------------------------------------------------------------------------


LINK = re.compile(r'\b(?:href|src)="([^"]*)"')


@pytest.mark.slow
def test_a_history_served_from_a_sub_path_resolves_every_link_and_asset(three, inputs):
    """The site root holds the history at /docs/eval/ (as a docs site would): every page reached from
    its index, every link and asset on it, is fetched over HTTP and answers 200, inside /docs/eval/."""
    root = inputs / "www"
    (root / "docs").mkdir(parents=True)
    three.rename(root / "docs" / "eval")
    server = serve(root)
    base = f"http://127.0.0.1:{server.server_address[1]}/docs/eval/"
    try:
        with urllib.request.urlopen(base) as answer:  # the folder's address serves the history page
            assert answer.status == 200 and b"<h1>Evaluation history</h1>" in answer.read()
        seen, pages, queue = set(), 0, [base + "index.html"]
        while queue:
            url = queue.pop()
            if url in seen:
                continue
            seen.add(url)
            with urllib.request.urlopen(url) as answer:
                assert answer.status == 200, url
                body = answer.read()
            if not url.endswith(".html"):
                continue
            pages += 1
            for link in LINK.findall(body.decode("utf-8")):
                if link.startswith("#"):
                    continue
                target = urllib.parse.urljoin(url, link).split("#")[0]
                assert target.startswith(base), (url, link)  # relative, and never above the history
                queue.append(target)
        assert pages == 1 + 3 * 4  # the history page; each report's overview, query view and two run pages
        assert f"{base}assets/plotly.min.js" in seen and f"{base}history.json" in seen
        assert f"{base}reports/v1/report.json" in seen and f"{base}reports/v3/summary.txt" in seen
    finally:
        server.shutdown()


def test_the_config_file_can_name_the_history_and_its_label(inputs, monkeypatch, capsys):
    monkeypatch.chdir(inputs)
    (inputs / "ragreport.toml").write_text(
        'qrels = "qrels.txt"\nruns = ["base.trec", "better/cand.trec"]\nresamples = 200\npermutations = 500\n'
        '[publish]\nhistory = "eval"\nlabel = "nightly"\nkeep = 1\n'
    )
    assert main(["publish", "--quiet"]) == 0
    assert [e["label"] for e in history_of(inputs / "eval")] == ["nightly"]
    assert main(["--no-config", "publish", "--quiet"]) == 2
    assert "publish needs DIR, the history folder" in capsys.readouterr().err
