"""A stored report read back (ragreport/output/exports/reportjson/read.py), and what report.json stores for it
(``runs[].lists``), on hand-worked lists."""

from __future__ import annotations

import base64
import datetime as dt
import json

import pytest

from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.core.model import Conventions, Denominator, Gain, LabelSource, Missing, NoRelevant, Order, RunMeta
from ragreport.output.exports.reportjson.migrate import expanded, query_rows, unpacked
from ragreport.output.exports.reportjson.read import conventions_from, load_report, meta_from, stored_run


def _score_json(tmp_path, capsys, run: str, qrels: str, *options: str) -> dict:
    (tmp_path / "r.trec").write_text(run)
    (tmp_path / "q.trec").write_text(qrels)
    assert (
        main(
            [
                "score",
                str(tmp_path / "r.trec"),
                "--qrels",
                str(tmp_path / "q.trec"),
                "--format",
                "json",
                "--quiet",
                *options,
            ]
        )
        == 0
    )
    return json.loads(capsys.readouterr().out)


RUN = (
    "q1 Q0 d1 1 9 r\nq1 Q0 d2 2 8 r\nq1 Q0 d3 3 7 r\nq1 Q0 d1 4 6 r\nq1 Q0 d4 5 5 r\n"  # d1 twice; d3 relevant at 3
    "q2 Q0 x 1 1 r\n"  # unjudged query
    "q3 Q0 e1 1 2 r\nq3 Q0 e2 2 1 r\n"
)
QRELS = "q1 0 d3 2\nq1 0 d4 1\nq1 0 d2 0\nq3 0 e2 1\nq4 0 f1 1\nq5 0 g1 0\n"


def test_lists_keep_the_top_to_the_deepest_cutoff_and_the_whole_list_facts(tmp_path, capsys):
    packed = _score_json(tmp_path, capsys, RUN, QRELS, "-k", "1,2", "--kmax", "2")
    # ragreport/3: the id column (0 .. 4) and the lists' lengths (min(retrieved, depth)) left out,
    # the lists and the judgments' ids packed (docs/conventions.md section 22.13)
    assert "id" not in packed["runs"][0]["queries"] and "lengths" not in packed["runs"][0]["lists"]
    assert packed["packed"] == {"encoding": "base64", "dtype": "<u1"}  # nine ids: one byte each
    assert packed["runs"][0]["lists"]["ids"] == base64.b64encode(bytes([0, 1, 2, 3, 4])).decode()
    assert packed["judgments"]["ids"] == base64.b64encode(bytes([1, 5, 6, 4, 7, 8])).decode()
    document = unpacked(packed)
    run = document["runs"][0]
    assert document["query_ids"] == ["q1", "q2", "q3", "q4", "q5"]  # run order, then judged only
    assert run["queries"]["id"] == [0, 1, 2, 3, 4]
    assert [q["id"] for q in query_rows(document, run)] == ["q1", "q2", "q3", "q4", "q5"]
    # each id once, in order of first appearance: the lists' first, then the judgments'
    assert document["doc_ids"] == ["d1", "d2", "x", "e1", "e2", "d3", "d4", "f1", "g1"]
    assert run["lists"] == {
        "depth": 2,  # the deepest cutoff asked for (docs/conventions.md section 22.17)
        "in_run": 3,  # q1, q2, q3 are the run's, first
        "relevant_retrieved": [2, 0, 1, 0, 0],  # d3 and d4 for q1, over the whole list
        "ids": [[0, 1], [2], [3, 4], [], []],  # indices into doc_ids
        # q1's top d1 d2 holds one judged id: condensing to 2 reads the next judged one, d3; q3's
        # top e1 e2 holds one and its list no more; q2's none
        "next_judged": [[5], [], [], [], []],
    }
    # the judgments as indices into the same ids: q1 {d2: 0, d3: 2, d4: 1}, q3 {e2: 1}, q4, q5
    assert document["judgments"] == {
        "queries": [0, 2, 3, 4],
        "ids": [[1, 5, 6], [4], [7], [8]],
        "grades": [[0, 2, 1], [1], [1], [0]],
    }
    q1 = query_rows(document, run)[0]
    assert (q1["retrieved"], q1["repeats"], q1["first_relevant_rank"]) == (5, 1, 3)  # beyond the stored top


def test_stored_run_gives_back_the_lists_judgments_and_facts(tmp_path, capsys):
    document = expanded(_score_json(tmp_path, capsys, RUN, QRELS, "-k", "1,2", "--kmax", "2"))
    stored = stored_run(document, document["runs"][0], "report.json")
    run, judgments = stored.run, stored.judgments
    assert run.query_ids.tolist() == ["q1", "q2", "q3"]
    assert run.offsets.tolist() == [0, 2, 3, 5]
    assert run.doc_ids.tolist() == ["d1", "d2", "x", "e1", "e2"]
    # judged queries in the rows' order: q4 and q5 (which the run lacks) keep their places
    assert judgments.query_ids.tolist() == ["q1", "q3", "q4", "q5"]
    assert dict(zip(judgments.doc_ids.tolist(), judgments.grades.tolist())) == {
        "d2": 0,
        "d3": 2,
        "d4": 1,
        "e2": 1,
        "f1": 1,
        "g1": 0,
    }
    assert stored.retrieved.tolist() == [5, 1, 2, 0, 0]
    assert stored.repeats.tolist() == [1, 0, 0, 0, 0]
    assert stored.first_relevant.tolist() == [3, 0, 2, 0, 0]
    assert stored.in_run.tolist() == [True, True, True, False, False]
    assert stored.cutoffs == (1, 2) and stored.sweep == (1, 2)
    # the lists followed by the judged ids condensing reads (q1's d3), and the sweep as stored
    assert stored.condensable is not None
    assert stored.condensable.doc_ids.tolist() == ["d1", "d2", "d3", "x", "e1", "e2"]
    assert stored.sweep_figures is not None
    assert stored.sweep_figures["P"][0].tolist() == document["runs"][0]["sweep"]["P"]["mean"]


def test_an_id_written_once_serves_every_list_that_holds_it(tmp_path, capsys):
    run = "q1 Q0 d1 1 9 r\nq1 Q0 d2 2 8 r\nq2 Q0 d2 1 9 r\nq2 Q0 d1 2 8 r\n"
    document = unpacked(_score_json(tmp_path, capsys, run, "q1 0 d1 1\nq2 0 d2 1\n", "-k", "1,2", "--kmax", "2"))
    lists = document["runs"][0]["lists"]
    assert (document["doc_ids"], lists["ids"]) == (["d1", "d2"], [[0, 1], [1, 0]])
    assert document["judgments"]["ids"] == [[0], [1]]  # the judgments index the same ids
    document = expanded(document)
    stored = stored_run(document, document["runs"][0], "report.json")
    assert stored.run.doc_ids.tolist() == ["d1", "d2", "d2", "d1"]


@pytest.mark.parametrize("forged", [5, -1, True, 1.0, "0", None])
def test_a_stored_index_outside_doc_ids_is_one_error(tmp_path, capsys, forged):
    document = _score_json(tmp_path, capsys, RUN, QRELS, "-k", "1,2", "--kmax", "2")
    path = tmp_path / "report.json"
    path.write_text(json.dumps(document))
    load_report(path)  # as written: read back
    document = unpacked(document)  # the compact form of ragreport/2, every index a JSON number
    document["runs"][0]["lists"]["ids"][0] = [0, forged]  # nine ids in doc_ids: 0 to 8
    if forged == 5:
        forged = len(document["doc_ids"])  # one past the last
        document["runs"][0]["lists"]["ids"][0] = [0, forged]
    path.write_text(json.dumps(document))
    with pytest.raises(InputError, match=r"report\.json.*ids") as error:
        load_report(path)
    assert "\n" not in str(error.value)


def test_in_run_as_flags_when_the_run_s_queries_are_not_first():
    document = {
        "judgments": {"a": {"d": 1}, "b": {"e": 1}},
        "runs": [],
    }
    run = {
        "name": "x",
        "cutoffs": [1],
        "conventions": Conventions().as_dict(),
        "meta": {},
        "source": "x.trec",
        "sweep": {"k": [1]},
        "queries": [
            {"id": "a", "retrieved": 0, "repeats": 0, "first_relevant_rank": None},
            {"id": "b", "retrieved": 1, "repeats": 0, "first_relevant_rank": 1},
        ],
        "lists": {"depth": 1, "in_run": [False, True], "relevant_retrieved": [0, 1], "ids": [[], ["e"]]},
    }
    stored = stored_run(document, run, "report.json")
    assert stored.run.query_ids.tolist() == ["b"] and stored.in_run.tolist() == [False, True]


def test_meta_and_conventions_come_back_from_their_stored_form():
    meta = RunMeta(
        name="n",
        retriever="bm25",
        date=dt.date(2026, 11, 2),
        label_source=LabelSource.MODEL,
        judge="j",
        judge_error_rate=0.08,
        pool_depth=20,
        notes="**x**",
        extra=(("team", "search"),),
    )
    assert meta_from(meta.as_dict()) == meta
    conventions = Conventions(Denominator.MIN, Gain.EXP, Missing.SKIP, Order.FILE, NoRelevant.ZERO, 0.9, 300, 7)
    assert conventions_from(conventions.as_dict()) == conventions


def test_load_report_checks_schema_and_keys(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"schema": "ragreport/1", "settings": {}, "judgments": {}, "runs": []}))
    with pytest.raises(InputError, match="expected a non-empty 'runs' list of objects"):
        load_report(path)
    path.write_text(json.dumps({"schema": "ragreport/1", "judgments": {}, "runs": [{}]}))
    with pytest.raises(InputError, match="top-level 'settings'"):
        load_report(path)


def test_judged_ids_after_the_top_of_a_query_the_run_does_not_list_are_refused(tmp_path, capsys):
    # q4 is judged only: the run lists nothing for it, so nothing can follow its top (section 22.17)
    document = expanded(_score_json(tmp_path, capsys, RUN, QRELS, "-k", "1,2", "--kmax", "2"))
    run = document["runs"][0]
    run["lists"]["next_judged"][3] = ["f1"]
    with pytest.raises(InputError, match="'lists.next_judged' holds ids for a query the run does not list"):
        stored_run(document, run, "report.json")
    run["lists"]["next_judged"] = run["lists"]["next_judged"][:4]
    with pytest.raises(InputError, match="'lists.next_judged' holds 4 lists for 5 queries"):
        stored_run(document, run, "report.json")
