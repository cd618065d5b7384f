"""The verdict first (issue 11): the primary metric, the headline in report.json and on the index,
its wording, and the glossary's coverage."""

from __future__ import annotations

import pytest
from helpers import judged_run
from sitetools import second_sample_run

from ragreport.analysis.summary import Status
from ragreport.api import analyse, document, evaluate, score_and_summarise
from ragreport.cli import main
from ragreport.cli.parser import flag
from ragreport.core.errors import UsageError
from ragreport.core.model import Conventions
from ragreport.output.site.view.build import build_view
from ragreport.output.site.wording import comparison as say_comparison
from ragreport.output.site.wording import headline as say
from ragreport.scoring.catalogue import COMPARED, NDCG, PRECISION, PRIMARY, RECALL, RECIPROCAL_RANK, SUITE
from ragreport.scoring.measures import parse_primary

# --- --primary ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, PRIMARY),
        ("nDCG@10", NDCG),
        ("ndcg_cut_10", NDCG),
        ("nDCG", NDCG),  # no cutoff: read at K
        ("R@10", RECALL),
        ("recall.10", RECALL),
        ("P@10", PRECISION),
        ("mrr@10", RECIPROCAL_RANK),
    ],
)
def test_primary_is_parsed_with_the_measure_parser(text, expected):
    assert parse_primary(text, 10) is expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("nDCG@20", "is not a compared metric at K = 10"),  # another cutoff than K
        ("Judged@10", "is not a compared metric at K = 10"),  # a diagnostic, never compared
        ("NumQ", "is not a compared metric at K = 10"),  # a whole-list count
        ("ndcg_burges@10", "is not a compared metric at K = 10"),  # implies another gain
        ("bogus", "is not a metric"),
        ("P", "is not a metric"),  # P needs a cutoff
    ],
)
def test_a_primary_that_is_not_a_compared_metric_at_k_is_refused_naming_the_choices(text, why):
    with pytest.raises(UsageError) as caught:
        parse_primary(text, 10)
    message = str(caught.value)
    assert message.startswith(f"primary {text!r} {why}; choose one of ")
    assert caught.value.spelled(flag).startswith(f"--primary {text!r} {why}; choose one of ")  # the CLI's
    assert message.endswith(", ".join(m.label(10) for m in COMPARED))
    assert "\n" not in message


def test_primary_on_the_command_line(capsys):
    assert main(["score", "--primary", "R@5", "--format", "json", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert '"primary":"R@5"' in out
    assert main(["score", "--primary", "R@10", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ragreport: error: --primary 'R@10' is not a compared metric at K = 5; choose one of "
        + ", ".join(m.label(5) for m in COMPARED)
        + "\n"
    )
    # checked before any run is read: a misspelt name costs no scoring time
    assert main(["score", "no-such-run.trec", "--qrels", "no-such-qrels", "--primary", "nDGC@10", "--quiet"]) == 2
    assert "--primary 'nDGC@10' is not a metric; choose one of P@10, " in capsys.readouterr().err


# --- The headline in report.json --------------------------------------------------------------------

#: Worked by hand at K = 2, binary grades. P@2 per query, base then new:
#: q1 (relevant a):    [x, a] 0.5, [a, x] 0.5 -> tie
#: q2 (relevant b, c): [x, y] 0,   [b, c] 1   -> new wins by 1
#: q3 (relevant d):    [d, y] 0.5, [x, y] 0   -> new loses by 0.5
#: Means: base 1/3, new 1/2; the mean difference 1/6. Every one of the 2^3 sign flips of (0, 1, -0.5)
#: gives |sum| >= 0.5, the observed one, so p = 1, and so is every corrected p: no clear difference.
BASE = [("q1", ["x", "a"], {"a": 1}), ("q2", ["x", "y"], {"b": 1, "c": 1}), ("q3", ["d", "y"], {"d": 1})]
NEW = [("q1", ["a", "x"], {"a": 1}), ("q2", ["b", "c"], {"b": 1, "c": 1}), ("q3", ["x", "y"], {"d": 1})]


def _two_runs(primary="P@2"):
    conventions = Conventions(resamples=200)
    summaries = [score_and_summarise(judged_run(q, name=n), 2, conventions) for n, q in (("base", BASE), ("new", NEW))]
    return analyse(summaries, primary=primary, permutations=1000)


def test_the_headline_of_two_runs_holds_the_figures_worked_by_hand():
    doc = document(_two_runs())
    assert doc["primary"] == "P@2"
    [entry] = doc["headline"]
    assert list(entry) == [
        "run", "baseline", "metric", "value", "baseline_value", "delta", "low", "high", "p_adjusted", "verdict",
        "sentence", "limit", "caveats", "readings_note", "halving", "effect", "effect_low", "effect_high",
    ]  # fmt: skip
    assert (entry["run"], entry["baseline"], entry["metric"]) == ("new", "base", "P@2")
    assert entry["value"] == pytest.approx(1 / 2) and entry["baseline_value"] == pytest.approx(1 / 3)
    assert entry["delta"] == pytest.approx(1 / 6)
    assert entry["low"] < 0 < entry["high"]
    assert entry["p_adjusted"] == 1.0 and entry["verdict"] == "unclear" and entry["limit"] is None
    # the same figures as the comparison's own entry for P@2
    [same] = [c for c in doc["comparisons"] if c["metric"] == "P@2"]
    assert {k: same[k] for k in ("delta", "low", "high", "p_adjusted", "verdict")} == {
        k: entry[k] for k in ("delta", "low", "high", "p_adjusted", "verdict")
    }
    assert entry["sentence"] == (
        f"new scores 0.500 P@2 against base's 0.333: +0.167 (95% band {entry['low']:+.3f} to "
        f"{entry['high']:+.3f}), better on 1 query and worse on 1 — no clear difference."
    )
    # unclear over 3 queries (one a tie): a randomization test over 3 cannot go below p = 2/8
    [power] = [c for c in entry["caveats"] if c["kind"] == "power"]
    assert power["queries"] == 3 and power["detectable"] is None
    assert "could not detect a difference of any size at the corrected level" in power["sentence"]


def test_the_primary_is_what_every_output_leads_with():
    analysis = _two_runs("RR@2")
    view = build_view(analysis)
    assert view.primary == "RR@2" and view.comparison is not None and view.comparison.primary == "RR@2"
    assert view.comparison.pairs[0].gains_caption.startswith("Gained most on RR@2")
    sweep = view.figure["layout"]["updatemenus"][0]
    assert sweep["active"] == SUITE.index(RECIPROCAL_RANK)  # the index chart opens on the primary
    scatter = view.comparison.pairs[0].scatter["layout"]["updatemenus"][0]
    assert scatter["active"] == COMPARED.index(RECIPROCAL_RANK)
    assert [t["visible"] for t in view.comparison.pairs[0].scatter["data"]] == [m is RECIPROCAL_RANK for m in COMPARED]
    assert document(analysis)["headline"][0]["metric"] == "RR@2"
    forest = view.forest["data"][0]
    assert forest["y"] == ["new"] and forest["x"] == [document(analysis)["headline"][0]["delta"]]


def test_a_single_run_headline_is_its_figure_band_and_main_limit():
    doc = document(analyse(evaluate()))
    assert doc["primary"] == "nDCG@5"
    [entry] = doc["headline"]
    figure = doc["runs"][0]["metrics"]["nDCG@5"]
    assert (entry["value"], entry["low"], entry["high"]) == (figure["mean"], figure["low"], figure["high"])
    assert entry["baseline"] is entry["baseline_value"] is entry["delta"] is entry["p_adjusted"] is None
    assert entry["verdict"] is None
    # the sample has 9 scored queries (small_sample) and unjudged ids: the small sample comes first
    assert {"small_sample", "unjudged"} <= {limit["key"] for limit in doc["runs"][0]["limits"]}
    assert entry["limit"] == "small_sample"
    assert entry["sentence"] == (
        f"sample scores {figure['mean']:.3f} nDCG@5 (95% band {figure['low']:.3f} to {figure['high']:.3f}) over 9 "
        "scored queries; 36 (four times as many) would halve the band. The main limit: only 9 scored queries, so the band is wide and a difference smaller than it "
        "is not evidence."
    )


def test_the_main_limit_follows_the_declared_priority():
    assert say.headline_limit(["scope", "repeats", "unjudged"], 120, 10)[0] == "unjudged"
    assert say.headline_limit(["repeats", "small_sample", "unjudged"], 9, 10)[0] == "small_sample"
    key, sentence = say.headline_limit(["scope", "k_dependence"], 500, 10)
    assert key is None and sentence == "It holds for this query set, this label set and K = 10 only."
    assert set(say.HEADLINE_LIMIT_PRIORITY) == set(say.HEADLINE_LIMITS)


# --- The wording ------------------------------------------------------------------------------------


def _sentence(verdict, p_adjusted=0.001, low=0.131, high=0.237):
    return str(
        say.headline_sentence("hybrid", "bm25", "nDCG@10", 0.512, 0.327, 0.185, low, high, 180, 61, verdict,
                              p_adjusted, 0.95)
    )  # fmt: skip


def test_the_sentence_for_each_verdict():
    lead = "hybrid scores 0.512 nDCG@10 against bm25's 0.327: +0.185 (95% band +0.131 to +0.237), "
    assert _sentence("better") == lead + "better on 180 queries and worse on 61 — clearly better."
    assert _sentence("band above 0", p_adjusted=0.08) == (
        lead + "better on 180 queries and worse on 61 — no clear difference: better by the band, but not confirmed "
        "by the corrected p (0.080)."
    )
    worse = str(say.headline_sentence("a", "b", "R@5", 0.2, 0.3, -0.1, -0.15, -0.05, 1, 30, "worse", 0.0001, 0.9))
    assert (
        worse == "a scores 0.200 R@5 against b's 0.300: -0.100 (90% band -0.150 to -0.050), better on 1 query "
        "and worse on 30 — clearly worse."
    )
    below = str(say.headline_sentence("a", "b", "R@5", 0.2, 0.3, -0.1, -0.15, -0.05, 1, 30, "band below 0", 0.2, 0.9))
    assert below.endswith("— no clear difference: worse by the band, but not confirmed by the corrected p (0.200).")
    unclear = str(say.headline_sentence("a", "b", "R@5", 0.3, 0.3, 0.0, -0.05, 0.05, 4, 4, "unclear", 1.0, 0.95))
    assert unclear.endswith("better on 4 queries and worse on 4 — no clear difference.")


def test_a_sentence_says_when_the_difference_is_over_the_queries_both_scored():
    text = str(say.headline_sentence("a", "b", "R@5", 0.3, 0.3, 0.0, -0.05, 0.05, 4, 4, "unclear", 1.0, 0.95, 12))
    assert text.startswith("a scores 0.300 R@5 against b's 0.300: 0.000 on the 12 queries both scored (95% band ")
    summaries = [
        score_and_summarise(judged_run(q, name=n), 2, Conventions(resamples=200))
        for n, q in (("base", BASE), ("new", NEW[:2]))
    ]
    [entry] = document(analyse(summaries, primary="P@2", permutations=100))["headline"]
    assert entry["sentence"].startswith(
        "new scores 0.750 P@2 against base's 0.333: +0.500 on the 2 queries both scored"
    )
    # new over its own q1, q2: (0.5 + 1) / 2; base over q1-q3: 1 / 3; the difference over q1, q2: (0 + 1) / 2


def test_the_run_names_in_a_sentence_are_the_users_words():
    text = say.headline_sentence("*a*", "b_", "R@5", 0.3, 0.3, 0.0, -0.05, 0.05, 4, 4, "unclear", 1.0, 0.95)
    assert text.render(lambda s: f"<{s}>").startswith("<*a*> scores 0.300 R@5 against <b_>'s 0.300")


def test_every_verdict_has_headline_words():
    from ragreport.analysis.compare import VERDICTS
    from ragreport.output.site.charts import FOREST_MARKS
    from ragreport.output.site.wording import gates, history, labels, report

    maps = (say.HEADLINE_VERDICTS, say_comparison.VERDICTS, say_comparison.DRIFT_VERDICTS, gates.GATE_VERDICTS)
    maps += (history.HISTORY_DRIFT_WORDS, labels.VERDICT_WORDS, report.READING_VERDICTS)
    for words in maps:
        assert set(words) == set(VERDICTS)
    assert {css for _, css in say_comparison.VERDICTS.values()} <= set(FOREST_MARKS)  # each has its mark
    # the margin's verdicts say the margin
    assert say.headline_verdict("equivalent", 0.5, 0.02) == (
        "practically the same: the whole band lies within ±0.020 (two one-sided tests)"
    )
    assert say.margin_note(0.02, "nDCG@10") == "A difference under 0.02 nDCG@10 is treated as negligible."


# --- The glossary and the tooltips ------------------------------------------------------------------


def test_the_glossary_explains_every_suite_metric_and_every_status():
    view = build_view(analyse(evaluate()), pages=False)
    glossary = view.glossary
    assert [e.term for e in glossary.metrics] == [m.label(5) for m in SUITE]
    for entry, metric in zip(glossary.metrics, SUITE):
        assert entry.name == metric.name and entry.plain == metric.plain and entry.plain
    assert [e.term for e in glossary.statuses] == [s.label for s in Status]
    for entry, status in zip(glossary.statuses, Status):
        assert entry.plain == status.plain and entry.plain.endswith(".")
    assert all(row.tooltip == f"{row.name} — {m.plain}" for row, m in zip(view.metric_rows, SUITE))


def test_every_metric_and_status_has_a_plain_sentence():
    for metric in SUITE:
        assert metric.plain and metric.plain != metric.convention(10, Conventions())
    for status in Status:
        assert status.plain and status.plain != status.meaning


# --- On the page ------------------------------------------------------------------------------------


def test_the_headline_comes_before_the_suite_table_and_the_glossary_is_on_the_index(tmp_path):
    from ragreport.reading.registry import sample_path

    second = second_sample_run(tmp_path)
    out = tmp_path / "site"
    assert (
        main(["build", str(sample_path()), str(second), "-k", "5", "--primary", "R@5", "--out", str(out), "--quiet"])
        == 0
    )
    page = (out / "index.html").read_text("utf-8")
    headline = page.index('<section id="headline"')
    sentence = page.index('<bdi class="mono">sample-reversed</bdi> scores ')
    assert (
        page.index('<h1 class="report-title">')
        < headline
        < sentence
        < page.index('id="scored"')
        < page.index('id="suite"')
    )
    assert ' R@5 against <bdi class="mono">sample</bdi>&#39;s ' in page
    assert page.index('class="chart chart-forest"') < page.index('id="suite"')
    glossary = page[page.index('<section id="glossary"') :]
    for metric in SUITE:
        assert f"<dt>{metric.label(5)} " in glossary and metric.plain in glossary
    for status in Status:
        assert f"<dt>{status.label}</dt>" in glossary and status.plain in glossary
    # the full fingerprints stay a click away; the table shows short ones
    assert '<details class="fingerprints">' in page
    run = (out / "run-sample.html").read_text("utf-8")
    assert 'href="index.html#glossary"' in run
    assert f'title="{NDCG.name} — {NDCG.plain}"' in run


def test_with_an_audit_every_medium_leads_with_the_corrected_difference():
    from test_agreement import _favoured

    from ragreport.output.exports.text import comment, markdown, table

    model, human, runs = _favoured()
    report = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=2000)
    (corrected,) = [c for c in report.audit.comparisons if c.metric == "nDCG@3"]
    figures = {r.run: r for r in report.audit.runs if r.label == "nDCG@3"}
    doc = document(report)
    [entry] = doc["headline"]
    # The figures are the corrected ones: the audit's comparison and each run's corrected mean.
    assert (entry["delta"], entry["low"], entry["high"]) == pytest.approx(corrected.corrected)
    assert entry["verdict"] == corrected.verdict == "worse" and entry["corrected_by"] == 20
    assert entry["value"] == pytest.approx(figures["b"].corrected[0])
    assert entry["baseline_value"] == pytest.approx(figures["a"].corrected[0])
    model_side = next(c for c in doc["comparisons"] if c["metric"] == "nDCG@3")
    d, lo, hi = corrected.corrected
    assert entry["sentence"] == (
        f"b scores {figures['b'].corrected[0]:.3f} nDCG@3 against a's {figures['a'].corrected[0]:.3f} once "
        f"corrected by the 20 audited queries: {d:+.3f} (95% band {lo:+.3f} to {hi:+.3f}) — clearly worse. "
        f"On the model's labels alone: {report.summaries[1].at_k['nDCG@3'].mean:.3f} against "
        f"{report.summaries[0].at_k['nDCG@3'].mean:.3f}, {model_side['delta']:+.3f} (95% band "
        f"{model_side['low']:+.3f} to {model_side['high']:+.3f}), better on {model_side['wins']} queries and "
        f"worse on {model_side['losses']}."
    )
    # The labels caveat still says the model's verdict did not hold.
    assert [c["kind"] for c in entry["caveats"]][0] == "labels"
    # One decision, every medium: the site's first screen, the terminal, summary.md, the comment.
    view = build_view(report)
    (shown,) = view.headline
    assert shown.verdict_class == say_comparison.VERDICTS["worse"][1]
    assert str(shown.sentence) == entry["sentence"]
    # The forest plot under it shows the corrected differences, and its caption says so.
    assert view.forest["data"][0]["x"] == [pytest.approx(d)]
    assert "once corrected by the audit of the model's labels, with its 95% band" in view.headline_caption
    said = "once corrected by the 20 audited queries"
    assert said in " ".join(table(view, width=1000).split())
    assert said in markdown(view) and said in comment(view)
    # Without the audit: the model's labels, and no corrected_by in the entry.
    [plain] = document(analyse(evaluate(runs, qrels=model, k=3), permutations=2000))["headline"]
    assert "corrected_by" not in plain and plain["verdict"] == "better" and "audited" not in plain["sentence"]


def test_with_an_audit_a_single_run_and_a_baseline_say_their_corrected_mean():
    from test_agreement import _favoured

    model, human, runs = _favoured()
    single = analyse(evaluate({"a": runs["a"]}, qrels=model, k=3), audit=human)
    doc = document(single)
    [entry] = doc["headline"]
    figure = next(r for r in single.audit.runs if r.label == "nDCG@3")
    mean = single.summaries[0].at_k["nDCG@3"]
    c, lo, hi = figure.corrected
    # The model's figure first, said to be the model's, then the corrected mean with its band.
    assert entry["sentence"].startswith(
        f"a scores {mean.mean:.3f} nDCG@3 (95% band {mean.low:.3f} to {mean.high:.3f}) over "
        f"{single.summaries[0].counts.scored} scored queries on the model's labels; once corrected by the "
        f"20 audited queries, {c:.3f} (95% band {lo:.3f} to {hi:.3f})"
    )
    # The baseline's page of a comparison says its own corrected mean the same way.
    compared = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=200)
    base = next(r for r in build_view(compared).runs if r.name == "a")
    base_figure = next(r for r in compared.audit.runs if r.run == "a" and r.label == "nDCG@3")
    assert f"once corrected by the 20 audited queries, {base_figure.corrected[0]:.3f}" in str(base.verdict.sentence)
    # Without an audit, no word of it.
    [plain] = document(analyse(evaluate({"a": runs["a"]}, qrels=model, k=3)))["headline"]
    assert "model's labels" not in plain["sentence"] and "audited" not in plain["sentence"]


# --- The first screen (issue 38 item 4) ------------------------------------------------------------

#: A long run name, as RAG stacks write them.
LONG_NAME = "hybrid-rrf-bm25-e5-large-v2-k60"  # 31 characters
#: Each caveat kind's figures at their longest plausible size.
WORST_FIGURES = {
    "ids": {"missed": [{"run": LONG_NAME, "queries": 12_345}, {"run": LONG_NAME, "queries": 1}]},
    "labels": {"model_verdict": "better", "verdict": "band below 0", "queries": 1_000, "delta": -0.1},
    "slice": {"verdict": "worse", "key": "domain", "value": "finance", "queries": 12_345, "delta": -0.275},
    "unjudged": {"flips": [{"reading": "unjudged_at_rate", "verdict": "band below 0", "delta": -0.123}]},
    "power": {"queries": 12_345, "detectable": 0.123, "queries_needed": 1_234_567, "min_effect": 0.02},
}


def test_every_caveat_kind_has_a_first_screen_line_of_at_most_160_characters_without_jargon():
    from ragreport.analysis.caveats import RULES

    assert set(say.SHORT_CAVEATS) == set(RULES)
    for kind, figures in WORST_FIGURES.items():
        line = str(say.short_caveat(kind, LONG_NAME, figures))
        assert len(line) <= say.LINE_MOST, (kind, len(line), line)
        assert LONG_NAME in line
        assert not [w for w in ("condensed", "corrected p", "power", "slots", "holm", "bootstrap") if w in line.lower()]
    assert str(say.short_caveat("power", "r", WORST_FIGURES["power"])) == (
        "r: 12,345 queries can only show differences of 0.123 or more; about 1,234,567 would show 0.020."
    )
    assert str(say.short_caveat("unjudged", "r", WORST_FIGURES["unjudged"])) == (
        "r: if unjudged ids are relevant at the rate judged ones are, it is no clear difference (-0.123)."
    )


def test_the_first_screen_orders_runs_best_first_with_the_baseline_among_them(tmp_path):
    from sitetools import four_trec_runs

    qrels, runs = four_trec_runs(tmp_path, queries=60)
    report = analyse(
        evaluate([str(r) for r in runs], qrels=str(qrels), conventions=Conventions(resamples=200)),
        permutations=500,
    )
    first = build_view(report, pages=False).first_screen
    assert first is not None
    values = [float(line.value) for line in first.lines]
    assert values == sorted(values, reverse=True) and len(values) == 4
    base = next(line for line in first.lines if line.verdict == say.BASELINE_MARK)
    assert base.run == runs[0].stem and base.delta == "" and base.band == ""
    assert report.ranking is not None
    assert [line.run for line in first.lines] == list(report.ranking.order)
    tiers = report.ranking.tiers
    assert str(first.summary).startswith(f"On nDCG@10, {tiers[0][0]}") and str(first.summary).endswith(".")
    assert all(run in str(first.summary) for run in report.ranking.order)
    assert first.header[2] == f"vs {runs[0].stem} (95% band)"
    # The lines read the ranking's pairs, as the tiers do: one family of tests on the first screen.
    for line in first.lines:
        pair = report.ranking.pair(line.run, base.run)
        if pair is not None:
            assert line.verdict == say.LINE_VERDICTS[pair.verdict], (line, pair)
    assert first.family_note.startswith("The lines above weigh nDCG@10 alone, corrected over the 6 pairs")


def test_the_first_screen_keeps_only_the_caveats_that_could_change_what_it_shows():
    from ragreport.output.site.view.build import _still_changes

    flips = {"k": 10, "flips": [{"reading": "condensed", "verdict": "better"}], "mostly": [], "verdict": "unclear"}
    assert _still_changes("unjudged", flips, "better") is None  # the reading gives the verdict shown
    assert _still_changes("unjudged", flips, "unclear") == flips
    power = {"queries": 30, "detectable": 0.2, "queries_needed": 3000, "min_effect": 0.02, "power": 0.8}
    assert _still_changes("power", power, "better") is None and _still_changes("power", power, "unclear") == power
