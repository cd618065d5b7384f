"""Reading: files, and runs and judgments in memory, into :mod:`ragreport.core.model` objects
(entry points in :mod:`ragreport.reading.registry`). Nothing is imported here, so that reading one
module (``ordering`` for the scorer) does not load the others.
"""
