"""Where a query stands at the cutoff K: the statuses, each with the sentence a report prints for it.

A module of its own, importing nothing, so that the output stage can read the statuses without
importing the scoring behind :mod:`ragreport.analysis.summary`.
"""

from __future__ import annotations

from enum import Enum


class Status(Enum):
    """Where a query stands at the cutoff K, with the sentence a report prints for it and a plain one."""

    FULL = ("full", "Every relevant id is in the top K.", "Everything relevant was found in the top K.")
    PARTIAL = (
        "partial",
        "Some but not all relevant ids are in the top K.",
        "Some of what is relevant was found in the top K, some was not.",
    )
    LATE_HIT = (
        "late hit",
        "No relevant id in the top K, but one further down the list.",
        "Something relevant was retrieved, but below the top K, where a reader would not see it.",
    )
    COMPLETE_MISS = ("complete miss", "No relevant id anywhere in the list.", "Nothing relevant was retrieved at all.")
    EXCLUDED = (
        "excluded",
        "No id judged relevant (or no judgments): left out of every average.",
        "Nobody marked any answer relevant for this query, so it is not counted.",
    )
    NO_RELEVANT = (
        "no relevant id",
        "No id judged relevant: averaged in as 0 (--no-relevant zero).",
        "Nobody marked any answer relevant for this query; it counts as a 0.",
    )
    MISSING = (
        "missing from run",
        "Judged, but the run has no entry for it.",
        "The query has answers marked relevant, but the run returned nothing for it.",
    )

    def __init__(self, label: str, meaning: str, plain: str):
        self.label = label
        self.meaning = meaning
        #: The same in words a stakeholder reads (the glossary, a tooltip).
        self.plain = plain
