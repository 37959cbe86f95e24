"""The sections of a certificate's page, one module each; :func:`reports.html.view` gathers them for the template.

* :mod:`reports.page.text`: a value made inert and bounded for a page (the ``cell``, ``block`` and ``breakable``
  filters).
* :mod:`reports.page.measurements`: the measurement table, one row per measured level, and the sentences of the
  failures.
* :mod:`reports.page.names`: the names that look like others, and the columns left unaudited.
* :mod:`reports.page.release`: the release's size and its embedded count tables.
* :mod:`reports.page.implied`: the implied guarantees' readable levels.
* :mod:`reports.page.randomized`: the randomized levels and how each was found.
* :mod:`reports.page.utility`: what the release cost, one row per utility figure.
* :mod:`reports.page.signature`: the signed envelope and who signed it.
* :mod:`reports.page.verdict`: the sentence beside the verdict.
"""
