"""Conventions and run metadata objects."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ragreport.core.model import Choice, Conventions, Denominator, Gain, Missing, Order, RunMeta


def test_every_choice_states_its_meaning_and_the_alternative():
    for enum in (Denominator, Gain, Missing, Order):
        for member in enum:
            assert isinstance(member, Choice) and member.meaning.endswith(".") and member.alternative.endswith(".")
            assert enum(member.value) is member


def test_gains():
    grades = np.array([-1, 0, 1, 2, 3])
    assert Gain.LINEAR.apply(grades).tolist() == [0, 0, 1, 2, 3]
    assert Gain.EXP.apply(grades).tolist() == [0, 0, 1, 3, 7]


@pytest.mark.parametrize("kwargs", [{"confidence": 1.0}, {"confidence": 0.0}, {"resamples": 0}, {"seed": -1}])
def test_conventions_refuse_impossible_values(kwargs):
    with pytest.raises(ValueError):
        Conventions(**kwargs)


def test_meta_as_dict_puts_known_keys_first_and_keeps_the_rest():
    meta = RunMeta(name="x", date=dt.date(2026, 1, 2), extra=(("when", dt.date(2025, 5, 6)), ("tags", ["a"])))
    assert meta.as_dict() == {"name": "x", "date": "2026-01-02", "when": "2025-05-06", "tags": ["a"]}
