"""Where a query stands at the cutoff K: the statuses, each with the sentence a report prints for it.

A module of its own, importing nothing, so that the output stage can read the statuses without
importing the scoring behind :mod:`ragreport.analysis.summary`.
"""

from __future__ import annotations

from enum import Enum


class Status(Enum):
    """Where a query stands at the cutoff K, with the sentence a report prints for it."""

    FULL = ("full", "Every relevant id is in the top K.")
    PARTIAL = ("partial", "Some but not all relevant ids are in the top K.")
    LATE_HIT = ("late hit", "No relevant id in the top K, but one further down the list.")
    COMPLETE_MISS = ("complete miss", "No relevant id anywhere in the list.")
    EXCLUDED = ("excluded", "No id judged relevant (or no judgments): left out of every average.")
    NO_RELEVANT = ("no relevant id", "No id judged relevant: averaged in as 0 (--no-relevant zero).")
    MISSING = ("missing from run", "Judged, but the run has no entry for it.")

    def __init__(self, label: str, meaning: str):
        self.label = label
        self.meaning = meaning
