"""How far a model judge's labels agree with human labels (``--audit``; docs/conventions.md section 25).

Pure functions over arrays. On the (query, id) pairs both label sets judged:

- Cohen's kappa on relevant / not relevant at the report's relevance level,
  ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from the two marginals (Cohen 1960);
- quadratically weighted kappa on grades, ``1 - sum(w O) / sum(w E)`` with
  ``w_ij = (g_i - g_j)^2`` over the grade values and ``E`` the outer product of the marginals
  (Cohen 1968): scikit-learn's ``cohen_kappa_score(weights="quadratic")`` with every grade of the
  range as its labels;
- the confusion matrix of grades (model grade x human grade);
- each kappa's percentile bootstrap band over the audited queries (seeded; a query's pairs are
  resampled together, as the queries are the sample);
- the share of the runs' top-K slots on audited queries whose relevant / not relevant reading
  differs between the two label sets (an unjudged id reads not relevant, as the scores read it).

A kappa is undefined (NaN) when both label sets put every pair in one class (``p_e = 1``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.budget import check_fits
from .intervals import percentile_band


@dataclass(frozen=True)
class Agreement:
    """The agreement of the model's labels with the audit's, on the pairs both judged."""

    queries: int  # audited queries
    pairs: int  # (query, id) pairs both label sets judged
    kappa: float  # Cohen's kappa on relevant / not relevant, with its bootstrap band
    kappa_low: float
    kappa_high: float
    weighted_kappa: float  # quadratically weighted kappa on grades, with its bootstrap band
    weighted_low: float
    weighted_high: float
    grades: tuple[int, ...]  # the confusion matrix's grades, low to high
    confusion: np.ndarray  # pairs by model grade (rows) and human grade (columns)
    #: The share of the runs' top-K slots on audited queries read relevant by one label set and not
    #: by the other (None without a slot), and those slots over every run.
    disagreement: float | None
    slots: int


def kappas(confusions: np.ndarray, grades: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's kappa at ``level`` and the quadratically weighted kappa of each confusion matrix.

    ``confusions`` is (..., G, G): counts by model grade (rows) and human grade (columns), the
    grades ``grades`` (G, increasing). Returns two arrays of the leading shape; NaN where a kappa
    is undefined (one class only, or no pair).
    """
    counts = np.asarray(confusions, dtype=np.float64)
    total = counts.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = counts / total[..., None, None]
        relevant = np.asarray(grades) >= level
        both = share[..., relevant, :][..., :, relevant].sum(axis=(-2, -1))
        neither = share[..., ~relevant, :][..., :, ~relevant].sum(axis=(-2, -1))
        model_rel = share[..., relevant, :].sum(axis=(-2, -1))
        human_rel = share[..., :, relevant].sum(axis=(-2, -1))
        observed = both + neither
        expected = model_rel * human_rel + (1.0 - model_rel) * (1.0 - human_rel)
        kappa = (observed - expected) / (1.0 - expected)
        g = np.asarray(grades, dtype=np.float64)
        weights = (g[:, None] - g[None, :]) ** 2
        rows, cols = share.sum(axis=-1), share.sum(axis=-2)
        outer = rows[..., :, None] * cols[..., None, :]
        weighted = 1.0 - (weights * share).sum(axis=(-2, -1)) / (weights * outer).sum(axis=(-2, -1))
    undefined = ~np.isfinite(kappa) | (np.abs(1.0 - expected) < 1e-12)
    kappa = np.where(undefined, np.nan, kappa)
    weighted = np.where(np.isfinite(weighted), weighted, np.nan)
    return kappa, weighted


def _band(values: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return float("nan"), float("nan")
    low, high = percentile_band(finite[:, None], confidence)
    return float(low[0]), float(high[0])


def agreement(
    query: np.ndarray,
    model: np.ndarray,
    human: np.ndarray,
    *,
    queries: int,
    level: int = 1,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    slot_model: Sequence[np.ndarray] = (),
    slot_human: Sequence[np.ndarray] = (),
) -> Agreement:
    """The agreement on the pairs both judged: ``query`` (each pair's audited-query index, 0 to
    ``queries - 1``), ``model`` and ``human`` (its two grades). ``slot_model``/``slot_human`` give,
    per run, the relevant / not relevant reading of each top-K slot on audited queries under each
    label set (booleans)."""
    query = np.asarray(query, dtype=np.int64)
    model = np.asarray(model, dtype=np.int64)
    human = np.asarray(human, dtype=np.int64)
    # The grades that occur (and the level, so that both classes have a grade), not every value
    # between them: an audit grade of 1000 or 2^63 - 1 costs what a grade of 2 does, and no
    # difference of two grades is taken in integers (it could pass 64 bits). A grade no pair holds
    # adds nothing to either kappa (its row and column are empty).
    span = np.union1d(np.union1d(model, human), np.array([0, level], dtype=np.int64))
    g = len(span)
    cell = np.searchsorted(span, model) * g + np.searchsorted(span, human)
    # Each audited query's confusion counts, flattened (queries x G^2), and each resample's: an
    # audit of thousands of distinct grades is refused in one line before it is allocated.
    check_fits(8.0 * g * g * (queries + 2 * resamples), f"the audit's agreement over {g:,} distinct grades")
    per_query = np.zeros((queries, g * g))
    np.add.at(per_query, (query, cell), 1.0)
    whole = per_query.sum(axis=0).reshape(g, g)
    kappa, weighted = kappas(whole, span, level)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, queries, size=(resamples, queries))
    times = np.zeros((resamples, queries))
    np.add.at(times, (np.repeat(np.arange(resamples), queries), picks.ravel()), 1.0)
    resampled = (times @ per_query).reshape(resamples, g, g)
    kappa_b, weighted_b = kappas(resampled, span, level)
    k_low, k_high = _band(kappa_b, confidence)
    w_low, w_high = _band(weighted_b, confidence)
    # Only the grades that occur, in the matrix shown.
    keep = (whole.sum(axis=1) + whole.sum(axis=0)) > 0
    shown = span[keep]
    slots = sum(int(np.size(m)) for m in slot_model)
    differ = sum(int(np.count_nonzero(np.asarray(m) != np.asarray(h))) for m, h in zip(slot_model, slot_human))
    return Agreement(
        queries=queries,
        pairs=int(query.size),
        kappa=float(kappa),
        kappa_low=k_low,
        kappa_high=k_high,
        weighted_kappa=float(weighted),
        weighted_low=w_low,
        weighted_high=w_high,
        grades=tuple(int(x) for x in shown),
        confusion=whole[np.ix_(keep, keep)].astype(np.int64),
        disagreement=differ / slots if slots else None,
        slots=slots,
    )


def kendall_tau(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's tau-b between two scorings of the same items (the runs' means under two label
    sets): ``(C - D) / sqrt((P - T_a) (P - T_b))`` over the P pairs, T the pairs tied in each
    (Kendall 1945; scipy.stats.kendalltau's default). NaN with fewer than two items, or when
    either scoring ties every pair."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = a.size
    if n < 2:
        return float("nan")
    upper = np.triu_indices(n, 1)
    sa = np.sign(a[:, None] - a[None, :])[upper]
    sb = np.sign(b[:, None] - b[None, :])[upper]
    pairs = sa.size
    tied_a, tied_b = int(np.count_nonzero(sa == 0)), int(np.count_nonzero(sb == 0))
    denominator = np.sqrt(float(pairs - tied_a) * float(pairs - tied_b))
    if denominator == 0:
        return float("nan")
    return float((sa * sb).sum() / denominator)
