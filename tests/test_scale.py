"""The ten-million-query path at a size CI runs (issue 42, docs/conventions.md section 29): two runs
of 20,000 queries x 10 ids built by ``--engine stream`` in 4 partitions, the pages sampled (their
bound lowered to 10,000 queries so that this size crosses it) and only the sample's rows kept, the
qrels read by spans (section 29.3), against the same build in one partition, against a build that
gathers every row, and against the memory engine."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_poisson_agrees, same_but_bands
from sitetools import Page

from ragreport.analysis import shown as shown_module
from ragreport.api import analyse, build, evaluate
from ragreport.core.model import Conventions
from ragreport.scoring import partition
from ragreport.scoring.partition import query_spans

QUERIES, DEPTH = 20_000, 10


def _write(tmp_path):
    """Two runs over the same 20,000 queries (the candidate a noisier ranking of the same pool) and
    their qrels: 3 judged ids a query, grades 0 to 2, a query in 50 with none relevant."""
    rng = np.random.default_rng(42)
    pool = np.argsort(rng.random((QUERIES, 2 * DEPTH)), axis=1)  # 20 distinct ids a query
    grades = rng.integers(0, 3, size=(QUERIES, 3))
    grades[::50] = 0
    qrels = "".join(f"q{q} 0 d{pool[q, j]} {grades[q, i]}\n" for q in range(QUERIES) for i, j in enumerate((0, 3, 15)))
    (tmp_path / "qrels").write_text(qrels)
    paths = []
    for name, noise in (("base", 0.0), ("cand", 0.7)):
        lines = []
        for q in range(QUERIES):
            order = np.argsort(np.arange(2 * DEPTH) + noise * rng.normal(0, 6, 2 * DEPTH), kind="stable")
            docs = [f"d{pool[q, j]}" for j in order[:DEPTH]]
            lines += [f"q{q} Q0 {d} {r + 1} {100 - r} {name}\n" for r, d in enumerate(docs)]
        path = tmp_path / f"{name}.trec"
        path.write_text("".join(lines))
        paths.append(path)
    return paths, tmp_path / "qrels"


@pytest.mark.slow
def test_twenty_thousand_queries_in_four_partitions(tmp_path, monkeypatch):
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 10_000)
    monkeypatch.setattr(shown_module, "SHOWN_QUERIES", 1_000)
    (base, cand), qrels = _write(tmp_path)
    four = -(-base.stat().st_size // 4)
    assert len(query_spans(base, four)) == 4
    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", -(-qrels.stat().st_size // 4))  # the qrels in 4 spans
    assert len(partition.cached_index(str(qrels.resolve())).spans) == 4
    conventions = Conventions(resamples=300)
    args = {"qrels": qrels, "k": 10, "conventions": conventions}
    sites = {}
    for name, how in (
        ("one", {"partition_bytes": 1 << 40, "sample_on": "nDCG@10"}),
        ("four", {"partition_bytes": four, "sample_on": "nDCG@10"}),
        ("gathered", {"partition_bytes": four}),  # every row gathered: the same pages
    ):
        summaries = evaluate([base, cand], engine="stream", **how, **args)
        build(analyse(summaries, permutations=500), out=tmp_path / name)
        sites[name] = summaries
    assert len(sites["four"][0].judged.query_ids) == 1_000  # the sample's rows alone
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    for name in files:  # neither the split nor the rows kept change a byte of any page or export
        for other in ("four", "gathered"):
            assert (tmp_path / "one" / name).read_bytes() == (tmp_path / other / name).read_bytes(), (name, other)

    memory = evaluate([base, cand], **args)
    assert_poisson_agrees(memory, sites["gathered"])
    build(analyse(memory, permutations=500), out=tmp_path / "memory")
    stored = json.loads((tmp_path / "four" / "report.json").read_text())
    in_memory = json.loads((tmp_path / "memory" / "report.json").read_text())
    assert [r["bootstrap"] for r in stored["runs"]] == ["poisson", "poisson"]
    for a, b in zip(in_memory["runs"], stored["runs"]):
        same_but_bands(a["metrics"], b["metrics"])
    # the pages list the stated sample and say so; every figure read all 20,000 queries
    page = Page((tmp_path / "four" / "run-cand.html").read_text("utf-8"))
    assert page.source.count('class="sample-note"') == 1
    assert "This table shows 1,000 of the 20,000 queries" in page.text
    (table,) = (t for t in map(json.loads, page.json_blocks.values()) if isinstance(t, dict) and "rows" in t)
    assert len(table["rows"]) == 1_000
    assert stored["runs"][1]["counts"]["queries"] == QUERIES
