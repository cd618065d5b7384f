"""Measure names in every supported spelling, parsed once; R-precision and the counts by hand."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import judged_run

from ragreport.core.errors import UsageError
from ragreport.core.model import Conventions, Gain
from ragreport.scoring.catalogue import CATALOGUE, TOOLS, CutoffRule, ValueKind
from ragreport.scoring.measures import (
    VALID_FORMS,
    Measure,
    default_trec_measures,
    parse_measure,
    parse_measures,
    score_measures,
    trec_sort_key,
)


@pytest.mark.parametrize(
    "names, expected",
    [
        (["P_5", "P.5", "P@5", "precision@5"], [Measure("P", 5)]),
        (["ndcg_cut_10", "ndcg_cut.10", "nDCG@10", "ndcg@10"], [Measure("nDCG", 10)]),
        (["map_cut_100", "map_cut.100", "AP@100", "map@100"], [Measure("AP", 100)]),
        (["recall_1000", "recall.1000", "R@1000", "recall@1000"], [Measure("R", 1000)]),
        (["success_5", "success.5", "Success@5", "hit_rate@5", "Hit@5"], [Measure("Hit", 5)]),
        (["recip_rank", "RR", "mrr"], [Measure("RR")]),
        (["RR@10", "mrr@10"], [Measure("RR", 10)]),
        (["Rprec", "r-precision"], [Measure("Rprec")]),
        (["map", "AP"], [Measure("AP")]),
        (["num_rel", "NumRel"], [Measure("NumRel")]),
    ],
)
def test_every_spelling_parses_to_one_measure(names, expected):
    for name in names:
        assert list(parse_measures([name])) == expected, name


def test_lists_repeats_and_trec_eval_cutoff_lists():
    parsed = parse_measures(["P.5,10,ndcg_cut.10", "P@5"])
    assert parsed == (Measure("P", 5), Measure("P", 10), Measure("nDCG", 10))
    assert parse_measures(["ndcg_burges@10"]) == (Measure("nDCG", 10, Gain.EXP),)


@pytest.mark.parametrize(
    "name, message",
    [
        ("bleu@4", "unknown measure 'bleu@4' (every name each tool spells: docs/metrics.md)"),
        ("nDGC@10", "unknown measure 'nDGC@10'; did you mean nDCG@10? (every name"),
        ("ndgc_cut_10", "unknown measure 'ndgc_cut_10'; did you mean ndcg_cut_10? (every name"),
        ("reciprank", "unknown measure 'reciprank'; did you mean recip_rank? (every name"),
        ("precison@5", "unknown measure 'precison@5'; did you mean precision@5? (every name"),
        # rbp and RBP differ only in case (trec_eval's p = 0.9, ir_measures' 0.8): read as spelt only
        ("rbpp", "unknown measure 'rbpp'; did you mean RBP? (every name"),
        ("rbpp@10", "unknown measure 'rbpp@10'; did you mean RBP@10? (every name"),
        ("P", "measure 'P' needs a cutoff"),
        ("recip_rank@5", "measure 'recip_rank@5' takes no cutoff"),
        ("P@x", "the cutoff after '@' must be a whole number"),
        ("5,P@5", "starts with a number"),
    ],
)
def test_unknown_or_malformed_names_list_the_valid_forms(name, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_measures([name])


def test_the_cli_reports_an_unknown_measure_in_one_short_line(capsys):
    from ragreport.cli import main

    assert main(["score", "--metrics", "nDGC@10"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "ragreport: error: unknown measure 'nDGC@10'; did you mean nDCG@10? "
        "(every name each tool spells: docs/metrics.md)\n"
    )


def test_trec_names_and_order():
    c = Conventions()
    assert [m.trec_eval_name(c) for m in parse_measures(["P@5", "RR", "RR@5", "AP", "CP@5", "ndcg_burges@3"])] == [
        "P_5",
        "recip_rank",
        None,
        "map",
        None,
        None,
    ]
    shuffled = [Measure("Hit", 5), Measure("P", 10), Measure("NumRet"), Measure("nDCG"), Measure("P", 5)]
    assert sorted(shuffled, key=trec_sort_key) == [
        Measure("NumRet"),
        Measure("P", 5),
        Measure("P", 10),
        Measure("nDCG"),
        Measure("Hit", 5),
    ]
    assert default_trec_measures([5])[0] == Measure("NumQ")


def test_rprec_and_counts_by_hand():
    # R = 3 (a, b, c); the list holds a, x, b, a (a repeat), y, c: two relevant in the top 3, three in all.
    judged = judged_run([("q", ["a", "x", "b", "a", "y", "c"], {"a": 1, "b": 2, "c": 1, "z": 0})])
    values = score_measures(judged, parse_measures(["Rprec,num_rel,num_ret,num_rel_ret,num_q"]), Conventions())
    assert values[:, 0].tolist() == pytest.approx([2 / 3, 3, 6, 3, 1])


def test_whole_list_measures_reach_past_every_cutoff():
    judged = judged_run([("q", [f"x{i}" for i in range(30)] + ["a"], {"a": 1})])
    rr, ap, ndcg = score_measures(judged, parse_measures(["recip_rank,map,ndcg"]), Conventions())[:, 0]
    assert rr == pytest.approx(1 / 31) and ap == pytest.approx(1 / 31)
    assert ndcg == pytest.approx(1 / __import__("math").log2(32))


def _parsed(metric, text):
    """The measure a name parses to; an entry with a companion (RBP: its residual) brings it after."""
    parsed = parse_measures([text])
    assert len(parsed) == 1 + (metric.companion is not None), text
    return parsed[0]


@pytest.mark.parametrize("metric", CATALOGUE, ids=lambda m: m.key)
def test_every_declared_spelling_parses_to_its_entry_and_is_listed(metric):
    defaults = metric.defaults()
    for tool in TOOLS:
        for spelling in metric.spellings(tool):
            rule = metric.rule(spelling)
            fixed = tuple(sorted((n, v) for n, v in spelling.params if v != defaults.get(n)))
            if metric.at != "cutoff":  # IPrec: the number after @ is the recall level
                text = f"{spelling.name}_0.50" if tool == "trec_eval" else f"{spelling.name}@0.5"
                assert _parsed(metric, text) == Measure(metric.key, None, None, ((metric.at, 0.5),)), text
                continue
            if rule.allows(7):
                cut = f"{spelling.name}_7" if tool == "trec_eval" else f"{spelling.name}@7"
                assert _parsed(metric, cut) == Measure(metric.key, 7, spelling.gain, fixed), cut
                assert f"{cut[:-1]}5" in VALID_FORMS.split(f"{tool}: ")[1].split(";")[0], cut
            if rule.allows(None):
                assert _parsed(metric, spelling.name) == Measure(metric.key, None, spelling.gain, fixed), spelling.name
            if rule is CutoffRule.REQUIRED:
                with pytest.raises(UsageError, match="needs a cutoff"):
                    parse_measures([spelling.name])


@pytest.mark.parametrize("metric", CATALOGUE, ids=lambda m: m.key)
def test_measures_take_their_band_and_kind_from_the_catalogue(metric):
    measure = Measure(metric.key, None if metric.cutoff is CutoffRule.FORBIDDEN else 3)
    assert measure.metric is metric and measure.interval is metric.interval
    assert measure.is_count == (metric.kind is ValueKind.COUNT)


def test_every_whole_list_measure_has_one_value_at_every_cutoff():
    judged = judged_run(
        [("q", ["a", "x", "b", "a", "y", "c"], {"a": 1, "b": 2, "c": 1}), ("r", ["z"], {"z": 1, "w": 3})]
    )
    from ragreport.scoring.metrics import score

    whole = [m for m in CATALOGUE if m.cutoff is CutoffRule.FORBIDDEN]
    scores = score(judged, [1, 2], Conventions(), whole, {"recall": 0.5})  # IPrec's level
    assert np.array_equal(scores.values[:, :, 0], scores.values[:, :, 1])
    measures = [Measure(m.key, params=((m.at, 0.5),) if m.at != "cutoff" else ()) for m in whole]
    assert np.array_equal(score_measures(judged, measures, Conventions()), scores.values[:, :, 0])


@pytest.mark.parametrize("name", ["P@100001", "P_100001", "P.100001", "nDCG@" + "9" * 5000])
def test_a_measures_cutoff_is_at_most_the_largest_cutoff(name):
    from ragreport.core.errors import UsageError

    with pytest.raises(UsageError, match="the cutoff must be at most 100,000"):
        parse_measure(name)
    assert parse_measure("P@100000").cutoff == 100_000


def test_a_named_cutoff_takes_ascii_digits_only():
    with pytest.raises(UsageError) as caught:
        parse_measures(["P@\u0663"])
    assert str(caught.value).startswith("unknown measure 'P@\u0663'")
