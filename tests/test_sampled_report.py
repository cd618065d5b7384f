"""report.json past PAGE_QUERIES (docs/conventions.md section 29.2): a partitioned build keeps its
sample's rows and the sums its figures were made of; render draws the build's pages from them, byte
for byte; a sampled previous report drifts by its means."""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

from ragreport.analysis import shown as shown_module
from ragreport.analysis.paired import PairedFigures
from ragreport.analysis.poisson import ResampledSums, query_keys
from ragreport.analysis.summary import FACT_KINDS, Counts, Facts, Status
from ragreport.cli import main
from ragreport.core.errors import InputError
from ragreport.core.model import Judgments, Run
from ragreport.output.exports.reportjson.sampled import (
    facts_document,
    facts_from,
    figures_document,
    figures_from,
    sums_document,
    sums_from,
)
from ragreport.output.site import charts
from ragreport.scoring.join import join

QUERIES = 120


@pytest.fixture
def sampled(monkeypatch):
    """Past 50 queries, 40 listed (5 wins and 5 losses), and the scatter a grid past 30 points."""
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 50)
    monkeypatch.setattr(shown_module, "SHOWN_QUERIES", 40)
    monkeypatch.setattr(shown_module, "EXTREME_QUERIES", 5)
    monkeypatch.setattr(charts, "SCATTER_POINTS", 30)


def _files(tmp_path, runs: int = 2, lacking: tuple[str, ...] = (), low: int = 0):
    """Runs over the same lists ranked apart, pooled judgments (graded from ``low`` to 2, with
    unjudged ids in every top 10), a query no judgment names and two judged queries no run
    retrieves, one of them judged with a grade 0; the second run lacks the queries ``lacking``."""
    rng = np.random.default_rng(7)
    lists = {f"q{q}": [f"doc{d}" for d in rng.choice(300, size=20, replace=False)] for q in range(QUERIES)}
    qrels = []
    for q, docs in lists.items():
        if q == "q9":
            continue
        for d in docs[::2]:
            qrels.append(f"{q} 0 {d} {rng.integers(low, 3)}\n")
    qrels += ["qx 0 doc1 2\n", "qy 0 doc2 0\n"]
    (tmp_path / "qrels").write_text("".join(qrels))
    paths = []
    for r in range(runs):
        lines = []
        for q, docs in lists.items():
            if r == 1 and q in lacking:
                continue
            order = rng.permutation(len(docs)) if r else np.arange(len(docs))
            lines += [f"{q} Q0 {docs[i]} {rank + 1} {20 - rank} r{r}\n" for rank, i in enumerate(order)]
        path = tmp_path / f"run{r}.trec"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths, str(tmp_path / "qrels")


def _build(tmp_path, paths, qrels, out, *more):
    args = ["build", "--qrels", qrels, *paths, "-k", "10,5", "--metrics", "P@5,nDCG@10,map,num_rel_ret", "--quiet"]
    assert main([*args, *more, "--out", str(tmp_path / out)]) == 0
    return tmp_path / out


def _audit(tmp_path, qrels, first: int = 20, many: int = 15) -> str:
    """Human labels of ``many`` queries from ``q{first}`` on: the model's, every third grade moved up by one (mod 3)."""
    lines = [line.split() for line in open(qrels)]
    wanted = {f"q{i}" for i in range(first, first + many)}
    audited = [
        (q, d, (int(g) + 1) % 3 if n % 3 == 0 else int(g)) for n, (q, _, d, g) in enumerate(lines) if q in wanted
    ]
    path = tmp_path / f"audit{first}.qrels"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in audited))
    return str(path)


def _scores(tmp_path, runs: int) -> str:
    """Outside scores of every judged query of each run: a 0/1 faithfulness and a 1-5 grade."""
    rng = np.random.default_rng(3)
    rows = [
        f"q{i},run{r},{rng.integers(0, 2)},{rng.integers(1, 6)}\n"
        for i in range(QUERIES)
        if i != 9
        for r in range(runs)
    ]
    path = tmp_path / "scores.csv"
    path.write_text("query_id,run,faithfulness,grade\n" + "".join(rows))
    return str(path)


def _files_of(site):
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_render_of_a_sampled_report_draws_the_builds_pages_byte_for_byte(tmp_path, sampled, monkeypatch, runs):
    paths, qrels = _files(tmp_path, runs)
    # sliced by a topic (summed by slice): the slices are read as stored
    (tmp_path / "meta.csv").write_text("qid,topic\n" + "".join(f"q{i},{'abc'[i % 3]}\n" for i in range(QUERIES)))
    more = ["--engine", "stream", "--query-meta", str(tmp_path / "meta.csv")]
    # and the text of the queries and documents the report points at, the slices' examples among them
    (tmp_path / "queries.tsv").write_text("".join(f"q{i}\tquestion {i}\n" for i in range(QUERIES)))
    corpus = [{"_id": f"doc{d}", "title": f"title {d}", "text": f"text of doc{d}"} for d in range(300)]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    more += ["--queries", str(tmp_path / "queries.tsv"), "--corpus", str(tmp_path / "corpus.jsonl")]
    more += ["--text-queries", "3", "--audit", _audit(tmp_path, qrels), "--scores", _scores(tmp_path, runs)]
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 1000)
    whole = _build(tmp_path, paths, qrels, "whole", *more)
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 50)
    built = _build(tmp_path, paths, qrels, "built", *more)
    document = json.loads((built / "report.json").read_text())
    shown = document["sampled"]["shown"]
    listed = len(shown["ids"])  # 40, or more where the extremes and the 15 audited queries take more
    assert (shown["total"], shown["each"]) == (QUERIES + 2, 5 // max(1, runs - 1)) and listed >= 40
    # Only the sample's queries are stored: their rows, their lists and their judgments.
    assert sorted(document["query_ids"]) == sorted(shown["ids"])
    for run in document["runs"]:
        assert len(run["queries"]["status"]) == listed  # the run's queries and the judged ones it lacks
        assert run["counts"]["queries"] == QUERIES + 2  # the counts are every query's
    assert len(document["judgments"]["queries"]) <= listed
    # Every figure is the one a build listing every query shows.
    every = json.loads((whole / "report.json").read_text())
    assert "sampled" not in every
    assert len(document["slices"]) == 3 and len(document["query_meta"]) <= listed and document["texts"]["queries"]
    for key in ("headline", "comparisons", "ranking", "slices", "audit"):
        assert document.get(key) == every.get(key), key
    # outside scores: every figure the whole build's, the values the listed queries' alone
    assert {k: v for k, v in document["scores"].items() if k != "values"} == {
        k: v for k, v in every["scores"].items() if k != "values"
    }
    assert all(set(by_query) <= set(shown["ids"]) for by_query in document["scores"]["values"].values())
    for run, whole_run in zip(document["runs"], every["runs"]):
        for key in ("metrics", "measures", "sweep", "counts", "limits", "fingerprints", "scores"):
            assert run[key] == whole_run[key], key
    # The pages say report.json holds the sample, not every query.
    for page in ("queries.html", "run-run0.html"):
        text = " ".join((built / page).read_text().split())
        assert "report.json holds the same ones, and every figure." in text and "holds them all" not in text
        assert "the report points to (movers, slice examples, texts, audited queries)" in text  # an audit's
    again = tmp_path / "again"
    assert main(["render", str(built / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert _files_of(again) == _files_of(built)
    if runs == 2:  # and the build that lists every query: its audit drawn again from its sums too
        monkeypatch.setattr(shown_module, "PAGE_QUERIES", 1000)
        assert main(["render", str(whole / "report.json"), "--out", str(tmp_path / "whole-again"), "--quiet"]) == 0
        assert _files_of(tmp_path / "whole-again") == _files_of(whole)


@pytest.mark.parametrize(
    "case",
    [
        "a run lacking queries",  # the runs' label arrays differ: the report's fingerprints are a union
        "judgments of relevant ids alone",  # no reading of unjudged ids, no Judged@K
        "one grade 0, outside the sample",  # the sample's judgments alone would read as relevant-only
        "a 0/1 measure by name",  # Wilson's band of the sum, every query's
    ],
)
def test_a_sampled_reports_figures_are_every_querys(tmp_path, sampled, monkeypatch, case):
    lacking = ("q3", "q17", "q40", "q41", "q77") if case == "a run lacking queries" else ()
    paths, qrels = _files(tmp_path, lacking=lacking, low=0 if case == "a run lacking queries" else 1)
    if case == "judgments of relevant ids alone":
        (tmp_path / "qrels").write_text(
            "".join(line for line in open(qrels) if not line.endswith(" 2\n") and "qy" not in line)
        )
    more = [
        "--engine",
        "stream",
        *(["--metrics", "nDCG@10,Hit@5,success@3"] if case == "a 0/1 measure by name" else []),
    ]
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 1000)
    whole = json.loads((_build(tmp_path, paths, qrels, "whole", *more) / "report.json").read_text())
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 50)
    built = _build(tmp_path, paths, qrels, "built", *more)
    document = json.loads((built / "report.json").read_text())
    if case == "one grade 0, outside the sample":
        assert "qy" not in document["sampled"]["shown"]["ids"] and not whole["relevant_only"]
    if case == "judgments of relevant ids alone":
        assert whole["relevant_only"]
    for key in ("fingerprints", "relevant_only", "headline", "comparisons", "comparison"):
        assert document[key] == whole[key], key
    for run, whole_run in zip(document["runs"], whole["runs"]):
        for key in ("metrics", "measures", "counts", "limits", "fingerprints"):
            assert run[key] == whole_run[key], key
    again = tmp_path / "again"
    assert main(["render", str(built / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert _files_of(again) == _files_of(built)


def test_the_memory_engine_keeps_every_query(tmp_path, sampled):
    paths, qrels = _files(tmp_path)
    document = json.loads((_build(tmp_path, paths, qrels, "memory") / "report.json").read_text())
    assert "sampled" not in document and len(document["query_ids"]) == QUERIES + 2


def test_a_sampled_previous_report_drifts_by_its_means(tmp_path, sampled):
    paths, qrels = _files(tmp_path)
    before = _build(tmp_path, paths, qrels, "before", "--engine", "stream")
    after = _build(tmp_path, paths[::-1], qrels, "after", "--previous", str(before / "report.json"))
    then = {r["name"]: r["metrics"] for r in json.loads((before / "report.json").read_text())["runs"]}
    drift = json.loads((after / "report.json").read_text())["drift"]
    rows = {(r["run"], r["metric"]): r for r in drift["rows"]}
    assert rows and all(r["low"] is None and r["high"] is None and r["p"] is None for r in rows.values())
    for (run, metric), row in rows.items():
        assert row["then"] == then[run][metric]["mean"] and row["delta"] == pytest.approx(row["now"] - row["then"])
    assert all(not r.get("queries") for r in drift["basis"]["runs"])  # no per-query scores kept


def test_a_sampled_previous_reports_other_labels_are_not_listed(tmp_path, sampled):
    paths, qrels = _files(tmp_path)
    before = _build(tmp_path, paths, qrels, "before", "--engine", "stream")
    fewer = tmp_path / "fewer"
    fewer.write_text("".join(line for line in open(qrels) if not line.startswith("q1 ")))
    after = _build(tmp_path, paths, str(fewer), "after", "--previous", str(before / "report.json"))
    drift = json.loads((after / "report.json").read_text())["drift"]
    assert not drift["comparable"] and drift["changes"] == [] and "judgments" not in drift["basis"]


@pytest.mark.parametrize("labels", ["same", "fewer"])
def test_a_sampled_reports_drift_is_read_as_stored(tmp_path, sampled, labels):
    """The drift pairs every query's scores then and now: a sampled report keeps it as the build
    made it (its change lists' first items and counts), and render draws the same page."""
    paths, qrels = _files(tmp_path)
    previous = _build(tmp_path, paths, qrels, "first")
    if labels == "fewer":  # 29 judged queries gone (q0 to q29 but q9): more changes than a page lists
        fewer = tmp_path / "fewer"
        fewer.write_text(
            "".join(line for line in open(qrels) if not line.startswith(tuple(f"q{i} " for i in range(30))))
        )
        qrels = str(fewer)
    built = _build(tmp_path, paths, qrels, "built", "--engine", "stream", "--previous", str(previous / "report.json"))
    drift = json.loads((built / "report.json").read_text())["drift"]
    assert all("queries" not in run for run in drift["basis"]["runs"])  # read as stored: no scores kept
    if labels == "fewer":
        assert drift["changes"][0]["queries_removed"]["count"] == 29  # q9 was never judged and not drift["comparable"]
    else:
        assert drift["comparable"] and all(r["low"] is not None for r in drift["rows"])
    again = tmp_path / "again"
    assert main(["render", str(built / "report.json"), "--out", str(again), "--quiet"]) == 0
    assert _files_of(again) == _files_of(built)


def test_render_refuses_a_sampled_reports_broken_sums_in_one_line(tmp_path, sampled, capsys):
    paths, qrels = _files(tmp_path)
    built = _build(tmp_path, paths, qrels, "built", "--engine", "stream")
    document = json.loads((built / "report.json").read_text())
    document["sampled"]["runs"]["run0"]["sums"]["digit_weighted"]["float64"] = "not base 64!"
    (tmp_path / "edited.json").write_text(json.dumps(document))
    assert main(["render", str(tmp_path / "edited.json"), "--out", str(tmp_path / "x"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'sampled.runs.run0.sums.digit_weighted'" in err
    assert not (tmp_path / "x").exists()


def test_the_stored_sums_facts_and_figures_read_back_as_written():
    rng = np.random.default_rng(1)
    keys = query_keys(np.array([f"q{i}" for i in range(50)]), 0)
    sums = ResampledSums.of(keys, rng.random((50, 3)), 100, 64)
    back = sums_from(json.loads(json.dumps(sums_document(sums))), "r.json", "sums")
    assert back.rows == 50 and np.array_equal(back.totals, sums.totals)
    assert np.array_equal(back.weighted, sums.weighted) and np.array_equal(back.flipped, sums.flipped)
    ids = {kind: (i, ("q1", "é")[:i]) for i, kind in enumerate(FACT_KINDS)}
    facts = Facts(tuple(range(len(fields(Counts)))), tuple(range(len(Status))), (20, 3, 17), (1, 3, 7), 40, ids)
    assert facts_from(json.loads(json.dumps(facts_document(facts))), "r.json", "facts") == facts
    nan = np.array([np.nan, 0.25])
    figures = PairedFigures(
        9,
        *(nan + i for i in range(8)),
        *(np.array([i, 2]) for i in range(3)),
        gains=((("q1", 0.0, 1.0),), ()),
        drops=((), (("q2", 0.5, 0.25),)),
        readings=np.arange(24.0).reshape(4, 6),
        same=np.array([True, False] * 3),
    )
    back_figures = figures_from(json.loads(json.dumps(figures_document(figures))), "r.json", "figures", 2)
    for field in PairedFigures.__dataclass_fields__:
        a, b = getattr(figures, field), getattr(back_figures, field)
        assert np.array_equal(a, b, equal_nan=True) if isinstance(a, np.ndarray) else a == b, field


def test_a_runs_rows_are_the_join_of_those_queries_alone():
    """``JudgedRun.rows``: the same as joining the chosen queries' lists with their judgments."""
    lists = [("q1", ["a", "b", "a"]), ("q2", ["c"]), ("q3", []), ("q4", ["d", "e", "f"])]
    labels = [("q1", ["a", "z"], [1, 2]), ("q2", ["c"], [0]), ("q4", ["f", "e"], [3, 1]), ("q5", ["y"], [1])]
    judged = join(Run.from_lists("r", lists), Judgments.from_lists(labels))
    ids = judged.query_ids.tolist()
    for take in ([0, 3], [1, 4], [4], [0, 1, 2, 3, 4], []):
        chosen = {ids[i] for i in take}
        alone = join(
            Run.from_lists("r", [x for x in lists if x[0] in chosen]),
            Judgments.from_lists([x for x in labels if x[0] in chosen]),
        )
        part = judged.rows(np.array(take, dtype=np.int64))
        for field in ("query_ids", "offsets", "doc_ids", "grades", "judged", "repeat", "relevant", "in_run"):
            assert np.array_equal(getattr(part, field), getattr(alone, field)), (take, field)
        for field in ("has_judgments", "ideal_offsets", "ideal_grades", "judgment_query", "judgment_grades"):
            assert np.array_equal(getattr(part, field), getattr(alone, field)), (take, field)
        assert np.array_equal(part.judgment_doc_ids, alone.judgment_doc_ids), take


def test_per_query_rows_are_every_querys_or_refused(tmp_path, sampled, capsys):
    """``score -q`` prints every query's rows past the threshold; a report holding the sample has
    only its sample's to give, so ``render -q`` and the API refuse rather than print part of them."""
    from ragreport.api import reanalyse

    paths, qrels = _files(tmp_path)
    args = ["score", "--qrels", qrels, *paths, "-k", "10", "--engine", "stream", "--format", "csv", "-q"]
    assert main(args) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert main(args[:-5] + ["--format", "csv", "-q"]) == 0  # the memory engine's: every scored query
    assert rows == capsys.readouterr().out.splitlines()[1:] and len({row.split(",")[1] for row in rows}) == 120
    built = _build(tmp_path, paths, qrels, "built", "--engine", "stream")
    capsys.readouterr()
    assert main(["render", str(built / "report.json"), "--format", "csv", "-q"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the report holds 40 of its 122 queries" in err
    assert main(["render", str(built / "report.json"), "--format", "csv"]) == 0  # the figures: every query's
    report = reanalyse(built / "report.json")
    with pytest.raises(ValueError, match="the report holds 40 of its 122 queries"):
        report.to_records(per_query=True)
    assert report.queries == 122 and "queries=122," in repr(report)


def _partitioned(monkeypatch, gathered: bool = False):
    """Builds by partitions of about 1,500 bytes (a dozen queries); with ``gathered``, builds that
    gather every query's rows past PAGE_QUERIES, as before the sample was chosen from the buckets
    (section 29.2): what a build that keeps the sample's rows alone must equal."""
    from ragreport import api
    from ragreport.analysis import evaluation

    evaluate = evaluation.evaluate_runs

    def parts(*args, **kwargs):
        return evaluate(*args, **{**kwargs, "partition_bytes": 1500, **({"sample_on": None} if gathered else {})})

    monkeypatch.setattr(api, "evaluate_runs", parts)


def _held(monkeypatch) -> list:
    """Every run's HeldPartitions of the builds to come, as they take a partition."""
    from ragreport.scoring import partition

    held: list = []
    add = partition.HeldPartitions.add

    def kept(self, place, part):
        held.append(self)
        return add(self, place, part)

    monkeypatch.setattr(partition.HeldPartitions, "add", kept)
    return held


@pytest.mark.parametrize("runs", [1, 2, 3])
@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_a_build_keeping_its_samples_rows_alone_writes_the_gathered_builds_bytes(
    tmp_path, sampled, monkeypatch, runs, engine
):
    """Past PAGE_QUERIES a build reads back its sample's rows alone (its other
    rows written to disk by partition, never gathered): the same site, byte for byte, as a build
    that gathers every row and lists the same sample."""
    if engine == "dask":
        pytest.importorskip("dask.distributed")
    paths, qrels = _files(tmp_path, runs, lacking=("q3", "q17", "q40"), low=0)
    (tmp_path / "queries.tsv").write_text("".join(f"q{i}\tquestion {i}\n" for i in range(QUERIES)))
    corpus = [{"_id": f"doc{d}", "title": f"title {d}", "text": f"text of doc{d}"} for d in range(300)]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    more = ["--engine", engine, "--queries", str(tmp_path / "queries.tsv")]
    if engine == "stream":  # more queries with their text than the extremes hold (5 a side): held too
        more += ["--corpus", str(tmp_path / "corpus.jsonl"), "--text-queries", "12"]
    if runs == 3 and engine == "stream":  # the extremes and the texts against another run than the first
        more += ["--baseline", "run2"]
    # sliced by a topic: the slices' examples are listed, and the texts go to them first
    (tmp_path / "meta.csv").write_text("qid,topic\n" + "".join(f"q{i},{'abcd'[i % 4]}\n" for i in range(QUERIES)))
    more += ["--query-meta", str(tmp_path / "meta.csv")]
    # audited by human labels on 15 queries, a grade in three read otherwise: the audited queries are
    # listed, and the corrected figures read their rows beside the sums
    more += ["--audit", _audit(tmp_path, qrels)]
    more += ["--scores", _scores(tmp_path, runs)]  # outside scores: matched against every judged query
    held = _held(monkeypatch)
    from ragreport.scoring import partition

    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", 2000)  # the qrels read by spans, never whole
    assert partition.cached_index(str((tmp_path / "qrels").resolve())) is not None
    _partitioned(monkeypatch)
    lean = _build(tmp_path, paths, qrels, "lean", *more)
    assert held and all(h.spilled for h in held) and len(held[0].query_ids) > 5  # every row went to disk
    _partitioned(monkeypatch, gathered=True)
    gathered = _build(tmp_path, paths, qrels, "gathered", *more)
    assert _files_of(lean) == _files_of(gathered)
    document = json.loads((lean / "report.json").read_text())
    # 40, or more where the extremes and the queries the report points to (15 audited) take more
    assert len(document["sampled"]["shown"]["ids"]) >= 40 and bool(document.get("texts")) == (engine == "stream")
    examples = {q for s in document["slices"] for q in s["examples"]}
    assert len(document["slices"]) == 4 and examples <= set(document["sampled"]["shown"]["ids"])
    assert set(document["audit"]["labels"]) <= set(document["sampled"]["shown"]["ids"])
    figures = [f for by_metric in document["audit"]["runs"].values() for f in by_metric.values()]
    assert len(document["audit"]["runs"]) == runs and all(f["corrected"]["low"] is not None for f in figures)
    assert len(document["audit"]["comparisons"]) == runs - 1  # nDCG@10 (the suite at K) of each compared run


def test_a_build_keeping_its_samples_rows_drifts_from_a_sampled_report_as_a_gathered_build(
    tmp_path, sampled, monkeypatch
):
    """A previous report that holds a sample drifts by its means (section 29.2): a build keeping its
    own sample's rows alone writes the gathered build's bytes; a previous report that holds every
    query's pairs them, and the build gathers every row."""

    paths, qrels = _files(tmp_path, 2, lacking=("q3",), low=0)
    _partitioned(monkeypatch)
    before = _build(tmp_path, paths, qrels, "before", "--engine", "stream")
    assert json.loads((before / "report.json").read_text())["sampled"]
    held = _held(monkeypatch)
    more = ["--engine", "stream", "--previous", str(before / "report.json")]
    lean = _build(tmp_path, paths[::-1], qrels, "lean", *more)
    assert held and all(h.spilled for h in held)
    _partitioned(monkeypatch, gathered=True)
    gathered = _build(tmp_path, paths[::-1], qrels, "gathered", *more)
    assert _files_of(lean) == _files_of(gathered)
    drift = json.loads((lean / "report.json").read_text())["drift"]
    assert drift["comparable"] and {r["run"] for r in drift["rows"]} == {"run0", "run1"}
    # a previous report of every query's rows: the drift pairs them, every row gathered
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 1000)
    whole = _build(tmp_path, paths, qrels, "whole", "--engine", "stream")
    monkeypatch.setattr(shown_module, "PAGE_QUERIES", 50)
    held.clear()
    _partitioned(monkeypatch)
    paired = _build(tmp_path, paths, qrels, "paired", "--engine", "stream", "--previous", str(whole / "report.json"))
    assert held and not any(h.spilled for h in held)
    rows = json.loads((paired / "report.json").read_text())["drift"]["rows"]
    assert all(r["low"] is not None for r in rows)


def test_the_results_of_a_build_keeping_its_samples_rows_hold_them_alone(tmp_path, sampled):
    from ragreport import api

    paths, qrels = _files(tmp_path, 2)
    results = api.evaluate(paths, qrels=qrels, engine="stream", partition_bytes=2000, sample_on="nDCG@10")
    store = results[0].paired[0]
    ids = store.choice.ids
    assert len(ids) == 40 and store.choice.total == QUERIES + 2
    for summary in results:
        assert sorted(summary.judged.query_ids.tolist()) == sorted(ids.tolist())
        assert summary.counts.queries == QUERIES + 2  # the counts are every query's
    report = api.analyse(results)
    assert report.queries == QUERIES + 2 and report.sample.rows_only and not report.sample.stored_all
    # outside scores are matched against every query the judgments hold, not the sample's alone
    scores = _scores(tmp_path, 2)
    figure = api.analyse(results, scores=scores).scores.figure("run1", "grade")
    assert (figure.queries, figure.judged) == (QUERIES - 1, QUERIES + 1)  # all but q9; qx and qy judged
    with open(scores, "a") as lines:
        lines.write("qz,run0,1,3\n")
    with pytest.raises(InputError, match=rf"scores.csv:{2 * QUERIES}: expected a query the judgments of run 'run0'"):
        api.analyse(results, scores=scores)
    assert repr(results) == f"Results(runs=2, queries={QUERIES + 2}, k=10)"
    for rows in (report, results):  # per-query rows of every query: refused, not a part of them
        with pytest.raises(ValueError, match="of (its|their) 122 queries"):
            rows.to_records(per_query=True)
    # a report leading with another metric than the sample's extremes were chosen on is refused
    with pytest.raises(ValueError, match="the sample's extremes are on nDCG@10"):
        api.analyse(results, primary="AP")
    # and what reads every query's rows: a drift, slices, more texts than the sample holds
    (tmp_path / "corpus.jsonl").write_text('{"_id": "doc1", "text": "a"}\n')
    previous = tmp_path / "previous.json"
    previous.write_text(json.dumps(api.document(api.analyse(api.evaluate(paths, qrels=qrels)))))
    audit = _audit(tmp_path, qrels)
    for given, word in (
        ({"previous": str(previous)}, "previous"),
        ({"audit": audit}, "audit reads the rows of its queries, which .* evaluate with sample_audit=it"),
        ({"query_meta": {"q1": {"topic": "a"}}}, "query_meta"),
        ({"corpus": str(tmp_path / "corpus.jsonl"), "text_queries": 3}, "text_queries"),
    ):
        with pytest.raises(ValueError, match=word):
            api.analyse(results, **given)
    # past two runs the pairs with the baseline are the sample's: analysed against another, refused
    three, _ = _files(tmp_path / "three", 3) if (tmp_path / "three").mkdir() is None else ((), None)
    results = api.evaluate(three, qrels=qrels, engine="stream", sample_on="nDCG@10", sample_baseline="run1")
    assert api.analyse(results, baseline="run1").sample.baseline == "run1"
    with pytest.raises(
        ValueError, match="'run0' is not the run the sample's extremes are against.*sample_baseline='run0'"
    ):
        api.analyse(results)
    # a sample chosen with the slices' examples: analysed with the metadata it was chosen by
    meta = {f"q{i}": {"topic": "ab"[i % 2]} for i in range(QUERIES)}
    results = api.evaluate(paths, qrels=qrels, engine="stream", sample_on="nDCG@10", sample_meta=meta)
    report = api.analyse(results, query_meta=meta)
    assert {q for s in report.slices.slices for q in s.examples} <= set(report.sample.ids.tolist())
    with pytest.raises(ValueError, match="query_meta.* is the metadata these results' sample was chosen"):
        api.analyse(results)
    outside = [q for q in meta if q not in set(report.sample.ids.tolist())][:3]  # a slice of queries not held
    with pytest.raises(ValueError, match="the sample holds other slices' examples"):
        api.analyse(results, query_meta={q: {"topic": "c" if q in outside else "d"} for q in meta})
    # sliced by two keys, analysed by one: the second key's examples would be counted as drawn
    both = {q: {**fields, "lang": "c" if q in outside else "d"} for q, fields in meta.items()}
    results = api.evaluate(paths, qrels=qrels, engine="stream", sample_on="nDCG@10", sample_meta=both)
    assert len(api.analyse(results, query_meta=both).slices.slices) == 4
    with pytest.raises(ValueError, match="the sample holds other slices' examples"):
        api.analyse(results, query_meta=both, slice_by=["topic"])
    # a sample chosen with an audit holds its queries: analysed with that audit, and no other
    results = api.evaluate(paths, qrels=qrels, engine="stream", sample_on="nDCG@10", sample_audit=audit)
    report = api.analyse(results, audit=audit)
    assert len(report.audit.labels) == 15 and set(report.audit.labels) <= set(report.sample.ids.tolist())
    assert report.audit.comparisons and report.sample.cited >= 15 - report.sample.wins - report.sample.losses
    with pytest.raises(ValueError, match="audit.* is the audit these results' sample was chosen to hold"):
        api.analyse(results)
    with pytest.raises(ValueError, match="audit audits other queries than these results' sample holds"):
        api.analyse(results, audit=_audit(tmp_path, qrels, first=60))
    with pytest.raises(ValueError, match="'bm25' names no run; the runs are 'run0', 'run1', 'run2'"):
        api.evaluate(three, qrels=qrels, engine="stream", sample_on="nDCG@10", sample_baseline="bm25")


def test_a_build_past_the_threshold_refuses_ids_that_never_meet_as_the_memory_engine(
    tmp_path, sampled, monkeypatch, capsys
):
    """What is refused is read off every partition's counts (Meeting), not off the sample."""
    paths, qrels = _files(tmp_path, 1)
    (tmp_path / "other.trec").write_text(open(paths[0]).read().replace(" doc", " DOC-"))
    messages = []
    for engine in ("memory", "stream"):
        if engine == "stream":
            _partitioned(monkeypatch)
        args = ["build", "--qrels", qrels, str(tmp_path / "other.trec"), "--engine", engine, "--quiet"]
        assert main([*args, "--out", str(tmp_path / engine)]) == 2
        messages.append(capsys.readouterr().err.strip())
    assert messages[0] == messages[1] and "share no document id on any query" in messages[0]
    assert not (tmp_path / "stream").exists()


def test_the_rows_written_to_disk_go_once_the_sample_is_read_back_and_on_an_error(tmp_path, sampled, monkeypatch):
    import gc
    import tempfile

    from ragreport import api
    from ragreport.core.errors import UsageError

    paths, qrels = _files(tmp_path, 2)
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    results = api.evaluate(paths, qrels=qrels, engine="stream", partition_bytes=2000, sample_on="nDCG@10")
    gc.collect()
    assert [p.name.startswith("ragreport-pairs-") for p in spill.iterdir()] == [True]  # the rows' folder went
    del results
    gc.collect()
    assert not list(spill.iterdir())
    (tmp_path / "table.jsonl").write_text('{"query_id": "q1"}\n')
    with pytest.raises(UsageError, match="reads TREC runs"):
        api.evaluate([paths[0], tmp_path / "table.jsonl"], qrels=qrels, engine="stream", sample_on="nDCG@10")
    gc.collect()
    assert not list(spill.iterdir())


def test_a_refusal_past_the_threshold_names_ids_when_the_first_partition_holds_no_list(
    tmp_path, sampled, monkeypatch, capsys
):
    """A folder whose first partition file holds only a comment: the refusal's examples come from
    the first partition holding a list."""
    paths, qrels = _files(tmp_path, 1)
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "a.trec").write_text("# nothing here\n")
    (folder / "b.trec").write_text(open(paths[0]).read().replace(" doc", " DOC-"))
    args = ["build", "--qrels", qrels, str(folder), "--engine", "stream", "--quiet", "--out", str(tmp_path / "x")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "share no document id on any query (for query 'q0' the run has 'DOC-" in err
