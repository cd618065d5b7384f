"""The view model: what every human-facing output shows, built once from the analysis.

:func:`~.build.build_view` reads an :class:`~ragreport.analysis.pipeline.Analysis` and returns a
:class:`~.model.ReportView` of frozen dataclasses holding already-formatted strings and plain values
(the words and formats come from :mod:`ragreport.output.site.wording`). The site's pages
(:mod:`ragreport.output.site.pages`), the terminal table, the Markdown and summary.md
(:mod:`ragreport.output.exports.text`) lay it out and decide nothing. report.json is not built from it: it
is the data contract (:mod:`ragreport.output.exports.reportjson.write`).

- :mod:`.model`: the dataclasses;
- :mod:`.cells`: figures with their bands and bars, the suite matrix;
- :mod:`.run`: a run's slug, measures, per-query table and view;
- :mod:`.comparison`, :mod:`.drift`, :mod:`.slices`: those sections;
- :mod:`.build`: :func:`~.build.build_view`, the conventions, the headline, the glossary, the gates.

This package imports none of its modules (the import chain stays short): import the one you need.
"""
