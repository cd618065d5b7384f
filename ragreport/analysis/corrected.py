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

import numpy as np

from .intervals import z_value


def mean_band(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """A mean with its normal band, ``mean +- z * sd / sqrt(n)``; NaN without a value."""
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    half = z_value(confidence) * float(values.std(ddof=1)) / np.sqrt(n) if n > 1 else float("nan")
    return mean, mean - half, mean + half


def corrected_mean(
    model_all: np.ndarray, model_audited: np.ndarray, human_audited: np.ndarray, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The prediction-powered mean and its normal band: ``model_all`` the model-label scores of
    every scored query, ``model_audited``/``human_audited`` the two scores of each audited one."""
    f = np.asarray(model_all, dtype=np.float64)
    gap = np.asarray(human_audited, dtype=np.float64) - np.asarray(model_audited, dtype=np.float64)
    if f.size < 2 or gap.size < 2:
        return float("nan"), float("nan"), float("nan")
    theta = float(f.mean() + gap.mean())
    half = z_value(confidence) * float(np.sqrt(f.var(ddof=1) / f.size + gap.var(ddof=1) / gap.size))
    return theta, theta - half, theta + half
