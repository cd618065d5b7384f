"""All runs at once (docs/conventions.md section 27): every pair, the rank intervals, the tiers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragreport.analysis.compare import Correction, compare, resampled_columns
from ragreport.analysis.intervals import shared_bootstrap_means
from ragreport.analysis.ranking import competition_ranks, rank_intervals, rank_runs, tiers
from ragreport.api import analyse, evaluate, reanalyse
from ragreport.api import document as api_document
from ragreport.cli import main
from ragreport.core.model import Conventions, Missing
from ragreport.output.site.wording import comparison as say
from ragreport.scoring.catalogue import PRIMARY
from ragreport.scoring.measures import Measure

# --- The hand-worked case --------------------------------------------------------------------------
# Ten queries, one relevant id each ("r"), K = 1: nDCG@1 is 1 where a run puts "r" first. A finds it
# on all ten (mean 1.0), B on the first nine (0.9), C on the first only (0.1).

LEAD = Measure(PRIMARY.key, 1)  # nDCG@1
QRELS = {f"q{i}": {"r": 1} for i in range(10)}


def _run(hits: int) -> dict[str, dict[str, float]]:
    return {f"q{i}": ({"r": 2.0, "x": 1.0} if i < hits else {"x": 2.0, "r": 1.0}) for i in range(10)}


def _three(**kw):
    runs = {"C": _run(1), "A": _run(10), "B": _run(9)}  # out of order: the ranking orders them
    return evaluate(runs, qrels=QRELS, k=1, **kw)


def test_the_hand_worked_case():
    summaries = _three()
    ranking = rank_runs(summaries, LEAD)
    assert ranking.order == ("A", "B", "C")
    ab, ac, bc = ranking.pairs
    assert [(p.row, p.column) for p in ranking.pairs] == [("A", "B"), ("A", "C"), ("B", "C")]
    assert [p.delta for p in ranking.pairs] == pytest.approx([0.1, 0.9, 0.8])
    # Ten queries: all 1,024 sign vectors enumerated. A - B is one 1 among zeros: every flip reaches
    # it, p = 1. A - C: nine ones and a zero, reached only with the nine signs alike (2 ways) and
    # the zero's sign free (2): 4/1024. B - C: eight ones, two zeros: 2 x 4 / 1024.
    assert [p.p for p in ranking.pairs] == pytest.approx([1.0, 4 / 1024, 8 / 1024])
    # Holm over the three: 4/1024 x 3 = 0.01171875, 8/1024 x 2 = 0.015625, 1 x 1.
    assert [p.p_adjusted for p in ranking.pairs] == pytest.approx([1.0, 0.01171875, 0.015625])
    # A - B's resampled mean is (draws of q9) / 10, q9 drawn 0 times with probability 0.9^10 = 0.35
    # (the 2.5th percentile is 0) and 3 or more with 0.070, 4 or more with 0.013 (the 97.5th is 0.3).
    assert (ab.low, ab.high) == pytest.approx((0.0, 0.3))
    assert ac.low > 0 and bc.low > 0
    assert [p.verdict for p in ranking.pairs] == ["unclear", "better", "better"]
    # A beats every resample's B or ties it (no q9 drawn: 35% of resamples, B then shares rank 1);
    # C is below both in every resample.
    assert [(r.run, r.rank, r.low, r.high) for r in ranking.ranks] == [("A", 1, 1, 1), ("B", 2, 1, 2), ("C", 3, 3, 3)]
    assert ranking.tiers == (("A", "B"), ("C",))
    assert ranking.queries == 10


def test_pairs_are_the_baselines_comparisons_corrected_over_the_pairs():
    summaries = _three()
    ranking = rank_runs(summaries, LEAD, correction=Correction.BONFERRONI)
    against_c = {c.run: c for c in compare(summaries, baseline="C").comparisons if c.metric == "nDCG@1"}
    for row in ("A", "B"):
        pair = ranking.pair(row, "C")
        assert (pair.delta, pair.low, pair.high, pair.p) == pytest.approx(
            (against_c[row].delta, against_c[row].low, against_c[row].high, against_c[row].p)
        )
    assert ranking.pair("A", "B").p_adjusted == 1.0 and ranking.pair("A", "C").p_adjusted == pytest.approx(12 / 1024)


def test_fewer_than_three_runs_have_no_ranking():
    summaries = evaluate({"A": _run(10), "B": _run(9)}, qrels=QRELS, k=1)
    assert rank_runs(summaries, LEAD) is None
    assert analyse(summaries).ranking is None
    assert analyse(_three()).ranking.tiers == (("A", "B"), ("C",))


def test_drawn_again_when_the_runs_resampled_other_queries():
    # D misses q9 from its lists: ranked over the nine queries every run scored, drawn once for all.
    runs = {"A": _run(10), "B": _run(9), "C": _run(1), "D": {q: v for q, v in _run(5).items() if q != "q9"}}
    with_d = evaluate(runs, qrels=QRELS, k=1, conventions=Conventions(missing=Missing.SKIP))
    ranking = rank_runs(with_d, LEAD)
    assert ranking.queries == 9
    assert ranking.pair("A", "B").queries == 10 and ranking.pair("B", "D").queries == 9
    # Over q0-q8, A and B are equal (both 1.0): every resample ties them at rank 1.
    assert {r.run: (r.low, r.high) for r in ranking.ranks}["B"] == (1, 1)


def test_read_off_the_runs_resamples_as_one_draw_would_give():
    summaries = _three()
    ranking = rank_runs(summaries, LEAD)
    order = {s.name: s for s in summaries}
    # The runs' own resampled means, read; a draw of the per-query values (by hand) would give:
    matrix = np.column_stack([[1.0] * 10, [1.0] * 9 + [0.0], [1.0] + [0.0] * 9])  # A, B, C by query id
    conv = order["A"].conventions
    drawn = shared_bootstrap_means([matrix], conv.resamples, conv.seed)[0]
    low, high = rank_intervals(drawn, conv.confidence)
    assert [(r.low, r.high) for r in ranking.ranks] == list(zip(low.tolist(), high.tolist()))


def _trec(path, run: dict[str, dict[str, float]]) -> str:
    path.write_text("".join(f"{q} Q0 {d} 0 {v} r\n" for q, docs in run.items() for d, v in docs.items()))
    return str(path)


@pytest.mark.parametrize("lacking", [False, True])
def test_the_partitioned_engines_rank_by_the_poisson_means_of_the_queries_every_run_scored(tmp_path, lacking):
    """The stream engine's rank intervals: each resample's means weigh the queries every run scored
    by their hashed Poisson weights (docs/conventions.md section 27), as a sum over those queries
    made here with the stated weights gives; over a run's own queries, its bootstrap's means."""
    from ragreport.analysis.paired import common_means
    from ragreport.analysis.poisson import poisson_weights, query_keys

    runs = {"A": _run(10), "B": _run(9), "C": _run(1), "D": _run(5)}
    if lacking:  # D misses q9: ranked over q0-q8
        runs["D"] = {q: v for q, v in runs["D"].items() if q != "q9"}
    (tmp_path / "qrels").write_text("".join(f"{q} 0 r 1\n" for q in QRELS))
    paths = [_trec(tmp_path / f"{name}.trec", run) for name, run in runs.items()]
    conventions = Conventions(missing=Missing.SKIP, resamples=400)
    summaries = evaluate(paths, qrels=str(tmp_path / "qrels"), k=1, engine="stream", conventions=conventions)
    ranking = rank_runs(summaries, LEAD)
    common = [f"q{i}" for i in range(9 if lacking else 10)]
    assert ranking.queries == len(common)
    hits = {"A": 10, "B": 9, "C": 1, "D": 5}  # nDCG@1 is 1 on the first ``hits`` queries
    values = np.array([[float(int(q[1:]) < hits[name]) for name in runs] for q in common])
    weights = poisson_weights(query_keys(np.array(common), conventions.seed), 0, conventions.resamples)
    kept = weights.sum(axis=1) > 0
    means = (weights @ values)[kept] / weights.sum(axis=1)[kept, None]
    by_mean = [list(runs).index(name) for name in ranking.order]
    low, high = rank_intervals(means[:, by_mean], conventions.confidence)
    assert [(r.low, r.high) for r in ranking.ranks] == list(zip(low.tolist(), high.tolist()))
    drawn, count = common_means(summaries, LEAD)
    np.testing.assert_allclose(drawn, means, rtol=0, atol=1e-15)
    if not lacking:  # every run scored the same queries: their own bootstraps' means, to the bit
        assert count == 10 and all(
            np.array_equal(drawn[:, [i]], resampled_columns(s, [LEAD])) for i, s in enumerate(summaries)
        )


# --- Ranks and intervals by hand -------------------------------------------------------------------


def test_competition_ranks_share_the_best_rank():
    assert competition_ranks(np.array([[0.5, 0.5, 0.2], [0.1, 0.3, 0.2]])).tolist() == [[1, 1, 3], [3, 1, 2]]
    assert competition_ranks(np.array([[0.3, 0.3 + 1e-15, 0.3]])).tolist() == [[1, 1, 1]]
    assert competition_ranks(np.array([[np.nan, 0.1, 0.0]])).tolist() == [[3, 1, 2]]


def test_rank_intervals_by_hand():
    means = np.array([[0.5, 0.4, 0.3], [0.4, 0.5, 0.3], [0.5, 0.5, 0.3], [0.6, 0.4, 0.45], [0.5, 0.3, 0.4]])
    # Ranks: A 1,2,1,1,1; B 2,1,1,3,3; C 3,3,3,2,2. At 60% the 20th percentile of five sorted ranks
    # sits at position 0.8 (lower: the first), the 80th at 3.2 (higher: the fifth).
    low, high = rank_intervals(means, 0.6)
    assert low.tolist() == [1, 1, 2] and high.tolist() == [2, 3, 3]


@pytest.mark.parametrize(("gap", "covered"), [(0.05, 0.9985), (0.01, 0.9685)])
def test_rank_intervals_cover_the_planted_ranks(gap, covered):
    """Four runs with planted means 0.40 and up by ``gap`` (per-query values uniform within +-0.5
    of them, independent: sd 0.29, so a difference's standard error is 0.041 over 100 queries):
    over 500 simulated reports, each run's 95% rank interval from 1,000 resamples holds its true
    rank 99.85% of the time at a gap of 0.05 (intervals 1.0 to 1.8 ranks wide) and 96.85% at 0.01
    (2.6 wide); every run at least 94%. The percentile rank interval errs wide, not narrow."""
    rng = np.random.default_rng(7)
    means = 0.40 + gap * np.arange(4)
    truth = np.array([4, 3, 2, 1])
    trials, hits = 500, np.zeros(4)
    for t in range(trials):
        values = means + rng.uniform(-0.5, 0.5, size=(100, 4))
        low, high = rank_intervals(shared_bootstrap_means([values], 1000, t)[0], 0.95)
        hits += (low <= truth) & (truth <= high)
    share = hits / trials
    assert share.mean() == pytest.approx(covered, abs=0.002)
    assert share.min() >= 0.94


# --- Tiers -----------------------------------------------------------------------------------------


def _beats(*pairs):
    return lambda first, run: (first, run) in pairs


@pytest.mark.parametrize(
    ("beats", "expected"),
    [
        ((), (("A", "B", "C", "D"),)),
        ((("A", "C"), ("A", "D")), (("A", "B"), ("C", "D"))),
        ((("A", "B"), ("A", "C"), ("A", "D"), ("B", "D")), (("A",), ("B", "C"), ("D",))),
        # B beats C, but the tier's first (A) does not: C stays with A and B
        ((("B", "C"), ("A", "D")), (("A", "B", "C"), ("D",))),
        ((("A", "B"), ("B", "C"), ("C", "D"), ("A", "C"), ("A", "D"), ("B", "D")), (("A",), ("B",), ("C",), ("D",))),
    ],
)
def test_tiers(beats, expected):
    assert tiers(("A", "B", "C", "D"), _beats(*beats)) == expected


def test_a_pair_read_the_other_way_mirrors_its_band_and_verdict():
    ranking = rank_runs(_three(), LEAD)
    ac, ca = ranking.pair("A", "C"), ranking.pair("C", "A")
    assert (ca.row, ca.column, ca.delta, ca.low, ca.high) == ("C", "A", -ac.delta, -ac.high, -ac.low)
    assert (ac.verdict, ca.verdict, ca.p_adjusted) == ("better", "worse", ac.p_adjusted)
    assert ranking.pair("A", "A") is None and ranking.pair("A", "Z") is None


# --- The tiers in words ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tiers_", "expected"),
    [
        ((("A",), ("B",)), "A is first; B is second."),
        ((("A", "B"),), "A and B are tied: none is clearly better than another."),
        ((("A", "B"), ("C",)), "A and B are tied first; C is third."),
        ((("A",), ("B", "C")), "A is first; B and C are tied second."),
        ((("A", "B", "C"),), "A, B and C are tied: none is clearly better than another."),
        (
            (("bm25s-k09b04", "bm25s-default"), ("rankbm25",), ("tfidf",)),
            "bm25s-k09b04 and bm25s-default are tied first; rankbm25 is third; tfidf fourth.",
        ),
        ((("A",), ("B",), ("C", "D")), "A is first; B is second; C and D tied third."),
        ((("A",), ("B", "C", "D")), "A is first; B, C and D are tied second."),
    ],
)
def test_tiers_sentence(tiers_, expected):
    text = say.tiers_sentence(tiers_)
    assert str(text) == expected
    # every name is marked as the user's (escaped by each medium), and nothing else is
    assert [p for p, quoted in text.pieces if quoted] == [n for t in tiers_ for n in t]


def test_ordinals():
    assert [say.ordinal(n) for n in (1, 3, 10, 11, 12, 13, 21, 22, 23, 24, 111, 112)] == [
        "first", "third", "tenth", "11th", "12th", "13th", "21st", "22nd", "23rd", "24th", "111th", "112th"
    ]  # fmt: skip


def test_rank_cell():
    assert [say.rank_cell(*c) for c in ((1, 1, 1), (2, 1, 3), (3, None, None), (1, 1, 2))] == [
        "1",
        "2 (1–3)",
        "3",
        "1 (1–2)",
    ]


# --- On the index and in report.json ---------------------------------------------------------------

HOSTILE = {"C&amp;": 1, "A<i>x": 10, 'B"q': 9}  # file names: the runs' names, escaped on the page


def _hostile_site(tmp_path, *options):
    for name, hits in HOSTILE.items():
        lines = [
            f"q{i} Q0 {a} 1 2 t\nq{i} Q0 {b} 2 1 t\n"
            for i, (a, b) in enumerate(("r", "x") if i < hits else ("x", "r") for i in range(10))
        ]
        (tmp_path / f"{name}.trec").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 r 1\n" for i in range(10)))
    runs = [str(tmp_path / f"{name}.trec") for name in HOSTILE]
    out = tmp_path / "site"
    assert (
        main(["build", *runs, "--qrels", str(tmp_path / "qrels"), "-k", "1", "--out", str(out), "--quiet", *options])
        == 0
    )
    return out


def test_the_matrix_on_the_index(tmp_path):
    out = _hostile_site(tmp_path)
    page = (out / "index.html").read_text()
    section = page[page.index('<section id="pairs"') : page.index("</section>", page.index('<section id="pairs"'))]
    assert page.index('id="compare"') < page.index('id="pairs"')  # below the comparison with the baseline
    # The hand-worked case again: A<i>x and B"q tied first, C&amp; third; names escaped everywhere.
    assert (
        '<p class="tiers"><bdi class="mono">A&lt;i&gt;x</bdi> and <bdi class="mono">B&#34;q</bdi> are tied first; '
        '<bdi class="mono">C&amp;amp;</bdi> is third.</p>'
    ) in section
    assert "A<i>" not in page and 'B"q' not in page
    rows = section.split('<tr><th scope="row" class="name">')[1:]
    assert [r[: r.index("</bdi>")] for r in rows] == ["<bdi>A&lt;i&gt;x", "<bdi>B&#34;q", "<bdi>C&amp;amp;"]
    cells = [[c.split('">', 1)[1].split("<", 1)[0] for c in r.split("<td")[3:]] for r in rows]
    assert cells == [["", "+0.100", "+0.900"], ["-0.100", "", "+0.800"], ["-0.900", "-0.800", ""]]
    assert [r.split('rank">', 1)[1].split("<", 1)[0] for r in rows] == ["1", "2 (1–2)", "3"]
    assert section.count('class="mark" aria-hidden="true">▲') == 2 and section.count("▼</span>") == 2
    assert "data-scroll-cue" in section and 'class="scroll-cue"' in section


def test_report_json_carries_the_ranking_and_render_makes_it_again(tmp_path):
    out = _hostile_site(tmp_path, "--baseline", "C&amp;")
    document = json.loads((out / "report.json").read_text())
    ranking = document["ranking"]
    assert ranking["order"] == ["A<i>x", 'B"q', "C&amp;"]
    assert ranking["tiers"] == [["A<i>x", 'B"q'], ["C&amp;"]]
    assert [(r["rank"], r["low"], r["high"]) for r in ranking["ranks"]] == [(1, 1, 1), (2, 1, 2), (3, 3, 3)]
    assert [p["p_adjusted"] for p in ranking["pairs"]] == pytest.approx([1.0, 0.01171875, 0.015625])
    assert [p["verdict"] for p in ranking["pairs"]] == ["unclear", "better", "better"]
    # --baseline keeps the rows against the baseline: every other run, every metric of the family
    assert document["comparison"]["baseline"] == "C&amp;"
    assert {c["run"] for c in document["comparisons"]} == {"A<i>x", 'B"q'}
    # render ranks again from the stored per-query scores: the same figures
    assert reanalyse(document).ranking.as_dict() == ranking
    two = evaluate({"A": _run(10), "B": _run(9)}, qrels=QRELS, k=1)
    assert "ranking" not in api_document(analyse(two))
