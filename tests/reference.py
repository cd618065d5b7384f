"""Naive per-query reference implementations written straight from docs/conventions.md section 2.

One query at a time, plain Python, no numpy: the vectorised kernels are tested against these.
"""

from __future__ import annotations

import math


def gain(grade: int, kind: str = "linear") -> float:
    if grade < 1:
        return 0.0
    return float(grade) if kind == "linear" else 2.0**grade - 1.0


def relevance_flags(retrieved: list[str], grades: dict[str, int]) -> list[bool]:
    """Per rank: does it hold the first occurrence of a relevant id?"""
    seen: set[str] = set()
    flags = []
    for doc in retrieved:
        flags.append(doc not in seen and grades.get(doc, 0) >= 1)
        seen.add(doc)
    return flags


def metrics_at(
    retrieved: list[str], grades: dict[str, int], k: int, denominator: str = "relevant", gain_kind: str = "linear"
) -> dict[str, float]:
    r = sum(1 for g in grades.values() if g >= 1)
    flags = relevance_flags(retrieved, grades)[:k]
    hits = sum(flags)
    denom = r if denominator == "relevant" else min(r, k)
    precision_sum = 0.0
    found = 0
    first = None
    for i, flag in enumerate(flags, 1):
        if flag:
            found += 1
            precision_sum += found / i
            if first is None:
                first = i
    seen: set[str] = set()
    dcg = 0.0
    for i, doc in enumerate(retrieved[:k], 1):
        if doc not in seen:
            dcg += gain(grades.get(doc, 0), gain_kind) / math.log2(i + 1)
        seen.add(doc)
    # Judged@K: first occurrences of an id judged with any grade (0 and negative too), over K.
    judged = len({doc for doc in retrieved[:k] if doc in grades})
    ideal = sorted((g for g in grades.values() if g >= 1), reverse=True)[:k]
    idcg = sum(gain(g, gain_kind) / math.log2(i + 1) for i, g in enumerate(ideal, 1))
    return {
        "P": hits / k,
        "R": hits / denom if denom else 0.0,
        "Hit": 1.0 if hits else 0.0,
        "RR": 1.0 / first if first else 0.0,
        "AP": precision_sum / denom if denom else 0.0,
        "nDCG": dcg / idcg if idcg else 0.0,
        "CP": precision_sum / hits if hits else 0.0,
        "Judged": judged / k,
    }
