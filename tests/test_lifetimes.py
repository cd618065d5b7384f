"""What ``ragreport build`` lets go, and that the report is the same without it (docs/conventions.md
section 22.9): the lists cut to the depth the report reads once each run is scored."""

from __future__ import annotations

import json

import numpy as np

from ragreport.analysis.evaluation import evaluate_runs
from ragreport.api import analyse
from ragreport.cli import main
from ragreport.output.exports.reportjson.write import report_document


def _files(tmp_path, queries: int = 30, depth: int = 40):
    rng = np.random.default_rng(11)
    qrels, runs = [], []
    for q in range(queries):
        for d in rng.choice(60, size=8, replace=False):
            qrels.append(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n")
    for name in ("base", "cand"):
        lines = []
        for q in range(queries):
            ids = rng.choice(60, size=depth, replace=True)  # repeats too: a head keeps their count
            lines += [f"q{q} Q0 d{d} {r + 1} {depth - r}.{q} {name}\n" for r, d in enumerate(ids)]
        path = tmp_path / f"{name}.run"
        path.write_text("".join(lines))
        runs.append(str(path))
    (tmp_path / "q.qrels").write_text("".join(qrels))
    return str(tmp_path / "q.qrels"), runs


def test_lists_cut_once_scored_give_the_same_report(tmp_path):
    qrels, runs = _files(tmp_path)
    whole = evaluate_runs(runs, qrels=qrels, k=5)
    cut = evaluate_runs(runs, qrels=qrels, k=5, cut_lists=True)
    for w, c in zip(whole, cut):
        # cut to K: the sweep (to the lists' 40) is scored before the cut and no later step reads past K
        assert int(w.judged.lengths.max()) == 40 and int(c.judged.lengths.max()) == 5
        assert w.sweep.cutoffs.tolist() == c.sweep.cutoffs.tolist() == [*range(1, 21), 25, 30, 40]
        for fact in ("retrieved", "repeats", "relevant_retrieved", "first_relevant"):
            assert getattr(c.judged, fact).tolist() == getattr(w.judged, fact).tolist()
        assert int(c.judged.repeats.sum()) > 0
    a, b = report_document(analyse(whole)), report_document(analyse(cut))
    a.pop("date"), b.pop("date")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_a_measure_that_reads_whole_lists_keeps_them(tmp_path):
    from ragreport.scoring.measures import parse_measures

    qrels, runs = _files(tmp_path, queries=12)
    cut = evaluate_runs(runs, qrels=qrels, k=5, cut_lists=True, measures=parse_measures(["AP"]))
    assert int(cut[0].judged.lengths.max()) == 40


def test_build_writes_the_site_it_wrote_before(tmp_path, monkeypatch):
    # The CLI cuts the lists (and hands memory back); the same site as the library's whole lists.
    from ragreport.cli import commands

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1")
    qrels, runs = _files(tmp_path)
    assert main(["build", "--qrels", qrels, *runs, "--out", str(tmp_path / "cut"), "--quiet"]) == 0
    real = commands._analyse
    monkeypatch.setattr(commands, "_analyse", lambda *a, cut_lists=False, **k: real(*a, **k))
    assert main(["build", "--qrels", qrels, *runs, "--out", str(tmp_path / "whole"), "--quiet"]) == 0
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    names = sorted(str(p.relative_to(cut)) for p in cut.rglob("*") if p.is_file())
    assert names == sorted(str(p.relative_to(whole)) for p in whole.rglob("*") if p.is_file())
    assert {"report.json", "index.html", "run-base.html"} <= set(names)
    for name in names:
        assert (cut / name).read_bytes() == (whole / name).read_bytes(), name
