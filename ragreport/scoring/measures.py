"""Measures by name, as trec_eval, ir_measures and ranx spell them, parsed once into objects.

A :class:`Measure` is a metric key with its parameters: a cutoff (``None``: the whole list) and,
for nDCG, a gain. :func:`parse_measures` turns ``P_5``, ``P.5,10``, ``nDCG@10``, ``ndcg_burges@10``
or ``recip_rank`` into measures at the boundary; nothing deeper parses a name again. Every name,
the valid-forms message and trec_eval's names and print order come from the declarations of
:mod:`ragreport.scoring.catalogue`. :func:`score_measures` scores any set of them per query from
one padded matrix per gain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import Argument, ArgumentError, UsageError, shorten
from ..core.model import Conventions, Gain
from .catalogue import CATALOGUE, COMPARED, IPREC, PRIMARY, REL, TOOLS, CutoffRule, Measure, Metric, Value
from .condensed import condense
from .cutoffs import MAX_CUTOFF
from .metrics import full_depth, score, score_levels

if TYPE_CHECKING:  # annotations only
    from .join import JudgedRun

__all__ = [
    "VALID_FORMS",
    "Measure",
    "default_trec_measures",
    "parse_primary",
    "parse_measure",
    "parse_measures",
    "stored_measure",
    "score_measures",
    "trec_sort_key",
]


# --- Names, generated from the declarations -------------------------------------------------------

#: The rank of a measure trec_eval does not print, after every one it does.
NOT_PRINTED = 1 << 30

#: Named measure sets (``--metrics trec-dl``): the measures a benchmark reports, and where that is said.
MEASURE_SETS: dict[str, tuple[str, str]] = {
    "trec-dl": (
        "nDCG@10,RR(rel=2),AP(rel=2)",
        "TREC Deep Learning 2019 and 2020 (passage and document): the official measures ir_datasets "
        "documents for msmarco-passage/trec-dl-2019 and trec-dl-2020",
    ),
    "msmarco-dev": (
        "RR@10,R@1000",
        "MS MARCO passage dev/small: RR@10, the leaderboard's MRR@10 (ir_datasets' official measure "
        "for msmarco-passage/dev/small), and R@1000, which retrieval papers report beside it",
    ),
    "beir": (
        "nDCG@10,R@100",
        "BEIR (Thakur et al., NeurIPS 2021 Datasets and Benchmarks): nDCG@10, its headline measure, and R@100",
    ),
    "lotte": ("Success@5", "LoTTE (Santhanam et al., NAACL 2022): Success@5, ir_datasets' official measure for lotte"),
}


#: One name's entry in the parser's table: its metric, the gain and parameter values it implies,
#: and the cutoff forms it allows.
Entry = tuple[Metric, Gain | None, CutoffRule, tuple[tuple[str, Value], ...]]


def _parse_table(exact: bool = False) -> dict[str, Entry]:
    """Name -> (metric, implied gain, cutoff rule, implied parameters), over every tool's spellings:
    lower-cased, or as spelt when ``exact``.

    A name two tools share (``map``: trec_eval's whole-list form, ranx's with or without a
    cutoff) allows every form either allows; it must mean the same metric, gain and parameters in
    both. Two names that differ only in case may mean different measures (ir_measures' ``RBP`` at
    p = 0.8, trec_eval's ``rbp`` at 0.9): then each is read as spelt only, and the lower-cased
    table leaves the name out.
    """
    forms: dict[str, tuple[Metric, Gain | None, bool, bool, tuple[tuple[str, Value], ...]]] = {}
    clashes: set[str] = set()
    for metric in CATALOGUE:
        for tool in TOOLS:
            for spelling in metric.spellings(tool):
                rule = metric.rule(spelling)
                name = spelling.name if exact else spelling.name.lower()
                cut, whole = rule.allows(1), rule.allows(None)
                if name in forms:
                    other, gain, other_cut, other_whole, fixed = forms[name]
                    if (other, gain, fixed) != (metric, spelling.gain, spelling.params):
                        if other is metric and not exact:
                            clashes.add(name)
                            continue
                        raise ValueError(f"measure name {name!r} is declared for {other.key} and {metric.key}")
                    cut, whole = cut or other_cut, whole or other_whole
                forms[name] = (metric, spelling.gain, cut, whole, spelling.params)
    return {
        name: (metric, gain, CutoffRule.of(cut, whole), fixed)
        for name, (metric, gain, cut, whole, fixed) in forms.items()
        if name not in clashes
    }


def _entry(name: str) -> Entry | None:
    """The parser's entry for a name: as spelt, else lower-cased."""
    return EXACT.get(name) or NAMES.get(name.lower())


def _valid_forms(example: int = 5) -> str:
    """Every spelling of every tool, each as written with a cutoff and/or without one."""
    parts = []
    for tool in TOOLS:
        forms: list[str] = []
        for metric in CATALOGUE:
            for spelling in metric.spellings(tool):
                rule = metric.rule(spelling)
                if rule.allows(example):
                    if tool == "trec_eval" and not forms:  # trec_eval's own cutoff syntax, shown once
                        forms += [
                            f"{spelling.name}_{example}",
                            f"{spelling.name}.{example}",
                            f"{spelling.name}.{example},{2 * example}",
                        ]
                    else:
                        forms.append(
                            f"{spelling.name}_{example}" if tool == "trec_eval" else f"{spelling.name}@{example}"
                        )
                if rule.allows(None):
                    forms.append(spelling.name)
        parts.append(f"{tool}: {' '.join(forms)}")
    params = {p.name: p for m in CATALOGUE for p in m.params}
    parts.append("named sets: " + " ".join(MEASURE_SETS))
    parts.append(
        "parameters, as in RR(rel=2)@10, RBP(p=0.9) or map@100-l2 (ranx's level): "
        + ", ".join(f"{p.name} ({p.allowed()})" for p in params.values())
    )
    return "; ".join(parts)


#: The parser's table: lower-cased name -> (metric, implied gain, cutoff rule, implied parameters).
NAMES: dict[str, Entry] = _parse_table()
#: The same, as spelt: where two spellings differ only in case (RBP, rbp).
EXACT: dict[str, Entry] = _parse_table(exact=True)
#: Every spelling of every tool (the README's "The metrics" lists them by metric).
VALID_FORMS: str = _valid_forms()
#: Where an error about a name points for the whole list: one line, not the list itself.
EVERY_NAME = "every name each tool spells: docs/metrics.md"
#: A name's display spelling (as its tool writes it) by its lower-cased form.
SPELLED: dict[str, str] = {
    spelling.name.lower(): spelling.name
    for metric in CATALOGUE
    for tool in TOOLS
    for spelling in metric.spellings(tool)
}


def did_you_mean(token: str, most: int = 3) -> list[str]:
    """The valid forms closest to a misspelled ``token`` (difflib), written with its cutoff when
    it had one and the name takes one: ``nDGC@10`` -> ``["nDCG@10"]``; empty when none is close."""
    import difflib

    found = re.fullmatch(r"(.+?)(@|[._])([0-9]+)", token)
    name, sep, cut = (found.group(1), found.group(2), found.group(3)) if found else (token, "", "")
    close = difflib.get_close_matches(name.lower(), list(SPELLED), n=most, cutoff=0.6)
    # The rule of the name as spelt: a lower-cased name two spellings share (rbp, RBP) is not in NAMES.
    rule = {c: EXACT[SPELLED[c]][2] for c in close}
    if cut:  # a name given a cutoff is closest to names that take one
        cutting = [c for c in close if rule[c].allows(1)]
        return list(dict.fromkeys(SPELLED[c] + sep + cut for c in cutting)) or [
            SPELLED[c] for c in close if rule[c].allows(None)
        ]
    return list(dict.fromkeys(SPELLED[c] for c in close if rule[c].allows(None))) or [SPELLED[c] + "@10" for c in close]


def _unknown(token: str) -> str:
    """The one line an unknown name gets: the closest forms, then where every name is listed."""
    close = did_you_mean(token)
    guess = f"; did you mean {' or '.join(close)}?" if close else ""
    return f"unknown measure {token!r}{guess} ({EVERY_NAME})"


def trec_sort_key(measure: Measure) -> tuple[int, str, float, str, str]:
    """trec_eval's print order (its measure table's), then cutoffs (or recall levels) ascending;
    measures trec_eval does not print follow."""
    spelling = measure.metric.trec_eval_spelling(measure.cutoff)
    rank = NOT_PRINTED if spelling is None or spelling.printed is None else spelling.printed
    at = measure.metric.at
    level = float(measure.value(at)) if at != "cutoff" else float(measure.cutoff or 0)
    return (rank, measure.key, level, measure.gain.value if measure.gain else "", repr(measure.params))


def _whole(digits: str) -> int:
    """A cutoff's digits as a number; more digits than any allowed cutoff has read as one past the
    largest (Python refuses to convert thousands of digits)."""
    return int(digits) if len(digits) <= len(str(MAX_CUTOFF)) else MAX_CUTOFF + 1


def _split(token: str) -> tuple[str, str | None, str | None, int | None]:
    """(name, parameters' text, the text after ``@``, ranx's ``-lN`` level) of one token.

    The forms: ir_measures' ``Name(p=v,...)@x``, ``Name@x``, ranx's ``name@k-lN``, trec_eval's
    ``name_5``, ``name.5`` and ``iprec_at_recall_0.50``, or a bare name.
    """
    level = None
    ranx = re.fullmatch(r"(.+?)-l([0-9]+)", token)  # ASCII digits only (\d takes any script's)
    if ranx and _entry(ranx.group(1).partition("@")[0]) is not None:
        token, level = ranx.group(1), _whole(ranx.group(2))
    params = None
    call = re.fullmatch(r"([^()@]+)\((.*)\)(@.*)?", token)
    if call:
        token = call.group(1) + (call.group(3) or "")
        params = call.group(2)
    if "@" in token:
        name, _, at = token.partition("@")
        return name, params, at, level
    match = re.fullmatch(r"(.+?)(?:_([0-9]*\.[0-9]+)|[._]([0-9]+))", token)
    if match and _entry(match.group(1)) is not None:
        return match.group(1), params, match.group(2) or match.group(3), level
    return token, params, None, level


def _read_params(token: str, metric: Metric, text: str) -> dict[str, Value]:
    """``p=0.9,rel=2`` as {name: value}, each read and bounded by its declaration."""
    values: dict[str, Value] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, equals, raw = (x.strip() for x in part.partition("="))
        declared = metric.param(name)
        if declared is None or not equals:
            takes = ", ".join(f"{p.name} ({p.allowed()})" for p in metric.params if p.name != metric.at)
            raise UsageError(
                f"measure {shorten(token)}: {metric.key} takes no parameter {shorten(name)}; "
                + (f"it takes {takes}" if takes else "it takes none")
            )
        if name in values:
            raise UsageError(f"measure {shorten(token)}: {name} is given twice")
        try:
            values[name] = declared.read(raw)
        except ValueError as exc:
            raise UsageError(f"measure {shorten(token)}: {name}: {exc}, got {shorten(raw)}") from None
    return values


def _gain_of(values: dict[str, Value]) -> Gain | None:
    """The gain ``gain=exp`` or ir_measures' ``dcg='exp-log2'`` name (None: neither given)."""
    gain, dcg = values.pop("gain", None), values.pop("dcg", None)
    named = {None: None, "linear": Gain.LINEAR, "exp": Gain.EXP, "log2": Gain.LINEAR, "exp-log2": Gain.EXP}
    if gain is not None and dcg is not None and named[gain] is not named[dcg]:  # type: ignore[index]
        raise UsageError(f"gain={gain} and dcg={dcg} name different gains")
    return named[gain if gain is not None else dcg]  # type: ignore[index]


def parse_measure(token: str) -> Measure:
    """One measure name in any supported spelling (see :data:`VALID_FORMS`)."""
    name, params, at, level = _split(token.strip())
    entry = _entry(name.strip())
    if entry is None:
        raise UsageError(_unknown(token))
    metric, gain, rule, fixed = entry
    values: dict[str, Value] = dict(fixed)
    # One spelling per parameter: a value given twice, in one form or two (a name that fixes it
    # and its parameters, ranx's -lN and rel=, IPrec(recall=...)@x, gain= and dcg=, a gain the
    # name implies and gain=), is refused, whether the two agree or not.
    given = _read_params(token, metric, params or "")
    again = sorted(set(given) & set(dict(fixed)))
    if level is not None:
        if metric.param("rel") is None:
            raise UsageError(f"measure {shorten(token)}: {metric.key} takes no relevance level")
        again += ["rel"] if "rel" in given or "rel" in dict(fixed) else []
        given["rel"] = level
    if at is not None and metric.at != "cutoff" and metric.at in given:
        again.append(metric.at)
    if "gain" in given and "dcg" in given or (gain is not None and ("gain" in given or "dcg" in given)):
        again.append("gain")
    if again:
        raise UsageError(f"measure {shorten(token)}: {again[0]} is given twice; give each parameter once")
    values.update(given)
    if "rel" in values:
        try:
            REL.read(str(values["rel"]))
        except ValueError as exc:
            raise UsageError(f"measure {shorten(token)}: rel: {exc}") from None
    named_gain = _gain_of(values)
    if named_gain is not None:
        if gain is not None and named_gain is not gain:
            raise UsageError(f"measure {shorten(token)}: {name} implies {gain.value} gain")
        gain = named_gain
    cutoff: int | None = None
    if metric.at != "cutoff":
        declared = metric.param(metric.at)
        assert declared is not None
        if at is None and metric.at not in values:
            raise UsageError(f"measure {token!r} needs its {metric.at} level, such as {metric.key}@0.5 or {name}_0.50")
        if at is not None:
            try:
                values[metric.at] = declared.read(at)
            except ValueError as exc:
                raise UsageError(f"measure {shorten(token)}: the {metric.at} level: {exc}") from None
    elif at is not None:
        if not re.fullmatch(r"[0-9]+", at):
            raise UsageError(f"unknown measure {token!r}: the cutoff after '@' must be a whole number")
        cutoff = _whole(at)
    if cutoff is not None and cutoff < 1:
        raise UsageError(f"measure {token!r}: the cutoff must be at least 1")
    if cutoff is not None and cutoff > MAX_CUTOFF:
        raise UsageError(f"measure {shorten(token)}: the cutoff must be at most {MAX_CUTOFF:,}")
    if rule is CutoffRule.REQUIRED and cutoff is None and metric.at == "cutoff":
        raise UsageError(f"measure {token!r} needs a cutoff, such as {name}@10 ({EVERY_NAME})")
    if rule is CutoffRule.FORBIDDEN and cutoff is not None:
        raise UsageError(f"measure {token!r} takes no cutoff: write {name} ({EVERY_NAME})")
    defaults = metric.defaults()
    kept = tuple(sorted((n, v) for n, v in values.items() if n == "rel" or v != defaults.get(n)))
    return Measure(metric.key, cutoff, gain, kept)


def stored_measure(key: str, cutoff: int | None, gain: Gain | None, params: tuple[tuple[str, Value], ...]) -> Measure:
    """A measure a report.json stored by its parts, held to the parser's rules: its name written
    again and read back must give the same measure (an unknown key, ``rel=0``, ``p=1.5``, a cutoff
    past the bound, a parameter the metric does not take are refused), a ``ValueError`` saying why."""
    try:
        found = Measure(key, cutoff, gain, params)
        again = replace(parse_measure(replace(found, gain=None).label()), gain=gain)
    except KeyError:
        raise ValueError(f"unknown measure key {shorten(str(key))}") from None
    except (UsageError, TypeError) as exc:
        raise ValueError(str(exc)) from None
    if again != found:
        raise ValueError(f"{shorten(found.label())} is not a measure as ragreport writes it")
    return found


def parse_primary(text: str | None, k: int) -> Metric:
    """The report's primary metric from ``--primary`` (None: :data:`~ragreport.scoring.catalogue.PRIMARY`).

    Any spelling the name parser reads (``nDCG@10``, ``ndcg_cut_10``, ``P@10``, ``nDCG``); it must
    name a compared metric (the comparison leads with it) at the report's K, the cutoff every
    comparison is made at, or carry no cutoff (then it is read at K). A gain a name implies
    (``ndcg_burges``) is refused: the report scores one gain.
    """
    if text is None:
        return PRIMARY
    choices = ", ".join(m.label(k) for m in COMPARED)
    try:
        measure = parse_measure(text)
    except UsageError:
        raise ArgumentError(Argument("primary"), f" {text!r} is not a metric; choose one of {choices}") from None
    metric = measure.metric
    if metric not in COMPARED or not measure.plain or measure.cutoff not in (None, k):
        raise ArgumentError(
            Argument("primary"), f" {text!r} is not a compared metric at K = {k}; choose one of {choices}"
        )
    return metric


def _tokens(text: str) -> list[str]:
    """A comma-separated list split at its top-level commas (``RBP(p=0.9,rel=2)`` is one token)."""
    tokens, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth <= 0:
            tokens.append(text[start:i])
            start = i + 1
    tokens.append(text[start:])
    return [t.strip() for t in tokens]


def measures_named(items: str | Measure | Metric | Iterable[str | Measure | Metric]) -> tuple[Measure, ...]:
    """Measures however a caller names them: a name or a list of names in any grammar
    :func:`parse_measures` reads (``"nDCG@10"``, ``"ndcg_cut_10,P_5"``, ``"trec-dl"``), measures
    parsed already, or catalogue entries (an entry alone is read as its key is). A name the parser
    refuses is an :class:`~ragreport.core.errors.ArgumentError` (a ``ValueError``) naming the
    library's ``measures`` argument, as every bad argument is."""
    given = [items] if isinstance(items, (str, Measure, Metric)) else list(items)
    out: list[Measure] = []
    for item in given:
        if isinstance(item, Measure):
            out.append(item)
        elif isinstance(item, (str, Metric)):
            try:
                out += parse_measures([item if isinstance(item, str) else item.key])
            except UsageError as exc:
                raise ArgumentError(Argument("measures"), f": {exc}") from None
        else:
            raise ArgumentError(
                Argument("measures"), f": expected a measure's name or a Measure, got {type(item).__name__}: {item!r}"
            )
    return tuple(dict.fromkeys(out))


def parse_measures(texts: Iterable[str]) -> tuple[Measure, ...]:
    """Every measure of comma-separated lists of names, in trec_eval's, ir_measures' or ranx's grammar.

    A bare number extends the previous trec_eval measure (``P.5,10`` is P_5 and P_10); a set's
    name (:data:`MEASURE_SETS`: ``trec-dl``) stands for its measures. Order is kept, repeats
    dropped. A measure whose entry names a companion (RBP: its residual) brings it along, right
    after it, with the same parameters.

    Parameters
    ----------
    texts : iterable of str
        The lists of names.

    Returns
    -------
    tuple of Measure
        The measures, in order.

    Raises
    ------
    ragreport.core.errors.UsageError
        A name no grammar reads, with the forms it could have meant.

    Examples
    --------
    >>> [m.label() for m in parse_measures(["P.5,10", "ndcg_cut_20", "RR(rel=2)@10"])]
    ['P@5', 'P@10', 'nDCG@20', 'RR(rel=2)@10']
    """
    out: list[Measure] = []
    previous: str | None = None
    for text in texts:
        for token in _tokens(text):
            if not token:
                continue
            named = MEASURE_SETS.get(token.lower())
            if named is not None and _entry(token) is None:
                out += parse_measures([named[0]])
                previous = None
                continue
            if re.fullmatch(r"[0-9]+", token):
                if previous is None:
                    raise UsageError(f"measure list {text!r} starts with a number; write a name first, as in P.5,10")
                token = f"{previous}.{token}"
            name, params, at, _ = _split(token)
            previous = name
            entry = _entry(name.strip())
            if entry is not None and entry[0].at != "cutoff" and at is None:
                # trec_eval's -m iprec_at_recall: the 11 levels 0.00 to 1.00 (a precision-recall curve)
                base = token if params is not None else f"{name}()"
                out += [parse_measure(f"{base}@{level / 10}") for level in range(11)]
                continue
            measure = parse_measure(token)
            out.append(measure)
            if measure.metric.companion is not None:
                out.append(replace(measure, key=measure.metric.companion))
    return tuple(dict.fromkeys(out))


def default_trec_measures(cutoffs: Sequence[int]) -> tuple[Measure, ...]:
    """What ``--format trec`` prints without ``--metrics``: every measure trec_eval has, over the
    whole list and at every cutoff, in trec_eval's order."""
    measures = []
    for metric in (m for m in CATALOGUE if m.trec_default):
        if metric.trec_eval_spelling(None) is not None:
            measures.append(Measure(metric.key))
        if metric.trec_eval_spelling(1) is not None:
            measures += [Measure(metric.key, k) for k in cutoffs]
    return tuple(sorted(dict.fromkeys(measures), key=trec_sort_key))


def score_measures(
    judged: JudgedRun, measures: Sequence[Measure], conventions: Conventions, *, top_grade: int | None = None
) -> np.ndarray:
    """Per-query values of every measure: (measures x queries).

    Every measure is its catalogue entry's kernel, through :func:`ragreport.scoring.metrics.score`:
    one call per set of parameters in use (gain, relevance level, RBP's ``p``, ...), for the metrics
    asked for, at every cutoff needed; the whole list is a cutoff as deep as the longest list or the
    largest R (:func:`full_depth`). A measure with its own ``rel`` reads the run at that level
    (:meth:`~ragreport.scoring.join.JudgedRun.at_level`). ``top_grade`` is the highest grade of
    the whole judgments (ERR's g_max; None: of ``judged``'s, which a partition must not use).
    """
    out = np.zeros((len(measures), judged.n_queries))
    full = full_depth(judged)
    if top_grade is None:
        top_grade = int(judged.judgment_grades.max(initial=1))
    groups: dict[tuple[Gain, int, tuple[tuple[str, Value], ...]], list[int]] = {}
    levels: dict[tuple[int, bool], list[int]] = {}  # IPrec: one pass for all its recall levels
    for i, m in enumerate(measures):
        if m.metric is IPREC:
            levels.setdefault((m.level(conventions), bool(m.value("judged_only"))), []).append(i)
            continue
        rest = tuple((n, v) for n, v in m.params if n != "rel")
        if m.metric.graded and m.rel is None:
            rest += (("graded", True),)  # ir_measures' RBP without rel: the gain is the grade
        if m.metric.reads_beyond and m.cutoff is None:
            rest += (("whole", True),)  # its whole-list figure adds the ranks past every list
        groups.setdefault((m.gain or conventions.gain, m.level(conventions), rest), []).append(i)
    for (gain, level, rest), rows in groups.items():
        metrics = tuple(dict.fromkeys(measures[i].metric for i in rows))
        cutoffs = sorted({measures[i].cutoff or full for i in rows})
        values: dict[str, Value] = {"top_grade": max(1, top_grade)}
        for metric in metrics:
            values.update({n: v for n, v in metric.defaults().items() if v is not None})
        values.update(dict(rest))
        at = replace(conventions, gain=gain, relevance_level=level)
        run = judged.at_level(level)
        scores = score(condense(run, pooled=True) if values.get("judged_only") else run, cutoffs, at, metrics, values)
        for i in rows:
            out[i] = scores.of(measures[i].metric, measures[i].cutoff or full)
    for (level, judged_only), rows in levels.items():
        at_level = replace(conventions, relevance_level=level)
        run = condense(judged.at_level(level), pooled=True) if judged_only else judged.at_level(level)
        out[rows] = score_levels(run, [measures[i].value("recall") for i in rows], at_level)
    return out
