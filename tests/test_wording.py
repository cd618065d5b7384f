"""One wording layer (ragreport.output.site.wording): every format in one place, and every output prints the view's strings as they are."""

from __future__ import annotations

import shutil
from dataclasses import replace

from conftest import DATA

from ragreport.api import analyse, evaluate
from ragreport.output.exports.text import markdown, table
from ragreport.output.site.render import prepare, render_site
from ragreport.output.site.view.build import build_view
from ragreport.output.site.wording.comparison import verdict
from ragreport.output.site.wording.numbers import Quoted, Text, band, p_value, signed


def test_one_form_for_each_number():
    assert p_value(0.0004) == "< 0.001" and p_value(0.0123) == "0.012" and p_value(float("nan")) == "n/a"
    assert band(0.1, 0.25) == "[0.100, 0.250]" and band(float("nan"), None) == "[n/a, n/a]"
    assert signed(0.0) == "0.000" and signed(-0.0004) == "0.000" and signed(0.0004) == "0.000"
    assert signed(-0.0006) == "-0.001" and signed(0.0123) == "+0.012" and signed(None) == "n/a"
    assert verdict("band above 0", 0.05, 0.0002) == ("band above 0, but corrected p < 0.001", "band-only")


def test_the_users_words_are_marked_for_each_renderer():
    text = Text(("Against the baseline ", Quoted("a_b")))
    assert str(text) == "Against the baseline a_b"
    assert text.render(lambda s: s.replace("_", "\\_")) == "Against the baseline a\\_b"
    assert text.pieces == (("Against the baseline ", False), ("a_b", True))


def test_every_output_prints_the_comparison_as_the_view_words_it(tmp_path):
    for source, name in (("results.test", "bm25.trec"), ("results.trunc", "trunc.trec")):
        shutil.copy(DATA / "trec_eval_test" / source, tmp_path / name)
    summaries = evaluate(
        [tmp_path / "bm25.trec", tmp_path / "trunc.trec"], qrels=DATA / "trec_eval_test" / "qrels.test"
    )
    view = build_view(analyse(summaries, permutations=200))
    assert view.comparison is not None
    row = replace(
        view.comparison.rows[0],
        p="< 0.001",
        p_adjusted="< 0.001",
        verdict="▲ better: band above 0, corrected p below 0.05",
    )
    view = replace(view, comparison=replace(view.comparison, rows=(row,)))
    assert "< 0.001 < 0.001" in " ".join(table(view).split())
    assert "| < 0.001 | < 0.001 |" in markdown(view)
    page = render_site(prepare(view, {}))["index.html"].decode("utf-8")
    assert "&lt; 0.001</td>" in page  # the site reads the view's row as it is
    for out in (table(view), markdown(view), page):
        assert "▲ better: band above 0, corrected p below 0.05" in out


def test_a_family_of_one_metric_is_not_said_to_be_corrected_together():
    from ragreport.output.site.wording.comparison import family_sentence

    assert "nDCG@10 alone is compared and tested;" in family_sentence(["nDCG@10"])
    assert "nDCG@10 and R@10 are compared, tested and corrected together;" in family_sentence(["nDCG@10", "R@10"])
