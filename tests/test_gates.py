"""Gate rules, parsed and checked on hand-written report documents (figures written out)."""

from __future__ import annotations

import pytest

from ragreport.cli.parser import flag
from ragreport.core.errors import ArgumentError, UsageError
from ragreport.output.exports.gates import (
    check_available,
    check_gates,
    failed,
    parse_max_drop,
    parse_requirement,
    parse_rules,
)


def _figure(mean, low, high):
    return {"mean": mean, "low": low, "high": high, "interval": "bootstrap"}


def _comparison(run, metric, delta, low, high, p_adjusted, verdict):
    return {
        "baseline": "bm25",
        "run": run,
        "metric": metric,
        "delta": delta,
        "low": low,
        "high": high,
        "p_adjusted": p_adjusted,
        "verdict": verdict,
    }


DOCUMENT = {
    "primary": "nDCG@10",
    "runs": [
        {
            "name": "bm25",
            "metrics": {"nDCG@10": _figure(0.41, 0.38, 0.44), "R@10": _figure(0.70, 0.66, 0.74)},
            "measures": {
                "R@100": _figure(0.85, 0.81, 0.88),
                "NumRet": {"mean": 9.0, "low": None, "high": None, "total": 900},
            },
        },
        {
            "name": "dense",
            "metrics": {"nDCG@10": _figure(0.45, 0.41, 0.49), "R@10": _figure(0.72, 0.69, 0.75)},
            "measures": {"R@100": _figure(0.79, 0.75, 0.83)},
        },
        {
            "name": "splade",
            "metrics": {"nDCG@10": _figure(0.36, 0.33, 0.39), "R@10": _figure(0.60, 0.56, 0.64)},
            "measures": {},
        },
    ],
    "comparison": {"baseline": "bm25"},
    "comparisons": [
        _comparison("dense", "nDCG@10", 0.04, 0.01, 0.07, 0.01, "better"),
        _comparison("dense", "R@10", 0.02, -0.015, 0.05, 0.3, "unclear"),
        _comparison("splade", "nDCG@10", -0.05, -0.08, -0.02, 0.002, "worse"),
        _comparison("splade", "R@10", -0.10, -0.14, -0.06, 0.001, "worse"),
    ],
    "drift": None,
}


def test_requirements_parse_run_mean_and_operator():
    plain = parse_requirement("nDCG@10>=0.40")
    assert (plain.metric, plain.op, plain.threshold, plain.run, plain.on_mean) == ("nDCG@10", ">=", 0.40, None, False)
    one = parse_requirement("bm25:R@100>=0.8")
    assert (one.metric, one.run) == ("R@100", "bm25")
    mean = parse_requirement("mean:ndcg_cut_10 > 0.4")  # trec_eval's spelling, spaces around the operator
    assert (mean.metric, mean.op, mean.on_mean, mean.run) == ("nDCG@10", ">", True, None)
    named = parse_requirement("mean:my:run:P@5<=0.9")  # run names may hold a colon; metric names do not
    assert (named.run, named.metric, named.op) == ("my:run", "P@5", "<=")
    drop = parse_max_drop("dense:nDCG@10=0.02")
    assert (drop.run, drop.metric, drop.drop) == ("dense", "nDCG@10", 0.02)


@pytest.mark.parametrize(
    ("make", "text", "message"),
    [
        (parse_requirement, "nDCG@10=0.4", "expected [mean:][RUN:]METRIC>=VALUE"),
        (parse_requirement, "nDCG@10>=nan", "expected a number after the operator"),  # nan: not in the grammar
        (parse_requirement, "nDCG@10>=1e400", "expected a finite number"),
        (parse_requirement, "bogus@10>=0.4", "require 'bogus@10>=0.4'"),
        (parse_requirement, "R>=0.4", "needs a cutoff, such as R@10"),
        (parse_max_drop, "nDCG@10>=0.02", "expected [RUN:]METRIC=DROP"),
        (parse_max_drop, "nDCG@10=-0.02", "expected a drop of 0 or more"),
        (parse_requirement, "nDCG@10>=1.5", "nDCG@10 lies between 0 and 1, so a threshold of 1.5 would fail every run"),
        (parse_requirement, "nDCG@10>=-1", "so a threshold of -1 would pass every run"),
        (parse_requirement, "R@10<=1.2", "so a threshold of 1.2 would pass every run"),
        (parse_max_drop, "nDCG@10=2", "nDCG@10 lies between 0 and 1, so a drop of 2 allows any change"),
    ],
)
def test_bad_rules_are_one_line_usage_errors(make, text, message):
    with pytest.raises(ArgumentError, match=None) as caught:
        make(text)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    # Named by the keyword from Python (parse_rules(require=...)), by the flag on the command line.
    keyword = "require" if make is parse_requirement else "max_drop"
    assert str(caught.value).startswith(f"{keyword} {text!r}: ")
    assert caught.value.spelled(flag).startswith(f"--{keyword.replace('_', '-')} {text!r}: ")


def test_fail_on_worse_reads_the_primary_metric_only_by_default():
    results = check_gates(DOCUMENT, parse_rules(fail_on=["worse"]))
    assert [(r.run, r.metric, r.passed) for r in results] == [("dense", "nDCG@10", True), ("splade", "nDCG@10", False)]
    assert results[1].line == (  # the verdict it read, then the figures the verdict rests on
        "FAIL  fail-on worse  splade nDCG@10: verdict clearly worse: difference -0.050, band -0.080 to -0.020, "
        "corrected p 0.002"
    )
    assert results[0].figure == "verdict clearly better: difference +0.040, band +0.010 to +0.070, corrected p 0.010"


def test_fail_on_worse_reads_every_metric_of_metrics():
    results = check_gates(DOCUMENT, parse_rules(fail_on=["worse"], gated=["R@10"]))
    assert [(r.run, r.metric, r.passed) for r in results] == [("dense", "R@10", True), ("splade", "R@10", False)]


def test_a_band_only_result_is_not_worse():
    document = dict(DOCUMENT, comparisons=[_comparison("splade", "nDCG@10", -0.05, -0.08, -0.02, 0.2, "band below 0")])
    assert not failed(check_gates(document, parse_rules(fail_on=["worse"])))


def test_require_reads_the_lower_band_bound_and_mean_when_asked():
    results = check_gates(DOCUMENT, parse_rules(require=["nDCG@10>=0.40"]))
    # lower bounds 0.38, 0.41, 0.33: only dense passes, though bm25's mean 0.41 is above 0.40
    assert [(r.run, r.value, r.passed) for r in results] == [
        ("bm25", 0.38, False),
        ("dense", 0.41, True),
        ("splade", 0.33, False),
    ]
    # Each line states the figure it compared, the relation to the threshold as the rule spells it,
    # and the mean; where the mean would pass a failed bound (bm25: 0.41), the rule that gates it.
    assert [r.figure for r in results] == [
        "lower band bound 0.380 < 0.40 (mean 0.410; to gate the mean: mean:nDCG@10>=0.40)",
        "lower band bound 0.410 >= 0.40 (mean 0.450)",
        "lower band bound 0.330 < 0.40 (mean 0.360)",  # the mean 0.36 fails too: no hint
    ]
    on_mean = check_gates(DOCUMENT, parse_rules(require=["mean:nDCG@10>=0.40"]))
    assert [(r.run, r.passed) for r in on_mean] == [("bm25", True), ("dense", True), ("splade", False)]
    assert [r.figure for r in on_mean] == ["mean 0.410 >= 0.40", "mean 0.450 >= 0.40", "mean 0.360 < 0.40"]
    assert on_mean[0].rule == "require mean:nDCG@10>=0.40"
    upper = check_gates(DOCUMENT, parse_rules(require=["splade:nDCG@10<=0.38"]))  # <= reads the upper bound 0.39
    assert [(r.run, r.value, r.passed) for r in upper] == [("splade", 0.39, False)]
    assert upper[0].line == (  # the mean 0.36 would pass <= 0.38
        "FAIL  require splade:nDCG@10<=0.38  splade nDCG@10: upper band bound 0.390 > 0.38 "
        "(mean 0.360; to gate the mean: mean:splade:nDCG@10<=0.38)"
    )
    strict = check_gates(DOCUMENT, parse_rules(require=["dense:nDCG@10>0.41", "dense:nDCG@10<0.49"]))
    assert [r.figure for r in strict] == [  # a strict rule fails on equality: 0.41 <= 0.41, 0.49 >= 0.49
        "lower band bound 0.410 <= 0.41 (mean 0.450; to gate the mean: mean:dense:nDCG@10>0.41)",
        "upper band bound 0.490 >= 0.49 (mean 0.450; to gate the mean: mean:dense:nDCG@10<0.49)",
    ]


def test_require_shows_the_digits_that_keep_its_relation_true():
    # 0.3996 rounds to 0.400 at three decimals, which would read "0.400 < 0.40": one more decimal.
    document = dict(DOCUMENT, runs=[{"name": "a", "metrics": {"nDCG@10": _figure(0.3999, 0.3996, 0.4)}}])
    (result,) = check_gates(document, parse_rules(require=["nDCG@10>=0.4"]))
    assert not result.passed and result.figure == "lower band bound 0.3996 < 0.4 (mean 0.400)"
    (missing,) = check_gates(
        dict(document, runs=[{"name": "a", "metrics": {"nDCG@10": _figure(float("nan"), None, None)}}]),
        parse_rules(require=["nDCG@10>=0.4"]),
    )
    assert not missing.passed
    assert missing.figure == "mean (no band) n/a (a figure that could not be taken passes no gate)"


def test_require_on_a_named_measure_and_on_a_count():
    results = check_gates(DOCUMENT, parse_rules(require=["bm25:R@100>=0.8", "bm25:num_ret>=1000"]))
    assert [(r.metric, r.value, r.passed) for r in results] == [("R@100", 0.81, True), ("NumRet", 900, False)]
    assert results[0].figure == "lower band bound 0.810 >= 0.8 (mean 0.850)"
    assert results[1].figure == "total (a count) 900.000 < 1000"  # the figure every table shows, not the mean 9


def test_max_drop_reads_the_paired_band_against_the_baseline_and_the_previous_report():
    results = check_gates(DOCUMENT, parse_rules(max_drop=["R@10=0.02"]))
    # lower bounds -0.015 (dense: within 0.02) and -0.14 (splade: beyond)
    assert [(r.run, r.value, r.threshold, r.passed) for r in results] == [
        ("dense", -0.015, -0.02, True),
        ("splade", -0.14, -0.02, False),
    ]
    drifted = dict(
        DOCUMENT,
        comparisons=[],
        comparison=None,
        drift={
            "rows": [
                {"run": "bm25", "metric": "nDCG@10", "low": -0.03, "delta": -0.01, "high": 0.01},
                {"run": "bm25", "metric": "R@10", "low": None, "delta": 0.0, "high": None},
            ]
        },
    )
    (against_then,) = check_gates(drifted, parse_rules(max_drop=["nDCG@10=0.02"]))
    assert (against_then.run, against_then.passed) == ("bm25", False)
    assert against_then.figure == (
        "against the previous report: lower band bound -0.030 < -0.02 (difference -0.010, band -0.030 to +0.010)"
    )
    assert [r.figure for r in results] == [
        "against bm25: lower band bound -0.015 >= -0.02 (difference +0.020, band -0.015 to +0.050)",
        "against bm25: lower band bound -0.140 < -0.02 (difference -0.100, band -0.140 to -0.060)",
    ]
    (no_drop,) = check_gates(DOCUMENT, parse_rules(max_drop=["dense:nDCG@10=0"]))  # no drop at all: held to 0
    assert no_drop.figure == "against bm25: lower band bound +0.010 >= 0 (difference +0.040, band +0.010 to +0.070)"


def _powered(verdict, low, detectable):
    """DOCUMENT with dense's R@10 comparison given a verdict, a lower bound and a detectable size."""
    entry = _comparison("dense", "R@10", 0.02, low, 0.05, 0.3, verdict) | {"detectable": detectable, "queries": 200}
    return dict(DOCUMENT, comparisons=[entry])


def test_max_drop_says_underpowered_only_beside_no_clear_difference():
    # No clear difference, and the test could only detect 0.108: a drop of 0.02 could go unseen.
    (unclear,) = check_gates(_powered("unclear", -0.015, 0.108), parse_rules(max_drop=["R@10=0.02"]))
    assert unclear.figure == (
        "against bm25: lower band bound -0.015 >= -0.02 (difference +0.020, band -0.015 to +0.050); underpowered: "
        "with 200 queries this comparison could only detect differences of 0.108 or more (80% power)"
    )
    (unreachable,) = check_gates(_powered("unclear", -0.015, None), parse_rules(max_drop=["R@10=0.02"]))
    assert unreachable.figure.endswith(
        "; underpowered: with 200 queries no difference is detectable at the corrected level"
    )
    (enough,) = check_gates(_powered("unclear", -0.015, 0.015), parse_rules(max_drop=["R@10=0.02"]))
    assert "underpowered" not in enough.figure  # 0.015 is detectable, under the drop of 0.02
    # A clear difference was detected, whatever the test's power: never "underpowered" beside it
    # (the case: a drop of -0.408 read as "could only detect differences of 0.108 or more").
    for verdict, low in (("worse", -0.45), ("better", 0.01), ("band below 0", -0.03), ("band above 0", 0.001)):
        (clear,) = check_gates(_powered(verdict, low, 0.108), parse_rules(max_drop=["R@10=0.02"]))
        assert "underpowered" not in clear.figure, verdict


def test_a_rule_the_report_cannot_answer_is_a_usage_error_not_a_pass():
    with pytest.raises(UsageError, match="names no run of the report"):
        check_gates(DOCUMENT, parse_rules(require=["nope:nDCG@10>=0.1"]))
    with pytest.raises(UsageError, match="holds no P@5"):
        check_gates(DOCUMENT, parse_rules(require=["P@5>=0.1"]))
    single = dict(DOCUMENT, comparisons=[], comparison=None)
    with pytest.raises(ArgumentError, match=r"needs two runs, or previous\)$") as caught:
        check_gates(single, parse_rules(max_drop=["nDCG@10=0.02"]))
    assert caught.value.spelled(flag).startswith("--max-drop 'nDCG@10=0.02': ")
    assert caught.value.spelled(flag).endswith("needs two runs, or --previous)")
    with pytest.raises(ArgumentError, match="^fail_on 'better'") as caught:
        parse_rules(fail_on=["better"])
    assert caught.value.spelled(flag).startswith("--fail-on 'better': expected one of ")
    with pytest.raises(UsageError, match="will hold no nDCG@20"):
        check_available(parse_rules(require=["nDCG@20>=0.4"]), ["nDCG@10"])


def test_one_run_fails_no_worse_gate_and_says_why():
    single = dict(DOCUMENT, runs=DOCUMENT["runs"][:1], comparisons=[], comparison=None)
    (result,) = check_gates(single, parse_rules(fail_on=["worse"]))
    assert result.passed and "no baseline to be worse than" in result.line


def test_fail_on_worse_reads_the_drift_since_the_previous_report_too():
    single = dict(
        DOCUMENT,
        runs=DOCUMENT["runs"][:1],
        comparisons=[],
        comparison=None,
        drift={
            "rows": [
                {
                    "run": "bm25",
                    "metric": "nDCG@10",
                    "delta": -0.2,
                    "low": -0.25,
                    "high": -0.15,
                    "p_adjusted": 0.001,
                    "verdict": "worse",
                },
                {
                    "run": "bm25",
                    "metric": "R@10",
                    "delta": -0.2,
                    "low": -0.25,
                    "high": -0.15,
                    "p_adjusted": 0.001,
                    "verdict": "worse",
                },
                {
                    "run": "bm25",
                    "metric": "Judged@10",
                    "delta": 0.0,
                    "low": 0.0,
                    "high": 0.0,
                    "p_adjusted": None,
                    "verdict": None,
                },
            ]
        },
    )
    (result,) = check_gates(single, parse_rules(fail_on=["worse"]))  # the primary metric only
    assert (result.run, result.metric, result.passed) == ("bm25", "nDCG@10", False)
    assert result.figure == (
        "against the previous report: verdict clearly worse: difference -0.200, band -0.250 to -0.150, "
        "corrected p 0.001"
    )


def test_max_drop_says_why_there_is_no_difference():
    with pytest.raises(UsageError, match="'bm25' is the baseline"):
        check_gates(DOCUMENT, parse_rules(max_drop=["bm25:nDCG@10=0.02"]))
    with pytest.raises(UsageError, match=r"P@10 is not compared \(the comparison holds nDCG@10, R@10;"):
        check_gates(DOCUMENT, parse_rules(max_drop=["P@10=0.02"]))


def test_a_count_takes_any_threshold_and_a_rule_given_twice_is_checked_once():
    rules = parse_rules(require=["NumRet>=5000", "NumRet>=5000"], max_drop=["nDCG@10=0.5", "nDCG@10=0.5"])
    assert [r.threshold for r in rules.require] == [5000.0] and len(rules.max_drop) == 1


def test_the_gate_table_does_not_count_a_line_that_reads_nothing():
    from ragreport.output.site.view.build import gates_view

    single = dict(DOCUMENT, runs=DOCUMENT["runs"][:1], comparisons=[], comparison=None)
    view = gates_view(check_gates(single, parse_rules(fail_on=["worse"], require=["nDCG@10>=0.3"])))
    assert view.summary == "The gate check passed." and len(view.rows) == 2
    alone = gates_view(check_gates(single, parse_rules(fail_on=["worse"])))
    assert alone.summary == "No gate check applies to this report."


def _audited(document, runs, comparisons, queries=40):
    """``document`` with an audit of ``queries`` queries: ``runs`` {run: {metric: corrected figure}},
    ``comparisons`` [(run, metric, delta, low, high, p_adjusted, verdict)] corrected."""
    return dict(
        document,
        audit={
            "queries": queries,
            "runs": {
                run: {m: {"queries": queries, "corrected": _figure(*f)} for m, f in figures.items()}
                for run, figures in runs.items()
            },
            "comparisons": [
                {
                    "run": run,
                    "metric": metric,
                    "corrected": {"delta": d, "low": lo, "high": hi, "p_adjusted": p, "verdict": v},
                }
                for run, metric, d, lo, hi, p, v in comparisons
            ],
        },
    )


def test_with_an_audit_require_reads_the_corrected_band_and_says_so():
    # dense passes nDCG@10>=0.40 on the model's labels (lower bound 0.41) and fails once corrected
    # (0.37); splade fails on the model's labels (0.33) and passes once corrected (0.42).
    document = _audited(
        DOCUMENT, {"dense": {"nDCG@10": (0.40, 0.37, 0.43)}, "splade": {"nDCG@10": (0.45, 0.42, 0.48)}}, []
    )
    plain = check_gates(DOCUMENT, parse_rules(require=["nDCG@10>=0.40"]))
    assert [(r.run, r.passed) for r in plain] == [("bm25", False), ("dense", True), ("splade", False)]
    results = check_gates(document, parse_rules(require=["nDCG@10>=0.40"]))
    assert [(r.run, r.value, r.passed) for r in results] == [
        ("bm25", 0.38, False),  # the audit holds no bm25 figure: the model's, said as before
        ("dense", 0.37, False),
        ("splade", 0.42, True),
    ]
    assert results[0].figure == "lower band bound 0.380 < 0.40 (mean 0.410; to gate the mean: mean:nDCG@10>=0.40)"
    assert results[1].line == (
        "FAIL  require nDCG@10>=0.40  dense nDCG@10: lower band bound 0.370 < 0.40 (mean 0.400; to gate the "
        "mean: mean:nDCG@10>=0.40) (corrected by the audit of 40 queries)"
    )
    on_mean = check_gates(document, parse_rules(require=["mean:dense:nDCG@10>=0.41"]))
    assert [(r.value, r.passed) for r in on_mean] == [(0.40, False)]  # model mean 0.45 would pass
    # A measure the audit does not correct (R@100) is read on the model's labels, with no claim.
    (r100,) = check_gates(document, parse_rules(require=["dense:R@100>=0.7"]))
    assert r100.value == 0.75 and "corrected" not in r100.line


def test_with_an_audit_fail_on_worse_reads_the_corrected_verdict_and_says_so():
    # splade: clearly worse on the model's labels, no clear difference once corrected (passes);
    # dense: clearly better on the model's labels, clearly worse once corrected (fails).
    document = _audited(
        DOCUMENT,
        {},
        [
            ("dense", "nDCG@10", -0.03, -0.05, -0.01, 0.004, "worse"),
            ("splade", "nDCG@10", -0.01, -0.04, 0.02, 0.6, "unclear"),
        ],
        queries=25,
    )
    plain = check_gates(DOCUMENT, parse_rules(fail_on=["worse"]))
    assert [(r.run, r.passed) for r in plain] == [("dense", True), ("splade", False)]
    results = check_gates(document, parse_rules(fail_on=["worse"]))
    assert [(r.run, r.value, r.passed) for r in results] == [("dense", -0.03, False), ("splade", -0.01, True)]
    assert results[0].line == (
        "FAIL  fail-on worse  dense nDCG@10: verdict clearly worse: difference -0.030, band -0.050 to -0.010, "
        "corrected p 0.004 (corrected by the audit of 25 queries)"
    )
    assert results[1].line.startswith(
        "PASS  fail-on worse  splade nDCG@10: verdict no clear difference: difference -0.010"
    )
    # R@10 gated, not corrected by this audit: the model's verdict, said as without an audit.
    r10 = check_gates(document, parse_rules(fail_on=["worse"], gated=["R@10"]))
    assert [(r.run, r.passed) for r in r10] == [("dense", True), ("splade", False)]
    assert all("corrected by the audit" not in r.line for r in r10)


def test_with_an_audit_max_drop_reads_the_corrected_band_against_the_baseline():
    # R@10: dense's band reaches -0.015 on the model's labels (within 0.02) and -0.03 once
    # corrected (beyond); splade's -0.14 and, corrected, -0.01 (within).
    document = _audited(
        DOCUMENT,
        {},
        [
            ("dense", "R@10", 0.01, -0.03, 0.05, 0.6, "unclear"),
            ("splade", "R@10", 0.02, -0.01, 0.05, 0.4, "unclear"),
        ],
    )
    results = check_gates(document, parse_rules(max_drop=["R@10=0.02"]))
    assert [(r.run, r.value, r.passed) for r in results] == [("dense", -0.03, False), ("splade", -0.01, True)]
    assert results[0].figure == (
        "against bm25: lower band bound -0.030 < -0.02 (difference +0.010, band -0.030 to +0.050) "
        "(corrected by the audit of 40 queries)"
    )
    # nDCG@10 is not in this audit: the model's band, with no claim.
    (dense,) = check_gates(document, parse_rules(max_drop=["dense:nDCG@10=0.02"]))
    assert dense.value == 0.01 and "corrected" not in dense.figure


def _trec_files(tmp_path):
    """The judge that favours run b (tests/test_agreement.py's): clearly better on the model's
    labels, clearly worse once corrected by the 20 audited queries; as TREC files."""
    from test_agreement import _favoured

    model, human, runs = _favoured()
    for name, labels in (("model", model), ("human", human)):
        (tmp_path / f"{name}.qrels").write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, grades in labels.items() for d, g in grades.items())
        )
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.trec"
        path.write_text(
            "".join(
                f"{q} Q0 {d} {r + 1} {s} {name}\n"
                for q, docs in run.items()
                for r, (d, s) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1]))
            )
        )
        paths.append(str(path))
    return paths, str(tmp_path / "model.qrels"), str(tmp_path / "human.qrels")


@pytest.mark.parametrize("audited", [False, True])
def test_gates_on_the_corrected_figures_from_the_command_line(tmp_path, capsys, audited):
    from ragreport.cli import main

    runs, model, human = _trec_files(tmp_path)
    args = ["score", *runs, "--qrels", model, "-k", "3", "--permutations", "2000"]
    args += ["--audit", human] if audited else []
    # b is clearly better on the model's labels and clearly worse once corrected.
    code = main([*args, "--fail-on", "worse"])
    out = capsys.readouterr()
    lines = [line for line in (out.out + out.err).splitlines() if "fail-on worse  b nDCG@3" in line]
    assert code == (1 if audited else 0) and len(lines) == 1
    assert lines[0].startswith("ragreport: FAIL" if audited else "ragreport: PASS")
    assert ("(corrected by the audit of 20 queries)" in lines[0]) is audited
    # a's nDCG@3 is about 0.80 on the model's labels and 0.97 once corrected; b's 0.96 and 0.82.
    code = main([*args, "--require", "a:nDCG@3>=0.9"])
    out = capsys.readouterr()
    assert code == (0 if audited else 1)
    code = main([*args, "--require", "b:nDCG@3>=0.9"])
    out = capsys.readouterr()
    (line,) = [line for line in (out.out + out.err).splitlines() if "require b:nDCG@3>=0.9" in line]
    assert code == (1 if audited else 0) and line.startswith("ragreport: FAIL" if audited else "ragreport: PASS")
    assert line.endswith("(corrected by the audit of 20 queries)") is audited


def test_fail_on_worse_than_margin_reads_the_lower_band_bound_against_minus_the_margin():
    results = check_gates(DOCUMENT, parse_rules(fail_on=["worse-than-margin"]))
    # the primary only: dense's band starts at +0.010 > -0.02; splade's at -0.080, a drop of 0.02 not ruled out
    assert [(r.run, r.metric, r.value, r.threshold, r.passed) for r in results] == [
        ("dense", "nDCG@10", 0.01, -0.02, True),
        ("splade", "nDCG@10", -0.08, -0.02, False),
    ]
    assert results[0].line == (
        "PASS  fail-on worse-than-margin  dense nDCG@10: lower band bound +0.010 > -0.02, minus the margin 0.02 "
        "(difference +0.040, band +0.010 to +0.070)"
    )
    assert results[1].figure == (
        "lower band bound -0.080 <= -0.02, minus the margin 0.02 (difference -0.050, band -0.080 to -0.020); "
        "a drop of 0.02 or more cannot be ruled out"
    )
    # The comparison's own margin (--min-effect) is read; a bound on it fails (it reaches the margin),
    # a bound a hair above passes, shown with the digits that keep the relation true.
    near = [
        {**_comparison("dense", "nDCG@10", 0.0, low, 0.01, 0.5, "unclear"), "min_effect": 0.05}
        for low in (-0.05, -0.0499)
    ]
    at, above = check_gates(dict(DOCUMENT, comparisons=near), parse_rules(fail_on=["worse-than-margin"]))
    assert (at.passed, above.passed) == (False, True)
    assert at.figure.startswith("lower band bound -0.050 <= -0.05, minus the margin 0.05 ")
    assert above.figure.startswith("lower band bound -0.0499 > -0.05, minus the margin 0.05 ")
    single = dict(DOCUMENT, runs=DOCUMENT["runs"][:1], comparisons=[], comparison=None)
    (alone,) = check_gates(single, parse_rules(fail_on=["worse-than-margin"]))
    assert alone.passed and "no baseline to be worse than" in alone.line


def test_a_detected_drop_below_the_margin_still_fails_fail_on_worse():
    small = _comparison("splade", "nDCG@10", -0.004, -0.006, -0.002, 0.001, "worse below margin")
    document = dict(DOCUMENT, comparisons=[small])
    (result,) = check_gates(document, parse_rules(fail_on=["worse"]))
    assert not result.passed and result.figure.startswith("verdict worse, below the margin: difference -0.004")
    # ... and passes the non-inferiority gate, whose margin it stays inside
    (margin,) = check_gates(document, parse_rules(fail_on=["worse-than-margin"]))
    assert margin.passed
