"""Where the audit of a model judge shows (issue 22; docs/conventions.md section 25.10): the index's
Labels section, a run page's Labels block and the terminal's block. Every figure is checked against
report.json's ``audit``, formatted here by hand (never by the wording's own formatters)."""

from __future__ import annotations

import html
import json
import re

import pytest
from sitetools import INJECTIONS, audit_qrels, new_user_inputs, read_page

from ragreport.cli import main

BAD = INJECTIONS[0]  # "<img src=x onerror=alert(1)>": no slash, so a file name may hold it


def _build(root, *, audit: bool = True, runs: int = 4, hostile: bool = False, extra=()):
    args = new_user_inputs(root, queries=60, depth=12)
    trec = [a for a in args if a.endswith(".trec")]
    keep = [a for a in args if not a.endswith(".trec")] + trec[:runs]
    if hostile:
        (root / f"{trec[1][:-5]}.meta.toml").write_text(f"name = {json.dumps(BAD + ' run')}\n")
    if audit:
        keep += ["--audit", str(audit_qrels(root, 20, name=f"{BAD}.qrels" if hostile else "human.qrels"))]
    out = root / "site"
    assert (
        main(["build", *keep, *extra, "--resamples", "200", "--permutations", "300", "--out", str(out), "--quiet"]) == 0
    )
    return out


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("audited"))


def _section(source: str, anchor: str = 'id="labels"') -> str:
    start = source.index(f"<section {anchor}")
    return source[start : source.index("</section>", start)]


def _three(text: str) -> str:
    return f"{text:.3f}"


def _signed(value: float) -> str:
    """A difference as the report writes it: its sign, three decimals, and 0.000 for one that rounds to zero."""
    text = f"{value:+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text


def _band(low: float, high: float, sign: str = "") -> str:
    if sign:
        return f"[{_signed(low)}, {_signed(high)}]"
    return f"[{low:.3f}, {high:.3f}]"


def test_the_section_shows_with_an_audit_and_not_without(audited, tmp_path):
    page = read_page(audited / "index.html")
    assert '<section id="labels"' in page.source
    nav = [a.get("href") for a in page.attrs_of("a")]
    assert "index.html#labels" in nav  # in the pages' navigation
    run_page = read_page(audited / "run-bm25-rerun.html")
    assert 'id="bm25-rerun-labels"' in run_page.source and "index.html#labels" in run_page.source
    plain = _build(tmp_path, audit=False)
    for name in ("index.html", "run-bm25-rerun.html"):
        source = (plain / name).read_text()
        assert 'id="labels"' not in source and "-labels" not in source and "#labels" not in source


def test_the_agreement_figures_are_report_jsons(audited):
    audit = json.loads((audited / "report.json").read_text())["audit"]
    section = _section((audited / "index.html").read_text())
    facts = {
        html.unescape(label): (value, html.unescape(note or ""))
        for label, value, note in re.findall(
            r'<span class="label">(.*?)</span><span class="value">(.*?)</span>(?:<span class="note">(.*?)</span>)?',
            section,
        )
    }
    kappa = facts["Cohen's kappa (relevant or not)"]
    assert kappa == (_three(audit["kappa"]), f"95% band {_band(audit['kappa_low'], audit['kappa_high'])}")
    weighted = facts["Weighted kappa (grades, quadratic)"]
    assert weighted == (
        _three(audit["weighted_kappa"]),
        f"95% band {_band(audit['weighted_low'], audit['weighted_high'])}",
    )
    assert facts["Pairs both judged"][0] == f"{audit['pairs']:,}"
    # the file's name is the user's word: isolated (FSI ... PDI), as every name on the pages is
    assert facts["Audited queries"] == (str(audit["queries"]), f"\u2068{audit['source']}\u2069")
    assert facts["Top-K slots read differently"] == (
        f"{audit['disagreement']:.1%}",
        f"of {audit['slots']:,} top-10 slots on audited queries",
    )
    assert audit["tau"] is not None  # four runs
    assert facts["Kendall's tau of the runs' orderings"][0] == f"{audit['tau']:+.3f}"


def test_the_heat_map_holds_report_jsons_confusion_and_sums_to_the_pairs(audited):
    audit = json.loads((audited / "report.json").read_text())["audit"]
    section = _section((audited / "index.html").read_text())
    cells = re.findall(
        r'<td class="num heat shade-(\d)( agree)?" title="model grade (\d+), human grade (\d+): [^"]*">([\d,]+)</td>',
        section,
    )
    grades = sorted(audit["confusion"], key=int)
    assert len(cells) == len(grades) ** 2
    found = {(m, h): int(count.replace(",", "")) for _, _, m, h, count in cells}
    assert found == {(m, h): audit["confusion"][m][h] for m in grades for h in grades}
    assert sum(found.values()) == audit["pairs"]
    # the diagonal is marked (outlined), and only it; an empty cell is unshaded, a full one shaded
    assert {(m, h) for _, agree, m, h, _ in cells if agree} == {(g, g) for g in grades}
    assert all((shade == "0") == (count == "0") for shade, _, _, _, count in cells)
    # each row's largest share is its darkest cell (the shade is by share of the row)
    for m in grades:
        row = [(int(count.replace(",", "")), int(shade)) for shade, _, mm, _, count in cells if mm == m]
        assert max(row)[1] == max(s for _, s in row)


FIGURE = r'<span class="mean">(.*?)</span> <span class="band-small">(.*?)</span>'
VERDICT = FIGURE + r' <span class="says">(.*?)</span>'


def _tables(section: str, css: str, cell: str) -> tuple[dict, dict]:
    """The open table's rows and the long table's (every metric, a group per run), as
    {(run, metric): [cells]}: each a tuple of the cell pattern's groups."""
    tables = re.findall(rf'<table class="{css}( labels-long)?">(.*?)</table>', section, re.S)
    flat, long = {}, {}
    for is_long, body in tables:
        if not is_long:
            for run, metric, rest in re.findall(
                r'<th scope="row" class="name"><bdi>(.*?)</bdi></th><td class="metric"[^>]*>(.*?)</td>(.*?)</tr>',
                body,
                re.S,
            ):
                flat[(html.unescape(run), metric)] = re.findall(cell, rest)
            continue
        for group in body.split('<tr class="group">')[1:]:
            run = html.unescape(re.search(r"<bdi>(.*?)</bdi>", group).group(1))
            for metric, rest in re.findall(r'<th scope="row" class="metric">(.*?)</th>(.*?)</tr>', group, re.S):
                long[(run, metric)] = re.findall(cell, rest)
    return flat, long


def test_the_runs_and_comparisons_are_report_jsons(audited):
    document = json.loads((audited / "report.json").read_text())
    audit = document["audit"]
    primary = document["primary"] if isinstance(document.get("primary"), str) else "nDCG@10"
    section = _section((audited / "index.html").read_text())
    flat, long = _tables(section, "labels-runs", FIGURE)
    expected = {(run, metric) for run, metrics in audit["runs"].items() for metric in metrics}
    # the primary metric's row per run open; every metric in the expander when there are others
    assert set(flat) == {key for key in expected if key[1] == primary}
    assert set(long) == (expected if len(expected) > len(flat) else set())
    for (run, metric), figures in {**flat, **long}.items():
        entry = audit["runs"][run][metric]
        sides = ("model", "human", "corrected")
        assert figures == [(_three(entry[s]["mean"]), _band(entry[s]["low"], entry[s]["high"])) for s in sides]
    words = {
        "better": "▲ better",
        "worse": "▼ worse",
        "band above 0": "band above 0, not significant",
        "band below 0": "band below 0, not significant",
        "unclear": "no clear difference",
        "better below margin": "▲ better, below the margin",
        "worse below margin": "▼ worse, below the margin",
        "equivalent": "practically the same",
    }
    flat, long = _tables(section, "labels-comparisons", VERDICT)
    expected = {(c["run"], c["metric"]): c for c in audit["comparisons"]}
    assert set(flat) == {key for key in expected if key[1] == primary}
    assert set(long) == (set(expected) if len(expected) > len(flat) else set())
    for key, figures in {**flat, **long}.items():
        c = expected[key]
        for (value, band, _), side in zip(figures, ("model", "human", "corrected")):
            assert (value, band) == (_signed(c[side]["delta"]), _band(c[side]["low"], c[side]["high"], "+"))
        assert figures[0][2] == words[c["model"]["verdict"]]
        assert figures[2][2] == words[c["corrected"]["verdict"]]


def test_a_run_page_holds_its_own_rows(audited):
    audit = json.loads((audited / "report.json").read_text())["audit"]
    block = _section((audited / "run-dense-e5.html").read_text(), 'id="dense-e5-labels"')
    for metric, entry in audit["runs"]["dense-e5"].items():
        assert f'<th scope="row" class="metric">{metric}</th>' in block
        for side in ("model", "human", "corrected"):
            assert (
                f'<span class="mean">{_three(entry[side]["mean"])}</span> <span class="band-small">{_band(entry[side]["low"], entry[side]["high"])}</span>'
                in block
            )
    assert "bm25-rerun" not in block  # only its own


def test_a_hostile_run_name_and_audit_file_name_stay_text(tmp_path):
    out = _build(tmp_path, runs=2, hostile=True)
    audit = json.loads((out / "report.json").read_text())["audit"]
    assert audit["source"] == f"{BAD}.qrels" and f"{BAD} run" in audit["runs"]
    for path in out.glob("*.html"):
        page = read_page(path)
        assert BAD not in page.source, path.name
        assert page.attrs_of("img") == []
    index = read_page(out / "index.html")
    section = _section(index.source)
    assert html.escape(f"{BAD}.qrels", quote=False) in section.replace("&#39;", "'")
    assert f"<bdi>{html.escape(BAD + ' run')}</bdi>" in section
    assert f"Audited by \u2068{BAD}.qrels\u2069" in index.text and f"{BAD} run" in index.text


def _score(root, monkeypatch, capsys, fmt="table", hostile=False):
    root.mkdir(exist_ok=True)
    args = new_user_inputs(root, queries=60, depth=12)
    runs = [a for a in args if a.endswith(".trec")]
    if hostile:  # a long run name leaves the figures no room beside it
        (root / f"{runs[1][:-5]}.meta.toml").write_text('name = "a-reranker-with-a-long-descriptive-name"\n')
    keep = ["--qrels", str(root / "qrels.txt"), *runs, "--audit", str(audit_qrels(root, 20))]
    monkeypatch.setenv("COLUMNS", "80")  # the table is as wide as the terminal
    capsys.readouterr()
    assert main(["score", *keep, "--resamples", "200", "--permutations", "300", "--format", fmt]) == 0
    return capsys.readouterr().out


def test_the_terminal_block_fits_80_columns_and_holds_the_primary_metric(tmp_path, monkeypatch, capsys):
    audit = json.loads(_score(tmp_path / "a", monkeypatch, capsys, "json"))["audit"]
    text = _score(tmp_path / "b", monkeypatch, capsys)
    block = text[text.index("Labels: the model judge, audited:") :].split("\n\n")
    assert block[0].startswith("Labels: the model judge, audited:\nAudited by human.qrels on 20 queries")
    assert all(len(line) <= 80 for line in block[0].splitlines())
    lines = block[1].rstrip("\n").splitlines()
    assert lines[0].split() == ["nDCG@10", "model", "(audited)", "human", "(audited)", "corrected", "(all)"]
    assert len(lines) == 1 + len(audit["runs"])
    for line in lines:
        assert len(line) <= 80, line
        if line is lines[0]:
            continue
        name, figures = line.split(None, 1)
        entry = audit["runs"][name]["nDCG@10"]
        sides = ("model", "human", "corrected")
        expected = [f"{_three(entry[s]['mean'])} {_band(entry[s]['low'], entry[s]['high'])}" for s in sides]
        assert figures.split("  ") == expected


def test_a_long_run_name_has_its_own_line_above_its_figures(tmp_path, monkeypatch, capsys):
    text = _score(tmp_path, monkeypatch, capsys, hostile=True)
    block = text[text.index("Labels: the model judge, audited:") :].split("\n\n")[1].rstrip("\n").splitlines()
    assert all(len(line) <= 80 for line in block)
    at = block.index("a-reranker-with-a-long-descriptive-name")
    assert block[at + 1].startswith("    ") and block[at + 1].split()[0][0].isdigit()


def test_the_sample_audited_by_hand_made_human_labels(tmp_path):
    # tests/data/sample_audit.qrels: the sample's 35 judged pairs, a few read otherwise by hand; the
    # docs' gallery builds the same report.
    from pathlib import Path

    human = Path(__file__).parent / "data" / "sample_audit.qrels"
    out = tmp_path / "site"
    assert main(["build", "--audit", str(human), "--out", str(out), "--quiet"]) == 0
    audit = json.loads((out / "report.json").read_text())["audit"]
    assert audit["queries"] == 10 and audit["pairs"] == len(human.read_text().splitlines()) == 35
    section = _section((out / "index.html").read_text())
    counts = [int(c) for c in re.findall(r'<td class="num heat[^"]*" title="[^"]*">(\d+)</td>', section)]
    assert len(counts) == len(audit["confusion"]) ** 2 and sum(counts) == 35
    assert f"{audit['pairs']}</td></tr></tfoot>" in section  # the grand total is the pairs
