"""report.json's compact forms (schema ragreport/4, docs/conventions.md section 22.17; ragreport/3,
section 22.13; ragreport/2, section 22.4): written once, the stored lists and the judgments' ids
packed as base-64 (ragreport/3 on), the lists cut to K and the judged ids condensing reads after
them (ragreport/4), read back as the rows of ragreport/1 (ragreport/output/exports/reportjson/migrate.py), and the
older schemas still read."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from sitetools import float_blind, held_as, without_metric

from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.output.exports.reportjson.migrate import (
    expanded,
    indices,
    judgment_map,
    label_lists,
    listed_ids,
    next_judged,
    packed_dtype,
    query_rows,
    run_lists,
    unpacked,
)
from ragreport.output.exports.reportjson.read import read_report as read_report_json

DATA = Path(__file__).resolve().parent / "data"
#: The preloaded sample's report.json as schema ragreport/1 wrote it (commit c227317), built on
#: 2026-12-01 as the golden copies are.
V1 = DATA / "report_v1_sample.json"
#: The same sample's report.json as schema ragreport/2 wrote it (commit f8d204a), built as V1 was.
V2 = DATA / "report_v2_sample.json"
#: The same sample's report.json as schema ragreport/3 wrote it (commit 9cd9ca1), built as V1 was.
V3 = DATA / "report_v3_sample.json"
#: A report.json (schema ragreport/4) written while RBP was binary and its residual keyed RBPres
#: (commit 8477b75): one run, tests/data/ir_datasets_run.trec, on tests/data/qrels.trec, with
#: --metrics "RBP,RBP(p=0.9)@5", built on 2026-12-01.
RBPRES = DATA / "report_rbpres.json"
EPOCH = "1764547200"

#: A hand-written report of the compact form: two runs over three queries, ids written once.
HAND = {
    "schema": "ragreport/2",
    "query_ids": ["q1", "q2", "q3"],
    "doc_ids": ["d1", "d2", "d3"],
    "statuses": ["full", "partial", "late hit", "complete miss", "excluded"],
    "judgments": {"queries": [0, 2], "ids": [[1, 0], [2]], "grades": [[2, 0], [1]]},
    "runs": [
        {
            "name": "a",
            "queries": {
                "id": [0, 1, 2],
                "scored": [True, False, True],
                "status": [0, 4, 2],
                "P@1": [1.0, None, 0.0],
                "query": ["first", None, "third"],
            },
            "condensed": {"P@1": [1.0, None, 1.0]},
            "lists": {"ids": [[1, 0], [], [0, 2]]},
        },
        {"name": "b", "queries": {"id": [2, 0], "scored": [True, True], "status": [3, 1], "P@1": [0.0, 0.5]}},
    ],
}


def _packed(values: list[int], dtype: str = "<u1") -> str:
    """Hand-packed: each index as ``dtype``'s bytes, by ``int.to_bytes`` (not numpy), in base-64."""
    width = int(dtype[-1])
    return base64.b64encode(b"".join(v.to_bytes(width, "little") for v in values)).decode("ascii")


#: HAND in the packed form (ragreport/3): the same report. Run a's ``id`` is 0 .. 2 and its
#: ``scored`` is ``status != "excluded"``, so both are left out; its lists' lengths are min(retrieved,
#: depth) but for the first (2 of 5 retrieved, at depth 3: stated). Run b keeps its own ``id``.
HAND3 = {
    "schema": "ragreport/3",
    "packed": {"encoding": "base64", "dtype": "<u2"},
    "query_ids": HAND["query_ids"],
    "doc_ids": HAND["doc_ids"],
    "statuses": HAND["statuses"],
    "judgments": {"queries": [0, 2], "ids": _packed([1, 0, 2], "<u2"), "lengths": [2, 1], "grades": [2, 0, 1]},
    "runs": [
        {
            "name": "a",
            "queries": {"status": [0, 4, 2], "retrieved": [2, 0, 9], "P@1": [1.0, None, 0.0]},
            "condensed": {"P@1": [1.0, None, 1.0]},
            "lists": {"depth": 3, "ids": _packed([1, 0, 0, 2, 1], "<u2"), "lengths": [2, 0, 3]},
        },
        {
            "name": "b",
            "queries": {"id": [2, 0], "scored": [True, True], "status": [3, 1], "retrieved": [1, 0], "P@1": [0.0, 0.5]},
            "lists": {"depth": 3, "ids": _packed([2], "<u2")},
        },
    ],
}


#: HAND3 as schema ragreport/4: the lists at depth 2 (K), no condensed columns, and after each
#: stored top the judged ids condensing it to 2 reads: q3's top holds one judged id and needs one
#: more (index 1); q1's two are judged already.
HAND4 = {
    **HAND3,
    "schema": "ragreport/4",
    "runs": [
        {
            "name": "a",
            "queries": {"status": [0, 4, 2], "retrieved": [2, 0, 9], "P@1": [1.0, None, 0.0]},
            "lists": {
                "depth": 2,
                "ids": _packed([1, 0, 0, 2], "<u2"),
                "next_judged": {"ids": _packed([1], "<u2"), "lengths": [0, 0, 1]},
            },
        },
        {
            "name": "b",
            "queries": {"id": [2, 0], "scored": [True, True], "status": [3, 1], "retrieved": [1, 0], "P@1": [0.0, 0.5]},
            "lists": {"depth": 2, "ids": _packed([2], "<u2"), "next_judged": {"ids": "", "lengths": [0, 0]}},
        },
    ],
}


def test_the_judged_ids_after_the_stored_top_decode_as_the_lists_do():
    a, b = HAND4["runs"]
    assert a["lists"]["next_judged"]["ids"] == "AQA="  # index 1 as two little-endian bytes, by hand
    assert next_judged(HAND4, a) == [[], [], [1]] and next_judged(HAND4, b) == [[], []]
    assert run_lists(HAND4, a) == [[1, 0], [], [0, 2]]  # lengths left out: min(retrieved, depth)
    assert next_judged(HAND3, HAND3["runs"][0]) == []  # an older schema keeps none
    back = unpacked(HAND4)
    assert back["runs"][0]["lists"] == {"depth": 2, "ids": [[1, 0], [], [0, 2]], "next_judged": [[], [], [1]]}
    assert "condensed" not in query_rows(HAND4, a)[2]  # ragreport/4 keeps the condensed means alone
    whole = expanded(HAND4)
    assert whole["runs"][0]["lists"]["next_judged"] == [[], [], ["d2"]]
    assert whole["runs"][0]["lists"]["ids"] == [["d2", "d1"], [], ["d1", "d3"]]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (
            lambda d: d["runs"][0]["lists"]["next_judged"].__setitem__("ids", "AQA"),
            "'lists.next_judged.ids' is not base-64",
        ),
        (lambda d: d["runs"][0]["lists"]["next_judged"]["lengths"].__setitem__(0, 1), "'lists.next_judged' holds 1"),
        (lambda d: d["runs"][0]["lists"]["next_judged"]["lengths"].pop(), "holds 2 counts for 3 queries"),
        (
            lambda d: d["runs"][0]["lists"]["next_judged"].__setitem__("ids", _packed([7], "<u2")),
            "'lists.next_judged.ids' holds 7, not an index",
        ),
        (
            lambda d: d["runs"][0]["lists"].__setitem__(
                "next_judged", {"ids": _packed([0, 1, 2], "<u2"), "lengths": [0, 0, 3]}
            ),
            "a list of 3 ids, longer than 'lists.depth' (2)",
        ),
        (lambda d: d["runs"][0]["lists"].pop("next_judged"), "next_judged"),
    ],
)
def test_a_damaged_next_judged_is_one_line(tmp_path, damage, said):
    _assert_refused_in_one_line(tmp_path, HAND4, damage, said)


def test_the_narrowest_width_holds_every_index():
    assert [packed_dtype(n) for n in (0, 1, 256, 257, 65536, 65537)] == ["<u1", "<u1", "<u1", "<u2", "<u2", "<u4"]


def test_a_packed_list_decodes_with_numpy_alone_as_docs_render_md_says():
    text = HAND3["runs"][0]["lists"]["ids"]
    assert text == "AQAAAAAAAgABAA=="  # 1, 0, 0, 2, 1 as two little-endian bytes each, by hand
    assert np.frombuffer(base64.b64decode(text), "<u2").tolist() == [1, 0, 0, 2, 1]
    assert indices(HAND3, text).tolist() == [1, 0, 0, 2, 1]
    assert run_lists(HAND3, HAND3["runs"][0]) == [[1, 0], [], [0, 2, 1]]
    # lengths left out: min(retrieved, depth) of each query
    assert run_lists(HAND3, HAND3["runs"][1]) == [[2], []]
    assert label_lists(HAND3, HAND3["judgments"]) == ([[1, 0], [2]], [[2, 0], [1]])


def test_the_packed_form_reads_back_as_the_compact_one():
    back = unpacked(HAND3)
    a, b = back["runs"]
    assert back["schema"] == "ragreport/2" and "packed" not in back
    assert back["judgments"] == HAND["judgments"]
    assert a["queries"]["id"] == [0, 1, 2] and a["queries"]["scored"] == [True, False, True]
    assert list(a["queries"])[:3] == ["id", "scored", "status"]  # in the order ragreport/2 wrote them
    assert a["lists"] == {"depth": 3, "ids": [[1, 0], [], [0, 2, 1]]}
    assert b["queries"]["id"] == [2, 0] and b["lists"]["ids"] == [[2], []]
    assert judgment_map(HAND3, HAND3["judgments"]) == {"q1": {"d2": 2, "d1": 0}, "q3": {"d3": 1}}
    rows = query_rows(HAND3, HAND3["runs"][0])
    assert [(r["id"], r["scored"], r["status"]) for r in rows] == [
        ("q1", True, "full"),
        ("q2", False, "excluded"),
        ("q3", True, "late hit"),
    ]
    assert rows[2]["condensed"] == {"P@1": 1.0}


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: d["runs"][0]["lists"].__setitem__("ids", "AQAAAAAAAgABAA="), "'lists.ids' is not base-64"),
        (
            lambda d: d["runs"][0]["lists"].__setitem__("ids", _packed([1, 0, 0, 2, 1, 0], "<u1")),
            "3 indices for lengths",
        ),
        (
            lambda d: d["runs"][0]["lists"].__setitem__("ids", "AQAAAAAAAgAB"),
            "'lists.ids' holds 9 bytes, not a whole number",
        ),
        (lambda d: d["runs"][0]["lists"]["lengths"].__setitem__(2, 4), "5 indices for lengths that add up to 6"),
        (lambda d: d["runs"][0]["lists"].__setitem__("ids", _packed([1, 0, 0, 9, 1], "<u2")), "lists.ids' holds 9"),
        (lambda d: d["judgments"].__setitem__("ids", _packed([1, 0, 3], "<u2")), "judgments.ids' holds 3"),
        (lambda d: d["judgments"]["grades"].pop(), "2 indices for lengths that add up to 3"),
        (lambda d: d["packed"].__setitem__("dtype", "<i8"), "packed.dtype"),
        (lambda d: d.pop("packed"), "packed"),
        (lambda d: d["runs"][0]["queries"]["status"].__setitem__(0, 5), "queries.status' holds 5"),
    ],
)
def test_a_damaged_packed_report_is_one_line(tmp_path, damage, said):
    _assert_refused_in_one_line(tmp_path, HAND3, damage, said)


def _assert_refused_in_one_line(tmp_path, report, damage, said):
    """``report`` damaged by ``damage`` is refused by the reader in one line naming the file and ``said``."""
    document = json.loads(json.dumps(report))
    damage(document)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputError) as error:
        read_report_json(path)
    message = str(error.value)
    assert said in message and "\n" not in message and str(path) in message


def test_rows_come_back_one_object_per_query():
    a, b = HAND["runs"]
    assert query_rows(HAND, a) == [
        {"id": "q1", "scored": True, "status": "full", "P@1": 1.0, "query": "first"},
        {"id": "q2", "scored": False, "status": "excluded", "P@1": None},
        # the condensed figure only where it differs from the default one
        {"id": "q3", "scored": True, "status": "late hit", "P@1": 0.0, "query": "third", "condensed": {"P@1": 1.0}},
    ]
    # another run indexes the same query ids in its own order
    assert [(r["id"], r["status"]) for r in query_rows(HAND, b)] == [("q3", "complete miss"), ("q1", "partial")]


def test_judgments_and_lists_index_the_same_ids():
    assert judgment_map(HAND, HAND["judgments"]) == {"q1": {"d2": 2, "d1": 0}, "q3": {"d3": 1}}
    assert listed_ids(HAND, HAND["runs"][0]["lists"]) == [["d2", "d1"], [], ["d1", "d3"]]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: d["runs"][0]["queries"]["id"].__setitem__(1, 3), "queries.id' holds 3"),
        (lambda d: d["runs"][0]["queries"]["status"].__setitem__(0, 5), "queries.status' holds 5"),
        (lambda d: d["runs"][0]["queries"]["P@1"].pop(), "column 'P@1' holds 2 values for 3 queries"),
        (lambda d: d["judgments"]["ids"][0].append(7), "judgments of query 'q1' hold 2 grades for 3 ids"),
        (lambda d: d["judgments"]["queries"].__setitem__(0, -1), "judgments.queries[0]"),
        (lambda d: d["runs"][0]["lists"]["ids"][2].__setitem__(0, 9), "lists.ids' holds 9"),
        (lambda d: d.pop("query_ids"), "query_ids"),
    ],
)
def test_a_damaged_compact_report_is_one_line(tmp_path, damage, said):
    _assert_refused_in_one_line(tmp_path, HAND, damage, said)


def test_a_report_of_another_schema_is_refused_naming_those_it_reads(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**HAND, "schema": "ragreport/5"}))
    with pytest.raises(
        InputError,
        match="with schema 'ragreport/4' or 'ragreport/3' or 'ragreport/2' or 'ragreport/1', got 'ragreport/5'",
    ):
        read_report_json(path)


def _close(a, b) -> bool:
    """Two documents equal but for doubles within 1e-12 of each other."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def _sample_site(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "site", "--quiet"]) == 0
    return tmp_path / "site"


def test_the_compact_report_reads_back_as_the_older_one_wrote_it():
    # ragreport/3 read back is what ragreport/1 wrote; ragreport/4 is ragreport/3 with the lists
    # cut to K and the judged ids after them (the next test but one)
    new = json.loads(V3.read_text())
    old = json.loads(V1.read_text())
    for run in old["runs"]:  # ragreport/1 wrote its lists as indices into each run's own ids
        run["lists"] = {
            **{k: v for k, v in run["lists"].items() if k != "doc_ids"},
            "ids": listed_ids(old, run["lists"]),
        }
    back = expanded(new)
    assert back == {**old, "schema": "ragreport/1"}
    assert [list(row) for row in back["runs"][0]["queries"]] == [list(row) for row in old["runs"][0]["queries"]]


def test_the_packed_report_reads_back_as_the_compact_one_wrote_it():
    v3, v2 = json.loads(V3.read_text()), json.loads(V2.read_text())
    assert v3["schema"] == "ragreport/3" and v2["schema"] == "ragreport/2"
    assert unpacked(v3) == v2
    assert expanded(v3) == expanded(v2)


def test_ragreport_4_is_ragreport_3_with_the_lists_cut_to_k_and_the_judged_ids_after_them(tmp_path, monkeypatch):
    # The same sample's report as ragreport/3 wrote it, read back as rows: every field the same
    # but each list cut to K (from the sweep's 20), the condensed figures of the rows, which
    # ragreport/4 leaves to render, and the judged ids after each top that condensing reads: the
    # condensed list's (judged ids alone, in order) first K ids past those the top holds, here
    # taken from ragreport/3's own lists where they reach (the sample's do for every query).
    built = json.loads((_sample_site(tmp_path, monkeypatch) / "report.json").read_text())
    # the metrics it held, without what issue 38 added (a reading, the judgments' shape)
    new = expanded(
        without_metric(without_metric(held_as(built, json.loads(V3.read_text())), "unjudged_at_rate"), "relevant_only")
    )
    old = expanded(json.loads(V3.read_text()))
    k = new["settings"]["k"][-1]
    judged = old["judgments"]
    for ours, theirs in zip(new["runs"], old["runs"]):
        assert ours["lists"]["depth"] == k < theirs["lists"]["depth"]
        assert ours["lists"]["ids"] == [ids[:k] for ids in theirs["lists"]["ids"]]
        for row, top, after, whole in zip(
            theirs["queries"], ours["lists"]["ids"], ours["lists"]["next_judged"], theirs["lists"]["ids"]
        ):
            grades = theirs.get("judgments", judged).get(row["id"], {})
            condensed = [d for d in whole if d in grades]
            held = sum(d in grades for d in top)
            assert after == condensed[held:k]
            row.pop("condensed", None)
        lists = {key: value for key, value in ours["lists"].items() if key not in ("ids", "next_judged", "depth")}
        assert lists == {key: value for key, value in theirs["lists"].items() if key not in ("ids", "depth")}
        assert _close({**ours, "lists": None}, {**theirs, "lists": None})
    assert _close({**new, "runs": None}, {**old, "runs": None})


@pytest.mark.parametrize("older", [V1, V2, V3], ids=["ragreport/1", "ragreport/2", "ragreport/3"])
def test_a_report_of_an_older_schema_renders_the_same_pages(tmp_path, monkeypatch, older):
    # the pages of today's report of the same runs, with the suite metrics the older report holds
    # (a metric that joined the suite since is left out of its pages: docs/conventions.md section 26)
    built = json.loads((_sample_site(tmp_path, monkeypatch) / "report.json").read_text())
    (tmp_path / "now.json").write_text(json.dumps(held_as(built, json.loads(older.read_text()))))
    assert main(["render", "now.json", "--out", "site", "--quiet"]) == 0
    site = tmp_path / "site"
    shutil.copy(older, tmp_path / "old.json")
    assert main(["render", "old.json", "--out", "again", "--quiet"]) == 0
    pages = sorted(p.relative_to(site) for p in site.rglob("*.html"))
    assert pages and pages == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*.html"))
    # the same pages but for the last bits of the stored sweep's bands, summed in another order
    for page in pages:
        assert float_blind((tmp_path / "again" / page).read_bytes()) == float_blind((site / page).read_bytes()), page
    # and the report.json it writes is the compact form of the same document
    again, built = (json.loads((d / "report.json").read_text()) for d in (tmp_path / "again", site))
    assert _close(again, built)


def test_an_older_report_as_previous_gives_the_same_drift(tmp_path, monkeypatch):
    site = _sample_site(tmp_path, monkeypatch)
    shutil.copy(V1, tmp_path / "old.json")
    shutil.copy(V2, tmp_path / "old2.json")
    shutil.copy(V3, tmp_path / "old3.json")
    drifts = []
    (tmp_path / "now.json").write_text(
        json.dumps(held_as(json.loads((site / "report.json").read_text()), json.loads(V3.read_text())))
    )
    for previous in ("old.json", "old2.json", "old3.json", "now.json"):
        out = f"out-{len(drifts)}"
        assert main(["build", "--out", out, "--previous", previous, "--seed", "3", "--quiet"]) == 0
        drift = json.loads((tmp_path / out / "report.json").read_text())["drift"]
        drifts.append({k: v for k, v in drift.items() if k != "previous"})
    assert drifts[0] == drifts[1] == drifts[2] == drifts[3] and drifts[0]["basis"]["runs"][0]["queries"]


def test_render_scores_the_stored_lists_again_and_reads_no_stored_figure(tmp_path, monkeypatch):
    # The per-query figures of report.json are for its readers and for drift: render scores the
    # stored lists again, so a report whose every suite figure is wrong renders the built site
    # byte for byte (its report.json too, figures and all) (docs/conventions.md sections 22.4,
    # 22.13, 22.17).
    from ragreport.scoring.catalogue import SUITE

    site = _sample_site(tmp_path, monkeypatch)
    built = json.loads((site / "report.json").read_text())
    forged = json.loads(json.dumps(built))
    changed = 0
    for run in forged["runs"]:
        for label in [m.label(c) for c in run["cutoffs"] for m in SUITE]:
            column = run["queries"][label]
            changed += sum(v is not None for v in column)
            run["queries"][label] = [None if v is None else 7 if isinstance(v, int) else 0.123 for v in column]
    assert changed
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    assert main(["render", "forged.json", "--out", "again", "--quiet"]) == 0
    files = sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*") if p.is_file())
    for file in files:
        assert (tmp_path / "again" / file).read_bytes() == (site / file).read_bytes(), file

    # The sweep is read as stored: a forged band past K comes back as it was forged, not drawn again
    # (docs/conventions.md section 22.17); a band at K is drawn again.
    run = forged["runs"][0]
    beyond = run["sweep"]["k"].index(run["cutoffs"][-1]) + 1
    assert beyond < len(run["sweep"]["k"])
    run["sweep"]["nDCG"]["high"][beyond] = 0.987654321
    at_k = run["sweep"]["k"].index(run["k"])
    drawn = run["sweep"]["nDCG"]["low"][at_k]
    (tmp_path / "sweep.json").write_text(json.dumps(forged))
    assert main(["render", "sweep.json", "--out", "third", "--quiet"]) == 0
    read = json.loads((tmp_path / "third" / "report.json").read_text())
    assert read["runs"][0]["sweep"]["nDCG"]["high"][beyond] == 0.987654321
    assert read["runs"][0]["sweep"]["nDCG"]["low"][at_k] == drawn
    assert (
        read["runs"][0]["metrics"][f"nDCG@{run['k']}"]["high"]
        == built["runs"][0]["metrics"][f"nDCG@{run['k']}"]["high"]
    )

    # The condensed reading is condensed again from the stored top and the judged ids after it:
    # without them, the condensed means are those of the top K's judged ids alone.
    stripped = json.loads(json.dumps(built))
    lost = 0
    for entry in stripped["runs"]:
        lost += sum(entry["lists"]["next_judged"]["lengths"])
        entry["lists"]["next_judged"] = {"ids": "", "lengths": [0] * len(entry["lists"]["next_judged"]["lengths"])}
    assert lost
    (tmp_path / "stripped.json").write_text(json.dumps(stripped))
    assert main(["render", "stripped.json", "--out", "fourth", "--quiet"]) == 0
    read = json.loads((tmp_path / "fourth" / "report.json").read_text())
    label = f"P@{built['runs'][0]['k']}"
    means = [
        (r["metrics"][label]["readings"]["condensed"], b["metrics"][label]["readings"]["condensed"])
        for r, b in zip(read["runs"], built["runs"])
    ]
    assert any(ours < theirs for ours, theirs in means) and all(ours <= theirs for ours, theirs in means)


def test_the_label_set_is_written_in_the_order_of_its_map_by_code_point():
    # report.json writes the report's judgments by two sorts of the judgment arrays, not through a
    # dict of dicts: queries sorted, ids sorted within each, by code point as Python sorts text
    # (here written out by hand: "Z" < "e" < "z" < "é"; "q10" < "q2").
    from ragreport.analysis.summary import report_judgments
    from ragreport.api import analyse, evaluate
    from ragreport.output.exports.reportjson.write import LabelColumns, sorted_labels

    run = {"q2": {"é": 3.0, "e": 2.0, "x": 1.0}, "q10": {"b": 1.0}}
    qrels = {"q2": {"z": 0, "é": 2, "Z": 1, "e": 1}, "q10": {"b": 1, "a": 0}, "q1": {"c": 1}}
    summary = analyse(evaluate({"r": run}, qrels=qrels, k=2)).summaries[0]
    labels = sorted_labels(summary.judged)
    ids = (
        labels.ids
        if isinstance(labels.ids, list)
        else [d.decode() if isinstance(d, bytes) else str(d) for d in labels.ids.tolist()]
    )
    assert (labels.queries, labels.lengths, ids, labels.grades) == (
        ["q1", "q10", "q2"],
        [1, 2, 4],
        ["c", "a", "b", "Z", "e", "z", "é"],
        [1, 0, 1, 1, 1, 0, 2],
    )
    assert labels.queries == LabelColumns.of_map(report_judgments([summary])).queries


def _trec(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_render_condenses_again_from_judged_ids_past_k_and_reads_the_sweep_past_k_as_stored(tmp_path, monkeypatch):
    # docs/conventions.md section 20.2's worked example, cut at K = 3 (the sweep to 6): q1 judges
    # d1 (2), d2 (1), d9 (1) and d3 (0), so R = 3; its list is u1 d1 u2 | d3 d2 u3 d9, u1-u3
    # unjudged. The stored top (3 deep) holds one judged id, d1: condensing to 3 reads the next two
    # judged ones, d3 and d2 (stored after the top), not d9. Condensed, the list is d1 d3 d2:
    # P@3 = 2/3, R@3 = 2/3, RR@3 = 1, AP@3 = (1 + 2/3) / 3, by hand; by default P@3 = 1/3.
    # q2's top is all judged (nothing after it is read); q3's list has no judged id past its top.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    qrels = _trec(
        tmp_path / "qrels.txt",
        ["q1 0 d1 2", "q1 0 d2 1", "q1 0 d9 1", "q1 0 d3 0", "q2 0 e1 1", "q2 0 e2 0", "q2 0 e3 1", "q3 0 f1 1"],
    )
    lists = {
        "q1": ["u1", "d1", "u2", "d3", "d2", "u3", "d9"],
        "q2": ["e1", "e2", "e3", "e4"],
        "q3": ["u4", "u5", "f1", "u6"],
    }
    run = _trec(
        tmp_path / "run.txt",
        [f"{q} Q0 {d} {r} {10 - r} r" for q, ids in lists.items() for r, d in enumerate(ids, start=1)],
    )
    assert main(["build", "--qrels", qrels, run, "-k", "3", "--kmax", "6", "--out", "site", "--quiet"]) == 0
    built = json.loads((tmp_path / "site" / "report.json").read_text())
    entry = built["runs"][0]
    assert built["schema"] == "ragreport/4" and entry["lists"]["depth"] == 3 and entry["sweep"]["k"][-1] == 6
    back = expanded(built)["runs"][0]
    assert back["lists"]["ids"] == [ids[:3] for ids in lists.values()]
    assert back["lists"]["next_judged"] == [["d3", "d2"], [], []]
    condensed = {label: entry["metrics"][label]["readings"]["condensed"] for label in ("P@3", "R@3", "RR@3", "AP@3")}
    # q2's top e1 e2 e3 is all judged (P@3 = 2/3, R@3 = 1, RR@3 = 1, AP@3 = (1 + 2/3) / 2) and q3's
    # condensed list is f1 (P@3 = 1/3, R@3 = 1, RR@3 = 1, AP@3 = 1): the means over the three queries
    assert condensed["P@3"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3) / 3)
    assert condensed["R@3"] == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert condensed["RR@3"] == pytest.approx(1.0)
    assert condensed["AP@3"] == pytest.approx(((1 + 2 / 3) / 3 + (1 + 2 / 3) / 2 + 1) / 3)
    assert entry["metrics"]["P@3"]["mean"] == pytest.approx((1 / 3 + 2 / 3 + 1 / 3) / 3)
    assert "condensed" not in entry
    # render gives the built site back byte for byte, report.json included, from the lists at K
    assert main(["render", "site/report.json", "--out", "again", "--quiet"]) == 0
    files = sorted(p.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*") if p.is_file())
    for file in files:
        assert (tmp_path / "again" / file).read_bytes() == (tmp_path / "site" / file).read_bytes(), file


@pytest.mark.parametrize("seed", range(3))
def test_render_condenses_as_pytrec_evals_judged_docs_only(seed):
    # Random runs with many unjudged ids (as tests/test_evidence.py's cases), K = 5 of a sweep to
    # 10: the report's document analysed again (as render does, from the lists at K and the judged
    # ids after them) gives per-query condensed figures equal to pytrec_eval's judged_docs_only_flag.
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from ragreport.api import analyse, document, evaluate, reanalyse
    from ragreport.scoring.catalogue import READ

    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(30):
        judged = rng.choice(40, int(rng.integers(1, 30)), replace=False)
        qrels[f"q{q}"] = {f"d{i}": int(rng.integers(0, 4)) for i in judged}
        order = rng.permutation(40)[: int(rng.integers(1, 35))]
        run[f"q{q}"] = {f"d{i}": float(40 - r) for r, i in enumerate(order)}
    made = document(analyse(evaluate({"r": run}, qrels=qrels, k=5)))
    assert made["runs"][0]["lists"]["depth"] == 5 and sum(made["runs"][0]["lists"]["next_judged"]["lengths"])
    summary = reanalyse(json.loads(json.dumps(made))).summaries[0]
    names = {"P": "P_5", "R": "recall_5", "nDCG": "ndcg_cut_5", "AP": "map_cut_5"}
    found = pytrec_eval.RelevanceEvaluator(qrels, set(names.values()), judged_docs_only_flag=True).evaluate(run)
    scored = summary.scores.scored
    ids = summary.judged.query_ids.tolist()
    for metric in READ:
        if metric.key in names:
            ours = summary.reading_of("condensed", metric, 5)[scored]
            theirs = [found[q][names[metric.key]] if q in found else 0.0 for q, s in zip(ids, scored) if s]
            np.testing.assert_allclose(ours, theirs, atol=1e-12, err_msg=metric.key)


def test_the_judged_ids_after_the_top_give_the_whole_lists_condensed_at_k():
    # A property over random lists (repeats and negative grades among them): the top K slots
    # followed by the judged ids following() keeps, condensed to K, are the whole list condensed
    # to K, slot for slot.
    from ragreport.core.model import Judgments, Run
    from ragreport.scoring.condensed import condense, following
    from ragreport.scoring.join import join

    rng = np.random.default_rng(5)
    for _ in range(20):
        lists, grades = [], []
        for q in range(int(rng.integers(1, 8))):
            ids = [f"d{int(i)}" for i in rng.integers(0, 15, int(rng.integers(0, 20)))]
            lists.append((f"q{q}", ids))
            judged = sorted({f"d{int(i)}" for i in rng.integers(0, 15, int(rng.integers(0, 10)))})
            grades.append((f"q{q}", judged, [int(g) for g in rng.integers(-1, 3, len(judged))]))
        whole = join(Run.from_lists("r", lists), Judgments.from_lists(grades))
        for k in (1, 3, 6):
            after = following(whole, k)
            bounds = np.concatenate([[0], np.cumsum(after.lengths)])
            longer = [
                (q, ids[:k] + after.doc_ids[bounds[i] : bounds[i + 1]].tolist()) for i, (q, ids) in enumerate(lists)
            ]
            again = condense(join(Run.from_lists("r", longer), Judgments.from_lists(grades)), k)
            expected = condense(whole, k)
            assert again.offsets.tolist() == expected.offsets.tolist()
            assert again.doc_ids.tolist() == expected.doc_ids.tolist()
            assert again.repeat.tolist() == expected.repeat.tolist()
            assert again.grades.tolist() == expected.grades.tolist()


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda sweep: sweep["P"]["mean"].__setitem__(0, "high"), "'sweep.P.mean' holds something other than numbers"),
        (lambda sweep: sweep["nDCG"]["low"].pop(), "'sweep.nDCG.low' is not one figure for each of the sweep's"),
    ],
)
def test_a_damaged_stored_sweep_is_one_line(tmp_path, monkeypatch, capsys, damage, said):
    # render reads the sweep as stored (docs/conventions.md section 22.17): a figure that is not a
    # number or a list of another length is one line naming the field (a metric the report does
    # not hold at all is left out of its pages: tests/test_render.py)
    site = _sample_site(tmp_path, monkeypatch)
    report = json.loads((site / "report.json").read_text())
    damage(report["runs"][0]["sweep"])
    (tmp_path / "damaged.json").write_text(json.dumps(report))
    capsys.readouterr()
    assert main(["render", "damaged.json", "--out", "again", "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert said in error and "\n" not in error and "damaged.json" in error
    assert not (tmp_path / "again").exists()


def test_a_report_naming_rbpres_renders_and_reads_as_previous_with_its_rbp_binary(tmp_path, monkeypatch):
    """Its RBP was binary at its level (1) and is RBP(rel=1) now (RBP without rel is graded, as
    ir_measures'); RBPres is RBP_resid. Hand-worked at p = 0.8 (weights 0.2, 0.16, 0.128): q1 ranks
    d4 (grade 2), d3 (unjudged), d1 (grade 1); q2 ranks d9 (grade 0), d2 (grade 1)."""
    monkeypatch.chdir(tmp_path)
    assert main(["render", str(RBPRES), "--out", "site", "--quiet"]) == 0
    measures = json.loads((tmp_path / "site" / "report.json").read_text())["runs"][0]["measures"]
    assert list(measures) == ["RBP(rel=1)", "RBP_resid(rel=1)", "RBP(p=0.9,rel=1)@5", "RBP_resid(p=0.9,rel=1)@5"]
    assert measures["RBP(rel=1)"]["mean"] == pytest.approx(((0.2 + 0.128) + 0.16) / 2)
    assert measures["RBP(rel=1)"]["ir_measures"] == "RBP(rel=1)"
    # q1: d3 (rank 2) and every rank past 3 (0.8^3); q2: every rank past 2 (0.8^2)
    assert measures["RBP_resid(rel=1)"]["mean"] == pytest.approx(((0.16 + 0.512) + 0.64) / 2)
    args = ["build", str(DATA / "ir_datasets_run.trec"), "--qrels", str(DATA / "qrels.trec"), "--quiet"]
    args += ["--metrics", "nDCG@10,RBP(rel=1),RBP", "--previous", str(RBPRES), "--out", "now"]
    assert main(args) == 0
    now = json.loads((tmp_path / "now" / "report.json").read_text())
    assert now["drift"]["comparable"] and now["drift"]["rows"]
    figures = now["runs"][0]["measures"]
    assert figures["RBP(rel=1)"]["mean"] == measures["RBP(rel=1)"]["mean"]
    assert figures["RBP"]["mean"] == pytest.approx(((2 * 0.2 + 0.128) + 0.16) / 2)  # graded: d4 gains 2
    assert figures["RBP_resid"]["mean"] == pytest.approx(2 * measures["RBP_resid(rel=1)"]["mean"])  # top grade 2
