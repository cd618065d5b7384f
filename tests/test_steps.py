"""Multi-hop steps (RAG JSONL ``steps``): the union scored, and what each hop added, worked by hand."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from helpers import lists_of

from ragreport.analysis.evaluation import score_and_summarise
from ragreport.analysis.intervals import bootstrap_interval
from ragreport.analysis.limits import union_scored
from ragreport.core.errors import InputError
from ragreport.core.model import Conventions, RetrieverKind, Run, RunMeta
from ragreport.reading.registry import load_runs
from ragreport.scoring.join import join

# q1: hop 1 finds d1 d2, hop 2 d2 again and d3 d4: the union d1 d2 d3 d4 (lengths 2, 4); d3 is relevant.
# q2: hop 1 finds the relevant d5, hop 2 d6. q3: one hop (lengths 2, 2). q4: a plain list, no relevant id found.
LINES = [
    {"id": "q1", "steps": [["d1", "d2"], ["d2", "d3", "d4"]], "relevant": ["d3", "d9"]},
    {"id": "q2", "steps": [["d5"], ["d6"]], "relevant": ["d5"]},
    {"id": "q3", "steps": [["d7", "d8"]], "relevant": ["d8"]},
    {"id": "q4", "retrieved": ["x"], "relevant": ["y"]},
]


def _loaded(write, lines=LINES):
    (loaded,) = load_runs([write("hops.jsonl", "".join(json.dumps(line) + "\n" for line in lines))])
    return loaded


def test_the_union_in_first_appearance_order_and_its_length_after_each_hop(write):
    run = _loaded(write).run
    assert lists_of(run) == {"q1": ["d1", "d2", "d3", "d4"], "q2": ["d5", "d6"], "q3": ["d7", "d8"], "q4": ["x"]}
    assert run.steps.tolist() == [[2, 4], [1, 2], [2, 2], [1, 1]]
    plain = _loaded(write, [LINES[3]]).run
    assert plain.steps is None  # no line gave steps: one step


def test_recall_and_hit_after_each_hop_worked_by_hand(write):
    loaded = _loaded(write)
    summary = score_and_summarise(join(loaded.run, loaded.judgments), 3, Conventions())
    steps = summary.steps
    # K = 3. After hop 1: q1 holds d1 d2 (no relevant id), q2 d5 (1 of 1), q3 d7 d8 (1 of 1), q4 nothing
    # relevant: Recall (0 + 1 + 1 + 0) / 4 = 0.5, Hit 2 of 4. After hops 1-2: q1's top 3 is d1 d2 d3,
    # 1 of its 2 relevant ids: Recall (0.5 + 1 + 1 + 0) / 4 = 0.625, Hit 3 of 4.
    assert [r.mean for r in steps.recall] == [0.5, 0.625]
    assert [h.mean for h in steps.hit] == [0.5, 0.75]
    # Wilson at 95%, z = 1.959964, z^2 / n = 0.960365: 2 of 4 is centred at 0.5 with half-width
    # 0.999795 * sqrt(0.0625 + 0.060023) = 0.349961; 3 of 4 at (0.75 + 0.480182) / 1.960365 = 0.627528
    # with half-width 0.999795 * sqrt(0.046875 + 0.060023) = 0.326887.
    assert (steps.hit[0].low, steps.hit[0].high) == pytest.approx((0.150039, 0.849961), abs=2e-6)
    assert (steps.hit[1].low, steps.hit[1].high) == pytest.approx((0.300641, 0.954414), abs=2e-6)
    # Recall's band: the bootstrap of the per-query values in query id order, q1..q4.
    _, low, high = bootstrap_interval(np.array([0.5, 1.0, 1.0, 0.0]))
    assert (steps.recall[1].low, steps.recall[1].high) == (low[0], high[0])
    # The last hop's figures are the run's own; 3 relevant ids found in all, d3 by hop 2 alone: 1 of 3.
    assert steps.recall[-1].mean == summary.at_k["R@3"].mean and steps.hit[-1].mean == summary.at_k["Hit@3"].mean
    assert steps.found == (2, 3) and steps.later == pytest.approx(1 / 3)
    text = union_scored(summary, None).text
    assert "The run gives its steps" in text and "1 of the 3 relevant ids in the top 3" in text
    single = replace(summary, judged=replace(summary.judged, meta=RunMeta(retriever_kind=RetrieverKind.SINGLE)))
    assert union_scored(single, None).text.startswith("The run gives its steps")  # not "the retriever is single"


def test_each_hop_scores_as_a_plain_run_of_its_union(write):
    """The figures after hop 1 against a run that lists only hop 1's ids, scored the ordinary way."""
    loaded = _loaded(write)
    summary = score_and_summarise(join(loaded.run, loaded.judgments), 1, Conventions())
    hop1 = Run.from_lists("hop1", [("q1", ["d1", "d2"]), ("q2", ["d5"]), ("q3", ["d7", "d8"]), ("q4", ["x"])])
    alone = score_and_summarise(join(hop1, loaded.judgments), 1, Conventions())
    assert summary.steps.recall[0].mean == alone.at_k["R@1"].mean == 0.25  # q2 alone: d5 at rank 1
    assert summary.steps.hit[0].mean == alone.at_k["Hit@1"].mean


def test_steps_errors_name_the_line(write):
    for line, expected in [
        ({"id": "q1", "steps": [["a"]], "retrieved": ["a"], "relevant": ["a"]}, "'retrieved' or 'steps'"),
        ({"id": "q1", "steps": ["a", "b"], "relevant": ["a"]}, "'steps' as a list of hops, each a list of ids"),
        ({"id": "q1", "steps": [], "relevant": ["a"]}, "got no hop"),
    ]:
        path = write("bad.jsonl", json.dumps(LINES[1]) + "\n" + json.dumps(line) + "\n")
        with pytest.raises(InputError) as caught:
            load_runs([path])
        assert str(caught.value).startswith(f"{path}:2: expected {expected}") or expected in str(caught.value)


def test_the_run_page_and_report_json_carry_the_steps(write, tmp_path):
    from ragreport.cli import main

    run = write("hops.jsonl", "".join(json.dumps(line) + "\n" for line in LINES))
    out = tmp_path / "site"
    assert main(["build", str(run), "-k", "3", "--out", str(out)]) == 0
    (stored,) = json.loads((out / "report.json").read_text())["runs"]
    assert [h["hit"]["mean"] for h in stored["steps"]["hops"]] == [0.5, 0.75]
    assert [h["recall"]["mean"] for h in stored["steps"]["hops"]] == [0.5, 0.625]
    assert stored["steps"]["found_by_a_later_hop"] == pytest.approx(1 / 3)
    page = "".join(p.read_text() for p in out.rglob("*.html"))
    assert "Of the 3 relevant ids in the top 3, 1 were found only by a later hop" in page
    assert '<th scope="row">1-2</th>' in page and "[0.301, 0.954]" in page


def test_render_draws_the_steps_again_from_report_json(write, tmp_path):
    from ragreport.cli import main

    run = write("hops.jsonl", "".join(json.dumps(line) + "\n" for line in LINES))
    built, again = tmp_path / "built", tmp_path / "again"
    assert main(["build", str(run), "-k", "3", "--out", str(built)]) == 0
    stored = json.loads((built / "report.json").read_text())
    assert stored["runs"][0]["steps"]["ends"] == [[2, 4], [1, 2], [2, 2], [1, 1]]
    assert main(["render", str(built / "report.json"), "--out", str(again)]) == 0
    assert (again / "report.json").read_text() == (built / "report.json").read_text()
    assert (again / "run-hops.html").read_text() == (built / "run-hops.html").read_text()
    stored["runs"][0]["steps"]["ends"] = [[2, 4]]  # one row for four queries
    (tmp_path / "bad.json").write_text(json.dumps(stored))
    with pytest.raises(InputError, match="'steps.ends': a list of 4 equal lists of whole numbers"):
        from ragreport.api import reanalyse

        reanalyse(tmp_path / "bad.json")
