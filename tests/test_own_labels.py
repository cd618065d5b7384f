"""One label set, said once (issue 37, item 4): a RAG JSONL run whose rows carry their own
``relevant`` beside ``--qrels``. The qrels win with one note, or ``--labels own`` scores each run
against its own rows; runs scored against two label sets are compared only on the queries both
judge alike (docs/conventions.md section 10).

The files are tests/data/own_labels/ (K = 2 throughout). Worked by hand:

qrels.txt: q1 {d1: 1, d2: 0}, q2 {d3: 2, d4: 1}, q3 {d5: 1}.
tfidf.jsonl's own rows: q1 {d1: 1, d2: 0} (the qrels' very judgments), q2 {d3: 1} (d3 graded 1, not
2; d4 unjudged), q3 ["d6"] (another relevant id).

- bm25.trec (q1 d1 d2, q2 d4 d3, q3 d6 d5) against the qrels: P@2 .5, 1, .5 -> 2/3; RR@2 1, 1, .5
  -> 5/6.
- tfidf (q1 d2 d1, q2 d3 d4, q3 d5 d6) against the qrels: P@2 .5, 1, .5 -> 2/3; RR@2 .5, 1, 1 ->
  5/6; nDCG@2 q1 (1/log2 3) / 1 = 0.63093, q2 (2 + 1/log2 3) / (2 + 1/log2 3) = 1, q3 1 / 1 = 1 ->
  0.87698.
- tfidf against its own rows: P@2 .5, .5, .5 -> 1/2; RR@2 .5, 1, .5 -> 2/3; nDCG@2 q1 0.63093,
  q2 1 / 1 = 1, q3 (1/log2 3) / 1 = 0.63093 -> 0.75395.
- Compared with bm25 on RR@2, one label set: q1 -.5, q2 0, q3 +.5 -> 0 over 3 queries, 1 win, 1 tie,
  1 loss. Two label sets (--labels own): only q1 is judged alike, so 3 queries become 1: .5 - 1 =
  -.5, 0 wins, 0 ties, 1 loss; q2 and q3 are left out as judged differently.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from ragreport import api
from ragreport.cli import main
from ragreport.core.errors import ArgumentError, InputError, RagreportWarning, UsageError
from ragreport.reading.registry import load_runs

DATA = Path(__file__).resolve().parent / "data" / "own_labels"
QRELS, BM25, TFIDF = (str(DATA / name) for name in ("qrels.txt", "bm25.trec", "tfidf.jsonl"))
LOG3 = 1 / math.log2(3)  # the discount at rank 2: 0.6309297535714575

NOTE = (
    f"the 'relevant' labels of {TFIDF} (3 rows) are set aside: every run is scored against {QRELS} "
    "(--labels own scores a run against its own)"
)


def _score(*argv: str, capsys) -> tuple[int, dict, list[str]]:
    status = main(["score", "--no-config", "--format", "json", "-k", "2", "--metrics", "RR@2", *argv])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if status == 0 else {}), err.splitlines()


def _means(document: dict, run: str) -> dict[str, float]:
    found = next(r for r in document["runs"] if r["name"] == run)
    return {m: found["metrics"][m]["mean"] for m in ("P@2", "RR@2", "nDCG@2")}


def test_with_qrels_the_rows_own_labels_are_set_aside_with_one_note_and_the_qrels_scored(capsys):
    status, document, err = _score("--qrels", QRELS, BM25, TFIDF, capsys=capsys)
    assert status == 0
    assert err == [f"ragreport: warning: {NOTE}"]  # one line, for every file
    assert _means(document, "tfidf") == pytest.approx({"P@2": 2 / 3, "RR@2": 5 / 6, "nDCG@2": (LOG3 + 2) / 3})
    assert _means(document, "bm25")["RR@2"] == pytest.approx(5 / 6)
    (c,) = document["comparisons"]
    assert (c["delta"], c["queries"], c["wins"], c["ties"], c["losses"]) == (pytest.approx(0.0), 3, 1, 1, 1)
    assert document["comparison"]["pairs"][0]["same_labels"] is True
    assert "judgments" not in document["runs"][1]  # one label set: the report's


def test_two_such_files_are_named_in_the_one_note(tmp_path, capsys):
    other = tmp_path / "dense.jsonl"
    other.write_text('{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n', encoding="utf-8")
    status, _, err = _score("--qrels", QRELS, TFIDF, str(other), capsys=capsys)
    assert status == 0
    assert err == [f"ragreport: warning: {NOTE.replace('(3 rows)', f'(3 rows), {other} (1 row)')}"]


def test_labels_own_scores_the_jsonl_against_its_rows_and_a_trec_run_against_the_qrels(capsys):
    status, document, err = _score("--qrels", QRELS, "--labels", "own", BM25, TFIDF, capsys=capsys)
    assert status == 0 and err == []  # nothing set aside: nothing to note
    assert _means(document, "tfidf") == pytest.approx({"P@2": 1 / 2, "RR@2": 2 / 3, "nDCG@2": (2 * LOG3 + 1) / 3})
    assert _means(document, "bm25") == pytest.approx(
        {"P@2": 2 / 3, "RR@2": 5 / 6, "nDCG@2": (1 + (1 + 2 * LOG3) / (2 + LOG3) + LOG3) / 3}
    )
    # Two label sets: compared on the one query both judge alike, the others left out and said.
    (c,) = document["comparisons"]
    assert (c["delta"], c["queries"], c["wins"], c["ties"], c["losses"]) == (-0.5, 1, 0, 0, 1)
    (pair,) = document["comparison"]["pairs"]
    assert pair["queries"] == 1 and pair["same_labels"] is False
    assert pair["notes"][0] == (
        "tfidf was judged against another label set than bm25: they are compared on the 1 query both "
        "judged alike (the same ids at the same grades), so that a difference is retrieval's, not "
        "labelling's. Left out: 2 judged differently (q2, q3)."
    )
    tfidf = next(r for r in document["runs"] if r["name"] == "tfidf")
    assert "judgments" in tfidf  # its own label set kept beside the report's


def test_runs_judged_differently_on_every_shared_query_are_not_compared(tmp_path, capsys):
    own = tmp_path / "own.jsonl"
    own.write_text(
        "".join(
            json.dumps({"id": q, "retrieved": ["d1", "d9"], "relevant": ["d9"]}) + "\n" for q in ("q1", "q2", "q3")
        ),
        encoding="utf-8",
    )
    status, document, _ = _score("--qrels", QRELS, "--labels", "own", BM25, str(own), capsys=capsys)
    assert status == 0 and document["comparisons"] == []
    assert document["comparison"]["pairs"][0]["notes"] == [
        "own was judged against another label set than bm25, and differently on every query both scored "
        "(q1, q2, q3): it is not compared."
    ]
    assert document["headline"][0]["sentence"] == (
        "own and bm25 were judged differently on every query both scored: they cannot be compared."
    )


def test_labels_own_still_needs_qrels_for_a_run_without_labels_of_its_own(capsys):
    status, _, err = _score("--labels", "own", BM25, TFIDF, capsys=capsys)
    assert status == 2
    assert err == [f"ragreport: error: {BM25}: a TREC run needs judgments: give them with --qrels FILE"]


def test_a_file_whose_rows_carry_labels_on_some_lines_only_is_refused_naming_the_line(tmp_path):
    run = tmp_path / "r.jsonl"
    run.write_text(
        '{"id": "a", "retrieved": ["d1"], "relevant": ["d1"]}\n{"id": "b", "retrieved": ["d1"]}\n', encoding="utf-8"
    )
    for labels in ("qrels", "own"):
        with pytest.raises(InputError) as caught:
            load_runs([run], qrels=QRELS, labels=labels)
        assert str(caught.value) == (
            f"{run}:2: expected 'relevant' ids for query 'b', as line 1 carries (a file's rows all or none), "
            "got no 'relevant' key"
        )


def test_a_jsonl_without_labels_of_its_own_is_noted_nothing_under_either(capsys, tmp_path):
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"id": "q1", "retrieved": ["d2", "d1"]}\n', encoding="utf-8")
    for labels in ("qrels", "own"):
        status, document, err = _score("--qrels", QRELS, "--labels", labels, str(plain), capsys=capsys)
        assert status == 0 and err == []
        # q1's d1 at rank 2 (.5); q2 and q3, judged but not in the run, score 0 (--missing zero)
        assert _means(document, "plain")["RR@2"] == pytest.approx(0.5 / 3)


def test_the_config_file_key_is_the_option(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ragreport.toml").write_text(
        f'runs = ["{BM25}", "{TFIDF}"]\nqrels = "{QRELS}"\nlabels = "own"\nk = 2\nmetrics = ["RR@2"]\n'
    )
    assert main(["score", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and _means(json.loads(out), "tfidf")["RR@2"] == pytest.approx(2 / 3)
    (tmp_path / "ragreport.toml").write_text('labels = "mine"\n')
    assert main(["score"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        'ragreport: error: ragreport.toml:1: key \'labels\': expected one of "qrels", "own", got "mine"'
    ]


def test_the_api_takes_labels_and_warns_the_note_in_its_own_spelling():
    with pytest.warns(RagreportWarning) as caught:
        (bm25, tfidf) = api.evaluate([BM25, TFIDF], qrels=QRELS, k=2)
    assert [str(w.message) for w in caught] == [NOTE.replace("--labels own", "labels='own'")]
    assert tfidf.at_k["RR@2"].mean == pytest.approx(5 / 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no note: nothing set aside
        bm25, tfidf = api.evaluate([BM25, TFIDF], qrels=QRELS, k=2, labels="own")
    assert tfidf.at_k["RR@2"].mean == pytest.approx(2 / 3) and bm25.at_k["RR@2"].mean == pytest.approx(5 / 6)
    report = api.analyse([bm25, tfidf])
    (pair,) = report.comparison.runs
    assert pair.pairing.query_ids.tolist() == ["q1"] and pair.pairing.judged_apart == ("q2", "q3")
    with pytest.raises(ArgumentError, match=r"^labels must be one of qrels, own, got 'mine'$"):
        api.evaluate([TFIDF], qrels=QRELS, labels="mine")


def test_without_qrels_each_jsonl_is_scored_against_its_own_as_before():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (tfidf,) = api.evaluate([TFIDF], k=2)
    assert tfidf.at_k["RR@2"].mean == pytest.approx(2 / 3)
    with pytest.raises(UsageError, match="a TREC run needs judgments"):
        api.evaluate([BM25], k=2, labels="own")


def test_a_stored_report_compares_the_same_queries_again():
    # render and --previous read report.json: each run keeps its own label set there, so the
    # pairing made again leaves out the same queries
    report = api.analyse(list(api.evaluate([BM25, TFIDF], qrels=QRELS, k=2, labels="own")))
    (pair,) = api.reanalyse(api.document(report)).comparison.runs
    assert pair.pairing.query_ids.tolist() == ["q1"] and pair.pairing.judged_apart == ("q2", "q3")
