"""Every output a user sees, compared with the copies in tests/data/golden.

The copies were written by the version before a restructuring; a change that means to alter what
users see updates them in the same commit, on purpose::

    RAGREPORT_GOLDEN_UPDATE=1 pytest tests/test_golden.py

and the diff of tests/data/golden shows a reviewer exactly what changed. The comparison is exact,
but the copies are stored in a form a diff can be read in (:func:`normalise`, lossless):

- every page inlines the stylesheet and script of ``templates/assets`` and admits them in its
  Content-Security-Policy by their hashes. The page's copy holds a placeholder for each of them
  instead, after the test has checked that the page inlines the asset byte for byte and that its
  policy lists exactly that asset's hash; the assets themselves are checked once, against
  ``golden/assets.txt`` (their sha256 and the policy's source). A one-line change to ``site.css``
  changes that one file.
- JSON (report.json, score.json, the pages' figure and table data blocks, the query view's gzipped
  block) is stored indented, after the test has checked that the output is exactly the compact
  JSON the product writes of the same value: any value that changes, changes the copy.
- the site's marker lists every file's sha256; the copy says "(sha256 of the file)" where the
  digest is that of the file the build wrote (which is compared itself).

plotly.js itself is left out (it is the installed plotly's file, copied as it is).
"""

from __future__ import annotations

import base64
import difflib
import gzip
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from ragreport.cli import main

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"
#: The stylesheet and scripts the pages inline, as the checkout ships them.
ASSETS = Path(__file__).resolve().parents[1] / "templates" / "assets"
ASSET_NAMES = ("site.css", "site.js", "unpack.js")
#: Their sha256 and Content-Security-Policy sources, the one copy that changes with an asset.
MANIFEST = GOLDEN / "assets.txt"
UPDATE = bool(os.environ.get("RAGREPORT_GOLDEN_UPDATE"))
#: 2026-12-01T00:00:00Z: the build day every copy was made on.
EPOCH = "1764547200"

STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)
SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
CSP = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(">)')
JSON_BLOCK = re.compile(r'(<script type="application/json" id="[^"]*">)([^<]*)(</script>)')
PACKED_BLOCK = re.compile(
    r'(<script type="application/octet-stream" id="[^"]*" data-encoding="base64 gzip"[^>]*>)'
    r"([^<]*)(</script>)"
)
MARKER_LINE = re.compile(r"(?m)^([0-9a-f]{64})  (\S.*)$")
PACKED_NOTE = "(base64 of gzip -5 (the query view: docs/conventions.md section 22.11), mtime 0, of this compact JSON:)"


def _placeholder(name: str) -> str:
    return f"/* {name}: masked, see tests/data/golden/assets.txt */"


def _csp_hash(name: str) -> str:
    return f"sha256-({name})"


def template_assets() -> dict[str, str]:
    return {name: (ASSETS / name).read_text("utf-8") for name in ASSET_NAMES}


def csp_source(text: str) -> str:
    """The hash source by which a policy admits an inline element holding ``text`` (CSP level 2)."""
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def manifest(assets: dict[str, str]) -> str:
    lines = [
        "# The stylesheet and scripts of templates/assets, which every page inlines: masked in the pages'",
        "# copies, checked here once. sha256 of the file, name, the Content-Security-Policy source admitting it.",
    ]
    lines += [f"{hashlib.sha256(t.encode('utf-8')).hexdigest()}  {n}  {csp_source(t)}" for n, t in assets.items()]
    return "\n".join(lines) + "\n"


# --- the compact forms the product writes --------------------------------------------------------


def file_json(value, compact: bool = True) -> str:
    """report.json and ``score --format json``: one line, UTF-8, no NaN, no space after a comma or
    a colon (docs/conventions.md section 22.4); other JSON files (not ``compact``) keep the spaces."""
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=separators) + "\n"


def block_json(value) -> str:
    """A page's JSON data block: no spaces, ``&``, ``<`` and ``>`` escaped so nothing closes the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def packed_json(value) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # gzip -5: docs/conventions.md section 22.11
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=5, mtime=0)).decode("ascii")


def indented(value) -> str:
    """The stored form of a JSON value: one item a line, the order kept (injective, so lossless)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=1)


def indented_block(value) -> str:
    """The stored form of a page's JSON block: indented, escaped as the page escapes it."""
    return indented(value).replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


# --- the normalisation: exact for everything but the assets, which are checked on their own ------


def mask_page(name: str, text: str, assets: dict[str, str]) -> str:
    """A page with its inlined assets and their hashes masked, after checking that each inlined
    stylesheet and script is the asset byte for byte and that the policy admits it by its hash."""
    masked: list[str] = []

    def style(match: re.Match) -> str:
        assert match.group(1) == assets["site.css"], f"{name}: its stylesheet is not templates/assets/site.css"
        masked.append("site.css")
        return f"<style>{_placeholder('site.css')}</style>"

    def script(match: re.Match) -> str:
        found = [n for n in ASSET_NAMES if n.endswith(".js") and assets[n] == match.group(1)]
        assert found, f"{name}: an inline script that is none of templates/assets' scripts: {match.group(1)[:80]!r}"
        masked.append(found[0])
        return f"<script>{_placeholder(found[0])}</script>"

    text = STYLE.sub(style, text)
    text = SCRIPT.sub(script, text)
    policies = CSP.findall(text)
    assert len(policies) == 1, f"{name}: {len(policies)} Content-Security-Policy elements, expected one"
    policy = policies[0][1]
    for asset in dict.fromkeys(masked):
        source = f"&#39;{csp_source(assets[asset])}&#39;"
        assert source in policy, f"{name}: its Content-Security-Policy does not admit the inlined {asset} by its hash"
        policy = policy.replace(source, f"&#39;{_csp_hash(asset)}&#39;")
    text = CSP.sub(lambda m: m.group(1) + policy + m.group(3), text)
    return text


def _json_blocks(name: str, text: str) -> str:
    def block(match: re.Match) -> str:
        value = json.loads(match.group(2))
        assert block_json(value) == match.group(2), f"{name}: a JSON block is not the compact form pages write"
        return f"{match.group(1)}\n{indented_block(value)}\n{match.group(3)}"

    def packed(match: re.Match) -> str:
        value = json.loads(gzip.decompress(base64.b64decode(match.group(2), validate=True)))
        assert packed_json(value) == match.group(2), f"{name}: a packed block is not the gzip pages write"
        return f"{match.group(1)}\n{PACKED_NOTE}\n{indented_block(value)}\n{match.group(3)}"

    return PACKED_BLOCK.sub(packed, JSON_BLOCK.sub(block, text))


def _marker(text: str, site: dict[str, bytes]) -> str:
    """The marker with each digest that is the built file's said so (the file is compared itself)."""

    def line(match: re.Match) -> str:
        data = site.get(match.group(2))
        if data is not None and hashlib.sha256(data).hexdigest() == match.group(1):
            return f"(sha256 of the file)  {match.group(2)}"
        return match.group(0)

    return MARKER_LINE.sub(line, text)


def normalise(name: str, data: bytes, site: dict[str, bytes], assets: dict[str, str]) -> bytes:
    """The stored form of output ``name``: its exact bytes, except that the inlined assets and their
    hashes are masked (checked by :func:`mask_page`), JSON is indented (after checking that the
    output is the compact form of that value) and the marker's verified digests are named."""
    if name.endswith(".json"):
        text = data.decode("utf-8")
        value = json.loads(text)
        compact = name.endswith(("report.json", "score.json"))
        assert file_json(value, compact) == text, f"{name} is not the one line of JSON the product writes"
        return (indented(value) + "\n").encode("utf-8")
    if name.endswith(".html"):
        return _json_blocks(name, mask_page(name, data.decode("utf-8"), assets)).encode("utf-8")
    if name.endswith(".ragreport-site"):
        return _marker(data.decode("utf-8"), site).encode("utf-8")
    return data


def _difference(name: str, got: bytes, stored: bytes) -> str:
    lines = difflib.unified_diff(
        stored.decode("utf-8", "replace").splitlines(),
        got.decode("utf-8", "replace").splitlines(),
        f"golden/{name}",
        "built",
        lineterm="",
        n=1,
    )
    shown = [line if len(line) < 300 else line[:300] + " ..." for line in list(lines)[:40]]
    return f"{name} differs from its copy in tests/data/golden:\n" + "\n".join(shown)


# --- the outputs ---------------------------------------------------------------------------------


def _outputs(case: str, tmp: Path, capsys) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """Every output of one case, by the file name its copy has, and every file of its site."""
    runs: list[str] = []
    options: list[str] = []
    if case == "two_runs":
        shutil.copy(DATA / "trec_eval_test" / "results.test", tmp / "bm25.trec")
        shutil.copy(DATA / "trec_eval_test" / "results.trunc", tmp / "trunc.trec")
        shutil.copy(DATA / "trec_eval_test" / "qrels.test", tmp / "qrels.test")
        runs = ["bm25.trec", "trunc.trec"]
        options = ["--qrels", "qrels.test", "-k", "10,20", "--permutations", "2000", "--resamples", "200"]
    elif case == "drift":
        # the sample's report.json as the build wrote it (its copy is stored indented)
        previous = json.loads((GOLDEN / "sample" / "site" / "report.json").read_text("utf-8"))
        (tmp / "previous.json").write_bytes(file_json(previous).encode("utf-8"))
        options = ["--previous", "previous.json", "--seed", "3"]
    out: dict[str, bytes] = {}
    for fmt in ("table", "markdown", "json"):
        assert main(["score", *runs, *options, "--format", fmt, "--quiet"]) == 0
        out[f"score.{fmt}"] = capsys.readouterr().out.encode("utf-8")
    assert main(["build", *runs, *options, "--out", "site", "--quiet"]) == 0
    site = {
        path.relative_to(tmp / "site").as_posix(): path.read_bytes()
        for path in sorted((tmp / "site").rglob("*"))
        if path.is_file()
    }
    out.update({"site/" + name: data for name, data in site.items() if name != "assets/plotly.min.js"})
    if case == "two_runs":
        trec = ["bm25.trec", "--qrels", "qrels.test", "--compat", "trec_eval", "--format", "trec", "-q", "--quiet"]
        assert main(["score", *trec]) == 0
        out["score.trec"] = capsys.readouterr().out.encode("utf-8")
    return out, site


@pytest.mark.parametrize("case", ["sample", "two_runs", "drift"])
def test_outputs_match_their_copies(case, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.chdir(tmp_path)
    outputs, site = _outputs(case, tmp_path, capsys)
    assets = template_assets()
    normal = {name: normalise(name, data, site, assets) for name, data in outputs.items()}
    folder = GOLDEN / case
    if UPDATE:
        shutil.rmtree(folder, ignore_errors=True)
        for name, data in normal.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
    stored = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert sorted(normal) == sorted(stored), "the set of output files changed"
    for name, data in normal.items():
        assert data == stored[name], _difference(f"{case}/{name}", data, stored[name])


def test_inlined_assets_match_their_copy():
    """The assets the pages' copies mask, compared once: their digests and policy sources."""
    expected = manifest(template_assets())
    if UPDATE:
        MANIFEST.write_text(expected, "utf-8")
    assert MANIFEST.read_text("utf-8") == expected, "templates/assets changed: see tests/data/golden/assets.txt"


# --- the normalisation hides nothing but the assets ----------------------------------------------

PAGE = GOLDEN / "sample" / "site" / "run-sample.html"


def _unmasked(text: str, assets: dict[str, str]) -> str:
    """A stored page with the assets and hashes put back and its JSON blocks compact again: the page
    as the build wrote it (checked: it masks back to the copy)."""
    for asset in ASSET_NAMES:
        text = text.replace(_placeholder(asset), assets[asset]).replace(_csp_hash(asset), csp_source(assets[asset]))
    blocks = re.compile(r'(<script type="application/json" id="[^"]*">)\n(.*?)\n(</script>)', re.DOTALL)
    text = blocks.sub(lambda m: m.group(1) + block_json(json.loads(m.group(2))) + m.group(3), text)
    packed = re.compile(r"\n" + re.escape(PACKED_NOTE) + r"\n(.*?)\n(</script>)", re.DOTALL)
    return packed.sub(lambda m: packed_json(json.loads(m.group(1))) + m.group(2), text)


@pytest.mark.parametrize("page", sorted(GOLDEN.glob("*/site/*.html")), ids=lambda p: p.relative_to(GOLDEN).as_posix())
def test_every_stored_page_is_a_page_masked(page):
    """Put back, a copy is a page: its assets inlined once each, its policy admitting them."""
    assets = template_assets()
    stored = page.read_text("utf-8")
    built = _unmasked(stored, assets)
    assert built.count(assets["site.css"]) == 1 and built.count(assets["site.js"]) == 1
    assert _normal(built, assets) == stored


def _built_page() -> tuple[str, str, dict[str, str]]:
    assets = template_assets()
    stored = PAGE.read_text("utf-8")
    page = _unmasked(stored, assets)
    assert assets["site.css"] in page and csp_source(assets["site.css"]) in page
    assert _json_blocks("page", mask_page("page", page, assets)) == stored
    return page, stored, assets


def _normal(page: str, assets: dict[str, str]) -> str:
    return _json_blocks("page", mask_page("page", page, assets))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("<title>", "<title>x"),  # the head, outside the style
        ("</style>\n", "</style>\n<p>x</p>\n"),  # right after the masked stylesheet
        ("<script>", "<p>x</p><script>"),  # right before the masked script
        ("img-src data:", "img-src *"),  # the policy beyond the masked hashes
        ('"k":5', '"k":6'),  # one value in a JSON block
        ("</body>", "<p>x</p></body>"),
    ],
)
def test_masking_keeps_every_change_outside_the_assets(before, after):
    page, stored, assets = _built_page()
    assert before in page
    changed = page.replace(before, after, 1)
    assert _normal(changed, assets) != stored


@pytest.mark.parametrize(
    ("part", "change"),
    [
        ("site.css", lambda t: t + "p{}"),  # the page inlines another stylesheet
        ("site.css", lambda t: t.replace("{", " {", 1)),
        ("site.js", lambda t: t + ";"),  # another script
    ],
)
def test_a_page_inlining_other_assets_is_caught(part, change):
    page, _, assets = _built_page()
    wrong = page.replace(assets[part], change(assets[part]))
    with pytest.raises(AssertionError, match="is not templates/assets/site.css|none of templates/assets"):
        _normal(wrong, assets)
    # the same page, the policy's hash updated to the changed asset: still caught
    right_hash = wrong.replace(csp_source(assets[part]), csp_source(change(assets[part])))
    with pytest.raises(AssertionError):
        _normal(right_hash, assets)


@pytest.mark.parametrize("part", ["site.css", "site.js"])
def test_a_policy_not_admitting_the_inlined_asset_is_caught(part):
    page, _, assets = _built_page()
    stale = page.replace(csp_source(assets[part]), csp_source(assets[part] + " "))
    with pytest.raises(AssertionError, match=f"does not admit the inlined {part}"):
        _normal(stale, assets)


def test_a_json_block_in_another_form_is_caught():
    page, _, assets = _built_page()
    spaced = re.sub(r'("k":)(5)', r"\1 \2", page, count=1)
    assert spaced != page
    with pytest.raises(AssertionError, match="not the compact form"):
        _normal(spaced, assets)


def test_json_files_are_compared_by_value_and_checked_compact():
    stored = (GOLDEN / "sample" / "site" / "report.json").read_bytes()
    value = json.loads(stored)
    built = file_json(value).encode("utf-8")
    assert b"\n" not in built[:-1], "report.json is one line"
    assert normalise("report.json", built, {}, {}) == stored
    changed = dict(value, date="2026-11-03")
    assert normalise("report.json", file_json(changed).encode("utf-8"), {}, {}) != stored
    with pytest.raises(AssertionError, match="not the one line"):
        normalise("report.json", stored, {}, {})  # the indented copy is not what the product writes


def test_the_marker_names_only_digests_it_verified():
    marker = b"ragreport-site/2: header\n" + hashlib.sha256(b"a").hexdigest().encode() + b"  index.html\n"
    assert normalise(".ragreport-site", marker, {"index.html": b"a"}, {}).endswith(
        b"(sha256 of the file)  index.html\n"
    )
    assert normalise(".ragreport-site", marker, {"index.html": b"b"}, {}) == marker
