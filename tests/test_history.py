"""The history's labels, places, entries and trend lines (ragreport/output/exports/history.py), on entries
written out by hand."""

from __future__ import annotations

import pytest

from ragreport.core.errors import UsageError
from ragreport.output.exports.history import (
    choose_label,
    history_context,
    history_entry,
    keep_newest,
    place,
    previous_entry,
    trend_lines,
)

PRINTS = {"queries": "sha256:" + "a" * 64, "labels": "sha256:" + "b" * 64}
OTHER_LABELS = {"queries": "sha256:" + "a" * 64, "labels": "sha256:" + "c" * 64}
LINEAR = {
    "denominator": "relevant",
    "gain": "linear",
    "missing": "zero",
    "no_relevant": "exclude",
    "order": "score",
    "relevance_level": 1,
}


def run(name, mean, prints=PRINTS, k=10, conventions=LINEAR, metric="nDCG@10"):
    return {
        "name": name,
        "k": k,
        "fingerprints": prints,
        "conventions": conventions,
        "metrics": {metric: {"mean": mean, "low": mean - 0.05, "high": mean + 0.05}},
    }


def entry(label, *runs, primary="nDCG@10"):
    return {
        "label": label,
        "date": "2026-11-30",
        "published": "2026-11-30",
        "primary": primary,
        "runs": list(runs),
        "fingerprints": runs[0]["fingerprints"] if runs else None,
        "drift": None,
        "headline": [],
        "digest": f"sha256:{label}",
        "path": f"reports/{label}/index.html",
        "gates": None,
        "title": None,
        "confidence": 0.95,
    }


def test_the_default_label_is_the_date_made_unique():
    assert choose_label(None, "2026-12-01", []) == "2026-12-01"
    published = [entry("2026-12-01-2"), entry("2026-12-01")]
    assert choose_label(None, "2026-12-01", published) == "2026-12-01-3"
    assert choose_label(None, "2026-12-02", published) == "2026-12-02"


def test_a_given_label_is_taken_as_it_is_or_refused():
    assert choose_label("v2", "2026-12-01", [entry("v2")]) == "v2"  # published again: replaces it
    with pytest.raises(UsageError, match="differs only by case"):
        choose_label("V2", "2026-12-01", [entry("v2")])
    for bad in ("", "../x", "a/b", "a b", ".git", "-x", "x" * 65, "naïve", "a%20b"):
        with pytest.raises(UsageError, match="letters, digits"):
            choose_label(bad, "2026-12-01", [])
    assert choose_label("x" * 64, "2026-12-01", []) == "x" * 64
    assert choose_label("week_48.v1-rc", "2026-12-01", []) == "week_48.v1-rc"


def test_a_report_is_measured_against_the_one_published_before_it():
    published = [entry("v3"), entry("v2"), entry("v1")]
    assert previous_entry(published, "v4")["label"] == "v3"  # new: the newest
    assert previous_entry(published, "v2")["label"] == "v1"  # again: the one before it
    assert previous_entry(published, "v1") is None
    assert previous_entry([], "v1") is None


def test_a_label_published_again_keeps_its_place_and_a_new_one_comes_first():
    published = [entry("v3"), entry("v2"), entry("v1")]
    again = {**entry("v2"), "digest": "new"}
    assert [(e["label"], e["digest"]) for e in place(published, again)] == [
        ("v3", "sha256:v3"),
        ("v2", "new"),
        ("v1", "sha256:v1"),
    ]
    assert [e["label"] for e in place(published, entry("v4"))] == ["v4", "v3", "v2", "v1"]


def test_keep_newest():
    published = [entry("v3"), entry("v2"), entry("v1")]
    assert keep_newest(published, None) == (published, [])
    kept, dropped = keep_newest(published, 2)
    assert [e["label"] for e in kept] == ["v3", "v2"] and dropped == ["v1"]
    assert keep_newest(published, 5) == (published, [])
    with pytest.raises(UsageError):
        keep_newest(published, 0)


def test_a_line_joins_reports_that_compare_and_breaks_where_a_set_changed():
    # oldest first: r1, r2 (same sets), r3 (label set changed for both), r4 (b absent), r5
    entries = [
        entry("r5", run("a", 0.70, OTHER_LABELS), run("b", 0.50, OTHER_LABELS)),
        entry("r4", run("a", 0.68, OTHER_LABELS)),
        entry("r3", run("a", 0.66, OTHER_LABELS), run("b", 0.45, OTHER_LABELS)),
        entry("r2", run("a", 0.60), run("b", 0.40)),
        entry("r1", run("a", 0.55), run("b", 0.42)),
    ]
    (trend,) = trend_lines(entries)
    assert trend.metric == "nDCG@10" and trend.labels == ("r1", "r2", "r3", "r4", "r5")
    a, b = trend.lines
    assert a.run == "a" and a.segments == ((0, 1), (2, 3, 4))
    assert a.means == (0.55, 0.60, 0.66, 0.68, 0.70)
    assert b.segments == ((0, 1), (2,), (4,))  # absent from r4: a gap, not a break
    assert b.means[3] is None
    assert [(x.position, x.kinds, x.runs, x.every) for x in trend.breaks] == [(2, ("label set",), ("a", "b"), True)]


def test_each_kind_of_change_breaks_the_line_and_is_named():
    gain = {**LINEAR, "gain": "exponential"}
    other_queries = {"queries": "sha256:" + "d" * 64, "labels": "sha256:" + "e" * 64}
    entries = [
        entry("r4", run("a", 0.5, other_queries, conventions=gain), run("b", 0.5, other_queries, conventions=gain)),
        entry("r3", run("a", 0.5, conventions=gain), run("b", 0.5)),
        entry("r2", run("a", 0.5, k=20, metric="nDCG@10"), run("b", 0.5)),
        entry("r1", run("a", 0.5), run("b", 0.5)),
    ]
    (trend,) = trend_lines(entries)
    found = [(x.position, x.kinds, x.runs, x.every) for x in trend.breaks]
    assert found == [
        (1, ("K",), ("a",), False),
        (2, ("K", "conventions"), ("a",), False),
        (3, ("query set", "label set"), ("a",), False),
        (3, ("query set", "label set", "conventions"), ("b",), False),
    ]


def test_every_metric_any_report_holds_is_a_trend_the_primary_first():
    old = entry("r1", run("a", 0.5, metric="R@10"))
    new = entry("r2", run("a", 0.6, metric="nDCG@10"))
    assert [t.metric for t in trend_lines([new, old])] == ["nDCG@10", "R@10"]


def test_the_page_context_says_what_changed_since_the_previous_report():
    v1 = entry("v1", run("a", 0.5))
    v2 = entry("v2", run("a", 0.6))
    v2["drift"] = {
        "previous": "v1",
        "previous_digest": "sha256:v1",
        "comparable": True,
        "reasons": [],
        "notes": [],
        "unchanged": [],
        "rows": [
            {
                "run": "a",
                "metric": "nDCG@10",
                "then": 0.5,
                "now": 0.6,
                "delta": 0.1,
                "low": 0.02,
                "high": 0.18,
                "p_adjusted": 0.01,
                "verdict": "better",
            }
        ],
    }
    context = history_context([v2, v1])
    newest = context["newest"]["drift"]
    assert str(newest["since"]) == "Against v1:" and newest["href"] == "#report-v1"
    assert [(str(line["text"]), line["css"]) for line in newest["lines"]] == [
        ("a: nDCG@10 0.500 then, 0.600 now, +0.100 (band +0.020 to +0.180): ▲ higher now.", "better")
    ]
    assert context["title"] == "Evaluation history"
    assert [r["label"] for r in context["rows"]] == ["v2", "v1"]
    assert context["rows"][0]["runs"] == [{"name": "a", "mean": "0.600", "band": "[0.550, 0.650]"}]
    # the report it was measured against was published again since, then pruned
    v1_again = {**v1, "digest": "sha256:other"}
    assert str(history_context([v2, v1_again])["newest"]["drift"]["since"]) == (
        "Against v1 (as it was then: it has been published again since):"
    )
    pruned = history_context([v2])["newest"]["drift"]
    assert str(pruned["since"]) == "Against v1 (no longer kept):" and pruned["href"] is None


def test_an_entry_keeps_the_figures_at_k_and_the_primary_drift_only():
    document = {
        "date": "2026-11-30",
        "primary": "nDCG@10",
        "fingerprints": PRINTS,
        "settings": {"today": "2026-12-01", "title": "Week 48", "conventions": {"confidence": 0.9}},
        "runs": [
            {
                "name": "a",
                "k": 10,
                "fingerprints": PRINTS,
                "conventions": {**LINEAR, "confidence": 0.9},
                "metrics": {
                    "nDCG@10": {"mean": 0.6, "low": 0.5, "high": 0.7, "interval": "bootstrap"},
                    "nDCG@5": {"mean": 0.4, "low": 0.3, "high": 0.5},
                },
                "measures": {"R@100": {"mean": 0.9, "low": 0.85, "high": 0.95}},
            }
        ],
        "headline": [{"run": "a", "verdict": None, "baseline": None, "sentence": "a scores 0.600."}],
        "drift": {
            "previous": "v1",
            "comparable": True,
            "reasons": [],
            "notes": [],
            "unchanged": ["a"],
            "rows": [{"run": "a", "metric": "P@10"}, {"run": "a", "metric": "nDCG@10"}],
            "basis": {"big": 1},
        },
        "gates": [{"passed": True}, {"passed": False}],
    }
    made = history_entry(document, "v2", "sha256:x", "sha256:y")
    assert made["runs"][0]["metrics"] == {
        "nDCG@10": {"mean": 0.6, "low": 0.5, "high": 0.7},
        "R@100": {"mean": 0.9, "low": 0.85, "high": 0.95},
    }
    assert made["runs"][0]["conventions"] == LINEAR  # the figure conventions, not the band's
    assert made["drift"]["rows"] == [{"run": "a", "metric": "nDCG@10"}] and "basis" not in made["drift"]
    assert made["drift"]["previous_digest"] == "sha256:y"
    assert made["gates"] == {"failed": 1, "total": 2}
    assert (made["label"], made["path"], made["date"], made["published"], made["title"], made["confidence"]) == (
        "v2",
        "reports/v2/index.html",
        "2026-11-30",
        "2026-12-01",
        "Week 48",
        0.9,
    )


def scored(name, mean, scale="0-1", **kw):
    """A run holding an external score (--scores) beside its own nDCG@10."""
    return {
        **run(name, 0.5, **kw),
        "scores": {"faithfulness": {"mean": mean, "low": mean - 0.1, "high": mean + 0.1, "scale": scale}},
    }


def test_an_entry_keeps_each_runs_external_scores_apart_from_its_metrics():
    document = {
        "settings": {},
        "runs": [
            {
                "name": "a",
                "k": 10,
                "metrics": {"nDCG@10": {"mean": 0.6, "low": 0.5, "high": 0.7}},
                "scores": {"judge": {"mean": 3.5, "low": 2.5, "high": 4.5, "interval": "bootstrap", "scale": "1-5"}},
            },
            {"name": "b", "k": 10, "metrics": {}},
        ],
    }
    made = history_entry(document, "v1", "sha256:x", None)
    assert made["runs"][0]["metrics"] == {"nDCG@10": {"mean": 0.6, "low": 0.5, "high": 0.7}}
    assert made["runs"][0]["scores"] == {"judge": {"mean": 3.5, "low": 2.5, "high": 4.5, "scale": "1-5"}}
    assert "scores" not in made["runs"][1]


def test_an_external_score_has_its_own_trend_broken_where_its_scale_changed():
    v1 = entry("v1", scored("a", 0.5))
    v2 = entry("v2", scored("a", 0.7))
    v3 = entry("v3", scored("a", 3.0, scale="1-5"))
    entries = [v3, v2, v1]
    assert [t.metric for t in trend_lines(entries)] == ["nDCG@10"]  # the ranked-list figures, alone
    (trend,) = trend_lines(entries, "scores")
    assert trend.metric == "faithfulness" and trend.labels == ("v1", "v2", "v3")
    (line,) = trend.lines
    assert line.means == (0.5, 0.7, 3.0) and line.lows == (0.4, 0.6, 2.9)
    assert line.segments == ((0, 1), (2,))
    assert [(b.position, b.kinds) for b in trend.breaks] == [(2, ("scale",))]
    context = history_context(entries)
    assert [t["metric"] for t in context["score_trends"]] == ["faithfulness"]
    assert [t["metric"] for t in [context["primary_trend"], *context["other_trends"]]] == ["nDCG@10"]
    assert [str(b) for b in context["score_trends"][0]["breaks"]] == [
        "Between v2 and v3 the scale changed for a: the line is broken there."
    ]
    assert history_context([v2, v1])["score_trends"][0]["breaks"] == []
    assert history_context([entry("v0", run("a", 0.5))])["score_trends"] == []
