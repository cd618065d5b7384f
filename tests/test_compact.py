"""report.json's compact forms (schema ragreport/3, docs/conventions.md section 22.13, and
ragreport/2, section 22.4): written once, the stored lists and the judgments' ids packed as base-64
(ragreport/3), read back as the rows of ragreport/1 (ragreport/reading/compact.py), and the older
schemas still read."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.reading.compact import (
    expanded,
    indices,
    judgment_map,
    label_lists,
    listed_ids,
    packed_dtype,
    query_rows,
    run_lists,
    unpacked,
)
from ragreport.reading.previous import read_report as read_report_json

DATA = Path(__file__).resolve().parent / "data"
#: The preloaded sample's report.json as schema ragreport/1 wrote it (commit c227317), built on
#: 2026-12-01 as the golden copies are.
V1 = DATA / "report_v1_sample.json"
#: The same sample's report.json as schema ragreport/2 wrote it (commit f8d204a), built as V1 was.
V2 = DATA / "report_v2_sample.json"
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
    path.write_text(json.dumps({**HAND, "schema": "ragreport/4"}))
    with pytest.raises(
        InputError, match="with schema 'ragreport/3' or 'ragreport/2' or 'ragreport/1', got 'ragreport/4'"
    ):
        read_report_json(path)


def _sample_site(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "site", "--quiet"]) == 0
    return tmp_path / "site"


def test_the_compact_report_reads_back_as_the_older_one_wrote_it(tmp_path, monkeypatch):
    new = json.loads((_sample_site(tmp_path, monkeypatch) / "report.json").read_text())
    old = json.loads(V1.read_text())
    for run in old["runs"]:  # ragreport/1 wrote its lists as indices into each run's own ids
        run["lists"] = {
            **{k: v for k, v in run["lists"].items() if k != "doc_ids"},
            "ids": listed_ids(old, run["lists"]),
        }
    back = expanded(new)
    assert back == {**old, "schema": "ragreport/1"}
    assert [list(row) for row in back["runs"][0]["queries"]] == [list(row) for row in old["runs"][0]["queries"]]


def test_the_packed_report_reads_back_as_the_compact_one_wrote_it(tmp_path, monkeypatch):
    new = json.loads((_sample_site(tmp_path, monkeypatch) / "report.json").read_text())
    old = json.loads(V2.read_text())
    assert new["schema"] == "ragreport/3" and old["schema"] == "ragreport/2"
    assert unpacked(new) == old
    assert expanded(new) == expanded(old)


@pytest.mark.parametrize("older", [V1, V2], ids=["ragreport/1", "ragreport/2"])
def test_a_report_of_an_older_schema_renders_the_same_pages(tmp_path, monkeypatch, older):
    site = _sample_site(tmp_path, monkeypatch)
    shutil.copy(older, tmp_path / "old.json")
    assert main(["render", "old.json", "--out", "again", "--quiet"]) == 0
    pages = sorted(p.relative_to(site) for p in site.rglob("*.html"))
    assert pages and pages == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*.html"))
    for page in pages:
        assert (tmp_path / "again" / page).read_bytes() == (site / page).read_bytes(), page
    # and the report.json it writes is the compact form of the same document
    assert (tmp_path / "again" / "report.json").read_bytes() == (site / "report.json").read_bytes()


def test_an_older_report_as_previous_gives_the_same_drift(tmp_path, monkeypatch):
    site = _sample_site(tmp_path, monkeypatch)
    shutil.copy(V1, tmp_path / "old.json")
    shutil.copy(V2, tmp_path / "old2.json")
    drifts = []
    for previous in ("old.json", "old2.json", str(site / "report.json")):
        out = f"out-{len(drifts)}"
        assert main(["build", "--out", out, "--previous", previous, "--seed", "3", "--quiet"]) == 0
        drift = json.loads((tmp_path / out / "report.json").read_text())["drift"]
        drifts.append({k: v for k, v in drift.items() if k != "previous"})
    assert drifts[0] == drifts[1] == drifts[2] and drifts[0]["basis"]["runs"][0]["queries"]


def test_render_scores_the_stored_lists_again_and_reads_no_stored_figure(tmp_path, monkeypatch):
    # The per-query figures of report.json are for its readers and for drift: render scores the
    # stored lists again, so a report whose every suite figure is wrong renders the built site
    # byte for byte (its report.json too, figures and all). The condensed columns, which the
    # stored lists are too short to give again, are read (docs/conventions.md sections 22.4, 22.13).
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

    run = next(r for r in forged["runs"] if "condensed" in r)
    label, column = next(iter(run["condensed"].items()))
    q = next(i for i, v in enumerate(column) if v is not None)
    column[q] = 0.125 if column[q] != 0.125 else 0.25
    (tmp_path / "condensed.json").write_text(json.dumps(forged))
    assert main(["render", "condensed.json", "--out", "third", "--quiet"]) == 0
    read = json.loads((tmp_path / "third" / "report.json").read_text())
    assert next(r for r in read["runs"] if r["name"] == run["name"])["condensed"][label][q] == column[q]


@pytest.mark.parametrize("named", [(), ("R@5", "AP")], ids=["suite", "a measure named as a suite figure"])
def test_report_json_written_column_by_column_is_json_dumps_of_the_whole_document(named):
    # ragreport build makes the per-query columns one at a time as report.json writes them; the
    # bytes are those of one json.dumps of the document made whole (a measure named like a suite
    # figure, R@5, holds that figure's place with its own values, as a dict's later key does).
    from ragreport.api import analyse, evaluate
    from ragreport.output.document import Columns, materialised, report_document
    from ragreport.output.site import report_json
    from ragreport.scoring.measures import parse_measure

    analysis = analyse(evaluate(k=5, measures=[parse_measure(name) for name in named]))
    assert [m.label() for m in analysis.summaries[0].measures] == list(named)
    lazy = report_document(analysis, lazy=True)
    assert isinstance(lazy["runs"][0]["queries"], Columns)
    whole = report_document(analysis)
    assert materialised(lazy) == whole
    expected = (json.dumps(whole, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n").encode()
    assert report_json(lazy, compact=True) == expected == report_json(whole, compact=True)
    spaced = (json.dumps(whole, ensure_ascii=False, allow_nan=False) + "\n").encode()
    assert report_json(lazy) == spaced


def test_the_label_set_is_written_in_the_order_of_its_map_by_code_point():
    # report.json writes the report's judgments by two sorts of the judgment arrays, not through a
    # dict of dicts: queries sorted, ids sorted within each, by code point as Python sorts text
    # (here written out by hand: "Z" < "e" < "z" < "é"; "q10" < "q2").
    from ragreport.analysis.summary import report_judgments
    from ragreport.api import analyse, evaluate
    from ragreport.output.document import LabelColumns, sorted_labels

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
