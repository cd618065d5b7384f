"""Helpers for tests that build sites and read the HTML back."""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path

INJECTIONS = ("<img src=x onerror=alert(1)>", "</script><script>alert(1)</script>")


class Page(HTMLParser):
    """A parsed page: its text (scripts and styles aside), inline scripts, styles, JSON blocks, tags."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.source = text
        self.text_parts: list[str] = []
        self.inline_scripts: list[str] = []
        self.styles: list[str] = []
        self.json_blocks: dict[str, str] = {}
        self.data_blocks: dict[str, str] = {}  # other non-script types: the single file's packed plotly.js
        self.tags: list[tuple[str, dict]] = []
        self._in: tuple[str, dict] | None = None
        self._buffer: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag in ("script", "style"):
            self._in, self._buffer = (tag, attrs), []

    def handle_endtag(self, tag):
        if self._in and tag == self._in[0]:
            content = "".join(self._buffer)
            kind, attrs = self._in
            if kind == "style":
                self.styles.append(content)
            elif attrs.get("type") == "application/json":
                self.json_blocks[attrs["id"]] = content
            elif attrs.get("type") == "application/octet-stream":
                self.data_blocks[attrs["id"]] = content
            elif "src" not in attrs:
                self.inline_scripts.append(content)
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._buffer.append(data)
        else:
            self.text_parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.text_parts))

    def attrs_of(self, tag: str) -> list[dict]:
        return [a for t, a in self.tags if t == tag]

    def csp(self) -> str:
        return next(a["content"] for a in self.attrs_of("meta") if a.get("http-equiv") == "Content-Security-Policy")

    def json(self, block_id: str):
        return json.loads(self.json_blocks[block_id])


def read_page(path: Path) -> Page:
    return Page(path.read_text("utf-8"))


def site_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def second_sample_run(folder: Path) -> Path:
    """The sample with its lists reversed in their top 3 and another name: a second run to compare."""
    from ragreport.reading.registry import sample_path

    lines = []
    for line in sample_path().read_text().splitlines():
        record = json.loads(line)
        record["retrieved"] = record["retrieved"][:3][::-1] + record["retrieved"][3:]
        lines.append(json.dumps(record))
    path = folder / "reversed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (folder / "reversed.meta.toml").write_text('name = "sample-reversed"\ndate = 2026-11-09\n')
    return path


#: The four runs of the layout tests: a baseline and three others, names as long as real ones.
FOUR_RUNS = ("bm25-baseline", "bm25-rm3-query-expansion", "dense-contriever-msmarco", "hybrid-rrf-bm25-dense")


def four_trec_runs(folder: Path, queries: int = 300, depth: int = 30) -> tuple[Path, list[Path]]:
    """A TREC qrels file and four TREC runs over ``queries`` queries (no query text, as TREC input has
    none): the baseline ranks with noise, the others with less or more noise, so the comparison holds
    better, worse and unclear verdicts. Deterministic (a fixed seed)."""
    import random

    rng = random.Random(11)
    qrels, runs = [], {name: [] for name in FOUR_RUNS}
    noise = dict(zip(FOUR_RUNS, (1.0, 0.8, 1.6, 0.95)))
    for q in range(queries):
        qid = str(301 + q)
        grades = {f"D{q}-{d:03d}": max(0, 2 - d // 4) if rng.random() < 0.7 else 0 for d in range(depth)}
        qrels += [f"{qid} 0 {doc} {grade}" for doc, grade in grades.items()]
        for name in FOUR_RUNS:
            scored = sorted(grades, key=lambda doc: -(grades[doc] + rng.gauss(0, noise[name])))
            runs[name] += [f"{qid} Q0 {doc} {r + 1} {depth - r:.4f} {name}" for r, doc in enumerate(scored)]
    qrels_path = folder / "qrels.trec"
    qrels_path.write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in runs.items():
        path = folder / f"{name}.trec"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return qrels_path, paths


# --- Histories (ragreport publish) ---------------------------------------------------------------

#: 30 queries, two relevant ids each; three runs: the baseline, a worse one and a better one.
QRELS = "".join(f"q{i} 0 d{i} 1\nq{i} 0 e{i} 1\n" for i in range(30))
#: The same queries with one more relevant id on the first ten: another label set.
QRELS_MORE = QRELS + "".join(f"q{i} 0 x{i} 1\n" for i in range(10))
BASE = "".join(f"q{i} Q0 x{i} 1 3 base\nq{i} Q0 d{i} 2 2 base\nq{i} Q0 y{i} 3 1 base\n" for i in range(30))
WORSE = "".join(f"q{i} Q0 x{i} 1 3 cand\nq{i} Q0 y{i} 2 2 cand\nq{i} Q0 d{i} 3 1 cand\n" for i in range(30))
BETTER = "".join(f"q{i} Q0 d{i} 1 3 cand\nq{i} Q0 e{i} 2 2 cand\nq{i} Q0 x{i} 3 1 cand\n" for i in range(30))
FAST = ("--resamples", "200", "--permutations", "500", "--quiet")


def history_inputs(folder: Path) -> Path:
    """The judgments and runs of :func:`publish` written into ``folder``."""
    for name, text in {
        "qrels.txt": QRELS,
        "qrels_more.txt": QRELS_MORE,
        "base.trec": BASE,
        "worse/cand.trec": WORSE,
        "better/cand.trec": BETTER,
    }.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def publish(folder: Path, history: Path, candidate: str = "worse", qrels: str = "qrels.txt", *extra: str) -> int:
    """``ragreport publish history`` of the baseline and the ``candidate`` ("worse" or "better")."""
    from ragreport.cli import main

    return main(
        [
            "publish",
            str(history),
            "--qrels",
            str(folder / qrels),
            str(folder / "base.trec"),
            str(folder / candidate / "cand.trec"),
            *FAST,
            *extra,
        ]
    )


def publish_three(folder: Path, history: Path) -> Path:
    """v1 and v2 on the same sets (the candidate gets better), v3 on another label set."""
    assert publish(folder, history, "worse", "qrels.txt", "--label", "v1") == 0
    assert publish(folder, history, "better", "qrels.txt", "--label", "v2") == 0
    assert publish(folder, history, "better", "qrels_more.txt", "--label", "v3") == 0
    return history


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    """An HTTP server of ``root`` on a free port, in a thread; ``.shutdown()`` it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- A new user's first report: 4 runs of 500 queries, a corpus and query metadata --------------

NEW_USER_RUNS = ("bm25", "bm25-rerun", "dense-e5", "hybrid-rrf")
TOPICS = ("health", "finance", "travel", "science", "sports")
_WORDS = (
    "the of and to in is for that on with as by at from this are be an or which was have it not"
    " retrieval passage query document answer model search index ranking relevant score dense sparse"
    " river city health bank market travel flight hotel science energy cell protein match team league"
    " season price rate loan visa museum climate orbit virus vaccine tax budget coach player trip"
).split()


def new_user_inputs(folder: Path, queries: int = 500, depth: int = 20) -> list[str]:
    """The issue-25 case a new user makes: 4 TREC runs of ``queries`` queries, TREC qrels, the
    queries' text (TSV), a corpus (BEIR corpus.jsonl, MS MARCO-like passages of 40-90 words, one per
    retrieved id) and per-query metadata (CSV: topic and difficulty). Returns the arguments of
    ``build``/``score``. Deterministic (a fixed seed)."""
    import random

    rng = random.Random(25)
    weights = [1 / (r + 1) for r in range(len(_WORDS))]  # Zipf-like: text compresses as prose does
    qrels, runs = [], {name: [] for name in NEW_USER_RUNS}
    noise = dict(zip(NEW_USER_RUNS, (1.0, 0.8, 1.1, 0.9)))
    corpus, query_lines, meta = [], [], ["query_id,topic,difficulty"]
    for q in range(queries):
        qid = str(1001 + q)
        docs = [f"doc{q:04d}-{d:02d}" for d in range(depth + 10)]
        grades = {doc: max(0, 2 - d // 3) if rng.random() < 0.6 else 0 for d, doc in enumerate(docs[:depth])}
        qrels += [f"{qid} 0 {doc} {grade}" for doc, grade in grades.items()]
        for name in NEW_USER_RUNS:
            pool = docs[:depth] + rng.sample(docs[depth:], 5)
            ranked = sorted(pool, key=lambda doc: -(grades.get(doc, 0) + rng.gauss(0, noise[name])))
            runs[name] += [f"{qid} Q0 {doc} {r + 1} {len(ranked) - r:.4f} {name}" for r, doc in enumerate(ranked)]
        for doc in docs[: depth + 5]:
            words = rng.choices(_WORDS, weights, k=rng.randint(40, 90))
            corpus.append(
                {"_id": doc, "title": " ".join(rng.choices(_WORDS[20:], k=3)).title(), "text": " ".join(words)}
            )
        query_lines.append(f"{qid}\t" + " ".join(rng.choices(_WORDS[20:], k=rng.randint(3, 7))))
        meta.append(f"{qid},{TOPICS[q % len(TOPICS)]},{('easy', 'hard')[rng.random() < 0.3]}")
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in runs.items():
        path = folder / f"{name}.trec"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    (folder / "queries.tsv").write_text("\n".join(query_lines) + "\n")
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "query-meta.csv").write_text("\n".join(meta) + "\n")
    return [
        "--qrels",
        str(folder / "qrels.txt"),
        *paths,
        "--queries",
        str(folder / "queries.tsv"),
        "--corpus",
        str(folder / "corpus.jsonl"),
        "--query-meta",
        str(folder / "query-meta.csv"),
    ]


def audit_qrels(folder: Path, queries: int = 40, name: str = "human.qrels", agree: float = 0.7) -> Path:
    """Human labels for the first ``queries`` queries of ``folder/qrels.txt`` (as
    :func:`new_user_inputs` writes it): each grade kept with probability ``agree``, else drawn
    again (0 to 2), and one id the model did not judge added per query. Deterministic."""
    import random

    rng = random.Random(22)
    lines, seen = [], []
    for line in (folder / "qrels.txt").read_text().splitlines():
        qid, _, doc, grade = line.split()
        if qid not in seen:
            if len(seen) == queries:
                break
            seen.append(qid)
            lines.append(f"{qid} 0 extra-{qid} {rng.randint(0, 2)}")
        g = int(grade) if rng.random() < agree else rng.randint(0, 2)
        lines.append(f"{qid} 0 {doc} {g}")
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


_LONG_FLOAT = re.compile(rb"-?\d+\.\d{11,}(?:e-?\d+)?")
_FIGURE_ID = re.compile(rb"fig-[0-9a-f]{12}")


def float_blind(data: bytes) -> bytes:
    """A page with every double written in full rounded to ten significant digits and the chart ids
    (hashes of their data) masked: two pages equal under it differ only in bits a reader never
    sees (a bootstrap mean summed in another order, docs/conventions.md section 22.5)."""
    data = _LONG_FLOAT.sub(lambda m: f"{float(m.group()):.10g}".encode(), data)
    return _FIGURE_ID.sub(b"fig-X", data)


def held_as(document: dict, older: dict) -> dict:
    """``document`` (a report.json) with only the suite metrics ``older`` (a report.json of an
    earlier schema, or made before a metric joined the suite) holds: what rendering ``older`` shows
    (docs/conventions.md section 26)."""
    keys = {key for run in older["runs"] for key in run["sweep"] if key != "k"}
    dropped = {key for run in document["runs"] for key in run["sweep"] if key != "k"} - keys
    for key in dropped:
        document = without_metric(document, key)
    return document


def without_metric(document, key: str):
    """A report.json as one made before the catalogue's metric ``key`` existed: every figure of it gone."""
    if isinstance(document, dict):
        return {k: without_metric(v, key) for k, v in document.items() if k != key and not k.startswith(key + "@")}
    if isinstance(document, list):
        return [without_metric(v, key) for v in document]
    return document
