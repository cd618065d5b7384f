"""The commands (``score``, ``build``, ``publish``, ``pr``, ``render``) and :func:`main`.

Each command parses its options (:func:`~ragreport.cli.parser.build_parser`, the config file under
them), calls the library (:mod:`ragreport.api`), checks the gates and writes the CI outputs;
:func:`main` turns a ragreport error into one line and exit status 2.

``main`` lives here, beside the commands it calls, so that the chain of imports from
``python -m ragreport`` down to the core stays within the layout's 8 modules.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import threading
import traceback
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import api
from ..analysis.compare import Correction, choose_family
from ..analysis.drift import is_sampled
from ..analysis.pipeline import Analysis, release_sweep
from ..analysis.shown import held_sample
from ..config import FROM_FILE, ConfigError, resolve, resolved_settings
from ..core.errors import (
    Argument,
    ArgumentError,
    RagreportError,
    RagreportWarning,
    UsageError,
    one_line,
    os_text,
    os_text_problem,
    warnings_to,
)
from ..core.model import COMPAT_PRESETS, Conventions
from ..output.exports.gates import GateResult, GateRules, check_available, check_gates, failed, parse_rules, rules_from
from ..output.exports.reportjson.read import load_previous, load_report
from ..output.exports.reportjson.write import report_document, with_gates
from ..output.exports.tables import csv_text, latex_table, openmetrics
from ..output.exports.text import comment, markdown, pr_comment, table, trec_lines
from ..output.site.media import csv_no_workflow_commands, markdown_text, no_workflow_commands
from ..output.site.wording import messages as say
from ..reading import irds
from ..scoring.catalogue import SUITE
from ..scoring.cutoffs import DEFAULT_K, SAMPLE_K
from ..scoring.measures import Measure, default_trec_measures, parse_measures, trec_sort_key
from .parser import SWITCHES, build_parser, flag, said
from .progress import Progress

if TYPE_CHECKING:
    from ..output.site.view.model import ReportView

# The site's modules (pages, the view model, publishing, and with them jinja2 and markdown) and the
# CI outputs' (JUnit's XML) load only when a command writes pages or a CI output, or checks an
# output's name: `score` without such options does without them (docs/conventions.md section 22.7).

#: Errors Python raises on input no reader foresaw (nested too deep, text that cannot be encoded,
#: a compressed stream cut short, a number beyond a C integer): one line, not a traceback.
UNREADABLE = (RecursionError, UnicodeError, EOFError, zlib.error, OverflowError)
#: The exit status of a bug in ragreport (sysexits' EX_SOFTWARE): 1 is a failed gate, 2 bad input.
INTERNAL_ERROR_STATUS = 70


def conventions_from(args: argparse.Namespace) -> Conventions:
    """The switches given, over the ``--compat`` preset when one is named, over the defaults."""
    base = COMPAT_PRESETS[args.compat] if args.compat else Conventions()
    given: dict[str, Any] = {name: kind(getattr(args, name)) for name, kind in SWITCHES.items() if getattr(args, name)}
    level = args.relevance_level or base.relevance_level
    return replace(
        base, **given, confidence=args.confidence, resamples=args.resamples, seed=args.seed, relevance_level=level
    )


def _dataset_measures(args: argparse.Namespace) -> None:
    """With ``--qrels irds:ID`` and no ``--metrics``, the dataset's official measures (as ir_datasets
    documents them) are the measures named: the default comparison family (docs/conventions.md
    section 21.6). trec_eval's layout keeps its own default set."""
    dataset = irds.dataset_id(getattr(args, "qrels", None))
    if dataset is None or getattr(args, "metrics", None) or getattr(args, "format", None) == "trec":
        return
    official = [m for m in irds.official_measures(dataset) if _reads(m)]
    if official:
        args.metrics = [",".join(official)]


def _reads(name: str) -> bool:
    try:
        parse_measures([name])
    except UsageError:
        return False
    return True


@contextmanager
def _keyed(args: argparse.Namespace, *keys: str) -> Iterator[None]:
    """A :class:`UsageError` of options the config file gave, refused with the file and its keys, as
    every other key of it is (``ragreport.toml: key 'metrics': unknown measure ...``)."""
    try:
        yield
    except UsageError as exc:
        resolved = resolved_settings(args)
        from_file = [k for k in keys if resolved["settings"].get(k, {}).get("source") == FROM_FILE]
        if from_file and resolved["config"]:
            raise UsageError(f"{resolved['config']}: key '{'/'.join(from_file)}': {said(exc)}") from None
        raise


def _gate_rules(args: argparse.Namespace) -> GateRules:
    """The gate rules, checked before any run is read."""
    named = list(_named_measures(args))
    with _keyed(args, "fail_on", "require", "max_drop"):
        gated = [m.label() for m in named] if named else None
        rules = parse_rules(args.fail_on, args.require, args.max_drop, gated=gated)
        check_available(rules, [m.label(c) for c in _asked_cutoffs(args) for m in SUITE] + [m.label() for m in named])
    return rules


def _ci_outputs(
    args: argparse.Namespace,
    analysis: Analysis,
    results: tuple[GateResult, ...],
    *,
    wrote: Sequence[str] = (),
    stdout_is_data: bool = False,
    more: Callable[[ReportView], None] | None = None,
) -> int:
    """What was written (``wrote``), the gates' lines, the step summary, the comment, JUnit and
    workflow commands; the exit status. ``more`` writes what else is made from the view (``pr``'s
    comment and summary)."""
    if not args.quiet:
        for target in wrote:
            print(f"ragreport: wrote {one_line(os_text(target))}", file=sys.stderr)
    export = args.command == "render" and args.format is not None
    if export and not results:
        return 0  # an export: no summary, comment or annotation of its own
    # an export appends no step summary, gates or not
    summary_file = None if export or args.no_step_summary else os.environ.get("GITHUB_STEP_SUMMARY")
    if args.comment is not None or args.junit is not None:
        from ..output.site.render import write_text_file
    if summary_file or args.comment is not None or more is not None:
        from ..output.site.view.build import build_view

        view = build_view(analysis, title=getattr(args, "title", None), pages=False, gates=results)
        if summary_file:
            with open(summary_file, "a", encoding="utf-8") as handle:  # headed: several steps may append
                heading = say.step_summary_heading(markdown_text(view.title))  # the title is the user's: one line
                handle.write(f"## {heading}\n\n" + markdown(view) + "\n")
        if args.comment is not None:
            write_text_file(args.comment, comment(view), "--comment")
        if more is not None:
            more(view)
    if args.junit is not None:
        from ..output.exports.gates import junit

        write_text_file(args.junit, junit(results), "--junit")
    # One line per rule, on stderr, from every command alike: never wrapped, whatever the terminal
    # or pipe (stdout keeps the table or the data; the table holds the gates' summary sentence).
    for result in results:
        print(f"ragreport: {one_line(result.line)}", file=sys.stderr)  # a run name's controls shown
    if os.environ.get("GITHUB_ACTIONS") == "true":
        from ..output.exports.gates import workflow_errors

        stream = sys.stderr if stdout_is_data else sys.stdout
        for line in workflow_errors(results):
            print(line, file=stream)
    return 1 if failed(results) else 0


def _named_measures(args: argparse.Namespace) -> tuple[Measure, ...]:
    with _keyed(args, "metrics"):
        return parse_measures(args.metrics) if args.metrics else ()


def _measures(args: argparse.Namespace) -> tuple[Measure, ...]:
    """The measures asked for by name; with --format trec and none named, trec_eval's usual set."""
    trec = getattr(args, "format", None) == "trec"
    if args.metrics:
        measures = _named_measures(args)
        return tuple(sorted(measures, key=trec_sort_key)) if trec else measures  # trec_eval's own order
    if trec:
        return default_trec_measures(_asked_cutoffs(args))
    return ()


def _asked_cutoffs(args: argparse.Namespace) -> tuple[int, ...]:
    """The cutoffs asked for, else the default (10; the sample's 5)."""
    return args.k or ((DEFAULT_K,) if args.inputs else (SAMPLE_K,))


def _analyse(
    args: argparse.Namespace,
    progress: Callable[[str], None],
    previous: str | Path | api.History | None = None,
    whole_lists: bool = True,
    sample_rows: bool = False,
) -> Analysis:
    # --primary and the comparison family (--metrics) are checked before any run is read: a
    # misspelt name costs no scoring time.
    k = _asked_cutoffs(args)[0]
    # trec_eval's layout prints no comparison: there --metrics only names the measures to print.
    family = None if getattr(args, "format", None) == "trec" else (args.metrics or None)
    previous = previous if previous is not None else getattr(args, "previous", None)  # publish and pr: their own
    compares = len(args.inputs) > 1 or previous is not None
    if args.qrels is not None and not args.inputs:  # the sample carries its own judgments
        raise UsageError(
            "--qrels needs run files to score: without runs ragreport scores its preloaded sample, "
            "which carries its own judgments"
        )
    chosen = choose_family(family, k, args.primary, compares=compares)
    # read before any run is: a broken report is one line, not a wasted scoring
    basis = load_previous(previous) if isinstance(previous, (str, Path)) else None
    if isinstance(previous, api.History):
        basis = previous.previous
    # Past PAGE_QUERIES a partitioned build keeps its sample's rows alone, where nothing it shows
    # reads every query's rows (docs/conventions.md section 29.3): a drift from a sampled report
    # reads the means alone.
    every_row = basis is not None and not is_sampled(basis)
    del basis  # read again by the analysis: not held while the runs are scored
    sampled = sample_rows and args.engine != "memory" and not every_row
    # Every other keyword of the library is the option of its own name (parser.KEYWORD_FLAGS).
    results = api.evaluate(
        args.inputs,
        conventions=conventions_from(args),
        metas=args.meta,
        measures=_measures(args),
        progress=progress,
        partition_bytes=args.partition_mb << 20,
        whole_lists=whole_lists,
        sample_on=Measure(chosen.lead.key, k) if sampled else None,
        sample_texts=args.text_queries if sampled and args.corpus else 0,
        sample_baseline=args.baseline if sampled else None,
        sample_meta=args.query_meta if sampled else None,
        sample_slice_by=args.slice if sampled else (),
        sample_audit=getattr(args, "audit", None) if sampled else None,
        **{
            name: getattr(args, name)
            for name in ("qrels", "k", "kmax", "input_format", "labels", "columns", "id_from", "engine", "scheduler")
        },
    )
    same: tuple[str, ...] = ("baseline", "permutations", "min_effect", "primary", "query_meta", "queries")
    same += ("corpus", "text_queries", "scores", "scores_scale", "scores_columns")
    return api.analyse(
        results,
        correction=Correction(args.correction),
        previous=previous,
        family=family,
        progress=progress,
        slice_by=args.slice,
        audit=getattr(args, "audit", None),
        **{name: getattr(args, name) for name in same},
    )


def _write(
    args: argparse.Namespace,
    analysis: Analysis,
    progress: Progress,
    title: str | None,
    rules: GateRules,
    history: api.History | None = None,
) -> tuple[list[str], tuple[GateResult, ...], dict[str, Any]]:
    """The site (``--out``, default site/) and/or the single file, as ``build``, ``render`` and ``pr``
    write them, or the report into ``history`` and its page (``publish``); what was written (a site
    by its index.html), the gates' results and the report's document."""
    from ..output.building import build, publish

    document = report_document(analysis, title)
    results = check_gates(document, rules)
    made: dict[str, Any] = {"title": title, "progress": progress, "gates": results, "document": document}
    if history is not None:
        folder = publish(analysis, history, keep=args.keep, rules=rules, **made)
        return [f"{folder / 'index.html'} and {history.folder / 'index.html'}"], results, document
    out = args.out if args.out is not None else (None if args.single_file is not None else "site")
    written = build(analysis, out=out, single_file=args.single_file, rules=rules, **made)
    return [str(path / "index.html" if path.is_dir() else path) for path in written], results, document


def _build(args: argparse.Namespace) -> int:
    rules = _gate_rules(args)
    with closing(Progress(quiet=args.quiet)) as progress:
        # The whole sweep's per-query scores go once the bands and the comparison are drawn, the
        # lists once scored (docs/conventions.md section 22.9).
        analysis = release_sweep(_analyse(args, progress, whole_lists=False, sample_rows=True))
        written, results, _ = _write(args, analysis, progress, args.title, rules)
    return _ci_outputs(args, analysis, results, wrote=written)


#: The formats whose stdout is data, not text for people: each made from the report's document
#: (and ``--per-query``), the data contract; ``json`` as report.json.
DATA_FORMATS: dict[str, Callable[[dict, bool], str]] = {
    "trec": trec_lines,
    "json": lambda document, _: json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n",
    "csv": csv_text,
    "latex": lambda document, _: latex_table(document),
    "openmetrics": lambda document, _: openmetrics(document),
}


def _print(args: argparse.Namespace, analysis: Analysis, title: str | None, rules: GateRules) -> int:
    """``score`` and ``render --format``: the report in ``args.format`` on stdout, then the CI
    outputs; the exit status. Under ``GITHUB_ACTIONS=true`` no line may begin with ``::`` from a
    user's word, which the runner would read as a workflow command: text for people shows it as
    ``\\x3a:``, CSV quotes the field (the value unchanged)."""
    fmt = args.format
    per_query = args.per_query
    if per_query and held_sample(analysis) is not None:  # render -q of a report holding a sample
        raise UsageError(f"-q lists every query: {held_sample(analysis)}")
    # per-query rows are every query's, also past PAGE_QUERIES (section 29.2)
    document = report_document(analysis, title, every_query=per_query)
    results = check_gates(document, rules)
    if fmt in DATA_FORMATS:
        text = DATA_FORMATS[fmt](with_gates(document, results, rules), per_query)
    else:  # for people: the view, without what only the site draws
        from ..output.site.view.build import build_view

        view = build_view(analysis, pages=False, title=title, gates=results)
        text = markdown(view) if fmt == "markdown" else table(view, width=shutil.get_terminal_size((100, 24)).columns)
    if os.environ.get("GITHUB_ACTIONS") == "true" and "::" in text:
        text = csv_no_workflow_commands(text) if fmt == "csv" else no_workflow_commands(text)
    sys.stdout.write(text)
    sys.stdout.flush()
    return _ci_outputs(args, analysis, results, stdout_is_data=fmt in DATA_FORMATS)


def _render_rules(args: argparse.Namespace, settings: dict) -> GateRules:
    """The gates ``render`` checks: the stored rules, each option given replacing its own (as the
    command line replaces a config file's list). An export (``--format``) checks only what it is given."""
    if args.format is not None and not (args.fail_on or args.require or args.max_drop):
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
    """``ragreport render``: a stored report analysed again
    (:func:`~ragreport.output.exports.reportjson.restore.reanalysed`), then written as ``build`` writes it, or
    printed as ``score`` prints it. ``--title`` overrides the stored title (presentation only); a
    gate option given to ``render`` replaces the stored rules of that option; every other option
    is the stored one."""
    if args.format is not None and (args.out or args.single_file):
        raise UsageError("--format prints to stdout; give it without --out and --single-file")
    if args.per_query and args.format not in ("csv",):
        raise UsageError("-q goes with --format csv")
    with closing(Progress(quiet=args.quiet)) as progress:
        progress("reading")
        stored = load_report(args.report)
        rules = _render_rules(args, stored["settings"])
        analysis = api.reanalyse(stored, source=args.report)
        title = args.title if args.title is not None else stored["settings"].get("title")
        if args.format is not None:
            return _print(args, analysis, title, rules)
        written, results, _ = _write(args, analysis, progress, title, rules)
    return _ci_outputs(args, analysis, results, wrote=written)


def _publish(args: argparse.Namespace) -> int:
    if not args.history:
        raise UsageError(
            "publish needs DIR, the history folder: ragreport publish DIR RUN... (or history = "
            '"DIR" in the config file)'
        )
    rules = _gate_rules(args)
    # The folder, history.json and the label are checked before any run is read.
    from ..output.exports.history import open_history

    history = open_history(args.history, args.label)
    with closing(Progress(quiet=args.quiet)) as progress:
        analysis = _analyse(args, progress, previous=history)
        written, results, _ = _write(args, analysis, progress, args.title, rules, history)
    return _ci_outputs(args, analysis, results, wrote=written)


def _base_report(given: str | None) -> tuple[Path | None, str | None]:
    """The base's report.json ``pr --base`` names, and why there is none: a report.json; a built
    site (its report.json); a ``publish`` history folder (its newest report). Absent, missing or an
    empty history: None and the reason the comment gives. A folder that is none of these, or a
    report that cannot be read, is refused (one line naming it)."""
    if not given:
        return None, say.BASE_NOT_GIVEN
    path = Path(given)
    if not path.exists():
        return None, say.base_missing(os_text(given))
    if path.is_dir():
        from ..output.exports.history import HISTORY_MARKER, REPORTS, load_history

        if (path / "report.json").is_file():
            path = path / "report.json"
        elif (path / HISTORY_MARKER).exists():
            entries = load_history(path)
            if not entries:
                return None, say.base_empty_history(os_text(given))
            path = path / REPORTS / str(entries[0]["label"]) / "report.json"
        else:
            raise UsageError(say.base_not_a_report(os_text(given)))
    load_previous(path)  # read before any run is: a broken base is one line, not a wasted build
    return path, None


def _pr(args: argparse.Namespace) -> int:
    """``ragreport pr``: the head's report built into ``--out`` against the base's report (the drift
    since it, ``--previous``'s), and beside the folder ``comment.md`` (:func:`pr_comment`),
    ``summary.md``, ``junit.xml`` (unless ``--comment``/``--junit`` name other files) and
    ``metrics.txt`` (:func:`openmetrics`); on a GitHub pull request with a token, the comment kept on it
    (:mod:`~ragreport.output.exports.github`). The exit status is the gates'."""
    from ..output.exports.github import CommentError, keep_comment, marker, pull_request
    from ..output.site.render import write_text_file

    out = Path(args.out or "site")
    beside = out.absolute().parent  # `--out .` too: never inside the site, which must hold only the build
    args.out, args.single_file = str(out), None
    comment_file = args.comment or str(beside / "comment.md")
    args.comment, args.junit = None, args.junit or str(beside / "junit.xml")
    url = _report_url(args.report_url)
    rules = _gate_rules(args)
    base, no_base = _base_report(args.base)
    target = pull_request(os.environ)  # its variables checked before any run is read
    with closing(Progress(quiet=args.quiet)) as progress:
        analysis = release_sweep(_analyse(args, progress, previous=base, whole_lists=False))
        written, results, document = _write(args, analysis, progress, args.title, rules)
    write_text_file(str(beside / "metrics.txt"), openmetrics(document), "metrics.txt")

    def more(view: ReportView) -> None:
        mark = marker(view.title)
        body = pr_comment(view, document, mark=mark, no_base=no_base, report_url=url)
        write_text_file(comment_file, body, "--comment")
        write_text_file(str(beside / "summary.md"), markdown(view), "summary.md")
        if target is not None:
            try:
                done, where = keep_comment(target, body, mark)
            except CommentError as exc:  # the files are written; the gates, not the comment, decide
                print(f"ragreport: warning: {say.comment_not_kept(str(exc))}", file=sys.stderr)
            else:
                if not args.quiet:
                    print(f"ragreport: {done} the pull request's comment {where}", file=sys.stderr)

    return _ci_outputs(args, analysis, results, wrote=written, more=more)


def _report_url(given: str | None) -> str | None:
    """``--report-url``: an http or https address without blanks (encode a space as %20), its
    parentheses and angle brackets percent-encoded so that the Markdown link cannot end early."""
    if given is None:
        return None
    if not given.startswith(("https://", "http://")) or any(c.isspace() for c in given.strip()):
        raise ArgumentError(Argument("report_url"), f": expected an http:// or https:// address, got {given!r}")
    return given.strip().replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")


def _score(args: argparse.Namespace) -> int:
    rules = _gate_rules(args)
    with closing(Progress(quiet=args.quiet)) as progress:
        analysis = _analyse(args, progress)
    return _print(args, analysis, None, rules)


def _check_outputs(args: argparse.Namespace) -> None:
    """Before any run is read: an output of an empty name is refused, and so is one naming a
    device, a FIFO or a socket: a FIFO would block the write (docs/conventions.md section 18)."""
    for option in ("out", "single_file", "comment", "junit"):
        if getattr(args, option, None) == "":
            raise ArgumentError(*say.empty_path(Argument(option)))
    named = [(getattr(args, option, None), flag(option)) for option in ("single_file", "comment", "junit")]
    if not getattr(args, "no_step_summary", False):
        named.append((os.environ.get("GITHUB_STEP_SUMMARY"), "$GITHUB_STEP_SUMMARY"))
    for given, name in named:
        if given:
            from ..output.site.render import refuse_special_output

            refuse_special_output(Path(given), name)


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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "score": _score,
    "build": _build,
    "render": _render,
    "publish": _publish,
    "pr": _pr,
}
_parsers = threading.local()


def _parser() -> argparse.ArgumentParser:
    """:func:`build_parser`'s parser, made once a thread: making it takes about 10 ms, more than
    rendering a small stored report does, and parsing leaves it as it was (``config._given`` puts
    back the defaults it sets aside). One a thread: that setting aside must not meet another
    thread's parse."""
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = build_parser()
    return parser


def _warning(found: RagreportWarning) -> None:
    """A warning of the library as the command line prints it: one line on stderr, as it happens,
    the library's keywords spelt as flags."""
    print(f"ragreport: warning: {found.spelled(flag)}", file=sys.stderr, flush=True)


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: its exit status (0, 1 for a failed gate, 2 for a refusal). A SIGTERM (a CI
    job's timeout, a container stopped) exits as Ctrl-C does, through the cleanups: the build's
    temporary folder and the comparison's spilled buckets go, not stay behind."""
    if threading.current_thread() is not threading.main_thread():
        return _main(argv)
    before = signal.signal(signal.SIGTERM, _terminated)
    try:
        return _main(argv)
    finally:
        signal.signal(signal.SIGTERM, before)


def _main(argv: Sequence[str] | None) -> int:
    try:
        args = resolve(_parser(), argv)  # the command line over the config file over the defaults
        _check_outputs(args)
        _check_text_options(args)
        _dataset_measures(args)
        with warnings_to(_warning):
            return COMMANDS[args.command](args)
    except ConfigError as exc:  # every problem of the config file, one line each
        problems = exc.problems
    except RagreportError as exc:  # the library's keywords as the command line's flags
        problems = [said(exc)]
    except BrokenPipeError:  # `ragreport score | head`
        return 0
    except OSError as exc:  # the file system said no (full, read-only, gone): its words and the file
        problems = [say.system_error(exc.strerror or str(exc), exc.filename)]
    except MemoryError:  # numpy's allocation too: an input or option asked for more than the machine has
        problems = [say.OUT_OF_MEMORY]
    except UNREADABLE as exc:  # the last line of defence: every reader refuses these itself first
        problems = [say.unreadable_input(type(exc).__name__, str(exc))]
    except Exception:  # a bug: its traceback, and where to report it; not 1, which means a gate failed
        traceback.print_exc()
        print(f"ragreport: {say.INTERNAL_ERROR}", file=sys.stderr)
        return INTERNAL_ERROR_STATUS
    for problem in problems:
        print(f"ragreport: error: {one_line(problem)}", file=sys.stderr)
    return 2
