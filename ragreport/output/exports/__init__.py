"""The exports: report.json (:mod:`.reportjson`), CSV and LaTeX (:mod:`.tables`), the terminal table,
Markdown, trec_eval's layout and a pull request's comment (:mod:`.text`), the gates and JUnit
(:mod:`.gates`), a notebook's rows (:mod:`.records`) and the history of reports
(:mod:`.history`)."""
