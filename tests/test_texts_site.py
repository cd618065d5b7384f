"""The text behind the ids end to end: --queries and --corpus into report.json and the run pages'
top K, --text-queries, render byte for byte, and hostile text kept as text."""

from __future__ import annotations

import gzip
import json

from sitetools import INJECTIONS, read_page, site_files

from ragreport.cli import main

TOPICS = """<top>
<num> Number: 301
<title> capital cities
</top>
<top>
<num> Number: 302
<title> rivers of france
</top>
<top>
<num> Number: 303
<title> mountains
</top>
"""


def write_inputs(folder):
    """Three TREC queries, two runs; the candidate finds 301's relevant id first where the
    baseline has it third, and is as the baseline on 302 and 303."""
    (folder / "qrels.txt").write_text("301 0 a 1\n302 0 b 1\n303 0 c 1\n")
    base = "301 Q0 x 1 3 base\n301 Q0 y 2 2 base\n301 Q0 a 3 1 base\n302 Q0 b 1 1 base\n303 Q0 z 1 1 base\n"
    cand = "301 Q0 a 1 3 cand\n301 Q0 x 2 2 cand\n301 Q0 y 3 1 cand\n302 Q0 b 1 1 cand\n303 Q0 z 1 1 cand\n"
    (folder / "base.trec").write_text(base)
    (folder / "cand.trec").write_text(cand)
    (folder / "topics.txt").write_text(TOPICS)
    corpus = [
        {"_id": "a", "title": "Paris", "text": "Paris is the capital of France. " * 20},
        {"_id": "x", "title": "", "text": INJECTIONS[0]},
        {"_id": "y", "title": INJECTIONS[1], "text": "y text"},
        {"_id": "b", "title": "Seine", "text": "The Seine flows through Paris."},
        {"_id": "unused", "title": "", "text": "never shown"},
    ]
    (folder / "corpus.jsonl.gz").write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in corpus).encode()))
    return [
        "--qrels",
        str(folder / "qrels.txt"),
        str(folder / "base.trec"),
        str(folder / "cand.trec"),
        "--queries",
        str(folder / "topics.txt"),
        "--corpus",
        str(folder / "corpus.jsonl.gz"),
        "--resamples",
        "100",
        "--permutations",
        "100",
        "--quiet",
    ]


def test_the_queries_and_documents_text_reach_report_json_and_the_pages(tmp_path):
    args = write_inputs(tmp_path)
    out = tmp_path / "site"
    assert main(["build", *args, "--text-queries", "1", "--out", str(out)]) == 0
    document = json.loads((out / "report.json").read_text())
    # 301 is the only query whose nDCG@10 differs: the one the report points at most
    assert document["texts"]["queries"] == ["301"]
    assert sorted(document["texts"]["docs"]) == ["a", "x", "y"]  # 301's top K in either run, nothing else
    assert document["texts"]["docs"]["a"]["title"] == "Paris"
    rows = {q["id"]: q for q in document["runs"][0]["queries"]}
    assert rows["302"]["query"] == "rivers of france"  # the TREC topic's title
    page = read_page(out / "run-cand.html")
    table = next(page.json(k) for k in page.json_blocks if k.startswith("queries-"))
    assert table["columns"][2] == "query"
    assert [row[0] for row in table["rows"]] == ["301", "302", "303"] and table["rows"][0][2] == "capital cities"
    assert table["text_rows"] == [0]
    title, snippet, full = table["texts"]["a"]
    assert title == "Paris" and snippet.endswith("…") and len(snippet) <= 241 and full.startswith(snippet[:-1])
    assert table["texts"]["x"] == ["", INJECTIONS[0], INJECTIONS[0]]
    assert page.attrs_of("img") == []


def test_render_keeps_the_text_byte_for_byte(tmp_path):
    args = write_inputs(tmp_path)
    out, again = tmp_path / "site", tmp_path / "again"
    assert main(["build", *args, "--out", str(out)]) == 0
    assert main(["render", str(out / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert site_files(out) == site_files(again)


def test_no_corpus_no_text_and_zero_text_queries(tmp_path, capsys):
    args = write_inputs(tmp_path)
    without = [a for a in args if a not in ("--corpus", str(tmp_path / "corpus.jsonl.gz"))]
    assert main(["score", *without, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["texts"] is None
    assert main(["score", *args, "--text-queries", "0", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["texts"] == {"queries": [], "docs": {}}


def test_a_bad_corpus_is_one_line(tmp_path, capsys):
    args = write_inputs(tmp_path)
    (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(b'{"_id": "a", "text": "ok"}\n{"title": "no id"}\n'))
    assert main(["score", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ragreport: error: ") and "corpus.jsonl.gz:2: expected an id under one of" in err
    assert len(err.splitlines()) == 1
