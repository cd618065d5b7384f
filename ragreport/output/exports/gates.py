"""Gates: rules a report must pass, read from the figures its document (``report.json``) holds, so
``build``, ``score`` and a re-render decide alike and a CI job can fail on them (docs/gates.md):

- ``--fail-on worse``: a compared run clearly worse than the baseline (the comparison's ``worse``
  verdict: band below 0 *and* corrected p below alpha), or clearly lower than in ``--previous``, on
  the primary metric or every metric of ``--metrics`` the comparison holds (a drop below the margin,
  ``worse below margin``, too: it was detected); ``worse-than-margin`` (non-inferiority): a compared
  run whose paired band reaches minus the margin (``--min-effect``) or below, on the same metrics:
  a drop of the margin cannot be ruled out; ``slice-worse``: a clearly worse verdict on a slice of
  the query metadata, slices too small to read left out.
- ``--require "[mean:][RUN:]METRIC>=VALUE"``: a run's **lower band bound** (``<=``/``<``: the upper;
  ``mean:``: the mean) under the threshold; without a run, every run. METRIC may name a score of
  ``--scores`` (``b:faithfulness>=0.8``), read on the scale it was given on.
- ``--max-drop "[RUN:]METRIC=DROP"`` (non-inferiority): the paired band's lower bound of the
  difference, against the baseline and against ``--previous``, below ``-DROP``; against the
  baseline, a check that found no clear difference says when it was underpowered for the drop
  (docs/conventions.md section 20.3); a clear difference was detected, so it never does.
- With an audit (``--audit``, section 25.8) the checks against the baseline read the corrected
  figures wherever the audit holds them, and the line says so.

Every line names the figure it read: the verdict and the figures behind it (``fail-on``), or the
figure held to the threshold with the relation that holds (``lower band bound 0.390 < 0.40 (mean
0.445; to gate the mean: mean:nDCG@10>=0.40)``, the rule that gates the mean given only when the
mean would pass a bound that failed).

A rule naming a metric or a run the report does not hold is a usage error (exit 2), not a failed
gate: a gate that cannot be read must not pass in silence. What a CI system reads of them is here
too: JUnit XML (:func:`junit`, one ``testcase`` per check) and GitHub Actions ``::error`` commands.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...analysis.power import MIN_EFFECT
from ...core.errors import Argument, ArgumentError, UsageError
from ...core.escape import visible
from ...core.grammar import read_number
from ...scoring.catalogue import CATALOGUE, ValueKind
from ...scoring.measures import parse_measure
from ..site.wording import gates as say

#: The outcomes ``--fail-on`` knows.
FAIL_ON = ("worse", "worse-than-margin", "slice-worse")

# A measure's name may hold parameters in parentheses (``RR(rel=2)@10``): an ``=`` inside them is its own.
_LEFT = r"(?P<left>(?:[^<>=()]|\([^()]*\))+?)"
_REQUIRE = re.compile(rf"^{_LEFT}\s*(?P<op>>=|<=|>|<)\s*(?P<value>\S+)\s*$")
_MAX_DROP = re.compile(rf"^{_LEFT}\s*=\s*(?P<value>\S+)\s*$")

#: The rules' arguments (``parse_rules(require=..., max_drop=...)``; ``--require``, ``--max-drop``).
REQUIRE = Argument("require")
MAX_DROP = Argument("max_drop")


@dataclass(frozen=True)
class Requirement:
    """``[mean:][RUN:]METRIC OP VALUE``: ``run`` None gates every run; ``on_mean`` reads the mean;
    ``limit`` is VALUE as the rule spells it (the line shows it so)."""

    text: str
    metric: str
    op: str
    threshold: float
    run: str | None = None
    on_mean: bool = False
    limit: str = ""
    score: bool = False  # ``metric`` names a score of --scores, no measure of ragreport's


@dataclass(frozen=True)
class MaxDrop:
    """``[RUN:]METRIC=DROP``: the paired band's lower bound must not fall below ``-drop``; ``limit``
    is DROP as the rule spells it."""

    text: str
    metric: str
    drop: float
    run: str | None = None
    limit: str = ""

    def shown(self) -> str:
        """Minus the drop, as the line shows it: ``-0.02`` for ``nDCG@10=0.02``; ``0`` for no drop."""
        return "-" + self.limit.strip().removeprefix("+") if self.drop else "0"


@dataclass(frozen=True)
class GateRules:
    """Every gate rule asked for, as :func:`parse_rules` checked them (its parameters, each rule
    given twice kept once, ``gated`` without the companions ragreport adds).

    Examples
    --------
    >>> rules = parse_rules(fail_on=["worse"], require=["nDCG@10>=0.40"])
    >>> bool(rules), rules.as_dict()["require"]
    (True, ['nDCG@10>=0.40'])
    >>> bool(GateRules())
    False
    """

    fail_on: tuple[str, ...] = ()
    require: tuple[Requirement, ...] = ()
    max_drop: tuple[MaxDrop, ...] = ()
    gated: tuple[str, ...] | None = None

    def __bool__(self) -> bool:
        return bool(self.fail_on or self.require or self.max_drop)

    def as_dict(self) -> dict[str, Any]:
        """The rules as given (what report.json's ``settings.gates`` keeps; :func:`rules_from`)."""
        return {
            "fail_on": list(self.fail_on),
            "require": [r.text for r in self.require],
            "max_drop": [d.text for d in self.max_drop],
            "gated": None if self.gated is None else list(self.gated),
        }


def rules_from(stored: Mapping[str, Any] | None) -> GateRules:
    """The rules a report.json's ``settings.gates`` keeps (none when it keeps none)."""
    stored = stored or {}
    return parse_rules(
        stored.get("fail_on", ()), stored.get("require", ()), stored.get("max_drop", ()), gated=stored.get("gated")
    )


@dataclass(frozen=True)
class GateResult:
    """One line of the gate table: a rule checked on one run.

    What :func:`ragreport.api.check_gates` returns, one per rule and run checked.

    Attributes
    ----------
    kind : str
        ``require``, ``max-drop`` or ``fail-on``.
    rule : str
        The rule as given, after its kind (``"require nDCG@10>=0.40"``).
    run, metric : str
        The run and the metric it read.
    figure : str
        What it read, in words (the band's lower bound, the mean, the paired difference).
    value, threshold : float or None
        The figure and the bound it was held to.
    passed : bool
        Whether the run passed.
    line : str
        The line the command line prints for it.

    Examples
    --------
    >>> from ragreport.api import analyse, check_gates, document, evaluate
    >>> result = check_gates(document(analyse(evaluate(k=5))), parse_rules(require=["mean:P@5>=0"]))[0]
    >>> result.kind, result.rule, result.run, result.passed
    ('require', 'require mean:P@5>=0', 'sample', True)
    """

    kind: str
    rule: str
    run: str
    metric: str
    figure: str
    value: float | None
    threshold: float | None
    passed: bool
    line: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _number(text: str, rule: str, option: Argument) -> float:
    value = read_number(text)  # the one grammar: 0_1 and non-ASCII digits are no numbers, as everywhere
    if value is None:
        raise ArgumentError(option, f" {rule!r}: expected a number after the operator, got {text!r}")
    if not math.isfinite(value):
        raise ArgumentError(option, f" {rule!r}: expected a finite number, got {text!r}")
    return value


def _metric(text: str, rule: str, option: Argument) -> tuple[str, bool]:
    """The label of the metric a rule names, and whether its figure lies between 0 and 1 (not a count)."""
    try:
        measure = parse_measure(text.strip())
    except UsageError as exc:
        raise ArgumentError(option, f" {rule!r}: {exc}") from None
    return measure.label(), measure.metric.kind is not ValueKind.COUNT


def _score_name(text: str) -> bool:
    """Whether a rule's name is a score of ``--scores`` (``faithfulness``): no cutoff, no parameters
    and no measure's name, so that a measure misspelt or left without its cutoff (``R``) is still
    refused as one before any run is read."""
    name = text.strip()
    if not name or any(c in name for c in "@()") or name.startswith("mean:"):
        return False
    for spelled in (name, name + "@1"):
        try:
            parse_measure(spelled)
        except UsageError:
            continue
        return False
    return True


def _split_run(left: str) -> tuple[str | None, str]:
    """``RUN:METRIC`` -> (RUN, METRIC); metric names hold no colon, run names may."""
    run, colon, metric = left.rpartition(":")
    return (run if colon else None), metric


def parse_requirement(text: str) -> Requirement:
    """``nDCG@10>=0.40``, ``bm25:R@100>=0.8``, ``mean:nDCG@10>=0.40`` (``>``, ``<=``, ``<`` too)."""
    found = _REQUIRE.match(text)
    if found is None:
        raise ArgumentError(
            REQUIRE, f" {text!r}: expected [mean:][RUN:]METRIC>=VALUE, as in nDCG@10>=0.40 or bm25:R@100>=0.8"
        )
    left = found["left"].strip()
    on_mean = left.startswith("mean:")
    run, metric = _split_run(left.removeprefix("mean:"))
    score = _score_name(metric)  # its scale is the score file's: the threshold is held to it when read
    label, bounded = (metric.strip(), False) if score else _metric(metric, text, REQUIRE)
    threshold = _number(found["value"], text, REQUIRE)
    if bounded and not 0.0 <= threshold <= 1.0:
        raise ArgumentError(
            REQUIRE,
            f" {text!r}: {label} lies between 0 and 1, so a threshold of {found['value']} would "
            f"{'fail' if (threshold > 1) == (found['op'] in ('>=', '>')) else 'pass'} every run",
        )
    return Requirement(text, label, found["op"], threshold, run, on_mean, found["value"], score)


def parse_max_drop(text: str) -> MaxDrop:
    """``nDCG@10=0.02`` or ``bm25:nDCG@10=0.02``: the largest drop the band may allow."""
    found = _MAX_DROP.match(text)
    if found is None:
        raise ArgumentError(MAX_DROP, f" {text!r}: expected [RUN:]METRIC=DROP, as in nDCG@10=0.02")
    run, metric = _split_run(found["left"].strip())
    drop = _number(found["value"], text, MAX_DROP)
    if drop < 0:
        raise ArgumentError(MAX_DROP, f" {text!r}: expected a drop of 0 or more (0.02 allows the band to reach -0.02)")
    label, bounded = _metric(metric, text, MAX_DROP)
    if bounded and drop >= 1:
        raise ArgumentError(
            MAX_DROP, f" {text!r}: {label} lies between 0 and 1, so a drop of {drop:g} allows any change"
        )
    return MaxDrop(text=text, metric=label, drop=drop, run=run, limit=found["value"])


def parse_rules(
    fail_on: Sequence[str] = (),
    require: Sequence[str] = (),
    max_drop: Sequence[str] = (),
    gated: Sequence[str] | None = None,
) -> GateRules:
    """Every gate rule from its command-line text, checked before any run is read.

    Parameters
    ----------
    fail_on : sequence of str, default ()
        ``"worse"``: fail when a compared run is clearly worse than the baseline (``--fail-on``);
        ``"worse-than-margin"``: when the paired band of its difference reaches minus the margin
        (``--min-effect``, 0.02 by default) or below (non-inferiority); ``"slice-worse"``: when it is
        clearly worse on a slice.
    require : sequence of str, default ()
        Rules ``[mean:][RUN:]METRIC>=VALUE`` (``--require``), as ``"nDCG@10>=0.40"``.
    max_drop : sequence of str, default ()
        Rules ``[RUN:]METRIC=DROP`` (``--max-drop``), as ``"nDCG@10=0.02"``.
    gated : sequence of str, optional
        The labels (``nDCG@10``) of the metrics ``fail_on`` reads; None for the primary metric.

    Returns
    -------
    GateRules
        The rules, each given twice checked once.

    Raises
    ------
    ragreport.core.errors.UsageError
        A rule that cannot be read, or a threshold outside the metric's range.

    Examples
    --------
    >>> parse_rules(require=["bm25:R@100>=0.8"]).require[0].run
    'bm25'
    >>> parse_rules(require=["nDCG@10>=1.5"])
    Traceback (most recent call last):
    ...
    ragreport.core.errors.ArgumentError: require 'nDCG@10>=1.5': nDCG@10 lies between 0 and 1, so ... every run
    """
    for outcome in fail_on:
        if outcome not in FAIL_ON:
            raise ArgumentError(Argument("fail_on"), f" {outcome!r}: expected one of {', '.join(FAIL_ON)}")
    return GateRules(  # a rule given twice is checked once
        fail_on=tuple(dict.fromkeys(fail_on)),
        require=tuple(parse_requirement(t) for t in dict.fromkeys(require)),
        max_drop=tuple(parse_max_drop(t) for t in dict.fromkeys(max_drop)),
        gated=None if gated is None else tuple(g for g in gated if not _companion(g)),  # labels (--metrics)
    )


#: The measures ragreport adds beside one asked for (RBP's residual, RBP_resid): figures it reports,
#: never compared, so ``--fail-on worse`` reads the measures named, not these.
_COMPANIONS = frozenset(m.companion for m in CATALOGUE if m.companion)


def _companion(label: str) -> bool:
    """Whether ``label`` (``RBP_resid(p=0.9)``) names a measure the report adds itself."""
    return re.split(r"[(@ ]", label, maxsplit=1)[0] in _COMPANIONS


def check_available(rules: GateRules, labels: Sequence[str]) -> None:
    """Refuse, before any run is read, a rule on a metric the report will not hold (``labels``:
    every suite metric at every cutoff asked for, and every measure named)."""
    held = set(labels)
    asked = [(REQUIRE, r.text, r.metric) for r in rules.require if not r.score]  # scores: read with the file
    asked += [(MAX_DROP, d.text, d.metric) for d in rules.max_drop]
    for option, text, metric in asked:
        if metric not in held:
            raise ArgumentError(
                option,
                f" {text!r}: the report will hold no {metric}; name it with ",
                Argument("measures"),
                " (a suite metric at another cutoff: add the cutoff to ",
                Argument("k"),
                ")",
            )


def _runs(document: Mapping[str, Any], run: str | None, rule: str, option: Argument) -> list[Mapping[str, Any]]:
    runs = document["runs"]
    if run is None:
        return list(runs)
    chosen = [r for r in runs if r["name"] == run]
    if not chosen:
        names = ", ".join(repr(r["name"]) for r in runs)
        raise ArgumentError(option, f" {rule!r} names no run of the report; the runs are {names}")
    return chosen


def _score(document: Mapping[str, Any], run: Mapping[str, Any], rule: Requirement) -> Mapping[str, Any]:
    """A run's figure of a score of ``--scores``; a usage error when the report holds none, or when
    the threshold lies off the score's scale (it would pass or fail every run)."""
    name = rule.metric
    figure = (run.get("scores") or {}).get(name)
    if figure is None:
        held = ", ".join(run.get("scores") or {}) or "none: give the file with --scores"
        raise ArgumentError(
            REQUIRE, f" {rule.text!r}: the report holds no score {name!r} for run {run['name']!r} ({held})"
        )
    scale = ((document.get("scores") or {}).get("scales") or {}).get(name) or {}
    low, high = scale.get("low"), scale.get("high")
    if low is not None and high is not None and not low <= rule.threshold <= high:
        above = (rule.threshold > high) == (rule.op in (">=", ">"))
        raise ArgumentError(
            REQUIRE,
            f" {rule.text!r}: {name} lies on {scale.get('scale')}, so a threshold of {rule.limit} would "
            f"{'fail' if above else 'pass'} every run",
        )
    return figure


def _figure(run: Mapping[str, Any], label: str, rule: str, option: Argument) -> Mapping[str, Any]:
    figure = run.get("metrics", {}).get(label) or run.get("measures", {}).get(label)
    if figure is None:
        held = ", ".join(run.get("metrics", {})) or "none"
        raise ArgumentError(
            option,
            f" {rule!r}: the report holds no {label} (it holds {held}); add its cutoff to ",
            Argument("k"),
            " or name it with ",
            Argument("measures"),
        )
    return figure


def _passes(value: float | None, op: str, threshold: float) -> bool:
    if value is None or not math.isfinite(value):
        return False  # a figure that could not be taken passes no gate
    return {">=": value >= threshold, ">": value > threshold, "<=": value <= threshold, "<": value < threshold}[op]


#: The relation a failed rule's figure stands in (``>=`` failed: the figure is ``<`` the threshold).
_NEGATED = {">=": "<", ">": "<=", "<=": ">", "<": ">="}


def _compared(value: float | None, op: str, threshold: float, limit: str, passed: bool, sign: bool = False) -> str:
    """A figure held to a threshold in words, the relation that holds written out: ``0.390 < 0.40``
    for a failed ``>=0.40``, ``0.410 >= 0.40`` for a passed one; ``limit`` is the threshold as the
    rule spells it, ``sign`` shows the figure's sign (a difference). Three decimals, more when three
    would round the figure onto the other side of the threshold; a missing figure passes no gate.

    >>> _compared(0.39, ">=", 0.4, "0.40", False), _compared(0.3996, ">=", 0.4, "0.40", False)
    ('0.390 < 0.40', '0.3996 < 0.40')
    >>> _compared(0.012, ">=", -0.02, "-0.02", True, sign=True), _compared(0.4, ">", 0.4, "0.4", False)
    ('+0.012 >= -0.02', '0.400 <= 0.4')
    >>> _compared(None, ">=", 0.4, "0.40", False)
    'n/a (a figure that could not be taken passes no gate)'
    """
    if value is None or not math.isfinite(value):
        return say.GATE_NOT_TAKEN
    relation = op if passed else _NEGATED[op]
    plus = "+" if sign else ""
    for places in range(3, 10):
        shown = f"{value:{plus}.{places}f}"
        if _passes(float(shown), relation, threshold):
            return say.gate_compared(shown, relation, limit)
    return say.gate_compared(f"{value:{plus}}", relation, limit)  # closer than 9 decimals: every digit


def _corrected_comparison(
    entry: Mapping[str, Any], audit: Mapping[str, Any] | None
) -> tuple[Mapping[str, Any], int | None]:
    """The comparison ``--fail-on worse`` reads: with an audit that corrects it, the corrected
    difference, band, adjusted p and verdict (docs/conventions.md section 25.8), with the audited
    queries to say so; else the comparison as it is, and None."""
    if not audit:
        return entry, None
    for c in audit.get("comparisons") or ():
        if c["run"] == entry["run"] and c["metric"] == entry["metric"]:
            corrected = {key: c["corrected"][key] for key in ("delta", "low", "high", "verdict")}
            return {**entry, **corrected, "p_adjusted": c["corrected"].get("p_adjusted")}, int(audit["queries"])
    return entry, None


def _corrected_figure(
    figure: Mapping[str, Any], run: str, metric: str, audit: Mapping[str, Any] | None
) -> tuple[Mapping[str, Any], int | None]:
    """The figure ``--require`` reads: with an audit that holds ``run``'s ``metric``, its corrected
    mean and band (docs/conventions.md section 25.8) and the audited queries; else ``figure``."""
    found = (((audit or {}).get("runs") or {}).get(run) or {}).get(metric)
    return (found["corrected"], int(audit["queries"])) if found is not None and audit else (figure, None)


def _margin_gates(document: Mapping[str, Any], rules: GateRules, audit: Mapping[str, Any] | None) -> list[GateResult]:
    """``--fail-on worse-than-margin`` (non-inferiority): per compared run and gated metric, fail
    when the lower bound of the paired band reaches minus the margin or below (a drop of the margin
    cannot be ruled out at the band's level); with an audit, on the corrected band. The margin is
    the comparison's ``min_effect`` (``--min-effect``). One run: one passing line that says why."""
    comparisons = document.get("comparisons") or []
    gated = rules.gated or (document["primary"],)
    rule = "fail-on worse-than-margin"
    if not comparisons:
        return [_result(rule, "", "", say.GATE_NO_COMPARISON, None, None, True)]
    results = []
    for found in (c for c in comparisons if c["metric"] in gated):
        entry, audited = _corrected_comparison(found, audit)
        margin = float(found.get("min_effect") or (document.get("settings") or {}).get("min_effect") or MIN_EFFECT)
        low = entry["low"]
        passed = _passes(low, ">", -margin)
        compared = _compared(low, ">", -margin, f"-{margin:g}", passed, sign=True)
        worded = say.gate_margin_figure(compared, margin, entry["delta"], low, entry["high"], passed)
        results.append(_result(rule, found["run"], found["metric"], worded + _audited(audited), low, -margin, passed))
    return results


def _slice_gates(document: Mapping[str, Any]) -> list[GateResult]:
    """``--fail-on slice-worse``: one result per compared run and slice read (a slice too small to
    read is left out); with no slice comparison at all, one passing line that says why."""
    results = []
    for s in document.get("slices") or []:
        if s.get("small"):
            continue
        for c in s.get("comparisons") or []:
            figure = say.gate_slice_figure(str(s["key"]), str(s["value"]), int(c["queries"]), _verdict(c))
            passed = c["verdict"] != "worse"
            results.append(_result("fail-on slice-worse", c["run"], c["metric"], figure, c["delta"], None, passed))
    if not results:
        results.append(_result("fail-on slice-worse", "", "", say.GATE_NO_SLICES, None, None, True))
    return results


def _no_difference(document: Mapping[str, Any], drop: MaxDrop, baseline: str | None) -> tuple[str | Argument, ...]:
    """Why a ``--max-drop`` rule has no paired difference to read, in the words that help."""
    compared = list(dict.fromkeys(c["metric"] for c in document.get("comparisons") or []))
    if drop.run is not None and drop.run == baseline:
        return (f"{drop.run!r} is the baseline: the others are compared with it, not it with itself",)
    if compared and drop.metric not in compared:
        return (
            f"{drop.metric} is not compared (the comparison holds {', '.join(compared)}; diagnostics and "
            "counts are never compared, and ",
            Argument("family"),
            " names what is)",
        )
    return (
        f"the report holds no paired difference on {drop.metric} (it needs two runs, or ",
        Argument("previous"),
        ")",
    )


def _result(
    rule: str, run: str, metric: str, figure: str, value: float | None, threshold: float | None, passed: bool
) -> GateResult:
    """A check's result, its kind the rule's first word, with the line the command line prints."""
    line = say.gate_result_line(passed, rule, run, metric, figure)
    return GateResult(rule.split(" ", 1)[0], rule, run, metric, figure, value, threshold, passed, line)


def _verdict(c: Mapping[str, Any]) -> str:
    return say.gate_verdict_figure(c["verdict"], c["delta"], c["low"], c["high"], c["p_adjusted"])


def _audited(queries: int | None) -> str:
    return "" if queries is None else say.gate_corrected(queries)


def failed(results: Sequence[GateResult]) -> tuple[GateResult, ...]:
    return tuple(r for r in results if not r.passed)


def check_gates(document: Mapping[str, Any], rules: GateRules) -> tuple[GateResult, ...]:
    """Every gate rule (``--fail-on``, ``--require``, ``--max-drop``) checked on a report document.

    Parameters
    ----------
    document : dict
        The report document (:func:`document`).
    rules : GateRules
        The rules, made with :func:`ragreport.output.exports.gates.parse_rules`.

    Returns
    -------
    tuple of GateResult
        One result per rule and run checked, each with the line the command line prints; none
        without rules.

    Raises
    ------
    ragreport.core.errors.UsageError
        A rule naming a metric or a run the report does not hold.

    See Also
    --------
    build : shows the results on the index, in summary.md and in report.json.

    Examples
    --------
    >>> from ragreport.api import analyse, document, evaluate
    >>> report = document(analyse(evaluate(k=5)))
    >>> checks = check_gates(report, parse_rules(require=["P@5>=0.99"]))
    >>> [(c.run, c.metric, c.passed) for c in checks]
    [('sample', 'P@5', False)]
    >>> bool(failed(checks))
    True
    """
    results: list[GateResult] = []
    comparisons = document.get("comparisons") or []
    baseline = (document.get("comparison") or {}).get("baseline")
    drift_rows = ((document.get("drift") or {}).get("rows")) or []
    audit = document.get("audit")  # with one, --fail-on worse and --require read the corrected figures
    if "worse" in rules.fail_on:
        gated = rules.gated or (document["primary"],)
        read = [c for c in comparisons if c["metric"] in gated]
        missing = [m for m in gated if m not in {c["metric"] for c in comparisons}]
        if comparisons and missing and rules.gated:
            raise ArgumentError(Argument("fail_on", "worse"), f": the comparison holds no {', '.join(missing)}")
        # Clearly lower than the previous report is worse too: drift reads as the comparison does.
        against_previous = [r for r in drift_rows if r["metric"] in gated and r.get("verdict") is not None]
        for found, previous in [(c, False) for c in read] + [(r, True) for r in against_previous]:
            entry, audited = (found, None) if previous else _corrected_comparison(found, audit)
            words = _verdict(entry) + _audited(audited)
            worded = say.gate_against_previous(words) if previous else words
            # a drop below the margin was detected all the same: --fail-on worse-than-margin forgives it
            passed = entry["verdict"] not in ("worse", "worse below margin")
            results.append(
                _result("fail-on worse", entry["run"], entry["metric"], worded, entry["delta"], None, passed)
            )
        if not comparisons and not any(row.get("verdict") for row in drift_rows):
            # one run and no previous report: nothing can be worse, and the table says so
            results.append(_result("fail-on worse", "", "", say.GATE_NO_COMPARISON, None, None, True))
    if "worse-than-margin" in rules.fail_on:
        results += _margin_gates(document, rules, audit)
    if "slice-worse" in rules.fail_on:
        results += _slice_gates(document)
    for rule in rules.require:
        for run in _runs(document, rule.run, rule.text, REQUIRE):
            if rule.score:
                figure, audited = _score(document, run, rule), None
            else:
                figure = _figure(run, rule.metric, rule.text, REQUIRE)
                figure, audited = _corrected_figure(figure, run["name"], rule.metric, audit)
            mean = figure.get("mean")
            if figure.get("total") is not None:  # a count: its total, the figure every table shows
                value, read_as = figure["total"], "total (a count)"
            elif rule.on_mean:
                value, read_as = mean, "mean"
            else:
                bound = "low" if rule.op in (">=", ">") else "high"
                value, read_as = figure.get(bound), ("lower band bound" if bound == "low" else "upper band bound")
                if value is None:  # a figure without a band (a count) is read at its mean, said so
                    value, read_as = mean, "mean (no band)"
            passed = _passes(value, rule.op, rule.threshold)
            # a band's bound that fails where the mean passes: the line gives the rule that gates the mean
            surprise = not passed and read_as.endswith("band bound") and _passes(mean, rule.op, rule.threshold)
            compared = _compared(value, rule.op, rule.threshold, rule.limit, passed)
            worded = say.gate_bound_figure(read_as, compared, mean, "mean:" + rule.text.strip() if surprise else None)
            worded += _audited(audited)
            results.append(
                _result(f"require {rule.text}", run["name"], rule.metric, worded, value, rule.threshold, passed)
            )
    for drop in rules.max_drop:
        against = [(c, True) for c in comparisons if c["metric"] == drop.metric and drop.run in (None, c["run"])]
        against += [
            (d, False)
            for d in drift_rows
            if d["metric"] == drop.metric and d["low"] is not None and drop.run in (None, d["run"])
        ]
        if drop.run is not None:
            _runs(document, drop.run, drop.text, MAX_DROP)
        if not against:
            raise ArgumentError(MAX_DROP, f" {drop.text!r}: ", *_no_difference(document, drop, baseline))
        for found, paired in against:
            # against the baseline: the corrected band, when the audit holds it
            entry, audited = _corrected_comparison(found, audit) if paired else (found, None)
            low, other = entry["low"], baseline if paired else say.GATE_PREVIOUS
            passed = _passes(low, ">=", -drop.drop)
            compared = _compared(low, ">=", -drop.drop, drop.shown(), passed, sign=True)
            worded = say.gate_drop_figure(other, compared, entry["delta"], low, entry["high"]) + _audited(audited)
            # Power speaks only to a check that found no clear difference: a clear one was detected.
            if paired and entry.get("verdict") == "unclear" and "detectable" in found and "queries" in found:
                seen = found["detectable"]
                if seen is None or seen > drop.drop:
                    worded += say.gate_underpowered(found["queries"], seen)
            results.append(_result(f"max-drop {drop.text}", found["run"], drop.metric, worded, low, -drop.drop, passed))
    return tuple(results)


SUITE_NAME = "ragreport gates"


def _xml_text(text: str) -> str:
    """Text XML 1.0 can hold: characters it forbids (controls, lone surrogates) become U+FFFD."""
    return "".join(
        c
        if c in "\t\n\r" or ("\x20" <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c >= "\U00010000"
        else "\ufffd"
        for c in text
    )


def junit(results: Sequence[GateResult]) -> str:
    """JUnit XML with one test case per gate check (an empty suite when no rule was asked for)."""
    failures = sum(not r.passed for r in results)
    counts = {"name": SUITE_NAME, "tests": str(len(results)), "failures": str(failures)}
    suites = ET.Element("testsuites", counts)
    suite = ET.SubElement(suites, "testsuite", {**counts, "errors": "0", "skipped": "0"})
    for r in results:
        name = f"{r.run} {r.metric}".strip() or r.rule
        case = ET.SubElement(suite, "testcase", {"classname": _xml_text(r.rule), "name": _xml_text(name)})
        if r.passed:
            ET.SubElement(case, "system-out").text = _xml_text(r.line)
        else:
            failure = ET.SubElement(case, "failure", {"message": _xml_text(r.line), "type": r.kind})
            failure.text = _xml_text(r.figure)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _command_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped as the runner expects; any other control
    or bidi character (a run name's escape sequence) shown as an escape, as in every text output."""
    return visible(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def workflow_errors(results: Sequence[GateResult]) -> list[str]:
    """An ``::error`` workflow command per failed gate check."""
    title = (_command_data("ragreport gate " + r.rule).replace(":", "%3A").replace(",", "%2C") for r in results)
    return [f"::error title={t}::{_command_data(r.line)}" for t, r in zip(title, results) if not r.passed]
