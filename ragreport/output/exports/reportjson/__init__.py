"""report.json, the report's data contract, in one package (docs/conventions.md sections 22.4,
22.13, 22.17 and 26):

- :mod:`.schema`: the declared shape of every field a reader reads back, for every schema read;
- :mod:`.write`: :func:`~.write.report_document` (an analysis as a document of the current schema,
  ``ragreport/4``) and :func:`~.write.report_json` (its bytes);
- :mod:`.migrate`: a document of any schema read (``ragreport/1`` to ``/4``) brought to one form,
  the per-query rows, the judgments as ``{query: {id: grade}}`` and the stored lists as ids;
- :mod:`.read`: a file read and checked for ``render`` (:func:`~.read.load_report`,
  :func:`~.read.stored_run`) and for drift (:func:`~.read.load_previous`);
- :mod:`.restore`: a stored report analysed again (``ragreport render``, ``ragreport.api.reanalyse``),
  the suite's metrics it holds and no others.
"""
