"""CSV and LaTeX exports (ragreport/output/exports/tables.py): parsed back and checked against report.json's
figures, and on hand-made documents whose best values and verdicts are known."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess

import pytest
from sitetools import four_trec_runs

from ragreport.cli import main
from ragreport.output.exports.reportjson.migrate import query_rows
from ragreport.output.exports.tables import csv_text, latex_escape, latex_table
from ragreport.scoring.catalogue import SUITE

HOSTILE = "a_b&c%$#{}~^\\"
#: How a cell opens: the mean over its band, in a tabular of its own.
STACK = r"\begin{tabular}[t]{@{}r@{}}"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """report.json of three TREC runs compared, with named measures, and the CSV ``score`` prints."""
    folder = tmp_path_factory.mktemp("export")
    qrels, runs = four_trec_runs(folder, queries=60)
    options = [
        "--qrels",
        str(qrels),
        *map(str, runs[:3]),
        "--metrics",
        "nDCG@10,map,num_ret",
        "--permutations",
        "1000",
        "--quiet",
    ]
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", "1764547200")
        for name, extra in (("json", []), ("csv", []), ("csvq", ["-q"]), ("latex", [])):
            fmt = "csv" if name == "csvq" else name
            buffer = io.StringIO()
            patch.setattr("sys.stdout", buffer)
            assert main(["score", *options, "--format", fmt, *extra]) == 0
            out[name] = buffer.getvalue()
    return json.loads(out["json"]), out


def test_csv_has_a_row_per_run_and_metric_with_report_json_figures_in_full(compared):
    document, out = compared
    rows = _rows(out["csv"])
    assert rows[0] == ["run", "metric", "mean", "low", "high", "interval", "n"]
    body = rows[1:]
    # a measure named with --metrics that is also a suite figure (nDCG@10) is one row, the suite's
    expected = [
        (run["name"], label, {**run["measures"], **run["metrics"]}[label])
        for run in document["runs"]
        for label in dict.fromkeys([*run["metrics"], *run["measures"]])
    ]
    assert len(body) == len(expected) == 3 * (len(SUITE) + 2)
    for row, (name, label, figure) in zip(body, expected):
        assert row[:2] == [name, label]
        for cell, key in zip(row[2:5], ("mean", "low", "high")):
            assert (cell == "" and figure[key] is None) or float(cell) == figure[key]  # repr: exact
        assert row[5] == figure["interval"]
        assert int(row[6]) == next(r for r in document["runs"] if r["name"] == name)["counts"]["scored"]
    num_ret = [row for row in body if row[1] == "NumRet"]
    assert all(row[3] == row[4] == "" and row[5] == "none" for row in num_ret)  # a count has no band
    assert out["csv"].endswith("\r\n")  # RFC 4180 line ends


def test_csv_per_query_has_a_row_per_run_scored_query_and_metric(compared):
    document, out = compared
    rows = _rows(out["csvq"])
    assert rows[0] == ["run", "query", "metric", "value"]
    found = {(r[0], r[1], r[2]): r[3] for r in rows[1:]}
    expected = {}
    for run in document["runs"]:
        labels = list(run["metrics"]) + list(run["measures"])
        for query in query_rows(document, run):
            if query["scored"]:
                expected.update({(run["name"], query["id"], label): query[label] for label in labels})
    assert len(found) == len(rows) - 1 == len(expected)
    assert {key: float(value) for key, value in found.items()} == expected


def test_csv_quotes_as_rfc_4180_and_keeps_names_as_given():
    document = {
        "runs": [
            {
                "name": 'run, "one"\nnext',
                "counts": {"scored": 2},
                "metrics": {"P@5": {"mean": 0.1, "low": 0.05, "high": 0.2, "interval": "bootstrap"}},
                "measures": {},
                "queries": [
                    {"id": "=HYPERLINK(1)", "scored": True, "P@5": 0.2},
                    {"id": "-3", "scored": True, "P@5": 0.0},
                    {"id": "q9", "scored": False, "P@5": None},
                ],
            }
        ]
    }
    text = csv_text(document)
    assert text == 'run,metric,mean,low,high,interval,n\r\n"run, ""one""\nnext",P@5,0.1,0.05,0.2,bootstrap,2\r\n'
    rows = _rows(csv_text(document, per_query=True))
    assert rows[1:] == [['run, "one"\nnext', "=HYPERLINK(1)", "P@5", "0.2"], ['run, "one"\nnext', "-3", "P@5", "0.0"]]


def test_latex_escape_turns_every_special_character_into_text():
    assert latex_escape(HOSTILE) == (r"a\_b\&c\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}")


def _figure(mean, low=None, high=None):
    return {"mean": mean, "low": low, "high": high, "interval": "bootstrap"}


def _document(names, means, verdicts):
    """Runs with nDCG@10 and P@10 means as given (other suite metrics 0.5), and comparisons with the
    verdicts given for ``(run, metric)``."""
    runs = []
    for name, (ndcg, precision) in zip(names, means):
        metrics = {m.label(10): _figure(0.5, 0.4, 0.6) for m in SUITE}
        metrics["nDCG@10"] = _figure(ndcg, ndcg - 0.1, ndcg + 0.1)
        metrics["P@10"] = _figure(precision, precision - 0.05, precision + 0.05)
        runs.append(
            {
                "name": name,
                "k": 10,
                "conventions": {"confidence": 0.95},
                "counts": {"scored": 50},
                "metrics": metrics,
                "measures": {},
            }
        )
    comparisons = [{"run": run, "metric": metric, "verdict": verdict} for (run, metric), verdict in verdicts.items()]
    return {
        "runs": runs,
        "comparisons": comparisons,
        "comparison": {"baseline": names[0], "alpha": 0.05, "correction": "holm"},
        "settings": {"metrics": []},
    }


def _row(text: str, name: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(latex_escape(name) + " & "))
    return [cell.strip() for cell in line.removesuffix(r" \\").split(" & ")]


def test_latex_is_a_booktabs_table_with_bands_bold_best_and_verdict_marks():
    names = ["base_line", HOSTILE, "third"]
    document = _document(
        names,
        [(0.400, 0.300), (0.450, 0.250), (0.420, 0.310)],
        {
            (HOSTILE, "nDCG@10"): "better",
            (HOSTILE, "P@10"): "worse",
            ("third", "nDCG@10"): "band above 0",
            ("third", "P@10"): "unclear",
        },
    )
    text = latex_table(document)
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{l" + "r" * len(SUITE) + "}"):
        assert text.count(rule) == 1
    header = next(line for line in text.splitlines() if line.startswith("Run & "))
    assert header == "Run & " + " & ".join(m.label(10) for m in SUITE) + r" \\"
    columns = [m.label(10) for m in SUITE]
    ndcg, precision = 1 + columns.index("nDCG@10"), 1 + columns.index("P@10")
    hostile, third, base = _row(text, HOSTILE), _row(text, "third"), _row(text, "base_line")
    assert hostile[0] == r"a\_b\&c\%\$\#\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
    assert base[0] == r"base\_line"
    # the best nDCG@10 (0.450) is bold and clearly better; the best P@10 is the third run's 0.310
    assert hostile[ndcg] == STACK + r"\textbf{0.450}$^{\uparrow}$\\ {\scriptsize [0.350, 0.550]}\end{tabular}"
    assert hostile[precision] == STACK + r"0.250$^{\downarrow}$\\ {\scriptsize [0.200, 0.300]}\end{tabular}"
    assert third[precision] == STACK + r"\textbf{0.310}\\ {\scriptsize [0.260, 0.360]}\end{tabular}"
    assert third[ndcg] == STACK + r"0.420\\ {\scriptsize [0.320, 0.520]}\end{tabular}"  # a band-only result has no mark
    assert base[ndcg] == STACK + r"0.400\\ {\scriptsize [0.300, 0.500]}\end{tabular}"
    # a tie at the shown precision is bold on every run; Judged@K is a diagnostic: never bold
    judged = 1 + columns.index("Judged@10")
    recall = 1 + columns.index("R@10")
    assert all(row[recall].startswith(STACK + r"\textbf{0.500}") for row in (hostile, third, base))
    assert not any(r"\textbf" in row[judged] for row in (hostile, third, base))
    caption = re.search(r"\\caption\{(.*)\}\n\\end\{table\}", text).group(1)
    assert r"95\% band" in caption and "over 50 scored queries" in caption
    assert r"$^{\uparrow}$ clearly better, $^{\downarrow}$ clearly worse than base\_line" in caption
    assert "corrected by Holm's method, is below 0.05" in caption


def test_latex_of_one_run_has_no_bold_and_no_marks():
    document = _document(["only"], [(0.4, 0.3)], {})
    document["comparison"] = None  # as report.json has it for one run
    text = latex_table(document)
    assert r"\textbf" not in text and r"\uparrow" not in text


def test_latex_marks_follow_the_comparison_verdicts_of_a_real_report(compared):
    document, out = compared
    text = out["latex"]
    labels = [m.label(10) for m in SUITE] + ["AP", "NumRet"]
    for run in document["runs"]:
        cells = _row(text, run["name"])[1:]
        verdicts = {c["metric"]: c["verdict"] for c in document["comparisons"] if c["run"] == run["name"]}
        for label, cell in zip(labels, cells):
            assert (r"$^{\uparrow}$" in cell) == (verdicts.get(label) == "better"), (run["name"], label)
            assert (r"$^{\downarrow}$" in cell) == (verdicts.get(label) == "worse"), (run["name"], label)
    assert {c["verdict"] for c in document["comparisons"]} & {"better", "worse"}  # the case is not vacuous


def test_latex_compiles_with_a_hostile_run_name(tmp_path):
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            raise RuntimeError("CI must compile the LaTeX table: install texlive-latex-recommended (.ci/run does)")
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended; CI installs it)")
    document = _document([HOSTILE, "b"], [(0.4, 0.3), (0.5, 0.2)], {("b", "nDCG@10"): "better"})
    (tmp_path / "table.tex").write_text(latex_table(document))
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{table.tex}\n\\end{document}\n"
    )
    result = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 0
