"""End to end: ``ragreport render REPORT.json`` gives back build's site byte for byte, without the run
files, from the settings the report stores; and its stdout formats, overrides and errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sitetools import four_trec_runs, second_sample_run, site_files, without_metric

from ragreport.analysis.compare import VERDICTS
from ragreport.cli import main

EPOCH = "1764547200"  # 2025-12-01
LATER = "1790000000"  # 2026-09-21: a render on another day changes nothing


@pytest.fixture(scope="module")
def trec(tmp_path_factory) -> tuple[Path, list[Path]]:
    """Four TREC runs of 80 queries with their qrels (the layout tests' generator)."""
    return four_trec_runs(tmp_path_factory.mktemp("four"), queries=80)


def _build_then_render(tmp_path: Path, monkeypatch, capsys, *options: str) -> tuple[Path, Path]:
    """Build a site and a single file, move report.json away from every input, remove the inputs'
    folder's other files from sight, and render it on another day; the two folders."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    built = tmp_path / "built"
    assert main(["build", *options, "--out", str(built), "--single-file", str(tmp_path / "built.html"), "--quiet"]) == 0
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(built / "report.json", alone / "report.json")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", LATER)
    monkeypatch.chdir(alone)
    rendered = tmp_path / "rendered"
    assert (
        main(
            [
                "render",
                "report.json",
                "--out",
                str(rendered),
                "--single-file",
                str(tmp_path / "rendered.html"),
                "--quiet",
            ]
        )
        == 0
    )
    capsys.readouterr()
    return built, rendered


def _same(tmp_path: Path, built: Path, rendered: Path) -> None:
    expected, found = site_files(built), site_files(rendered)
    assert sorted(expected) == sorted(found)
    for name, data in expected.items():
        assert found[name] == data, f"{name} differs"
    assert (tmp_path / "rendered.html").read_bytes() == (tmp_path / "built.html").read_bytes()


def test_the_sample_renders_byte_for_byte(tmp_path, monkeypatch, capsys):
    built, rendered = _build_then_render(tmp_path, monkeypatch, capsys)
    _same(tmp_path, built, rendered)
    assert {"index.html", "run-sample.html", "report.json", "summary.md", "assets/plotly.min.js"} <= set(
        site_files(rendered)
    )


def test_four_trec_runs_with_a_comparison_and_two_cutoffs_render_byte_for_byte(trec, tmp_path, monkeypatch, capsys):
    qrels, runs = trec
    built, rendered = _build_then_render(
        tmp_path, monkeypatch, capsys, "--qrels", str(qrels), *map(str, runs), "-k", "10,20", "--permutations", "2000"
    )
    _same(tmp_path, built, rendered)
    document = json.loads((rendered / "report.json").read_text())
    assert len(document["comparisons"]) > 0 and document["settings"]["k"] == [10, 20]
    # the standardised effect, its band and the verdict key come back from a re-render alike; Hit@10
    # ties on every query (no spread: d_z undefined, and the band [0, 0] practically the same)
    for c in document["comparisons"]:
        if c["metric"] == "Hit@10":
            assert (c["effect"], c["effect_low"], c["effect_high"], c["verdict"]) == (None, None, None, "equivalent")
        else:
            assert c["effect_low"] <= c["effect"] <= c["effect_high"] and c["verdict"] in VERDICTS


def test_named_whole_list_measures_and_other_conventions_render_byte_for_byte(trec, tmp_path, monkeypatch, capsys):
    qrels, runs = trec
    options = [
        "--qrels",
        str(qrels),
        *map(str, runs[:3]),
        "--metrics",
        "R@10,map,num_ret,num_rel_ret,Rprec,P_5",
        "--metrics",
        "ndcg_burges@10",
        "--gain",
        "exp",
        "--denominator",
        "min",
        "--missing",
        "skip",
        "--no-relevant",
        "zero",
        "--order",
        "file",
        "--baseline",
        "dense-contriever-msmarco",
        "--correction",
        "bonferroni",
        "--permutations",
        "500",
        "--primary",
        "R@10",
        "--resamples",
        "300",
        "--seed",
        "7",
        "--confidence",
        "0.9",
        "--kmax",
        "25",
        "--title",
        "Week <48> & co",
    ]
    built, rendered = _build_then_render(tmp_path, monkeypatch, capsys, *options)
    _same(tmp_path, built, rendered)


def test_jsonl_runs_with_their_own_judgments_and_metadata_render_byte_for_byte(tmp_path, monkeypatch, capsys):
    """Two JSONL runs judged differently (each keeps its judgments), with repeats, an empty list, a
    query with no relevant id, query text, and metadata with every known key and extra ones."""
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "a.jsonl").write_text(
        '{"id": "q1", "query": "alpha & <b>", "retrieved": ["d1", "d2", "d1", "d3"], "relevant": {"d1": 2, "d3": 1, "d9": 0}}\n'
        '{"id": "q2", "retrieved": ["x"], "relevant": ["y"]}\n'
        '{"id": "q3", "retrieved": [], "relevant": ["z"]}\n'
        '{"id": "q4", "retrieved": ["w"], "relevant": {"w": 0}}\n'
    )
    (inputs / "b.jsonl").write_text(
        '{"id": "q2", "retrieved": ["y", "x"], "relevant": ["y"]}\n'
        '{"id": "q1", "query": "alpha & <b>", "retrieved": ["d3", "d1"], "relevant": {"d1": 1, "d3": 1}}\n'
        '{"id": "q5", "retrieved": ["k"], "relevant": ["k"]}\n'
    )
    (inputs / "b.meta.toml").write_text(
        'name = "b_run&%"\ndate = 2026-11-02\nlabel_source = "model"\njudge_error_rate = 0.1\npool_depth = 5\n'
        'retriever_kind = "agentic"\nnotes = "Some **notes**."\nwhen = 2026-10-01\nnested = {x = 1, y = [1, 2]}\n'
    )
    built, rendered = _build_then_render(
        tmp_path, monkeypatch, capsys, str(inputs / "a.jsonl"), str(inputs / "b.jsonl"), "-k", "2", "--kmax", "3"
    )
    _same(tmp_path, built, rendered)
    assert all("judgments" in run for run in json.loads((built / "report.json").read_text())["runs"])


def test_a_second_sample_run_renders_byte_for_byte(tmp_path, monkeypatch, capsys):
    from ragreport.reading.registry import sample_path

    other = second_sample_run(tmp_path)
    built, rendered = _build_then_render(tmp_path, monkeypatch, capsys, str(sample_path()), str(other))
    _same(tmp_path, built, rendered)


@pytest.mark.parametrize("change_labels", [False, True])
def test_drift_renders_byte_for_byte_without_the_previous_report(trec, tmp_path, monkeypatch, capsys, change_labels):
    qrels, runs = trec
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    previous = tmp_path / "previous"
    assert (
        main(
            [
                "build",
                "--qrels",
                str(qrels),
                *map(str, runs[:2]),
                "--out",
                str(previous),
                "--quiet",
                "--permutations",
                "500",
            ]
        )
        == 0
    )
    if change_labels:  # a query dropped and one grade changed: no drift claimed, the changes listed
        lines = qrels.read_text().splitlines()
        kept = [line for line in lines if not line.startswith("301 ")]
        kept[0] = " ".join(kept[0].split()[:3] + [str(int(kept[0].split()[3]) + 1)])
        qrels = tmp_path / "qrels-later.trec"
        qrels.write_text("\n".join(kept) + "\n")
    shutil.move(previous / "report.json", tmp_path / "last-week.json")
    shutil.rmtree(previous)
    built, rendered = _build_then_render(
        tmp_path,
        monkeypatch,
        capsys,
        "--qrels",
        str(qrels),
        *map(str, runs[:2]),
        "--previous",
        str(tmp_path / "last-week.json"),
        "--permutations",
        "500",
    )
    (tmp_path / "last-week.json").unlink()
    _same(tmp_path, built, rendered)
    drift = json.loads((rendered / "report.json").read_text())["drift"]
    assert drift["previous"] == "last-week.json"
    assert drift["comparable"] is (not change_labels)
    assert bool(drift["changes"]) is change_labels


def test_a_rendered_report_renders_again_alike(tmp_path, monkeypatch, capsys):
    built, rendered = _build_then_render(tmp_path, monkeypatch, capsys)
    again = tmp_path / "again"
    assert main(["render", str(rendered / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert site_files(again) == site_files(built)


def test_settings_hold_the_resolved_options_and_no_path(trec, tmp_path, monkeypatch, capsys):
    qrels, runs = trec
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert (
        main(
            [
                "score",
                "--qrels",
                str(qrels),
                *map(str, runs[:2]),
                "-k",
                "5",
                "--gain",
                "exp",
                "--metrics",
                "nDCG@5,map",
                "--format",
                "json",
                "--quiet",
            ]
        )
        == 0
    )
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings == {
        "k": [5],
        "kmax": 30,  # the runs' depth (four_trec_runs: 30, on the grid), past max(10, 2K)
        "primary": "nDCG@5",
        "metrics": [
            {"key": "nDCG", "cutoff": 5, "gain": None, "label": "nDCG@5"},
            {"key": "AP", "cutoff": None, "gain": None, "label": "AP"},
        ],
        "baseline": "bm25-baseline",  # the first run, as resolved
        "correction": "holm",
        "permutations": 10000,
        "min_effect": 0.02,
        "conventions": {
            "denominator": "relevant",
            "gain": "exp",
            "missing": "zero",
            "order": "score",
            "no_relevant": "exclude",
            "relevance_level": 1,
            "confidence": 0.95,
            "resamples": 1000,
            "seed": 0,
        },
        "previous": None,
        "slice_by": [],  # TREC runs carry no per-query metadata
        "today": "2025-12-01",
        "title": None,
    }


def test_title_given_to_render_overrides_the_stored_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "a", "--title", "Stored title", "--quiet"]) == 0
    assert main(["render", "a/report.json", "--out", "b", "--title", "New & <title>", "--quiet"]) == 0
    index = (tmp_path / "b" / "index.html").read_text()
    assert "New &amp; &lt;title&gt;" in index and "Stored title" not in index
    assert json.loads((tmp_path / "b" / "report.json").read_text())["settings"]["title"] == "New & <title>"
    assert main(["render", "a/report.json", "--out", "c", "--quiet"]) == 0
    assert "Stored title" in (tmp_path / "c" / "index.html").read_text()


@pytest.mark.parametrize("fmt", ["table", "markdown", "json", "csv", "latex"])
def test_render_prints_what_score_prints(tmp_path, monkeypatch, capsys, fmt):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "site", "--quiet"]) == 0
    assert main(["score", "--format", fmt, "--quiet"]) == 0
    scored = capsys.readouterr().out
    assert main(["render", "site/report.json", "--format", fmt]) == 0
    assert capsys.readouterr().out == scored
    if fmt == "json":
        assert scored.encode() == (tmp_path / "site" / "report.json").read_bytes()


def _report(tmp_path: Path, monkeypatch) -> dict:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert main(["build", "--out", str(tmp_path / "site"), "--quiet"]) == 0
    return json.loads((tmp_path / "site" / "report.json").read_text())


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    return err


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (
            lambda d: d.pop("settings"),
            "report.json:1: expected top-level 'settings' (written before ragreport render; "
            "rebuild it with ragreport build to render it), got none",
        ),
        (
            lambda d: d["runs"][0].pop("lists"),
            "report.json:1: expected 'lists' in run 'sample' (written before "
            "ragreport render; rebuild it with ragreport build to render it), got none",
        ),
        (
            lambda d: d.update(schema="other/2"),
            "report.json:1: expected a report.json with schema 'ragreport/4' or 'ragreport/3' or "
            "'ragreport/2' or 'ragreport/1', got 'other/2'",
        ),
        (
            lambda d: d["runs"][0]["lists"].update(lengths=[10] * 9),
            "report.json:1: expected a report.json of schema 'ragreport/4' as ragreport writes it, "
            "got 'lists.ids' holds 48 indices for lengths that add up to 90",
        ),
    ],
)
def test_a_report_render_cannot_use_is_one_line_naming_file_and_key(tmp_path, monkeypatch, capsys, damage, expected):
    document = _report(tmp_path, monkeypatch)
    damage(document)
    monkeypatch.chdir(tmp_path)
    Path("report.json").write_text(json.dumps(document))
    assert main(["render", "report.json", "--out", "out"]) == 2
    assert _error(capsys) == f"ragreport: error: {expected}"
    assert not (tmp_path / "out").exists()


def test_malformed_json_and_other_files_are_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("broken.json").write_text('{"schema": "ragreport/1",\n "runs": [}')
    assert main(["render", "broken.json"]) == 2
    assert _error(capsys).startswith("ragreport: error: broken.json:2: expected a report.json written by ragreport")
    Path("list.json").write_text("[1, 2]")
    assert main(["render", "list.json"]) == 2
    assert (
        _error(capsys)
        == "ragreport: error: list.json:1: expected a report.json with schema 'ragreport/4' or 'ragreport/3' or "
        "'ragreport/2' or 'ragreport/1', got 'list'"
    )


def test_render_refuses_a_folder_it_did_not_build_and_leaves_it_untouched(tmp_path, monkeypatch, capsys):
    _report(tmp_path, monkeypatch)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert main(["render", str(tmp_path / "site" / "report.json"), "--out", str(mine)]) == 2
    assert f"{mine / 'notes.txt'} was not written by ragreport build" in _error(capsys)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--format", "csv", "--out", "x"], "--format prints to stdout; give it without --out and --single-file"),
        (["-q"], "-q goes with --format csv"),
        (["-q", "--format", "latex"], "-q goes with --format csv"),
    ],
)
def test_render_option_clashes(tmp_path, monkeypatch, capsys, options, expected):
    _report(tmp_path, monkeypatch)
    assert main(["render", str(tmp_path / "site" / "report.json"), *options]) == 2
    assert _error(capsys) == f"ragreport: error: {expected}"


def test_the_document_score_prints_renders_the_site_build_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "built", "--quiet", "-k", "3", "--metrics", "Rprec"]) == 0
    assert main(["score", "--format", "json", "--quiet", "-k", "3", "--metrics", "Rprec"]) == 0
    Path("scored.json").write_text(capsys.readouterr().out)
    assert main(["render", "scored.json", "--out", "rendered", "--quiet"]) == 0
    assert site_files(tmp_path / "rendered") == site_files(tmp_path / "built")


def test_a_relevance_level_and_a_comparison_family_render_byte_for_byte(trec, tmp_path, monkeypatch, capsys):
    qrels, runs = trec
    options = ["--qrels", str(qrels), *map(str, runs[:3]), "--relevance-level", "2", "--metrics", "nDCG@10,RR@10"]
    built, rendered = _build_then_render(tmp_path, monkeypatch, capsys, *options)
    _same(tmp_path, built, rendered)
    stored = json.loads((built / "report.json").read_text())
    assert stored["settings"]["conventions"]["relevance_level"] == 2
    assert {c["metric"] for c in stored["comparisons"]} == {"nDCG@10", "RR@10"}  # the family only


def test_an_audit_renders_byte_for_byte(trec, tmp_path, monkeypatch, capsys):
    # Human labels for 20 of the queries: the model's, with every fifth pair's grade moved by one.
    qrels, runs = trec
    lines = [line.split() for line in qrels.read_text().splitlines()]
    audited = sorted({q for q, _, _, _ in lines})[:20]
    audit = tmp_path / "human.qrels"
    audit.write_text(
        "".join(
            f"{q} 0 {d} {(int(g) + 1) % 3 if i % 5 == 0 else g}\n"
            for i, (q, _, d, g) in enumerate(lines)
            if q in audited
        )
    )
    built, rendered = _build_then_render(
        tmp_path, monkeypatch, capsys, "--qrels", str(qrels), *map(str, runs[:2]), "--audit", str(audit)
    )
    _same(tmp_path, built, rendered)
    document = json.loads((rendered / "report.json").read_text())
    assert document["audit"]["source"] == "human.qrels" and document["audit"]["queries"] == 20
    # Every metric of the family at K, for each run and each comparison, rendered the same.
    family = [c["metric"] for c in document["comparisons"]]
    assert all(list(figures) == family for figures in document["audit"]["runs"].values())
    assert [c["metric"] for c in document["audit"]["comparisons"]] == family
    # The headline leads with the corrected difference: over the audited queries both runs scored.
    assert 0 < document["headline"][0]["corrected_by"] <= len(audited)


def test_a_report_made_before_a_metric_existed_renders_without_it_and_says_so_once(tmp_path, monkeypatch, capsys):
    # docs/conventions.md section 26: a metric the stored report does not hold is left out of its
    # pages, said once (a limit on the run's page), never a refusal; the others are as built
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "built", "--quiet"]) == 0
    report = json.loads((tmp_path / "built" / "report.json").read_text())
    (tmp_path / "old.json").write_text(json.dumps(without_metric(report, "CP")))
    assert main(["render", "old.json", "--out", "rendered", "--quiet"]) == 0
    pages = {p.name: p.read_text() for p in (tmp_path / "rendered").glob("*.html")}
    assert pages and not any(
        "CP@5" in text.replace("No CP@5", "").replace("before CP@5", "") for text in pages.values()
    )
    said = [name for name, text in pages.items() if "before CP@5 joined the suite" in text]
    assert said == ["run-sample.html"]
    again = json.loads((tmp_path / "rendered" / "report.json").read_text())
    kept = report["runs"][0]["metrics"]
    assert set(again["runs"][0]["metrics"]) == {label for label in kept if not label.startswith("CP@")}
    for label, figure in again["runs"][0]["metrics"].items():
        assert (figure["mean"], figure["low"], figure["high"]) == (
            kept[label]["mean"],
            kept[label]["low"],
            kept[label]["high"],
        )
    # and as --previous: the drift of the metrics both hold, the missing one said once
    assert main(["build", "--out", "later", "--previous", "old.json", "--quiet"]) == 0
    drift = json.loads((tmp_path / "later" / "report.json").read_text())["drift"]
    assert "CP@5 is not in the previous report: it has no drift." in drift["notes"]
    assert {row["metric"] for row in drift["rows"]} == {label for label in kept if not label.startswith("CP@")}


def test_a_report_holding_a_metric_the_catalogue_no_longer_has_renders_without_it(tmp_path, monkeypatch):
    # the other way round: a report made when the suite held one more metric ("XX", since removed)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "built", "--quiet"]) == 0
    report = json.loads((tmp_path / "built" / "report.json").read_text())
    run = report["runs"][0]
    run["metrics"]["XX@5"] = dict(run["metrics"]["P@5"])
    run["sweep"]["XX"] = run["sweep"]["P"]
    run["queries"]["XX@5"] = run["queries"]["P@5"]
    (tmp_path / "newer.json").write_text(json.dumps(report))
    assert main(["render", "newer.json", "--out", "rendered", "--quiet"]) == 0
    assert (tmp_path / "rendered" / "index.html").read_bytes() == (tmp_path / "built" / "index.html").read_bytes()
    assert main(["build", "--out", "later", "--previous", "newer.json", "--quiet"]) == 0
    drift = json.loads((tmp_path / "later" / "report.json").read_text())["drift"]
    assert drift["comparable"] and not [n for n in drift["notes"] if "XX" in n]
