"""Hostile input, second round (docs/conventions.md section 23.5): the gates' thresholds and
``--confidence`` follow the one number grammar (ragreport/core/grammar.py), as every reader does."""

from __future__ import annotations

import pytest

from ragreport.cli import main
from ragreport.core.errors import ArgumentError
from ragreport.core.grammar import read_number
from ragreport.output.exports.gates import parse_rules


@pytest.mark.parametrize(
    "text", ["0_1", "1_0", "\u0660.\u0665", "\uff10.\uff15", "nan", "inf", "0x1p3", "1 0", "", "+", "."]
)
def test_what_the_grammar_refuses_python_would_read_for_some(text):
    assert read_number(text) is None


@pytest.mark.parametrize(
    ("text", "value"), [("0.5", 0.5), ("-3", -3.0), (".5", 0.5), ("1e-3", 1e-3), ("2.0E+2", 200.0), (" 1 ", 1.0)]
)
def test_what_the_grammar_reads(text, value):
    assert read_number(text) == value


@pytest.mark.parametrize("threshold", ["0_1", "\u0660.\u0665", "\uff10.\uff15", "nan", "0x1p-2"])
def test_a_gate_threshold_outside_the_grammar_is_refused(threshold):
    with pytest.raises(ArgumentError, match="expected a number after the operator"):
        parse_rules((), [f"nDCG@10>={threshold}"], ())
    with pytest.raises(ArgumentError, match="expected a number after the operator"):
        parse_rules((), (), [f"nDCG@10={threshold}"])


def test_a_gate_threshold_in_the_grammar_is_read():
    rules = parse_rules((), ["nDCG@10>=0.25", "P@10<1e-0"], ["nDCG@10=.05"])
    assert [r.threshold for r in rules.require] == [0.25, 1.0]
    assert [d.drop for d in rules.max_drop] == [0.05]


@pytest.mark.parametrize("value", ["0_95", "\u0660.\u0669\u0665", "\uff10.\uff19"])
def test_confidence_follows_the_grammar(capsys, value):
    with pytest.raises(SystemExit) as stop:
        main(["--no-config", "score", "--confidence", value])
    assert stop.value.code == 2 and "--confidence: expected a number between 0 and 1" in capsys.readouterr().err


def test_a_config_files_gate_is_held_to_the_grammar_with_its_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ragreport.toml").write_text('k = 5\nrequire = ["nDCG@5>=0_1"]\n')
    code = main(["score"])
    err = capsys.readouterr().err
    assert code == 2 and "expected a number after the operator, got '0_1'" in err and len(err.strip().splitlines()) == 1
