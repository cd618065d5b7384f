"""Reading: files, and runs and judgments in memory, into :mod:`ragreport.core.model` objects.

Entry points: :func:`ragreport.reading.registry.load_runs`, :func:`~ragreport.reading.registry.load_inputs`
and :func:`~ragreport.reading.registry.load_qrels`. One module per input format (``trec``,
``delimited``, ``jsonmap``, ``jsonl``), listed by ``registry``; what they share: ``files`` (bytes,
text, lines), ``jsontext`` (JSON decoding), ``rows`` (a row's values, rows into runs and judgments)
and ``gate`` (the id rule every id passes).

Nothing is imported here, so that reading one module (``ordering`` for the scorer) does not
load the others.
"""
