"""The text behind the ids end to end: --queries and --corpus into report.json and the run pages'
top K, --text-queries, render byte for byte, and hostile text kept as text."""

from __future__ import annotations

import base64
import gzip
import json

import pytest
from sitetools import INJECTIONS, read_page, site_files

from ragreport.cli import main
from ragreport.output.exports.reportjson.migrate import query_rows

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
    rows = {q["id"]: q for q in query_rows(document, document["runs"][0])}
    assert rows["302"]["query"] == "rivers of france"  # the TREC topic's title
    page = read_page(out / "run-cand.html")
    table = next(page.json(k) for k in page.json_blocks if k.startswith("queries-"))
    at = table["columns"].index("query")
    assert table["columns"][:at] == ["id", "status", "nDCG@10", "nDCG@10 minus base"]  # then the query text
    assert [row[0] for row in table["rows"]] == ["301", "302", "303"] and table["rows"][0][at] == "capital cities"
    assert table["text_rows"] == [0] and table["with_texts"] is True and "texts" not in table
    assert page.attrs_of("img") == []
    # The text is stored once: one file of the site's assets, loaded by the run pages and the query view.
    (asset,) = [p for p in (out / "assets").iterdir() if p.name.startswith("texts-")]
    source = asset.read_text()
    assert source.startswith("window.ragreportTexts = ")
    packed = json.loads(source[len("window.ragreportTexts = ") : -2])["data"]
    shared = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert shared["ids"] == ["a", "x", "y"] and shared["titles"][0] == "Paris"
    assert shared["texts"][1] == INJECTIONS[0] and shared["texts"][2] == "y text"
    assert shared["snippet"][0] is not None and shared["snippet"][1:] == [None, None]  # 'a' is 640 characters
    for name in ("run-cand.html", "run-base.html", "queries.html"):
        assert f'<script src="assets/{asset.name}" defer></script>' in (out / name).read_text()
        assert "Paris is the capital" not in (out / name).read_text()
    assert f"assets/{asset.name}" not in (out / "index.html").read_text()


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


def test_the_single_file_holds_the_text_once_for_every_run_and_the_query_view(tmp_path):
    args = write_inputs(tmp_path)
    assert main(["build", *args, "--single-file", str(tmp_path / "one.html")]) == 0
    page = read_page(tmp_path / "one.html")
    assert list(page.data_blocks).count("report-texts") == 1  # one block, which both runs' tables read
    shared = json.loads(gzip.decompress(base64.b64decode(page.data_blocks["report-texts"])))
    assert shared["ids"] == ["a", "b", "x", "y"]
    assert "Paris is the capital" not in page.source  # only gzipped, once


@pytest.mark.slow
def test_a_history_keeps_an_unchanged_text_once(tmp_path):
    args = write_inputs(tmp_path)
    history = tmp_path / "eval"
    for label in ("v1", "v2"):
        assert main(["publish", str(history), *args, "--label", label]) == 0
    assets = sorted(p.name for p in (history / "assets").iterdir())
    assert [a.split("-")[0] for a in assets] == ["docs", "plotly.min.js", "texts"]  # one of each
    for label in ("v1", "v2"):
        folder = history / "reports" / label
        document = json.loads((folder / "report.json").read_text())
        docs = document["texts"]["docs"]
        assert docs == f"../../assets/{assets[0]}"  # named by its path, kept once
        assert not any(p.name.startswith(("texts-", "docs-")) for p in folder.rglob("*"))
        assert f'<script src="../../assets/{assets[2]}" defer></script>' in (folder / "run-cand.html").read_text()
    # render reads the text from the history's file, and refuses one changed since
    again = tmp_path / "again"
    assert main(["render", str(history / "reports" / "v2" / "report.json"), "--out", str(again), "--quiet"]) == 0
    shared = json.loads((history / "assets" / assets[0]).read_text())
    assert shared["a"]["title"] == "Paris" and any(p.name == assets[2] for p in (again / "assets").iterdir())
    (history / "assets" / assets[0]).write_text(json.dumps({**shared, "a": {"title": "Lyon", "text": "x"}}))
    assert main(["render", str(history / "reports" / "v2" / "report.json"), "--out", str(again), "--quiet"]) == 2


@pytest.mark.slow
def test_a_new_users_single_file_with_the_corpus_is_at_most_1_3_times_the_one_without(tmp_path):
    from sitetools import new_user_inputs

    args = new_user_inputs(tmp_path)  # 4 runs x 500 queries, every query's top 10 shown with text
    at = args.index("--corpus")
    without = args[:at] + args[at + 2 :]
    fast = ["--resamples", "100", "--permutations", "100", "--quiet"]
    assert (
        main(["build", *args, *fast, "--out", str(tmp_path / "with"), "--single-file", str(tmp_path / "with.html")])
        == 0
    )
    assert main(["build", *without, *fast, "--single-file", str(tmp_path / "without.html")]) == 0
    with_text, without_text = (tmp_path / "with.html").stat().st_size, (tmp_path / "without.html").stat().st_size
    assert with_text <= 1.3 * without_text, (with_text, without_text)
    # the site: the run pages and the query view carry no text of their own, one file holds it
    pages = {p.name: p.stat().st_size for p in (tmp_path / "with").glob("*.html")}
    shared = [p for p in (tmp_path / "with" / "assets").iterdir() if p.name.startswith("texts-")]
    assert len(shared) == 1 and all(size < shared[0].stat().st_size for size in pages.values()), pages


# --- Text files whose ids match the report's (docs/text-and-slices.md, "Ids that match") ----------


def _score(args, capsys, *extra):
    """``ragreport score`` of ``args`` and ``extra`` as JSON: (exit status, report or None, stderr)."""
    code = main(["score", *args, *extra, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def _without(args, option):
    at = args.index(option)
    return args[:at] + args[at + 2 :]


@pytest.mark.parametrize(
    ("name", "content", "held"),
    [
        (
            "queries.tsv",
            "q301\tcapital cities\nq302\trivers\nq303\tmountains\nq304\tlakes\n",
            "'q301', 'q302', 'q303', ...",
        ),
        ("queries.jsonl", '{"_id": "T1", "text": "capital cities"}\n', "'T1'"),
        ("queries.tsv", "", None),  # an empty file: nothing of its own to show
    ],
)
def test_a_queries_file_matching_no_query_is_one_line_naming_it_and_ids_of_both_sides(
    tmp_path, capsys, name, content, held
):
    (tmp_path / name).write_text(content)
    args = _without(write_inputs(tmp_path), "--corpus")
    at = args.index("--queries") + 1
    args[at] = str(tmp_path / name)
    code, _, err = _score(args, capsys)
    it = "" if held is None else f"it has {held}; "
    assert code == 2 and err == (
        f"ragreport: error: {tmp_path / name} gives the text of none of the report's queries ({it}the report "
        "has '301', '302', '303'): check that both use the same ids\n"
    )


def test_a_queries_file_matching_some_queries_warns_once_with_the_counts(tmp_path, capsys):
    args = _without(write_inputs(tmp_path), "--corpus")
    (tmp_path / "topics.txt").write_text("301\tcapital cities\n999\tnot in the report\n")
    code, report, err = _score(args, capsys)
    assert code == 0 and err == (
        f"ragreport: warning: {tmp_path / 'topics.txt'} gives the text of 1 of the report's 3 queries; "
        "the other 2 have none\n"
    )
    rows = {q["id"]: q.get("query") for q in query_rows(report, report["runs"][0])}
    assert rows == {"301": "capital cities", "302": None, "303": None}


def test_a_topic_file_of_more_queries_than_the_report_says_nothing(tmp_path, capsys):
    args = _without(write_inputs(tmp_path), "--corpus")
    (tmp_path / "topics.txt").write_text(TOPICS + "<top>\n<num> Number: 304\n<title> lakes\n</top>\n")
    assert _score(args, capsys)[::2] == (0, "")


def test_a_corpus_matching_no_document_shown_is_one_line_and_some_a_warning(tmp_path, capsys):
    args = _without(write_inputs(tmp_path), "--queries")
    # shown (K = 10, every query): 301's x, y, a; 302's b; 303's z. The corpus has all but z.
    code, report, err = _score(args, capsys)
    assert code == 0 and sorted(report["texts"]["docs"]) == ["a", "b", "x", "y"]
    assert err == (
        f"ragreport: warning: {tmp_path / 'corpus.jsonl.gz'} gives the text of 4 of the report's 5 documents shown; "
        "the other 1 has none\n"
    )
    (tmp_path / "corpus.tsv").write_text("D1\tone\nD2\ttwo\n")
    args[args.index("--corpus") + 1] = str(tmp_path / "corpus.tsv")
    code, _, err = _score(args, capsys)
    assert code == 2 and err == (
        f"ragreport: error: {tmp_path / 'corpus.tsv'} gives the text of none of the report's documents shown (it has "
        "'D1', 'D2'; the report has 'a', 'b', 'x', ...): check that both use the same ids\n"
    )


def test_a_query_meta_file_matching_no_query_is_one_line_and_some_a_warning(tmp_path, capsys):
    args = _without(_without(write_inputs(tmp_path), "--queries"), "--corpus")
    (tmp_path / "meta.csv").write_text("query_id,topic\n301,geography\n302,geography\n")
    code, _, err = _score(args, capsys, "--query-meta", str(tmp_path / "meta.csv"))
    assert code == 0 and err == (
        f"ragreport: warning: {tmp_path / 'meta.csv'} gives metadata for 2 of the report's 3 queries; "
        "the other 1 has none\n"
    )
    (tmp_path / "meta.csv").write_text("query_id,topic\nT301,geography\n")
    code, _, err = _score(args, capsys, "--query-meta", str(tmp_path / "meta.csv"))
    assert code == 2 and err == (
        f"ragreport: error: {tmp_path / 'meta.csv'} gives metadata for none of the report's queries (it has "
        "'T301'; the report has '301', '302', '303'): check that both use the same ids\n"
    )


def test_from_python_the_same_file_warns_with_a_ragreport_warning_and_refuses_with_a_usage_error(tmp_path):
    from ragreport.api import analyse, evaluate
    from ragreport.core.errors import RagreportWarning, UsageError

    write_inputs(tmp_path)
    results = evaluate([str(tmp_path / "base.trec")], qrels=str(tmp_path / "qrels.txt"))
    (tmp_path / "some.tsv").write_text("301\tcapital cities\n")
    with pytest.warns(RagreportWarning, match=r"some\.tsv gives the text of 1 of the report's 3 queries"):
        analyse(results, queries=tmp_path / "some.tsv")
    (tmp_path / "none.tsv").write_text("q1\tcapital cities\n")
    with pytest.raises(UsageError, match=r"none\.tsv gives the text of none of the report's queries"):
        analyse(results, queries=tmp_path / "none.tsv")


def test_a_classic_trec_topic_file_shows_titles_and_keeps_the_longer_text_for_the_query_view(tmp_path):
    """Robust04's layout (tests/data/topics/): the titles reach the run pages as the query text,
    the description and narrative only the query view's data (folded under the title by the page's
    script) and report.json, which render reads back byte for byte."""
    from pathlib import Path

    (tmp_path / "qrels.txt").write_text("301 0 a 1\n302 0 b 1\n303 0 c 1\n")
    (tmp_path / "run.trec").write_text("301 Q0 a 1 3 r\n302 Q0 x 1 2 r\n303 Q0 c 1 1 r\n")
    topics = Path(__file__).parent / "data" / "topics" / "robust04_topics.txt"
    out, again = tmp_path / "site", tmp_path / "again"
    args = ["--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "run.trec"), "--queries", str(topics)]
    assert main(["build", *args, "--resamples", "100", "--quiet", "--out", str(out)]) == 0
    document = json.loads((out / "report.json").read_text())
    rows = {q["id"]: q["query"] for q in query_rows(document, document["runs"][0])}
    assert rows == {
        "301": "International Organized Crime",
        "302": "Poliomyelitis and Post-Polio",
        "303": "Hubble Telescope Achievements",
    }
    assert document["query_details"]["303"].startswith("Identify positive accomplishments of the Hubble")
    assert "\n\nDocuments are relevant that show" in document["query_details"]["303"]  # the narrative
    blocks = read_page(out / "queries.html").data_blocks
    view = json.loads(
        gzip.decompress(base64.b64decode(next(v for k, v in blocks.items() if k.startswith("queryview"))))
    )
    assert view["queries"]["id"] == ["301", "302", "303"]
    assert view["queries"]["detail"] == [document["query_details"][q] for q in ("301", "302", "303")]
    assert view["words"]["detail"] == "Description and narrative"
    run_page = next(out.glob("run-run*.html")).read_text()
    assert "Poliomyelitis" in run_page and "polio disease" not in run_page  # the run page keeps to titles
    assert main(["render", str(out / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert site_files(out) == site_files(again)
