"""Hostile input, second round (docs/conventions.md section 23.1): nothing is written outside its
target. Every link is made inside the test's own temporary folder; nothing outside it is written,
and ``/proc/self/fd/1`` is only ever the target of a link made here, never written to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sitetools import history_inputs, publish, site_files

from ragreport.cli import main
from ragreport.core.errors import UsageError
from ragreport.output.site.render import link_problem, refuse_special_output, write_text_file


def _one_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("ragreport: error: ") and "Traceback" not in err
    return lines[0]


@pytest.fixture
def history(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    history_inputs(tmp_path)
    folder = tmp_path / "eval"
    assert publish(tmp_path, folder, "worse", "qrels.txt", "--label", "v1") == 0
    return folder


def _moved_to_a_link(history: Path, relative: str) -> tuple[Path, dict[str, bytes]]:
    """``history/relative`` moved outside the history, and a link to it left in its place."""
    outside = history.parent / ("outside-" + relative.replace("/", "-"))
    (history / relative).rename(outside)
    (history / relative).symlink_to(outside, target_is_directory=True)
    return outside, site_files(outside)


@pytest.mark.slow
@pytest.mark.parametrize("relative", ["assets", "reports", "reports/v1"])
@pytest.mark.parametrize("label", ["v1", "v2"])
def test_a_folder_of_a_history_replaced_by_a_link_is_refused_not_written_through(history, capsys, relative, label):
    outside, before = _moved_to_a_link(history, relative)
    history_before = {p: os.readlink(history / p) for p in [relative]}
    code = publish(history.parent, history, "better", "qrels.txt", "--label", label)
    if relative == "reports/v1" and label == "v2":
        # v1's folder is neither written nor pruned: the link stays as it is, and nothing goes through it
        assert code == 0
    else:
        assert code == 2
        line = _one_error(capsys)
        assert f"{history / relative} is a symbolic link; publish writes only into folders of its own" in line
    assert site_files(outside) == before  # nothing outside the history changed
    assert {p: os.readlink(history / p) for p in [relative]} == history_before  # the link itself stays


@pytest.mark.slow
def test_keep_never_prunes_a_report_folder_that_is_a_link(history, capsys):
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v2") == 0
    outside, before = _moved_to_a_link(history, "reports/v1")
    assert publish(history.parent, history, "better", "qrels.txt", "--label", "v3", "--keep", "2") == 2
    assert f"{history / 'reports/v1'} is a symbolic link" in _one_error(capsys)
    assert (history / "reports/v1").is_symlink() and site_files(outside) == before


def test_a_link_to_a_descriptor_is_refused_and_left_as_it_was(tmp_path):
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    chain = tmp_path / "chain"
    chain.symlink_to(link)
    for path in (link, chain):
        for option in ("--comment", "--junit", "--single-file", "$GITHUB_STEP_SUMMARY"):
            with pytest.raises(UsageError, match=r"is a symbolic link to /proc/self/fd/1, a descriptor or device"):
                refuse_special_output(path, option)
        with pytest.raises(UsageError):
            write_text_file(path, "text", "--comment")
    assert os.readlink(link) == "/proc/self/fd/1" and os.readlink(chain) == str(link)


def test_links_to_a_device_a_fifo_and_a_loop_are_refused(tmp_path):
    os.mkfifo(tmp_path / "a-fifo")
    cases = {"null": "/dev/null", "fifo": str(tmp_path / "a-fifo"), "loop": str(tmp_path / "loop")}
    for name, target in cases.items():
        (tmp_path / name).symlink_to(target)
    assert "descriptor or device" in str(link_problem(tmp_path / "null"))
    assert "which is a FIFO (named pipe)" in str(link_problem(tmp_path / "fifo"))
    assert "loop" in str(link_problem(tmp_path / "loop"))
    for name in cases:
        with pytest.raises(UsageError):
            refuse_special_output(tmp_path / name, "--junit")


def test_a_link_to_a_regular_file_is_replaced_as_the_link_never_written_through(tmp_path):
    mine = tmp_path / "mine.txt"
    mine.write_text("mine")
    link = tmp_path / "comment.md"
    link.symlink_to(mine)
    assert link_problem(link) is None
    write_text_file(link, "the comment", "--comment")
    assert mine.read_text() == "mine"  # not written through
    assert not link.is_symlink() and link.read_text() == "the comment"


@pytest.mark.parametrize("option", ["--comment", "--junit"])
def test_the_cli_refuses_a_link_to_stdout_before_reading_any_run(tmp_path, capsys, option, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").symlink_to("/proc/self/fd/1")
    argv = ["--no-config", "score", "--qrels", "no-such-qrels.txt", "no-such-run.trec", option, "out"]
    if option == "--junit":
        argv += ["--require", "nDCG@10>=0.1"]
    assert main(argv) == 2
    line = _one_error(capsys)
    assert line == (
        f"ragreport: error: {option} out is a symbolic link to /proc/self/fd/1, a descriptor or device, "
        "not a regular file; give a file name"
    )
    assert os.readlink(tmp_path / "out") == "/proc/self/fd/1"


def test_a_config_file_naming_a_link_to_stdout_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    (tmp_path / "ragreport.toml").write_text('comment = "stdout"\n')
    assert main(["score", "--qrels", "no-such-qrels.txt", "no-such-run.trec"]) == 2
    assert "stdout is a symbolic link to /proc/self/fd/1" in _one_error(capsys)
    assert os.readlink(tmp_path / "stdout") == "/proc/self/fd/1"
