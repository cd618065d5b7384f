"""The audit of a model judge's labels (issue 22; docs/conventions.md section 25): kappa and
weighted kappa against hand-worked tables and scikit-learn, the bootstrap band, the slot
disagreement, and the audit's refusals."""

from __future__ import annotations

import numpy as np
import pytest
from reference import metrics_at

from ragreport.analysis.agreement import agreement, kappas
from ragreport.api import analyse, evaluate
from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.scoring.catalogue import COMPARED

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def _pairs(table: list[list[int]], grades: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The (model, human) grades of a confusion table, one pair per count."""
    model, human = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            model += [grades[i]] * count
            human += [grades[j]] * count
    return np.array(model), np.array(human)


def test_kappa_hand_worked_two_by_two():
    # Model rows (not, relevant) x human columns: 20 both not, 5 model-only, 10 human-only, 15 both.
    # p_o = 35/50 = 0.7; model relevant 20/50 = 0.4, human relevant 25/50 = 0.5;
    # p_e = 0.4*0.5 + 0.6*0.5 = 0.5; kappa = (0.7 - 0.5) / 0.5 = 0.4.
    kappa, weighted = kappas(np.array([[20, 5], [10, 15]]), np.array([0, 1]), level=1)
    assert kappa == pytest.approx(0.4)
    # With two grades the quadratic weights are the binary disagreement: the same kappa.
    assert weighted == pytest.approx(0.4)


def test_weighted_kappa_hand_worked_three_grades():
    # Grades 0, 1, 2; table (model rows x human columns), 10 pairs:
    #   [[3, 1, 0], [1, 2, 1], [0, 0, 2]]
    # rows 4, 4, 2; columns 4, 3, 3 (shares /10). Weights (i - j)^2: 0, 1, 4.
    # observed weighted disagreement: 1*(1 + 1 + 1 + 0) + 4*(0 + 0) = 3 -> 0.3
    # expected: sum w_ij r_i c_j / 100 with r = (4, 4, 2), c = (4, 3, 3):
    #   i=0: 0*16 + 1*12 + 4*12 = 60; i=1: 1*16 + 0 + 1*12 = 28; i=2: 4*8 + 1*6 + 0 = 38 -> 126/100
    # weighted kappa = 1 - 0.3 / 1.26 = 0.761904...
    # Binary at level 1: model relevant 6/10, human relevant 6/10; agree: (0,0)=3 plus
    # relevant-both 2+1+0+2 = 5 -> p_o 0.8; p_e = 0.36 + 0.16 = 0.52; kappa = 0.28/0.48 = 0.58333
    table = np.array([[3, 1, 0], [1, 2, 1], [0, 0, 2]])
    kappa, weighted = kappas(table, np.array([0, 1, 2]), level=1)
    assert weighted == pytest.approx(1 - 0.3 / 1.26)
    assert kappa == pytest.approx(0.28 / 0.48)
    # At level 2 only grade 2 is relevant: model 2/10, human 3/10; agree 7 + 2 = 9 -> 0.9;
    # p_e = 0.06 + 0.56 = 0.62; kappa = 0.28 / 0.38.
    kappa2, _ = kappas(table, np.array([0, 1, 2]), level=2)
    assert kappa2 == pytest.approx(0.28 / 0.38)


@pytest.mark.parametrize("seed", range(5))
def test_kappas_agree_with_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, size=300)
    model = np.clip(human + rng.integers(-1, 2, size=300), 0, 3)
    grades = np.arange(4)
    table = np.zeros((4, 4), dtype=np.int64)
    np.add.at(table, (model, human), 1)
    kappa, weighted = kappas(table, grades, level=2)
    assert kappa == pytest.approx(sklearn_metrics.cohen_kappa_score(model >= 2, human >= 2))
    assert weighted == pytest.approx(
        sklearn_metrics.cohen_kappa_score(model, human, weights="quadratic", labels=list(grades))
    )


def test_undefined_kappa_is_nan():
    kappa, _ = kappas(np.array([[0, 0], [0, 9]]), np.array([0, 1]), level=1)
    assert np.isnan(kappa)


def test_agreement_band_confusion_and_disagreement():
    rng = np.random.default_rng(1)
    queries = 40
    query = np.repeat(np.arange(queries), 10)
    human = rng.integers(0, 3, size=query.size)
    flip = rng.random(query.size) < 0.2
    model = np.where(flip, 2 - human, human)
    found = agreement(
        query,
        model,
        human,
        queries=queries,
        level=1,
        resamples=500,
        seed=3,
        slot_model=[np.array([True, False, True, True])],
        slot_human=[np.array([True, True, False, True])],
    )
    reference = sklearn_metrics.cohen_kappa_score(model >= 1, human >= 1)
    assert found.kappa == pytest.approx(reference)
    assert found.kappa_low < found.kappa < found.kappa_high
    assert found.weighted_low < found.weighted_kappa < found.weighted_high
    assert found.grades == (0, 1, 2)
    assert int(found.confusion.sum()) == found.pairs == query.size
    assert int(found.confusion[0, 2]) == int(np.count_nonzero((model == 0) & (human == 2)))
    assert found.disagreement == pytest.approx(2 / 4)
    # Seeded: the same band again.
    again = agreement(query, model, human, queries=queries, level=1, resamples=500, seed=3)
    assert (again.kappa_low, again.kappa_high) == (found.kappa_low, found.kappa_high)


def test_band_covers_a_planted_kappa():
    # A judge that flips relevance with a fixed probability has a known population kappa; the
    # band over 30 queries covers it about 95% of the time.
    p_rel, flip = 0.4, 0.15
    p_model = p_rel * (1 - flip) + (1 - p_rel) * flip
    p_o = 1 - flip
    p_e = p_model * p_rel + (1 - p_model) * (1 - p_rel)
    truth = (p_o - p_e) / (1 - p_e)
    covered, trials = 0, 200
    for trial in range(trials):
        rng = np.random.default_rng(100 + trial)
        query = np.repeat(np.arange(30), 8)
        human = (rng.random(query.size) < p_rel).astype(np.int64)
        model = np.where(rng.random(query.size) < flip, 1 - human, human)
        found = agreement(query, model, human, queries=30, resamples=400, seed=trial)
        covered += found.kappa_low <= truth <= found.kappa_high
    assert 0.88 <= covered / trials <= 0.99


def _labels(queries: int, *, offset: int = 0) -> dict[str, dict[str, int]]:
    return {f"q{i + offset}": {f"d{i}a": 1, f"d{i}b": 0} for i in range(queries)}


def _run(queries: int) -> dict[str, dict[str, float]]:
    return {f"q{i}": {f"d{i}a": 2.0, f"d{i}b": 1.0, f"d{i}c": 0.5} for i in range(queries)}


def test_analyse_measures_the_audit():
    model = _labels(12)
    human = {q: dict(g) for q, g in model.items()}
    human["q0"] = {"d0a": 0, "d0b": 1}  # the human disagrees on q0's two pairs
    summaries = evaluate({"a": _run(12)}, qrels=model, k=3)
    report = analyse(summaries, audit=human)
    found = report.audit.agreement
    assert found.queries == 12 and found.pairs == 24
    # 22 of 24 pairs agree; both sets call 12 of 24 relevant: p_e = 0.5, kappa = (22/24 - 0.5) / 0.5.
    assert found.kappa == pytest.approx((22 / 24 - 0.5) / 0.5)
    # 36 top-3 slots; q0's first two are read differently (d0c is unjudged in both).
    assert found.slots == 36 and found.disagreement == pytest.approx(2 / 36)
    assert analyse(summaries).audit is None


def test_audit_of_fewer_than_ten_queries_is_refused():
    summaries = evaluate({"a": _run(12)}, qrels=_labels(12), k=3)
    with pytest.raises(InputError, match="at least 10 queries.*got 9"):
        analyse(summaries, audit=_labels(9))


def test_audited_queries_the_model_does_not_cover_are_refused():
    summaries = evaluate({"a": _run(12)}, qrels=_labels(12), k=3)
    with pytest.raises(InputError, match=r"2 they do not cover \('q12', 'q13'\)"):
        analyse(summaries, audit=_labels(12, offset=2))


def _trec(path, labels):
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, grades in labels.items() for d, g in grades.items()))
    return path


def test_cli_reads_audit_and_refuses_in_one_line(tmp_path, capsys):
    qrels = _trec(tmp_path / "model.qrels", _labels(12))
    run = tmp_path / "a.trec"
    run.write_text(
        "".join(f"{q} Q0 {d} {r + 1} {s} a\n" for q, docs in _run(12).items() for r, (d, s) in enumerate(docs.items()))
    )
    small = _trec(tmp_path / "small.qrels", _labels(5))
    out = tmp_path / "out"
    code = main(["build", str(run), "--qrels", str(qrels), "--audit", str(small), "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert len(err.splitlines()) == 1 and "small.qrels" in err and "at least 10" in err
    assert not out.exists()


def test_report_json_audit_against_scikit_learn_on_the_files(tmp_path, monkeypatch):
    import json

    rng = np.random.default_rng(7)
    model_lines, human_lines, model, human = [], [], [], []
    for q in range(15):
        for d in range(6):
            g = int(rng.integers(0, 3))
            h = g if rng.random() < 0.7 else int(rng.integers(0, 3))
            model_lines.append(f"q{q} 0 d{q}-{d} {g}\n")
            if q < 12:
                human_lines.append(f"q{q} 0 d{q}-{d} {h}\n")
                model.append(g)
                human.append(h)
    (tmp_path / "model.qrels").write_text("".join(model_lines))
    (tmp_path / "human.qrels").write_text("".join(human_lines))
    run = tmp_path / "a.trec"
    run.write_text("".join(f"q{q} Q0 d{q}-{d} {d + 1} {10 - d} a\n" for q in range(15) for d in range(6)))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    out = tmp_path / "out"
    args = ["build", str(run), "--qrels", str(tmp_path / "model.qrels"), "--audit", str(tmp_path / "human.qrels")]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    audit = json.loads((out / "report.json").read_text())["audit"]
    m, h = np.array(model), np.array(human)
    assert audit["queries"] == 12 and audit["pairs"] == 72
    assert audit["kappa"] == pytest.approx(sklearn_metrics.cohen_kappa_score(m >= 1, h >= 1))
    assert audit["weighted_kappa"] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(m, h, weights="quadratic", labels=[0, 1, 2])
    )
    assert audit["confusion"]["2"]["0"] == int(np.count_nonzero((m == 2) & (h == 0)))
    assert audit["kappa_low"] <= audit["kappa"] <= audit["kappa_high"]
    # The top 6 of 12 audited queries: every slot is judged by both, so the share is the pairs'.
    assert audit["slots"] == 72
    assert audit["disagreement"] == pytest.approx(np.mean((m >= 1) != (h >= 1)))


def test_runs_under_both_label_sets_against_pytrec_eval(tmp_path):
    import pytrec_eval

    from ragreport.analysis.audit import corrected_means

    rng = np.random.default_rng(5)
    model, human, run = {}, {}, {}
    for q in range(30):
        qid = f"q{q}"
        model[qid] = {f"d{q}-{d}": int(rng.integers(0, 3)) for d in range(8)}
        model[qid][f"d{q}-0"] = 2  # every query has a relevant id under both sets
        run[qid] = {f"d{q}-{d}": float(rng.random()) for d in range(10)}
        if q < 12:
            human[qid] = {d: (g if rng.random() < 0.6 else int(rng.integers(0, 3))) for d, g in model[qid].items()}
            human[qid][f"d{q}-0"] = 2
    report = analyse(evaluate({"a": run}, qrels=model, k=5), audit=human)
    # Every metric of the family at K, under both label sets: one entry each.
    assert [r.label for r in report.audit.runs] == [m.label(5) for m in COMPARED]
    assert {r.queries for r in report.audit.runs} == {12}
    top5 = {q: dict(sorted(docs.items(), key=lambda kv: -kv[1])[:5]) for q, docs in run.items()}
    # trec_eval's names; RR@5 is recip_rank on the top 5 (trec_eval's recip_rank takes no cutoff).
    names = {"P@5": "P_5", "R@5": "recall_5", "Hit@5": "success_5", "AP@5": "map_cut_5", "nDCG@5": "ndcg_cut_5"}

    def per_query(labels, label):
        if label == "RR@5":
            values = pytrec_eval.RelevanceEvaluator(labels, {"recip_rank"}).evaluate(top5)
            return {q: v["recip_rank"] for q, v in values.items()}
        if label == "CP@5":  # not trec_eval's: the naive reference, one query at a time
            ranked = {q: [d for d, _ in sorted(docs.items(), key=lambda kv: -kv[1])] for q, docs in run.items()}
            return {q: metrics_at(ranked[q], labels[q], 5)["CP"] for q in labels}
        measure = names[label].replace("_5", ".5")
        values = pytrec_eval.RelevanceEvaluator(labels, {measure}).evaluate(run)
        return {q: v[names[label]] for q, v in values.items()}

    audited = sorted(human)
    referenced = [found for found in report.audit.runs if found.label in names or found.label in ("RR@5", "CP@5")]
    assert len(referenced) == 7  # every metric with a reference here; a later one has its own hand-worked test
    for found in referenced:
        f_all, y = per_query(model, found.label), per_query(human, found.label)
        f_aud = np.array([f_all[q] for q in audited])
        y_aud = np.array([y[q] for q in audited])
        assert found.model[0] == pytest.approx(f_aud.mean()), found.label
        assert found.human[0] == pytest.approx(y_aud.mean()), found.label
        # The corrected mean worked from the reference's per-query values.
        assert found.corrected[0] == pytest.approx(np.mean(list(f_all.values())) + (y_aud - f_aud).mean())
        assert found.corrected == pytest.approx(corrected_means(np.array(list(f_all.values())), f_aud, y_aud)[0])


def _favoured(queries: int = 60, audited: int = 20):
    """A judge that favours run b's first result: on the model's labels b is clearly better than a,
    on the human labels of the audited queries a is."""
    rng = np.random.default_rng(2)
    model, human, run_a, run_b = {}, {}, {}, {}
    for q in range(queries):
        qid, x, y, z = f"q{q}", f"x{q}", f"y{q}", f"z{q}"
        model[qid] = {x: 1, y: 2, z: int(rng.integers(0, 2))}
        if q < audited:
            human[qid] = {x: 2, y: 1, z: model[qid][z]}
        run_a[qid] = {x: 3.0, z: 2.0, y: 1.0}
        run_b[qid] = {y: 3.0, z: 2.0, x: 1.0} if rng.random() < 0.9 else {x: 3.0, z: 2.0, y: 1.0}
    return model, human, {"a": run_a, "b": run_b}


def test_a_verdict_the_audit_overturns_gets_a_labels_caveat():
    from ragreport.output.exports.reportjson.write import report_document

    model, human, runs = _favoured()
    report = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=2000)
    (corrected,) = [c for c in report.audit.comparisons if c.metric == "nDCG@3"]
    assert corrected.model_verdict == "better" and corrected.verdict == "worse"
    # Worked from the parts: every paired query's model difference, plus the audited queries'
    # human-minus-model difference of the differences.
    document = report_document(report)
    entry = next(e for e in document["headline"] if e.get("run") == "b")
    kinds = [c["kind"] for c in entry["caveats"]]
    assert kinds[0] == "labels"
    sentence = next(c["sentence"] for c in entry["caveats"] if c["kind"] == "labels")
    assert sentence.startswith(
        "Clearly better on the model's labels; once corrected by the 20 audited queries, clearly worse ("
    )
    stored = next(c for c in document["audit"]["comparisons"] if c["metric"] == "nDCG@3")
    assert stored["corrected"]["verdict"] == "worse"
    # Without the audit, no labels caveat.
    plain = report_document(analyse(evaluate(runs, qrels=model, k=3), permutations=2000))
    assert all(c["kind"] != "labels" for e in plain["headline"] for c in e.get("caveats", ()))


def test_a_verdict_the_audit_keeps_has_no_labels_caveat():
    from ragreport.output.exports.reportjson.write import report_document

    model, _, runs = _favoured()
    same = {q: dict(g) for q, g in list(model.items())[:20]}
    report = analyse(evaluate(runs, qrels=model, k=3), audit=same, permutations=2000)
    (corrected,) = [c for c in report.audit.comparisons if c.metric == "nDCG@3"]
    assert corrected.verdict == corrected.model_verdict == "better"
    # Human labels equal to the model's: the correction is nothing.
    assert corrected.corrected[0] == pytest.approx(corrected.model[0])
    entry = next(e for e in report_document(report)["headline"] if e.get("run") == "b")
    assert all(c["kind"] != "labels" for c in entry["caveats"])


def test_kendall_tau_hand_worked_and_against_scipy():
    from ragreport.analysis.agreement import kendall_tau

    # Four runs: model means 0.4, 0.3, 0.2, 0.1; human 0.3, 0.4, 0.2, 0.1. Of the 6 pairs one is
    # swapped (the first two): C = 5, D = 1, no ties -> tau = 4 / 6.
    assert kendall_tau([0.4, 0.3, 0.2, 0.1], [0.3, 0.4, 0.2, 0.1]) == pytest.approx(4 / 6)
    # Three runs, a tie under the human labels: pairs (1,2) C, (1,3) C, (2,3) tied in b.
    # C = 2, D = 0, P = 3, T_a = 0, T_b = 1 -> 2 / sqrt(3 * 2).
    assert kendall_tau([0.3, 0.2, 0.1], [0.3, 0.1, 0.1]) == pytest.approx(2 / np.sqrt(6))
    assert np.isnan(kendall_tau([0.1], [0.2]))
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    for _ in range(5):
        a, b = rng.integers(0, 5, size=8).astype(float), rng.integers(0, 5, size=8).astype(float)
        assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(a, b).statistic)


def test_tau_of_three_runs_in_the_audit():
    model, human, runs = _favoured()
    runs["c"] = runs["a"]
    report = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=500)
    means = [(r.model[0], r.human[0]) for r in report.audit.runs if r.label == "nDCG@3"]
    # a and c are the same run; b leads on the model's labels and trails on the human ones:
    # pairs (a, b) and (b, c) are discordant, (a, c) tied in both -> (0 - 2) / sqrt(2 * 2) = -1.
    assert means[0] == means[2]
    assert report.audit.tau == pytest.approx(-1.0)
    two = analyse(evaluate({"a": runs["a"], "b": runs["b"]}, qrels=model, k=3), audit=human, permutations=500)
    assert two.audit.tau is None


def test_the_audit_measures_the_judges_limit():
    model, human, runs = _favoured()
    report = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=500)
    found = report.audit.agreement
    for run_limits in report.limits:
        judge = [limit for limit in run_limits if limit.key == "judge_error"]
        assert len(judge) == 1  # added (no metadata said model), and only once
        assert f"Cohen's kappa is {found.kappa:.2f}" in judge[0].text
        assert "on 20 queries (audit)" in judge[0].text
    plain = analyse(evaluate(runs, qrels=model, k=3), permutations=500)
    assert all(limit.key != "judge_error" for run_limits in plain.limits for limit in run_limits)


def test_render_refuses_a_stored_audit_of_another_shape(tmp_path, monkeypatch, capsys):
    import json

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    qrels = _trec(tmp_path / "model.qrels", _labels(12))
    human = _trec(tmp_path / "human.qrels", _labels(12))
    run = tmp_path / "a.trec"
    run.write_text(
        "".join(f"{q} Q0 {d} {r + 1} {s} a\n" for q, docs in _run(12).items() for r, (d, s) in enumerate(docs.items()))
    )
    out = tmp_path / "out"
    assert main(["build", str(run), "--qrels", str(qrels), "--audit", str(human), "--out", str(out), "--quiet"]) == 0
    document = json.loads((out / "report.json").read_text())
    assert document["audit"]["source"] == "human.qrels"
    document["audit"]["labels"] = ["q1"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    capsys.readouterr()
    code = main(["render", str(bad), "--out", str(tmp_path / "again"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "audit.labels" in err
    assert not (tmp_path / "again").exists()


def test_summary_markdown_has_the_labels_block():
    from ragreport.output.exports.text import markdown
    from ragreport.output.site.view.build import build_view

    model, human, runs = _favoured()
    report = analyse(evaluate(runs, qrels=model, k=3), audit=human, permutations=500)
    text = markdown(build_view(report))
    assert "**Labels: the model judge, audited.** Audited by audit on 20 queries: on the 60 pairs both judged" in text
    a, b = [r for r in report.audit.runs if r.label == "nDCG@3"]
    # b's row: its three figures as the table writes them (mean, then the band).
    assert f"| b | nDCG@3 | {b.model[0]:.3f} ({b.model[1]:.3f} to {b.model[2]:.3f}) |" in text
    plain = markdown(build_view(analyse(evaluate(runs, qrels=model, k=3), permutations=500)))
    assert "Labels: the model judge" not in plain
