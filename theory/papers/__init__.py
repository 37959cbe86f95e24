"""Each paper's claims, with their checks beside them, and the steps the checks share.

One package per source, named by its key in docs/references.md: ``claims.py`` holds the
claim data (sympy and the definitions only), ``checks.py`` the check of every claim in it
(one zero-argument function per claim id, in ``CHECKS``). Ekenstedt et al. 2022 has two more
pairs, for its appendix tables (``table_claims.py``, ``table_checks.py``) and its Sec. V
mechanisms (``mechanism_claims.py``, ``mechanism_checks.py``); ``derived`` holds the relations
no paper states (claim ids ``privcert:...``), with their proofs, and ``privcert_risk`` those between
the re-identification risk models and k-anonymity, and ``privcert_estimate`` the composition of a
mechanism computed from a differentially private estimate of the original's histogram. The checks of several papers
share :mod:`theory.papers.check_steps`, :mod:`theory.papers.derivations` (symbolic tight
bounds) and :mod:`theory.papers.sample_tables` (seeded spot-check tables).
"""
