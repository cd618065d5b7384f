"""The config file (ragreport/config.py): keys derived from the parser, the command line over the file,
paths under the file's folder, every problem at once, and a build equal to the command line's."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ragreport.cli import build_parser, main
from ragreport.config import (
    FROM_COMMAND_LINE,
    FROM_DEFAULT,
    FROM_FILE,
    ConfigError,
    find_config,
    options_of,
    resolve,
    resolved_settings,
)
from ragreport.core.errors import InputError, UsageError

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
EPOCH = "1764547200"  # 2025-12-01


@pytest.fixture
def here(tmp_path, monkeypatch):
    """The working directory: an empty tmp_path."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _resolve(*argv: str) -> argparse.Namespace:
    return resolve(build_parser(), list(argv))


def _problems(*argv: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        _resolve(*argv)
    return caught.value.problems


# ---------------------------------------------------------------------------------------------
# Keys and values


def test_every_long_option_of_every_command_is_a_key_with_dashes_or_underscores():
    parser = build_parser()
    commands = {a.dest: a for a in parser._actions if isinstance(a, argparse._SubParsersAction)}["command"].choices
    for name, sub in commands.items():
        options = options_of(sub)
        for action in sub._actions:
            if action.dest in ("help", "config", "no_config"):
                assert action.dest not in {o.dest for o in options.values()}
                continue
            for flag in (f for f in action.option_strings if f.startswith("--")):
                assert options[flag[2:].replace("-", "_")].dest == action.dest, (name, flag)
    build = options_of(commands["build"])
    assert build["runs"].dest == "inputs" and build["k"].dest == "k" and build["single_file"].dest == "single_file"
    assert "per_query" in options_of(commands["score"]) and "per_query" not in build


def test_the_file_sets_what_the_command_line_left_out(here):
    (here / "ragreport.toml").write_text(
        'runs = ["bm25.trec", "hybrid.trec"]\nqrels = "qrels.txt"\nk = [10, 20]\nkmax = 40\nprimary = "nDCG@10"\n'
        'gain = "exp"\nno-relevant = "zero"\nmetrics = ["nDCG@10", "R@10"]\nconfidence = 0.9\nquiet = true\n'
        'meta = ["a.toml", "b.toml"]\n[build]\nout = "report"\ntitle = "Week 48"\nsingle_file = "one.html"\n'
    )
    args = _resolve("build")
    assert args.inputs == ["bm25.trec", "hybrid.trec"] and args.qrels == "qrels.txt"
    assert args.k == (10, 20) and args.kmax == 40 and args.primary == "nDCG@10"
    assert args.gain == "exp" and args.no_relevant == "zero" and args.confidence == 0.9 and args.quiet is True
    assert args.metrics == ["nDCG@10", "R@10"] and args.meta == ["a.toml", "b.toml"]
    assert (args.out, args.title, args.single_file) == ("report", "Week 48", "one.html")
    # The Namespace is the one the command line gives for the same settings (config aside).
    cli = _resolve(
        "build",
        "--no-config",
        "bm25.trec",
        "hybrid.trec",
        "--qrels",
        "qrels.txt",
        "-k",
        "10,20",
        "--kmax",
        "40",
        "--primary",
        "nDCG@10",
        "--gain",
        "exp",
        "--no-relevant",
        "zero",
        "--metrics",
        "nDCG@10",
        "--metrics",
        "R@10",
        "--confidence",
        "0.9",
        "--quiet",
        "--meta",
        "a.toml",
        "--meta",
        "b.toml",
        "--out",
        "report",
        "--title",
        "Week 48",
        "--single-file",
        "one.html",
    )
    assert {**vars(args), "config": None, "no_config": True} == vars(cli)


def test_the_command_line_wins_and_replaces_a_list(here):
    (here / "ragreport.toml").write_text(
        'k = 10\ngain = "exp"\nmetrics = ["nDCG@10", "R@10"]\nruns = ["a.trec"]\ncorrection = "bonferroni"\n'
    )
    args = _resolve("score", "-k", "5", "--metrics", "P@5", "b.trec", "--correction", "holm")
    assert args.k == (5,) and args.metrics == ["P@5"] and args.inputs == ["b.trec"]
    assert args.correction == "holm"  # given on the command line, though it is the default
    assert args.gain == "exp"
    settings = resolved_settings(args)["settings"]
    assert {key: settings[key]["source"] for key in ("k", "metrics", "runs", "correction", "gain", "seed")} == {
        "k": FROM_COMMAND_LINE,
        "metrics": FROM_COMMAND_LINE,
        "runs": FROM_COMMAND_LINE,
        "correction": FROM_COMMAND_LINE,
        "gain": FROM_FILE,
        "seed": FROM_DEFAULT,
    }


def test_a_command_table_is_over_the_shared_keys_and_a_shared_key_a_command_lacks_is_left_out(here):
    (here / "ragreport.toml").write_text(
        'k = 10\nout = "shared"\n[score]\nk = 5\nformat = "json"\nper-query = true\n[build]\ntitle = "T"\n'
    )
    score = _resolve("score")
    assert score.k == (5,) and score.format == "json" and score.per_query is True and not hasattr(score, "out")
    build = _resolve("build")
    assert build.k == (10,) and build.out == "shared" and build.title == "T" and not hasattr(build, "format")


def test_values_as_toml_writes_them_or_as_the_command_line_spells_them(here):
    (here / "ragreport.toml").write_text(
        'k = "1,5,10"\nkmax = "40"\nmeta = "one.toml"\nruns = "run.trec"\nseed = 7\nresamples = 200\n'
    )
    args = _resolve("score")
    assert args.k == (1, 5, 10) and args.kmax == 40 and args.meta == ["one.toml"] and args.inputs == ["run.trec"]
    assert args.seed == 7 and args.resamples == 200
    (here / "ragreport.toml").write_text("quiet = false\n")
    assert _resolve("score").quiet is False


def test_options_added_to_the_parser_later_become_keys_with_no_further_code(here):
    """The gates' options came after this module and need nothing of it; so do options yet to come."""
    parser = build_parser()
    build = {a.dest: a for a in parser._actions if isinstance(a, argparse._SubParsersAction)}["command"].choices[
        "build"
    ]
    build.add_argument("--future-level", type=int, default=1)
    build.add_argument("--future-flag", action=argparse.BooleanOptionalAction, default=True)
    build.add_argument("--verbose", "-v", action="count", default=0)
    (here / "sub").mkdir()
    (here / "sub" / "ci.toml").write_text(
        '[build]\nfail_on = ["worse"]\nrequire = ["nDCG@10>=0.40"]\n'
        'future_level = 2\nno_step_summary = true\njunit = "junit.xml"\n'
        "future_flag = false\nverbose = 2\n"
    )
    args = resolve(parser, ["build", "--config", "sub/ci.toml"])
    assert args.fail_on == ["worse"] and args.require == ["nDCG@10>=0.40"] and args.future_level == 2
    assert args.no_step_summary is True and args.junit == os.path.join("sub", "junit.xml")
    assert args.future_flag is False and args.verbose == 2
    (here / "sub" / "ci.toml").write_text(
        '[build]\nfail_on = ["wrose"]\nfuture_level = "two"\nno_step_summary = 1\nfuture_flag = "no"\nverbose = -1\n'
    )
    with pytest.raises(ConfigError) as caught:
        resolve(parser, ["build", "--config", "sub/ci.toml"])
    assert caught.value.problems == [
        """sub/ci.toml:2: key 'build.fail_on': expected one of "worse", "worse-than-margin", "slice-worse", or a list of them, got ["wrose"]""",
        """sub/ci.toml:3: key 'build.future_level': expected an integer, got "two\"""",
        "sub/ci.toml:4: key 'build.no_step_summary': expected true or false, got 1",
        """sub/ci.toml:5: key 'build.future_flag': expected true or false, got "no\"""",
        "sub/ci.toml:6: key 'build.verbose': expected a whole number from 0 up, got -1",
    ]


# ---------------------------------------------------------------------------------------------
# Which file


def test_ragreport_toml_comes_before_pyproject_and_only_one_is_read(here):
    (here / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.ragreport]\nk = 3\ngain = "exp"\n[tool.ragreport.score]\nformat = "json"\n'
    )
    args = _resolve("score")
    assert args.k == (3,) and args.gain == "exp" and args.format == "json"
    assert resolved_settings(args)["config"] == "pyproject.toml"
    (here / "ragreport.toml").write_text("k = 4\n")
    args = _resolve("score")
    assert args.k == (4,) and args.gain is None and args.format == "table"  # no merge with pyproject.toml
    assert resolved_settings(args)["config"] == "ragreport.toml"


def test_a_pyproject_without_our_table_or_broken_elsewhere_is_not_ours(here):
    (here / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config() is None and _resolve("score").k is None
    (here / "pyproject.toml").write_text('[project\nname = "ragreport"\n')
    assert find_config() is None
    (here / "pyproject.toml").write_text("[tool.ragreport]\nk = \n")
    with pytest.raises(InputError) as caught:
        find_config()
    assert str(caught.value).startswith("pyproject.toml:2: expected valid TOML, got ")


def test_the_checkouts_own_pyproject_has_no_settings_so_ragreport_build_builds_the_sample():
    assert find_config(folder=ROOT) is None


@pytest.mark.parametrize("where", ["before", "after"])
def test_config_before_or_after_the_command_and_then_no_default_file(here, where):
    (here / "ragreport.toml").write_text('k = 4\ngain = "exp"\n')
    (here / "ci").mkdir()
    (here / "ci" / "settings.toml").write_text("k = 7\n")
    argv = ["--config", "ci/settings.toml", "score"] if where == "before" else ["score", "--config", "ci/settings.toml"]
    args = _resolve(*argv)
    assert args.k == (7,) and args.gain is None and args.config == os.path.join("ci", "settings.toml")


def test_config_names_a_pyproject_and_no_config_reads_nothing(here):
    (here / "ragreport.toml").write_text("k = 4\n")
    (here / "other").mkdir()
    (here / "other" / "pyproject.toml").write_text("[tool.ragreport.score]\nk = 8\n")
    assert _resolve("score", "--config", "other/pyproject.toml").k == (8,)
    args = _resolve("score", "--no-config")
    assert args.k is None and resolved_settings(args)["config"] is None
    (here / "other" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(InputError, match=r"^other/pyproject.toml: expected a \[tool.ragreport\] table, got none$"):
        _resolve("score", "--config", "other/pyproject.toml")
    with pytest.raises(InputError, match="^nowhere.toml: expected a readable file, got no such file$"):
        _resolve("score", "--config", "nowhere.toml")
    with pytest.raises(UsageError, match="--config and --no-config exclude each other"):
        _resolve("score", "--config", "x.toml", "--no-config")


# ---------------------------------------------------------------------------------------------
# Paths


def test_paths_are_relative_to_the_config_files_folder(here):
    (here / "ci").mkdir()
    absolute = str(here / "elsewhere.trec")
    (here / "ci" / "ragreport.toml").write_text(
        f'runs = ["bm25.trec", "../up.trec", {json.dumps(absolute)}]\nqrels = "qrels.txt"\nmeta = ["m.toml"]\n'
        'previous = "old/report.json"\ntitle = "a/b"\nbaseline = "x/y"\nscheduler = "tcp://s:8786"\n'
        '[build]\nout = "site"\nsingle_file = "one.html"\n'
    )
    args = _resolve("build", "--config", "ci/ragreport.toml")
    ci = Path("ci")
    assert args.inputs == [str(ci / "bm25.trec"), str(ci / "../up.trec"), absolute]
    assert args.qrels == str(ci / "qrels.txt") and args.meta == [str(ci / "m.toml")]
    assert args.previous == str(ci / "old" / "report.json")
    assert args.out == str(ci / "site") and args.single_file == str(ci / "one.html")
    assert (args.title, args.baseline, args.scheduler) == ("a/b", "x/y", "tcp://s:8786")  # not paths
    # On the command line a path stays relative to the working directory.
    assert _resolve("build", "--config", "ci/ragreport.toml", "--qrels", "q.txt").qrels == "q.txt"


def test_a_file_in_the_working_directory_gives_its_paths_as_they_are(here):
    (here / "ragreport.toml").write_text('runs = ["bm25.trec"]\nqrels = "qrels.txt"\n')
    args = _resolve("score")
    assert args.inputs == ["bm25.trec"] and args.qrels == "qrels.txt"


# ---------------------------------------------------------------------------------------------
# Problems: every one at once, a line each


def test_unknown_keys_are_reported_together_with_their_lines_and_a_suggestion(here, capsys):
    (here / "ragreport.toml").write_text(
        '# settings\nkk = 10\ngain = "exp"\nprimery = "nDCG@10"\n\n[build]\ntitel = "x"\nformat = "json"\n'
        "[biuld]\nk = 3\n[score]\nper-query = true\nper_query = false\n"
    )
    assert main(["build"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "ragreport: error: ragreport.toml:2: key 'kk' is not an option of any command (did you mean 'k'?)",
        "ragreport: error: ragreport.toml:4: key 'primery' is not an option of any command (did you mean 'primary'?)",
        "ragreport: error: ragreport.toml:7: key 'build.titel' is not an option of build (did you mean 'title'?)",
        "ragreport: error: ragreport.toml:8: key 'build.format' is not an option of build (it is an option of score and render)",
        "ragreport: error: ragreport.toml:9: table [biuld] is not a command (did you mean [build]?)",
        "ragreport: error: ragreport.toml:13: key 'score.per_query' sets the same option as 'per-query'",
    ]
    assert not (here / "site").exists()


def test_the_config_file_is_not_a_key_and_a_command_name_must_be_a_table(here):
    (here / "ragreport.toml").write_text('config = "other.toml"\nbuild = 3\n')
    assert _problems("score") == [
        "ragreport.toml:1: key 'config' chooses the config file: give --config on the command line",
        "ragreport.toml:2: key 'build' names a command: expected a table [build] of its options, got 3",
    ]


@pytest.mark.parametrize(
    "line, message",
    [
        # integers (the CLI's own type callables: the file takes what the command line takes)
        ('k = "ten"', "key 'k': expected a positive integer, got \"ten\""),
        ("k = [10, 0]", "key 'k': expected a positive integer, got [10, 0]"),
        ("kmax = 4.5", "key 'kmax': expected a positive integer, got 4.5"),
        ("kmax = true", "key 'kmax': expected a positive integer, got true"),
        ("kmax = [10, 20]", "key 'kmax': expected a positive integer, got [10, 20]"),
        ("k = []", "key 'k': expected a positive integer or a list such as 1,5,10, got []"),
        ("resamples = 1e3", "key 'resamples': expected at least 100 resamples, got 1000.0"),
        ("resamples = 10", "key 'resamples': expected at least 100 resamples, got 10"),
        ("seed = -1", "key 'seed': expected a whole number from 0 up, got -1"),
        # floats
        ('confidence = "high"', "key 'confidence': expected a number between 0 and 1, got \"high\""),
        ("confidence = 1.5", "key 'confidence': expected a number strictly between 0 and 1, got 1.5"),
        # choices
        ('gain = "expo"', 'key \'gain\': expected one of "linear", "exp", got "expo"'),
        ('no_relevant = ["zero"]', 'key \'no_relevant\': expected one of "exclude", "zero", got ["zero"]'),
        ("compat = 1", "key 'compat': expected one of \"trec_eval\", got 1"),
        # lists
        ('metrics = ["nDCG@10", 10]', "key 'metrics': expected a string, or a list of them, got [\"nDCG@10\", 10]"),
        ('meta = [["a.toml"]]', "key 'meta': expected a string, or a list of them, got [[\"a.toml\"]]"),
        ("runs = 3", "key 'runs': expected a string, or a list of them, got 3"),
        # booleans
        ('quiet = "yes"', "key 'quiet': expected true or false, got \"yes\""),
        ("quiet = 1", "key 'quiet': expected true or false, got 1"),
        # strings
        ("title = 2026", "key 'title': expected a string, got 2026"),
        ('qrels = {file = "q.txt"}', "key 'qrels': expected a string, got {file = \"q.txt\"}"),
        ("title = 2026-12-01", "key 'title': expected a string, got 2026-12-01"),
    ],
)
def test_wrong_types_name_the_file_the_line_the_key_and_what_was_expected(here, line, message):
    (here / "ragreport.toml").write_text(f"# one setting\n{line}\n")
    assert _problems("build") == [f"ragreport.toml:2: {message}"]


def test_wrong_values_of_every_kind_at_once_and_in_a_command_table(here, capsys):
    (here / "ragreport.toml").write_text(
        'k = "ten"\nconfidence = 2\n[build]\ngain = "expo"\nmeta = [1]\nquiet = "yes"\n[score]\nformat = "html"\n'
    )
    assert main(["build"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "ragreport: error: ragreport.toml:1: key 'k': expected a positive integer, got \"ten\"",
        "ragreport: error: ragreport.toml:2: key 'confidence': expected a number strictly between 0 and 1, got 2",
        'ragreport: error: ragreport.toml:4: key \'build.gain\': expected one of "linear", "exp", got "expo"',
        "ragreport: error: ragreport.toml:5: key 'build.meta': expected a string, or a list of them, got [1]",
        "ragreport: error: ragreport.toml:6: key 'build.quiet': expected true or false, got \"yes\"",
        # another command's table is checked too: a mistake shows before the day it is used
        'ragreport: error: ragreport.toml:8: key \'score.format\': expected one of "table", "json", "markdown", '
        '"trec", "csv", "latex", "openmetrics", got "html"',
    ]


def test_problems_in_pyproject_name_its_lines(here):
    (here / "pyproject.toml").write_text(
        '[project]\nname = "x"\nk = 1\n\n[tool.ragreport]\nk = 0\n[tool.ragreport.build]\nkk = 1\n'
    )
    assert _problems("build") == [
        "pyproject.toml:6: key 'k': expected a positive integer, got 0",
        "pyproject.toml:8: key 'build.kk' is not an option of build (did you mean 'k'?)",
    ]


def test_malformed_toml_is_one_line_with_the_file_and_line(here, capsys):
    (here / "ragreport.toml").write_text('k = 10\ngain = "exp\ntitle = "x"\n')
    assert main(["build"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert re.fullmatch(
        r"ragreport: error: ragreport\.toml:2: expected valid TOML, got .*\(at line 2, column \d+\)\n", err
    )


def test_config_problems_stop_before_any_run_is_read(here, capsys):
    (here / "ragreport.toml").write_text('runs = ["missing.trec"]\nkk = 1\n')
    assert main(["score"]) == 2
    assert capsys.readouterr().err == (
        "ragreport: error: ragreport.toml:2: key 'kk' is not an option of any command (did you mean 'k'?)\n"
    )


# ---------------------------------------------------------------------------------------------
# The settings the program ran on


def test_resolved_settings_are_plain_json_with_their_source(here):
    (here / "ci").mkdir()
    (here / "ci" / "r.toml").write_text('k = [5, 10]\nruns = ["a.trec"]\n[build]\ntitle = "T"\n')
    args = _resolve("build", "--config", "ci/r.toml", "--gain", "exp")
    resolved = resolved_settings(args)
    assert json.loads(json.dumps(resolved)) == resolved
    assert resolved["command"] == "build" and resolved["config"] == os.path.join("ci", "r.toml")
    settings = resolved["settings"]
    assert list(settings)[:3] == ["runs", "qrels", "k"]  # the parser's order, keys as the file spells them
    assert settings["runs"] == {"value": [os.path.join("ci", "a.trec")], "source": FROM_FILE}
    assert settings["k"] == {"value": [5, 10], "source": FROM_FILE}
    assert settings["title"] == {"value": "T", "source": FROM_FILE}
    assert settings["gain"] == {"value": "exp", "source": FROM_COMMAND_LINE}
    assert settings["resamples"] == {"value": 1000, "source": FROM_DEFAULT}
    assert not {"config", "no_config", "command", "help", "format"} & set(settings)
    # Every key it gives is a key of the file: written back, the file gives the same settings.
    (here / "again.toml").write_text(
        "[build]\n"
        + "".join(
            f"{key} = {json.dumps(entry['value'])}\n"
            for key, entry in settings.items()
            if entry["value"] is not None and entry["source"] != FROM_DEFAULT
        )
    )
    again = _resolve("build", "--config", "again.toml")
    assert {k: v["value"] for k, v in resolved_settings(again)["settings"].items()} == {
        k: v["value"] for k, v in settings.items()
    }


def test_resolved_settings_of_a_plain_namespace_are_from_the_command_line():
    args = build_parser().parse_args(["score", "-k", "5"])
    resolved = resolved_settings(args)
    assert resolved["command"] == "score" and resolved["config"] is None
    assert resolved["settings"]["k"] == {"value": [5], "source": FROM_COMMAND_LINE}
    assert resolved["settings"]["runs"] == {"value": [], "source": FROM_COMMAND_LINE}


# ---------------------------------------------------------------------------------------------
# End to end


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_config_file_build_equals_the_command_line_build_byte_for_byte(here, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    for name in ("qrels.trec", "ir_datasets_run.trec"):
        shutil.copy(DATA / name, here / name)
    shutil.copy(DATA / "ir_datasets_run.trec", here / "other.trec")
    (here / "ragreport.toml").write_text(
        'runs = ["ir_datasets_run.trec", "other.trec"]\nqrels = "qrels.trec"\nk = [5, 10]\ngain = "exp"\n'
        'primary = "R@5"\nresamples = 200\nbaseline = "other"\nquiet = true\n'
        '[build]\nout = "from-file"\ntitle = "Week 48"\n'
    )
    assert main(["build"]) == 0
    assert (
        main(
            [
                "build",
                "--no-config",
                "ir_datasets_run.trec",
                "other.trec",
                "--qrels",
                "qrels.trec",
                "-k",
                "5,10",
                "--gain",
                "exp",
                "--primary",
                "R@5",
                "--resamples",
                "200",
                "--baseline",
                "other",
                "--quiet",
                "--out",
                "from-cli",
                "--title",
                "Week 48",
            ]
        )
        == 0
    )
    from_file, from_cli = _files(here / "from-file"), _files(here / "from-cli")
    assert "index.html" in from_file and "report.json" in from_file
    assert from_file == from_cli
    report = json.loads(from_file["report.json"])
    assert report["primary"] == "R@5" and report["runs"][0]["k"] == 5 and report["comparison"]["baseline"] == "other"
    assert report["runs"][0]["conventions"]["gain"] == "exp" and report["runs"][0]["conventions"]["resamples"] == 200


def test_a_config_in_another_folder_builds_as_the_command_line_does_from_here(here, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    (here / "proj").mkdir()
    for name in ("qrels.trec", "ir_datasets_run.trec"):
        shutil.copy(DATA / name, here / "proj" / name)
    (here / "proj" / "ci.toml").write_text(
        'runs = ["ir_datasets_run.trec"]\nqrels = "qrels.trec"\n[build]\nout = "site"\nquiet = true\n'
    )
    assert main(["--config", "proj/ci.toml", "build"]) == 0
    assert main(["build", "proj/ir_datasets_run.trec", "--qrels", "proj/qrels.trec", "--out", "cli", "--quiet"]) == 0
    assert _files(here / "proj" / "site") == _files(here / "cli")


def test_score_reads_the_file_too(here, capsys):
    shutil.copy(DATA / "qrels.trec", here / "qrels.trec")
    shutil.copy(DATA / "ir_datasets_run.trec", here / "run.trec")
    (here / "ragreport.toml").write_text(
        'runs = "run.trec"\nqrels = "qrels.trec"\n[score]\nformat = "trec"\nmetrics = ["P.5"]\ncompat = "trec_eval"\n'
    )
    assert main(["score"]) == 0
    # P_5 by hand: q1 holds d1 and d4 (both relevant) in its top 5, q2 holds d2 (d9 is judged 0).
    assert capsys.readouterr().out == "P_5                   \tall\t0.3000\n"


def test_the_docs_example_is_a_valid_file(here):
    section = (ROOT / "docs" / "config.md").read_text("utf-8")
    example = re.search(r"```toml\n(.*?)```", section, flags=re.S).group(1)
    (here / "ragreport.toml").write_text(example)
    for command in ("build", "score"):
        args = _resolve(command)
        assert args.inputs and args.qrels and args.k
