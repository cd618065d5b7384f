"""Verdicts that survive their evidence (docs/conventions.md section 20): ids that never meet,
the readings of unjudged ids, the power of a paired comparison and the headline's caveats."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from ragreport.analysis.compare import Correction, adjust, randomization_test, verdict_of
from ragreport.analysis.intervals import bootstrap_interval
from ragreport.analysis.power import detectable, least_queries, level, queries_needed, smallest_p, t_quantile
from ragreport.cli import main
from ragreport.core.errors import UsageError
from ragreport.core.model import Conventions, Judgments, Run
from ragreport.output.site.wording import headline as say_headline
from ragreport.scoring.join import join
from ragreport.scoring.metrics import score
from ragreport.scoring.readings import READ, condense, score_readings

# --- 20.1 ids that never meet ------------------------------------------------------------------


def _pooled(folder: Path, pooled: int, positives: int = 0, prefix: str = "doc-") -> list[str]:
    """A qrels and a run ("bm25") whose ids never meet: ``pooled`` queries judge one id relevant
    and three not (D<i>, N<i>a..c), ``positives`` more judge one relevant id alone; the run lists
    ``prefix`` and the judged ids' numbers, 4 a query. The arguments of ``ragreport score``."""
    qrels, run = [], []
    for i in range(pooled + positives):
        qrels.append(f"q{i} 0 D{i} 1")
        qrels += [f"q{i} 0 N{i}{c} 0" for c in "abc"] if i < pooled else []
        run += [f"q{i} Q0 {prefix}{i}{c} {r} {10 - r} bm25" for r, c in enumerate("wxyz", 1)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (folder / "bm25.trec").write_text("\n".join(run) + "\n")
    return ["--qrels", str(folder / "qrels.txt"), str(folder / "bm25.trec")]


MISMATCH = (
    "{run} (run 'bm25') and {qrels} share no document id on any query (for query 'q0' the run has "
    "'doc-0w', 'doc-0x', 'doc-0y', ...; the judgments have 'D0', 'N0a', 'N0b', ...)"
)


def test_ids_that_never_meet_over_10_queries_judging_both_kinds_are_refused_word_for_word(tmp_path, capsys):
    code = main(["score", *_pooled(tmp_path, 10)])
    err = capsys.readouterr().err
    said = MISMATCH.format(run=tmp_path / "bm25.trec", qrels=tmp_path / "qrels.txt")
    assert code == 2 and err == f"ragreport: error: {said}: check that both use the same ids\n"


def test_over_9_such_queries_the_run_is_scored_with_one_warning_line(tmp_path, capsys):
    # 9 queries judge both kinds, 40 more only a relevant id: under 10 that chance cannot explain
    code = main(["score", *_pooled(tmp_path, 9, positives=40), "--format", "json"])
    out, err = capsys.readouterr()
    said = MISMATCH.format(run=tmp_path / "bm25.trec", qrels=tmp_path / "qrels.txt")
    assert code == 0
    assert err == (
        f"ragreport: warning: {said}: scored all the same: only 9 of its queries judge ids both relevant and not, "
        "too few (under 10) to rule out a miss by chance (docs/conventions.md section 20.1)\n"
    )
    [run] = json.loads(out)["runs"]
    assert run["metrics"]["nDCG@10"]["mean"] == 0.0 and run["metrics"]["Judged@10"]["mean"] == 0.0
    [entry] = json.loads(out)["headline"]
    assert entry["caveats"][0] == {
        "kind": "ids",
        "sentence": "bm25 retrieves no judged id on any of its 49 queries: its figures are 0, whether it missed every "
        "time or spells the ids otherwise than the judgments (doc-17 against D17).",
        "missed": [{"run": "bm25", "queries": 49}],
    }


def test_judgments_of_relevant_ids_alone_are_never_refused(tmp_path, capsys):
    assert main(["score", *_pooled(tmp_path, 0, positives=200)]) == 0
    assert "scored all the same: none of its queries judges ids both relevant and not" in capsys.readouterr().err


def test_one_judged_id_anywhere_in_any_list_is_enough(tmp_path, capsys):
    _pooled(tmp_path, 12)
    run = (tmp_path / "bm25.trec").read_text().replace("q11 Q0 doc-11z", "q11 Q0 N11c")  # rank 4, not relevant
    (tmp_path / "bm25.trec").write_text(run)
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "bm25.trec")]) == 0
    assert capsys.readouterr().err == ""
    # an id judged for another query does not count
    (tmp_path / "bm25.trec").write_text(run.replace("q11 Q0 N11c", "q11 Q0 N10c"))
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), str(tmp_path / "bm25.trec")]) == 2


def test_ranx_single_no_match_scores_mrr_0_with_a_warning():
    # ranx's tests/unit/ranx/metrics/reciprocal_rank_test.py::test_reciprocal_rank_single_no_match:
    # y_true [[3, 1]], y_pred [[2, 1], [1, 1], [4, 1], [5, 1]], mrr@5 == 0.0
    import pytrec_eval

    from ragreport.api import calc
    from ragreport.core.errors import RagreportWarning

    qrels, run = {"q1": {"3": 1}}, {"q1": {"2": 1.0, "1": 1.0, "4": 1.0, "5": 1.0}}
    with pytest.warns(RagreportWarning, match="share no document id on any query.*none of its queries judges"):
        means = calc(qrels, run, "RR@5").means
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)["q1"]["recip_rank"]
    assert means == {"RR@5": 0.0} and reference == 0.0


def test_a_jsonl_carrying_its_own_judgments_is_never_refused_for_missing_them(tmp_path, capsys):
    # 12 rows, each judging one id relevant and one not, none retrieved: 12 would be refused against a qrels
    rows = [{"id": f"q{i}", "retrieved": [f"x{i}", f"y{i}"], "relevant": {f"d{i}": 1, f"n{i}": 0}} for i in range(12)]
    (tmp_path / "rag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = main(["score", str(tmp_path / "rag.jsonl"), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["runs"][0]["metrics"]["RR@10"]["mean"] == 0.0
    assert err.count("\n") == 1 and err.endswith(
        "scored all the same: its own rows carry its judgments (docs/conventions.md section 20.1)\n"
    )


def test_by_partitions_a_judged_id_past_the_head_is_seen(tmp_path):
    from ragreport.api import evaluate

    # 12 queries judging both kinds; the only judged id of each list is at rank 40, past the head
    # a partition keeps (K 10, --kmax 20): one process and the stream engine both score it
    qrels = "".join(f"q{i} 0 D{i} 1\nq{i} 0 N{i} 0\n" for i in range(12))
    lines = [f"q{i} Q0 {'N' if r == 40 else 'u'}{i}-{r} {r} {100 - r} r" for i in range(12) for r in range(1, 41)]
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "r.trec").write_text("\n".join(lines).replace("-40 40", " 40") + "\n")
    args = {"qrels": str(tmp_path / "qrels.txt"), "k": 10, "kmax": 20}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        memory = evaluate([str(tmp_path / "r.trec")], **args)[0]
        parts = evaluate([str(tmp_path / "r.trec")], engine="stream", partition_bytes=2_000, **args)[0]
    assert memory.at_k["P@10"].mean == parts.at_k["P@10"].mean == 0.0
    assert int(parts.judged.judged.sum()) == 0  # the heads hold no judged id: the ids past them tell
    # past the head or not at all: the same refusal in both
    (tmp_path / "r.trec").write_text("\n".join(lines).replace("-40 40", "x 40") + "\n")
    for engine in ("memory", "stream"):
        with pytest.raises(UsageError, match="share no document id on any query"):
            evaluate([str(tmp_path / "r.trec")], engine=engine, partition_bytes=2_000, **args)


def test_the_ids_caveat_is_on_the_built_page_in_report_json_and_again_after_render(tmp_path):
    from ragreport.api import analyse, build, evaluate
    from ragreport.core.errors import RagreportWarning

    # "base" finds r first on 5 queries; "new" retrieves ids nobody judged: scored, with a caveat
    queries = [f"q{i}" for i in range(5)]
    qrels = {q: {"r": 1, "n": 0} for q in queries}
    base = {q: {"r": 2.0, "n": 1.0} for q in queries}
    new = {q: {"R": 2.0, "N": 1.0} for q in queries}
    with pytest.warns(RagreportWarning, match="run 'new' .*share no document id"):
        results = evaluate({"base": base, "new": new}, qrels=qrels, k=10)
    build(analyse(results, permutations=200), out=tmp_path / "site")
    sentence = (
        "retrieves no judged id on any of its 5 queries: its figures are 0, whether it missed every time or spells "
        "the ids otherwise than the judgments (doc-17 against D17)."
    )
    [entry] = json.loads((tmp_path / "site" / "report.json").read_text())["headline"]
    assert entry["caveats"][0] == {
        "kind": "ids",
        "sentence": f"new {sentence}",
        "missed": [{"run": "new", "queries": 5}],
    }
    index = (tmp_path / "site" / "index.html").read_text()
    assert f'<li class="caveat caveat-ids"><bdi class="mono">new</bdi> {sentence}</li>' in index
    assert main(["render", str(tmp_path / "site" / "report.json"), "--out", str(tmp_path / "again"), "--quiet"]) == 0
    [again] = json.loads((tmp_path / "again" / "report.json").read_text())["headline"]
    assert again["caveats"] == entry["caveats"]


def test_a_run_whose_ids_meet_has_no_ids_caveat():
    from ragreport.api import analyse, document, evaluate

    [entry] = document(analyse(evaluate({"lone": {"q1": {"u": 2.0, "n": 1.0}}}, qrels={"q1": {"r": 1, "n": 0}})))[
        "headline"
    ]
    assert all(c["kind"] != "ids" for c in entry["caveats"])


# --- 20.2 three readings of unjudged ids --------------------------------------------------------


def _reading(reading: str, run: list, judgments: list, k: int, level: int = 1) -> dict[str, float]:
    judged = join(Run.from_lists("r", run), Judgments.from_lists(judgments), level)
    values = score_readings(judged, [k], Conventions(relevance_level=level))[reading]
    return {m.key: float(values[i, 0, 0]) for i, m in enumerate(READ)}


# q1 judges d1 (2), d2 (1), d9 (1) and d3 (0): R = 3. The run's top 5: u1 d1 u2 d3 d2 (u: unjudged).
HAND_RUN = [("q1", ["u1", "d1", "u2", "d3", "d2", "u3"])]
HAND_JUDGMENTS = [("q1", ["d1", "d2", "d9", "d3"], [2, 1, 1, 0])]


def test_unjudged_relevant_by_hand():
    # u1 and u2 read as grade 1 (the lowest relevant grade); R grows by 2 to 5; u3 is below K.
    # Relevant ranks: 1 (u1), 2 (d1), 3 (u2), 5 (d2).
    got = _reading("unjudged_relevant", HAND_RUN, HAND_JUDGMENTS, 5)
    assert got["P"] == pytest.approx(4 / 5)
    assert got["R"] == pytest.approx(4 / 5)
    assert got["Hit"] == 1.0
    assert got["RR"] == 1.0
    assert got["AP"] == pytest.approx((1 / 1 + 2 / 2 + 3 / 3 + 4 / 5) / 5)
    dcg = 1 + 2 / np.log2(3) + 1 / np.log2(4) + 0 + 1 / np.log2(6)
    ideal = 2 + 1 / np.log2(3) + 1 / np.log2(4) + 1 / np.log2(5) + 1 / np.log2(6)  # grades 2 1 1 1 1
    assert got["nDCG"] == pytest.approx(dcg / ideal)
    assert got["CP"] == pytest.approx((1 + 1 + 1 + 4 / 5) / 4)


def test_unjudged_relevant_at_a_higher_level_reads_them_at_that_level():
    # --relevance-level 2: only d1 is relevant (R = 1); u1 and u2 read as grade 2, R = 3.
    got = _reading("unjudged_relevant", HAND_RUN, HAND_JUDGMENTS, 5, level=2)
    assert got["P"] == pytest.approx(3 / 5) and got["R"] == pytest.approx(3 / 3)
    assert got["AP"] == pytest.approx((1 + 1 + 1) / 3)
    dcg = 2 + 2 / np.log2(3) + 2 / np.log2(4) + 0 + 1 / np.log2(6)  # d2 (grade 1) still gains
    ideal = 2 + 2 / np.log2(3) + 2 / np.log2(4) + 1 / np.log2(5) + 1 / np.log2(6)  # 2 2 2 1 1
    assert got["nDCG"] == pytest.approx(dcg / ideal)


def test_a_repeated_unjudged_id_counts_once():
    got = _reading("unjudged_relevant", [("q1", ["u1", "u1", "d1"])], [("q1", ["d1", "n1"], [1, 0])], 3)
    assert got["P"] == pytest.approx(2 / 3) and got["R"] == pytest.approx(2 / 2)  # R = 1 + 1


def test_condensed_by_hand():
    # u1, u2 and u3 removed: d1 d3 d2, then cut at 5 (P divides by 5 still, as trec_eval -J does).
    got = _reading("condensed", HAND_RUN, HAND_JUDGMENTS, 5)
    assert got["P"] == pytest.approx(2 / 5) and got["R"] == pytest.approx(2 / 3) and got["RR"] == 1.0
    assert got["AP"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    ideal = 2 + 1 / np.log2(3) + 1 / np.log2(4)
    assert got["nDCG"] == pytest.approx((2 + 0 + 1 / np.log2(4)) / ideal)


def test_condensing_reaches_below_k():
    # the judged id at rank 4 is at rank 2 once two unjudged ids close up: within K = 2
    got = _reading("condensed", [("q1", ["u1", "d0", "u2", "d1"])], [("q1", ["d0", "d1"], [0, 1])], 2)
    assert got["P"] == pytest.approx(1 / 2) and got["RR"] == pytest.approx(1 / 2)


def _random_case(seed: int, queries: int = 40):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        judged = rng.choice(40, int(rng.integers(1, 30)), replace=False)
        qrels[f"q{q}"] = {f"d{i}": int(rng.integers(0, 4)) for i in judged}
        order = rng.permutation(40)[: int(rng.integers(1, 35))]
        run[f"q{q}"] = {f"d{i}": float(40 - r) for r, i in enumerate(order)}
    return qrels, run


@pytest.mark.parametrize("seed", range(4))
def test_condensed_is_pytrec_evals_judged_docs_only(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_case(seed)
    names = {"P": "P_{k}", "R": "recall_{k}", "nDCG": "ndcg_cut_{k}", "AP": "map_cut_{k}"}
    judged = join(
        Run.from_lists("r", [(q, sorted(d, key=lambda x: -d[x])) for q, d in run.items()]),
        Judgments.from_lists([(q, list(g), list(g.values())) for q, g in qrels.items()]),
    )
    scored = judged.relevant > 0
    for k in (1, 5, 10):
        values = score_readings(judged, [k], Conventions())["condensed"]
        wanted = {names[m].format(k=k) for m in names}
        found = pytrec_eval.RelevanceEvaluator(qrels, wanted, judged_docs_only_flag=True).evaluate(run)
        ids = judged.query_ids.tolist()
        for i, metric in enumerate(READ):
            if metric.key not in names:
                continue
            ours = values[i, scored, 0]
            theirs = [found[q][names[metric.key].format(k=k)] if q in found else 0.0 for q, s in zip(ids, scored) if s]
            np.testing.assert_allclose(ours, theirs, atol=1e-12, err_msg=f"{metric.key}@{k}")
    # RR over the whole list (pytrec_eval's recip_rank has no cutoff): K deeper than any list
    values = score_readings(judged, [40], Conventions())["condensed"]
    found = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, judged_docs_only_flag=True).evaluate(run)
    rr = values[[m.key for m in READ].index("RR"), scored, 0]
    theirs = [found[q]["recip_rank"] if q in found else 0.0 for q, s in zip(judged.query_ids.tolist(), scored) if s]
    np.testing.assert_allclose(rr, theirs, atol=1e-12)


def test_condense_keeps_only_the_judged_ids_in_order_and_the_default_figures_when_all_are_judged():
    qrels, run = _random_case(7)
    judged = join(
        Run.from_lists("r", [(q, sorted(d, key=lambda x: -d[x])) for q, d in run.items()]),
        Judgments.from_lists([(q, list(g), list(g.values())) for q, g in qrels.items()]),
    )
    condensed = condense(judged)
    for q, qid in enumerate(judged.query_ids.tolist()):
        kept = condensed.doc_ids[condensed.offsets[q] : condensed.offsets[q + 1]].tolist()
        assert kept == [d for d in sorted(run.get(qid, {}), key=lambda x: -run[qid][x]) if d in qrels[qid]]
    # condensing a condensed run changes nothing, and neither reading moves a fully judged run
    again = score_readings(condensed, [5], Conventions())
    default = score(condensed, [5], Conventions(), READ).values
    np.testing.assert_array_equal(again["condensed"], default)
    np.testing.assert_array_equal(again["unjudged_relevant"], default)


# The rank-wise rate by hand, K = 3 (u: unjudged). q1 judges a (1), b (0) and lists a u1 b; q2
# judges c (0), d (1) and lists c d u2; q3 judges e (1), f (0) and lists u3 e f. Judged ids at rank 1:
# a (relevant), c (not): rate 1/2; at rank 2: d, e (both relevant): 1; at rank 3: b, f: 0. The
# weights: q1 1 (u1 at rank 2), q2 0 (u2 at rank 3), q3 1/2 (u3 at rank 1).
RATE_RUN = [("q1", ["a", "u1", "b"]), ("q2", ["c", "d", "u2"]), ("q3", ["u3", "e", "f"])]
RATE_JUDGMENTS = [("q1", ["a", "b"], [1, 0]), ("q2", ["c", "d"], [0, 1]), ("q3", ["e", "f"], [1, 0])]


def test_the_rank_wise_rate_reading_by_hand():
    from ragreport.scoring.readings import rank_rates

    judged = join(Run.from_lists("r", RATE_RUN), Judgments.from_lists(RATE_JUDGMENTS))
    assert rank_rates(judged, 3).tolist() == [0.5, 1.0, 0.0]
    values = score_readings(judged, [3], Conventions())["unjudged_at_rate"]
    got = {m.key: values[i, :, 0].tolist() for i, m in enumerate(READ)}
    # P@3: q1 1/3 + 1 x 1/3 (u1); q2 1/3 (u2's rank holds no relevant judged id); q3 1/3 + 1/2 x 1/3,
    # the expected P@3 had u3 been relevant with probability 1/2: (1 + 1/2) / 3
    assert got["P"] == pytest.approx([2 / 3, 1 / 3, 1 / 2])
    # RR@3: q3 half way from 1/2 (e at rank 2) to 1 (u3 at rank 1)
    assert got["RR"] == pytest.approx([1.0, 1 / 2, 3 / 4])
    # AP@3: q3 from 1/2 (e at 2, R = 1) half way to (1 + 1) / 2 (u3 and e relevant, R = 2)
    assert got["AP"] == pytest.approx([1.0, 1 / 2, 3 / 4])
    # nDCG@3: q1 stays 1 (a at 1, and with u1 relevant the ideal grows alike); q2 1/log2 3; q3 from
    # 1/log2 3 half way to 1 (u3 and e at ranks 1 and 2 fill the ideal of R = 2)
    third = 1 / np.log2(3)
    assert got["nDCG"] == pytest.approx([1.0, third, third + (1 - third) / 2])
    mean_p = np.mean(got["P"])
    assert mean_p == pytest.approx(0.5)  # (2/3 + 1/3 + 1/2) / 3


def test_judgments_of_relevant_ids_alone_get_no_reading():
    judged = join(Run.from_lists("r", [("q1", ["u1", "d1"])]), Judgments.from_lists([("q1", ["d1"], [1])]))
    assert judged.relevant_only and score_readings(judged, [2], Conventions()) == {}
    # a grade below the relevance level anywhere makes them pooled: --relevance-level 2 too
    assert not join(Run.from_lists("r", [("q1", ["d1"])]), Judgments.from_lists([("q1", ["d1"], [1])]), 2).relevant_only


def _relevant_only(folder: Path) -> list[str]:
    """A Vaswani-like collection in TREC files: 30 queries, a qrels listing 3 relevant ids a query
    and nothing else; "good" ranks them 1, 2 and 4 among ids nobody judged, "poor" 6, 8 and 10.
    The arguments of ``ragreport build`` bar ``--out``."""
    qrels, runs = [], {"good": [], "poor": []}
    for q in range(1, 31):
        qrels += [f"{q} 0 {q}-r{j} 1" for j in range(3)]
        for name, ranks in (("good", (1, 2, 4)), ("poor", (6, 8, 10))):
            ids = [f"{q}-u{r}" for r in range(1, 11)]
            for j, r in enumerate(ranks):
                ids[r - 1] = f"{q}-r{j}"
            runs[name] += [f"{q} Q0 {d} {r} {20 - r} {name}" for r, d in enumerate(ids, 1)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        (folder / f"{name}.trec").write_text("\n".join(lines) + "\n")
    return ["--qrels", str(folder / "qrels.txt"), str(folder / "good.trec"), str(folder / "poor.trec")]


def test_judgments_of_relevant_ids_alone_say_so_once_and_read_nothing_else(tmp_path, capsys):
    from ragreport.api import document, reanalyse

    site = tmp_path / "site"
    assert main(["build", *_relevant_only(tmp_path), "--out", str(site), "--quiet"]) == 0
    made = json.loads((site / "report.json").read_text())
    [entry] = made["headline"]
    assert entry["verdict"] == "worse" and entry["caveats"] == [] and entry["readings_note"] is None
    assert made["relevant_only"] is True
    assert all(c["readings"] is None and c["robust"] is None for c in made["comparisons"])
    for run in made["runs"]:  # Judged@10 is kept for render, equal to P@10 on every query
        assert run["metrics"]["Judged@10"]["mean"] == run["metrics"]["P@10"]["mean"]
        assert not any("readings" in figure for figure in run["metrics"].values())
        assert "unjudged" not in [limit["key"] for limit in run["limits"]]
    index = (site / "index.html").read_text()
    note = say_headline.RELEVANT_ONLY_NOTE
    assert index.count(note) == 1
    assert "Judged@10" not in index and "Judged@K" not in index and 'class="readings"' not in index
    for page in site.glob("run-*.html"):
        assert "Judged@10" not in page.read_text() and note not in page.read_text()
    # the terminal table and the Markdown say it once too; a render reads the judgments' shape again
    for shown in ("table", "markdown"):
        capsys.readouterr()
        assert main(["score", *_relevant_only(tmp_path), "--format", shown, "--quiet"]) == 0
        out = capsys.readouterr().out
        assert out.count("The judgments list only relevant ids") == 1 and "Judged@10" not in out, shown
    assert main(["score", *_relevant_only(tmp_path), "--format", "latex", "--quiet"]) == 0
    assert "Judged" not in capsys.readouterr().out
    assert document(reanalyse(made)) == made


# --- 20.3 power --------------------------------------------------------------------------------


@pytest.mark.slow  # importing scipy takes over a second
def test_t_quantiles_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (10, 30, 100, 1000):
        for p in (0.8, 0.975, 0.995, 0.9965):
            assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), abs=2e-4)
    assert t_quantile(0.975, float("inf")) == pytest.approx(1.959964, abs=1e-6)


def test_detectable_and_queries_needed_by_hand():
    # 300 queries, s = 0.2, a family of 7 under Holm: alpha 0.05 / 7 two-sided, 80% power
    alpha_each = level(0.05, 7)
    z = t_quantile(1 - alpha_each / 2, 299) + t_quantile(0.8, 299)
    assert detectable(0.2, 300, alpha_each, 10_000) == pytest.approx(z * 0.2 / np.sqrt(300))
    n = queries_needed(0.2, 0.02, alpha_each, 10_000)
    assert (t_quantile(1 - alpha_each / 2, n - 1) + t_quantile(0.8, n - 1)) * 0.2 / np.sqrt(n) <= 0.02
    assert (t_quantile(1 - alpha_each / 2, n - 2) + t_quantile(0.8, n - 2)) * 0.2 / np.sqrt(n - 1) > 0.02
    # a randomization test over 5 queries cannot go below p = 2/32: nothing is detectable at 0.05 / 7
    assert smallest_p(5, 10_000) == 2 / 32 and detectable(0.2, 5, alpha_each, 10_000) is None
    assert queries_needed(0.0, 0.02, alpha_each, 10_000) == least_queries(alpha_each, 10_000) == 9  # 2/2^9 < 0.0071


def _detection_rate(n, family, sims, effect=None, permutations=1000, sd=0.2, seed=0):
    """The report's own verdict (paired bootstrap band, randomization test, Holm over ``family``
    comparisons) on query sets where the first member truly differs by ``effect`` (default the
    detectable difference) and the others not at all: how often it says "better"."""
    alpha = 0.05
    planted = detectable(sd, n, level(alpha, family), permutations) if effect is None else effect
    rng = np.random.default_rng(seed)
    found = 0
    for s in range(sims):
        d = rng.normal(0.0, sd, size=(n, family))
        d[:, 0] += planted
        _, low, high = bootstrap_interval(d, 1000, s, 0.95)
        adjusted = adjust(randomization_test(d, permutations, s), Correction.HOLM)
        found += verdict_of(low[0], high[0], adjusted[0], alpha) == "better"
    return found / sims


def test_the_detectable_difference_is_found_about_80_percent_of_the_time():
    # 400 query sets of 40 queries, one comparison: 80% +- 6 points (3 standard errors)
    assert abs(_detection_rate(40, 1, 400) - 0.8) <= 0.06
    # and half of it is mostly missed: the figure is not merely a loose upper bound
    half = detectable(0.2, 40, 0.05, 1000) / 2
    assert _detection_rate(40, 1, 400, effect=half) < 0.4


@pytest.mark.slow
def test_detection_holds_after_the_familys_correction_and_queries_needed_delivers_it():
    assert abs(_detection_rate(60, 7, 400) - 0.8) <= 0.06  # Holm over 7 comparisons
    n = queries_needed(0.2, 0.08, level(0.05, 7), 1000)
    assert abs(_detection_rate(n, 7, 300, effect=0.08, seed=1) - 0.8) <= 0.07


@pytest.mark.slow  # two evaluations and a render
def test_partitions_and_a_render_give_the_readings_a_whole_run_gives(tmp_path):
    from ragreport.api import analyse, document, evaluate, reanalyse

    qrels, run = _random_case(11, queries=30)
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, gs in qrels.items() for d, g in gs.items()))
    lines = [f"{q} Q0 {d} {r} {s} r" for q, ds in run.items() for r, (d, s) in enumerate(ds.items(), 1)]
    (tmp_path / "r.trec").write_text("\n".join(lines) + "\n")
    args = dict(qrels=str(tmp_path / "qrels.txt"), k=3, kmax=4)  # lists stored 4 deep: condensing reads deeper
    whole = evaluate([str(tmp_path / "r.trec")], **args)[0]
    parts = evaluate([str(tmp_path / "r.trec")], engine="stream", partition_bytes=2_000, **args)[0]
    for name in whole.readings:
        np.testing.assert_array_equal(whole.readings[name], parts.readings[name])
    assert whole.reading_at["condensed"]["P@3"] != whole.at_k["P@3"].mean  # the case reads differently
    made = document(analyse([whole]))
    assert document(reanalyse(made)) == made


# --- 20.4 the headline's caveats, end to end -----------------------------------------------------

# 200 queries, one relevant id each ("r") and nine judged not relevant. "base" ranks r third on
# every query (nDCG@10 = 1/log2(4) = 0.5). "new" ranks r first on the 150 queries whose topic is
# billing (nDCG@10 = 1) and misses it on the 50 about networking (0), filling its lists with ids
# nobody judged: overall +0.25, clearly better; on networking -0.5, clearly worse.
PLANTED_QUERIES = [f"q{i:03d}" for i in range(200)]
PLANTED_TOPIC = {q: {"topic": "networking" if i < 50 else "billing"} for i, q in enumerate(PLANTED_QUERIES)}
PLANTED_QRELS = {q: {"r": 1, **{f"n{j}": 0 for j in range(1, 10)}} for q in PLANTED_QUERIES}
PLANTED_BASE = {
    q: dict(zip(["n1", "n2", "r", *[f"n{j}" for j in range(3, 10)]], range(10, 0, -1))) for q in PLANTED_QUERIES
}
PLANTED_NEW = {
    q: dict(
        zip(
            [f"u{j}" for j in range(10)]
            if PLANTED_TOPIC[q]["topic"] == "networking"
            else ["r", *[f"u{j}" for j in range(9)]],
            range(10, 0, -1),
        )
    )
    for q in PLANTED_QUERIES
}


def _planted(**extra):
    from ragreport.api import analyse, evaluate

    results = evaluate({"base": PLANTED_BASE, "new": PLANTED_NEW}, qrels=PLANTED_QRELS, k=10)
    return analyse(results, query_meta=PLANTED_TOPIC, permutations=2000, **extra)


def test_a_slice_that_goes_the_other_way_is_in_the_headline_sentence_and_first_among_its_caveats():
    from ragreport.api import document

    [entry] = document(_planted())["headline"]
    assert entry["verdict"] == "better" and entry["delta"] == pytest.approx(0.25)
    kinds = [c["kind"] for c in entry["caveats"]]
    assert kinds[0] == "slice"
    hidden = entry["caveats"][0]
    assert (hidden["key"], hidden["value"], hidden["queries"], hidden["verdict"]) == (
        "topic",
        "networking",
        50,
        "worse",
    )
    assert hidden["delta"] == pytest.approx(-0.5) and hidden["low"] == pytest.approx(-0.5)
    assert (
        "clearly better overall, but clearly worse where topic is networking (50 queries): -0.500 "
        "(95% band -0.500 to -0.500)." in entry["sentence"]
    )


def test_a_mostly_unjudged_run_whose_verdict_no_plausible_reading_changes_has_no_unjudged_caveat():
    from ragreport.api import document

    [entry] = document(_planted())["headline"]
    # new: 9 of 10 slots unjudged on 150 queries, all 10 on 50; but neither condensing nor the
    # rank-wise rate (1 at rank 1, from the billing queries' r; 0 below) overturns "better"
    assert entry["verdict"] == "better" and "unjudged" not in [c["kind"] for c in entry["caveats"]]
    assert "holds under every plausible reading" in entry["readings_note"]


def test_the_single_runs_limit_says_all_when_every_slot_is_unjudged():
    from ragreport.api import analyse, document, evaluate

    qrels = {q: {"r": 1, "n": 0} for q in PLANTED_QUERIES[:60]}  # pooled: n judged not relevant
    run = {q: {f"u{j}": 10.0 - j for j in range(10)} for q in PLANTED_QUERIES[:60]}
    run["q000"] = {"r": 20.0, **run["q000"]}  # one judged id, so that the ids meet
    [entry] = document(analyse(evaluate({"lone": run}, qrels=qrels, k=10)))["headline"]
    assert entry["limit"] == "unjudged"
    assert "599 of 600 (99.8%) of its top-10 results were never judged" in entry["sentence"]
    assert say_headline.unjudged_amount(600, 600) == "all 600"
    assert entry["caveats"] == []  # a single run has no verdict for a reading to change


def compared_reading(doc: dict, reading: str, metric: str = "nDCG@10") -> str:
    """The verdict of ``metric``'s comparison under ``reading`` in a report document."""
    [compared] = [c for c in doc["comparisons"] if c["metric"] == metric]
    return compared["readings"][reading]["verdict"]


# Two pooled collections of 40 queries, each judging r and s relevant and n1 to n4 not. On the 30
# "B" queries base lists n1 r n2 s, new lists two unjudged ids first (u1 u2 n3 n4 r s): new is
# clearly worse by default, and condensed (n3 n4 r s) still worse. The 10 "A" queries, alike in both
# runs, set new's rank-wise rate at ranks 1 and 2: r s first on all 10 (rate 1, RATED_FLIPS), or on
# 2 of them, n1 n2 first on the other 8 (rate 1/5, RATED_HOLDS).
RATED_B = (["u1", "u2", "n3", "n4", "r", "s"], ["n1", "r", "n2", "s"])
RATED_FLIPS = ["r", "s", "n1", "n2", "n3", "n4"]
RATED_HOLDS = ["n1", "n2", "r", "s", "n3", "n4"]


def _rated(a_lists: list[str]):
    from ragreport.api import analyse, evaluate

    queries = [f"q{i:02d}" for i in range(40)]
    qrels = {q: {"r": 1, "s": 1, **{f"n{j}": 0 for j in range(1, 5)}} for q in queries}

    def run(b: list[str]) -> dict:
        lists = [(RATED_FLIPS if i < 2 else a_lists) if i < 10 else b for i in range(40)]
        return {q: {d: 100.0 - j for j, d in enumerate(ids)} for q, ids in zip(queries, lists)}

    results = evaluate({"base": run(RATED_B[1]), "new": run(RATED_B[0])}, qrels=qrels, k=10)
    return analyse(results, permutations=2000)


def test_a_verdict_the_rank_wise_rate_overturns_has_the_caveat():
    from ragreport.api import document

    doc = document(_rated(RATED_FLIPS))
    [entry] = doc["headline"]
    assert entry["verdict"] == "worse"
    # B: new's u1 u2 read at rate 1 (r and s at ranks 1 and 2 on every A query): its bound, nDCG@10
    # (1 + 1/log2 3 + 1/log2 6 + 1/log2 7) / (1 + 1/log2 3 + 1/log2 4 + 1/log2 5) against base's
    # (1/log2 3 + 1/log2 5) / (1 + 1/log2 3); A: no difference
    logs = 1 / np.log2(np.arange(2, 8))
    new_b = (logs[0] + logs[1] + logs[4] + logs[5]) / logs[:4].sum()
    base_b = (logs[1] + logs[3]) / logs[:2].sum()
    [unjudged] = [c for c in entry["caveats"] if c["kind"] == "unjudged"]
    [flip] = unjudged["flips"]
    assert flip["reading"] == "unjudged_at_rate" and flip["verdict"] == "better"
    assert flip["delta"] == pytest.approx(30 / 40 * (new_b - base_b))
    assert compared_reading(doc, "condensed") == "worse"
    assert "read as relevant as often as judged ids at the same ranks are" in unjudged["sentence"]


def test_a_verdict_only_the_every_unjudged_relevant_bound_overturns_has_no_caveat():
    from ragreport.api import document
    from ragreport.output.site.view.build import build_view

    analysis = _rated(RATED_HOLDS)
    doc = document(analysis)
    [entry] = doc["headline"]
    assert entry["verdict"] == "worse" and entry["caveats"] == []
    assert compared_reading(doc, "unjudged_relevant") == "better"  # the bound would flip it
    assert compared_reading(doc, "unjudged_at_rate") == "worse" and compared_reading(doc, "condensed") == "worse"
    # B: new's u1 u2 read at rate 1/5 at ranks 1 and 2 (2 of the 10 A queries have r s there): a
    # fifth of the way from its default to its bound
    logs = 1 / np.log2(np.arange(2, 8))
    default_b, bound_b = (logs[4] + logs[5]) / logs[:2].sum(), (logs[0] + logs[1] + logs[4] + logs[5]) / logs[:4].sum()
    base_b = (logs[1] + logs[3]) / logs[:2].sum()
    [compared] = [c for c in doc["comparisons"] if c["metric"] == "nDCG@10"]
    at_rate = compared["readings"]["unjudged_at_rate"]["delta"]
    assert at_rate == pytest.approx(30 / 40 * (default_b + (bound_b - default_b) / 5 - base_b))
    # the bound stays in the details: the comparison's table of readings
    view = build_view(analysis)
    table = view.comparison.readings
    assert any(header.startswith("unjudged as relevant") for header in table.header)
    assert any("better" in cell for row in table.rows if row[1] == "nDCG@10" for cell in row)


def test_a_verdict_that_a_reading_of_unjudged_ids_overturns_says_which():
    from ragreport.api import analyse, document, evaluate

    # 40 queries: "new" ranks r second among judged ids; "base" ranks it fifth, under four ids
    # nobody judged. By default new is clearly better (1/log2(3) against 1/log2(6)); condensed, base
    # has r first and is better; read as relevant, base's four unjudged ids lift it above new.
    queries = PLANTED_QUERIES[:40]
    qrels = {q: {"r": 1, "n1": 0, "n2": 0} for q in queries}
    new = {q: {"n1": 3.0, "r": 2.0, "n2": 1.0} for q in queries}
    base = {q: {"u1": 6.0, "u2": 5.0, "u3": 4.0, "u4": 3.0, "r": 2.0, "n1": 1.0} for q in queries}
    doc = document(analyse(evaluate({"base": base, "new": new}, qrels=qrels, k=10), permutations=2000))
    [entry] = doc["headline"]
    assert entry["verdict"] == "better"
    [unjudged] = [c for c in entry["caveats"] if c["kind"] == "unjudged"]
    # the every-unjudged-relevant bound flips it too, but a bound is no caveat; base's rank-wise
    # rate is 0 at ranks 1 to 4 (nothing judged there), so that reading is the default one
    assert {f["reading"]: f["verdict"] for f in unjudged["flips"]} == {"condensed": "worse"}
    assert compared_reading(doc, "unjudged_relevant") == "worse"
    condensed = next(f for f in unjudged["flips"] if f["reading"] == "condensed")
    assert condensed["delta"] == pytest.approx(1 / np.log2(3) - 1)  # new's r at 2 against base's at 1
    assert "The verdict depends on the unjudged ids" in unjudged["sentence"]
    [compared] = [c for c in doc["comparisons"] if c["metric"] == "nDCG@10"]
    assert compared["robust"] is False and compared["readings"]["condensed"]["verdict"] == "worse"


def test_an_unclear_verdict_says_what_the_test_could_have_seen():
    from ragreport.api import analyse, document, evaluate

    queries = PLANTED_QUERIES[:120]
    qrels = {q: {"r": 1, "n1": 0, "n2": 0} for q in queries}
    # new ranks r first on even queries and third on odd ones; base the other way round: a mean
    # difference of 0, each query +-(1 - 0.5)
    new = {
        q: ({"r": 3.0, "n1": 2.0, "n2": 1.0} if i % 2 == 0 else {"n1": 3.0, "n2": 2.0, "r": 1.0})
        for i, q in enumerate(queries)
    }
    base = {
        q: ({"n1": 3.0, "n2": 2.0, "r": 1.0} if i % 2 == 0 else {"r": 3.0, "n1": 2.0, "n2": 1.0})
        for i, q in enumerate(queries)
    }
    doc = document(analyse(evaluate({"base": base, "new": new}, qrels=qrels, k=10), permutations=2000, min_effect=0.05))
    [entry] = doc["headline"]
    [power] = [c for c in entry["caveats"] if c["kind"] == "power"]
    [compared] = [c for c in doc["comparisons"] if c["metric"] == "nDCG@10"]
    sd = float(np.std([0.5, -0.5] * 60, ddof=1))
    family = len(doc["comparisons"])  # Holm over every compared metric of the one pair
    assert compared["detectable"] == pytest.approx(detectable(sd, 120, level(0.05, family), 2000))
    assert power["queries_needed"] == queries_needed(sd, 0.05, level(0.05, family), 2000) > 120
    assert power["min_effect"] == 0.05 and entry["verdict"] == "unclear"
    assert (
        f"with 120 queries this comparison could only detect differences of {compared['detectable']:.3f} or more "
        f"(80% power); detecting 0.050 would take about {power['queries_needed']:,} queries." in power["sentence"]
    )


def test_fail_on_slice_worse_fails_on_the_hidden_slice():
    from ragreport.api import check_gates, document
    from ragreport.output.exports.gates import parse_rules

    made = document(_planted())
    results = check_gates(made, parse_rules(fail_on=["slice-worse"]))
    failed = [r for r in results if not r.passed]
    assert [(r.run, r.metric) for r in failed] == [("new", "nDCG@10")]
    # every query of the slice loses 0.5: base has r at rank 3 (1 / log2(4)), new does not retrieve it
    assert failed[0].figure == (
        "where topic is networking (50 queries): verdict clearly worse: difference -0.500, band -0.500 to -0.500, "
        "corrected p < 0.001"
    )
    assert all(r.passed for r in check_gates(made, parse_rules(fail_on=["worse"])))  # the overall verdict is better


@pytest.mark.slow
def test_the_caveats_are_on_the_first_screen_in_chromium(tmp_path):
    import shutil

    playwright = pytest.importorskip("playwright.sync_api")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Chromium is not installed (CI installs it)")
    from ragreport.api import build

    build(_rated(RATED_FLIPS), out=tmp_path / "site")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for width, height in ((1400, 900), (390, 844)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto((tmp_path / "site" / "index.html").as_uri())
            sentence = page.locator("#headline .summary-line")
            assert "clearly worse" in sentence.inner_text()
            caveat = page.locator("#headline .first-caveats .caveat-unjudged")
            assert "if unjudged ids are relevant at the rate judged ones are" in caveat.inner_text()
            # the full sentence, with its method, is one click away
            assert (
                "as often as judged ids at the same ranks are"
                in page.locator("details.headline-details").text_content()
            )
            for shown in (sentence, caveat):
                box = shown.bounding_box()
                assert box is not None and box["y"] + box["height"] <= height, (width, box)
            page.screenshot(path=str(tmp_path / f"first-{width}.png"))
            page.close()
        browser.close()
    if os.environ.get("RAGREPORT_SCREENSHOTS"):  # to look at them: RAGREPORT_SCREENSHOTS=/tmp/shots
        for shot in tmp_path.glob("first-*.png"):
            shutil.copy(shot, Path(os.environ["RAGREPORT_SCREENSHOTS"]) / shot.name)


def test_the_history_pages_newest_verdict_carries_the_caveats():
    from ragreport.api import document
    from ragreport.output.exports.history import history_context, history_entry

    made = document(_planted())
    entry = history_entry(made, "v1", "sha256:x", None)
    [verdict] = history_context([entry])["verdict"]
    assert "clearly worse where topic is networking" in str(verdict["text"])
    assert verdict["caveats"] == []  # the slice is said in the sentence, and no other applies
    made = document(_rated(RATED_FLIPS))
    [verdict] = history_context([history_entry(made, "v1", "sha256:x", None)])["verdict"]
    [unjudged] = [c["sentence"] for c in made["headline"][0]["caveats"] if c["kind"] == "unjudged"]
    assert [str(c) for c in verdict["caveats"]] == [unjudged]


@pytest.mark.slow
def test_render_reproduces_the_caveats_and_readings_byte_for_byte(tmp_path):
    from ragreport.api import build, document
    from ragreport.output.exports.gates import check_gates, parse_rules

    analysis = _planted()
    rules = parse_rules(fail_on=["slice-worse"])
    made = document(analysis)
    build(analysis, out=tmp_path / "site", gates=check_gates(made, rules), rules=rules)
    code = main(["render", str(tmp_path / "site" / "report.json"), "--out", str(tmp_path / "again"), "--quiet"])
    assert code == 1  # the stored gate fails again: the hidden slice
    built = {p.name: p.read_bytes() for p in (tmp_path / "site").glob("*.*")}
    again = {p.name: p.read_bytes() for p in (tmp_path / "again").glob("*.*")}
    assert built.keys() == again.keys() and "report.json" in built
    for name in built:
        assert built[name] == again[name], name


def test_max_drop_says_when_its_check_is_underpowered():
    from ragreport.api import analyse, check_gates, document, evaluate
    from ragreport.output.exports.gates import parse_rules

    # test_an_unclear_verdict_says_what_the_test_could_have_seen's pair: each query +-0.5, mean 0
    queries = PLANTED_QUERIES[:120]
    qrels = {q: {"r": 1, "n1": 0, "n2": 0} for q in queries}
    first, third = {"r": 3.0, "n1": 2.0, "n2": 1.0}, {"n1": 3.0, "n2": 2.0, "r": 1.0}
    new = {q: first if i % 2 == 0 else third for i, q in enumerate(queries)}
    base = {q: third if i % 2 == 0 else first for i, q in enumerate(queries)}
    made = document(analyse(evaluate({"base": base, "new": new}, qrels=qrels, k=10), permutations=2000))
    [compared] = [c for c in made["comparisons"] if c["metric"] == "nDCG@10"]
    seen = compared["detectable"]
    assert compared["verdict"] == "unclear" and seen is not None and 0 < seen
    [under] = check_gates(made, parse_rules(max_drop=[f"nDCG@10={seen / 2}"]))
    assert under.figure.endswith(
        f"; underpowered: with 120 queries this comparison could only detect differences of {seen:.3f} or more "
        "(80% power)"
    )
    [enough] = check_gates(made, parse_rules(max_drop=[f"nDCG@10={seen * 2}"]))
    assert "underpowered" not in enough.figure
    # A clear difference (the planted pair: +0.25, clearly better) was detected: no power note,
    # even against a drop smaller than the test could detect.
    planted = document(_planted())
    [clear] = [c for c in planted["comparisons"] if c["metric"] == "nDCG@10"]
    assert clear["verdict"] == "better" and clear["detectable"] > 0.01
    [gate] = check_gates(planted, parse_rules(max_drop=["nDCG@10=0.01"]))
    assert gate.passed and "underpowered" not in gate.figure


@pytest.mark.parametrize("bad", ["0", "-0.1", "nan", "two", "1.5", "1e-300", "0_1", "\u0660.\u0665", "\uff10.\uff15"])
def test_min_effect_must_be_a_difference_above_0(bad, capsys):
    # 1e-300 once passed and overflowed the queries needed, (z sd / effect)^2: the catch-all line
    with pytest.raises(SystemExit) as caught:
        main(["score", "--min-effect", bad])
    assert caught.value.code == 2
    assert "--min-effect: expected a difference from 1e-06 to 1" in capsys.readouterr().err


def test_min_effect_from_python_is_named_as_its_keyword():
    from ragreport.api import analyse, evaluate
    from ragreport.core.errors import ArgumentError

    for bad in (0, 1e-300, float("nan"), "0.1", True):
        with pytest.raises(ArgumentError, match="^min_effect must be a difference from 1e-06 to 1, got"):
            analyse(evaluate(), min_effect=bad)


def test_the_readings_change_no_default_figure_of_the_comparison():
    import dataclasses

    from ragreport.analysis.compare import compare
    from ragreport.api import evaluate

    results = evaluate({"base": PLANTED_BASE, "new": PLANTED_NEW}, qrels=PLANTED_QRELS, k=10)
    bare = [dataclasses.replace(s, readings={}, reading_at={}) for s in results]
    fields = ("delta", "low", "high", "p", "p_adjusted", "wins", "ties", "losses", "verdict")
    read, unread = compare(results, permutations=500).comparisons, compare(bare, permutations=500).comparisons
    assert [[getattr(c, f) for f in fields] for c in read] == [[getattr(c, f) for f in fields] for c in unread]
    assert all(c.readings is None for c in unread) and all(c.readings is not None for c in read)


def test_the_terminal_table_the_markdown_and_the_comment_carry_the_caveats():
    from ragreport.output.exports.text import comment, markdown, table
    from ragreport.output.site.view.build import build_view

    view = build_view(_planted())
    for text in (table(view, width=1000), markdown(view), comment(view, limit=2_000)):
        assert "clearly better overall, but clearly worse where topic is networking (50 queries)" in text
    view = build_view(_rated(RATED_FLIPS))
    for text in (table(view, width=1000), markdown(view), comment(view, limit=2_000)):
        head = text[: text.index("The verdict depends on the unjudged ids")]  # with the headline, first
        assert "clearly worse" in head and "new" in head
