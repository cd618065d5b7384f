"""reading.load: every run with its judgments, metadata and a unique name; the sample by default."""

from __future__ import annotations

import numpy as np
import pytest

from ragreport.core.errors import UsageError
from ragreport.reading.load import load_runs, sample_path

RUN_LINE = "q1 Q0 d1 1 1.0 tag\n"


def test_trec_run_without_qrels(write):
    with pytest.raises(UsageError, match="needs judgments: give them with --qrels FILE"):
        load_runs([write("run.txt", RUN_LINE)])


def test_two_runs_with_one_name(write, tmp_path):
    line = '{"id": "a", "retrieved": [], "relevant": ["x"]}\n'
    first, second = write("a/run.jsonl", line), write("b/run.jsonl", line)
    with pytest.raises(UsageError, match="two runs are named 'run'"):
        load_runs([first, second])


def test_loaded_arrays_are_read_only(write):
    (loaded,) = load_runs([write("r.jsonl", '{"id": "a", "retrieved": ["x"], "relevant": ["x"]}\n')])
    with pytest.raises(ValueError):
        loaded.judgments.grades[0] = 5
    assert isinstance(loaded.run.offsets, np.ndarray)


def test_no_input_is_the_preloaded_sample_with_a_source_alike_on_every_machine():
    (loaded,) = load_runs([])
    assert sample_path().is_file()
    assert loaded.run.name == "sample"
    assert loaded.run.source == "preloaded sample (ragreport/sample/sample.jsonl)"
