"""Conventions and run metadata objects."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ragreport.core.model import (
    TREC_EVAL,
    Choice,
    Conventions,
    Denominator,
    Gain,
    Missing,
    Order,
    RelevanceLevel,
    RunMeta,
)


def test_every_choice_states_its_meaning_and_the_alternative():
    for enum in (Denominator, Gain, Missing, Order):
        for member in enum:
            assert isinstance(member, Choice) and member.meaning.endswith(".") and member.alternative.endswith(".")
            assert enum(member.value) is member


def test_gains():
    grades = np.array([-1, 0, 1, 2, 3])
    assert Gain.LINEAR.apply(grades).tolist() == [0, 0, 1, 2, 3]
    assert Gain.EXP.apply(grades).tolist() == [0, 0, 1, 3, 7]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"confidence": 1.0},
        {"confidence": 0.0},
        {"resamples": 0},
        {"seed": -1},
        {"relevance_level": 0},
        {"relevance_level": -2},
    ],
)
def test_conventions_refuse_impossible_values(kwargs):
    with pytest.raises(ValueError):
        Conventions(**kwargs)


def test_meta_as_dict_puts_known_keys_first_and_keeps_the_rest():
    meta = RunMeta(name="x", date=dt.date(2026, 1, 2), extra=(("when", dt.date(2025, 5, 6)), ("tags", ["a"])))
    assert meta.as_dict() == {"name": "x", "date": "2026-01-02", "when": "2025-05-06", "tags": ["a"]}


def test_the_relevance_level_is_a_switch_with_its_sentence_and_alternative():
    for level in (1, 2, 5):
        choice = RelevanceLevel(level)
        assert choice.meaning.endswith(".") and choice.alternative.endswith(".") and choice.value == str(level)
    assert "grade is 2 or more (--relevance-level 2, as trec_eval -l 2)" in RelevanceLevel(2).meaning
    assert dict(Conventions().choices())["relevance_level"] == RelevanceLevel(1)
    assert Conventions().departures() == ()
    assert Conventions(relevance_level=3).departures() == (("relevance_level", RelevanceLevel(3)),)
    assert Conventions(relevance_level=3).as_dict()["relevance_level"] == 3


def test_scaled_exp_gains_are_the_plain_ones_over_two_to_the_top_grade():
    grades = np.array([[-1, 0, 1, 2, 3], [1, 1023, 1024, 0, 0]])
    top = np.array([[3], [1024]])
    assert Gain.EXP.scaled(grades, top)[0].tolist() == [0, 0, 1 / 8, 3 / 8, 7 / 8]
    # (2^1023 - 1) / 2^1024 and (2^1024 - 1) / 2^1024, to double precision; 2^1024 itself overflows.
    assert Gain.EXP.scaled(grades, top)[1].tolist() == [2.0**-1024, 0.5, 1.0, 0, 0]
    assert Gain.LINEAR.scaled(grades, top).tolist() == Gain.LINEAR.apply(grades).tolist()


def test_the_trec_eval_preset_orders_in_single_precision():
    assert TREC_EVAL.order is Order.TREC_EVAL and Order.TREC_EVAL.by_score and Order.SCORE.by_score
    assert not Order.FILE.by_score
