"""``ragreport pr`` end to end: the base found in each place it can come from, the files beside the
site, and the one comment kept on a pull request through a local server on 127.0.0.1 standing in
for GitHub's REST API (no network)."""

from __future__ import annotations

import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from ragreport.cli import main
from ragreport.output.exports.github import marker

QRELS = "".join(f"q{i} 0 d{i} 1\nq{i} 0 e{i} 1\n" for i in range(30))
# cand at the base: the two relevant ids at ranks 2 and 3 of every query; at the head: at ranks 1 and 2
BASE = "".join(f"q{i} Q0 x{i} 1 3 cand\nq{i} Q0 d{i} 2 2 cand\nq{i} Q0 e{i} 3 1 cand\n" for i in range(30))
HEAD = "".join(f"q{i} Q0 d{i} 1 3 cand\nq{i} Q0 e{i} 2 2 cand\nq{i} Q0 x{i} 3 1 cand\n" for i in range(30))
# nDCG@10 at the base, on every query: (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3)); at the head 1
BASE_NDCG = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
#: The fake API's page of comments: small, so that the listing runs over several pages.
PAGE = 2


class FakeGitHub:
    """GitHub's issue-comment endpoints in memory: list (paginated with a ``Link`` header), create,
    edit; every request kept as (method, path, Authorization)."""

    def __init__(self, comments=(), refuse: int | None = None):
        self.comments = [dict(c) for c in comments]
        self.requests: list[tuple[str, str, str]] = []
        self.refuse = refuse
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # the test's output stays clean
                pass

            def _answer(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self):
                url = urlsplit(self.path)
                fake.requests.append((self.command, url.path, self.headers.get("Authorization", "")))
                if fake.refuse:
                    return self._answer(fake.refuse, {"message": "Resource not accessible by integration"})
                length = int(self.headers.get("Content-Length") or 0)
                sent = json.loads(self.rfile.read(length)) if length else None
                if self.command == "GET" and url.path == "/repos/o/r/issues/7/comments":
                    page = int(parse_qs(url.query).get("page", ["1"])[0])
                    chunk = fake.comments[(page - 1) * PAGE : page * PAGE]
                    more = page * PAGE < len(fake.comments)
                    base = f"http://127.0.0.1:{fake.port}{url.path}"
                    link = [("Link", f'<{base}?per_page=100&page={page + 1}>; rel="next"')] if more else []
                    return self._answer(200, chunk, link)
                if self.command == "POST" and url.path == "/repos/o/r/issues/7/comments":
                    made = {"id": 1000 + len(fake.comments), "body": sent["body"], "html_url": "http://x/c"}
                    fake.comments.append(made)
                    return self._answer(201, made)
                if self.command == "PATCH" and url.path.startswith("/repos/o/r/issues/comments/"):
                    found = next(c for c in fake.comments if str(c["id"]) == url.path.rsplit("/", 1)[1])
                    found["body"] = sent["body"]
                    return self._answer(200, found)
                return self._answer(404, {"message": "Not Found"})

            do_GET = do_POST = do_PATCH = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_TOKEN", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)  # the fake API is reached directly
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "cand.trec").write_text(BASE)
    (tmp_path / "cand.trec").write_text(HEAD)
    return tmp_path


def _pr(folder, *extra, run="cand.trec"):
    qrels = str(folder / "qrels.txt")
    return main(["pr", "--qrels", qrels, str(folder / run), "--resamples", "200", "--quiet", *extra])


def _on_github(monkeypatch, folder, fake, event=None):
    event_file = folder / "event.json"
    event_file.write_text(json.dumps(event if event is not None else {"pull_request": {"number": 7}}))
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{fake.port}")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event_file))


def test_the_first_push_creates_the_comment_the_second_updates_it_and_no_other_is_touched(inputs, monkeypatch):
    foreign = [
        {"id": 1, "body": "LGTM"},
        {"id": 2, "body": "<!-- ragreport:000000000000 -->\nanother report's comment"},
        {"id": 3, "body": "a bot's comment"},
        {"id": 4, "body": "ragreport: Retrieval report: 1 runs (named, but no marker)"},
        {"id": 5, "body": "more"},
    ]
    fake = FakeGitHub(foreign)
    try:
        _on_github(monkeypatch, inputs, fake)
        out = inputs / "one" / "site"
        assert _pr(inputs, "--out", str(out), "--title", "Retrieval") == 0
        mark = marker("Retrieval")
        assert mark == "<!-- ragreport:1c3d1a7d17bf -->"  # sha256("Retrieval") begins 1c3d1a7d17bf
        # five foreign comments on three pages of two: every page read, then one comment created
        assert [(m, p) for m, p, _ in fake.requests] == [("GET", "/repos/o/r/issues/7/comments")] * 3 + [
            ("POST", "/repos/o/r/issues/7/comments")
        ]
        assert {auth for _, _, auth in fake.requests} == {"Bearer t0ken"}
        ours = fake.comments[5]
        assert ours["body"] == (inputs / "one" / "comment.md").read_text() and ours["body"].startswith(mark)
        fake.requests.clear()
        (inputs / "cand.trec").write_text(BASE)  # a second push: other figures, the same comment
        assert _pr(inputs, "--out", str(out), "--title", "Retrieval") == 0
        assert [m for m, _, _ in fake.requests] == ["GET", "GET", "GET", "PATCH"]
        assert fake.requests[-1][1] == "/repos/o/r/issues/comments/1005"
        assert len(fake.comments) == 6 and fake.comments[5]["body"] == (inputs / "one" / "comment.md").read_text()
        assert "0.693" in fake.comments[5]["body"] and "1.000 nDCG@10" not in fake.comments[5]["body"]
        assert fake.comments[:5] == foreign  # never a comment without the marker
        fake.requests.clear()
        assert _pr(inputs, "--out", str(out), "--title", "Another title") == 0  # a second report: its own
        assert [m for m, _, _ in fake.requests] == ["GET", "GET", "GET", "POST"]
        assert len(fake.comments) == 7 and fake.comments[:5] == foreign
    finally:
        fake.close()


def test_no_pull_request_no_token_or_a_refusal_posts_nothing_and_the_gates_decide(inputs, monkeypatch, capsys):
    fake = FakeGitHub()
    try:
        _on_github(monkeypatch, inputs, fake, event={"ref": "refs/heads/main"})  # a push's event
        assert _pr(inputs, "--out", str(inputs / "push" / "site")) == 0
        monkeypatch.delenv("GITHUB_TOKEN")
        _on_github(monkeypatch, inputs, fake)
        monkeypatch.delenv("GITHUB_TOKEN")  # a pull request, no token
        assert _pr(inputs, "--out", str(inputs / "notoken" / "site")) == 0
        assert fake.requests == [] and (inputs / "notoken" / "comment.md").is_file()
    finally:
        fake.close()
    refusing = FakeGitHub(refuse=403)  # a fork's read-only token
    try:
        _on_github(monkeypatch, inputs, refusing)
        capsys.readouterr()
        assert _pr(inputs, "--out", str(inputs / "fork" / "site"), "--require", "P@10>=0.5") == 1  # P@10 0.2
        err = capsys.readouterr().err
        assert "ragreport: warning: the pull request's comment was not created or updated (GET http://127.0.0.1:" in err
        assert "HTTP 403" in err and (inputs / "fork" / "comment.md").is_file()
        assert len(refusing.requests) == 1
    finally:
        refusing.close()


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("GITHUB_REPOSITORY", "not a repository", "$GITHUB_REPOSITORY: expected owner/name, got 'not a repository'"),
        ("GITHUB_EVENT_PATH", "missing.json", "$GITHUB_EVENT_PATH missing.json: expected the event's JSON, got"),
    ],
)
def test_a_broken_github_variable_is_one_line_before_any_run_is_read(
    inputs, monkeypatch, capsys, variable, value, expected
):
    fake = FakeGitHub()
    try:
        _on_github(monkeypatch, inputs, fake)
        monkeypatch.setenv(variable, value)
        assert _pr(inputs, "--out", str(inputs / "x" / "site")) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"ragreport: error: {expected}") and err.count("\n") == 1
        assert not (inputs / "x").exists() and fake.requests == []
    finally:
        fake.close()


def _base_site(inputs):
    assert main(["build", "--qrels", str(inputs / "qrels.txt"), str(inputs / "base" / "cand.trec")] + [
        "--resamples", "200", "--quiet", "--out", str(inputs / "base" / "site")
    ]) == 0  # fmt: skip
    return inputs / "base" / "site"


@pytest.mark.parametrize("where", ["report.json", "site", "history"])
def test_each_place_the_base_can_come_from_is_found(inputs, where):
    if where == "history":
        for label in ("older", "newest"):  # the newest report of the history is the base
            run = inputs / "cand.trec" if label == "older" else inputs / "base" / "cand.trec"
            code = main(["publish", str(inputs / "pages"), "--qrels", str(inputs / "qrels.txt"), str(run)] + [
                "--label", label, "--resamples", "200", "--quiet"
            ])  # fmt: skip
            assert code == 0
        base = inputs / "pages"
    else:
        site = _base_site(inputs)
        base = site / "report.json" if where == "report.json" else site
    assert _pr(inputs, "--out", str(inputs / "head" / "site"), "--base", str(base), "--fail-on", "worse") == 0
    comment = (inputs / "head" / "comment.md").read_text()
    assert "judged alone" not in comment
    # the change since the base: 1 - BASE_NDCG = 0.30658 on every query, so a band of one point
    assert round(1 - BASE_NDCG, 3) == 0.307
    assert "| cand | nDCG@10 | 0.693 | 1.000 | +0.307 | [+0.307, +0.307] |" in comment
    report = json.loads((inputs / "head" / "site" / "report.json").read_text())
    assert report["drift"]["rows"][0]["then"] == pytest.approx(1 / 5)  # P@10: two relevant ids of ten
    ndcg = next(r for r in report["drift"]["rows"] if r["metric"] == "nDCG@10")
    assert ndcg["then"] == pytest.approx(BASE_NDCG) and ndcg["delta"] == pytest.approx(1 - BASE_NDCG)
    for name in ("summary.md", "junit.xml", "comment.md"):
        assert (inputs / "head" / name).is_file(), name


def test_a_missing_or_absent_base_is_said_in_the_comment_and_the_head_judged_alone(inputs):
    assert _pr(inputs, "--out", str(inputs / "a" / "site"), "--base", str(inputs / "nowhere")) == 0
    comment = (inputs / "a" / "comment.md").read_text()
    assert f"_The base report {inputs / 'nowhere'} was not found: the head is judged alone" in comment
    assert _pr(inputs, "--out", str(inputs / "b" / "site")) == 0
    assert "_No base report was given (--base): the head is judged alone" in (inputs / "b" / "comment.md").read_text()


def test_a_folder_that_holds_no_report_is_refused_in_one_line(inputs, capsys):
    empty = inputs / "stranger"
    empty.mkdir()
    assert _pr(inputs, "--out", str(inputs / "c" / "site"), "--base", str(empty)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"ragreport: error: --base {empty}: expected a report.json, a site folder holding report.json or "
        "a history folder written by ragreport publish\n"
    )
    assert _pr(inputs, "--out", str(inputs / "c" / "site"), "--report-url", "javascript:alert(1)") == 2
    assert "--report-url: expected an http:// or https:// address, got 'javascript:alert(1)'" in capsys.readouterr().err
    assert not (inputs / "c").exists()


def test_the_comment_links_the_full_report_and_the_exit_status_is_the_gates(inputs):
    site = _base_site(inputs)
    (inputs / "cand.trec").write_text(BASE.replace("x", "y"))  # the same figures: rank 1 is still wrong
    url = "https://example.org/pr-7/index (1).html"
    code = _pr(inputs, "--out", str(inputs / "h" / "site"), "--base", str(site), "--require", "cand:nDCG@10>=0.9")
    assert code == 1  # nDCG@10 0.693 everywhere: its lower band bound 0.693 < 0.9
    assert (
        _pr(inputs, "--out", str(inputs / "h" / "site"), "--base", str(site), "--report-url", url.replace(" ", "%20"))
        == 0
    )
    comment = (inputs / "h" / "comment.md").read_text()
    assert comment.rstrip().endswith(
        "**[Open the full report](https://example.org/pr-7/index%20%281%29.html)**: every figure, chart and query."
    )


def test_metrics_txt_is_openmetrics_with_every_figure_and_the_change_since_the_base(inputs):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    site = _base_site(inputs)
    assert _pr(inputs, "--out", str(inputs / "head" / "site"), "--base", str(site)) == 0
    text = (inputs / "head" / "metrics.txt").read_text()
    assert text.endswith("\n# EOF\n")
    families = {f.name: f for f in text_string_to_metric_families(text)}  # refuses anything invalid
    assert sorted(families) == [
        "ragreport_band_high",
        "ragreport_band_low",
        "ragreport_base_difference",
        "ragreport_mean",
    ]
    assert {f.type for f in families.values()} == {"gauge"}
    value = {(f.name, s.labels["run"], s.labels["metric"]): s.value for f in families.values() for s in f.samples}
    # the head ranks both relevant ids first: nDCG@10 1 on every query, a band of a point
    assert value["ragreport_mean", "cand", "nDCG@10"] == pytest.approx(1.0)
    assert value["ragreport_band_low", "cand", "nDCG@10"] == pytest.approx(1.0)
    assert value["ragreport_mean", "cand", "P@10"] == pytest.approx(0.2)  # 2 relevant of 10
    assert value["ragreport_mean", "cand", "RR@10"] == pytest.approx(1.0)
    assert value["ragreport_base_difference", "cand", "nDCG@10"] == pytest.approx(1 - BASE_NDCG)
    assert value["ragreport_base_difference", "cand", "RR@10"] == pytest.approx(1 - 1 / 2)  # rank 2 -> 1
    assert value["ragreport_base_difference", "cand", "P@10"] == 0.0
    report = json.loads((inputs / "head" / "site" / "report.json").read_text())
    held = report["runs"][0]["metrics"]
    assert len(families["ragreport_mean"].samples) == len(held)  # every metric of the run, once
    for label, figure in held.items():
        assert value["ragreport_band_high", "cand", label] == figure["high"]  # in full, not rounded


def test_openmetrics_escapes_label_values_and_leaves_out_figures_not_taken(inputs, capsys):
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    from ragreport.output.exports.tables import openmetrics

    site = _base_site(inputs)
    document = json.loads((site / "report.json").read_text())
    run = document["runs"][0]
    run["name"] = 'a "quoted" \\ name\nover two lines'
    run["metrics"]["P@10"]["low"] = None  # a figure that could not be taken: no sample
    families = {f.name: f for f in text_string_to_metric_families(openmetrics(document))}
    names = {s.labels["run"] for f in families.values() for s in f.samples}
    assert names == {'a "quoted" \\ name\\x0aover two lines'}  # the line feed shown as an escape, as everywhere
    assert ("P@10" not in {s.labels["metric"] for s in families["ragreport_band_low"].samples}) and (
        "P@10" in {s.labels["metric"] for s in families["ragreport_band_high"].samples}
    )
    qrels, run_file = str(inputs / "qrels.txt"), str(inputs / "cand.trec")
    assert main(["score", "--qrels", qrels, run_file, "--format", "openmetrics", "--resamples", "200", "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert printed == openmetrics(json.loads(_score_json(inputs, capsys)))
    assert "ragreport_base_difference{" not in printed  # no base: the family is there, with no sample


def _score_json(inputs, capsys):
    qrels, run_file = str(inputs / "qrels.txt"), str(inputs / "cand.trec")
    assert main(["score", "--qrels", qrels, run_file, "--format", "json", "--resamples", "200", "--quiet"]) == 0
    return capsys.readouterr().out


def _comment_parts(inputs, previous=None):
    """The head's view and document, as ``pr`` makes them, against ``previous``."""
    from ragreport import api
    from ragreport.output.site.view.build import build_view

    analysis = api.analyse(
        api.evaluate([str(inputs / "cand.trec")], qrels=str(inputs / "qrels.txt")), previous=previous
    )
    return build_view(analysis, pages=False), api.document(analysis)


def test_the_comment_stands_alone_verdicts_change_since_base_chart_gates_link(inputs):
    site = _base_site(inputs)
    url = "https://example.org/pr-7/"
    code = _pr(inputs, "--out", str(inputs / "h" / "site"), "--base", str(site), "--report-url", url)
    assert code == 0
    text = (inputs / "h" / "comment.md").read_text()
    heading, verdict = "#### What changed since the base", "cand scores 1.000 nDCG@10"
    chart, suite = "nDCG@10: each run's change since the base", "### cand (K = 10)"
    order = [text.index(part) for part in (marker("Retrieval report: cand"), verdict, heading, chart, suite)]
    assert order == sorted(order) and order[0] == 0
    # +0.307 (1 - BASE_NDCG) on an axis of -0.5 to +0.5 over 41 columns: column round(0.807 x 40) = 32
    assert "```text\ncand  ....................|...........o........  +0.307 [+0.307, +0.307]\n" in text
    assert "\n      -0.500              0              +0.500\n```\n" in text  # 0 under the | column
    assert text.endswith(f"\n**[Open the full report]({url})**: every figure, chart and query.\n")
    gated = _pr(inputs, "--out", str(inputs / "g" / "site"), "--base", str(site), "--require", "P@10>=0.5")
    assert gated == 1
    gates = (inputs / "g" / "comment.md").read_text()
    assert "**Gates.** 1 of 1 gate check failed" in gates and gates.index("**Gates.**") < gates.index(heading)


def test_the_chart_without_a_base_draws_means_or_differences_from_the_baseline(inputs):
    from ragreport import api
    from ragreport.output.exports.text import text_chart

    _, document = _comment_parts(inputs)
    assert text_chart(document) == [
        "nDCG@10: each run's mean with its 95% band (`[===]`; `o` the mean), on 0 to 1:",
        "",
        "```text",
        "cand  ........................................o  1.000 [1.000, 1.000]",
        "      0                                       1",
        "```",
        "",
    ]
    (inputs / "best.run").write_text(HEAD)
    (inputs / "w```x.run").write_text(BASE)  # a name holding a fence: the chart's fence is longer
    runs = [str(inputs / "best.run"), str(inputs / "w```x.run")]
    lines = text_chart(api.document(api.analyse(api.evaluate(runs, qrels=str(inputs / "qrels.txt")))))
    # w```x against best: 0.693 - 1 = -0.307 on every query, column round((0.5 - 0.307) x 40) = 8
    assert lines[0].startswith("nDCG@10: each run's difference from the baseline best, with its 95% band")
    assert lines[2:6] == [
        "````text",
        "w```x  ........o...........|....................  -0.307 [-0.307, -0.307]",
        "       -0.500              0              +0.500",
        "````",
    ]


def test_a_comment_over_the_limit_keeps_the_marker_verdicts_and_link_and_says_what_was_left_out(inputs):
    from ragreport.output.exports.text import pr_comment

    view, document = _comment_parts(inputs, previous=_base_site(inputs) / "report.json")
    mark, url = marker(view.title), "https://example.org/r"
    whole = pr_comment(view, document, mark=mark, no_base=None, report_url=url)
    assert "Left out" not in whole
    limit = whole.index("### cand (K = 10)") + 600  # room for the change since the base and the chart only
    trimmed = pr_comment(view, document, mark=mark, no_base=None, report_url=url, limit=limit)
    assert len(trimmed) <= limit < len(whole)
    assert trimmed.startswith(mark) and "cand scores 1.000 nDCG@10" in trimmed and "```text" in trimmed
    assert "#### What changed since the base" in trimmed and "### cand (K = 10)" not in trimmed
    assert "_Left out to fit GitHub's 65,536-character limit on a comment: " in trimmed
    assert "the suite table" in trimmed
    assert trimmed.endswith(f"**[Open the full report]({url})**: every figure, chart and query.\n")
