"""The files the documentation's examples name, made from the repository's test data.

The pages of docs/ and README.md write their commands on the files a user has: ``qrels.txt``,
``bm25.trec``, ``run.jsonl``, ... (:data:`PLACEHOLDERS`). ``tests/test_docs.py`` runs every one of
those commands in a folder :func:`workspace` fills with a file of each name, made here from
tests/data and the generators of tests/sitetools.py. A page that names a file this table lacks
fails that test with the command and ragreport's one-line error: add the name here (what it
stands for, made from test data), or write the example on a name already here.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from sitetools import four_trec_runs

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SAMPLE = ROOT / "ragreport" / "sample" / "sample.jsonl"
#: The queries of the generated runs: enough for slices and bands, few enough to run fast.
QUERIES = 40
#: The runs the examples name, each one of four_trec_runs' runs (a baseline, one with less noise, one
#: with more, one near the baseline), so that comparisons give every kind of verdict.
RUNS = {"bm25": 0, "hybrid": 1, "dense": 2, "candidate": 3}
TOPICS = ("billing", "search")

#: Every file name the documentation's examples read, and what it is (the folder's own reports,
#: ``site/`` and ``last-week/``, are built by :func:`workspace` from these).
PLACEHOLDERS = {
    "qrels.txt": "TREC qrels of 40 queries, grades 0 to 2 (sitetools.four_trec_runs)",
    "graded.txt": "the same graded qrels",
    "bm25.trec": "a TREC run of those queries, the baseline",
    "hybrid.trec": "a better TREC run",
    "dense.trec": "a worse TREC run",
    "candidate.trec": "a TREC run close to the baseline",
    "run.trec": "bm25.trec again",
    "big.trec": "hybrid.trec again (the large-run examples)",
    "parts/": "bm25.trec cut into two partition files of whole queries",
    "runs/": "bm25.trec and hybrid.trec (runs/*.trec)",
    "eval/": "qrels.txt, bm25.trec and candidate.trec (the GitHub Pages workflow's folder)",
    "ci/": "ci/nightly.toml naming ci/bm25.trec and ci/qrels.txt (a config file elsewhere)",
    "run.jsonl": "RAG JSONL: the bundled sample (ragreport/sample/sample.jsonl)",
    "base.jsonl": "RAG JSONL of bm25.trec's top 10, with 'meta': {'topic': ...}",
    "candidate.jsonl": "RAG JSONL of hybrid.trec's top 10, with the same metadata",
    "run.json": "a ranx / pytrec_eval run (tests/data/ranx_run.json)",
    "qrels.json": "its qrels (tests/data/ranx_qrels.json)",
    "topics.txt": "the queries' text, TSV qid<TAB>text",
    "corpus.jsonl.gz": "the documents' text, BEIR corpus.jsonl gzipped",
    "queries-meta.tsv": "per-query metadata, TSV with a header: qid, topic",
    "site/": "the report of bm25.trec and hybrid.trec (ragreport build), for render's examples",
    "last-week/report.json": "an earlier report of hybrid.trec, for --previous",
    "tests/data/": "the checkout's own test data (a link), for the pages that say they run from the checkout",
}


def _lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines() if line.strip()]


def _rag_jsonl(run: Path, qrels: Path, path: Path) -> None:
    """A TREC run's top 10 as RAG JSONL lines carrying their judgments and a topic."""
    judged: dict[str, dict[str, int]] = {}
    for qid, _, doc, grade in _lines(qrels):
        judged.setdefault(qid, {})[doc] = int(grade)
    ranked: dict[str, list[str]] = {}
    for qid, _, doc, _rank, _score, _tag in _lines(run):  # four_trec_runs writes each list in rank order
        ranked.setdefault(qid, []).append(doc)
    lines = [
        {"id": qid, "retrieved": docs[:10], "relevant": judged[qid], "meta": {"topic": TOPICS[i % 2]}}
        for i, (qid, docs) in enumerate(ranked.items())
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def workspace(folder: Path) -> Path:
    """Fill ``folder`` with a file of every name in :data:`PLACEHOLDERS` and return it."""
    qrels, runs = four_trec_runs(folder, queries=QUERIES)
    qrels.rename(folder / "qrels.txt")
    for name, index in RUNS.items():
        runs[index].rename(folder / f"{name}.trec")
    copies = {
        "graded.txt": "qrels.txt",
        "run.trec": "bm25.trec",
        "big.trec": "hybrid.trec",
        "runs/bm25.trec": "bm25.trec",
        "runs/hybrid.trec": "hybrid.trec",
        "eval/qrels.txt": "qrels.txt",
        "eval/bm25.trec": "bm25.trec",
        "eval/candidate.trec": "candidate.trec",
        "ci/qrels.txt": "qrels.txt",
        "ci/bm25.trec": "bm25.trec",
    }
    for target, source in copies.items():
        (folder / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(folder / source, folder / target)
    (folder / "ci" / "nightly.toml").write_text('runs = ["bm25.trec"]\nqrels = "qrels.txt"\nk = 5\n')
    lines = (folder / "bm25.trec").read_text().splitlines(keepends=True)
    half = next(i for i, line in enumerate(lines) if line.split()[0] == str(301 + QUERIES // 2))
    (folder / "parts").mkdir()
    (folder / "parts" / "part-1.trec").write_text("".join(lines[:half]))
    (folder / "parts" / "part-2.trec").write_text("".join(lines[half:]))
    (folder / "tests").mkdir()
    (folder / "tests" / "data").symlink_to(DATA, target_is_directory=True)
    shutil.copy(SAMPLE, folder / "run.jsonl")
    shutil.copy(DATA / "ranx_run.json", folder / "run.json")
    shutil.copy(DATA / "ranx_qrels.json", folder / "qrels.json")
    _rag_jsonl(folder / "bm25.trec", folder / "qrels.txt", folder / "base.jsonl")
    _rag_jsonl(folder / "hybrid.trec", folder / "qrels.txt", folder / "candidate.jsonl")
    qids = sorted({fields[0] for fields in _lines(folder / "qrels.txt")})
    (folder / "topics.txt").write_text("".join(f"{q}\tquery number {q}\n" for q in qids))
    (folder / "queries-meta.tsv").write_text(
        "qid\ttopic\n" + "".join(f"{q}\t{TOPICS[i % 2]}\n" for i, q in enumerate(qids))
    )
    docs = sorted({fields[2] for fields in _lines(folder / "qrels.txt")})
    corpus = "".join(json.dumps({"_id": d, "title": f"Title of {d}", "text": f"The text of {d}."}) + "\n" for d in docs)
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(corpus.encode("utf-8"), mtime=0))
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="1764547200")
    for args in (
        ["build", "--qrels", "qrels.txt", "bm25.trec", "hybrid.trec", "--no-config", "--quiet"],
        ["build", "--qrels", "qrels.txt", "hybrid.trec", "--out", "last-week", "--no-config", "--quiet"],
    ):
        done = subprocess.run([sys.executable, "-m", "ragreport", *args], cwd=folder, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
    # A git repository, for the examples that label a report with the commit: `$(git rev-parse HEAD)`.
    git = dict(env, GIT_AUTHOR_NAME="docs", GIT_AUTHOR_EMAIL="docs@example.org")
    git.update(GIT_COMMITTER_NAME="docs", GIT_COMMITTER_EMAIL="docs@example.org")
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "docs"]):
        subprocess.run(["git", *args], cwd=folder, env=git, check=True, capture_output=True)
    return folder
