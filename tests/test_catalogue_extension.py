"""A metric declared in the catalogue alone reaches every output: a throwaway ninth suite metric.

CONTRIBUTING's "Recipe: add a metric" says one ``Metric`` in ``ragreport/scoring/catalogue.py`` is
all the code a metric needs. These tests hold the package to it: :func:`ninth_metric` imports the
package afresh with one more entry, HalfP@K (half of P@K: compared, with a kernel, a bootstrap
band and a ranx spelling), and nothing else is told about it. The build (through the API and the
command line), the site, every export, records, the comparison of two runs, drift and render
must then show it, with its figure right, and nothing may crash.

Why a fresh import and not a ``monkeypatch`` of the loaded modules: the package binds the
catalogue's tables when it is imported (``from ..scoring.catalogue import SUITE`` in a dozen
modules, ``SUITE`` as a default argument, the name parser's table built from ``CATALOGUE`` in
``scoring/measures.py``). Patching them after the fact would have to find every such binding;
patching the catalogue before anything else reads it is what declaring the entry in the source
does. The modules imported before the test are put back afterwards, so no other test sees it.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
import shutil
import sys
import types
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
KEY = "HalfP"


def _package_modules() -> dict[str, types.ModuleType]:
    return {name: module for name, module in sys.modules.items() if name.split(".")[0] == "ragreport"}


def _declare(catalogue: types.ModuleType, kinds: types.ModuleType):
    """HalfP@K = hits@K / (2K): a fraction in [0, 1/2], as a contributor would declare it."""
    return catalogue.Metric(
        key=KEY,
        name="Half precision (test only)",
        plain="Half the share of the top K that is relevant.",
        interval=kinds.IntervalMethod.BOOTSTRAP,
        kind=kinds.ValueKind.SCORE,
        cutoff=kinds.CutoffRule.REQUIRED,
        ranx=(kinds.Spelling("half_precision"),),
        kernel=lambda s: s.hits / (2 * s.k),
        describe=lambda k, c: f"Distinct relevant ids in the top {k} divided by 2 x {k}.",
    )


@pytest.fixture(scope="module")
def ninth_metric():
    """The package, imported afresh with a ninth suite metric placed after the compared ones.

    The catalogue's own tables (``CATALOGUE``, ``SUITE``, ``COMPARED``, the key index) are rebuilt as
    the module builds them and checked by its ``_check()``; every other module, the name parser's
    table included, is imported after that and reads them as it would read a declared entry.
    Yields a namespace of the fresh modules (``metric``, ``catalogue``, ``measures``, ``api``, ``cli``).
    """
    saved = _package_modules()
    for name in saved:
        del sys.modules[name]
    try:
        catalogue = importlib.import_module("ragreport.scoring.catalogue")
        kinds = importlib.import_module("ragreport.scoring.catalogue")
        metric = _declare(catalogue, kinds)
        entries = list(catalogue.CATALOGUE)
        entries.insert(entries.index(catalogue.COMPARED[-1]) + 1, metric)  # after the compared metrics
        catalogue.CATALOGUE = tuple(entries)
        catalogue.SUITE = tuple(m for m in catalogue.CATALOGUE if m.in_suite)
        catalogue.COMPARED = tuple(m for m in catalogue.CATALOGUE if m.compared)
        catalogue._BY_KEY[metric.key] = metric
        catalogue._check()
        yield types.SimpleNamespace(
            metric=metric,
            catalogue=catalogue,
            measures=importlib.import_module("ragreport.scoring.measures"),
            api=importlib.import_module("ragreport.api"),
            cli=importlib.import_module("ragreport.cli"),
        )
    finally:
        for name in _package_modules():
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture
def two_runs(tmp_path, monkeypatch):
    """trec_eval's test runs (as the golden copies use them), in the working folder."""
    shutil.copy(DATA / "trec_eval_test" / "results.test", tmp_path / "bm25.trec")
    shutil.copy(DATA / "trec_eval_test" / "results.trunc", tmp_path / "trunc.trec")
    shutil.copy(DATA / "trec_eval_test" / "qrels.test", tmp_path / "qrels.test")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    return ["bm25.trec", "trunc.trec", "--qrels", "qrels.test", "--permutations", "500", "--resamples", "100"]


def _run(cli, capsys, *args: str) -> str:
    capsys.readouterr()
    assert cli.main([*args, "--quiet"]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_the_catalogue_and_the_name_parser_take_it(ninth_metric):
    catalogue, measures, metric = ninth_metric.catalogue, ninth_metric.measures, ninth_metric.metric
    assert metric in catalogue.SUITE and metric in catalogue.COMPARED
    assert catalogue.by_key(KEY) is metric and catalogue.COMPARED[-1] is metric
    assert measures.parse_measures(["half_precision@5", "HalfP@3"]) == (
        catalogue.Measure(KEY, 5),
        catalogue.Measure(KEY, 3),
    )
    assert "half_precision@5" in measures.VALID_FORMS and "HalfP@5" in measures.VALID_FORMS
    assert measures.parse_primary("HalfP@10", 10) is metric


def test_the_api_scores_compares_records_and_builds_it(ninth_metric, tmp_path):
    api = ninth_metric.api
    results = api.evaluate(k=5)  # the preloaded sample
    sample = results[0]
    assert sample.at_k["HalfP@5"].mean == pytest.approx(sample.at_k["P@5"].mean / 2)  # 0.333 / 2
    records = {r["metric"]: r for r in results.to_records()}
    assert records["HalfP@5"]["mean"] == pytest.approx(records["P@5"]["mean"] / 2)
    cells = {(r["query"], r["metric"]): r["value"] for r in results.to_records(per_query=True)}
    halves = {q: v for (q, label), v in cells.items() if label == "HalfP@5"}
    assert len(halves) == 10 and halves["q08"] is None  # q08 has no relevant id: left out
    assert all(v == pytest.approx(cells[q, "P@5"] / 2) for q, v in halves.items() if v is not None)

    for name, source in (("bm25", "results.test"), ("trunc", "results.trunc")):
        shutil.copy(DATA / "trec_eval_test" / source, tmp_path / f"{name}.trec")
    runs = [tmp_path / "bm25.trec", tmp_path / "trunc.trec"]
    two = api.evaluate(runs, qrels=DATA / "trec_eval_test" / "qrels.test", k=10)
    report = api.analyse(two, permutations=500)
    compared = [c.metric for c in report.comparison.comparisons]
    assert compared == [m.label(10) for m in ninth_metric.catalogue.COMPARED] and "HalfP@10" in compared
    written = api.build(report, out=tmp_path / "site")
    assert written == [tmp_path / "site"]
    stored = json.loads((tmp_path / "site" / "report.json").read_text("utf-8"))
    assert "HalfP@10" in stored["runs"][0]["metrics"]
    assert "HalfP@10" in [c["metric"] for c in stored["comparisons"]]
    for page in ("index.html", "run-bm25.html", "run-trunc.html"):
        assert "HalfP@10" in (tmp_path / "site" / page).read_text("utf-8"), page


def test_every_format_of_score_prints_it(ninth_metric, two_runs, capsys):
    cli = ninth_metric.cli
    for fmt in ("table", "markdown", "latex"):
        assert "HalfP@10" in _run(cli, capsys, "score", *two_runs, "--format", fmt), fmt
    document = json.loads(_run(cli, capsys, "score", *two_runs, "--format", "json"))
    for run in document["runs"]:
        assert run["metrics"]["HalfP@10"]["mean"] == pytest.approx(run["metrics"]["P@10"]["mean"] / 2)
    assert "HalfP@10" in [c["metric"] for c in document["comparisons"]]
    rows = csv.DictReader(io.StringIO(_run(cli, capsys, "score", *two_runs, "--format", "csv")))
    mean = {(r["run"], r["metric"]): float(r["mean"]) for r in rows}
    assert mean["trunc", "HalfP@10"] == pytest.approx(mean["trunc", "P@10"] / 2)
    rows = csv.DictReader(io.StringIO(_run(cli, capsys, "score", *two_runs, "--format", "csv", "-q")))
    value = {(r["run"], r["query"], r["metric"]): r["value"] for r in rows}
    halves = {key[:2]: v for key, v in value.items() if key[2] == "HalfP@10"}
    assert len(halves) == len({key[:2] for key in value})  # a value for every run and query
    assert all(float(v) == pytest.approx(float(value[(*rq, "P@10")]) / 2) for rq, v in halves.items() if v)


def test_the_command_line_builds_renders_and_drifts_with_it(ninth_metric, two_runs, tmp_path, capsys):
    cli = ninth_metric.cli
    _run(cli, capsys, "build", *two_runs, "--out", "site")
    index = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert "HalfP@10" in index and "HalfP@10" in (tmp_path / "site" / "summary.md").read_text("utf-8")
    assert "HalfP@10" in _run(cli, capsys, "render", "site/report.json", "--format", "markdown")
    _run(cli, capsys, "render", "site/report.json", "--out", "again")
    assert "HalfP@10" in (tmp_path / "again" / "index.html").read_text("utf-8")

    # drift: the same run against the previous report, then against a changed one
    previous = ["--previous", "site/report.json"]
    drift = json.loads(_run(cli, capsys, "score", *two_runs, *previous, "--format", "json"))["drift"]
    assert drift["comparable"] is True and drift["unchanged"] == ["bm25", "trunc"]
    shutil.copy("trunc.trec", "bm25.trec")  # bm25 now returns trunc's lists: its scores move
    drift = json.loads(_run(cli, capsys, "score", *two_runs, *previous, "--format", "json"))["drift"]
    rows = {(r["run"], r["metric"]): r for r in drift["rows"]}
    half, precision = rows["bm25", "HalfP@10"], rows["bm25", "P@10"]
    assert half["delta"] == pytest.approx(precision["delta"] / 2) and half["p"] == pytest.approx(precision["p"])
    _run(cli, capsys, "build", *two_runs, *previous, "--out", "drifted")
    assert "HalfP@10" in (tmp_path / "drifted" / "index.html").read_text("utf-8")


def test_a_history_draws_its_trend(ninth_metric, two_runs, tmp_path, capsys):
    cli = ninth_metric.cli
    _run(cli, capsys, "publish", "history", *two_runs, "--label", "v1")
    _run(cli, capsys, "publish", "history", *two_runs, "--label", "v2")
    assert "HalfP@10" in (tmp_path / "history" / "index.html").read_text("utf-8")
