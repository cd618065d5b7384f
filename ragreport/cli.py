"""Command line: parse arguments, call the library, turn a ragreport error into one line and exit 2."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import threading
import time
import traceback
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

from . import __version__
from .analysis.compare import MAX_PERMUTATIONS, Correction
from .analysis.family import choose_family
from .analysis.intervals import MAX_RESAMPLES
from .analysis.result import Analysis
from .api import DEFAULT_K, SAMPLE_K, analyse, build, check_gates, evaluate, open_history, publish, reanalyse
from .api import document as report_document
from .config import ConfigError, add_config_arguments, resolve, resolved_settings
from .core.errors import RagreportError, UsageError, one_line, os_text, os_text_problem, shorten
from .core.model import COMPAT_PRESETS, MAX_CONFIDENCE, Conventions, Denominator, Gain, Missing, NoRelevant, Order
from .output.ci import junit, workflow_errors
from .output.document import with_gates
from .output.export import csv_text, latex_table
from .output.gates import FAIL_ON, GateResult, GateRules, check_available, failed, parse_rules, rules_from
from .output.site import refuse_special_output, write_text_file
from .output.text import comment, markdown, table, trec_lines
from .output.view.build import build_view
from .output.wording import messages as say
from .reading.registry import FORMATS
from .reading.stored import load_report
from .scoring.catalogue import SUITE
from .scoring.cutoffs import MAX_CUTOFF, MAX_CUTOFFS
from .scoring.measures import Measure, default_trec_measures, parse_measures, trec_sort_key
from .scoring.partition import ENGINES, PARTITION_BYTES

#: Errors Python raises on input no reader foresaw (nested too deep, text that cannot be encoded,
#: a compressed stream cut short, a number beyond a C integer): one line, not a traceback.
UNREADABLE = (RecursionError, UnicodeError, EOFError, zlib.error, OverflowError)
#: The exit status of a bug in ragreport (sysexits' EX_SOFTWARE): 1 is a failed gate, 2 bad input.
INTERNAL_ERROR_STATUS = 70

#: Fewer bootstrap resamples than this give bands that move with every seed.
MIN_RESAMPLES = 100


def _at_least(least: int, what: str, most: int | None = None):
    """An argparse type: a whole number no smaller than ``least`` (nor larger than ``most``);
    ``what`` names it in the error. A bound placed here holds for the config file too."""

    def parse(text: str) -> int:
        value: int | None
        digits = text.strip()
        if len(digits) > 20 and digits.lstrip("+-").isdigit():  # Python refuses to read thousands of digits;
            value = least - 1 if digits.startswith("-") else (most or least) + 1  # no bound needs 21
        else:
            try:
                value = int(text)
            except ValueError:
                value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"expected {what}, got {shorten(text)}")
        if most is not None and value > most:
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


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, got {text!r}")
    if value > MAX_CONFIDENCE:  # closer to 1 and the band's quantile (0.5 + c/2) rounds to 1
        raise argparse.ArgumentTypeError(f"expected a confidence of at most {MAX_CONFIDENCE}, got {text!r}")
    return value


def _choices(enum) -> list[str]:
    return [m.value for m in enum]


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
        help="the cutoff (default 10; the sample's 5); several as "
        "1,5,10 are scored from one matrix, the first is the "
        f"report's K. At most {MAX_CUTOFF:,} (100 times trec_eval's usual depth), {MAX_CUTOFFS:,} of them",
    )
    parser.add_argument(
        "--kmax",
        type=_cutoff,
        metavar="KMAX",
        help=f"largest cutoff of the K sweep (default max(10, 2K); at most {MAX_CUTOFF:,}, as K)",
    )
    parser.add_argument(
        "--compat",
        choices=sorted(COMPAT_PRESETS),
        help="set every convention to a peer's choice (trec_eval: --missing skip --no-relevant "
        "zero, R denominators, linear gain, score order in single precision); explicit switches still win",
    )
    parser.add_argument(
        "--denominator",
        choices=_choices(Denominator),
        help="Recall@K and AP@K divide by R (relevant, default) or min(R, K)",
    )
    parser.add_argument(
        "--gain", choices=_choices(Gain), help="nDCG gain: the grade (linear, default) or 2^grade - 1 (exp)"
    )
    parser.add_argument(
        "--missing",
        choices=_choices(Missing),
        help="judged queries the run lacks: scored as empty lists (zero, default) or left out (skip)",
    )
    parser.add_argument(
        "--no-relevant",
        choices=_choices(NoRelevant),
        help="judged queries with no relevant id: left out (exclude, default) or averaged in as 0 (zero, as trec_eval)",
    )
    parser.add_argument(
        "--order",
        choices=_choices(Order),
        help="scored runs: by score with trec_eval's tie rule (score, default), the same with scores in "
        "single precision as trec_eval reads them (trec_eval), or file order",
    )
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
    parser.add_argument("--input-format", choices=FORMATS, help="override format detection")
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
        type=_at_least(0, "a whole number, 0 or more"),
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
        choices=_choices(Correction),
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragreport", description="Score retrieval runs with every convention stated and an interval on every mean."
    )
    parser.add_argument("--version", action="version", version=f"ragreport {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    commands.required = True

    score = commands.add_parser(
        "score",
        help="score runs and print the figures",
        description="Score runs and print every metric with its band and convention.",
    )
    _add_scoring_arguments(score)
    score.add_argument(
        "--format",
        choices=("table", "json", "markdown", "trec", "csv", "latex"),
        default="table",
        help="output: a terminal table (default), the JSON document, Markdown, trec_eval's layout "
        "(trec), CSV (a row per run and metric) or a LaTeX booktabs table",
    )
    score.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="with --format trec: a line per query and measure too, as trec_eval -q; with --format "
        "csv: a row per run, query and metric",
    )

    build = commands.add_parser(
        "build",
        help="build the static report site",
        description="Build a self-contained static report site (opens offline, from a file, in any browser).",
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
    publish = commands.add_parser(
        "publish",
        help="add this evaluation to a history folder for a docs site",
        description="Build the report into a history folder (DIR/reports/LABEL/) and rewrite the "
        "history page (DIR/index.html): every report newest first, each metric's trend across "
        "reports, and the drift since the previous report. Every link is relative: DIR works at "
        "any sub-path of a docs site.",
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
        "--keep",
        type=_keep,
        metavar="N",
        help=f"keep the newest N reports, removing older ones (at most {MAX_KEEP:,})",
    )
    publish.add_argument("--title", metavar="TEXT", help="the report's title (the history page's too)")
    for command in (score, build, publish):
        command.add_argument(
            "--quiet", action="store_true", help="no progress lines on stderr (shown on a terminal once work takes 2 s)"
        )
        _add_gate_arguments(command)
    _add_render_arguments(commands)
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
        "p below alpha) on the primary metric, or on each metric of --metrics",
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


def _gate_rules(args: argparse.Namespace) -> GateRules:
    """The gate rules, checked before any run is read; a rule from the config file is named as such."""
    try:
        return _checked_rules(args)
    except UsageError as exc:
        resolved = resolved_settings(args)
        settings = resolved["settings"]
        from_file = [
            k for k in ("fail_on", "require", "max_drop") if settings.get(k, {}).get("source") == "config file"
        ]
        if from_file and resolved["config"]:
            raise UsageError(f"{resolved['config']}: key '{'/'.join(from_file)}': {exc}") from None
        raise


def _checked_rules(args: argparse.Namespace) -> GateRules:
    named = list(parse_measures(args.metrics)) if args.metrics else []
    rules = parse_rules(args.fail_on, args.require, args.max_drop, gated=[m.label() for m in named] if named else None)
    cutoffs = _asked_cutoffs(args)
    check_available(rules, [m.label(c) for c in cutoffs for m in SUITE] + [m.label() for m in named])
    return rules


def _ci_outputs(
    args: argparse.Namespace, analysis: Analysis, results: tuple[GateResult, ...], *, stdout_is_data: bool
) -> int:
    """The gates' lines, the step summary, the comment, JUnit and workflow commands; the exit status."""
    if args.command == "render" and args.format is not None and not results:
        return 0  # an export: no summary, comment or annotation of its own
    view = None
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if (summary_file and not args.no_step_summary) or args.comment is not None:
        view = build_view(analysis, title=getattr(args, "title", None), pages=False, gates=results)
    if summary_file and not args.no_step_summary and view is not None:
        with open(summary_file, "a", encoding="utf-8") as handle:  # headed: several steps may append
            handle.write(f"## {say.step_summary_heading(view.title)}\n\n" + markdown(view) + "\n")
    if args.comment is not None and view is not None:
        write_text_file(args.comment, comment(view), "--comment")
    if args.junit is not None:
        write_text_file(args.junit, junit(results), "--junit")
    # one line per rule on stderr, unless stdout shows them already (the table and Markdown hold them)
    wrote_site = args.command == "build" or (args.command == "render" and args.format is None)
    if results and (stdout_is_data or wrote_site):
        for result in results:
            print(f"ragreport: {one_line(result.line)}", file=sys.stderr)  # a run name's controls shown
    if os.environ.get("GITHUB_ACTIONS") == "true":
        stream = sys.stderr if stdout_is_data else sys.stdout
        for line in workflow_errors(results):
            print(line, file=stream)
    return 1 if failed(results) else 0


RENDER_FORMATS = ("table", "markdown", "json", "csv", "latex")


def _add_render_arguments(commands) -> None:
    """``ragreport render REPORT.json``: the arguments of its own block (see :func:`_render`)."""
    render = commands.add_parser(
        "render",
        help="render a stored report.json again, without the run files",
        description="Render a report.json written by ragreport build (or score --format json) again: "
        "the same site, byte for byte, or its figures on stdout. The build's options are read "
        "from the report's settings.",
    )
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
        choices=RENDER_FORMATS,
        help="print to stdout instead of writing a site: a terminal table, Markdown, the JSON "
        "document, CSV or a LaTeX table",
    )
    render.add_argument(
        "-q",
        "--per-query",
        action="store_true",
        help="with --format csv: a row per run, query and metric",
    )
    render.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _add_gate_arguments(render)


def conventions_from(args: argparse.Namespace) -> Conventions:
    """The switches given, over the ``--compat`` preset when one is named, over the defaults."""
    base = COMPAT_PRESETS[args.compat] if args.compat else Conventions()
    return Conventions(
        denominator=Denominator(args.denominator) if args.denominator else base.denominator,
        gain=Gain(args.gain) if args.gain else base.gain,
        missing=Missing(args.missing) if args.missing else base.missing,
        order=Order(args.order) if args.order else base.order,
        no_relevant=NoRelevant(args.no_relevant) if args.no_relevant else base.no_relevant,
        confidence=args.confidence,
        resamples=args.resamples,
        seed=args.seed,
        relevance_level=args.relevance_level or base.relevance_level,
    )


class Progress:
    """A progress line per stage on ``stream``, once the work has taken ``delay`` seconds.

    Short runs print nothing; past ``delay`` the stage under way is printed, and every stage
    after it as it starts. Silent when ``quiet`` or when the stream is not a terminal.
    """

    def __init__(self, stream=None, *, quiet: bool = False, delay: float = 2.0):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and self.stream.isatty()
        self.started = time.monotonic()
        self.stage: str | None = None
        self.live = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(delay, self._wake) if self.enabled else None
        if self.timer is not None:
            self.timer.daemon = True
            self.timer.start()

    def _show(self) -> None:
        stage = one_line(self.stage or "")  # a stage may name a run: its controls shown as escapes
        print(f"ragreport: {stage}... ({time.monotonic() - self.started:.1f} s)", file=self.stream, flush=True)

    def _wake(self) -> None:
        with self.lock:
            self.live = True
            if self.stage is not None:
                self._show()

    def __call__(self, stage: str) -> None:
        with self.lock:
            self.stage = stage
            if self.live:
                self._show()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


def _measures(args: argparse.Namespace) -> tuple[Measure, ...]:
    """The measures asked for by name; with --format trec and none named, trec_eval's usual set."""
    trec = getattr(args, "format", None) == "trec"
    if args.metrics:
        measures = parse_measures(args.metrics)
        return tuple(sorted(measures, key=trec_sort_key)) if trec else measures  # trec_eval's own order
    if trec:
        return default_trec_measures(_asked_cutoffs(args))
    return ()


def _asked_cutoffs(args: argparse.Namespace) -> tuple[int, ...]:
    """The cutoffs asked for, else the default (10; the sample's 5)."""
    return args.k or ((DEFAULT_K,) if args.inputs else (SAMPLE_K,))


def _analyse(
    args: argparse.Namespace, progress: Callable[[str], None], previous_basis: tuple[dict, str] | None = None
) -> Analysis:
    # --primary and the comparison family (--metrics) are checked before any run is read: a
    # misspelt name costs no scoring time.
    k = _asked_cutoffs(args)[0]
    # trec_eval's layout prints no comparison: there --metrics only names the measures to print.
    family = None if getattr(args, "format", None) == "trec" else (args.metrics or None)
    compares = len(args.inputs) > 1 or args.previous is not None or previous_basis is not None
    if args.qrels is not None and not args.inputs:  # the sample carries its own judgments
        raise UsageError(
            "--qrels needs run files to score: without runs ragreport scores its preloaded sample, "
            "which carries its own judgments"
        )
    choose_family(family, k, args.primary, compares=compares)
    summaries = evaluate(
        args.inputs,
        qrels=args.qrels,
        k=args.k,
        conventions=conventions_from(args),
        kmax=args.kmax,
        metas=args.meta,
        input_format=args.input_format,
        measures=_measures(args),
        progress=progress,
        engine=args.engine,
        scheduler=args.scheduler,
        partition_bytes=args.partition_mb << 20,
    )
    return analyse(
        summaries,
        baseline=args.baseline,
        correction=Correction(args.correction),
        permutations=args.permutations,
        previous=args.previous,
        primary=args.primary,
        family=family,
        progress=progress,
        previous_basis=previous_basis,
        query_meta=args.query_meta,
        slice_by=args.slice,
        queries=args.queries,
        corpus=args.corpus,
        text_queries=args.text_queries,
    )


def _write(
    args: argparse.Namespace,
    analysis: Analysis,
    progress: Progress,
    title: str | None,
    document: dict,
    results: tuple[GateResult, ...],
    rules: GateRules,
) -> list:
    """The site (``--out``, default site/) and/or the single file, as ``build`` and ``render`` write them."""
    out = args.out if args.out is not None else (None if args.single_file is not None else "site")
    return build(
        analysis,
        out=out,
        single_file=args.single_file,
        title=title,
        progress=progress,
        gates=results,
        document=document,
        rules=rules,
    )


def _wrote(args: argparse.Namespace, analysis: Analysis, written: list, results: tuple[GateResult, ...]) -> int:
    """Say what was written, then the CI outputs; the exit status."""
    if not args.quiet:
        for path in written:
            target = path / "index.html" if path.is_dir() else path
            print(f"ragreport: wrote {one_line(os_text(str(target)))}", file=sys.stderr)
    return _ci_outputs(args, analysis, results, stdout_is_data=False)


def _build(args: argparse.Namespace) -> int:
    rules = _gate_rules(args)
    progress = Progress(quiet=args.quiet)
    try:
        analysis = _analyse(args, progress)
        document = report_document(analysis, args.title)
        results = check_gates(document, rules)
        written = _write(args, analysis, progress, args.title, document, results, rules)
    finally:
        progress.close()
    return _wrote(args, analysis, written, results)


#: The formats whose stdout is data, not text for people.
DATA_FORMATS = ("trec", "json", "csv", "latex")


def _stdout(
    analysis: Analysis,
    fmt: str,
    per_query: bool,
    title: str | None = None,
    *,
    document: dict | None = None,
    gates: tuple[GateResult, ...] = (),
) -> str:
    """The text ``score`` and ``render`` print for ``--format`` (``document``: the report document
    with its gates, when made already)."""
    if fmt in DATA_FORMATS:  # the data contract
        document = document if document is not None else report_document(analysis, title)
        if fmt == "trec":
            return trec_lines(document, per_query)
        if fmt == "csv":
            return csv_text(document, per_query)
        if fmt == "latex":
            return latex_table(document)
        return json.dumps(document, ensure_ascii=False, allow_nan=False) + "\n"
    # for people: the view, without what only the site draws
    view = build_view(analysis, pages=False, title=title, gates=gates)
    if fmt == "markdown":
        return markdown(view)
    return table(view, width=shutil.get_terminal_size((100, 24)).columns)


def _render_rules(args: argparse.Namespace, settings: dict, given: bool) -> GateRules:
    """The gates ``render`` checks: the stored rules, each option given replacing its own (as the
    command line replaces a config file's list). An export (``--format``) checks only what it is given."""
    if args.format is not None and not given:
        return GateRules()
    stored = rules_from(settings.get("gates"))
    gated = [m["label"] for m in settings.get("metrics") or []] or None
    return parse_rules(
        args.fail_on or stored.fail_on,
        args.require or [r.text for r in stored.require],
        args.max_drop or [d.text for d in stored.max_drop],
        gated=gated,
    )


def _render(args: argparse.Namespace) -> int:
    """``ragreport render``: a stored report analysed again (:func:`reanalyse`), then written as
    ``build`` writes it, or printed as ``score`` prints it. ``--title`` overrides the stored title
    (presentation only); a gate option given to ``render`` replaces the stored rules of that option;
    every other option is the stored one."""
    if args.format is not None and (args.out or args.single_file):
        raise UsageError("--format prints to stdout; give it without --out and --single-file")
    if args.per_query and args.format not in ("csv",):
        raise UsageError("-q goes with --format csv")
    given = bool(args.fail_on or args.require or args.max_drop)
    progress = Progress(quiet=args.quiet)
    try:
        progress("reading")
        stored = load_report(args.report)
        rules = _render_rules(args, stored["settings"], given)
        analysis = reanalyse(stored, source=args.report)
        title = args.title if args.title is not None else stored["settings"].get("title")
        document = report_document(analysis, title)
        results = check_gates(document, rules)
        if args.format is not None:
            printed = with_gates(document, results, rules)
            sys.stdout.write(_stdout(analysis, args.format, args.per_query, title, document=printed, gates=results))
            sys.stdout.flush()
            return _ci_outputs(args, analysis, results, stdout_is_data=args.format in DATA_FORMATS)
        written = _write(args, analysis, progress, title, document, results, rules)
    finally:
        progress.close()
    return _wrote(args, analysis, written, results)


def _publish(args: argparse.Namespace) -> int:
    if not args.history:
        raise UsageError(
            "publish needs DIR, the history folder: ragreport publish DIR RUN... (or history = "
            '"DIR" in the config file)'
        )
    rules = _gate_rules(args)
    # The folder, history.json and the label are checked before any run is read.
    history = open_history(args.history, args.label)
    args.previous = None
    progress = Progress(quiet=args.quiet)
    try:
        analysis = _analyse(args, progress, previous_basis=history.previous_basis)
        document = report_document(analysis, args.title)
        results = check_gates(document, rules)
        folder = publish(
            analysis,
            history,
            title=args.title,
            keep=args.keep,
            progress=progress,
            gates=results,
            document=document,
            rules=rules,
        )
    finally:
        progress.close()
    if not args.quiet:
        wrote = f"{folder / 'index.html'} and {history.folder / 'index.html'}"
        print(f"ragreport: wrote {one_line(os_text(wrote))}", file=sys.stderr)
    return _ci_outputs(args, analysis, results, stdout_is_data=False)


def _score(args: argparse.Namespace) -> int:
    rules = _gate_rules(args)
    progress = Progress(quiet=args.quiet)
    try:
        analysis = _analyse(args, progress)
    finally:
        progress.close()
    document = report_document(analysis)
    results = check_gates(document, rules)
    document = with_gates(document, results, rules)
    sys.stdout.write(_stdout(analysis, args.format, args.per_query, document=document, gates=results))
    sys.stdout.flush()
    return _ci_outputs(args, analysis, results, stdout_is_data=args.format in DATA_FORMATS)


def _refuse_special_outputs(args: argparse.Namespace) -> None:
    """Outputs naming a device, a FIFO or a socket are refused before any run is read: a FIFO
    would block the write (docs/conventions.md section 18)."""
    for option in ("single_file", "comment", "junit"):
        given = getattr(args, option, None)
        if given:
            refuse_special_output(Path(given), "--" + option.replace("_", "-"))
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file and not getattr(args, "no_step_summary", False):
        refuse_special_output(Path(summary_file), "$GITHUB_STEP_SUMMARY")


#: Options whose value is text shown in the report (not a path): it must be UTF-8.
TEXT_OPTIONS = ("title", "label", "baseline", "primary", "metrics", "require", "max_drop")


def _check_text_options(args: argparse.Namespace) -> None:
    """Refuse a text option holding bytes that are not UTF-8 (a terminal in another encoding):
    no report could hold it. Paths may hold such bytes; a run named after one shows them as \\xff."""
    for dest in TEXT_OPTIONS:
        value = getattr(args, dest, None)
        for text in value if isinstance(value, list) else [value]:
            shown = os_text_problem(text) if isinstance(text, str) else None
            if shown is not None:
                option = "--" + dest.replace("_", "-")
                raise UsageError(f"{option}: expected UTF-8 text, got '{shown}' (its stray bytes shown as \\xNN)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = resolve(parser, argv)  # the command line over the config file over the defaults
        for option in ("out", "single_file", "comment", "junit"):  # an empty name: before anything is read
            if getattr(args, option, None) == "":
                raise UsageError(say.empty_path("--" + option.replace("_", "-")))
        _refuse_special_outputs(args)
        _check_text_options(args)
        if args.command == "score":
            return _score(args)
        if args.command == "build":
            return _build(args)
        if args.command == "render":
            return _render(args)
        if args.command == "publish":
            return _publish(args)
    except ConfigError as exc:  # every problem of the config file, one line each
        for problem in exc.problems:
            print(f"ragreport: error: {one_line(problem)}", file=sys.stderr)
        return 2
    except RagreportError as exc:
        print(f"ragreport: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `ragreport score | head`
        return 0
    except OSError as exc:  # the file system said no (full, read-only, gone): its words and the file
        said = say.system_error(exc.strerror or str(exc), exc.filename)
        print(f"ragreport: error: {one_line(said)}", file=sys.stderr)
        return 2
    except MemoryError:  # numpy's allocation too: an input or option asked for more than the machine has
        print(f"ragreport: error: {say.OUT_OF_MEMORY}", file=sys.stderr)
        return 2
    except UNREADABLE as exc:  # the last line of defence: every reader refuses these itself first
        print(f"ragreport: error: {one_line(say.unreadable_input(type(exc).__name__, str(exc)))}", file=sys.stderr)
        return 2
    except Exception:  # a bug: its traceback, and where to report it; not 1, which means a gate failed
        traceback.print_exc()
        print(f"ragreport: {say.INTERNAL_ERROR}", file=sys.stderr)
        return INTERNAL_ERROR_STATUS
    parser.error(f"unknown command {args.command!r}")
    return 2
