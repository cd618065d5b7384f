"""Scores computed outside ragreport (``--scores FILE``), given ragreport's statistics.

Each named score is a metric of its own, never mixed into the ranked-list figures:

- its mean over the queries the file scores for a run, with a band: Wilson's when every value of
  the score is 0 or 1 (the mean is a share of queries), else the seeded percentile bootstrap over
  those queries in id order, as the run's own bands (docs/conventions.md section 2);
- its scale, stated: given with ``--scores-scale``, or inferred from the values (0/1, 0-1, 1-5,
  0-10, 0-100; else the range seen, said so). A mean is shown on that scale, never rescaled;
- against the baseline: the mean paired difference over the queries both runs' rows score, its
  paired bootstrap band, the randomization test, the p-values corrected across every score
  comparison (a family of their own, apart from the ranked-list metrics') and the verdict
  (:func:`~ragreport.analysis.compare.verdict_of`), the margin ``--min-effect`` taken as a share
  of the scale's width (0.02 of 1-5 is 0.08).

Every row must name a run of the report (or the report holds one) and a query that run's
judgments hold; each (run, query) once. Errors name the file and the line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core.errors import Argument, ArgumentError, InputError
from ..core.grammar import read_number
from ..core.ids import as_bytes
from ..scoring.catalogue import IntervalMethod
from .compare import Comparison, Correction, adjust
from .intervals import Interval, bootstrap_interval, wilson_interval
from .paired import paired_store
from .randomization import TIE, randomization_test

if TYPE_CHECKING:
    from ..core.model import Conventions
    from ..reading.scores import ScoreFile
    from .summary import RunSummary

#: The scales a score's values are read on when none is given, the narrowest that holds them all.
KNOWN_SCALES = ((0.0, 1.0), (1.0, 5.0), (0.0, 5.0), (0.0, 10.0), (0.0, 100.0))
_SCALE = re.compile(r"^(?:(?P<name>[^=]+)=)?(?P<low>-?[0-9.]+)-(?P<high>-?[0-9.]+)$")
SCORES_SCALE = Argument("scores_scale")
#: How a scale given with ``--scores-scale`` is stated (and known again in a stored report).
GIVEN = "given with --scores-scale"


@dataclass(frozen=True)
class Scale:
    """The scale a score is given on: ``low`` to ``high``; ``binary`` when every value is 0 or 1;
    ``given`` when ``--scores-scale`` stated it; ``seen`` when no known scale holds the values, so
    the range is the values' own."""

    low: float
    high: float
    binary: bool = False
    given: bool = False
    seen: bool = False

    @property
    def text(self) -> str:
        """``0/1``, ``1-5``, ``0.2 to 7.5 (the values' range)``."""
        if self.binary:
            return "0/1"
        span = f"{self.low:g} to {self.high:g}" if self.seen or self.low < 0 else f"{self.low:g}-{self.high:g}"
        return span + (" (the values' range: no scale given)" if self.seen else "")

    @property
    def how(self) -> str:
        return GIVEN if self.given else "inferred from the values"


def parse_scales(given: Sequence[str]) -> dict[str | None, tuple[float, float]]:
    """``--scores-scale`` values: ``1-5`` (every score) or ``grade=1-5`` (one), keyed by name (None: every)."""
    out: dict[str | None, tuple[float, float]] = {}
    for text in given:
        found = _SCALE.match(text.strip())
        low, high = (read_number(found[part]) if found else None for part in ("low", "high"))
        if found is None or low is None or high is None or not low < high:
            raise ArgumentError(SCORES_SCALE, f" {text!r}: expected LOW-HIGH or NAME=LOW-HIGH, as in 1-5 or grade=1-5")
        out[found["name"].strip() if found["name"] else None] = (low, high)
    return out


def infer_scale(values: np.ndarray, given: tuple[float, float] | None = None) -> Scale:
    """The scale of one score's values (see the module's docstring); 0/1 values on a given 0-1 scale are binary."""
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    if given is not None:
        return Scale(*given, binary=binary and given == (0.0, 1.0), given=True)
    if binary:
        return Scale(0.0, 1.0, binary=True)
    low, high = float(values.min()), float(values.max())
    known = next(((a, b) for a, b in KNOWN_SCALES if a <= low and high <= b), None)
    return Scale(*known) if known else Scale(low, high, seen=True)


@dataclass(frozen=True)
class ScoreFigure:
    """One run's mean of one score with its band, over the ``queries`` its rows score (of ``judged``)."""

    run: str
    name: str
    interval: Interval
    queries: int
    judged: int


@dataclass(frozen=True)
class ExternalScores:
    """The scores of one file, with their statistics (see the module's docstring)."""

    source: str
    judges: tuple[str, ...]
    names: tuple[str, ...]
    scales: dict[str, Scale]
    figures: tuple[ScoreFigure, ...]
    comparisons: tuple[Comparison, ...] = ()
    baseline: str | None = None
    #: Per run, each scored query's values (in ``names`` order), queries in id order: what ``render``
    #: reads to draw every figure again (:func:`stored_scores`).
    values: dict[str, dict[str, tuple[float, ...]]] = field(default_factory=dict)

    def figure(self, run: str, name: str) -> ScoreFigure | None:
        return next((f for f in self.figures if f.run == run and f.name == name), None)

    def run_entries(self, run: str) -> dict[str, dict[str, Any]]:
        """A run's figures as report.json's run ``scores`` holds them (what ``--require`` reads)."""
        return {
            f.name: {
                "mean": _json(f.interval.mean),
                "low": _json(f.interval.low),
                "high": _json(f.interval.high),
                "interval": f.interval.method.value,
                "scale": self.scales[f.name].text,
                "queries": f.queries,
                "judged": f.judged,
            }
            for f in self.figures
            if f.run == run
        }

    def as_dict(self) -> dict[str, Any]:
        """report.json's ``scores``: where they came from, their scales and the comparisons."""
        return {
            "source": self.source,
            "judges": list(self.judges),
            "computed_by": "outside ragreport: ragreport computed their means, bands and comparisons only",
            "scales": {
                name: {"scale": s.text, "low": s.low, "high": s.high, "binary": s.binary, "how": s.how}
                for name, s in self.scales.items()
            },
            "baseline": self.baseline,
            "comparisons": [{k: _json(v) for k, v in c.as_dict().items()} for c in self.comparisons],
            "names": list(self.names),
            "values": {run: {q: list(v) for q, v in by_query.items()} for run, by_query in self.values.items()},
        }


def _json(value: Any) -> Any:
    return None if isinstance(value, float) and not np.isfinite(value) else value


def judged_of(summaries: Sequence[RunSummary]) -> dict[str, np.ndarray]:
    """Each run's judged query ids (sorted UTF-8 bytes): every query's also when the runs hold a
    sample's rows alone (docs/conventions.md section 29.3)."""
    store = paired_store(summaries)
    if store is not None and store.judged is not None:
        return {s.name: store.judged[s.paired[1]] for s in summaries if s.paired is not None}
    return {s.name: np.unique(as_bytes(s.judged.query_ids[s.judged.has_judgments])) for s in summaries}


def _rows_by_run(file: ScoreFile, judged: Mapping[str, np.ndarray]) -> dict[str, dict[str, int]]:
    """Per run, each query's row, every row checked against the report's runs and ``judged``
    queries; the first row in the file that fails is named."""
    names = list(judged)
    rows: dict[str, dict[str, int]] = {name: {} for name in names}
    shown = ", ".join(map(repr, names))
    try:
        for i, (qid, run, line) in enumerate(zip(file.query_ids, file.runs, file.lines)):
            if run is None and len(names) > 1:
                expected = f"a 'run' column naming one of the report's runs ({shown})"
                raise InputError(file.source, line, expected, "none")
            run = names[0] if run is None else run
            if run not in rows:
                raise InputError(file.source, line, f"a run of the report ({shown})", repr(run))
            if qid in rows[run]:
                earlier = file.lines[rows[run][qid]]
                expected = f"one row per run and query ({run!r} {qid!r} is on line {earlier})"
                raise InputError(file.source, line, expected)
            rows[run][qid] = i
    except InputError as exc:
        _check_judged(file, rows, judged, before=exc.line)
        raise
    _check_judged(file, rows, judged)
    return rows


def _check_judged(
    file: ScoreFile, rows: Mapping[str, Mapping[str, int]], judged: Mapping[str, np.ndarray], before: int | None = None
) -> None:
    """Refuse the first of ``rows`` (before line ``before``) whose query the run's ``judged`` ids
    lack: the ids of every row checked at once (a set of a million ids would take 100 MB)."""
    outside = [
        (file.lines[at], run, q)
        for run, by_query in rows.items()
        if by_query
        for q, at, held in zip(
            by_query, by_query.values(), np.isin(as_bytes(np.array(list(by_query), dtype=str)), judged[run]).tolist()
        )
        if not held and (before is None or file.lines[at] < before)
    ]
    if outside:
        line, run, q = min(outside)
        raise InputError(file.source, line, f"a query the judgments of run {run!r} hold", f"query {q!r}")


def score_band(values: np.ndarray, scale: Scale, conventions: Conventions) -> Interval:
    """The mean of one score's values (in query id order) with its band: Wilson for 0/1, else the bootstrap."""
    n = len(values)
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), IntervalMethod.NONE)
    if scale.binary:
        low, high = wilson_interval(int(values.sum()), n, conventions.confidence)
        return Interval(float(values.mean()), low, high, IntervalMethod.WILSON)
    mean, low, high = bootstrap_interval(values, conventions.resamples, conventions.seed, conventions.confidence)
    return Interval(float(mean[0]), float(low[0]), float(high[0]), IntervalMethod.BOOTSTRAP)


def external_scores(
    file: ScoreFile,
    summaries: Sequence[RunSummary],
    *,
    baseline: str | None = None,
    correction: Correction = Correction.HOLM,
    permutations: int = 10_000,
    min_effect: float = 0.02,
    scales: Sequence[str] | Mapping[str | None, tuple[float, float]] = (),
) -> ExternalScores:
    """The statistics of a score file's scores for the report's runs (``summaries``; the first
    run's conventions give the confidence, resamples and seed); ``baseline`` is the comparison's
    (None: no comparison), ``scales`` the ``--scores-scale`` values (or, from a stored report,
    the given scales already read, keyed by score name)."""
    conventions = summaries[0].conventions
    judged_ids = judged_of(summaries)
    rows = _rows_by_run(file, judged_ids)
    given = dict(scales) if isinstance(scales, Mapping) else parse_scales(scales)
    unknown = [name for name in given if name is not None and name not in file.names]
    if unknown:
        raise ArgumentError(SCORES_SCALE, f" names no score of {file.source} ({unknown[0]!r}); it holds {file.names}")
    found: dict[str, Scale] = {}
    for j, name in enumerate(file.names):
        values = file.values[:, j]
        scale = infer_scale(values, given.get(name, given.get(None)))
        outside = np.flatnonzero((values < scale.low) | (values > scale.high))
        if len(outside):
            i = int(outside[0])
            expected = f"a score {name!r} on its scale {scale.text} ({scale.how})"
            raise InputError(file.source, file.lines[i], expected, f"{values[i]:g}")
        found[name] = scale
    # Each run's rows in query id order: the bootstrap resamples them so, and pairs them so.
    ordered = {run: dict(sorted(by_query.items())) for run, by_query in rows.items()}
    figures = []
    for s in summaries:
        at = np.fromiter(ordered[s.name].values(), dtype=np.int64, count=len(ordered[s.name]))
        judged = len(judged_ids[s.name])
        for j, name in enumerate(file.names):
            band = score_band(file.values[at, j], found[name], conventions)
            figures.append(ScoreFigure(s.name, name, band, len(at), judged))
    comparisons = _compare(file, ordered, baseline, found, conventions, correction, permutations, min_effect)
    # By its name: a published report never shows a path of the machine that built it.
    name = Path(file.source).name
    kept = {run: {q: tuple(file.values[i].tolist()) for q, i in by_query.items()} for run, by_query in ordered.items()}
    return ExternalScores(name, file.judges, file.names, found, tuple(figures), comparisons, baseline, kept)


def stored_scores(stored: Mapping[str, Any], where: str) -> tuple[ScoreFile, dict[str | None, tuple[float, float]]]:
    """A report.json's ``scores`` (checked by its declared schema) as the score file they were
    read from and the scales given with ``--scores-scale``: :func:`external_scores` draws every
    figure again from them as the build did (the rows' order does not matter: the figures read
    them in query id order). The file's lines are the rows' positions in the stored values."""
    from ..reading.scores import ScoreFile

    if "names" not in stored:
        raise InputError(where, None, "'scores.names' naming the scores 'scores.values' holds", "none")
    names = tuple(stored["names"])
    rows = [(run, q, v) for run, by_query in stored["values"].items() for q, v in by_query.items()]
    short = next((f"{run!r} {q!r}" for run, q, v in rows if len(v) != len(names)), None)
    if short is not None:
        raise InputError(where, None, f"'scores.values' of {len(names)} numbers per query (one per name)", short)
    values = np.array([v for *_, v in rows], dtype=np.float64).reshape(len(rows), len(names))
    given = {name: (float(s["low"]), float(s["high"])) for name, s in stored["scales"].items() if s.get("how") == GIVEN}
    file = ScoreFile(
        str(stored["source"]),
        names,
        tuple(q for _, q, _ in rows),
        tuple(run for run, *_ in rows),
        tuple(range(1, len(rows) + 1)),
        values,
        tuple(stored["judges"]),
    )
    return file, given


def _compare(
    file: ScoreFile,
    ordered: dict[str, dict[str, int]],
    baseline: str | None,
    scales: dict[str, Scale],
    conventions: Conventions,
    correction: Correction,
    permutations: int,
    min_effect: float,
) -> tuple[Comparison, ...]:
    """Every run against the baseline on every score, over the queries both score (see the module)."""
    if baseline is None or not ordered.get(baseline):
        return ()
    base = ordered[baseline]
    drawn = []  # (run, differences: shared queries x scores, p-values)
    for run, by_query in ordered.items():
        shared = [q for q in base if q in by_query]
        if run == baseline or not shared:
            continue
        mine = np.array([by_query[q] for q in shared], dtype=np.int64)
        theirs = np.array([base[q] for q in shared], dtype=np.int64)
        d = file.values[mine] - file.values[theirs]
        drawn.append((run, d, randomization_test(d, permutations, conventions.seed)))
    adjusted = iter(adjust(np.concatenate([p for *_, p in drawn]) if drawn else np.zeros(0), correction))
    alpha = 1.0 - conventions.confidence
    out = []
    for run, d, p in drawn:
        mean, low, high = bootstrap_interval(d, conventions.resamples, conventions.seed, conventions.confidence)
        for j, name in enumerate(file.names):
            scale, column = scales[name], d[:, j]
            out.append(
                Comparison(
                    baseline,
                    run,
                    name,
                    float(mean[j]),
                    float(low[j]),
                    float(high[j]),
                    float(p[j]),
                    float(next(adjusted)),
                    wins=int((column > TIE).sum()),
                    ties=int((np.abs(column) <= TIE).sum()),
                    losses=int((column < -TIE).sum()),
                    queries=len(column),
                    alpha=alpha,
                    min_effect=min_effect * (scale.high - scale.low),
                )
            )
    return tuple(out)
