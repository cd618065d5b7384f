"""Documents' and queries' text (ragreport/reading/texts.py): each format, gzip, BEIR folders,
TREC topic files, only the ids asked for, and one-line errors."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from ragreport.core.errors import InputError
from ragreport.reading.texts import DocText, read_corpus, read_queries, read_query_details

BEIR_CORPUS = [
    {"_id": "d1", "title": "Paris", "text": "Paris is the capital of France."},
    {"_id": "d2", "title": "", "text": "Lyon lies on the Rhône."},
    {"_id": "3", "title": "Numbers", "text": "An id that looks like a number."},
]

ROBUST_TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302
<title>
Poliomyelitis and Post-Polio
<desc> Description:
Is the disease of Poliomyelitis (polio) under control in the world?
</top>
"""

COVID_TOPICS = """<topics>
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
  </topic>
  <topic number="2">
    <title>Coronavirus &amp; cats</title>
  </topic>
</topics>
"""


def lines(records):
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def test_a_beir_corpus_gives_title_and_text(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(lines(BEIR_CORPUS), encoding="utf-8")
    assert read_corpus(path) == {
        "d1": DocText("Paris", "Paris is the capital of France."),
        "d2": DocText("", "Lyon lies on the Rhône."),
        "3": DocText("Numbers", "An id that looks like a number."),
    }


def test_only_the_ids_asked_for_are_kept(tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text(lines(BEIR_CORPUS), encoding="utf-8")
    assert list(read_corpus(path, wanted={"d2", "absent"})) == ["d2"]
    assert read_corpus(path, wanted=set()) == {}


def test_pyserini_jsonl_and_numeric_ids(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text(lines([{"id": 7, "contents": "seven"}, {"docid": "d8", "contents": "eight", "title": "T"}]))
    assert read_corpus(path) == {"7": DocText("", "seven"), "d8": DocText("T", "eight")}


def test_msmarco_collection_tsv_gzipped(tmp_path):
    path = tmp_path / "collection.tsv.gz"
    path.write_bytes(
        gzip.compress(b"0\tThe presence of communication.\n1\tThe Manhattan Project\tand its atomic bomb.\n")
    )
    found = read_corpus(path)
    assert found["0"] == DocText("", "The presence of communication.")
    assert found["1"] == DocText("The Manhattan Project", "and its atomic bomb.")  # id, title, text


def test_a_beir_folder_is_read_for_its_corpus_and_queries(tmp_path):
    (tmp_path / "corpus.jsonl.gz").write_bytes(gzip.compress(lines(BEIR_CORPUS).encode("utf-8")))
    (tmp_path / "queries.jsonl").write_text(lines([{"_id": "q1", "text": "capital of france", "metadata": {}}]))
    assert read_corpus(tmp_path)["d1"].title == "Paris"
    assert read_queries(tmp_path) == {"q1": "capital of france"}
    (tmp_path / "queries.jsonl").unlink()
    with pytest.raises(InputError, match="a BEIR folder holding queries.jsonl"):
        read_queries(tmp_path)


def test_queries_from_tsv_and_jsonl(tmp_path):
    tsv = tmp_path / "queries.dev.tsv"
    tsv.write_text("1048585\twhat is paula deen's brother\n2\ttab\tinside\n")
    assert read_queries(tsv) == {"1048585": "what is paula deen's brother", "2": "tab\tinside"}
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text(lines([{"qid": "a", "query": "first"}, {"query_id": "b", "title": "second"}]))
    assert read_queries(jsonl) == {"a": "first", "b": "second"}


def test_trec_topic_files(tmp_path):
    robust = tmp_path / "topics.301-450"
    robust.write_text(ROBUST_TOPICS)
    assert read_queries(robust) == {"301": "International Organized Crime", "302": "Poliomyelitis and Post-Polio"}
    assert read_queries(robust, wanted={"302"}) == {"302": "Poliomyelitis and Post-Polio"}
    covid = tmp_path / "topics-rnd5.xml"
    covid.write_text(COVID_TOPICS)
    assert read_queries(covid) == {"1": "coronavirus origin", "2": "Coronavirus & cats"}


def test_a_bom_and_crlf_are_dropped(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_bytes("\ufeffq1\tfirst\r\nq2\tsecond\r\n".encode("utf-8"))
    assert read_queries(path) == {"q1": "first", "q2": "second"}


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("c.jsonl", '{"_id": "d1", "text": "ok"}\n{"_id": "d2", "text": \n', r"c.jsonl:2: expected one JSON object"),
        ("c.jsonl", '{"_id": "d1", "text": "ok"}\n{"name": "d2"}\n', r"c.jsonl:2: expected an id under one of"),
        ("c.jsonl", '{"_id": "d1", "text": 3}\n', r"c.jsonl:1: expected text as a string, got int"),
        ("c.jsonl", '{"_id": "", "text": "x"}\n', r"c.jsonl:1: expected a non-empty _id"),
        ("c.jsonl", '{"_id": "d1"}\n', r"c.jsonl:1: expected text under one of text, contents"),
        ("c.jsonl", "[1, 2]\n", r"c.jsonl:1: expected a JSON object"),
        ("c.tsv", "d1 no tab here\n", r"c.tsv:1: expected id<TAB>text, got 'd1 no tab here'"),
    ],
)
def test_errors_name_the_file_and_line(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=expected):
        read_corpus(path)


def test_bad_bytes_and_a_truncated_gzip_are_one_line(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(b"d1\tok\nd2\t\xff\n")
    with pytest.raises(InputError, match=r"c.tsv:2: expected UTF-8 text, got byte 0xff"):
        read_corpus(path)
    whole = gzip.compress(b"".join(b"d%d\t%s\n" % (i, b"x" * 50) for i in range(5000)))
    cut = tmp_path / "c.tsv.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(InputError, match="expected a complete gzip file"):
        read_corpus(cut)
    topics = tmp_path / "t.txt"
    topics.write_text("<top>\n<title> no number\n</top>\n")
    with pytest.raises(InputError, match=r"t.txt:1: expected <num> in each <top> topic"):
        read_queries(topics)


def test_a_large_corpus_streams_through_keeping_only_what_is_wanted(tmp_path):
    """200,000 passages (about 21 MB) read for 3 ids: the memory held is that of the 3 passages,
    not of the file."""
    path = tmp_path / "collection.tsv"
    with path.open("w") as out:
        for i in range(200_000):
            out.write(f"{i}\t{'passage text ' * 8}{i}\n")
    tracemalloc.start()
    found = read_corpus(path, wanted={"5", "123456", "199999"})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert sorted(found) == ["123456", "199999", "5"] and found["5"].text.endswith(" 5")
    assert peak < 2_000_000, peak  # the file is 21 MB


# --- TREC topic files in the layouts public collections use (tests/data/topics/) ----------------------

TOPICS = Path(__file__).parent / "data" / "topics"


def test_terrier_vaswani_topics_with_closing_tags_and_the_title_on_the_next_lines():
    queries = read_queries(TOPICS / "vaswani_query-text.trec")
    assert list(queries) == ["1", "2", "17", "81"]  # not '1</num><title>'
    assert queries["1"] == "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES"
    assert queries["17"].endswith("HYDROMAGNETIC WAVES IN THE EXOSPHERE")  # a title over two lines
    assert queries["81"].endswith("A SUITABLE ARTICLE PLEASE")
    assert read_query_details(TOPICS / "vaswani_query-text.trec") == {}  # titles only


def test_classic_trec_topics_keep_description_and_narrative_as_the_longer_text():
    queries = read_queries(TOPICS / "robust04_topics.txt")
    assert queries == {
        "301": "International Organized Crime",
        "302": "Poliomyelitis and Post-Polio",
        "303": "Hubble Telescope Achievements",
    }
    details = read_query_details(TOPICS / "robust04_topics.txt", {"302"})
    assert details == {
        "302": "Is the disease of Poliomyelitis (polio) under control in the world?\n\n"
        "Relevant documents should contain data or outbreaks of the polio disease (large or small scale), "
        'medical protection against the disease, reports on what has been labeled as "post-polio" problems. '
        'Of interest would be location of the cases, how severe, as well as what is being done in the "post-polio" area.'
    }


def test_xml_topics_of_trec_covid_and_the_web_track():
    covid = TOPICS / "trec_covid_topics.xml"
    assert read_queries(covid)["2"] == "coronavirus response to weather changes"
    assert read_query_details(covid)["1"] == (
        "what is the origin of COVID-19\n\nseeking range of information about the SARS-CoV-2 virus's origin, "
        "including its evolution, animal source, and first transmission into humans"
    )
    web = TOPICS / "web_2009_topics.xml"
    assert read_queries(web) == {"1": "obama family tree", "2": "french lick resort and casino"}
    assert (
        read_query_details(web)["2"] == "Find information on French Lick Resort and Casino in Indiana."
    )  # no subtopic


def test_topic_entities_are_unescaped_and_other_tags_passed_over(tmp_path):
    xml = tmp_path / "t.xml"
    xml.write_text(
        '<topics><topic number="9"><query>a &amp; b</query><description>&lt;b&gt;x</description></topic></topics>'
    )
    assert read_queries(xml) == {"9": "a & b"} and read_query_details(xml) == {"9": "<b>x"}
    old = tmp_path / "t.txt"  # TREC-1's fields beside the title: <dom>, <con>; 'Topic:' dropped
    old.write_text(
        "<top>\n<head> Tipster Topic Description\n<num> Number: 051\n<dom> Domain: Trade\n"
        "<title> Topic: Airbus Subsidies\n<con> Concept(s):\n1. Airbus\n</top>\n"
    )
    assert read_queries(old) == {"051": "Airbus Subsidies"} and read_query_details(old) == {}
    assert read_query_details(tmp_path / "t.xml", {"other"}) == {}
