"""Helpers for tests that build sites and read the HTML back."""

from __future__ import annotations

import json
import re
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
