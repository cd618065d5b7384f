"""One run's part of the view: its page's slug, its measures, its per-query table and its :class:`RunView`."""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ....analysis.audit import judge_limit
from ....analysis.limits import Limit, run_date
from ....analysis.summary import Status
from ....core.ids import as_text
from ....core.model import Choice, Conventions
from ....scoring.catalogue import IntervalMethod
from ....scoring.metrics import FIXED_RULES
from ..charts import has_pr_curve, pr_figure, pr_points, run_sweep_figure
from ..media import isolated
from ..wording import charts as say_charts
from ..wording import numbers as fmt
from ..wording import report as say
from ..wording import sources as say_sources
from .cells import metric_rows, readings_table, rounded, scores_tables, steps_table, suite_matrix
from .model import (
    Column,
    HeadlineView,
    Labelled,
    Link,
    MeasureRow,
    QueryTable,
    Rule,
    RunView,
    StatusOption,
    Switch,
)

if TYPE_CHECKING:
    from ....analysis.pipeline import Analysis
    from ....analysis.shown import Shown
    from ....analysis.summary import RunSummary
    from ....scoring.catalogue import Metric


#: The words the pages' fixed ids and a run's section ids are made of: a run named one of them
#: (or with one as a part that would line up with another id) gets a hashed slug instead.
_ID_WORDS = (
    "compare|conventions|drift|gates|glossary|headline|main|reports|runs|run|scored|since|suite|trend|"
    "trends|verdict|summary|queries|limits|metadata|chart|fig|h"
)
#: A clean name that cannot be its own slug: a page id made from it (``run-S``, ``run-S-h``,
#: ``S-summary``, ``compare-S``, ...) could equal another run's or a fixed id of the page, or it
#: could be mistaken for a hashed or numbered slug.
_UNSAFE_CLEAN = re.compile(rf"(?:{_ID_WORDS})|(?:run|compare)-.*|.*-(?:{_ID_WORDS})|.*-[0-9a-f]{{8}}|.*-[0-9]+|.*--.*")


def slug(name: str, taken: set[str]) -> str:
    """A file-name-safe slug of a run name, unique among ``taken``.

    A name that is already a clean slug stays as it is; any other gets a short hash of the name,
    so two names that clean up alike (``A/B`` and ``a b``) still get two files. A slug taken
    already (a clean name can spell another's hashed slug) gets ``-2``, ``-3``, ... until it is
    unique, so no two runs ever share a page or an anchor.
    """
    base = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-")[:40] or "run"
    if base != name or base in taken or _UNSAFE_CLEAN.fullmatch(base):
        base = f"{base}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


def _measures(summary: RunSummary) -> tuple[MeasureRow, ...]:
    rows = []
    for i, measure in enumerate(summary.measures):
        interval = summary.measure_at[measure.label()]
        if measure.is_count:
            mean = fmt.count(summary.measure_total(i))
        else:
            mean = fmt.decimal(interval.mean)
        band = "" if interval.method is IntervalMethod.NONE else fmt.band(interval.low, interval.high)
        method, trec_eval = say.INTERVAL_NAMES[interval.method.value], measure.trec_eval_name(summary.conventions)
        rows.append(MeasureRow(measure.label(), mean, band, method, trec_eval or ""))
    return tuple(rows)


def _choice_text(value: Any) -> str:
    if isinstance(value, Choice):
        return value.value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def _present(cells: list[Any], present: np.ndarray) -> list[Any]:
    """``cells`` with None wherever ``present`` is False (a query not scored: ``null`` in the page)."""
    return [cell if shown else None for cell, shown in zip(cells, present.tolist())]


def query_table(
    summary: RunSummary,
    texts: Mapping[str, tuple[str, str]] | None,
    text_queries: Sequence[str],
    differences: tuple[str, Mapping[str, float]] | None,
    primary: Metric,
    sample: Shown | None = None,
) -> QueryTable:
    """The per-query table as compact arrays for the page's script (rows and top-K details).

    With ``texts`` (id to title and text) the top-K details of ``text_queries`` show each
    document's title, a snippet and its text on demand; the other queries' details say why not.
    ``differences`` (a header and each paired query's difference from the baseline on the primary
    metric) adds a column, which sorts like the others. The columns come in the order a reader
    needs them, so that a narrow screen shows the first without scrolling: the id, the status, the
    ``primary`` metric at K and the difference from the baseline, then the text, the other metrics
    and the counts (docs/conventions.md section 24.1). With ``sample`` (past
    :data:`~ragreport.analysis.shown.PAGE_QUERIES` queries) only its queries are rows, said above
    the table; the status filter counts the rows listed out of every query's (section 29.1).
    """
    judged, scores, k = summary.judged, summary.scores, summary.k
    statuses = list(Status)
    # By identity (a status is one object): an Enum's hash is a Python call per query.
    status_at = {id(s): i for i, s in enumerate(statuses)}
    every_code = [status_at[id(s)] for s in summary.status]
    listed = np.ones(judged.n_queries, dtype=bool) if sample is None else sample.mask(judged.query_ids)
    rows = np.flatnonzero(listed)
    status_codes = every_code if sample is None else [every_code[i] for i in rows.tolist()]
    scored = scores.scored[rows]
    query_ids = judged.query_ids[rows].tolist()
    first = scores.first_relevant_rank[rows]
    values = (
        query_ids,
        status_codes,
        list(judged.query_text) if sample is None else [judged.query_text[i] for i in rows.tolist()],
        judged.relevant[rows].tolist(),
        judged.retrieved[rows].tolist(),
        _present(first.astype(np.int64).tolist(), first != 0),
    )
    # Each column as (header, how the page formats it, its tooltip, its values): ids and text as
    # given, counts as integers, scores with 3 decimals.
    fixed: list[tuple[str, str, str, list[Any]]] = [
        (header, kind, say.QUERY_COLUMN_TITLES.get(header, ""), column)
        for header, kind, column in zip(say.QUERY_COLUMNS, ("id", "status", "text", "count", "count", "count"), values)
    ]
    metrics = []
    for metric in sorted(summary.suite, key=lambda m: m.label(k) != primary.label(k)):  # the primary first
        metric_values = scores.of(metric, k)[rows]
        if metric.kind.whole:
            column, kind = _present(np.where(scored, metric_values, 0).astype(np.int64).tolist(), scored), "count"
        else:
            column, kind = _present(rounded(np.where(scored, metric_values, 0.0)), scored), "score"
        metrics.append((metric.label(k), kind, say.tooltip(metric.name, metric.plain), column))
    deltas = []
    if differences is not None:
        header, by_query = differences
        given = [by_query.get(q) for q in query_ids]
        present = np.fromiter((v is not None for v in given), dtype=bool, count=len(given))
        shown = np.zeros(len(given))
        shown[present] = [v for v in given if v is not None]
        deltas.append((header, "delta", say.DIFFERENCE_COLUMN_TITLE, _present(rounded(shown), present)))
    # A column with no data at all (the query text of TREC input, which has none) is not shown.
    no_text = all(t in (None, "") for t in judged.query_text)
    # Then the text and the other metrics, the counts (R, retrieved, first relevant rank, repeats)
    # last: at 1,400 px every metric is in view, the counts behind the box's "more columns" cue.
    repeats = ("repeats", "count", "", judged.repeats[rows].tolist())
    table = [*fixed[:2], *metrics[:1], *deltas, *fixed[2 : 2 if no_text else 3], *metrics[1:], *fixed[3:], repeats]
    headers, kinds, titles, columns = (list(part) for part in zip(*table))

    # Every query's top-K slots one after another, as columns (docs/conventions.md section 22.6): each
    # id written once and the slots as indices into them, a slot's mark (0 relevant, 1 judged
    # non-relevant, 2 unjudged, 3 repeat; 4 more when judged) one digit of a string, the grades of
    # the judged slots alone, and where each query's slots end.
    # The first min(length, K) slots of every query, by their positions (queries x K), not by
    # a pass over every slot of every list.
    keep = judged.top_slots(k, listed)
    repeat, slot_judged, grades = judged.repeat[keep], judged.judged[keep], judged.grades[keep]
    mark = np.where(repeat, 3, np.where(~slot_judged, 2, np.where(grades >= judged.level, 0, 1)))
    ids, at = np.unique(judged.doc_ids[keep], return_inverse=True)
    code = (mark + 4 * slot_judged + ord("0")).astype(np.uint8)
    data: dict[str, Any] = {
        "k": k,
        "columns": headers,
        "kinds": kinds,
        "statuses": [s.label for s in statuses],
        "marks": list(say.MARKS),
        "words": say.QUERY_TABLE_WORDS,
        "rows": [list(row) for row in zip(*columns)],
        "top": {
            "ids": as_text(ids),
            "doc": at.reshape(-1).tolist(),
            "mark": code.tobytes().decode("ascii"),
            "grade": grades[slot_judged].tolist(),
            "ends": np.cumsum(np.minimum(judged.lengths[rows], k)).tolist(),
        },
    }
    if texts is not None:
        chosen = set(text_queries)
        data["with_texts"] = True  # the text itself is the report's one table (queryview.text_table)
        data["text_rows"] = [q for q, qid in enumerate(query_ids) if qid in chosen]
        data["text_note"] = say.text_not_shown(len(chosen))
        data["text_missing"] = say.TEXT_MISSING
        data["full_text"] = say.FULL_TEXT
    tally = summary.facts.statuses  # every query's, summed (section 29)
    # A sampled table's filter counts the rows it can show, out of every query's (section 29.1).
    shown = np.bincount(np.array(status_codes, dtype=np.int64), minlength=len(statuses)).tolist()

    def counted(listed: int, every: int) -> str:
        return fmt.count(every) if sample is None else f"{fmt.count(listed)} of {fmt.count(every)}"

    options = tuple(
        StatusOption(i, s.label, s.meaning, counted(m, n))
        for i, (s, m, n) in enumerate(zip(statuses, shown, tally))
        if n
    )
    return QueryTable(
        data=data,
        status_options=options,
        headers=tuple(headers),
        total=counted(len(rows), summary.counts.queries),
        titles=tuple(titles),
        filter_label=say.FILTER_LABEL_NO_TEXT if no_text else say.FILTER_LABEL,
        print_note=say.query_table_print_note(summary.counts.queries)
        if sample is None
        else say.sampled_print_note(sample),
        sample_note=None if sample is None else say.sample_note(say.TABLE_LISTING, sample),
    )


def run_view(
    summary: RunSummary,
    slug_name: str,
    run_limits: Sequence[Limit],
    analysis: Analysis,
    *,
    pages: bool,
    baseline: str | None,
    verdicts: dict[tuple[str, str], tuple[str, str]],
    differences: tuple[str, Mapping[str, float]] | None,
    verdict: HeadlineView,
    sample: Shown | None = None,
) -> RunView:
    """One run's view; ``baseline`` names the comparison's baseline (None without a comparison),
    ``verdicts`` its verdicts ((run, metric) to (words, CSS class)) and ``verdict`` is the page's
    first words; ``sample`` the queries its table lists past PAGE_QUERIES (None: every one)."""
    c = summary.counts.as_dict()
    conv = summary.conventions
    k, kmax = summary.k, int(summary.sweep.cutoffs[-1])
    suite_caption, sweep_caption, table_caption = say.run_captions(
        c["scored"], k, kmax, conv.confidence, sample is not None
    )
    link = None
    if baseline is not None:
        is_baseline = summary.name == baseline
        link = Link("compare" if is_baseline else f"compare-{slug_name}", *say.compare_link(is_baseline))
    meta = summary.judged.meta
    prints = {"queries": summary.query_fingerprint, "labels": summary.label_fingerprint}
    return RunView(
        name=summary.name,
        slug=slug_name,
        source=say_sources.shown_source(summary.judged.source),
        k=k,
        kmax=kmax,
        cutoffs=say.cutoffs_text(summary.cutoffs),
        date=run_date(summary, analysis.today).isoformat(),
        counts={key: fmt.count(value) for key, value in c.items()},
        counts_line=say.counts_line(c),
        fingerprints=prints,
        short_fingerprints={key: fmt.short_hash(value) for key, value in prints.items()},
        facts=tuple(Labelled(label, value) for label, value in say.fact_items(c, k, kmax)),
        metrics=metric_rows([summary]),
        columns=(Column(say.mean_header(summary.name, False), say.band_header(conv.confidence)),),
        suite=suite_matrix([summary], verdicts, baseline),
        measures=_measures(summary),
        confidence=fmt.percent(conv.confidence),
        conventions=_switches(conv),
        rules=tuple(Rule(name, text) for name, text in FIXED_RULES),
        bands_line=say.bands_line(conv.confidence, conv.resamples, conv.seed),
        # the audit's judge limit written again with the user's words (the judge's name, the audit
        # file's) isolated, as the headline's are; the others as stated
        limits=tuple(
            judge_limit(summary, analysis.audit, isolated)
            if limit.key == "judge_error" and analysis.audit is not None
            else limit
            for limit in run_limits
        ),
        limits_line=say.limits_line(len(run_limits)),
        meta=tuple(Labelled(key, _choice_text(value)) for key, value in meta.as_dict().items() if key != "notes"),
        notes=meta.notes or None,
        suite_caption=suite_caption,
        sweep_caption=sweep_caption,
        table_caption=table_caption,
        compare_link=link,
        figure=run_sweep_figure(summary) if pages else None,
        queries=query_table(summary, analysis.doc_texts, analysis.text_queries, differences, analysis.primary, sample)
        if pages
        else None,
        pr_figure=pr_figure([summary], say_charts.run_pr_title(html.escape(summary.name), conv.confidence))
        if pages and has_pr_curve([summary])
        else None,
        pr_caption=say_charts.pr_caption(conv.confidence, len(pr_points(summary))),
        verdict=verdict,
        readings=readings_table([summary]),
        steps=steps_table(summary),
        scores=scores_tables(analysis.scores, summary.name),
    )


def _switches(conv: Conventions) -> tuple[Switch, ...]:
    """Every switch in force with its meaning, each departure from the default flagged, then the bands."""
    departed = {name for name, _ in conv.departures()}
    switches = [
        Switch(
            say.switch_name(name),
            say.switch_flag(name, choice.value),
            choice.meaning,
            choice.alternative,
            default=name not in departed,
        )
        for name, choice in conv.choices()
    ]
    return (*switches, Switch("Bands", *say.bands_switch(conv.confidence, conv.resamples, conv.seed)))
