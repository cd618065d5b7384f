"""The site: the view model (:mod:`.view`), every word a reader sees (:mod:`.wording`), the charts,
the page templates' filters (:mod:`.pages`) and the site rendered and written (:mod:`.render`)."""
