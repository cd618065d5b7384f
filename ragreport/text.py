"""Plain-text renderings of the report document: a terminal table and a Markdown table."""

from __future__ import annotations

import textwrap
from typing import Any


def _band(entry: dict[str, Any]) -> str:
    if entry["low"] is None:
        return "[  n/a,   n/a]"
    return f"[{entry['low']:.3f}, {entry['high']:.3f}]"


def _mean(entry: dict[str, Any]) -> str:
    return "  n/a" if entry["mean"] is None else f"{entry['mean']:.3f}"


def counts_line(run: dict[str, Any]) -> str:
    c = run["counts"]
    parts = [
        f"{c['queries']} queries",
        f"{c['scored']} scored",
        f"{c['excluded_no_relevant']} excluded (no relevant id)",
        f"{c['missing_from_run']} judged but missing from the run",
        f"{c['repeats']} repeated id{'s' if c['repeats'] != 1 else ''} in {c['queries_with_repeats']} "
        f"quer{'ies' if c['queries_with_repeats'] != 1 else 'y'}",
    ]
    return ", ".join(parts)


def bands_line(run: dict[str, Any]) -> str:
    conv = run["conventions"]
    return (f"Bands at {conv['confidence']:.0%}: Wilson score interval for Hit@{run['k']} (queries as trials); "
            f"percentile bootstrap over queries for the rest ({conv['resamples']} resamples, seed {conv['seed']}).")


def table(document: dict[str, Any], width: int = 100) -> str:
    """A readable terminal table per run: metric, mean, band, interval, convention (wrapped)."""
    blocks = []
    for run in document["runs"]:
        conf = f"{run['conventions']['confidence']:.0%}"
        lines = [f"{run['name']}  (K = {run['k']})", *textwrap.wrap(counts_line(run), width), ""]
        head = f"{'metric':<9} {'mean':>5}  {conf + ' band':<16} {'interval':<10} "
        indent = len(head)
        lines.append(head + "convention")
        lines.append("-" * min(width, indent + 40))
        wrap_width = max(30, width - indent)
        for label, entry in run["metrics"].items():
            wrapped = textwrap.wrap(entry["convention"], wrap_width) or [""]
            lines.append(f"{label:<9} {_mean(entry):>5}  {_band(entry):<16} {entry['interval']:<10} {wrapped[0]}")
            lines.extend(" " * indent + more for more in wrapped[1:])
        lines.append("")
        for sentence in list(run["convention_text"].values()) + [bands_line(run)]:
            lines.extend(textwrap.wrap(sentence, width, initial_indent="* ", subsequent_indent="  "))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def _md_cell(text: str) -> str:
    """Our own sentences inside a Markdown table cell: pipes escaped, one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]()#!|~"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;",
                                                                            "\n": " "})


def _md_user(text: str) -> str:
    """Text from the user's files (names, ids in limits) as literal Markdown: every marker escaped."""
    return str(text).translate(_MARKDOWN_SPECIAL)


def _md_figure(entry: dict[str, Any]) -> str:
    return f"{_mean(entry)} {_band(entry)}"


def markdown(document: dict[str, Any]) -> str:
    """Markdown fit for a pull-request comment or a CI job summary.

    One run: a table of metric, mean, band, interval and convention. Several runs: one table with
    the runs side by side. Then each run's counts and its honest limits, when the document has them.
    """
    runs = document["runs"]
    first = runs[0]
    conf = f"{first['conventions']['confidence']:.0%}"
    lines: list[str] = []
    if len(runs) == 1:
        lines += [f"### {_md_user(first['name'])} (K = {first['k']})", "",
                  f"| metric | mean | {conf} band | interval | convention |", "|---|---:|---|---|---|"]
        for label, entry in first["metrics"].items():
            lines.append(f"| {label} | {_mean(entry)} | {_band(entry)} | {entry['interval']} | "
                         f"{_md_cell(entry['convention'])} |")
    else:
        lines += [f"### {len(runs)} runs at K = {first['k']} (mean and {conf} band)", "",
                  "| metric | " + " | ".join(_md_user(r["name"]) for r in runs) + " | interval |",
                  "|---|" + "---:|" * len(runs) + "---|"]
        for label, entry in first["metrics"].items():
            cells = " | ".join(_md_figure(r["metrics"][label]) for r in runs)
            lines.append(f"| {label} | {cells} | {entry['interval']} |")
    lines += ["", _md_cell(bands_line(first))]
    for run in runs:
        lines += ["", f"**{_md_user(run['name'])}**: {_md_cell(counts_line(run))}."]
        for limit in run.get("limits", []):
            lines.append(f"- **{_md_user(limit['title'])}.** {_md_user(limit['text'])}")
    return "\n".join(lines) + "\n"
