"""Reading a history's index back (ragreport/output/exports/history.py): what is a history, what is refused."""

from __future__ import annotations

import json

import pytest

from ragreport.core.errors import InputError, UsageError
from ragreport.output.exports.history import HISTORY_HEADER, HISTORY_SCHEMA, load_history, valid_label


def history(folder, reports, schema=HISTORY_SCHEMA, folders=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".ragreport-history").write_text(HISTORY_HEADER + "\n")  # a marker listing no file
    (folder / "history.json").write_text(json.dumps({"schema": schema, "reports": reports}, indent=1) + "\n")
    for label in folders if folders is not None else [r["label"] for r in reports]:
        (folder / "reports" / label).mkdir(parents=True)
        (folder / "reports" / label / "index.html").write_text("<!doctype html>\n")
    return folder


def entry(label):
    return {"label": label, "date": "2026-11-30", "runs": []}


def test_a_missing_or_empty_folder_is_a_new_history(tmp_path):
    assert load_history(tmp_path / "none") == []
    (tmp_path / "empty").mkdir()
    assert load_history(tmp_path / "empty") == []


def test_a_history_is_read_newest_first(tmp_path):
    folder = history(tmp_path / "h", [entry("v2"), entry("v1")])
    assert [e["label"] for e in load_history(folder)] == ["v2", "v1"]


def test_anything_else_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="it is a file"):
        load_history(tmp_path / "file")
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text("mine")
    with pytest.raises(UsageError, match="not a ragreport history"):
        load_history(tmp_path / "site")


@pytest.mark.parametrize(
    ("reports", "schema", "expected"),
    [
        ([entry("v1")], "ragreport-history/0", "schema 'ragreport-history/1'"),
        ([{"label": "v1"}], HISTORY_SCHEMA, "report 1 with label, date, runs"),
        ([entry("v1"), entry("V1")], HISTORY_SCHEMA, "a label listed once"),
        ([entry("../up")], HISTORY_SCHEMA, "a label of letters, digits"),
    ],
)
def test_a_broken_index_names_its_file_line_and_what_was_expected(tmp_path, reports, schema, expected):
    folder = history(tmp_path / "h", reports, schema, folders=[])
    with pytest.raises(InputError) as error:
        load_history(folder)
    assert str(error.value).startswith(str(folder / "history.json") + ":") and expected in str(error.value)


def test_the_line_named_is_the_entrys(tmp_path):
    folder = history(tmp_path / "h", [entry("v2"), entry("v1")], folders=["v2"])
    with pytest.raises(InputError) as error:
        load_history(folder)
    line = next(n for n, t in enumerate((folder / "history.json").read_text().splitlines(), 1) if '"v1"' in t)
    assert f"history.json:{line}:" in str(error.value) and "report 'v1'" in str(error.value)


def test_a_marker_without_an_index_or_unreadable_json(tmp_path):
    folder = history(tmp_path / "h", [])
    (folder / "history.json").unlink()
    with pytest.raises(InputError, match="no such file"):
        load_history(folder)
    (folder / "history.json").write_text('{"schema": \n')
    with pytest.raises(InputError, match=r"history.json:2:"):
        load_history(folder)


def test_valid_labels():
    assert all(valid_label(x) for x in ("v1", "2026-12-01", "a.b_c-d", "A" * 64, "0"))
    assert not any(valid_label(x) for x in ("", ".v1", "-v1", "a/b", "a b", "A" * 65, "é", None, 3))
