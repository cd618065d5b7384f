"""The comparison family: which measures a report compares, tests and corrects together.

By default every compared metric of the suite at K (the catalogue's
:data:`~ragreport.scoring.catalogue.COMPARED`). ``--metrics`` (``analyse(family=...)``) names another
family: only those measures are compared with the baseline and in the drift, and the multiple-comparison
correction counts only them (docs/conventions.md section 15).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.errors import Argument, ArgumentError
from ..scoring.catalogue import COMPARED, SUITE, Measure, Metric
from ..scoring.measures import parse_measures, parse_primary
from .compare import Family, default_family


def choose_family(
    named: Sequence[str | Measure] | None,
    k: int,
    primary: str | None = None,
    *,
    compares: bool = True,
    suite: Sequence[Metric] = SUITE,
) -> Family:
    """The comparison family of a report at K (docs/conventions.md section 15).

    ``named`` (``--metrics``, ``analyse(family=...)``): the measures compared, tested and corrected
    together, in the order given; None or empty: every compared suite metric at K. A count (NumRet,
    ...) or the Judged@K diagnostic has no verdict and is left out (``left_out``); a family left
    empty is an error. The primary metric must be in the family: ``--primary`` naming a metric the
    family lacks is an error; without ``--primary`` it is the first member that is a compared suite
    metric at K (an error when there is none). When nothing is compared (``compares`` False: one run
    and no previous report) ``named`` only names measures to print and does not change the primary.
    ``suite``: the suite's metrics the runs hold (a stored report's may lack a later one).
    """
    lead = parse_primary(primary, k)
    if not named or not compares:
        return Family(default_family(k, suite), lead)
    asked = tuple(dict.fromkeys(m for n in named for m in ((n,) if isinstance(n, Measure) else parse_measures([n]))))
    family = tuple(m for m in asked if m.metric.comparable)
    left_out = tuple(m for m in asked if not m.metric.comparable)
    labels = ", ".join(m.label() for m in asked)
    if not family:
        raise ArgumentError(
            Argument("family"),
            f" {labels}: nothing to compare (counts and the Judged@K diagnostic get no test); "
            f"name per-query scores such as nDCG@{k}",
        )
    leads = [m.metric for m in family if m.plain and m.cutoff == k and m.metric in COMPARED]
    if primary is not None:
        if lead not in leads:
            raise ArgumentError(
                Argument("primary"),
                f" {primary!r} is not in the comparison family ({labels}): add {lead.label(k)} to ",
                Argument("family"),
            )
        return Family(family, lead, True, left_out)
    if not leads:
        raise ArgumentError(
            Argument("family"),
            f" {labels} holds no compared metric at K = {k} for the report to lead with; "
            f"add one, such as nDCG@{k}, or choose K (",
            Argument("k"),
            ") at a cutoff it names",
        )
    return Family(family, leads[0], True, left_out)
