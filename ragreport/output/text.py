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


def _ks(run: dict[str, Any]) -> str:
    return ", ".join(str(k) for k in run.get("cutoffs", [run["k"]]))


def counts_line(run: dict[str, Any]) -> str:
    c = run["counts"]
    parts = [
        f"{c['queries']} queries",
        f"{c['scored']} scored",
        f"{c['excluded_no_relevant']} excluded (no relevant id)",
        *([f"{c['no_relevant_as_zero']} with no relevant id averaged in as 0"] if c.get("no_relevant_as_zero") else []),
        f"{c['missing_from_run']} judged but missing from the run",
        f"{c['repeats']} repeated id{'s' if c['repeats'] != 1 else ''} in {c['queries_with_repeats']} "
        f"quer{'ies' if c['queries_with_repeats'] != 1 else 'y'}",
    ]
    return ", ".join(parts)


def bands_line(run: dict[str, Any]) -> str:
    conv = run["conventions"]
    return (f"Bands at {conv['confidence']:.0%}: Wilson score interval for Hit@K (queries as trials); "
            f"percentile bootstrap over queries for the rest ({conv['resamples']} resamples, seed {conv['seed']}).")


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def comparison_lines(document: dict[str, Any], name=str) -> list[str]:
    """Sentences that frame the comparison table: baseline, method, and any queries left out.

    ``name`` formats names and ids taken from the user's files (escaping them for Markdown).
    """
    how = document.get("comparison")
    if not how:
        return []
    conf = f"{document['runs'][0]['conventions']['confidence']:.0%}"
    lines = [f"Compared with the baseline {name(how['baseline'])} on the queries both runs scored: the {conf} band is a "
             f"{how['band']}; p from a {how['test']}, {how['permutations']:,} of them (all of them when fewer "
             f"exist); {how['correction_text']}"]
    for pair in how["pairs"]:
        lines.extend(name(note) for note in pair["notes"])
    return lines


def drift_lines(document: dict[str, Any], name=str) -> list[str]:
    found = document.get("drift")
    if not found:
        return []
    head = f"Since the previous report ({name(found['previous'])}, dated {found['previous_date'] or 'unknown'})"
    lines = []
    if found["reasons"]:
        lines.append(f"{head}: no drift can be claimed " + "; and ".join(name(r) for r in found["reasons"]) + ".")
    if found["comparable"]:
        lines.append(f"{head}: the same query set and label set were scored again"
                     + (" for the runs below." if found["reasons"] else "."))
    return lines + [name(n) for n in found["notes"]]


def table(document: dict[str, Any], width: int = 100) -> str:
    """A readable terminal table per run: metric, mean, band, interval, convention (wrapped)."""
    blocks = []
    for run in document["runs"]:
        conf = f"{run['conventions']['confidence']:.0%}"
        lines = [f"{run['name']}  (K = {_ks(run)})", *textwrap.wrap(counts_line(run), width), ""]
        head = f"{'metric':<9} {'mean':>5}  {conf + ' band':<16} {'interval':<10} "
        indent = len(head)
        lines.append(head + "convention")
        lines.append("-" * min(width, indent + 40))
        wrap_width = max(30, width - indent)
        for label, entry in run["metrics"].items():
            wrapped = textwrap.wrap(entry["convention"], wrap_width) or [""]
            lines.append(f"{label:<9} {_mean(entry):>5}  {_band(entry):<16} {entry['interval']:<10} {wrapped[0]}")
            lines.extend(" " * indent + more for more in wrapped[1:])
        if run.get("measures"):
            w = max(9, *(len(label) for label in run["measures"]))
            lines += ["", "Measures asked for by name:", f"{'measure':<{w}} {'mean':>7}  {conf + ' band':<16} "
                                                              f"{'interval':<10} trec_eval"]
            for label, entry in run["measures"].items():
                mean = f"{entry['total']:,}" if "total" in entry else _mean(entry)
                band = "" if entry["interval"] == "none" else _band(entry)
                lines.append(f"{label:<{w}} {mean:>7}  {band:<16} {entry['interval']:<10} {entry['trec_eval'] or '-'}")
        lines.append("")
        for sentence in list(run["convention_text"].values()) + [bands_line(run)]:
            lines.extend(textwrap.wrap(sentence, width, initial_indent="* ", subsequent_indent="  "))
        blocks.append("\n".join(lines))
    if document.get("comparisons"):
        lines = []
        for sentence in comparison_lines(document):
            lines.extend(textwrap.wrap(sentence, width))
        conf = f"{document['runs'][0]['conventions']['confidence']:.0%}"
        w = max(3, *(len(c["run"]) for c in document["comparisons"]))
        lines += ["", f"{'run':<{w}} {'metric':<9} {'delta':>7}  {conf + ' band':<18} {'p':>7} {'p adj.':>7}  "
                      f"{'W/T/L':<11} verdict"]
        for c in document["comparisons"]:
            band = f"[{_signed(c['low'])}, {_signed(c['high'])}]"
            wtl = f"{c['wins']}/{c['ties']}/{c['losses']}"
            lines.append(f"{c['run']:<{w}} {c['metric']:<9} {_signed(c['delta']):>7}  {band:<18} {_p(c['p']):>7} "
                         f"{_p(c['p_adjusted']):>7}  {wtl:<11} {_verdict(c)}")
        blocks.append("\n".join(lines))
    if document.get("drift"):
        blocks.append("\n".join(line for sentence in drift_lines(document) for line in textwrap.wrap(sentence, width))
                      + _drift_table(document))
    return "\n\n".join(blocks) + "\n"


VERDICT_TEXT = {
    "better": "better (band above 0, corrected p below {alpha:g})",
    "worse": "worse (band below 0, corrected p below {alpha:g})",
    "band above 0": "band above 0, but corrected p {p}",
    "band below 0": "band below 0, but corrected p {p}",
    "unclear": "no clear difference",
}


def _verdict(c: dict[str, Any]) -> str:
    return VERDICT_TEXT[c["verdict"]].format(alpha=c["alpha"], p=_p(c["p_adjusted"]))


def _drift_table(document: dict[str, Any]) -> str:
    rows = document["drift"]["rows"]
    if not rows:
        return ""
    w = max(3, *(len(r["run"]) for r in rows))
    lines = ["", f"{'run':<{w}} {'metric':<9} {'then':>6} {'now':>6} {'change':>7}  {'band':<18} queries paired"]
    for r in rows:
        band = "n/a" if r["low"] is None else f"[{_signed(r['low'])}, {_signed(r['high'])}]"
        then = "n/a" if r["then"] is None else f"{r['then']:.3f}"
        lines.append(f"{r['run']:<{w}} {r['metric']:<9} {then:>6} {r['now']:6.3f} {_signed(r['delta']):>7}  {band:<18} "
                     f"{r['queries']:,}")
    return "\n".join(lines)


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
        lines += [f"### {_md_user(first['name'])} (K = {_ks(first)})", "",
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
    for run in runs:
        if run.get("measures"):
            lines += ["", f"Measures asked for by name ({_md_user(run['name'])}):", "",
                      f"| measure | mean | {conf} band | interval | trec_eval |", "|---|---:|---|---|---|"]
            for label, entry in run["measures"].items():
                mean = f"{entry['total']:,}" if "total" in entry else _mean(entry)
                band = "" if entry["interval"] == "none" else _band(entry)
                lines.append(f"| {label} | {mean} | {band} | {entry['interval']} | {entry['trec_eval'] or ''} |")
    lines += ["", _md_cell(bands_line(first))]
    if document.get("comparisons"):
        conf = f"{first['conventions']['confidence']:.0%}"
        framing = comparison_lines(document, _md_user)
        lines += ["", f"#### Against the baseline {_md_user(document['comparison']['baseline'])}"]
        lines += [line for sentence in framing[1:] for line in ("", sentence)]
        lines += ["", f"| run | metric | delta | {conf} band | p | p ({_md_cell(document['comparison']['correction'])}) "
                      "| W/T/L | |", "|---|---|---:|---|---:|---:|---|---|"]
        for c in document["comparisons"]:
            lines.append(f"| {_md_user(c['run'])} | {c['metric']} | {_signed(c['delta'])} | "
                         f"[{_signed(c['low'])}, {_signed(c['high'])}] | {_p(c['p'])} | {_p(c['p_adjusted'])} | "
                         f"{c['wins']}/{c['ties']}/{c['losses']} | {_verdict(c)} |")
        lines += ["", framing[0]]
    for sentence in drift_lines(document, _md_user):
        lines += ["", sentence]
    if document.get("drift") and document["drift"]["rows"]:
        lines += ["", "| run | metric | then | now | change | band | queries paired |",
                  "|---|---|---:|---:|---:|---|---:|"]
        for r in document["drift"]["rows"]:
            then = "n/a" if r["then"] is None else f"{r['then']:.3f}"
            band = "n/a" if r["low"] is None else f"[{_signed(r['low'])}, {_signed(r['high'])}]"
            lines.append(f"| {_md_user(r['run'])} | {r['metric']} | {then} | {r['now']:.3f} | {_signed(r['delta'])} | "
                         f"{band} | {r['queries']:,} |")
    for run in runs:
        lines += ["", f"**{_md_user(run['name'])}**: {_md_cell(counts_line(run))}."]
        for limit in run.get("limits", []):
            lines.append(f"- **{_md_user(limit['title'])}.** {_md_user(limit['text'])}")
    return "\n".join(lines) + "\n"


def _trec_value(value: float | int | None, is_count: bool) -> str:
    if value is None:
        return "nan"
    return str(int(round(value))) if is_count else f"{value:6.4f}"


def trec_lines(document: dict[str, Any], per_query: bool) -> str:
    """trec_eval's layout: ``measure<pad 22><TAB>query or all<TAB>value`` (4 decimals, counts whole).

    Per-query lines (``per_query``, as ``trec_eval -q``) come first, queries in byte order, then the
    ``all`` lines: means over the scored queries, sums for the counts. With several runs, each
    block opens with a ``runid`` line.
    """
    lines: list[str] = []
    runs = document["runs"]
    for run in runs:
        measures = [(label, entry, entry["trec_eval"] or label.replace(" ", ""), entry["interval"] == "none")
                    for label, entry in run["measures"].items()]
        if len(runs) > 1:
            lines.append(f"{'runid':<22}\tall\t{run['name']}")
        if per_query:
            for query in sorted((q for q in run["queries"] if q["scored"]), key=lambda q: q["id"]):
                for label, _, name, is_count in measures:
                    if name == "num_q":
                        continue
                    lines.append(f"{name:<22}\t{query['id']}\t{_trec_value(query[label], is_count)}")
        for label, entry, name, is_count in measures:
            value = entry["total"] if is_count else entry["mean"]
            lines.append(f"{name:<22}\tall\t{_trec_value(value, is_count)}")
    return "\n".join(lines) + "\n"
