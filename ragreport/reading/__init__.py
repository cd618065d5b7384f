"""Reading: files into :mod:`ragreport.core.model` objects.

Entry points: :func:`ragreport.reading.registry.load_runs` (runs with their judgments, metadata and
names), :func:`ragreport.reading.registry.load_qrels`, :func:`~ragreport.reading.registry.detect_format`.

- ``files``: a file's bytes and text (gzip, byte-order mark, UTF-8), its data lines, its stem.
- ``rows``: a row's values (ids, scores, grades) and rows into a ranked run or judgments.
- ``jsontext``: JSON decoding that refuses a key given twice with two values.
- ``ordering``, ``trecbytes``: trec_eval's tie order; the bytes-level TREC reader.
- ``reader``: the one signature of a format (:class:`~ragreport.reading.reader.Reader`).
- ``trec``, ``delimited``, ``jsonmap``, ``jsonl``: one module per input format.
- ``registry``: the list of formats, detection among them, qrels in the format found.
- ``meta``: run metadata, run names and the checks every way of scoring makes.
- ``load``: every input run with its judgments; ``previous``: an earlier report.json.

Nothing is imported here, so that reading one module (``ordering`` for the scorer) does not
load the others.
"""
