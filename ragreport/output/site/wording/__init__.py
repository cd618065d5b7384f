"""Every number format and every sentence a reader sees: pure functions and constants, a module for
each part of the report (:mod:`.numbers` holds the formats and the marked :class:`~.numbers.Text`
sentences are built of; :mod:`.page` the templates' own words, which they read as ``words``: no
template states a word itself, ``tests/test_templates.py``).

The view model (:mod:`ragreport.output.site.view`) calls these once per report; the site, the terminal
table, the Markdown and summary.md only lay out what comes back. Nothing here reads a file, prints,
or imports the analysis: arguments are plain values, so a wording or a format is changed here and
every output follows. This package imports none of its modules (the import chain stays short).
"""
