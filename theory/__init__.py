"""privcert.theory: the implication map between privacy definitions, checked.

Subpackages, by role (docs/theory.md has the module table):

* :mod:`theory.definitions` — the definitions on the map, read from the model registry.
* :mod:`theory.claims` — the :class:`~theory.claims.claim.Claim` type, the catalog of every
  paper's claims, their checked statuses cached on disk (imports no check).
* :mod:`theory.papers` — each paper's claims (``claims.py``) with their checks beside them (``checks.py``).
* :mod:`theory.checks` — how a status is earned: running the checks, their shared steps,
  derivations and sample tables.
* :mod:`theory.tables` — probability tables, their exact levels, size parameters, witness families.
* :mod:`theory.search` — the Z3 counterexample search.
* :mod:`theory.answers` — the implication graph (implies), explain, auditor mode, the map.
* :mod:`theory.mechanism_selection` — Ekenstedt et al. 2022, Sec. V: randomized-response
  matrices, utility, the planner.
"""
