"""The command line's arguments: :func:`build_parser`, the commands and their options with their bounds.

``ragreport/config.py`` reads the config file's keys, their types, choices and shapes from this
parser, so an option added here is a key of the file with no further code (CONTRIBUTING's recipe).
"""

from __future__ import annotations

import argparse

from .. import __version__
from ..analysis.compare import Correction
from ..analysis.intervals import MAX_RESAMPLES
from ..analysis.power import EFFECT_RANGE, MIN_EFFECT, MIN_EFFECT_LOW
from ..analysis.randomization import MAX_PERMUTATIONS
from ..analysis.texts import MAX_TEXT_QUERIES
from ..config import add_config_arguments
from ..core.errors import ArgumentError, UsageError, shorten
from ..core.grammar import WHOLE, read_number
from ..core.model import COMPAT_PRESETS, MAX_CONFIDENCE, Denominator, Gain, Missing, NoRelevant, Order
from ..output.exports.gates import FAIL_ON
from ..reading.columns import ID_FROM, ROLES, SCORE_ROLES, ColumnMap, parse_columns
from ..reading.registry import FORMATS, LABELS
from ..scoring.cutoffs import MAX_CUTOFF, MAX_CUTOFFS
from ..scoring.partition import ENGINES, PARTITION_BYTES

#: The library's keywords the command line names otherwise; every other keyword is its own flag
#: (``input_format``: ``--input-format``). :func:`flag` is the one place an
#: :class:`~ragreport.core.errors.ArgumentError` from the library gets the command line's names.
KEYWORD_FLAGS = {
    "family": "--metrics",  # analyse(family=...): what is compared
    "measures": "--metrics",  # evaluate(measures=...): what is scored by name
    "slice_by": "--slice",
    "metas": "--meta",
    "k": "-k",
}


def flag(argument: str) -> str:
    """The command line's name of a library keyword: ``permutations`` -> ``--permutations``."""
    return KEYWORD_FLAGS.get(argument, "--" + argument.replace("_", "-"))


def said(error: BaseException) -> str:
    """An error as the command line says it: the arguments it names spelt as flags."""
    return error.spelled(flag) if isinstance(error, ArgumentError) else str(error)


#: The conventions' switches, each an option taking its enum's values (``conventions_from`` reads them).
SWITCHES = {"denominator": Denominator, "gain": Gain, "missing": Missing, "no_relevant": NoRelevant, "order": Order}

#: Fewer bootstrap resamples than this give bands that move with every seed.
MIN_RESAMPLES = 100


def _at_least(least: int, what: str, most: int):
    """An argparse type: a whole number from ``least`` to ``most``; ``what`` names it in the error.
    A bound placed here holds for the config file too."""

    def parse(text: str) -> int:
        digits = text.strip()
        if not WHOLE.fullmatch(digits):  # the number grammar: ASCII digits, no '_' (int() takes both)
            raise argparse.ArgumentTypeError(f"expected {what}, got {shorten(text)}")
        # Python refuses to read thousands of digits; no bound needs 21
        value = int(digits) if len(digits) <= 20 else (least - 1 if digits.startswith("-") else most + 1)
        if value < least:
            raise argparse.ArgumentTypeError(f"expected {what}, got {shorten(text)}")
        if value > most:
            raise argparse.ArgumentTypeError(f"expected {what}, at most {most:,}, got {shorten(text)}")
        return value

    return parse


# --- Upper bounds of the size flags (docs/conventions.md section 18) -------------------------------
#: --keep: reports a history keeps; no history page is meant to list more.
MAX_KEEP = 100_000
#: --partition-mb: a partition is read whole into memory (several times its size while parsed);
#: past 16 GiB the memory engine does the same work.
MAX_PARTITION_MB = 16_384
#: --seed and --relevance-level: 64-bit values, as the grades they are compared with.
MAX_SEED = (1 << 64) - 1
MAX_LEVEL = (1 << 63) - 1

_seed = _at_least(0, "a whole number from 0 up", MAX_SEED)
_resamples = _at_least(MIN_RESAMPLES, f"at least {MIN_RESAMPLES} resamples", MAX_RESAMPLES)
_cutoff = _at_least(1, "a positive integer", MAX_CUTOFF)
_permutations = _at_least(1, "a positive integer", MAX_PERMUTATIONS)
_partition_mb = _at_least(1, "a positive integer", MAX_PARTITION_MB)
_keep = _at_least(1, "a positive integer", MAX_KEEP)
_level = _at_least(1, "a relevance level of 1 or more", MAX_LEVEL)


def _cutoffs(text: str) -> tuple[int, ...]:
    values = tuple(_cutoff(part.strip()) for part in text.split(",") if part.strip())
    if not values:
        raise argparse.ArgumentTypeError(f"expected a positive integer or a list such as 1,5,10, got {text!r}")
    if len(values) > MAX_CUTOFFS:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_CUTOFFS:,} cutoffs, got {len(values):,}")
    return values


def _column_map(option: str, roles: tuple[str, ...]):
    """An argparse type: a :class:`~ragreport.reading.columns.ColumnMap` of ``roles`` (``--columns``: the
    runs' tables, ``--scores-columns``: the score file's); a wrong pair is argparse's error."""

    def parse(text: str) -> ColumnMap | None:
        try:
            return parse_columns(text, option, roles)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{option}: ")) from None

    return parse


def _min_effect(text: str) -> float:
    """--min-effect: a difference from :data:`~ragreport.analysis.power.MIN_EFFECT_LOW` to 1 (a
    metric's scale is 0 to 1), in the one number grammar (no ``0_1``, no non-ASCII digits)."""
    value = read_number(text)
    if value is None or not (MIN_EFFECT_LOW <= value <= 1):
        raise argparse.ArgumentTypeError(f"expected {EFFECT_RANGE}, got {shorten(text)}")
    return value


def _confidence(text: str) -> float:
    value = read_number(text)  # the one grammar: no 0_95, no non-ASCII digits
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, got {text!r}")
    if value > MAX_CONFIDENCE:  # closer to 1 and the band's quantile (0.5 + c/2) rounds to 1
        raise argparse.ArgumentTypeError(f"expected a confidence of at most {MAX_CONFIDENCE}, got {text!r}")
    return value


def _add_scoring_arguments(parser: argparse.ArgumentParser, *, previous: bool = True) -> None:
    parser.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="run files (RAG JSONL, TREC run, or JSON {qid: {docid: score}}), optionally "
        ".gz; none: the preloaded sample",
    )
    parser.add_argument(
        "--qrels", metavar="FILE", help="judgments for every run: TREC qrels or JSON {qid: {docid: grade}}"
    )
    parser.add_argument(
        "-k",
        type=_cutoffs,
        metavar="K",
        help="the cutoff (default 10; the sample's 5); several as 1,5,10 are scored from one matrix, the first is the "
        f"report's K. At most {MAX_CUTOFF:,} (100 times trec_eval's usual depth), {MAX_CUTOFFS:,} of them",
    )
    parser.add_argument(
        "--kmax",
        type=_cutoff,
        metavar="KMAX",
        help=(
            "largest cutoff of the K sweep (default the runs' longest list, at most 100, at least max(10, 2K); "
            f"at most {MAX_CUTOFF:,}, as K)"
        ),
    )
    parser.add_argument(
        "--compat",
        choices=sorted(COMPAT_PRESETS),
        help="set every convention to a peer's choice (trec_eval: --missing skip --no-relevant "
        "zero, R denominators, linear gain, score order in single precision); explicit switches still win",
    )
    for dest, text in (
        ("denominator", "Recall@K and AP@K divide by R (relevant, default) or min(R, K)"),
        ("gain", "nDCG gain: the grade (linear, default) or 2^grade - 1 (exp)"),
        ("missing", "judged queries the run lacks: scored as empty lists (zero, default) or left out (skip)"),
        (
            "no_relevant",
            "judged queries with no relevant id: left out (exclude, default) or averaged in as 0 (zero, as trec_eval)",
        ),
        (
            "order",
            "scored runs: by score with trec_eval's tie rule (score, default), the same with scores in "
            "single precision as trec_eval reads them (trec_eval), by score with ties by id ascending as "
            "ir_measures orders them for RR@k (ir_measures_rr), or file order",
        ),
    ):
        parser.add_argument(flag(dest), choices=[m.value for m in SWITCHES[dest]], help=text)
    parser.add_argument(
        "--relevance-level",
        type=_level,
        metavar="N",
        help="grades of N and above are relevant (default 1), as trec_eval -l N, ir_measures rel=N, "
        "ranx rel_lvl; nDCG still gains from every grade of 1 or more, as trec_eval's ndcg",
    )
    parser.add_argument(
        "--resamples",
        type=_resamples,
        default=1000,
        help=f"bootstrap resamples (1000; from {MIN_RESAMPLES} to {MAX_RESAMPLES:,}, and refused when resamples x "
        "metrics x cutoffs would take more than half the available memory)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="bootstrap seed (0; a 64-bit whole number)")
    parser.add_argument("--confidence", type=_confidence, default=0.95, help="band confidence (0.95)")
    parser.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="FILE",
        help="run metadata (TOML or JSON); once per run, in order. Default: "
        "RUN.meta.toml or RUN.meta.json beside each run",
    )
    parser.add_argument(
        "--input-format",
        choices=FORMATS,
        help="override format detection; llamaindex, mlflow, openinference and rank_eval read what those tools "
        "write (docs/rag-stacks.md)",
    )
    parser.add_argument(
        "--columns",
        type=_column_map("--columns", ROLES),
        metavar="MAP",
        help="read each run as a table of these columns (JSONL, JSON array, CSV/TSV with list cells, Parquet): "
        f"role=column pairs, the roles {', '.join(ROLES)} (id=qid,query=question,retrieved=doc_ids,relevant=gold)",
    )
    parser.add_argument(
        "--id-from",
        choices=ID_FROM,
        default="query",
        help="the id of a table row without one: a hash of its query text (query, default: the same question "
        "keeps its id across runs) or its row number (row: row-1, row-2, ...)",
    )
    parser.add_argument(
        "--labels",
        choices=LABELS,
        default="qrels",
        help="with --qrels, which labels score a RAG JSONL run whose rows carry their own 'relevant': the "
        "qrels (qrels, default; its own are set aside, said in one note) or its own (own; the qrels then "
        "score only the runs without labels of their own)",
    )
    scale = parser.add_argument_group("runs larger than memory or than one machine")
    scale.add_argument(
        "--engine",
        choices=ENGINES,
        default="memory",
        help="memory: read each run whole (default); stream: score a TREC run by partitions of "
        "whole queries one after another, in bounded memory; dask: score the partitions on a "
        "Dask cluster (pip install 'ragreport[dask]'). A run is a TREC file whose lines are "
        "grouped by query, or a folder of TREC or Parquet partition files",
    )
    scale.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: the cluster's scheduler (default: a local cluster of processes)",
    )
    scale.add_argument(
        "--partition-mb",
        type=_partition_mb,
        default=PARTITION_BYTES >> 20,
        metavar="MB",
        help=f"run file per partition (default {PARTITION_BYTES >> 20} MB, at most {MAX_PARTITION_MB:,}: a partition "
        "is held in memory)",
    )
    parser.add_argument(
        "--metrics",
        action="append",
        default=[],
        metavar="NAMES",
        help="measures by name, comma-separated or repeated, in trec_eval (P_5, P.5,10, "
        "ndcg_cut_10, recip_rank), ir_measures (P@5, nDCG@10, RR@10) or ranx (precision@5, "
        "ndcg_burges@10, mrr@10) spelling; with several runs (or --previous) they are the comparison "
        "family: only they are compared, tested and corrected together (counts are not compared)",
    )
    sliced = parser.add_argument_group("slices by query metadata")
    sliced.add_argument(
        "--query-meta",
        metavar="FILE",
        help="per-query metadata (CSV/TSV with a header, or JSONL): a query id and any columns, over "
        "the 'meta' of RAG JSONL lines",
    )
    sliced.add_argument(
        "--slice",
        action="append",
        default=[],
        metavar="KEY",
        help="a metadata key to slice the queries by (repeatable; default: every text key with 2 to 50 values)",
    )
    texts = parser.add_argument_group("the text behind the ids")
    texts.add_argument(
        "--queries",
        metavar="FILE",
        help="the queries' text where the runs give none: BEIR queries.jsonl, TSV qid<TAB>text, a TREC "
        "topic file, or a BEIR folder",
    )
    texts.add_argument(
        "--corpus",
        metavar="FILE",
        help="the documents' text, shown in the queries' top K: BEIR corpus.jsonl (or its folder), "
        "Pyserini JSONL, or TSV id<TAB>text (MS MARCO collection.tsv); .gz too; read once, keeping "
        "only the documents shown",
    )
    texts.add_argument(
        "--text-queries",
        type=_at_least(0, "a whole number, 0 or more", MAX_TEXT_QUERIES),
        default=1_000,
        metavar="N",
        help="show the documents' text for the N queries the report points at most (1000)",
    )
    compare = parser.add_argument_group("comparing runs and reports")
    compare.add_argument(
        "--primary",
        metavar="METRIC",
        help="the metric the report leads with: the headline, the charts' first view and the "
        "queries that moved most (default nDCG@K; a compared metric at K, e.g. R@10, RR@10)",
    )
    compare.add_argument("--baseline", metavar="NAME", help="the run the others are compared with (default: the first)")
    compare.add_argument(
        "--correction",
        choices=[m.value for m in Correction],
        default="holm",
        help="multiple-comparison correction of the p-values (holm)",
    )
    compare.add_argument(
        "--permutations",
        type=_permutations,
        default=10_000,
        help=f"sign flips of the randomization test (10000; every one of them when fewer; at most "
        f"{MAX_PERMUTATIONS:,}: p-values then resolve to 1e-7)",
    )
    compare.add_argument(
        "--min-effect",
        type=_min_effect,
        default=MIN_EFFECT,
        metavar="DELTA",
        help="the smallest difference worth finding: each comparison says how many queries would find it "
        "with 80%% power (0.02)",
    )
    compare.add_argument(
        "--audit",
        metavar="FILE",
        help="human judgments for a sample of queries (any qrels format, at least 10 queries, each one the "
        "--qrels also judge): the model labels' agreement with them, and figures corrected by them that "
        "the headline and the gates read",
    )
    external = parser.add_argument_group("scores computed outside ragreport")
    external.add_argument(
        "--scores",
        metavar="FILE",
        help="per-query scores from a judge or another tool (JSONL, JSON array, CSV/TSV with a header, Parquet: "
        "query_id or id, an optional run and judge, every other numeric column a named score): each gets its band, "
        'its comparison with the baseline and its gates (--require "b:faithfulness>=0.8"), in a table '
        "of its own",
    )
    external.add_argument(
        "--scores-columns",
        type=_column_map("--scores-columns", SCORE_ROLES),
        metavar="ROLE=COLUMN,...",
        help=f"the score file's own column names, the roles {', '.join(SCORE_ROLES)} "
        "(id=qid,run=system,judge=model); --columns maps the runs' tables",
    )
    external.add_argument(
        "--scores-scale",
        action="append",
        default=[],
        metavar="SCALE",
        help="the scores' scale, LOW-HIGH for every score or NAME=LOW-HIGH for one (repeatable); "
        "default inferred from the values (0/1, 0-1, 1-5, 0-10, 0-100)",
    )
    if not previous:  # publish measures drift against the history's previous report
        return
    compare.add_argument(
        "--previous",
        metavar="REPORT_JSON",
        help="report.json of an earlier build: figures then and now when the query set and the label set are the same",
    )


class _CommandParser(argparse.ArgumentParser):
    """A command's parser that takes options between positionals: ``publish DIR --qrels q.txt
    run.trec`` reads DIR and the run as positionals, as ``build --qrels q.txt run.trec`` does
    (plain argparse gives every positional its value at the first one it meets, so the run would
    be left over)."""

    _inner = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inner:  # parse_known_intermixed_args calls back in: the plain parse
            return super().parse_known_args(args, namespace)
        self._inner = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inner = False


#: Each command's line in ``ragreport --help`` and the description its own help opens with, in that order.
COMMAND_HELP = {
    "score": ("score runs and print the figures", "Score runs and print every metric with its band and convention."),
    "build": (
        "build the static report site",
        "Build a self-contained static report site (opens offline, from a file, in any browser).",
    ),
    "publish": (
        "add this evaluation to a history folder for a docs site",
        "Build the report into a history folder (DIR/reports/LABEL/) and rewrite the history page "
        "(DIR/index.html): every report newest first, each metric's trend across reports, and the drift since "
        "the previous report. Every link is relative: DIR works at any sub-path of a docs site.",
    ),
    "pr": (
        "build a pull request's report against its base, with the comment and CI files",
        "Build the head's report into --out, judged against the base's report (--base), and write comment.md, "
        "summary.md, junit.xml and metrics.txt beside the folder, for any CI. Inside GitHub Actions with "
        "GITHUB_TOKEN set, on a pull request, it also creates or updates the report's one comment (found by a "
        "hidden marker). The exit status is the gates' (docs/ci.md).",
    ),
    "render": (
        "render a stored report.json again, without the run files",
        "Render a report.json written by ragreport build (or score --format json) again: the same site, byte "
        "for byte, or its figures on stdout. The build's options are read from the report's settings.",
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragreport", description="Score retrieval runs with every convention stated and an interval on every mean."
    )
    parser.add_argument("--version", action="version", version=f"ragreport {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    commands.required = True
    score, build, publish, pr, render = (
        commands.add_parser(name, help=summary, description=description)
        for name, (summary, description) in COMMAND_HELP.items()
    )
    _add_scoring_arguments(score)
    score.add_argument(
        "--format",
        choices=("table", "json", "markdown", "trec", "csv", "latex", "openmetrics"),
        default="table",
        help="output: a terminal table (default), the JSON document, Markdown, trec_eval's layout "
        "(trec), CSV (a row per run and metric), a LaTeX booktabs table or OpenMetrics text (GitLab's "
        "metrics.txt: a gauge per figure, a sample per run and metric)",
    )
    score.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="with --format trec: a line per query and measure too, as trec_eval -q; with --format "
        "csv: a row per run, query and metric",
    )
    _add_scoring_arguments(build)
    build.add_argument(
        "--out",
        metavar="DIR",
        help="site folder (default: site); replaced only when it holds an earlier ragreport build",
    )
    build.add_argument("--title", metavar="TEXT", help="the report's title")
    build.add_argument(
        "--single-file",
        metavar="FILE",
        help="write one HTML file holding everything (for a pull request or an e-mail); the "
        "site folder is then written only when --out is given too",
    )
    # Optional for argparse so that a config file's `history` key can give it; _publish requires it.
    publish.add_argument("history", metavar="DIR", nargs="?", help="the history folder (made when missing)")
    _add_scoring_arguments(publish, previous=False)
    publish.add_argument(
        "--label",
        metavar="LABEL",
        help="the report's name in the history and its folder (default: the report's date, made "
        "unique); a label published before is replaced, no other report is touched",
    )
    publish.add_argument(
        "--keep", type=_keep, metavar="N", help=f"keep the newest N reports, removing older ones (at most {MAX_KEEP:,})"
    )
    publish.add_argument("--title", metavar="TEXT", help="the report's title (the history page's too)")
    _add_scoring_arguments(pr, previous=False)
    pr.add_argument(
        "--base",
        metavar="PATH",
        help="the base's report: a report.json, a built site or a `publish` history folder (its newest "
        "report); absent or missing, the head is judged alone and the comment says so",
    )
    pr.add_argument("--out", metavar="DIR", help="the head's site folder (default: site)")
    pr.add_argument("--title", metavar="TEXT", help="the report's title (one comment per title)")
    pr.add_argument(
        "--report-url", metavar="URL", help="where the full report can be opened (http or https): linked in the comment"
    )
    for command in (score, build, publish, pr):
        command.add_argument(
            "--quiet", action="store_true", help="no progress lines on stderr (shown on a terminal once work takes 2 s)"
        )
        _add_gate_arguments(command)
    render.add_argument("report", metavar="REPORT_JSON", help="a report.json written by ragreport build")
    render.add_argument(
        "--out",
        metavar="DIR",
        help="site folder (default: site, unless --single-file or --format is given); replaced only "
        "when it holds an earlier ragreport build",
    )
    render.add_argument("--single-file", metavar="FILE", help="write one HTML file holding everything")
    render.add_argument(
        "--title", metavar="TEXT", help="the report's title (default: the one the report was built with)"
    )
    render.add_argument(
        "--format",
        choices=("table", "markdown", "json", "csv", "latex", "openmetrics"),
        help="print to stdout instead of writing a site: a terminal table, Markdown, the JSON "
        "document, CSV, a LaTeX table or OpenMetrics text (GitLab's metrics.txt)",
    )
    render.add_argument(
        "-q", "--per-query", action="store_true", help="with --format csv: a row per run, query and metric"
    )
    render.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _add_gate_arguments(render)
    # The config file (ragreport/config.py): --config before the command and after every command above.
    add_config_arguments(parser)
    return parser


def _add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    gates = parser.add_argument_group("gates and CI (exit 1 when a gate fails)")
    gates.add_argument(
        "--fail-on",
        action="append",
        default=[],
        choices=FAIL_ON,
        help="worse: fail when a compared run is clearly worse than the baseline (band below 0 and corrected "
        "p below alpha) on the primary metric, or on each metric of --metrics; worse-than-margin: when the "
        "band of its difference reaches minus --min-effect or below (non-inferiority: a drop of the margin "
        "cannot be ruled out); slice-worse: when it is clearly worse on a slice of the per-query metadata "
        "(--slice) large enough to read",
    )
    gates.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="RULE",
        help="fail when a run's lower band bound is under a value: 'nDCG@10>=0.40', one run: "
        "'bm25:R@100>=0.8', on the mean instead: 'mean:nDCG@10>=0.40'; repeatable",
    )
    gates.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="RULE",
        help="non-inferiority: fail when the paired band's lower bound against the baseline (and against "
        "--previous) is below minus the drop: 'nDCG@10=0.02'; repeatable",
    )
    gates.add_argument("--junit", metavar="FILE", help="write JUnit XML: one test case per gate check")
    gates.add_argument(
        "--comment",
        metavar="FILE",
        help="write a pull-request comment (Markdown within GitHub's 65,536 characters, trimmed by whole "
        "blocks, saying what was left out)",
    )
    gates.add_argument(
        "--no-step-summary",
        action="store_true",
        help="do not append the Markdown summary to $GITHUB_STEP_SUMMARY (appended when it is set)",
    )
