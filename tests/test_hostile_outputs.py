"""Hostile corpus (issue 14, items 4 and 5): every failure is one line, everything written for others
is escaped for its medium, and a generated walk of the command line never ends in a traceback.

Each case states its input and the exact line (or the exact escape) expected, worked out by hand.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from conftest import PROFILE, examples
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st

from ragreport.cli import INTERNAL_ERROR_STATUS, main
from ragreport.output.exports.reportjson.migrate import expanded
from ragreport.output.site.view.run import slug

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN = "q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.8 r\nq2 Q0 d3 1 0.7 r\nq2 Q0 d9 2 0.6 r\n"
FAST = ("--resamples", "100", "--permutations", "100", "--quiet")
ERROR = re.compile(r"^ragreport: error: .+$")
#: In CI the generated walks draw from one fixed seed (docs/conventions.md section 23): a failure
#: there is reproduced by running again; elsewhere each run explores new examples.
fixed_seed = seed(2026) if PROFILE == "ci" else (lambda test: test)
#: A character no text output may hold raw: controls, DEL, C1, line separators, bidi controls.
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error(argv: list[str], capsys) -> str:
    """The command fails with exit 2 and exactly one line on stderr, ``ragreport: error: ...``."""
    code, _, err = run_cli(argv, capsys)
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and ERROR.match(lines[0]), err
    return lines[0].removeprefix("ragreport: error: ")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.trec").write_text(RUN)
    return tmp_path


# --- Tracebacks that are now one line --------------------------------------------------------------


@pytest.mark.parametrize(
    "name, content, expected",
    [
        # NaN and infinities in metadata: refused with the line of the key, never stored
        (
            "m.meta.toml",
            'name = "x"\nscore = nan\n',
            "m.meta.toml:2: expected metadata 'score' with finite numbers, got nan",
        ),
        (
            "m.meta.toml",
            'name = "x"\n[t]\nv = [1, -inf]\n',
            "m.meta.toml:2: expected metadata 't' with finite numbers, got -inf",
        ),
        (
            "m.meta.json",
            '{"a": 1,\n "score": NaN}',
            "m.meta.json:2: expected metadata 'score' with finite numbers, got nan",
        ),
        ("m.meta.json", '{"score": 1e999}', "m.meta.json:1: expected metadata 'score' with finite numbers, got inf"),
        # nested deeper than report.json is given to hold (32 levels), and deeper than the parsers go
        (
            "m.meta.json",
            '{"v": ' + "[" * 33 + "]" * 33 + "}",
            "m.meta.json:1: expected metadata 'v' nested at most 32 levels, got 33 levels",
        ),
        (
            "m.meta.json",
            '{"v": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "m.meta.json: expected JSON nested less deeply, got nesting deeper than the JSON parser goes (about 1,000 levels)",
        ),
        (
            "m.meta.toml",
            "v = " + "[" * 100_000 + "]" * 100_000 + "\n",
            "m.meta.toml: expected TOML nested less deeply, got nesting deeper than the parser goes",
        ),
        # a lone surrogate escape: no UTF-8 output could hold it
        (
            "m.meta.json",
            '{"name": "ok",\n "judge": "a\\ud800"}',
            "m.meta.json:2: expected text without lone surrogate escapes (\\ud800-\\udfff), got 'a\\ud800'",
        ),
    ],
)
def test_bad_metadata_is_one_line(files, capsys, name, content, expected):
    (files / name).write_text(content)
    line = one_error(
        [
            "build",
            files / "run.trec",
            "--qrels",
            files / "qrels.txt",
            "--meta",
            files / name,
            "--out",
            files / "site",
            *FAST,
        ],
        capsys,
    )
    assert line == f"{files / expected.split(':')[0]}:{expected.split(':', 1)[1]}"
    assert not (files / "site").exists()


def test_a_surrogate_pair_is_one_character_not_a_lone_surrogate(files, capsys):
    (files / "m.meta.json").write_text('{"name": "smile \\ud83d\\ude00"}')
    code, out, err = run_cli(
        [
            "score",
            files / "run.trec",
            "--qrels",
            files / "qrels.txt",
            "--meta",
            files / "m.meta.json",
            "--format",
            "json",
            *FAST,
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(out)["runs"][0]["name"] == "smile \U0001f600"


@pytest.mark.parametrize(
    "name, content, expected",
    [
        (
            "r.jsonl",
            '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n{"id": "q2\\udc00", "retrieved": [], "relevant": ["d3"]}\n',
            "r.jsonl:2: expected text without lone surrogate escapes (\\ud800-\\udfff), got 'q2\\udc00'",
        ),
        (
            "r.jsonl",
            '{"id": "q1", "retrieved": ["d1"], "relevant": ' + "[" * 5000 + "]" * 5000 + "}\n",
            "r.jsonl:1: expected JSON nested less deeply, got nesting deeper than the JSON parser goes (about 1,000 levels)",
        ),
        (
            "r.jsonl",
            '{"id": "q1", "retrieved": ["d1"], "relevant": {"d1": ' + "9" * 5000 + "}}\n",
            "r.jsonl:1: expected an integer grade within signed 64 bits for query 'q1' id 'd1', got "
            "'" + "9" * 56 + "...",
        ),
        # 2^63 does not fit a grade (64-bit); 2^63 - 1 does
        (
            "r.jsonl",
            '{"id": "q1", "retrieved": ["d1"], "relevant": {"d1": 9223372036854775808}}\n',
            "r.jsonl:1: expected an integer grade within signed 64 bits for query 'q1' id 'd1', got 9223372036854775808",
        ),
    ],
)
def test_bad_json_runs_are_one_line(files, capsys, name, content, expected):
    (files / name).write_text(content)
    assert one_error(["score", files / name, *FAST], capsys) == f"{files}/{expected}"


def test_json_qrels_grades_beyond_64_bits(files, capsys):
    (files / "q.json").write_text('{"q1": {"d1": 99999999999999999999999}}')
    assert one_error(["score", files / "run.trec", "--qrels", files / "q.json", *FAST], capsys) == (
        f"{files}/q.json:1: expected an integer grade within signed 64 bits for query 'q1' id 'd1', "
        "got 99999999999999999999999"
    )
    (files / "q.json").write_text('{"q1": {"d1": -9223372036854775808}, "q2": {"d3": 9223372036854775807}}')
    code, _, err = run_cli(["score", files / "run.trec", "--qrels", files / "q.json", *FAST], capsys)
    assert code == 0, err


@pytest.mark.parametrize(
    "metric, expected",
    [
        ("P@99999999999999999999999", "measure 'P@99999999999999999999999': the cutoff must be at most 100,000"),
        ("P_100001", "measure 'P_100001': the cutoff must be at most 100,000"),
        ("P.5,99999999999999999999", "measure 'P.99999999999999999999': the cutoff must be at most 100,000"),
        ("P@\u00b2", "unknown measure 'P@\u00b2': the cutoff after '@' must be a whole number"),
    ],
)
def test_named_cutoffs_are_bounded(files, capsys, metric, expected):
    argv = ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--metrics", metric, *FAST]
    assert one_error(argv, capsys) == expected


def test_gzip_cut_short_past_its_head_is_one_line_naming_the_file(files, capsys):
    lines = "".join(f"q{i} Q0 d{j} {j + 1} {1 / (j + 1)} r\n" for i in range(3000) for j in range(10))
    cut = gzip.compress(lines.encode())[:40_000]
    # detection reads the first 64 KB of text: the stream ends well past them
    assert len(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(cut)) > 3 * (1 << 16)
    (files / "cut.trec.gz").write_bytes(cut)
    assert one_error(["score", files / "cut.trec.gz", "--qrels", files / "qrels.txt", *FAST], capsys) == (
        f"{files}/cut.trec.gz: expected a complete gzip file, got Compressed file ended before the "
        "end-of-stream marker was reached"
    )


def test_confidence_too_close_to_one_is_refused_and_six_nines_works(files, capsys):
    with pytest.raises(SystemExit) as caught:
        main(
            [
                "score",
                str(files / "run.trec"),
                "--qrels",
                str(files / "qrels.txt"),
                "--confidence",
                "0.9999999999999999",
            ]
        )
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].endswith("expected a confidence of at most 0.999999, got '0.9999999999999999'")
    code, out, _ = run_cli(
        [
            "score",
            files / "run.trec",
            "--qrels",
            files / "qrels.txt",
            "--confidence",
            "0.999999",
            "--format",
            "json",
            *FAST,
        ],
        capsys,
    )
    assert code == 0 and json.loads(out)["runs"][0]["conventions"]["confidence"] == 0.999999


# --- A forged --previous ---------------------------------------------------------------------------


@pytest.fixture
def previous(files, capsys):
    """A report.json written by ragreport (score --format json), as a dict."""
    code, out, err = run_cli(
        ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--format", "json", *FAST], capsys
    )
    assert code == 0, err
    return json.loads(out)


def _forge(document, path, value):
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (("date",), ["2026"], "date: expected a date as YYYY-MM-DD or null, got a list"),
        (("fingerprints",), "x", "top-level 'fingerprints' with 'queries' and 'labels'"),
        (("runs", 0, "name"), {"a": 1}, "runs[0].name: expected text, got an object"),
        (("runs", 0, "k"), "10", 'runs[0].k: expected an integer from 1 to 1,000,000, got "10"'),
        (("runs", 0, "k"), True, "runs[0].k: expected an integer from 1 to 1,000,000, got true"),
        (("runs", 0, "conventions"), [], "runs[0].conventions: expected an object, got a list"),
        (("runs", 0, "fingerprints"), {"queries": 7}, "runs[0].fingerprints.queries: expected text, got 7"),
        (("runs", 0, "metrics", "P@10"), 0.5, "runs[0].metrics.P@10: expected an object, got 0.5"),
        (
            ("runs", 0, "metrics", "P@10", "mean"),
            "high",
            'runs[0].metrics.P@10.mean: expected a number or null, got "high"',
        ),
        (("runs", 0, "queries"), {}, "runs[0].queries: expected a list, got an object"),
        (("runs", 0, "queries", 0, "id"), ["q1"], "runs[0].queries[0].id: expected text, got a list"),
        (
            ("runs", 0, "queries", 0, "nDCG@10"),
            10**400,
            "runs[0].queries[0].nDCG@10: expected a number or null, got an integer of 401 digits",
        ),
        (("judgments",), {"q1": {"d1": "2"}}, 'judgments.q1.d1: expected an integer within 64 bits, got "2"'),
        (
            ("judgments",),
            {"q1": {"d1": 2**64}},
            "judgments.q1.d1: expected an integer within 64 bits, got 18446744073709551616",
        ),
        (("judgments",), {"q1": {"d1": 1.5}}, "judgments.q1.d1: expected an integer within 64 bits, got 1.5"),
        (
            ("runs",),
            [{"name": "run"}, {"name": "run"}],
            'runs[1].name: expected a name listed once, got "run" again (also runs[0])',
        ),
    ],
)
def test_a_forged_previous_report_is_one_line_naming_the_field(files, previous, capsys, path, value, expected):
    previous = expanded(previous)  # as schema ragreport/1 wrote it: one object per query
    _forge(previous, path, value)
    (files / "prev.json").write_text(json.dumps(previous))
    line = one_error(
        ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--previous", files / "prev.json", *FAST], capsys
    )
    assert line.startswith(f"{files}/prev.json") and expected in line


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (("runs", 0, "queries"), [], "runs[0].queries: expected an object, got a list"),
        (("runs", 0, "queries"), {}, "runs[0].queries.status: expected this key, got none"),
        (("runs", 0, "queries", "id"), ["q1"], 'runs[0].queries.id[0]: expected an integer from 0 up, got "q1"'),
        (("runs", 0, "queries", "status", 0), 10**6, "queries.status' holds 1000000, not an index"),
        (
            ("runs", 0, "queries", "nDCG@10", 0),
            10**400,
            "runs[0].queries[0].nDCG@10: expected a number or null, got an integer of 401 digits",
        ),
        (("runs", 0, "queries", "nDCG@10"), [0.5], "column 'nDCG@10' holds 1 values for"),
        (("query_ids",), ["q1", 2], "query_ids[1]: expected text, got 2"),
        (
            ("judgments", "grades", 0),
            "2",
            'judgments.grades[0]: expected an integer within 64 bits, got "2"',
        ),
        (("judgments", "ids"), [0], "judgments.ids: expected text, got a list"),
        (("judgments", "ids"), "@@", "'judgments.ids' is not base-64"),
        (("runs", 0, "lists", "ids"), "AAAA", "'lists.ids' holds 3 indices for lengths that add up to"),
    ],
)
def test_a_forged_compact_previous_report_is_one_line_naming_the_field(files, previous, capsys, path, value, expected):
    _forge(previous, path, value)
    (files / "prev.json").write_text(json.dumps(previous))
    line = one_error(
        ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--previous", files / "prev.json", *FAST], capsys
    )
    assert line.startswith(f"{files}/prev.json") and expected in line


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_previous_report_with_non_finite_numbers_is_refused(files, previous, capsys, word):
    text = json.dumps(previous, indent=1).replace('"seed": 0', f'"seed": {word}', 1)
    (files / "prev.json").write_text(text)
    line_no = next(n for n, t in enumerate(text.splitlines(), 1) if f'"seed": {word}' in t)
    line = one_error(
        [
            "build",
            files / "run.trec",
            "--qrels",
            files / "qrels.txt",
            "--previous",
            files / "prev.json",
            "--out",
            files / "site",
            *FAST,
        ],
        capsys,
    )
    assert line == (
        f"{files}/prev.json:{line_no}: expected a report.json written by ragreport build: finite numbers only, got {word}"
    )


# --- Clearer errors --------------------------------------------------------------------------------


def test_a_folder_given_as_a_file_says_so(files, capsys):
    (files / "dir").mkdir()
    base = ["score", files / "run.trec", "--qrels", files / "qrels.txt", *FAST]
    assert (
        one_error(["score", files / "run.trec", "--qrels", files / "dir"], capsys)
        == f"{files}/dir: expected a file, got a folder"
    )
    assert one_error([*base, "--meta", files / "dir"], capsys) == f"{files}/dir: expected a file, got a folder"
    assert one_error([*base, "--previous", files / "dir"], capsys) == f"{files}/dir: expected a file, got a folder"
    # a run may be a folder of partitions, for the other engines: only there the hint is given
    assert one_error(["score", files / "dir", "--qrels", files / "qrels.txt"], capsys) == (
        f"{files}/dir: expected a file (a folder of partition files needs --engine stream or dask), got a folder"
    )


def test_qrels_without_runs_is_refused_without_naming_the_sample(files, capsys):
    line = one_error(["score", "--qrels", files / "qrels.txt"], capsys)
    assert line == (
        "--qrels needs run files to score: without runs ragreport scores its preloaded sample, which carries "
        "its own judgments"
    )


def test_an_empty_run_says_it_has_no_rows():
    from ragreport.core.errors import UsageError
    from ragreport.core.model import Judgments, Run
    from ragreport.scoring.join import join
    from ragreport.scoring.scorable import check_scorable

    judged = join(Run.from_lists("empty", [], source="empty.parquet"), Judgments.from_lists([("q1", ["d1"], [1])]))
    with pytest.raises(UsageError) as caught:
        check_scorable(judged, "qrels.txt")
    assert str(caught.value) == "empty.parquet: the run has no rows, so nothing can be scored"


def test_a_file_name_with_a_newline_is_still_one_line(files, capsys):
    odd = files / "two\nlines.trec"
    odd.write_text("q1 Q0 d1 1 high r\n")
    line = one_error(["score", odd, "--qrels", files / "qrels.txt", *FAST], capsys)
    assert line.startswith(f"{files}/two\\x0alines.trec:1: expected ")


# --- Slugs -----------------------------------------------------------------------------------------


def test_names_that_clean_up_alike_get_distinct_pages_and_tabs(files, capsys):
    hashed = slug("a b", set())  # 'a-b-' and 8 hex digits
    names = [hashed, "a b", "a_b", "a-b"]
    runs = []
    for i, name in enumerate(names):
        (files / f"r{i}.trec").write_text(RUN)
        (files / f"r{i}.meta.json").write_text(json.dumps({"name": name}))
        runs.append(files / f"r{i}.trec")
    code, _, err = run_cli(
        [
            "build",
            *runs,
            "--qrels",
            files / "qrels.txt",
            "--out",
            files / "site",
            "--single-file",
            files / "one.html",
            *FAST,
        ],
        capsys,
    )
    assert code == 0, err
    pages = sorted(p.name for p in (files / "site").glob("run-*.html"))
    assert len(pages) == 4 and pages == sorted({*pages})
    html = (files / "one.html").read_text()
    ids = re.findall(r'<article id="run-([^"]+)"', html)
    assert len(ids) == len(set(ids)) == 4
    for run_id in ids:  # every tab links to exactly one run, whose heading is its own name
        assert html.count(f'id="run-{run_id}"') == 1
    headings = dict(re.findall(r'<h1 id="run-([^"]+)-h">([^<]*)</h1>', html))
    assert sorted(headings.values()) == sorted(["a b", "a-b", "a_b", hashed])


# --- Escaping for each medium ----------------------------------------------------------------------

EVIL = "evil\x1b[2J\u202eabc"


@pytest.fixture
def evil(files):
    (files / "run.meta.json").write_text(json.dumps({"name": EVIL}))
    return files


def test_the_terminal_table_shows_controls_and_bidi_as_escapes(evil, capsys):
    code, out, _ = run_cli(["score", evil / "run.trec", "--qrels", evil / "qrels.txt", *FAST], capsys)
    assert code == 0
    assert "\x1b" not in out and "\u202e" not in out
    assert "evil\\x1b[2J\\u202eabc  (K = 10)" in out


def test_markdown_shows_them_as_escapes_too(evil, capsys):
    code, out, _ = run_cli(
        ["score", evil / "run.trec", "--qrels", evil / "qrels.txt", "--format", "markdown", *FAST], capsys
    )
    assert code == 0
    assert "\x1b" not in out and "\u202e" not in out
    # made visible, then escaped as Markdown: the backslashes doubled, the [ escaped
    assert "### evil\\\\x1b\\[2J\\\\u202eabc (K = 10)" in out


def test_trec_lines_cannot_be_forged_by_a_name(evil, capsys):
    (evil / "other.trec").write_text(RUN)
    (evil / "other.meta.json").write_text(json.dumps({"name": "b\tall\t1.0000\nP_5 x"}))
    code, out, _ = run_cli(
        [
            "score",
            evil / "run.trec",
            evil / "other.trec",
            "--qrels",
            evil / "qrels.txt",
            "--format",
            "trec",
            "-q",
            *FAST,
        ],
        capsys,
    )
    assert code == 0
    for line in out.splitlines():
        assert len(line.split("\t")) == 3, line
    runids = [line.split("\t")[2] for line in out.splitlines() if line.startswith("runid")]
    assert runids == ["evil\\x1b[2J\\u202eabc", "b\\x09all\\x091.0000\\x0aP_5\\x20x"]


def test_trec_per_query_ids_are_fields_whatever_a_reader_let_through():
    from ragreport.output.exports.text import trec_lines

    document = {
        "runs": [
            {
                "name": "r",
                "measures": {"P@1": {"trec_eval": "P_1", "interval": "wilson", "mean": 0.5}},
                "queries": [{"id": "q 1\n\tx", "scored": True, "P@1": 1.0}],
            }
        ]
    }
    assert (
        trec_lines(document, True)
        == "P_1                   \tq\\x201\\x0a\\x09x\t1.0000\nP_1                   \tall\t0.5000\n"
    )


def test_latex_names_are_escaped_and_controls_made_visible(evil, capsys):
    code, out, _ = run_cli(
        ["score", evil / "run.trec", "--qrels", evil / "qrels.txt", "--format", "latex", *FAST], capsys
    )
    assert code == 0
    assert "evil\\textbackslash{}x1b{[}2J\\textbackslash{}u202eabc &" in out


def test_csv_keeps_the_name_as_data_quoted_by_rfc_4180(files, capsys):
    (files / "run.meta.json").write_text(json.dumps({"name": 'a,"b"\nc'}))
    code, out, _ = run_cli(
        ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--format", "csv", *FAST], capsys
    )
    assert code == 0
    import csv
    import io

    rows = list(csv.reader(io.StringIO(out)))
    assert {row[0] for row in rows[1:]} == {'a,"b"\nc'}
    assert '"a,""b""\nc"' in out


def test_a_previous_reports_date_that_is_no_date_is_refused_naming_the_field(files, previous, capsys):
    # It used to reach summary.md (escaped there); the declared schema now holds it to YYYY-MM-DD.
    previous["date"] = "<img src=x onerror=alert(1)> *b* [l](http://e) |\n# H\u202e"
    (files / "prev.json").write_text(json.dumps(previous))
    line = one_error(
        ["score", files / "run.trec", "--qrels", files / "qrels.txt", "--previous", files / "prev.json", *FAST], capsys
    )
    assert line.startswith(f"{files}/prev.json: date: expected a date as YYYY-MM-DD or null, got ")
    assert "\u202e" not in line and "\n" not in line


def test_the_site_isolates_names_and_the_title_shows_escapes(evil, capsys):
    code, _, err = run_cli(
        [
            "build",
            evil / "run.trec",
            "--qrels",
            evil / "qrels.txt",
            "--out",
            evil / "site",
            "--title",
            "T\u202eitle",
            *FAST,
        ],
        capsys,
    )
    assert code == 0, err
    index = (evil / "site" / "index.html").read_text()
    assert "<title>T\\u202eitle</title>" in index
    assert f'<bdi class="mono">{EVIL}</bdi> scores ' in index.replace("&#34;", '"')
    assert f"<bdi>{EVIL}</bdi></a>: per-query table" in index
    page = next((evil / "site").glob("run-*.html")).read_text()
    assert "<title>evil\\x1b[2J\\u202eabc · T\\u202eitle</title>" in page
    assert '<p class="lede">Run from <bdi class="mono">run.trec</bdi>, scored' in page


# --- The last line of defence ----------------------------------------------------------------------


def test_an_unforeseen_input_error_is_one_line_and_a_bug_is_a_traceback_with_a_hint(files, capsys, monkeypatch):
    import ragreport.cli.commands as cli

    def deep(args, progress, previous=None, whole_lists=True):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(cli, "_analyse", deep)
    line = one_error(["score", files / "run.trec", "--qrels", files / "qrels.txt"], capsys)
    assert line.startswith("an input could not be read (RecursionError: maximum recursion depth exceeded)")

    def bug(args, progress, previous=None, whole_lists=True):
        raise KeyError("oops")

    monkeypatch.setattr(cli, "_analyse", bug)
    code, _, err = run_cli(["score", files / "run.trec", "--qrels", files / "qrels.txt"], capsys)
    assert code == INTERNAL_ERROR_STATUS
    assert "Traceback" in err and "KeyError: 'oops'" in err
    assert err.splitlines()[-1].startswith("ragreport: internal error: this is a bug in ragreport")


# --- The walker: generated hostile inputs through the command line ---------------------------------

#: Lines near a valid one of each format, and bytes no format expects.
NEAR_LINES = {
    ".trec": st.sampled_from(
        [
            "q1 Q0 d1 1 0.9 r",
            "q1 Q0 d1 1 nan r",
            "q1 Q0 d1 1 1e999 r",
            "q1 Q0 d1 x 0.5 r",
            "q1 Q0",
            "q1\x00 Q0 d1 1 1 r",
            "q1 Q0 d\u202e1 1 1 r",
            "q1 Q0 d1 1 1_0 r",
            "q2 Q0 d3 1 " + "9" * 400 + " r",
            "\ufeffq1 Q0 d1 1 1 r",
        ]
    ),
    ".jsonl": st.sampled_from(
        [
            '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}',
            '{"id": "q1\\ud800", "retrieved": [], "relevant": []}',
            '{"id": 1e999, "retrieved": ["d1"]}',
            '{"id": "q2", "retrieved": [[[]]], "relevant": {"d3": 99999999999999999999}}',
            '{"id": "q3", "retrieved": ["d1"], "relevant": {"d1": NaN}}',
            "[" * 3000,
            '{"id": "q1"',
            "null",
            "{}",
            '{"id": "q\\n1", "retrieved": ["d\\u001b"], "relevant": ["d\\u001b"], "meta": {"a": [1, 2]}}',
        ]
    ),
    ".json": st.sampled_from(
        [
            '{"q1": {"d1": 0.9}}',
            '{"q1": {"d1": NaN}}',
            '{"q1": {"d1": "x"}}',
            '{"q1": []}',
            "[]",
            "{" * 3000,
            '{"q1": {"d1": 1e400}}',
            '{"q1\\udfff": {"d1": 1}}',
            '{"q1": {"d1": 1, "d1": 2}}',
            '{"q1": {}}',
        ]
    ),
    ".tsv": st.sampled_from(
        [
            "query_id\tdoc_id\tscore",
            "q1\td1\t0.5",
            'q1\t"d,1"\t0.5',
            "q1\td1",
            "q1\td1\tinf",
            "\t\t",
            "q1\td1\t1_0",
        ]
    ),
}
META = st.sampled_from(
    [
        "",
        'name = "x\\u001b[31m"\n',
        "v = nan\n",
        "v = " + "[" * 50 + "]" * 50 + "\n",
        'date = "yesterday"\n',
        '{"name": "\\ud800"}',
        '{"pool_depth": 1e400}',
        "\x00\xff",
        'name = ""\n',
        '{"v": ' + "[" * 2000 + "]" * 2000 + "}",
    ]
)
FLAGS = st.lists(
    st.sampled_from(
        [
            ("-k", "5"),
            ("-k", "0"),
            ("-k", "1,2,x"),
            ("--kmax", "3"),
            ("--metrics", "P@5,ndcg_cut_10"),
            ("--metrics", "P@99999999999999999999"),
            ("--metrics", "nope"),
            ("--confidence", "0.9999999999999999"),
            ("--confidence", "nan"),
            ("--gain", "exp"),
            ("--compat", "trec_eval"),
            ("--no-relevant", "zero"),
            ("--relevance-level", "2"),
            ("--primary", "R@10"),
            ("--primary", "x\n"),
            ("--baseline", "missing"),
            ("--order", "file"),
            ("--missing", "skip"),
            ("--denominator", "min"),
            ("--require", "P@10>=0.9"),
            ("--require", "bad rule"),
            ("--max-drop", "P@10=0.1"),
            ("--fail-on", "worse"),
            # the options added since the first round (docs/conventions.md section 23)
            ("--require", "P@10>=0_1"),
            ("--max-drop", "P@10=\uff10.\uff15"),
            ("--text-queries", "99999999999999999999999"),
            ("--text-queries", "1_0"),
            ("--text-queries", "2"),
            ("--corpus", "{folder}/corpus.jsonl"),
            ("--queries", "{folder}/queries.jsonl"),
            ("--query-meta", "{folder}/qmeta.jsonl"),
            ("--query-meta", "{folder}/qmeta.csv"),
            ("--slice", "topic"),
            ("--comment", "{folder}/comment.md"),
            ("--junit", "{folder}/junit.xml"),
            ("--corpus", "{folder}/fifo"),
            ("--title", "@someone ::warning::x"),
            # the third round (issue 41): the audit, measure parameters, --min-effect, irds: ids
            ("--audit", "{folder}/audit.qrels"),
            ("--audit", "irds:no-such-dataset"),
            ("--min-effect", "0_1"),
            ("--min-effect", "1e-300"),
            ("--min-effect", "\u0660.\u0665"),
            ("--metrics", "RR(rel=\u0662)@10"),
            ("--metrics", "IPrec(recall=0.3)@0.5"),
            ("--metrics", "nDCG@10,RBP,IPrec@0.123"),
            ("--metrics", "nDCG(dcg='exp-log2')@10,RBP(p=0_5)"),
        ]
    ),
    max_size=3,
)
#: Text and metadata files near a valid one, for the options above.
SIDE_FILES = {
    "corpus.jsonl": st.sampled_from(
        [
            '{"_id": "d1", "title": "t", "text": "x"}\n',
            '{"meta": {"id": "d1"}, "_id": "d2", "text": "y"}\n',
            '{"_id": "d1", "text": "\\ud800"}\n',
            '{"_id": "d1", "text": "x", "n": 1e400}\n',
            '{"_id": "d1", "text": "x", "n": ' + "9" * 5000 + "}\n",
            "[" * 3000 + "\n",
            "d1\tno json\n",
        ]
    ),
    "queries.jsonl": st.sampled_from(
        ['{"_id": "q1", "text": "capital"}\n', '{"_id": "q1", "text": "\\udfff"}\n', "<top><num>1</num></top>\n", "{"]
    ),
    "qmeta.jsonl": st.sampled_from(
        [
            '{"id": "q1", "topic": "a"}\n{"id": "q2", "topic": "b"}\n',
            '{"id": "q1", "topic": NaN}\n',
            '{"id": "q1", "topic": 18446744073709551616}\n',
            '{"id": "q1", "topic": [1]}\n',
            '{"id": "q1"}\n{"id": "q1"}\n',
        ]
    ),
    "qmeta.csv": st.sampled_from(["query_id,topic\nq1,a\nq2,b\n", "query_id,topic,topic\nq1,a,b\n", 'id,"t\n']),
    # human labels for --audit: grades anywhere in 64 bits and past them, ids the gate refuses, a run
    "audit.qrels": st.sampled_from(
        [
            "q1 0 d1 1\nq2 0 d3 2\n",
            "q1 0 d1 1000\nq2 0 d3 9223372036854775807\n",
            "q1 0 d1 9223372036854775808\n",
            "q1 0 d1 1.5\n",
            "q1 0 d\u202e1 1\n",
            "q1 0  1\n",
            "q1 Q0 d1 1 0.9 r\n",
            "".join(f"q{i} 0 d{i} {i * 1000}\n" for i in range(12)),
        ]
    ),
}


#: Any text a JSON file can carry (no lone surrogate: that one is refused at read, tested above).
ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


def _no_constant(word: str):
    raise AssertionError(f"report.json holds {word}")


@st.composite
def scorable_case(draw):
    """A run that scores, with hostile words where a reader lets them through: ids, the run's name
    and the title, so that every output writer meets them."""
    ids = draw(st.lists(ANY_TEXT, min_size=2, max_size=2, unique=True))
    lines = [
        json.dumps({"id": "q1", "query": ids[0], "retrieved": [ids[0], "d2"], "relevant": {ids[0]: 1, "d2": 0}}),
        json.dumps({"id": ids[1], "retrieved": ["d3", "d1"], "relevant": ["d1"]}),
    ]
    meta = json.dumps({"name": draw(ANY_TEXT), "notes": draw(ANY_TEXT), "extra": draw(ANY_TEXT)})
    command = draw(st.sampled_from(["score", "build"]))
    fmt = draw(st.sampled_from([None, "table", "json", "markdown", "trec", "csv", "latex"]))
    title = draw(ANY_TEXT.filter(lambda t: "\x00" not in t))
    return ".jsonl", "\n".join(lines) + "\n", False, QRELS, meta, command, fmt, [("--title", title)], False


@st.composite
def hostile_case(draw):
    if draw(st.integers(0, 2)) == 0:
        return draw(scorable_case())
    ext = draw(st.sampled_from(sorted(NEAR_LINES)))
    if draw(st.booleans()):
        body = "\n".join(draw(st.lists(NEAR_LINES[ext], min_size=0, max_size=5)))
    else:
        body = draw(st.binary(max_size=200)).decode("latin-1")
    ending = draw(st.sampled_from(["\n", "\r\n", "\r", ""]))
    raw = body.replace("\n", ending) if ending else body
    gz = draw(st.booleans()) and draw(st.booleans())
    qrels_text = draw(st.sampled_from([QRELS, "", "q1 0 d1 x\n", '{"q1": {"d1": 2}}', "\x00\x01", "q1 0 d1 1\r"]))
    meta = draw(st.one_of(st.none(), META))
    command = draw(st.sampled_from(["score", "score", "build"]))
    fmt = draw(st.sampled_from([None, "table", "json", "markdown", "trec", "csv", "latex"]))
    return ext, raw, gz, qrels_text, meta, command, fmt, draw(FLAGS), draw(st.booleans())


@st.composite
def side_files(draw):
    return {name: draw(texts) for name, texts in SIDE_FILES.items()}


@fixed_seed
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=hostile_case(), sides=side_files())
def test_the_cli_walker_never_shows_a_traceback(tmp_path_factory, capsys, monkeypatch, case, sides):
    ext, raw, gz, qrels_text, meta, command, fmt, flags, with_previous = case
    folder = tmp_path_factory.mktemp("walk")
    for name, text in sides.items():
        (folder / name).write_text(text, encoding="utf-8")
    if not (folder / "fifo").exists():
        os.mkfifo(folder / "fifo")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    flags = [(flag, value.replace("{folder}", str(folder))) for flag, value in flags]
    run = folder / f"run{ext}{'.gz' if gz else ''}"
    data = raw.encode("utf-8", "surrogatepass")
    run.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    qrels = folder / ("qrels.json" if qrels_text.startswith("{") else "qrels.txt")
    qrels.write_text(qrels_text, encoding="utf-8")
    argv: list[str | Path] = [command, run]
    if ext != ".jsonl":
        argv += ["--qrels", qrels]
    if meta is not None:
        meta_file = folder / ("m.meta.json" if meta.startswith("{") else "m.meta.toml")
        meta_file.write_bytes(meta.encode("utf-8", "surrogatepass"))
        argv += ["--meta", meta_file]
    if with_previous:
        (folder / "prev.json").write_text('{"schema": 1, "runs": "x"}' if gz else '{"date": NaN}')
        argv += ["--previous", folder / "prev.json"]
    if command == "build":
        argv += ["--out", folder / "site"]
    elif fmt is not None:
        argv += ["--format", fmt] + (["-q"] if fmt == "trec" else [])
    for flag in flags:
        if flag[0] != "--title" or command == "build":
            argv += list(flag)
    argv += list(FAST)
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: its usage, then one 'ragreport COMMAND: error:' line
        err = capsys.readouterr().err
        event("usage error")
        assert exc.code == 2 and "Traceback" not in err
        assert re.match(r"^ragreport( \w+)?: error: ", err.splitlines()[-1]), err
        return
    captured = capsys.readouterr()
    event(f"exit {code}")  # --hypothesis-show-statistics: how many examples reach each outcome
    assert "Traceback" not in captured.err, captured.err
    assert code in (0, 1, 2), captured.err
    if code == 2:
        lines = captured.err.splitlines()
        assert len(lines) == 1 and ERROR.match(lines[0]), captured.err
    if code == 0 and command == "score" and fmt != "json" and fmt != "csv":  # text for people or trec_eval
        allowed = "\n\t" if fmt == "trec" else "\n"
        raw = [c for c in captured.out if c not in allowed and RAW.match(c)]
        assert not raw, (fmt, raw)
    if code in (0, 1) and command == "score" and fmt == "trec":  # a field never holds a separator
        assert all(len(line.split("\t")) == 3 for line in captured.out.splitlines()), captured.out
    if code in (0, 1) and (fmt == "json" or command == "build"):  # strict JSON: never NaN nor inf
        text = captured.out if command == "score" else (folder / "site" / "report.json").read_text(encoding="utf-8")
        json.loads(text, parse_constant=_no_constant)
    if code == 0 and command == "build":
        summary = (folder / "site" / "summary.md").read_text(encoding="utf-8")
        assert not [c for c in summary if c != "\n" and RAW.match(c)]
    if code == 1:  # only a gate fails with 1
        assert any(f[0] in ("--require", "--max-drop", "--fail-on") for f in flags), captured.err


# --- Bytes that are not UTF-8, from the operating system --------------------------------------------


def test_a_file_name_that_is_not_utf8_names_its_run_with_escapes(files, capsys):
    odd = files / "x\udcff.trec"  # the byte 0xff in a file name, as Python holds it
    odd.write_text(RUN)
    code, _, err = run_cli(["build", odd, "--qrels", files / "qrels.txt", "--out", files / "site", *FAST], capsys)
    assert code == 0, err
    report = json.loads((files / "site" / "report.json").read_bytes())
    assert (report["runs"][0]["name"], report["runs"][0]["source"]) == ("x\\xff", "x\\xff.trec")


def test_a_text_option_that_is_not_utf8_is_one_line(files, capsys):
    line = one_error(
        [
            "build",
            files / "run.trec",
            "--qrels",
            files / "qrels.txt",
            "--title",
            "a\udcffb",
            "--out",
            files / "site",
            *FAST,
        ],
        capsys,
    )
    assert line == "--title: expected UTF-8 text, got 'a\\xffb' (its stray bytes shown as \\xNN)"


# --- A forged report given to render ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (
            ("runs", 0, "conventions", "confidence"),
            0.9999999999999999,
            "runs[0].conventions.confidence: expected a number from 0 to 0.999999, got 0.9999999999999999",
        ),
        (("runs", 0, "name"), 5, "runs[0].name: expected text, got 5"),
        (
            ("runs", 0, "cutoffs"),
            [10**30],
            "runs[0].cutoffs[0]: expected an integer from 1 to 1,000,000, got an integer of 31 digits",
        ),
        (("runs", 0, "sweep", "k"), [True], "runs[0].sweep.k[0]: expected an integer from 1 to 1,000,000, got true"),
        (("settings", "metrics"), {"P": 5}, "settings.metrics: expected a list, got an object"),
        (("settings", "gates"), ["x"], "settings.gates: expected an object or null, got a list"),
        (("settings", "permutations"), 0, "settings.permutations: expected an integer from 1 to 10,000,000, got 0"),
        (
            ("drift",),
            {"previous": "v1", "basis": {"runs": []}},
            "drift.basis.fingerprints: expected this key, got none",
        ),
    ],
)
def test_a_forged_report_given_to_render_is_one_line(files, previous, capsys, path, value, expected):
    _forge(previous, path, value)
    (files / "forged.json").write_text(json.dumps(previous))
    line = one_error(["render", files / "forged.json", "--format", "table"], capsys)
    assert line == f"{files}/forged.json: {expected}"


def test_running_out_of_memory_is_one_line(files, capsys, monkeypatch):
    import ragreport.cli.commands as cli

    def hungry(args, progress, previous=None, whole_lists=True):
        raise MemoryError

    monkeypatch.setattr(cli, "_analyse", hungry)
    assert one_error(["score", files / "run.trec", "--qrels", files / "qrels.txt"], capsys).startswith(
        "out of memory: "
    )


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5,
)
_BASE_REPORT: dict[str, str] = {}


def _base_report(folder: Path) -> str:
    """report.json of two runs over 12 queries, made once for the whole walk: audited (the audit
    needs 10 queries) and with measures that take parameters, so that a mutation reaches the
    stored human labels and the measures' parameters too (issue 41)."""
    if "text" not in _BASE_REPORT:
        queries = [f"q{i}" for i in range(12)]
        (folder / "qrels.txt").write_text("".join(f"{q} 0 d1 {i % 3}\n{q} 0 d2 1\n" for i, q in enumerate(queries)))
        (folder / "audit.qrels").write_text("".join(f"{q} 0 d1 {i % 2}\n{q} 0 d2 2\n" for i, q in enumerate(queries)))
        for name, first in (("a", "d1"), ("b", "d2")):
            other = "d2" if first == "d1" else "d1"
            (folder / f"{name}.trec").write_text(
                "".join(f"{q} Q0 {first} 1 2 {name}\n{q} Q0 {other} 2 1 {name}\n" for q in queries)
            )
        code = main(
            [
                "build",
                str(folder / "a.trec"),
                str(folder / "b.trec"),
                "--qrels",
                str(folder / "qrels.txt"),
                "--audit",
                str(folder / "audit.qrels"),
                "--metrics",
                "nDCG@10,RR(rel=2)@10,RBP(p=0.5),IPrec@0.5",
                "--out",
                str(folder / "site"),
                *FAST,
            ]
        )
        assert code == 0
        _BASE_REPORT["text"] = (folder / "site" / "report.json").read_text()
    return _BASE_REPORT["text"]


@st.composite
def mutation(draw):
    steps = draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=6))
    return steps, draw(JSON_VALUES), draw(st.booleans())


@fixed_seed
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutation())
def test_a_mutated_report_as_previous_or_rendered_never_shows_a_traceback(tmp_path_factory, capsys, case):
    """One field of a real report.json replaced by any JSON value, anywhere in the tree."""
    steps, value, delete = case
    folder = tmp_path_factory.mktemp("forge")
    document = json.loads(_base_report(tmp_path_factory.mktemp("base")))
    node: Any = document
    parent: Any = None
    key: Any = None
    for step in steps:  # walk down by the drawn numbers, as far as there are children
        children = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not children:
            break
        parent, key = node, children[step % len(children)]
        node = parent[key]
    if parent is not None:
        if delete and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = value
    (folder / "forged.json").write_text(json.dumps(document))
    (folder / "qrels.txt").write_text(QRELS)
    (folder / "a.trec").write_text(RUN)
    for argv in (
        ["score", folder / "a.trec", "--qrels", folder / "qrels.txt", "--previous", folder / "forged.json", *FAST],
        ["render", folder / "forged.json", "--format", "markdown", "--quiet"],
    ):
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        event(f"{argv[0]} exit {code}")
        assert "Traceback" not in captured.err, (argv[0], captured.err)
        assert code in (0, 2), captured.err
        if code == 2:
            lines = captured.err.splitlines()
            assert len(lines) == 1 and ERROR.match(lines[0]), captured.err


def test_gate_lines_on_stderr_show_a_run_names_controls_as_escapes(evil, capsys):
    code, _, err = run_cli(
        [
            "build",
            evil / "run.trec",
            "--qrels",
            evil / "qrels.txt",
            "--out",
            evil / "site",
            "--require",
            "P@10>=0.9",
            *FAST,
        ],
        capsys,
    )
    assert code == 1
    assert "\x1b" not in err and "\u202e" not in err
    assert "evil\\x1b[2J\\u202eabc" in err


def test_the_wrote_line_is_one_line_whatever_the_folder_is_called(files, capsys):
    out = files / "si\nte"
    code = main(
        [
            "build",
            str(files / "run.trec"),
            "--qrels",
            str(files / "qrels.txt"),
            "--out",
            str(out),
            "--resamples",
            "100",
            "--permutations",
            "100",
        ]
    )
    err = capsys.readouterr().err
    assert code == 0 and (out / "index.html").is_file()
    assert err == f"ragreport: wrote {files}/si\\x0ate/index.html\n"
