"""Datasets by ir_datasets id (docs/conventions.md section 21.6): --qrels, --queries and --corpus
irds:ID, on a small dataset registered from local files in the test (nothing is downloaded)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from ragreport.cli import main

ir_datasets = pytest.importorskip("ir_datasets")

DATA = Path(__file__).parent / "data"


def _register(folder: Path, qrels_download=None) -> str:
    """A dataset of tests/data's qrels, two queries and five documents, under a name of its own."""
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "queries.tsv").write_text("q1\twhat is a tiny test\nq2\tsecond question\n")
    docs = {f"d{i}": f"text of document {i}" for i in range(1, 10)}
    (folder / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in docs.items()))
    name = f"ragreport-test/{uuid.uuid4().hex[:8]}"
    qrels = qrels_download or LocalDownload(str(DATA / "qrels.trec"))
    dataset = Dataset(
        TrecQrels(qrels, {0: "not relevant", 1: "relevant", 2: "highly relevant"}),
        TsvQueries(LocalDownload(str(folder / "queries.tsv"))),
        TsvDocs(LocalDownload(str(folder / "docs.tsv"))),
    )
    ir_datasets.registry.register(name, dataset)
    return name


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))
    return tmp_path


def _report(tmp_path, capsys, *args):
    capsys.readouterr()
    status = main(["score", str(DATA / "ir_datasets_run.trec"), *args, "--format", "json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out)


def test_qrels_by_id_score_and_fingerprint_as_the_file(home, capsys):
    name = _register(home / "files")
    by_id = _report(home, capsys, "--qrels", f"irds:{name}")
    by_file = _report(home, capsys, "--qrels", str(DATA / "qrels.trec"))
    run_id, run_file = by_id["runs"][0], by_file["runs"][0]
    assert run_id["fingerprints"] == run_file["fingerprints"]
    assert run_id["metrics"] == run_file["metrics"]
    assert run_id["judgments_from"] == {"dataset": name, "ir_datasets": ir_datasets.__version__}
    assert "judgments_from" not in run_file


def test_queries_and_the_shown_documents_by_id(home, capsys):
    name = _register(home / "files")
    report = _report(home, capsys, "--qrels", f"irds:{name}", "--queries", f"irds:{name}", "--corpus", f"irds:{name}")
    text = json.dumps(report)
    assert "what is a tiny test" in text and "second question" in text
    assert "text of document 4" in text  # d4 is in q1's top K


def test_an_unknown_dataset_is_one_line(home, capsys):
    assert main(["score", str(DATA / "ir_datasets_run.trec"), "--qrels", "irds:no-such/dataset"]) == 2
    err = capsys.readouterr().err
    assert err == "ragreport: error: --qrels irds:no-such/dataset: ir_datasets knows no such dataset\n"


def test_a_dataset_neither_cached_nor_fetchable_names_the_export_command(home, capsys):
    from ir_datasets.util import RequestsDownload

    name = _register(home / "files", RequestsDownload("http://127.0.0.1:9/qrels.txt"))  # nothing listens there
    assert main(["score", str(DATA / "ir_datasets_run.trec"), "--qrels", f"irds:{name}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"ragreport: error: --qrels irds:{name}: not in the ir_datasets cache"
    )
    assert f"`ir_datasets export {name} qrels`" in err


def test_without_the_extra_irds_is_one_line_saying_what_to_install(home, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets now raises ImportError
    assert main(["score", str(DATA / "ir_datasets_run.trec"), "--qrels", "irds:msmarco-passage/dev/small"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ragreport: error: irds: datasets by id need ir_datasets, which is not installed: "
        "pip install 'ragreport[irds]'\n"
    )


def test_the_official_measures_are_the_ones_ir_datasets_documents():
    """Read from ir_datasets' documentation, which ships with it (no download)."""
    from ragreport.reading.irds import official_measures

    assert official_measures("msmarco-passage/trec-dl-2019") == ("nDCG@10", "RR(rel=2)", "AP(rel=2)")
    assert official_measures("msmarco-passage/dev/small") == ("RR@10",)


def test_a_datasets_official_measures_are_the_default_family(home, capsys, monkeypatch):
    from ragreport.reading import irds

    name = _register(home / "files")
    documented = {name: ("nDCG@10", "RR(rel=2)", "AP(rel=2)")}
    monkeypatch.setattr(irds, "official_measures", lambda dataset: documented[dataset])
    report = _report(home, capsys, "--qrels", f"irds:{name}")
    assert list(report["runs"][0]["measures"]) == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    # --metrics still wins
    named = _report(home, capsys, "--qrels", f"irds:{name}", "--metrics", "P@5")
    assert list(named["runs"][0]["measures"]) == ["P@5"]


def test_a_config_files_irds_value_is_not_a_path(home, capsys, monkeypatch):
    name = _register(home / "files")
    folder = home / "project"
    folder.mkdir()
    (folder / "ragreport.toml").write_text(f'qrels = "irds:{name}"\n')
    monkeypatch.chdir(home)
    report = _report(home, capsys, "--config", str(folder / "ragreport.toml"))
    assert report["runs"][0]["judgments_from"]["dataset"] == name


class _Unfetchable:
    """A download that fails as a mirror does without a network: ir_datasets logs
    ``[WARNING] Download failed`` and draws a progress bar on stderr, then the error is raised."""

    def stream(self):
        from contextlib import contextmanager

        @contextmanager
        def failing():
            ir_datasets.log.easy().warn("Download failed: no network")
            for _ in ir_datasets.log.easy().pbar(range(3), desc="docs_iter"):
                pass
            raise ConnectionError("no network")
            yield  # pragma: no cover

        return failing()

    def path(self, force=True):
        with self.stream():
            pass


@pytest.mark.parametrize("flag", ["--qrels", "--queries", "--corpus", "--audit"])
def test_an_unfetchable_dataset_prints_nothing_of_ir_datasets_own(home, capsys, flag):
    # issue 41: ir_datasets' own "[WARNING] Download failed" lines and its progress bars reached
    # stderr before the one error line
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries

    name = f"ragreport-test/{uuid.uuid4().hex[:8]}"
    ir_datasets.registry.register(
        name, Dataset(TrecQrels(_Unfetchable(), {1: "relevant"}), TsvQueries(_Unfetchable()), TsvDocs(_Unfetchable()))
    )
    args = ["score", str(DATA / "ir_datasets_run.trec"), flag, f"irds:{name}"]
    if flag != "--qrels":
        args += ["--qrels", str(DATA / "qrels.trec")]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith(
        f"ragreport: error: {flag} irds:{name}: not in the ir_datasets cache"
    ), err
