"""The pages past PAGE_QUERIES queries (docs/conventions.md section 29.1): each run's table and the
query view list a stated sample, said on the page; every figure still reads every query."""

from __future__ import annotations

import base64
import gzip
import json
import random
from collections import Counter

import numpy as np
import pytest
from sitetools import Page

from ragreport.analysis import shown as shown_module
from ragreport.analysis.poisson import GOLDEN, query_keys
from ragreport.analysis.shown import SHOWN_STREAM, sample_keys, shown_queries
from ragreport.api import analyse, evaluate
from ragreport.output.exports.reportjson.write import report_document
from ragreport.output.site.pages import query_table_id
from ragreport.output.site.queryview import query_view_data
from ragreport.output.site.render import prepare, render_site
from ragreport.output.site.view.build import build_view
from ragreport.output.site.wording.report import sample_note

N = 300
#: Each query's rank of its one relevant id (0: not in the top 3) in the baseline and the candidate;
#: every other query ranks it first in both (no difference).
RANKS = {
    **{q: (0, 1) for q in ("q7", "q11", "q100", "q250", "q3", "q200")},  # wins of 1
    "q50": (3, 1),  # a win of 0.5
    "q20": (1, 0),  # losses of 1
    "q21": (1, 0),
    "q40": (1, 3),  # -0.5
    "q30": (1, 2),  # -0.369
    "q41": (2, 3),  # -0.131
}
#: With 5 a side: the wins by size, ties by id (six of 1: "q7" is the sixth), and the losses.
WINS = ["q100", "q11", "q200", "q250", "q3"]
LOSSES = ["q20", "q21", "q40", "q30", "q41"]


def _run(which: int, order: list[int]) -> dict[str, dict[str, float]]:
    run = {}
    for i in order:
        q = f"q{i}"
        rank = RANKS.get(q, (1, 1))[which]
        docs = [f"x{i}-{j}" for j in range(4)]
        if rank:
            docs.insert(rank - 1, f"d{i}")
        run[q] = {doc: float(10 - r) for r, doc in enumerate(docs)}
    return run


def _analysis(order=None, runs=("base", "cand"), names=("base", "cand")):
    order = list(range(N)) if order is None else order
    qrels = {f"q{i}": {f"d{i}": 1} for i in order}
    chosen = {names[which]: _run(which, order) for which, name in enumerate(("base", "cand")) if name in runs}
    return analyse(evaluate(chosen, qrels=qrels, k=3), baseline=names[0], permutations=200)


@pytest.fixture
def sampled(monkeypatch):
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 50)
    monkeypatch.setattr(shown_module, "SHOWN_QUERIES", 40)
    monkeypatch.setattr(shown_module, "EXTREME_QUERIES", 5)


def test_up_to_page_queries_every_query_is_listed():
    assert shown_queries(_analysis()) is None  # 300 queries, far below 100,000


def test_the_largest_wins_and_losses_then_a_seeded_uniform_draw(sampled):
    analysis = _analysis()
    sample = shown_queries(analysis)
    assert sample is not None and analysis.primary_label == "nDCG@3"
    assert (sample.total, sample.each, sample.wins, sample.losses, sample.drawn) == (N, 5, 5, 5, 28)
    ids = set(sample.ids.tolist())
    assert set(WINS) | set(LOSSES) <= ids
    # The movers the comparison's tables list past the 5 a side, which link to the query view: the
    # sixth win of 1 and the win of 0.5 (there are 5 losses in all).
    assert sample.cited == 2 and {"q7", "q50"} <= ids
    # The rest: the 28 queries of smallest sample key among the others, ties (none here) by id.
    rest = np.array(sorted({f"q{i}" for i in range(N)} - set(WINS) - set(LOSSES) - {"q7", "q50"}))
    keys = sample_keys(rest, analysis.summaries[0].conventions.seed)
    assert ids == set(WINS) | set(LOSSES) | {"q7", "q50"} | set(rest[np.argsort(keys)[:28]].tolist())
    assert sample.ids.tolist() == sorted(ids) and len(ids) == 40


def test_one_run_lists_its_highest_and_lowest_values(sampled):
    sample = shown_queries(_analysis(runs=("base",)))
    assert sample is not None and (sample.compared, sample.wins, sample.losses, sample.drawn) == (0, 5, 5, 30)
    # The highest, nDCG 1 (ties by id), and the lowest, nDCG 0 (the six the baseline misses, by id).
    assert {"q0", "q1", "q10", "q101", "q102"} <= set(sample.ids.tolist())
    assert {"q100", "q11", "q200", "q250", "q3"} <= set(sample.ids.tolist())


def test_the_sample_does_not_depend_on_the_order_of_the_files(sampled):
    shuffled = list(range(N))
    random.Random(3).shuffle(shuffled)
    assert shown_queries(_analysis(shuffled)).ids.tolist() == shown_queries(_analysis()).ids.tolist()


def test_the_sample_key_is_the_query_key_mixed_with_its_own_stream():
    mask = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    r0 = mix((SHOWN_STREAM + GOLDEN) & mask)
    key = int(query_keys(np.array(["q7"]), 5)[0])
    assert int(sample_keys(np.array(["q7"]), 5)[0]) == mix(key ^ r0)


def _site(analysis):
    view = build_view(analysis)
    return view, render_site(prepare(view, report_document(analysis)))


def _unpacked(page: Page) -> dict:
    block = next(v for k, v in page.data_blocks.items() if k.startswith("queryview-"))
    return json.loads(gzip.decompress(base64.b64decode(block)))


def test_the_pages_list_the_sample_say_so_and_keep_every_figure(sampled, monkeypatch):
    analysis = _analysis()
    sample = shown_queries(analysis)
    view, files = _site(analysis)
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 100_000)
    whole_view, whole = _site(_analysis())
    # Every file but the pages that list queries is the same, report.json (every query) included.
    listing = {"queries.html", *(f"run-{r.slug}.html" for r in view.runs)}
    assert set(files) == set(whole) and listing <= set(files)
    assert {p: files[p] for p in files if p not in listing} == {p: whole[p] for p in whole if p not in listing}
    said = (
        "This table shows 40 of the 300 queries: the 5 largest wins and the 5 largest losses against base on "
        "nDCG@3, 2 other queries the report points to (movers, slice examples, texts) and 28 drawn at random "
        "(the same for every run). report.json holds them all."
    )
    for run, whole_run in zip(view.runs, whole_view.runs):
        page = Page(files[f"run-{run.slug}.html"].decode("utf-8"))
        rows = json.loads(page.json_blocks[query_table_id(run)])["rows"]
        assert sorted(row[0] for row in rows) == sample.ids.tolist()  # the same queries for every run
        assert said in " ".join(" ".join(page.text_parts).split())
        assert page.source.count('class="sample-note"') == 1
        # The figures and the statuses' counts read every query.
        assert (run.metrics, run.suite, run.measures, run.verdict) == (
            whole_run.metrics,
            whole_run.suite,
            whole_run.measures,
            whole_run.verdict,
        )
        # The filter counts the listed rows out of every query's: "partial (12 of 140)".
        listed = Counter(row[1] for row in rows)  # each row's status code, the option's value
        assert [o.count for o in run.queries.status_options] == [
            f"{listed.get(o.value, 0)} of {o.count}" for o in whole_run.queries.status_options
        ]
        assert run.queries.total == f"{len(rows)} of {whole_run.queries.total}"
        whole_rows = {r[0]: r for r in json.loads(json.dumps(whole_run.queries.data["rows"]))}
        assert all(row == whole_rows[row[0]] for row in rows)
    page = Page(files["queries.html"].decode("utf-8"))
    assert said.replace("This table shows", "This view holds") in " ".join(" ".join(page.text_parts).split())
    data = _unpacked(page)
    assert data["queries"]["id"] == sample.ids.tolist()
    assert data["words"]["unknown"].startswith("No query this view holds has that id: it holds 40 of the 300")


def _resolved(data: dict) -> dict[str, tuple]:
    """Each query's lists with the document numbers read back as ids."""
    q, docs = data["queries"], data["docs"]
    return {
        qid: (
            [[docs[n] for n in top[i]] if top[i] is not None else None for top in q["tops"]],
            [(docs[n], g) for n, g in q["judged"][i]],
            [values[i] for values in q["values"]],
            q["relevant"][i],
            q["unshown"][i],
        )
        for i, qid in enumerate(q["id"])
    }


def test_the_query_views_sampled_queries_are_as_the_whole_view_shows_them(sampled):
    analysis = _analysis()
    sample = shown_queries(analysis)
    part, whole = _resolved(query_view_data(analysis, None, sample)), _resolved(query_view_data(analysis))
    assert list(part) == sample.ids.tolist() and all(part[q] == whole[q] for q in part)


def test_the_baselines_name_in_the_sentence_is_escaped_and_isolated(sampled):
    hostile = '<img src=x onerror="alert(1)">&amp;'
    view, files = _site(_analysis(names=(hostile, "cand")))
    page = files["queries.html"].decode("utf-8")
    escaped = '<bdi class="mono">&lt;img src=x onerror=&#34;alert(1)&#34;&gt;&amp;amp;</bdi> on nDCG@3'
    assert escaped in page and "<img" not in page
    for run in view.runs:
        assert escaped in files[f"run-{run.slug}.html"].decode("utf-8")


def test_the_queries_the_slices_cite_are_in_the_sample_and_said(sampled):
    """A slice's example links into the query view: the sample holds it, and the sentence counts it."""
    order = list(range(N))
    qrels = {f"q{i}": {f"d{i}": 1} for i in order}
    runs = {name: _run(which, order) for which, name in enumerate(("base", "cand"))}
    meta = {f"q{i}": {"lang": "en" if i % 7 else "de"} for i in order}
    analysis = analyse(
        evaluate(runs, qrels=qrels, k=3), baseline="base", permutations=200, query_meta=meta, slice_by=["lang"]
    )
    examples = {q for s in analysis.slices.slices for q in s.examples}
    assert examples
    sample = shown_queries(analysis)
    assert examples <= set(sample.ids.tolist())
    cited = (examples | {"q7", "q50"}) - set(WINS) - set(LOSSES)  # and the movers past the 5 a side
    assert sample.cited == len(cited) > 0
    assert len(sample.ids) == 40 and sample.drawn == 40 - 10 - len(cited)
    assert f"{len(cited)} other quer" in str(sample_note("This table shows", sample))
