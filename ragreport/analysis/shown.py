"""Which queries the pages list past :data:`PAGE_QUERIES` (docs/conventions.md section 29.1).

A page that lists a million queries weighs over 100 MB and no browser opens it comfortably; every
figure still reads all the queries: only the per-query listings (each run's table, the query view)
hold the sample chosen here, the same queries for every run, and, for a partitioned build, report.json
(docs/conventions.md section 29.2).

- Past ``PAGE_QUERIES`` distinct queries in the report (none shown apart up to it), the sample
  holds :data:`SHOWN_QUERIES` queries (all of them when there are fewer).
- The extremes: with a comparison, each compared run's ``e`` largest wins and ``e`` largest
  losses against the baseline on the primary metric at K (difference beyond 1e-12, as the movers
  of the comparison), ``e = max(1, EXTREME_QUERIES // compared runs)``; without one, the run's
  ``e`` highest and ``e`` lowest scored values. Ties go by query id, as the movers' do, so the
  movers the comparison lists are among them.
- The queries the report points to elsewhere: the comparison's movers on the primary metric (past
  ``e`` a side), the slices' examples and the queries shown with their text (a link from them
  finds its query).
- The rest, up to ``SHOWN_QUERIES``, drawn uniformly: the queries (not already chosen) whose
  sample key ``mix64(key XOR r_0)`` is smallest, ``key`` the id's :func:`~.poisson.query_keys`
  under the conventions' seed and ``r_0`` the first value of the stream :data:`SHOWN_STREAM`
  (independent of the bootstrap's weights and signs); ties by id. It depends on the ids and the
  seed only: not on the file order, the partitions or the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.ids import as_text
from .paired import MOVERS
from .poisson import mix64, query_keys, stream

if TYPE_CHECKING:
    from .pipeline import Analysis

#: Up to this many queries in a report, the pages list every one: at 100,000 queries a run page
#: is about 12 MB and queries.html about 7 MB, which a browser opens in a few seconds (issue 24);
#: at 1,000,000 they were 120-128 MB and 74 MB.
PAGE_QUERIES = 100_000
#: How many queries a sampled page lists: 10,000 rows are 200 pages of the table, about 1.3 MB.
SHOWN_QUERIES = 10_000
#: The wins (or highest values) the sample holds, shared among the compared runs; as many losses.
EXTREME_QUERIES = 500
#: The sample's stream constant ("shown!!\n" as ASCII).
SHOWN_STREAM = 0x73686F776E21210A
#: A difference this small is no win and no loss (the movers' rule).
_MOVED = 1e-12


@dataclass(frozen=True)
class Shown:
    """The queries the pages list: ``ids`` (sorted), out of ``total``; ``each`` extremes a side
    per run (``compared`` runs: 0 without a comparison), ``wins`` and ``losses`` the distinct
    queries so chosen (the highest and lowest values without a comparison), ``cited`` the other
    queries the report points to (slice examples, queries shown with their text), ``drawn`` the rest."""

    ids: np.ndarray
    total: int
    each: int
    wins: int
    losses: int
    drawn: int
    compared: int
    cited: int
    baseline: str | None
    metric: str
    #: Whether report.json keeps every query (the memory engine) or this sample alone (the
    #: partitioned engines, whose figures come from sums it stores: section 29.2).
    stored_all: bool = True
    #: Read back from such a report.json (``render``): the runs' rows are these queries' alone.
    read_back: bool = False

    def mask(self, query_ids: np.ndarray) -> np.ndarray:
        """Which of ``query_ids`` (text or UTF-8 bytes) are shown."""
        return np.isin(np.asarray(as_text(query_ids), dtype=str), self.ids)


def sample_keys(query_ids: np.ndarray, seed: int) -> np.ndarray:
    """Each id's sample key (uint64): ``mix64(query_keys(ids, seed) XOR r_0)`` of :data:`SHOWN_STREAM`."""
    keys = query_keys(query_ids, seed)
    keys ^= stream(SHOWN_STREAM, 0, 1)[0]
    return mix64(keys)


def _ends(ids: np.ndarray, values: np.ndarray, each: int, moved: float | None) -> tuple[list[str], list[str]]:
    """The ``each`` ids of the highest and of the lowest ``values`` (ties by id); with ``moved``
    only values above it, and below minus it."""
    high = np.lexsort((ids, -values))
    low = np.lexsort((ids, values))
    if moved is not None:
        high, low = high[values[high] > moved], low[values[low] < -moved]
    return ids[high[:each]].tolist(), ids[low[:each]].tolist()


def shown_queries(analysis: Analysis) -> Shown | None:
    """The sample the pages list (the module's rules), None up to :data:`PAGE_QUERIES` queries:
    what :func:`~ragreport.analysis.pipeline.analyse_runs` keeps as ``Analysis.sample``."""
    summaries = analysis.summaries
    every = np.unique(np.concatenate([np.asarray(as_text(s.judged.query_ids), dtype=str) for s in summaries]))
    if len(every) <= PAGE_QUERIES:
        return None
    label = analysis.primary_label
    sides: list[tuple[list[str], list[str]]] = []
    movers: set[str] = set()  # the comparison tables' movers, which link to the query view
    comparison = analysis.comparison
    if comparison is not None:
        compared = [rc for rc in comparison.runs if label in rc.labels and len(rc.pairing.query_ids)]
        each = max(1, EXTREME_QUERIES // max(1, len(compared)))
        for rc in compared:
            m = rc.labels.index(label)
            ids = np.asarray(as_text(rc.pairing.query_ids), dtype=str)
            moved = rc.run_scores[:, m] - rc.baseline_scores[:, m]
            sides.append(_ends(ids, moved, each, _MOVED))
            movers.update(q for side in _ends(ids, moved, MOVERS, _MOVED) for q in side)
    else:
        compared, each = [], EXTREME_QUERIES
        for s in summaries:
            scored = s.scores.scored
            ids = np.asarray(as_text(s.judged.query_ids[scored]), dtype=str)
            sides.append(_ends(ids, s.scores.of(analysis.primary, s.k)[scored], each, None))
    wins = {q for high, _ in sides for q in high}
    losses = {q for _, low in sides for q in low} - wins
    slices = analysis.slices.slices if analysis.slices is not None else ()
    pointed = np.array(sorted({q for s in slices for q in s.examples} | set(analysis.text_queries) | movers), dtype=str)
    cited = set(pointed[np.isin(pointed, every)].tolist()) - wins - losses
    chosen = np.array(sorted(wins | losses | cited), dtype=str)
    rest = every[~np.isin(every, chosen)]
    room = max(0, SHOWN_QUERIES - len(chosen))
    drawn = rest[np.lexsort((rest, sample_keys(rest, summaries[0].conventions.seed)))[:room]]
    return Shown(
        ids=np.sort(np.concatenate([chosen, drawn])),
        total=len(every),
        each=each,
        wins=len(wins),
        losses=len(losses),
        drawn=len(drawn),
        compared=len(compared),
        cited=len(cited),
        baseline=comparison.baseline if comparison is not None else None,
        metric=label,
        stored_all=summaries[0].sums is None,
    )


def held_sample(analysis: Analysis) -> str | None:
    """Why ``analysis`` cannot give every query's rows, when it was read back from a report.json
    that holds the sample alone (docs/conventions.md section 29.2); None when it holds them all."""
    sample = analysis.sample
    if sample is None or not sample.read_back:
        return None
    return (
        f"the report holds {len(sample.ids):,} of its {sample.total:,} queries (docs/conventions.md "
        "section 29.2): score the run files for every query's"
    )
