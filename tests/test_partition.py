"""Scoring by partitions (--engine stream and --engine dask): figures that do not depend on the
partitions, the memory engine's figures but for the bands (from the Poisson sums, docs/conventions.md
section 29), partitions that end where a query ends, and the errors a partitioned run can meet."""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_paired_agrees, assert_poisson_agrees

from ragreport.api import analyse, document, evaluate
from ragreport.core.errors import InputError, UsageError
from ragreport.core.ids import as_text
from ragreport.core.model import Conventions
from ragreport.reading.registry import load_qrels, load_runs
from ragreport.scoring import partition
from ragreport.scoring.join import join
from ragreport.scoring.measures import parse_measures
from ragreport.scoring.partition import (
    JudgmentIndex,
    depth_needed,
    judged_by_partitions,
    judgments_for,
    query_spans,
    read_partition,
    score_partition,
)

DATA = Path(__file__).parent / "data"


def _files(tmp_path, queries=60, depth=30, seed=3):
    """A run with ties, a repeat, a query no judgment names, and judged queries the run lacks."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(queries):
        docs = [f"doc{d}" for d in rng.choice(200, size=depth, replace=False)]
        if q == 4:
            docs[7] = docs[2]  # a repeat
        scores = np.round(np.sort(rng.random(depth))[::-1] * 5, 1)
        run += [f"q{q} Q0 {d} {r + 1} {s} t\n" for r, (d, s) in enumerate(zip(docs, scores))]
        if q == 9:
            continue  # the run has it, the judgments do not
        judged = rng.choice(200, size=8, replace=False)
        grades = rng.integers(0 if q % 11 else -1, 4, size=8)
        qrels += [f"q{q} 0 doc{d} {g}\n" for d, g in zip(judged, grades)]
    qrels += ["qx 0 doc1 2\n", "qy 0 doc2 0\n"]  # judged, never retrieved
    (tmp_path / "run.trec").write_text("".join(run))
    (tmp_path / "qrels").write_text("".join(qrels))
    return tmp_path / "run.trec", tmp_path / "qrels"


def _summaries(paths, qrels, level=1, named="P@5,nDCG@10,map,Rprec,num_ret,num_rel_ret", **kwargs):
    measures = parse_measures([named]) if named else ()
    conventions = Conventions(resamples=200, relevance_level=level)
    return evaluate(paths, qrels=qrels, k=(5, 10), conventions=conventions, measures=measures, **kwargs)


def _report(paths, qrels, *args, **kwargs):
    return json.dumps(document(analyse(_summaries(paths, qrels, *args, **kwargs))), sort_keys=True)


def _in_parts(run, parts: int) -> int:
    """The partition size that splits ``run`` into ``parts`` partitions."""
    target = -(-run.stat().st_size // parts)
    assert len(query_spans(run, target)) == parts
    return target


def test_stream_figures_do_not_depend_on_the_partitions(tmp_path):
    # The sums are exact (docs/conventions.md section 29): report.json is the same to the byte.
    run, qrels = _files(tmp_path)
    one = _report([run], qrels, engine="stream", partition_bytes=_in_parts(run, 1))
    for parts in (2, 8):
        assert _report([run], qrels, engine="stream", partition_bytes=_in_parts(run, parts)) == one
    assert _report([run], qrels, engine="stream", partition_bytes=900) == one  # about 45


def test_stream_gives_the_memory_engines_figures_but_for_the_resampling(tmp_path):
    run, qrels = _files(tmp_path)
    memory = _summaries([run], qrels)
    assert_poisson_agrees(memory, _summaries([run], qrels, engine="stream", partition_bytes=900))
    named = "gm_map,success@5,map"  # a geometric mean's band, of the mean log; Wilson's; the bootstrap's
    assert_poisson_agrees(_summaries([run], qrels, named=named), _summaries([run], qrels, named=named, engine="stream"))
    # what a band says is the Poisson bootstrap's, not the memory engine's draw
    label = "nDCG@10"
    stream = _summaries([run], qrels, engine="stream")[0]
    assert stream.at_k[label].low != memory[0].at_k[label].low
    assert (stream.at_k[label].mean, stream.at_k[label].low, stream.at_k[label].high) == stream.sums.band(
        _column(stream, label)
    )


def _column(summary, label: str) -> int:
    """The column of ``label`` (``nDCG@10``) in the summary's sums: metric x the sweep's cutoffs."""
    cutoff = label.split("@")[1]
    metric = next(m for m in summary.scores.metrics if m.label(int(cutoff)) == label)
    return summary.scores.metrics.index(metric) * len(summary.sweep.cutoffs) + int(
        np.flatnonzero(summary.sweep.cutoffs == int(cutoff))[0]
    )


@pytest.mark.parametrize(
    ("depths", "k", "sweep"),
    [
        # by hand: the longest list of any run, capped at 100, at least max(10, 2K), on the grid
        ((100,), 10, [*range(1, 21), 25, 30, 40, 50, 60, 70, 80, 90, 100]),
        ((15, 100), 5, [*range(1, 21), 25, 30, 40, 50, 60, 70, 80, 90, 100]),  # the deeper run's
        ((15,), 5, list(range(1, 16))),  # the depth, past 2K = 10
        ((15,), 10, list(range(1, 21))),  # 2K = 20, past the depth
        ((37,), 5, [*range(1, 21), 25, 30, 40]),  # 37 up to the grid
    ],
)
def test_the_default_sweep_ends_at_the_runs_depth_on_both_engines(tmp_path, depths, k, sweep):
    # One process knows the depth before scoring; the stream engine sums to 100 and keeps the
    # cutoffs up to the depth it saw: the same sweep, the same figures but for the resampling.
    runs, qrels = [], None
    for i, depth in enumerate(depths):
        (tmp_path / str(i)).mkdir()
        run, qrels = _files(tmp_path / str(i), depth=depth)
        runs.append(run.rename(tmp_path / f"run{i}.trec"))
    summaries = [
        evaluate(runs, qrels=qrels, k=k, conventions=Conventions(resamples=100), **how)
        for how in ({}, {"engine": "stream", "partition_bytes": 900})
    ]
    assert_poisson_agrees(*summaries)
    for stored in (document(analyse(one)) for one in summaries):
        assert stored["settings"]["kmax"] == sweep[-1]
        assert all(run["sweep"]["k"] == sweep for run in stored["runs"])
    # --kmax says otherwise, on both engines
    told = [
        evaluate(runs, qrels=qrels, k=k, kmax=12, **how)[0].sweep.cutoffs.tolist() for how in ({}, {"engine": "stream"})
    ]
    assert told == [list(range(1, 13))] * 2


def test_stream_keeps_the_judged_ids_condensing_reads_as_one_process_does(tmp_path):
    # Without a whole-list measure each partition keeps its lists' heads (to the sweep's depth, then K) and
    # its condensed heads: report.json's judged ids after each top at K (docs/conventions.md
    # section 22.17) are taken from those, and are the ones the whole lists give.
    run, qrels = _files(tmp_path)
    whole = json.loads(_report([run], qrels, named=""))["runs"][0]
    parted = json.loads(_report([run], qrels, named="", engine="stream", partition_bytes=900))["runs"][0]
    assert parted["lists"] == whole["lists"] and parted["queries"] == whole["queries"]
    assert sum(whole["lists"]["next_judged"]["lengths"])


def test_stream_gives_the_memory_engines_figures_at_another_relevance_level(tmp_path):
    run, qrels = _files(tmp_path)
    whole = _summaries([run], qrels, level=3)
    assert whole[0].at_k["nDCG@10"].mean != _summaries([run], qrels)[0].at_k["nDCG@10"].mean
    assert_poisson_agrees(whole, _summaries([run], qrels, level=3, engine="stream", partition_bytes=900))


@pytest.mark.slow
def test_dask_on_a_local_cluster_gives_the_stream_engines_figures(tmp_path):
    if not os.environ.get("CI"):  # in CI Dask is installed (the test extra): the test must run
        pytest.importorskip("dask.distributed")
    run, other, qrels = _pair(tmp_path)
    parted = _report([run, other], qrels, engine="dask", partition_bytes=2000)  # the comparison summed too
    assert parted == _report([run, other], qrels, engine="stream", partition_bytes=_in_parts(run, 1))
    assert_poisson_agrees(_summaries([run], qrels), _summaries([run], qrels, engine="dask", partition_bytes=2000))


def test_a_folder_of_partition_files_reads_as_one_run(tmp_path):
    run, qrels = _files(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    folder = tmp_path / "parts"
    folder.mkdir()
    for i in range(3):  # 30 lines a query: whole queries per file
        (folder / f"part-{i}.trec").write_text("".join(lines[i * 600 : (i + 1) * 600]))
    whole = json.loads(_report([run], qrels, engine="stream"))
    parted = json.loads(_report([folder], qrels, engine="stream"))
    for key in ("metrics", "measures", "sweep", "counts", "fingerprints", "queries", "limits"):
        assert parted["runs"][0][key] == whole["runs"][0][key], key


def test_spans_end_where_a_query_ends(tmp_path):
    run, _ = _files(tmp_path)
    raw = run.read_bytes()
    spans = query_spans(run, 1000)
    assert spans[0][0] == 0 and spans[-1][1] == len(raw) and len(spans) > 10
    for (_, end), (start, _) in zip(spans[:-1], spans[1:]):
        assert end == start and raw[end - 1 : end] == b"\n"
        before = raw[:end].splitlines()[-1].split()[0]
        assert raw[end:].split(None, 1)[0] != before


def test_a_partition_holds_whole_queries_and_no_more_than_its_share(tmp_path):
    run, _ = _files(tmp_path)
    for span in query_spans(run, 3000):
        part = read_partition(run, span, Conventions().order)
        assert np.diff(part.offsets).tolist() == [30] * len(part.query_ids)
        assert len(part.query_ids) <= 3000 // (30 * 20) + 2  # about 22 bytes a line


def test_a_query_split_between_partitions_is_refused(tmp_path):
    run, qrels = _files(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    run.write_text("".join(lines + lines[:3]))  # q0 again at the end
    with pytest.raises(UsageError, match="q0.*two partitions"):
        evaluate([run], qrels=qrels, engine="stream", partition_bytes=900)


def test_an_error_in_a_later_partition_names_the_line_of_the_file(tmp_path):
    run, qrels = _files(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    lines[1000] = "q33 Q0 doc1 1 high t\n"
    run.write_text("".join(lines))
    with pytest.raises(InputError, match=r"run.trec:1001: expected a numeric score .* got .high."):
        evaluate([run], qrels=qrels, engine="stream", partition_bytes=900)


def test_the_engines_need_trec_runs_and_qrels(tmp_path, write):
    with pytest.raises(
        UsageError, match=r"^engine='stream' scores TREC run files \(or folders of them\) against qrels; "
    ):
        evaluate([write("r.trec", "q1 Q0 d1 1 1 t\n")], engine="stream")
    jsonl = write("r.jsonl", '{"id": "q1", "retrieved": ["d1"], "relevant": ["d1"]}\n')
    with pytest.raises(UsageError, match="reads TREC runs"):
        evaluate([jsonl], qrels=write("q", "q1 0 d1 1\n"), engine="stream")


def test_an_engine_name_is_checked_once_for_both_entry_points(tmp_path, write):
    run, qrels = _files(tmp_path)
    message = r"^engine must be one of memory, stream, dask, got 'spark'$"
    with pytest.raises(UsageError, match=message):
        evaluate([run], qrels=qrels, engine="spark")
    with pytest.raises(UsageError, match=message.replace("spark", "memory")):  # memory reads runs whole
        judged_by_partitions(
            run, qrels, read_qrels=load_qrels, cutoffs=(5,), conventions=Conventions(), engine="memory"
        )


def test_the_kernel_scores_one_partition_like_the_whole_run(tmp_path):
    run_path, qrels = _files(tmp_path)
    loaded = load_runs([run_path], qrels=qrels)[0]
    whole = join(loaded.run, loaded.judgments)
    part = read_partition(run_path, query_spans(run_path, 2000)[1], Conventions().order)
    scored = score_partition(
        part, judgments_for(loaded.judgments, part.query_ids.tolist()), cutoffs=(1, 5, 10), conventions=Conventions()
    )
    rows = [whole.query_ids.tolist().index(q) for q in part.query_ids.tolist()]
    from ragreport.scoring.metrics import score

    expected = score(whole, (1, 5, 10), Conventions())
    assert np.array_equal(scored.scores.values, expected.values[:, rows, :])
    assert scored.judged.lengths.max() == 10 and scored.judged.retrieved.tolist() == [30] * len(rows)


def test_depth_needed():
    assert depth_needed((1, 5, 20)) == 20
    assert depth_needed((5,), parse_measures(["P@100"])) == 100
    assert depth_needed((5,), parse_measures(["num_ret,num_rel"])) == 5
    assert depth_needed((5,), parse_measures(["map"])) is None
    assert depth_needed((5,), parse_measures(["Rprec"])) is None


def test_a_run_from_columns_equals_the_file_read(tmp_path):
    run_path, _ = _files(tmp_path)
    rows = [line.split() for line in run_path.read_text().splitlines()]
    order = np.random.default_rng(0).permutation(len(rows))  # a data frame in any row order
    from ragreport.core.ids import as_text
    from ragreport.reading.rows import run_from_columns

    columns = run_from_columns(
        "r", [rows[i][0] for i in order], [rows[i][2] for i in order], [float(rows[i][4]) for i in order]
    )
    read = read_partition(run_path, None, Conventions().order)

    def by_query(run):
        return {
            q: as_text(run.doc_ids[run.offsets[i] : run.offsets[i + 1]]) for i, q in enumerate(run.query_ids.tolist())
        }

    assert by_query(columns) == by_query(read)


@pytest.mark.slow
def test_a_folder_of_parquet_partitions_on_dask(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.distributed")
        pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    run, qrels = _files(tmp_path)
    rows = [line.split() for line in run.read_text().splitlines()]
    folder = tmp_path / "parquet"
    folder.mkdir()
    for i in range(3):
        part = rows[i * 600 : (i + 1) * 600]
        table = pa.table(
            {"query_id": [r[0] for r in part], "doc_id": [r[2] for r in part], "score": [float(r[4]) for r in part]}
        )
        pq.write_table(table, folder / f"part-{i}.parquet")
    whole = json.loads(_report([run], qrels, engine="stream"))
    parted = json.loads(_report([folder], qrels, engine="dask"))
    for key in ("metrics", "measures", "sweep", "counts", "fingerprints", "queries", "limits"):
        assert parted["runs"][0][key] == whole["runs"][0][key], key


def test_a_parquet_file_without_a_document_column_is_refused(tmp_path):
    pa = pytest.importorskip("pyarrow") if not os.environ.get("CI") else __import__("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"qid": ["q1"], "score": [1.0]}), tmp_path / "p.parquet")
    with pytest.raises(InputError, match=r"p.parquet: expected a document id column"):
        read_partition(tmp_path / "p.parquet", None, Conventions().order)


def test_a_site_built_by_partitions_is_byte_identical(tmp_path):
    from ragreport.cli import main

    run, qrels = _files(tmp_path)
    one_partition = ["--engine", "stream", "--out", str(tmp_path / "one"), "--quiet"]
    assert main(["build", "--qrels", str(qrels), str(run), *one_partition]) == 0
    from ragreport.api import build

    parted = evaluate([run], qrels=qrels, engine="stream", partition_bytes=900)  # about 45 partitions
    build(analyse(parted), out=tmp_path / "parts")
    one = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert one == sorted(p.relative_to(tmp_path / "parts") for p in (tmp_path / "parts").rglob("*") if p.is_file())
    for name in one:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "parts" / name).read_bytes(), name


def test_folder_markers_metadata_and_empty_files_are_not_partitions(tmp_path):
    run, qrels = _files(tmp_path)
    folder = tmp_path / "job"
    folder.mkdir()
    (folder / "part-0.trec").write_text(run.read_text())
    for name, text in (
        ("_SUCCESS", ""),
        ("_metadata", "x"),
        ("part-0.meta.toml", 'name = "x"\n'),
        ("part-1.trec", ""),
        (".crc", "x"),
    ):
        (folder / name).write_text(text)
    whole = json.loads(_report([run], qrels, engine="stream"))
    parted = json.loads(_report([folder], qrels, engine="stream"))
    assert parted["runs"][0]["metrics"] == whole["runs"][0]["metrics"]


def test_a_gzip_partition_that_needs_the_line_reader(tmp_path):
    import gzip as gz

    run, qrels = _files(tmp_path)
    folder = tmp_path / "gz"
    folder.mkdir()
    (folder / "a.trec.gz").write_bytes(gz.compress(("# a comment\n" + run.read_text()).encode()))
    whole = json.loads(_report([run], qrels, engine="stream"))
    assert json.loads(_report([folder], qrels, engine="stream"))["runs"][0]["metrics"] == whole["runs"][0]["metrics"]


def test_partitions_holding_only_a_comment_are_empty_not_errors(tmp_path):
    run, qrels = _files(tmp_path)
    run.write_text("# written by a retriever, with a long comment line at the top\n\n" + run.read_text())
    whole = _report([run], qrels, engine="stream")
    assert _report([run], qrels, engine="stream", partition_bytes=16) == whole


@pytest.mark.slow
def test_a_dask_scheduler_address_that_is_no_address_is_one_error(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.distributed")
    run, qrels = _files(tmp_path)
    with pytest.raises(UsageError, match="^engine='dask': the Dask scheduler at 'notanaddress'"):
        evaluate([run], qrels=qrels, engine="dask", scheduler="notanaddress")


def test_render_draws_a_partitioned_builds_pages_again_byte_for_byte(tmp_path, capsys):
    """report.json says its bands came from the Poisson sums; render sums the stored queries exactly
    as the partitions did, so the pages it draws are the build's, byte for byte (two runs: the
    comparison's paired bands too)."""
    from ragreport.cli import main

    run, qrels = _files(tmp_path)
    other = tmp_path / "other.trec"
    rows = [line.split() for line in run.read_text().splitlines() if line]
    # The same lists scored another way: a different ranking of the same ids.
    other.write_text("".join(f"{q} Q0 {d} {r} {int(d[3:]) % 17} o\n" for q, _, d, r, _, _ in rows))
    built = tmp_path / "built"
    # K first and a second cutoff below it: the sums' columns run in ascending order of cutoff.
    (tmp_path / "meta.csv").write_text("qid,topic\n" + "".join(f"q{i},{'abc'[i % 3]}\n" for i in range(60)))
    args = ["build", "--qrels", str(qrels), str(run), str(other), "--engine", "stream", "-k", "10,5", "--quiet"]
    args += ["--query-meta", str(tmp_path / "meta.csv")]  # the slices summed alike
    assert main([*args, "--out", str(built)]) == 0
    document = json.loads((built / "report.json").read_text())
    assert [r.get("bootstrap") for r in document["runs"]] == ["poisson", "poisson"]
    again = tmp_path / "again"
    assert main(["render", str(built / "report.json"), "--out", str(again), "--quiet"]) == 0
    for name in ("index.html", "report.json"):
        assert (again / name).read_bytes() == (built / name).read_bytes(), name
    memory = tmp_path / "memory"
    assert main(["build", "--qrels", str(qrels), str(run), str(other), "--quiet", "--out", str(memory)]) == 0
    assert "bootstrap" not in json.loads((memory / "report.json").read_text())["runs"][0]
    # each page says how its figures were made: hashed weights and signs, or drawn ones
    said = [" ".join(html.unescape((site / "index.html").read_text()).split()) for site in (built, memory)]
    assert "paired Poisson bootstrap (1,000 resamples, seed 0): in every resample each query weighs" in said[0]
    assert "each sign hashed from the query's id" in said[0] and "every combination" not in said[0]
    assert "Poisson" not in said[1] and "(every combination when there are fewer)" in said[1]
    mixed = json.loads(json.dumps(document))
    del mixed["runs"][0]["bootstrap"]  # one run said to be banded one way, the other another
    (tmp_path / "mixed.json").write_text(json.dumps(mixed))
    assert main(["render", str(tmp_path / "mixed.json"), "--out", str(tmp_path / "y"), "--quiet"]) == 2
    assert "expected every run's 'bootstrap' alike (one build made them), got 'poisson'" in capsys.readouterr().err
    document["runs"][0]["bootstrap"] = document["runs"][1]["bootstrap"] = "multinomial"
    (tmp_path / "edited.json").write_text(json.dumps(document))
    assert main(["render", str(tmp_path / "edited.json"), "--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert "'bootstrap' as \"poisson\" or absent, got 'multinomial'" in capsys.readouterr().err


def _pair(tmp_path):
    """``_files``' run, another ranking of the same lists, and the judgments."""
    run, qrels = _files(tmp_path)
    other = tmp_path / "other.trec"
    rows = [line.split() for line in run.read_text().splitlines() if line]
    other.write_text("".join(f"{q} Q0 {d} {r} {int(d[3:]) % 17} o\n" for q, _, d, r, _, _ in rows))
    return run, other, qrels


def test_the_comparison_does_not_depend_on_the_partitions(tmp_path):
    # Summed bucket by bucket, exactly (docs/conventions.md section 29): the same report.json.
    run, other, qrels = _pair(tmp_path)
    one = _report([run, other], qrels, engine="stream", partition_bytes=_in_parts(run, 1))
    for parts in (2, 8):
        assert _report([run, other], qrels, engine="stream", partition_bytes=_in_parts(run, parts)) == one
    assert json.loads(one)["comparison"]["pairs"][0]["queries"] == 60


def test_the_partitioned_comparison_gives_the_memory_engines_figures_but_for_the_draws(tmp_path):
    run, other, qrels = _pair(tmp_path)
    memory = analyse(_summaries([run, other], qrels)).comparison
    assert_paired_agrees(
        memory, analyse(_summaries([run, other], qrels, engine="stream", partition_bytes=900)).comparison
    )
    # A family of a measure by name, of another cutoff than K, and of a parameter: P(rel=2)@5 has
    # no readings of its own (they are scored at the run's level), so it repeats its figure under
    # each, on both engines.
    named = "nDCG@10,P@5,map,P(rel=2)@5"
    memory = analyse(_summaries([run, other], qrels, named=named), family=[named]).comparison
    parted = _summaries([run, other], qrels, named=named, engine="stream", partition_bytes=900)
    assert_paired_agrees(memory, analyse(parted, family=[named]).comparison)
    for found in (memory, analyse(parted, family=[named]).comparison):
        by_label = {c.metric: c for c in found.comparisons}
        assert by_label["P(rel=2)@5"].readings is None and by_label["P@5"].readings is not None


def _figures(comparison) -> list[tuple]:
    fields = ("delta", "low", "high", "p", "effect", "effect_low", "effect_high", "wins", "ties", "losses", "queries")
    return [(*(getattr(c, f) for f in fields), repr(c.readings)) for c in comparison.comparisons]


#: Per-query metadata to slice ``_files``' queries by: three topics of about 20 queries.
_META = {f"q{i}": {"topic": "abc"[i % 3]} for i in range(60)}


def _sliced(slices) -> list[tuple]:
    return [(s.value, s.queries, s.examples, repr(s.runs), repr(s.comparisons)) for s in slices.slices]


def test_the_partitioned_comparison_reads_the_spilled_buckets_not_the_gathered_scores(tmp_path):
    run, other, qrels = _pair(tmp_path)
    summaries = _summaries([run, other], qrels, engine="stream", partition_bytes=900)
    store = summaries[0].paired[0]
    assert summaries[1].paired[0] is store and sorted(p.name for p in store.path.iterdir())[0].startswith("0-")
    before = analyse(summaries, query_meta=_META, slice_by=["topic"])
    rng = np.random.default_rng(5)
    assert all(c.readings for c in before.comparison.comparisons[:2])
    for summary in summaries:  # the per-query values the driver holds for the pages
        summary.scores.values[...] = rng.random(summary.scores.values.shape)
        summary.measure_values[...] = rng.random(summary.measure_values.shape)
        for values in summary.readings.values():
            values[...] = rng.random(values.shape)
    after = analyse(summaries, query_meta=_META, slice_by=["topic"])
    assert _figures(after.comparison) == _figures(before.comparison)  # the readings' too
    assert [rc.summed.gains for rc in after.comparison.runs] == [rc.summed.gains for rc in before.comparison.runs]
    assert _sliced(after.slices) == _sliced(before.slices)


@pytest.mark.parametrize("both", [False, True])
def test_partitioned_slices_do_not_depend_on_the_partitions_and_agree_with_memory(tmp_path, both):
    """Each slice's figures summed bucket by bucket (section 29): the same report.json with 1, 2
    and 8 partitions; against the memory engine, the queries and the example queries identical,
    means and differences to 1e-12, bands within the Monte Carlo tolerance, p-values too."""
    from helpers import band_tolerance

    run, other, qrels = _pair(tmp_path)
    runs = [run, other] if both else [run]

    def report(**kwargs):
        return analyse(_summaries(runs, qrels, **kwargs), query_meta=_META, slice_by=["topic"])

    one = json.dumps(document(report(engine="stream", partition_bytes=_in_parts(run, 1))), sort_keys=True)
    for parts in (2, 8):
        parted = report(engine="stream", partition_bytes=_in_parts(run, parts))
        assert json.dumps(document(parted), sort_keys=True) == one
    memory = report()
    tolerance = band_tolerance(memory.summaries[0])
    for a, b in zip(memory.slices.slices, parted.slices.slices, strict=True):
        assert (a.key, a.value, a.queries, a.examples) == (b.key, b.value, b.queries, b.examples)
        for name, figures in a.runs.items():
            summary = next(s for s in memory.summaries if s.name == name)
            for label, x in figures.items():
                y = b.runs[name][label]
                assert x.queries == y.queries and abs(x.mean - y.mean) <= 1e-12, (name, label)
                members = [q for q in _META if _META[q]["topic"] == a.value]
                rows = np.isin(summary.judged.query_ids, members) & summary.scores.scored
                column = summary.scores.of(next(m for m in summary.scores.metrics if m.label(5) == label), 5)
                sd = column[rows].std() / rows.sum() ** 0.5  # the band's: the values' over sqrt(n)
                for bound in ("low", "high"):
                    assert abs(getattr(x, bound) - getattr(y, bound)) <= tolerance * sd + 1e-12, (name, label, bound)
        for x, y in zip(a.comparisons, b.comparisons, strict=True):
            assert (x.run, x.queries) == (y.run, y.queries) and abs(x.delta - y.delta) <= 1e-12
            p = (x.p + y.p) / 2
            assert abs(x.p - y.p) <= 5 * (2 * p * (1 - p) / 10_000) ** 0.5 + 2 / 10_000


def test_the_partitioned_p_value_counts_the_hashed_sign_flips(tmp_path):
    """An independent count: the signs of section 29 (``signs``), each permutation's flipped mean
    difference against the observed one, p = (1 + count) / (1 + permutations)."""
    from ragreport.analysis.poisson import query_keys, signs

    run, other, qrels = _pair(tmp_path)
    comparison = analyse(
        _summaries([run, other], qrels, engine="stream", partition_bytes=900), permutations=300
    ).comparison
    rc = comparison.runs[0]
    for c in rc.comparisons:
        differences = rc.differences(c.metric)
        d = np.array(list(differences.values()))
        flips = signs(query_keys(np.array(list(differences)), rc.baseline.conventions.seed), 0, 5)[:300]
        count = (np.abs(flips @ d) / len(d) >= abs(d.sum()) / len(d) - 1e-12).sum()
        assert c.p == (1 + count) / 301, c.metric


def test_the_spilled_buckets_go_with_the_runs_and_on_an_error(tmp_path, monkeypatch):
    import gc
    import tempfile

    run, other, qrels = _pair(tmp_path)
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    summaries = _summaries([run, other], qrels, engine="stream", partition_bytes=900)
    assert len(list(spill.iterdir())) == 1
    del summaries
    gc.collect()
    assert not list(spill.iterdir())
    table = tmp_path / "table.jsonl"
    table.write_text('{"query_id": "q1"}\n')
    for runs in ([run, table], [table, run]):  # found after the first run spilled, and before any
        with pytest.raises(UsageError, match="reads TREC runs"):
            _summaries(runs, qrels, engine="stream", partition_bytes=900)
        gc.collect()
        assert not list(spill.iterdir())


def test_runs_summarised_with_other_seeds_are_compared_on_every_shared_query(tmp_path):
    """Two partitioned evaluate calls under other seeds key (and bucket) their queries apart: their
    comparison pairs every shared query all the same, as the memory engine's does."""
    run, qrels = _files(tmp_path)
    other = tmp_path / "other.trec"
    rows = [line.split() for line in run.read_text().splitlines() if line]
    other.write_text("".join(f"{q} Q0 {d} {r} {int(d[3:]) % 17} o\n" for q, _, d, r, _, _ in rows))
    figures = []
    for how in ({}, {"engine": "stream", "partition_bytes": 900}):
        a = evaluate([run], qrels=qrels, conventions=Conventions(resamples=100, seed=0), **how)
        b = evaluate([other], qrels=qrels, conventions=Conventions(resamples=100, seed=1), **how)
        compared = analyse([*a, *b], permutations=200).comparison.runs[0]
        first = compared.comparisons[0]
        figures.append((len(compared.pairing.query_ids), first.queries, first.wins, first.ties, first.losses))
        figures.append(round(first.delta, 12))
    assert figures[:2] == figures[2:] and figures[0][1] > 50


def test_with_three_runs_the_ranking_reads_each_pair_as_the_comparison_does(tmp_path):
    """On a partitioned build a pair's p-value and difference are the summed ones in the comparison's
    table and in the ranking's matrix alike (they were the gathered values' in the matrix)."""
    run, qrels = _files(tmp_path)
    rows = [line.split() for line in run.read_text().splitlines() if line]
    paths = [run]
    for name, mod in (("b", 17), ("c", 5)):
        path = tmp_path / f"{name}.trec"
        path.write_text("".join(f"{q} Q0 {d} {r} {int(d[3:]) % mod} {name}\n" for q, _, d, r, _, _ in rows))
        paths.append(path)
    summaries = _summaries(paths, qrels, engine="stream", partition_bytes=900)
    report = document(analyse(summaries, baseline="b", permutations=300))
    label = report["settings"]["primary"]
    compared = {
        frozenset((c["baseline"], c["run"])): (c["p"], c["delta"])
        for c in report["comparisons"]
        if c["metric"] == label
    }
    ranked = {frozenset((p["row"], p["column"])): (p["p"], abs(p["delta"])) for p in report["ranking"]["pairs"]}
    assert len(compared) == 2
    for pair, (p, delta) in compared.items():
        assert ranked[pair] == (p, abs(delta)), pair


def test_the_measures_figures_come_from_the_sums_the_partitions_added(tmp_path):
    """On a partitioned build the measures by name take their means and bands from the sums each
    partition added (section 29): given other sums, other figures; the per-query values the driver
    gathered for the pages are not read for them."""
    from ragreport.analysis.poisson import ResampledSums, measure_rows, query_keys
    from ragreport.analysis.summary import summarise

    run, qrels = _files(tmp_path)
    (summary,) = _summaries([run], qrels, named="P@5,gm_map", engine="stream", partition_bytes=_in_parts(run, 3))
    rows = np.flatnonzero(summary.scores.scored)
    keys = query_keys(summary.judged.query_ids[rows], summary.conventions.seed)
    values = summary.measure_values[:, rows]
    again = summarise(
        summary.judged,
        summary.scores,
        summary.cutoffs,
        summary.conventions,
        summary.measures,
        np.zeros_like(summary.measure_values),  # gathered values that say nothing
        sums=summary.sums,
        sum_cutoffs=summary.sweep.cutoffs,
        measure_sums=ResampledSums.of(keys, measure_rows(values, summary.measures), summary.conventions.resamples),
    )
    assert again.measure_at == summary.measure_at
    assert again.measure_at["P@5"].mean == pytest.approx(values[0].mean(), abs=1e-12) and values[0].mean() > 0


def _same_judgments(got, want):
    assert got.query_ids.tolist() == want.query_ids.tolist()
    assert got.offsets.tolist() == want.offsets.tolist() and got.grades.tolist() == want.grades.tolist()
    assert as_text(got.doc_ids) == as_text(want.doc_ids)


@pytest.mark.parametrize("span", [300, 1000, 2500])
def test_the_judgment_index_reads_what_the_whole_file_holds(tmp_path, monkeypatch, span):
    """Judgments read from the spans holding some queries are the whole file's of those queries."""
    _, qrels = _files(tmp_path)
    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", span)
    index = JudgmentIndex.of(qrels)
    whole = load_qrels(qrels)
    assert index is not None and len(index.spans) == len(query_spans(qrels, span)) > 1
    assert index.top_grade == int(whole.grades.max())
    rng = np.random.default_rng(0)
    ids = whole.query_ids.tolist()
    for wanted in ([], ids, ["q0"], ["nowhere", "q3"], *(rng.choice(ids, size=n).tolist() for n in (2, 9, 30))):
        for keep in (True, False):
            _same_judgments(index.judgments(np.array(wanted, dtype=str), keep), judgments_for(whole, wanted, keep))


@pytest.mark.parametrize("case", ["small", "a query in two places", "gzip", "a header line"])
def test_qrels_the_index_cannot_read_are_read_whole(tmp_path, monkeypatch, case):
    _, qrels = _files(tmp_path)
    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", 10_000_000 if case == "small" else 300)
    lines = qrels.read_text().splitlines(keepends=True)
    if case == "a query in two places":
        qrels.write_text("".join(lines[1:] + lines[:1]))  # q0's first line after every other query's
    elif case == "gzip":
        import gzip

        qrels.write_bytes(gzip.compress(qrels.read_bytes()))
    elif case == "a header line":
        qrels.write_text("query-id 0 corpus-id score\n" + "".join(lines))
    assert JudgmentIndex.of(qrels) is None


def test_a_stream_build_reading_the_qrels_by_spans_gives_the_same_report(tmp_path, monkeypatch):
    run, qrels = _files(tmp_path)
    whole = _report([run], qrels, engine="stream", partition_bytes=900)
    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", 700)
    assert partition.cached_index(str(qrels.resolve())) is not None
    assert _report([run], qrels, engine="stream", partition_bytes=900) == whole


@pytest.mark.parametrize(
    "name, indexed",
    [
        ("trec_eval_test/qrels.test", True),  # trec_eval's own test qrels, as its repository holds them
        ("trec_eval_test/qrels.rel_level", True),
        ("trec_eval_test/qrels.test.with-comments", True),
        ("trec_eval_test/qrels.comment.test", True),
        ("trec_eval_edge/qrels.dup", False),  # a (query, id) pair twice: the line reader decides
        ("beir_qrels.tsv", False),  # BEIR's header line: not strict TREC
    ],
)
def test_the_judgment_index_on_real_qrels_layouts(monkeypatch, name, indexed):
    """Qrels written by their own tools, cut into five spans: the whole file's judgments, or read whole."""
    path = DATA / name
    monkeypatch.setattr(partition, "QRELS_SPAN_BYTES", max(64, path.stat().st_size // 5))
    index = JudgmentIndex.of(path)
    assert (index is not None) == indexed
    if index is None:
        return
    whole = load_qrels(path)
    assert len(index.spans) >= 3
    for keep in (True, False):
        for wanted in (whole.query_ids, whole.query_ids[::3], whole.query_ids[:1]):
            _same_judgments(index.judgments(wanted, keep), judgments_for(whole, wanted.tolist(), keep))
