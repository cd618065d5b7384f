"""report.json, the report's data contract (docs/conventions.md sections 22.4, 22.13, 22.17 and 26):
:mod:`.schema` declares every field a reader reads back, for every schema read; :mod:`.write` makes
an analysis the document of the current schema (``ragreport/4``, :func:`~.write.report_document`)
and its bytes (:func:`~.write.report_json`); :mod:`.migrate` brings a document of any schema
(``ragreport/1`` to ``/4``) to one form: per-query rows, judgments as ``{query: {id: grade}}``, the
stored lists as ids; :mod:`.read` reads and checks a file for ``render`` and for drift; and
:mod:`.restore` analyses a stored report again (``ragreport render``, ``ragreport.api.reanalyse``),
the suite's metrics it holds and no others.
"""
