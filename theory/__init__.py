"""privcert.theory: the implication map between privacy definitions, checked.

Modules: :mod:`theory.definitions` (the definitions), :mod:`theory.claims` (the claims
of the papers and their registry), :mod:`theory.checks` (statuses earned by checking),
:mod:`theory.graph` (implication queries), :mod:`theory.map` (the SVG map);
:mod:`theory.tables`, :mod:`theory.levels`, :mod:`theory.search`, :mod:`theory.witnesses`
(probability tables, exact levels, Z3 search, witness families); :mod:`theory.explain` (what an
audit implies), :mod:`theory.status_cache` (checked statuses cached on disk); :mod:`theory.utility`,
:mod:`theory.randomized_response`, :mod:`theory.planner` (Ekenstedt et al. 2022, Sec. V). See docs/theory.md.
"""
