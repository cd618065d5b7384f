"""Hostile corpus, bounds (issue 14, item 3; docs/conventions.md section 18): every size flag has an
upper bound, on the command line and in a config file; integers of any length are one line; one
huge id does not make every id huge; devices and FIFOs, as inputs and as outputs, are refused up
front, promptly, in one line with exit 2.

Anything that could hang runs the CLI in a subprocess with a timeout, so a hang fails the test
instead of blocking the suite. No test asserts a wall-clock time.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from ragreport.cli import build_parser, main
from ragreport.core import budget
from ragreport.core.errors import InputError, UsageError
from ragreport.reading.registry import load_qrels, load_runs

RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 1.0 t\n"
QRELS = "q1 0 d2 1\nq2 0 d3 1\n"
#: Seconds a refusal may take before the test calls it a hang (a refusal takes about one).
PROMPT = 60


def _cli(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The CLI in its own process; a hang (a FIFO opened, /dev/zero read to its end) fails the test."""
    environment = dict(os.environ, **(env or {}))
    environment.pop("GITHUB_STEP_SUMMARY", None) if not env or "GITHUB_STEP_SUMMARY" not in env else None
    try:
        return subprocess.run(
            [sys.executable, "-m", "ragreport", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=PROMPT,
            env=environment,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"ragreport {' '.join(args)} did not end within {PROMPT} s")


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("ragreport: error: "), stderr
    return lines[0]


def _refused(capsys, argv: list[str]) -> str:
    """Run ``main(argv)`` in-process; it must exit 2; the error line (argparse's starts with the prog)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert "Traceback" not in err
    return errors[0]


# --------------------------------------------------------------------------------------------------
# Size flags: a bound on the command line, the same in a config file

#: (flag, the command, the largest value allowed, what the bound's message says)
BOUNDS = [
    ("-k", "score", 100_000, "at most 100,000"),
    ("--kmax", "score", 100_000, "at most 100,000"),
    ("--permutations", "score", 10_000_000, "at most 10,000,000"),
    ("--resamples", "score", 1_000_000, "at most 1,000,000"),
    ("--partition-mb", "score", 16_384, "at most 16,384"),
    ("--seed", "score", 2**64 - 1, "at most 18,446,744,073,709,551,615"),
    ("--relevance-level", "score", 2**63 - 1, "at most 9,223,372,036,854,775,807"),
    ("--keep", "publish", 100_000, "at most 100,000"),
]


@pytest.mark.parametrize("flag, command, most, says", BOUNDS)
def test_a_size_flag_one_past_its_bound_is_one_line(flag, command, most, says, capsys):
    line = _refused(capsys, [command, flag, str(most + 1)])
    assert f"argument {flag}: expected" in line and says in line and str(most + 1) in line


@pytest.mark.parametrize("flag, command, most, says", BOUNDS)
def test_a_size_flag_at_its_bound_is_accepted(flag, command, most, says):
    args = build_parser().parse_args([command, flag, str(most)])
    value = getattr(args, flag.lstrip("-").replace("-", "_"))
    assert value == ((most,) if flag == "-k" else most)


@pytest.mark.parametrize("flag, command, most, says", BOUNDS)
@pytest.mark.parametrize("digits", [23, 5000])
def test_integers_far_beyond_64_bits_are_one_line(flag, command, most, says, digits, capsys):
    huge = "9" * digits
    line = _refused(capsys, [command, flag, huge])
    assert f"argument {flag}: expected" in line
    assert len(line) < 300  # the number is cut, not printed whole


def test_a_cutoff_list_is_bounded_in_length_and_in_each_value(capsys):
    line = _refused(capsys, ["score", "-k", ",".join(str(k) for k in range(1, 1002))])
    assert "at most 1,000 cutoffs, got 1,001" in line
    line = _refused(capsys, ["score", "-k", "5,10,100001"])
    assert "at most 100,000, got '100001'" in line


@pytest.mark.parametrize(
    "measure",
    ["P@100001", "P_100001", "ndcg_cut.100001", "P@" + "9" * 5000, "P_" + "9" * 5000],
    ids=["at", "underscore", "dot", "at-5000-digits", "underscore-5000-digits"],
)
def test_a_measures_cutoff_is_bounded_as_k_is(measure, capsys):
    line = _refused(capsys, ["score", "--metrics", measure])
    assert "the cutoff must be at most 100,000" in line
    assert len(line) < 300


#: (config key = value, what its one line says)
CONFIG_BOUNDS = [
    ("k = 100001", "key 'k': expected a positive integer, at most 100,000, got 100001"),
    ("k = [5, 100001]", "key 'k': expected a positive integer, at most 100,000, got [5, 100001]"),
    ("kmax = 99999999999999999999999", "key 'kmax': expected a positive integer, at most 100,000"),
    ("permutations = 100000000", "key 'permutations': expected a positive integer, at most 10,000,000"),
    ("resamples = 1000001", "key 'resamples': expected at least 100 resamples, at most 1,000,000"),
    ("partition_mb = 16385", "key 'partition_mb': expected a positive integer, at most 16,384"),
    (
        "seed = 18446744073709551616",
        "key 'seed': expected a whole number from 0 up, at most 18,446,744,073,709,551,615",
    ),
    (
        'relevance_level = "9223372036854775808"',
        "key 'relevance_level': expected a relevance level of 1 or more, at most",
    ),
    ('metrics = "P@100001"', "the cutoff must be at most 100,000"),
]


@pytest.mark.parametrize("setting, says", CONFIG_BOUNDS)
def test_the_same_bounds_hold_in_a_config_file(setting, says, tmp_path, monkeypatch, capsys):
    (tmp_path / "ragreport.toml").write_text(f"# bounds\n{setting}\n")
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, ["score"])
    assert says in line
    if "metrics" not in setting:  # the config file's problems name the file and the key's line
        assert line.startswith("ragreport: error: ragreport.toml:2: ")


def test_publish_keep_is_bounded_in_its_config_table(tmp_path, monkeypatch, capsys):
    (tmp_path / "ragreport.toml").write_text("[publish]\nkeep = 100001\n")
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, ["publish", "hist"])
    assert "ragreport.toml:2: key 'publish.keep': expected a positive integer, at most 100,000" in line


def test_an_integer_of_thousands_of_digits_in_a_config_file_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "ragreport.toml").write_text("k = " + "9" * 5000 + "\n")
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, ["score"])
    assert line.startswith("ragreport: error: ragreport.toml: expected valid TOML")


# --------------------------------------------------------------------------------------------------
# Memory estimates checked before allocating


def test_resamples_times_columns_beyond_the_memory_limit_is_refused_with_the_estimate(monkeypatch):
    from ragreport.analysis.intervals import bootstrap_interval

    monkeypatch.setattr(budget, "available_memory", lambda: 1 << 30)  # 1 GiB: the limit is half
    scores = np.zeros((3, 100))
    # 2 copies x 8 bytes x 1,000,000 resamples x 100 columns = 1.6e9 bytes = 1.49 GiB > 512 MiB
    with pytest.raises(UsageError) as refused:
        bootstrap_interval(scores, resamples=1_000_000)
    message = str(refused.value)
    assert message.startswith("resamples 1,000,000 over 100 banded columns")  # from Python: the keyword
    assert "about 1.5 GiB" in message and "the limit is 512.0 MiB" in message
    assert "\n" not in message


def test_the_cli_refuses_resamples_that_would_not_fit_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(budget, "available_memory", lambda: 64 << 20)  # 64 MiB: the limit is 32 MiB
    line = _refused(capsys, ["score", "--resamples", "1000000"])
    assert "--resamples 1,000,000 over" in line and "the limit is 32.0 MiB" in line


def test_estimates_under_the_floor_never_ask_the_system(monkeypatch):
    def unasked():
        raise AssertionError("asked")

    monkeypatch.setattr(budget, "available_memory", unasked)
    budget.check_fits(budget.FLOOR - 1, "small")


# --------------------------------------------------------------------------------------------------
# Ids: the longest one does not make every id that wide

LINES = 3000


def _run_with(long_id: str, lines: int = LINES) -> str:
    body = [f"q{i % 30} Q0 d{i} {i + 1} {1000 - i}.5 t" for i in range(lines)]
    body.insert(lines // 2, f"q7 Q0 {long_id} 1 99.5 t")
    return "\n".join(body) + "\n"


def test_a_100000_character_id_is_refused_at_its_line_in_small_memory(write, capsys):
    run = write("run.trec", _run_with("x" * 100_000))
    qrels = write("qrels.txt", "q7 0 d7 1\n")
    tracemalloc.start()
    try:
        line = _refused(capsys, ["score", "--qrels", str(qrels), str(run)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the id is on line LINES // 2 + 1; before, 3,001 ids were padded to 100,000 characters (1.1 GiB)
    assert f"run.trec:{LINES // 2 + 1}: expected an id of at most 2,048 bytes, got 100,000 bytes" in line
    assert peak < 64 << 20, peak


def test_an_id_of_2048_ascii_bytes_is_kept_as_bytes_two_kilobytes_each(write):
    run = write("run.trec", _run_with("u" * 2048))
    qrels = write("qrels.txt", "q7 0 d7 1\n")
    tracemalloc.start()
    try:
        loaded = load_runs([str(run)], qrels=str(qrels))[0]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    ids = loaded.run.doc_ids
    assert ids.dtype == np.dtype("S2048")  # a byte a character: as 'U' it would be 8,192 bytes each
    assert ids.nbytes == (LINES + 1) * 2048
    assert peak < 12 * ids.nbytes, peak  # a few working copies, not a 4x wider unicode array
    assert b"u" * 2048 in set(ids.tolist())


@pytest.mark.parametrize(
    "long_id, refused",
    [
        ("é" * 1024, False),  # 2,048 bytes of UTF-8: the largest allowed
        ("é" * 1024 + "a", True),  # 2,049 bytes
        ("a" * 2048, False),
        ("a" * 2049, True),
        ("😀" * 512, False),  # 4 bytes a character: 2,048
        ("😀" * 512 + "a", True),
    ],
    ids=["2048-bytes-of-e-acute", "2049-bytes", "2048-ascii", "2049-ascii", "2048-bytes-of-emoji", "2049-bytes-emoji"],
)
def test_the_bound_is_2048_bytes_of_utf8(long_id, refused, write):
    run = write("run.trec", _run_with(long_id, lines=10))
    qrels = write("qrels.txt", "q7 0 d7 1\n")
    if refused:
        with pytest.raises(InputError, match=r"run\.trec:6: expected an id of at most 2,048 bytes"):
            load_runs([str(run)], qrels=str(qrels))
    else:
        loaded = load_runs([str(run)], qrels=str(qrels))[0]
        assert long_id.encode() in set(loaded.run.doc_ids.tolist())


LONG = "z" * 3000


@pytest.mark.parametrize(
    "name, content, line, what",
    [
        ("q.trec", f"q1 0 d1 1\nq1 0 {LONG} 1\n", 2, "an id"),
        ("q.trec", f"q1 0 d1 1\n{LONG} 0 d1 1\n", 2, "a query id"),
        ("q.tsv", f"query-id\tcorpus-id\tscore\nq1\t{LONG}\t1\n", 2, "an id"),
        ("q.json", '{"q1": {"d1": 1,\n "' + LONG + '": 1}}', 2, "an id"),
    ],
    ids=["trec-id", "trec-query-id", "beir-tsv", "json-map"],
)
def test_qrels_with_an_overlong_id_are_refused_at_the_line(name, content, line, what, write):
    path = write(name, content)
    with pytest.raises(InputError, match=rf"{name}:{line}: expected {what} of at most 2,048 bytes, got 3,000 bytes"):
        load_qrels(str(path))


@pytest.mark.parametrize(
    "name, content, line, what",
    [
        ("r.trec", f"q1 Q0 d1 1 1 t\n{LONG} Q0 d1 1 1 t\n", 2, "a query id"),
        ("r.csv", f"qid,docid,score\nq1,d1,1\nq1,{LONG},0.5\n", 3, "an id"),
        (
            "r.jsonl",
            json.dumps({"id": "q1", "retrieved": ["d1", LONG], "relevant": ["d1"]}) + "\n",
            1,
            "every retrieved id of query 'q1'",
        ),
        ("r.jsonl", json.dumps({"id": LONG, "retrieved": ["d1"], "relevant": ["d1"]}) + "\n", 1, "'id'"),
        ("r.json", '{"q1": {"d1": 1,\n "' + LONG + '": 0.5}}', 2, "an id"),
    ],
    ids=["trec", "csv", "jsonl-id", "jsonl-query-id", "json-map"],
)
def test_runs_with_an_overlong_id_are_refused_at_the_line_in_every_format(name, content, line, what, write):
    path = write(name, content)
    qrels = write("qrels.txt", "q1 0 d1 1\n")
    with pytest.raises(InputError) as refused:
        load_runs([str(path)], qrels=None if name.endswith("jsonl") else str(qrels))
    message = str(refused.value)
    assert message.startswith(f"{path}:{line}: expected {what}")
    assert "of at most 2,048 bytes, got 3,000 bytes" in message
    assert len(message) < 300 + len(str(path))


def test_a_json_integer_id_of_thousands_of_digits_is_refused_not_converted(write):
    path = write("r.jsonl", '{"id": 1' + "0" * 3000 + ', "retrieved": ["d1"], "relevant": ["d1"]}\n')
    with pytest.raises(InputError, match=r"r\.jsonl:1: expected 'id' of at most 2,048 bytes"):
        load_runs([str(path)])


# --------------------------------------------------------------------------------------------------
# Endless and special files as inputs: refused before opening, promptly, in one line


@pytest.fixture
def files(tmp_path):
    """A folder holding a good run, qrels and report.json, a FIFO nobody writes to, and a socket."""
    (tmp_path / "run.trec").write_text(RUN)
    (tmp_path / "qrels.txt").write_text(QRELS)
    os.mkfifo(tmp_path / "fifo")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tmp_path / "sock"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(
            [
                "--no-config",
                "score",
                "--qrels",
                str(tmp_path / "qrels.txt"),
                str(tmp_path / "run.trec"),
                "--format",
                "json",
            ]
        )
    assert code == 0
    (tmp_path / "report.json").write_text(printed.getvalue())
    yield tmp_path
    listener.close()


SPECIALS = {"/dev/zero": "a character device", "fifo": "a FIFO (named pipe)", "sock": "a socket"}

#: Every input option, with the special file in the place of FILE.
INPUTS = [
    ("score", "FILE"),
    ("score", "--qrels", "FILE", "run.trec"),
    ("score", "--qrels", "qrels.txt", "--meta", "FILE", "run.trec"),
    ("score", "--qrels", "qrels.txt", "--previous", "FILE", "run.trec"),
    ("--config", "FILE", "score"),
    ("score", "--config", "FILE"),
    ("render", "FILE"),
    ("score", "--engine", "stream", "--qrels", "qrels.txt", "FILE"),
    ("score", "--engine", "stream", "--qrels", "FILE", "run.trec"),
    ("build", "--out", "site", "--qrels", "FILE", "run.trec"),
    ("publish", "history", "--qrels", "qrels.txt", "FILE"),
]


@pytest.mark.slow
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("argv", INPUTS, ids=" ".join)
def test_a_device_or_fifo_as_any_input_is_refused_promptly(argv, special, files):
    _refused_as_input(argv, special, files)


@pytest.mark.slow
@pytest.mark.parametrize("argv", INPUTS[:3], ids=" ".join)
def test_a_socket_as_an_input_is_refused_promptly(argv, files):
    _refused_as_input(argv, "sock", files)


def _refused_as_input(argv: tuple[str, ...], special: str, files: Path) -> None:
    args = [special if a == "FILE" else a for a in argv]
    result = _cli(*args, cwd=files)
    assert result.returncode == 2, result.stderr
    line = _one_error_line(result.stderr)
    named = {special, str(files / special)}  # the stream engine names --qrels by its absolute path
    assert line in {f"ragreport: error: {where}: expected a regular file, got {SPECIALS[special]}" for where in named}
    assert not (files / "site").exists() and not (files / "history").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ragreport.toml", "pyproject.toml"])
def test_a_fifo_config_file_in_the_working_folder_is_refused_not_skipped(name, files):
    os.mkfifo(files / name)
    result = _cli("score", cwd=files)
    assert result.returncode == 2
    assert (
        _one_error_line(result.stderr) == f"ragreport: error: {name}: expected a regular file, got a FIFO (named pipe)"
    )


@pytest.mark.slow
def test_a_fifo_beside_a_run_as_its_metadata_is_refused(files):
    os.mkfifo(files / "run.meta.toml")
    result = _cli("score", "--qrels", "qrels.txt", "run.trec", cwd=files)
    assert result.returncode == 2
    assert "run.meta.toml: expected a regular file, got a FIFO (named pipe)" in _one_error_line(result.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--meta", "--config"])
def test_a_metadata_or_config_file_over_one_mebibyte_is_refused(option, files):
    big = files / "big.toml"
    big.write_text("# padding\n" * 110_000)  # 1,100,000 bytes
    argv = ["--config", str(big), "score"] if option == "--config" else ["score", "--meta", str(big), "run.trec"]
    result = _cli(*argv, "--qrels", "qrels.txt", cwd=files) if option == "--meta" else _cli(*argv, cwd=files)
    assert result.returncode == 2
    assert _one_error_line(result.stderr).endswith(
        "big.toml: expected a file of at most 1,048,576 bytes, got a larger one"
    )


# --------------------------------------------------------------------------------------------------
# Outputs never block: a FIFO, a socket or a device named as an output is refused before any run is read

OUTPUTS = [
    ("--single-file", ("build", "--qrels", "qrels.txt", "run.trec", "--single-file", "FILE")),
    ("--single-file", ("render", "report.json", "--single-file", "FILE")),
    ("--comment", ("score", "--qrels", "qrels.txt", "run.trec", "--comment", "FILE")),
    ("--junit", ("score", "--qrels", "qrels.txt", "run.trec", "--require", "nDCG@10>=0.1", "--junit", "FILE")),
    ("--junit", ("render", "report.json", "--format", "json", "--junit", "FILE")),
    ("--comment", ("publish", "history", "--qrels", "qrels.txt", "run.trec", "--comment", "FILE")),
]


@pytest.mark.slow
@pytest.mark.parametrize("special", ["fifo", "sock"])
@pytest.mark.parametrize("option, argv", OUTPUTS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_an_output_naming_a_fifo_or_socket_is_refused_up_front(option, argv, special, files):
    args = [special if a == "FILE" else a for a in argv]
    result = _cli(*args, cwd=files)
    assert result.returncode == 2, result.stderr
    kind = SPECIALS[special]
    assert _one_error_line(result.stderr) == (
        f"ragreport: error: {option} {special} is {kind}, not a regular file; give a file name"
    )
    assert result.stdout == ""  # refused before anything was scored or printed
    assert not (files / "site").exists() and not (files / "history").exists()
    assert (files / special).exists() and not (files / special).is_file()  # left as it was


@pytest.mark.slow
def test_a_fifo_as_the_step_summary_is_refused_up_front(files):
    result = _cli("score", "--qrels", "qrels.txt", "run.trec", cwd=files, env={"GITHUB_STEP_SUMMARY": "fifo"})
    assert result.returncode == 2
    assert _one_error_line(result.stderr) == (
        "ragreport: error: $GITHUB_STEP_SUMMARY fifo is a FIFO (named pipe), not a regular file; give a file name"
    )
    result = _cli(
        "score", "--qrels", "qrels.txt", "run.trec", "--no-step-summary", cwd=files, env={"GITHUB_STEP_SUMMARY": "fifo"}
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("option", ["--single-file", "--comment", "--junit"])
def test_a_character_device_as_an_output_is_refused_before_anything_is_written(option, capsys):
    # /dev/null: the rename of an atomic write would have replaced the device itself. render of a
    # missing report: were the up-front check gone, the command would fail before writing anything.
    line = _refused(capsys, ["render", "no-such-report.json", option, "/dev/null"])
    assert line == f"ragreport: error: {option} /dev/null is a character device, not a regular file; give a file name"
    assert Path("/dev/null").is_char_device()
