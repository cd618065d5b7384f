"""The declared shape of every document ragreport reads back (docs/conventions.md section 23.2):
``history.json`` (:data:`HISTORY`), a report.json as ``--previous`` or a stored drift's basis
(:data:`PREVIOUS`: the fields drift reads), and a report.json given to ``render`` (:data:`RENDER`:
everything render reads). Written in the spec language of :mod:`ragreport.reading.schema`; a field a
writer adds is one entry here."""

from __future__ import annotations

from ....analysis.compare import VERDICTS
from ....analysis.power import MIN_EFFECT_LOW
from ....core.model import Denominator, Gain, LabelSource, Missing, NoRelevant, Order, RetrieverKind
from ....reading.schema import (
    ANY,
    BOOLEAN,
    BOOLEAN_OR_NULL,
    COUNT,
    COUNT_OR_NULL,
    CUTOFF,
    DATE,
    DATE_OR_NULL,
    GRADE,
    NUMBER_OR_NULL,
    TEXT,
    TEXT_OR_NULL,
    choice,
    either,
    integer,
    listing,
    mapping,
    number,
    obj,
)

#: The verdicts a comparison or a drift row states (the comparison's own list).
VERDICT = choice(*VERDICTS, null=True)

FINGERPRINTS = obj({"queries": TEXT, "labels": TEXT}, required=("queries", "labels"))
RUN_FINGERPRINTS = obj({"queries": TEXT, "labels": TEXT}, null=True)
JUDGMENTS = mapping(mapping(GRADE))
FIGURE = obj({"mean": NUMBER_OR_NULL, "low": NUMBER_OR_NULL, "high": NUMBER_OR_NULL})
TEXTS = listing(TEXT)

# --- A report.json as drift reads it (--previous, a stored drift.basis) ----------------------------

#: A per-query row: its counts, and every figure (a key holding ``@``) a number or null.
ROW = obj(
    {
        "id": TEXT,
        "query": TEXT_OR_NULL,
        "status": TEXT_OR_NULL,
        "scored": BOOLEAN_OR_NULL,
        **dict.fromkeys(("relevant", "retrieved", "repeats", "first_relevant_rank"), COUNT_OR_NULL),
    },
    required=("id",),
    keyed=(("@", NUMBER_OR_NULL),),
)
PREVIOUS_RUN = obj(
    {
        "name": TEXT,
        "k": CUTOFF,
        "fingerprints": obj({"queries": TEXT, "labels": TEXT}),
        "conventions": mapping(ANY),
        "metrics": mapping(FIGURE),
        "measures": mapping(FIGURE, null=True),
        "judgments": JUDGMENTS,
        "queries": listing(ROW, unique="id"),
    },
    required=("name",),
)
PREVIOUS = obj(
    {
        "date": DATE_OR_NULL,
        "fingerprints": FINGERPRINTS,
        "judgments": JUDGMENTS,
        "runs": listing(PREVIOUS_RUN, unique="name"),
    },
    required=("fingerprints", "runs"),
)

# --- report.json's compact form (schema ragreport/2, docs/conventions.md section 22.4) ----------------
# What a report of that schema writes in its own shape: checked as declared here, then read back
# (reportjson/migrate.py, each index against its table) into the shape PREVIOUS and RENDER declare.

INDICES = listing(COUNT)
COMPACT_JUDGMENTS = obj(
    {"queries": INDICES, "ids": listing(INDICES), "grades": listing(listing(GRADE))},
    required=("queries", "ids", "grades"),
)
#: A run's per-query figures as columns, one value per query in the order of ``id``: the indices
#: here; every other column's values are checked once read back, as the rows of RENDER_ROW (ROW).
COLUMNS = obj({"id": INDICES, "status": INDICES}, required=("id",), others=listing(ANY))
COMPACT_RUN = obj(
    {
        "queries": COLUMNS,
        "condensed": mapping(listing(ANY), null=True),
        "judgments": COMPACT_JUDGMENTS,
        "lists": obj({"ids": listing(INDICES)}),
    },
    required=("queries",),
)
COMPACT = obj(
    {
        "query_ids": TEXTS,
        "doc_ids": TEXTS,
        "statuses": TEXTS,
        "judgments": COMPACT_JUDGMENTS,
        "runs": listing(COMPACT_RUN),
    },
    required=("query_ids", "doc_ids", "statuses", "judgments", "runs"),
)

# --- report.json's packed form (schema ragreport/3, docs/conventions.md section 22.13) ---------------
# The compact form with the stored lists and the judgments' ids each one base-64 string of
# fixed-width little-endian integers (``packed.dtype``), their lists' lengths beside them; a run's
# ``id`` and ``scored`` columns left out where they are derivable. Checked as declared here, then
# unpacked (reportjson/migrate.py) into the compact form and read back as it is.

PACKED_JUDGMENTS = obj(
    {"queries": INDICES, "ids": TEXT, "lengths": INDICES, "grades": listing(GRADE)},
    required=("queries", "ids", "lengths", "grades"),
)
PACKED_COLUMNS = obj({"id": INDICES, "status": INDICES}, required=("status",), others=listing(ANY))
PACKED_RUN = obj(
    {
        **COMPACT_RUN["fields"],
        "queries": PACKED_COLUMNS,
        "judgments": PACKED_JUDGMENTS,
        "lists": obj({"ids": TEXT, "lengths": INDICES}, required=("ids",)),
    },
    required=COMPACT_RUN["required"],
)
PACKING = obj({"encoding": choice("base64"), "dtype": choice("<u1", "<u2", "<u4")}, required=("encoding", "dtype"))
PACKED = obj(
    {"packed": PACKING, **COMPACT["fields"], "judgments": PACKED_JUDGMENTS, "runs": listing(PACKED_RUN)},
    required=("packed", *COMPACT["required"]),
)

# --- report.json of schema ragreport/4 (docs/conventions.md section 22.17) ---------------------------
# The packed form with the stored lists cut to the deepest cutoff asked for and, in place of the
# condensed columns, the judged ids past each stored top that condensing reads (``next_judged``).

NEXT_JUDGED = obj({"ids": TEXT, "lengths": INDICES}, required=("ids", "lengths"))
PACKED4_RUN = obj(
    {
        "queries": PACKED_COLUMNS,
        "judgments": PACKED_JUDGMENTS,
        "lists": obj(
            {"depth": COUNT, "ids": TEXT, "lengths": INDICES, "next_judged": NEXT_JUDGED},
            required=("depth", "ids", "next_judged"),
        ),
    },
    required=("queries",),
)
PACKED4 = obj({**PACKED["fields"], "runs": listing(PACKED4_RUN)}, required=PACKED["required"])

# --- A report.json as render reads it -----------------------------------------------------------------


def _values(choices: type) -> tuple[str, ...]:
    return tuple(str(member.value) for member in choices)  # type: ignore[attr-defined]


CONVENTIONS = obj(
    {
        "denominator": choice(*_values(Denominator)),
        "gain": choice(*_values(Gain)),
        "missing": choice(*_values(Missing)),
        "order": choice(*_values(Order)),
        "no_relevant": choice(*_values(NoRelevant)),
        "relevance_level": integer(1),
        "confidence": number(0.0, 0.999999),
        "resamples": integer(1, 1_000_000),
        "seed": integer(0, 2**64 - 1),
    },
    required=("denominator", "gain", "missing", "order", "confidence", "resamples", "seed"),
)
META = obj(
    {
        "name": TEXT_OR_NULL,
        "date": DATE_OR_NULL,
        "label_source": choice(*_values(LabelSource), null=True),
        "retriever_kind": choice(*_values(RetrieverKind), null=True),
    }
)
RENDER_ROW = obj(
    {**ROW["fields"], "retrieved": COUNT, "repeats": COUNT, "scored": BOOLEAN},
    required=("id", "retrieved", "repeats"),
    keyed=ROW["keyed"],
)
LISTS = obj(
    {
        "depth": COUNT_OR_NULL,
        "in_run": either(COUNT, listing(BOOLEAN)),
        # each list as indices into doc_ids, each index checked as it is read (migrate.listed_ids),
        # or as the ids themselves (a report.json written before docs/conventions.md section 22)
        "doc_ids": listing(TEXT),
        "ids": either(listing(listing(COUNT)), listing(listing(TEXT))),
        "next_judged": listing(listing(TEXT)),  # ragreport/4, read back as ids (section 22.17)
        "relevant_retrieved": listing(COUNT),
    },
    required=("in_run", "ids", "relevant_retrieved"),
)
RENDER_RUN = obj(
    {
        **PREVIOUS_RUN["fields"],
        "source": TEXT,
        "cutoffs": listing(CUTOFF, least=1),
        "sweep": obj({"k": listing(CUTOFF, least=1)}, required=("k",)),
        "conventions": CONVENTIONS,
        "meta": META,
        "queries": listing(RENDER_ROW, unique="id"),
        "lists": LISTS,
    },
    required=("name", "cutoffs", "conventions", "meta", "source", "queries", "sweep", "lists"),
)
MEASURE = obj(
    {"key": TEXT, "cutoff": integer(1, 1_000_000, null=True), "gain": choice(*_values(Gain), null=True), "label": TEXT},
    required=("key", "cutoff", "gain"),
)
GATES = obj(
    {"fail_on": TEXTS, "require": TEXTS, "max_drop": TEXTS, "gated": listing(TEXT, null=True)},
    null=True,
)
SETTINGS = obj(
    {
        "k": listing(CUTOFF),
        "kmax": CUTOFF,
        "primary": TEXT_OR_NULL,
        "metrics": listing(MEASURE),
        "baseline": TEXT_OR_NULL,
        "correction": TEXT,
        "permutations": integer(1, 10_000_000),
        "min_effect": number(MIN_EFFECT_LOW, 1),  # as --min-effect takes it (a hand-edited 1e-300 named here)
        "conventions": CONVENTIONS,
        "previous": TEXT_OR_NULL,
        "slice_by": listing(TEXT, null=True),
        "today": DATE,
        "title": TEXT_OR_NULL,
        "gates": GATES,
    },
    required=("metrics", "today", "correction", "permutations"),
)
DELTA = obj({"delta": NUMBER_OR_NULL, "low": NUMBER_OR_NULL, "high": NUMBER_OR_NULL})
#: The audit of the model's labels (``--audit``; docs/conventions.md section 25): render reads its
#: human labels and source and measures the rest again.
AUDIT = obj(
    {
        "source": TEXT,
        "queries": COUNT,
        "pairs": COUNT,
        **dict.fromkeys(
            ("kappa", "kappa_low", "kappa_high", "weighted_kappa", "weighted_low", "weighted_high"), NUMBER_OR_NULL
        ),
        "confusion": mapping(mapping(COUNT)),
        "disagreement": NUMBER_OR_NULL,
        "slots": COUNT,
        "tau": NUMBER_OR_NULL,
        "runs": mapping(mapping(obj({"queries": COUNT, "model": FIGURE, "human": FIGURE, "corrected": FIGURE}))),
        "comparisons": listing(
            obj(
                {
                    "run": TEXT,
                    "metric": TEXT,
                    "queries": COUNT,
                    "model": obj({**DELTA["fields"], "verdict": VERDICT}),
                    "human": DELTA,
                    "corrected": obj({**DELTA["fields"], "p_adjusted": NUMBER_OR_NULL, "verdict": VERDICT}),
                }
            )
        ),
        "labels": JUDGMENTS,
    },
    required=("source", "labels"),
    null=True,
)
#: The external scores (``--scores``): render reads their per-query values, names and given scales.
SCORES = obj(
    {
        "source": TEXT,
        "judges": TEXTS,
        "names": listing(TEXT, least=1),
        "values": mapping(mapping(listing(number()))),
        "scales": mapping(obj({"low": number(), "high": number(), "how": TEXT}, required=("low", "high", "how"))),
    },
    required=("source", "judges", "scales"),
    null=True,
)
#: A partitioned build's report past PAGE_QUERIES (docs/conventions.md section 29.2): the sample and
#: the sums its figures were made of; each array a shape and its base-64 float64 values, checked as
#: it is read back (reportjson/sampled.py).
FLOATS = obj({"shape": listing(COUNT), "float64": TEXT}, required=("shape", "float64"))
SUMS = obj({"rows": COUNT, **dict.fromkeys(("digit_totals", "digit_weighted", "weights", "digit_flipped"), FLOATS)})
SAMPLED = obj(
    {
        "shown": obj({"ids": TEXTS, "total": COUNT, "baseline": TEXT_OR_NULL, "metric": TEXT}),
        "runs": mapping(obj({"sums": SUMS, "measure_sums": obj(SUMS["fields"], null=True), "facts": mapping(ANY)})),
        "pairs": listing(
            obj(
                {
                    "baseline": TEXT,
                    "run": TEXT,
                    "family": TEXTS,
                    "readings": BOOLEAN,
                    "figures": obj({"queries": COUNT}),
                }
            )
        ),
        "compared": mapping(obj({"only_baseline": TEXTS, "only_run": TEXTS, "judged_apart": TEXTS})),
    },
    required=("shown", "runs", "pairs", "compared"),
    null=True,
)
RENDER = obj(
    {
        "date": DATE_OR_NULL,
        "fingerprints": FINGERPRINTS,
        "judgments": JUDGMENTS,
        "settings": SETTINGS,
        "runs": listing(RENDER_RUN, unique="name", least=1),
        "drift": obj({"previous": TEXT, "basis": PREVIOUS}, required=("previous", "basis"), null=True),
        "audit": AUDIT,
        "scores": SCORES,
        "query_details": mapping(TEXT, null=True),
        "sampled": SAMPLED,
    },
    required=("settings", "judgments", "runs"),
)

# --- history.json ------------------------------------------------------------------------------------

HISTORY_RUN = obj(
    {
        "name": TEXT,
        "k": CUTOFF,
        "fingerprints": RUN_FINGERPRINTS,
        "conventions": mapping(ANY, null=True),
        "metrics": mapping(FIGURE),
        "scores": mapping(obj({**FIGURE["fields"], "scale": TEXT_OR_NULL}), null=True),
    },
    required=("name", "k", "metrics"),
)
DRIFT_ROW = obj(
    {
        "run": TEXT,
        "metric": TEXT,
        **dict.fromkeys(("then", "now", "delta", "low", "high", "p_adjusted"), NUMBER_OR_NULL),
        "verdict": VERDICT,
    },
    required=("run", "metric"),
)
ENTRY = obj(
    {
        "label": TEXT,
        "path": TEXT_OR_NULL,
        "date": DATE_OR_NULL,
        "published": DATE_OR_NULL,
        "title": TEXT_OR_NULL,
        "digest": TEXT_OR_NULL,
        "primary": TEXT_OR_NULL,
        "confidence": number(0.0, 0.999999, null=True),
        "fingerprints": obj({"queries": TEXT_OR_NULL, "labels": TEXT_OR_NULL}, null=True),
        "runs": listing(HISTORY_RUN, unique="name"),
        "headline": listing(
            obj(
                {
                    "run": TEXT_OR_NULL,
                    "verdict": VERDICT,
                    "baseline": TEXT_OR_NULL,
                    "sentence": TEXT,
                    "caveats": TEXTS,  # what could overturn it (docs/conventions.md section 20.4)
                },
                required=("sentence",),
            )
        ),
        "drift": obj(
            {
                "previous": TEXT,
                "previous_digest": TEXT_OR_NULL,
                "comparable": BOOLEAN_OR_NULL,
                "reasons": TEXTS,
                "notes": TEXTS,
                "unchanged": TEXTS,
                "rows": listing(DRIFT_ROW),
            },
            required=("previous",),
            null=True,
        ),
        "gates": obj({"failed": COUNT, "total": COUNT}, required=("failed", "total"), null=True),
    },
    required=("label", "date", "runs"),
)
HISTORY = obj(
    {"title": TEXT_OR_NULL, "generator": TEXT_OR_NULL, "reports": listing(ENTRY, unique="label")},
    required=("reports",),
)
