"""The words of the audit of a model judge's labels (``--audit``; docs/conventions.md section 25)."""

from __future__ import annotations

from .numbers import decimal, percent, signed

#: The Labels block's title.
LABELS_TITLE = "Labels: the model judge, audited"

#: The table's header: run, metric, then the three figures.
LABELS_HEADER = ("run", "metric", "model's labels (audited)", "human labels (audited)", "corrected (all)")


def _kappa(value: float, low: float, high: float, confidence: float) -> str:
    if value != value:  # NaN: undefined
        return "undefined (one class only)"
    return f"{decimal(value)} ({percent(confidence)} band {decimal(low)} to {decimal(high)})"


def agreement_sentence(
    source: str,
    queries: int,
    pairs: int,
    kappa: tuple[float, float, float],
    weighted: tuple[float, float, float],
    disagreement: float | None,
    k: int,
    confidence: float,
) -> str:
    """ "Audited by human.qrels on 40 queries: on the 1,200 pairs both judged, ..."."""
    text = (
        f"Audited by {source} on {queries:,} queries: on the {pairs:,} pairs both judged, Cohen's kappa "
        f"{_kappa(*kappa, confidence)}, quadratically weighted kappa {_kappa(*weighted, confidence)}"
    )
    if disagreement is not None:
        text += f"; the two label sets read {disagreement:.1%} of the top-{k} slots on audited queries differently"
    return text + "."


def tau_sentence(tau: float | None) -> str | None:
    """Kendall's tau of the runs' orderings, with three or more runs."""
    if tau is None or tau != tau:
        return None
    return f"Kendall's tau between the runs' orderings under the two label sets: {signed(tau)}."


def figure(mean: float, low: float, high: float) -> str:
    """ "0.512 (0.480 to 0.544)"; a dash where undefined."""
    if mean != mean:
        return "–"
    return f"{decimal(mean)} ({decimal(low)} to {decimal(high)})"
