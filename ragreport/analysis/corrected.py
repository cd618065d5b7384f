"""The prediction-powered mean: model labels everywhere, human labels on a sample (``--audit``;
docs/conventions.md section 25.4).

With model-label scores ``f`` on all N scored queries and human-label scores ``y`` with model-label
scores ``f`` on the n audited queries (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic,
"Prediction-powered inference", Science 382, 2023; Oosterhuis, Jagerman, Qin and Wang, KDD 2024):

- estimate ``theta = mean_N(f) + mean_n(y - f)``: the judge's bias, measured on the audit, removed;
- band, the normal form: ``theta +- z * sqrt(var_N(f) / N + var_n(y - f) / n)`` (sample variances).

The audited queries are among the N, so the two means are not independent; the normal form
leaves out their covariance, ``cov(f, y - f) / N``. For a judge whose error is unrelated to the true
score that is ``-var(error) / N``, so the band errs wide: a simulation (tests/test_corrected.py) with
a planted bias of 0.05, 400 queries and 40 audited from among them covers the truth in 97% of
trials at 95%, the model-only band in under 1%.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from .intervals import z_value

Figure = tuple[float, float, float]
_NAN: Figure = (float("nan"), float("nan"), float("nan"))


def _columns(values: np.ndarray) -> np.ndarray:
    """``values`` as (rows x columns): a vector is one column."""
    values = np.asarray(values, dtype=np.float64)
    return values.reshape(-1, 1) if values.ndim == 1 else values


def mean_bands(values: np.ndarray, confidence: float = 0.95) -> list[Figure]:
    """Each column's mean with its normal band, ``mean +- z * sd / sqrt(n)`` (rows are queries);
    NaN without a value, the band NaN with one."""
    values = _columns(values)
    n, width = values.shape
    if n == 0:
        return [_NAN] * width
    mean = values.mean(axis=0)
    half = z_value(confidence) * values.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full(width, np.nan)
    return [(float(m), float(m - h), float(m + h)) for m, h in zip(mean, half)]


def corrected_means(
    model_all: np.ndarray, model_audited: np.ndarray, human_audited: np.ndarray, confidence: float = 0.95
) -> list[Figure]:
    """Each column's prediction-powered mean and its normal band (rows are queries): ``model_all``
    the model-label scores of every scored query, ``model_audited``/``human_audited`` the two
    scores of each audited one, a column per metric."""
    f = _columns(model_all)
    gap = _columns(human_audited) - _columns(model_audited)
    width = f.shape[1]
    if f.shape[0] < 2 or gap.shape[0] < 2:
        return [_NAN] * width
    theta = f.mean(axis=0) + gap.mean(axis=0)
    half = z_value(confidence) * np.sqrt(f.var(axis=0, ddof=1) / f.shape[0] + gap.var(axis=0, ddof=1) / gap.shape[0])
    return [(float(t), float(t - h), float(t + h)) for t, h in zip(theta, half)]


def normal_p(figure: Figure, confidence: float = 0.95) -> float:
    """The two-sided normal-form p of a figure's difference from 0, read off its normal band
    (``se = (high - low) / (2 z)``): ``2 * Phi(-|theta| / se)``; 1 when undefined, 0 for a
    difference with no spread."""
    theta, low, high = figure
    if not all(math.isfinite(v) for v in figure):
        return 1.0
    se = (high - low) / (2.0 * z_value(confidence))
    if se <= 0:
        return 0.0 if theta != 0 else 1.0
    return 2.0 * NormalDist().cdf(-abs(theta) / se)
