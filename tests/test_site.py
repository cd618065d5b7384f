"""The built site, read back as a user's browser would get it (no browser here: see test_browser)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import math
import os
import re
from importlib import resources
from pathlib import Path

import pytest
from sitetools import INJECTIONS, read_page, second_sample_run, site_files

from ragreport.analysis.limits import build_day
from ragreport.api import analyse, build, document, evaluate
from ragreport.cli import main
from ragreport.core.errors import UsageError, WriteError
from ragreport.output.site import render as site_module
from ragreport.output.site.render import MARKER
from ragreport.reading.registry import sample_path
from ragreport.scoring.catalogue import COMPARED, SUITE

EPOCH = "1790000000"  # 2026-09-21


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "site"
    assert main(["build", "--out", str(out), "--quiet"]) == 0
    return out


def test_the_sample_site_has_every_page_and_companion(sample_site):
    assert sorted(site_files(sample_site)) == [
        MARKER,
        "assets/plotly.min.js",
        "index.html",
        "queries.html",
        "report.json",
        "run-sample.html",
        "summary.md",
    ]


def test_index_shows_every_section_7_figure_with_band_interval_and_convention(sample_site):
    page = read_page(sample_site / "index.html")
    text = page.text
    assert "Hit@5 0.778 [0.453, 0.937]" in text and "Wilson" in text
    assert "R@5 0.676 [" in text
    assert "Distinct relevant ids in the top 5 divided by 5, even when fewer than 5 came back" in text
    assert "as trec_eval's P_5" in text
    for metric in SUITE:
        assert f"{metric.label(5)} " in text
    assert "10 9 1 0 1 5 2026-11-02" in text  # queries, scored, excluded, missing, repeats, K, date
    report = json.loads((sample_site / "report.json").read_text())
    fingerprints = report["runs"][0]["fingerprints"]
    assert fingerprints["queries"] in text and fingerprints["labels"] in text
    assert 'href="run-sample.html"' in page.source


def test_run_page_sections_and_per_query_data(sample_site):
    page = read_page(sample_site / "run-sample.html")
    for heading in ("Summary at K = 5", "K sweep", "Per query", "Conventions", "Honest limits", "Metadata and notes"):
        assert heading in page.text
    (table_id,) = [k for k in page.json_blocks if k.startswith("queries-")]
    data = page.json(table_id)
    assert [row[0] for row in data["rows"]] == [f"q{i:02d}" for i in range(1, 11)]
    status = {row[0]: data["statuses"][row[1]] for row in data["rows"]}
    assert status["q03"] == "late hit" and status["q06"] == "complete miss" and status["q08"] == "excluded"
    top = data["top"]  # columns (conventions 22.6): the slots of q01, q02, ... one after another
    assert len(top["mark"]) == len(top["doc"]) == top["ends"][-1] and len(top["ends"]) == 10
    assert len(top["grade"]) == sum(c >= "4" for c in top["mark"])  # a grade for each judged slot

    def marks(q):
        begin = top["ends"][q - 1] if q else 0
        return [data["marks"][int(c) % 4] for c in top["mark"][begin : top["ends"][q]]]

    assert marks(9)[:3] == ["relevant", "repeat", "relevant"]
    assert data["rows"][9][data["columns"].index("P@5")] == 0.4
    assert set(marks(0)) == {"relevant", "judged non-relevant", "unjudged"}
    # q01 in ragreport/sample/sample.jsonl: kb-101 (grade 2) and kb-102 (1) relevant and judged (4),
    # kb-250 (0) judged non-relevant (5), then two unjudged (2)
    assert [top["ids"][d] for d in top["doc"][: top["ends"][0]]] == ["kb-101", "kb-102", "kb-250", "kb-311", "kb-412"]
    assert top["mark"][:5] == "44522" and top["grade"][:3] == [2, 1, 0]


def test_conventions_section_names_every_switch_and_its_alternative(sample_site):
    """Stated once, on the index; a run page points there."""
    text = read_page(sample_site / "index.html").text
    run_page = read_page(sample_site / "run-sample.html")
    assert "scored under the report's conventions, stated once on the overview" in run_page.text
    assert any(a.get("href") == "index.html#conventions" for a in run_page.attrs_of("a"))
    assert "--gain linear" not in run_page.text
    for switch in (
        "--denominator relevant",
        "--gain linear",
        "--missing zero",
        "--order score",
        "--confidence 0.95 --resamples 1000 --seed 0",
    ):
        assert switch in text
    assert "With --denominator min they would divide by min(R, K)" in text
    assert "With --missing skip such queries would be left out of every average" in text
    assert "Precision@K always divides by K" in text and "A repeated id keeps its rank slot" in text


def test_honest_limits_shown_are_exactly_those_that_apply(sample_site):
    page = read_page(sample_site / "run-sample.html")
    keys = [a["data-limit"] for a in page.attrs_of("li") if "data-limit" in a]
    assert keys == ["unjudged", "scope", "k_dependence", "query_weights", "small_sample", "excluded", "repeats"]
    text = page.text
    assert "18 of the 42 filled top-5 slots of the scored queries (repeats aside; 42.9%) hold ids that nobody" in text
    assert "1 query (q09) has more relevant ids than K = 5" in text
    assert "9 scored queries certify very little" in text and "between 0.453 and 0.937" in text
    assert "model judge" not in text and "no single top-K" not in text.lower()


def test_metadata_table_and_sanitised_notes(sample_site):
    page = read_page(sample_site / "run-sample.html")
    assert "label_source human" in page.text and "corpus help-centre snapshot 2026-10" in page.text
    assert "<strong>preloaded sample</strong>" in page.source


def test_every_page_has_a_csp_that_hashes_its_own_inline_code_and_forbids_fetches(sample_site, tmp_path):
    single = tmp_path / "one.html"
    assert main(["build", "--single-file", str(single), "--quiet"]) == 0
    for path in [sample_site / "index.html", sample_site / "run-sample.html", single]:
        page = read_page(path)
        csp = page.csp()
        for directive in (
            "default-src 'none'",
            "connect-src 'none'",
            "font-src 'none'",
            "object-src 'none'",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ):
            assert directive in csp, (path.name, directive)
        # plotly.js unpacked runs as a script (the query view's block is data: it never runs)
        code_blocks = [unpacked(block) for key, block in page.data_blocks.items() if key == "plotly-packed"]
        for code in page.inline_scripts + page.styles + code_blocks:
            digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
            assert f"'sha256-{digest}'" in csp, path.name
        assert "unsafe-inline" not in csp.split("style-src-attr")[0]
        assert "unsafe-eval" not in csp and "http" not in csp
        for tag, attrs in page.tags:
            for name in ("src", "href"):
                assert not attrs.get(name, "").startswith(("http:", "https:", "//")), (tag, attrs)
        assert not page.attrs_of("link") and not page.attrs_of("iframe")


def test_single_file_holds_everything(tmp_path):
    single = tmp_path / "one.html"
    assert main(["build", "--single-file", str(single), "--quiet"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.html"]
    page = read_page(single)
    assert not [a for a in page.attrs_of("script") if "src" in a]
    assert "plotly.js v" in unpacked(page.data_blocks["plotly-packed"])[:300]
    assert not any("plotly.js v" in s[:300] for s in page.inline_scripts)  # carried packed, never twice
    assert 'href="#run-sample"' in page.source and 'id="run-sample"' in page.source
    assert "Hit@5 0.778 [0.453, 0.937]" in page.text and "Honest limits" in page.text


def unpacked(block: str) -> str:
    """What the single file's unpack.js inserts: the data block, base64 then gzip decoded."""
    return gzip.decompress(base64.b64decode(block, validate=True)).decode("utf-8")


def installed_plotly() -> bytes:
    """plotly.min.js as the installed plotly package ships it, read from the package's own file."""
    return (resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()


def test_single_file_carries_the_installed_plotly_js_packed_to_the_byte(tmp_path):
    single = tmp_path / "one.html"
    assert main(["build", "--single-file", str(single), "--quiet"]) == 0
    page = read_page(single)
    block = page.data_blocks["plotly-packed"]
    packed = base64.b64decode(block, validate=True)
    assert packed[:2] == b"\x1f\x8b" and packed[4:8] == b"\0\0\0\0"  # gzip, no time stamp
    assert gzip.decompress(packed) == installed_plotly()
    assert len(block) < 0.45 * len(installed_plotly())  # base64 of gzip: well under half
    (holder,) = [a for a in page.attrs_of("script") if a.get("id") == "plotly-packed"]
    assert holder["type"] == "application/octet-stream"  # data: the browser never runs it
    assert "DecompressionStream" in holder["data-unsupported"]


def test_the_sample_single_file_is_light(tmp_path):
    # 4.9 MB while plotly.js was inlined as it is (4.8 MB of it); about 2.07 MB packed.
    single = tmp_path / "one.html"
    assert main(["build", "--single-file", str(single), "--quiet"]) == 0
    assert single.stat().st_size <= 2_200_000


def test_report_json_is_the_score_document_and_summary_md_has_bands_and_limits(sample_site, capsys):
    assert main(["score", "--format", "json"]) == 0
    assert json.loads((sample_site / "report.json").read_text()) == json.loads(capsys.readouterr().out)
    summary = (sample_site / "summary.md").read_text()
    assert "| Hit@5 | 0.778 | [0.453, 0.937] | Wilson |" in summary
    assert "- **Only 9 scored queries.**" in summary and "- **Repeated ids.**" in summary


def test_two_builds_are_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert main(["build", "--out", str(tmp_path / "a"), "--quiet"]) == 0
    assert main(["build", "--out", str(tmp_path / "b"), "--quiet"]) == 0
    assert main(["build", "--single-file", str(tmp_path / "a.html"), "--quiet"]) == 0
    assert main(["build", "--single-file", str(tmp_path / "b.html"), "--quiet"]) == 0
    assert site_files(tmp_path / "a") == site_files(tmp_path / "b")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


def test_the_date_is_the_metadata_date_else_source_date_epoch(write, tmp_path, monkeypatch):
    run = write("r.jsonl", '{"id": "a", "retrieved": ["x"], "relevant": ["x"]}\n')
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert build_day() == build_day({"SOURCE_DATE_EPOCH": EPOCH})
    assert main(["build", str(run), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    assert "dated 2026-09-21" in read_page(tmp_path / "s" / "index.html").text
    write("r.meta.toml", "date = 2025-01-31\n")
    assert main(["build", str(run), "--out", str(tmp_path / "s"), "--quiet"]) == 0
    assert "dated 2025-01-31" in read_page(tmp_path / "s" / "index.html").text
    with pytest.raises(UsageError):
        build_day({"SOURCE_DATE_EPOCH": "soon"})


def _hostile_inputs(write):
    bad, close = INJECTIONS
    line = {"id": bad, "query": close, "retrieved": [bad, close, "ok"], "relevant": {bad: 2, close: 1}}
    other = {"id": close, "retrieved": ["x"], "relevant": ["x"], "meta": {"k": bad}}
    run = write("hostile.jsonl", json.dumps(line) + "\n" + json.dumps(other) + "\n")
    write(
        "hostile.meta.toml",
        "\n".join(
            [
                f"name = {json.dumps(bad)}",
                f"retriever = {json.dumps(close)}",
                f"judge = {json.dumps(bad)}",
                'label_source = "model"',
                f"{json.dumps(bad)} = {json.dumps(close)}",
                "notes = "
                + json.dumps(
                    f"{bad}\n\n{close}\n\n[x](javascript:alert(1)) <iframe src=x></iframe> "
                    "<p onclick=alert(1) style=color:red>p</p>"
                ),
            ]
        )
        + "\n",
    )
    return run


def test_injection_payloads_render_as_text_everywhere(write, tmp_path):
    run = _hostile_inputs(write)
    out = tmp_path / "site"
    assert main(["build", str(run), "--out", str(out), "--title", INJECTIONS[0], "--quiet"]) == 0
    assert main(["build", str(run), "--single-file", str(tmp_path / "one.html"), "--quiet"]) == 0
    pages = [p for p in out.glob("*.html") if p.name != "queries.html"] + [tmp_path / "one.html"]
    assert len(pages) == 3
    view = read_page(out / "queries.html")  # the title as text; the queries' data packed (base64: inert)
    assert INJECTIONS[0] in view.text and not any(p in view.source for p in INJECTIONS)
    (packed,) = view.data_blocks.values()
    assert INJECTIONS[1] in gzip.decompress(base64.b64decode(packed)).decode()
    for path in pages:
        page = read_page(path)
        for payload in INJECTIONS:
            assert payload not in page.source, path.name
            assert payload in page.text or path.name == "index.html" and INJECTIONS[0] in page.text
        markup = page.source
        for script in page.inline_scripts:
            markup = markup.replace(script, "")
        assert "javascript:" not in markup
        assert "<iframe" not in markup and "onclick" not in markup and "onerror=alert(1)>" not in markup
        for block in page.json_blocks.values():
            assert "<" not in block and ">" not in block
        assert any(
            INJECTIONS[0] in json.dumps(json.loads(b))
            or INJECTIONS[0].replace("<", "&lt;").replace(">", "&gt;") in json.dumps(json.loads(b))
            for b in page.json_blocks.values()
        )
    run_page = read_page(next(out.glob("run-*.html")))
    assert "&lt;img src=x onerror=alert(1)&gt;" in run_page.source
    assert f"{INJECTIONS[0]} {INJECTIONS[1]}" in run_page.text  # an unknown metadata key and its value, as text


def test_chart_labels_escape_names(write, tmp_path):
    run = _hostile_inputs(write)
    summaries = evaluate([run])
    from ragreport.output.site.charts import index_sweep_figure, run_sweep_figure

    for figure in (run_sweep_figure(summaries[0]), index_sweep_figure(summaries)):
        text = json.dumps(figure)
        assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text


def test_single_file_refuses_to_replace_a_file_that_is_not_a_report(tmp_path):
    precious = tmp_path / "notes.html"
    precious.write_text("<html>mine</html>")
    assert main(["build", "--single-file", str(precious), "--quiet"]) == 2
    assert precious.read_text() == "<html>mine</html>"
    report = tmp_path / "report.html"
    assert main(["build", "--single-file", str(report), "--quiet"]) == 0
    assert main(["build", "--single-file", str(report), "--quiet"]) == 0  # an earlier report is replaced


def test_refuses_to_replace_a_folder_that_is_not_a_report(tmp_path):
    precious = tmp_path / "docs"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    assert main(["build", "--out", str(precious), "--quiet"]) == 2
    assert [p.name for p in precious.iterdir()] == ["thesis.tex"]
    assert [p.name for p in tmp_path.iterdir()] == ["docs"]


def test_replaces_an_earlier_build_and_an_empty_folder(tmp_path):
    out = tmp_path / "site"
    out.mkdir()
    second = second_sample_run(tmp_path)
    sample = str(sample_path())
    assert main(["build", sample, str(second), "--out", str(out), "--quiet"]) == 0
    assert (out / "run-sample-reversed.html").is_file()
    assert main(["build", "--out", str(out), "--quiet"]) == 0
    # the earlier build's page of a run this build does not have is gone with the rest of it
    assert not (out / "run-sample-reversed.html").exists() and (out / "index.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reversed.jsonl", "reversed.meta.toml", "site"]
    assert oct(out.stat().st_mode & 0o777) == "0o755"
    # a file the build did not write makes it refuse (docs/conventions.md section 16)
    (out / "stale.html").write_text("mine")
    assert main(["build", "--out", str(out), "--quiet"]) == 2
    assert (out / "stale.html").read_text() == "mine"


def test_a_failed_build_leaves_the_old_site_intact(tmp_path, monkeypatch):
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--quiet"]) == 0
    before = site_files(out)
    written = []
    real = Path.write_bytes

    def failing(self, data):
        written.append(self.name)
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(WriteError, match="No space left on device; the previous one is untouched"):
        build(analyse(evaluate()), out=out)
    monkeypatch.undo()
    assert site_files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_bad_input_writes_nothing(tmp_path, write):
    bad = write("bad.jsonl", "{not json}\n")
    assert main(["build", str(bad), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert not (tmp_path / "out").exists()


def test_several_runs_stand_side_by_side(tmp_path, write):
    qrels = write("qrels.txt", "q1 0 a 1\nq1 0 z 0\nq2 0 b 1\n")  # pooled: Judged@K is shown (section 20.2)
    first = write("bm25.trec", "q1 Q0 a 1 2 t\nq1 Q0 x 2 1 t\nq2 Q0 y 1 2 t\nq2 Q0 b 2 1 t\n")
    second = write("dense.trec", "q1 Q0 x 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 b 1 2 t\n")
    out = tmp_path / "site"
    assert main(["build", "--qrels", str(qrels), str(first), str(second), "--out", str(out), "--quiet"]) == 0
    assert {"run-bm25.html", "run-dense.html", "index.html"} <= set(os.listdir(out))
    page = read_page(out / "index.html")
    # the long form: one cell per metric holding each run's mean and band, a line per run
    assert "each run's mean and band" in page.text
    stacks = re.findall(r'<td class="stack per-run">(.*?)</td>', page.source, flags=re.S)
    assert stacks and all(re.findall(r'<bdi class="run">([^<]*)</bdi>', s) == ["bm25", "dense"] for s in stacks)
    figures = [page.json(k) for k in page.json_blocks if k.startswith("fig-")]
    (figure,) = [f for f in figures if f["layout"]["title"]["text"].startswith("K sweep of every run")]
    assert len(figure["data"]) == len(SUITE) * 2 * 2  # a band and a line per metric and run
    assert [b["label"] for b in figure["layout"]["updatemenus"][0]["buttons"]] == [f"{m.key}@K" for m in SUITE]
    summary = (out / "summary.md").read_text()
    assert "| metric | bm25 | dense | interval |" in summary


def test_the_default_output_folder_is_site(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--quiet"]) == 0
    assert (tmp_path / "site" / "index.html").is_file()


def test_progress_lines_only_on_a_terminal(tmp_path, capsys):
    assert main(["build", "--out", str(tmp_path / "s")]) == 0
    err = capsys.readouterr().err
    assert "reading" not in err and "wrote" in err
    assert main(["build", "--out", str(tmp_path / "s"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_report_json_carries_the_dates(sample_site):
    report = json.loads((sample_site / "report.json").read_text())
    assert report["date"] == "2026-11-02" and report["runs"][0]["date"] == "2026-11-02"


def test_limits_are_in_report_json(sample_site):
    limits = json.loads((sample_site / "report.json").read_text())["runs"][0]["limits"]
    assert [entry["key"] for entry in limits][:2] == ["unjudged", "scope"]
    assert document(analyse(evaluate()))["runs"][0]["limits"] == limits


def test_templates_are_found(sample_site):
    assert (site_module.template_dir() / "base.html").is_file()


def test_the_sample_and_a_second_run_give_a_comparison_with_every_element(tmp_path):
    from sitetools import second_sample_run

    from ragreport.reading.registry import sample_path

    second = second_sample_run(tmp_path)
    out = tmp_path / "site"
    assert main(["build", str(sample_path()), str(second), "-k", "5", "--out", str(out), "--quiet"]) == 0
    page = read_page(out / "index.html")
    text = page.text
    assert "Against the baseline sample" in text
    assert "paired percentile bootstrap" in text and "two-sided paired randomization test" in text
    assert "Holm's step-down method" in text and f"{len(COMPARED)} comparisons are corrected together" in text
    rows = [a for a in page.attrs_of("tr") if a.get("class", "").startswith("verdict-")]
    assert len(rows) == len(COMPARED) + 2  # the comparison's rows, and the two runs' lines first
    report = json.loads((out / "report.json").read_text())
    assert [c["metric"] for c in report["comparisons"]] == [m.label(5) for m in COMPARED]
    assert report["comparison"]["baseline"] == "sample"
    hit = next(c for c in report["comparisons"] if c["metric"] == "Hit@5")
    assert hit["delta"] == 0.0 and (hit["wins"], hit["ties"], hit["losses"]) == (0, 9, 0)  # same ids in the top 3
    rr = next(c for c in report["comparisons"] if c["metric"] == "RR@5")
    assert f"{rr['delta']:+.3f}" in text and f"{rr['p_adjusted']:.3f}" in text
    figures = [page.json(k) for k in page.json_blocks if k.startswith("fig-")]
    titles = [f["layout"]["title"]["text"] for f in figures]  # each run name isolated (FSI ... PDI)
    assert "Per query at K = 5: \u2068sample-reversed\u2069 against \u2068sample\u2069" in titles
    assert "Queries won, tied and lost by \u2068sample-reversed\u2069" in titles
    assert "Gained most on nDCG@5" in text and "Lost most on nDCG@5" in text
    assert 'id="compare-sample-reversed"' in page.source
    run_page = read_page(out / "run-sample-reversed.html")
    assert 'href="index.html#compare-sample-reversed"' in run_page.source
    assert 'href="index.html#compare"' in read_page(out / "run-sample.html").source
    summary = (out / "summary.md").read_text()
    assert "#### Against the baseline sample" in summary and "| sample-reversed | RR@5 |" in summary


def test_runs_on_different_queries_say_so_at_the_top_of_the_comparison(tmp_path, write):
    qrels = write("qrels.txt", "".join(f"q{i} 0 a 1\n" for i in range(6)))
    first = write("one.trec", "".join(f"q{i} Q0 a 1 2 t\n" for i in range(5)))
    second = write("two.trec", "".join(f"q{i} Q0 a 1 2 t\n" for i in range(1, 6)))
    out = tmp_path / "site"
    assert (
        main(
            ["build", "--qrels", str(qrels), str(first), str(second), "--missing", "skip", "--out", str(out), "--quiet"]
        )
        == 0
    )
    text = read_page(out / "index.html").text
    assert (
        "two and one did not score the same queries: they are compared on the 4 both scored. Left out: 1 scored "
        "only by one (q0), 1 only by two (q5)."
    ) in text


def test_a_switch_not_at_its_default_is_said_once_and_marked_where_it_changes_a_figure(tmp_path):
    """--gain exp changes nDCG only: the notice names it, nDCG@5 carries the mark, P@5 does not."""
    assert main(["build", "--gain", "exp", "--out", str(tmp_path / "site"), "--quiet"]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    text = read_page(tmp_path / "site" / "index.html").text
    assert "Not the default conventions: --gain exp. The figures these switches change are marked †" in text
    assert '>nDCG@5<span class="departure" title="Scored under --gain exp (not the default)">†' in index
    assert ">P@5<span" not in index and ">R@5<span" not in index
    assert "† not the default" in text  # the conventions section flags the switch
    run_page = (tmp_path / "site" / "run-sample.html").read_text()
    assert 'nDCG@5<span class="departure"' in run_page and "Not the default conventions: --gain exp" in run_page
    assert "nDCG@5† " in (tmp_path / "site" / "summary.md").read_text()
    # every figure-changing switch changes every metric (missing, no-relevant, order)
    assert main(["build", "--missing", "skip", "--out", str(tmp_path / "skip"), "--quiet"]) == 0
    skipped = (tmp_path / "skip" / "index.html").read_text()
    assert all(f'>{m.label(5)}<span class="departure"' in skipped for m in SUITE)


def test_a_relevance_level_is_named_under_the_headline_and_marks_every_figure(tmp_path):
    """--relevance-level 2 on the sample (grades 0 to 3): R, hits and ranks change, so every metric is marked."""
    assert main(["build", "--relevance-level", "2", "--out", str(tmp_path / "site"), "--quiet"]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    text = read_page(tmp_path / "site" / "index.html").text
    assert "Not the default conventions: --relevance-level 2." in text
    title = 'title="Scored under --relevance-level 2 (not the default)">†'
    assert all(f'>{m.label(5)}<span class="departure" {title}' in index for m in SUITE)
    assert "An id is relevant when its grade is 2 or more (--relevance-level 2, as trec_eval -l 2)" in text
    report = json.loads((tmp_path / "site" / "report.json").read_text())
    run = report["runs"][0]
    assert run["conventions"]["relevance_level"] == 2
    assert run["convention_text"]["relevance_level"].startswith("An id is relevant when its grade is 2 or more")
    default = json.loads((Path(__file__).parent / "data" / "golden" / "sample" / "site" / "report.json").read_text())
    assert run["fingerprints"] == default["runs"][0]["fingerprints"]  # the same labels


def test_the_defaults_carry_no_mark(sample_site):
    for page in ("index.html", "run-sample.html"):
        source = (sample_site / page).read_text()
        assert 'class="departure"' not in source and "Not the default" not in source


def test_a_compared_runs_per_query_table_gives_each_querys_difference_from_the_baseline(tmp_path):
    """q1: the baseline ranks the relevant id 2nd (nDCG@10 = 1/log2 3 = 0.631), the candidate 1st
    (1.0): +0.369; q2: both rank it 1st: 0; the baseline's own table has no such column."""
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "base.trec").write_text("q1 Q0 x 1 2 base\nq1 Q0 a 2 1 base\nq2 Q0 b 1 1 base\n")
    (tmp_path / "cand.trec").write_text("q1 Q0 a 1 2 cand\nq1 Q0 x 2 1 cand\nq2 Q0 b 1 1 cand\n")
    out = tmp_path / "site"
    assert (
        main(
            [
                "build",
                "--qrels",
                str(tmp_path / "qrels.txt"),
                str(tmp_path / "base.trec"),
                str(tmp_path / "cand.trec"),
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    page = read_page(out / "run-cand.html")
    table = next(page.json(k) for k in page.json_blocks if k.startswith("queries-"))
    # the id, the status, the primary metric and its difference first (a phone shows them unscrolled)
    assert table["columns"][:4] == ["id", "status", "nDCG@10", "nDCG@10 minus base"]
    assert table["kinds"][:4] == ["id", "status", "score", "delta"]
    assert {row[0]: row[3] for row in table["rows"]} == {"q1": round(1 - 1 / math.log2(3), 6), "q2": 0.0}
    assert {row[0]: row[2] for row in table["rows"]} == {"q1": 1.0, "q2": 1.0}
    base = read_page(out / "run-base.html")
    base_table = next(base.json(k) for k in base.json_blocks if k.startswith("queries-"))
    assert base_table["columns"][:3] == ["id", "status", "nDCG@10"] and base_table["columns"][-1] == "repeats"
    assert "nDCG@10 minus base" not in base_table["columns"]


@pytest.mark.parametrize("option", ["--single-file", "--comment"])
def test_an_output_naming_a_fifo_is_refused_before_it_is_opened(option, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(UsageError, match=rf"^{option} .*fifo is a FIFO \(named pipe\), not a regular file"):
        if option == "--single-file":
            site_module.write_file(b"<html>", tmp_path / "fifo")  # opened to look for the marker, it would block
        else:
            site_module.write_text_file(tmp_path / "fifo", "text", option)
    assert not (tmp_path / "fifo").is_file()  # not replaced by the rename either
    with pytest.raises(UsageError, match="^--junit /dev/null is a character device, not a regular file"):
        site_module.refuse_special_output(Path("/dev/null"), "--junit")


def test_a_run_page_leads_with_its_verdict_and_the_diagnostics_follow(tmp_path, write):
    # bm25 finds q1's and q2's relevant id second; dense finds q1's first and q2's not at all.
    qrels = write("qrels.txt", "q1 0 a 1\nq2 0 b 1\n")
    first = write("bm25.trec", "q1 Q0 x 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 y 1 2 t\nq2 Q0 b 2 1 t\n")
    second = write("dense.trec", "q1 Q0 a 1 2 t\nq1 Q0 x 2 1 t\nq2 Q0 y 1 2 t\n")
    out = tmp_path / "site"
    args = ["build", "--qrels", str(qrels), str(first), str(second), "--out", str(out), "--quiet"]
    assert main([*args, "--resamples", "100", "--permutations", "100"]) == 0
    index = read_page(out / "index.html").source
    for name in ("dense", "bm25"):
        source = read_page(out / f"run-{name}.html").source
        body = source[source.index("<main") :]
        first_words = re.sub(r"<[^>]+>", "", body[body.index('class="headline-sentence') : body.index("</p>")])
        assert body.index('class="headline-sentence') < body.index('class="lede"') < body.index('class="facts"')
        assert body.index('class="suite-matrix"') < body.index('class="facts"')  # the figures, then counts
        if name == "dense":  # the candidate: the index's headline sentence, word for word
            sentence = re.sub(r"<[^>]+>", "", index[index.index('class="headline-sentence') :].split("</p>")[0])
            assert first_words.split(">", 1)[1] == sentence.split(">", 1)[1]
            assert first_words.split(">", 1)[1].startswith("dense scores ")
        else:  # the baseline: its own figure, nDCG@10 over q1 and q2 is (1/log2(3) + 1/log2(3)) / 2
            assert f"bm25 scores {1 / math.log2(3):.3f} nDCG@10 " in first_words
    # the link to the comparison and the glossary's are two sentences, with a space between them
    assert re.search(r'the baseline</a>\.\s+<a href="index.html#glossary">', read_page(out / "run-dense.html").source)
