"""Every number format and every sentence a reader sees: pure functions and constants, split by what
they serve.

- :mod:`.numbers`: number formats and the marked text (:class:`~.numbers.Text`) sentences are built of;
- :mod:`.report`: a report's pages (a run, the suite tables, the glossary, the slices, the
  documents' text, the query view);
- :mod:`.charts`: the charts' titles, axes and marks;
- :mod:`.sources`: how the outputs name the user's files;
- :mod:`.headline`: the verdict first, in a stakeholder's words;
- :mod:`.comparison`: the comparison with the baseline and the drift since a previous report;
- :mod:`.history`: the history ``ragreport publish`` keeps;
- :mod:`.gates`: the gates and the pull-request comment;
- :mod:`.exports`: CSV, LaTeX and the notebook records;
- :mod:`.messages`: what the command line and the filesystem writes say;
- :mod:`.page`: the templates' own words (headings, column headers, labels), which they read as
  ``words``: no template states a word itself (``tests/test_templates.py``).

The view model (:mod:`ragreport.output.site.view`) calls these once per report; the site, the terminal
table, the Markdown and summary.md only lay out what comes back. Nothing here reads a file, prints,
or imports the analysis: arguments are plain values (numbers, strings, sequences), so a wording or a
format is changed here and every output follows. This package imports none of its modules (the
import chain stays short): import the one you need (``from .wording import report as say``).
"""
