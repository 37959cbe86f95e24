"""Relations between the re-identification risk models and k-anonymity, derived here (no paper states them).

The levels are those the verifier measures on a release of ``n`` records in classes ``E``
of ``f_E`` records, with a population table giving ``F_E`` people per class (El Emam &
Dankar 2008, Sec. 3). The verifier refuses a population table with ``F_E < f_E`` (the
release is a sample of its population), and without a table it takes ``F_E = f_E``; so
``F_E ≥ f_E`` for every class of every release it measures. Each claim's check
(:mod:`theory.papers.privcert_risk.checks`) measures every release of up to three classes
of one to three records, with every population of up to two more people per class, and
an unmatched population class, with the verifier's own measures.

Proofs
------
* **Prosecutor ≥ journalist** (``privcert:prosecutor_to_journalist``): ``R = 1/min f_E``
  and ``R_J = 1/min F_E`` with ``F_E ≥ f_E``: ``R_J ≤ R``, equal without a population
  table (``F = f``).
* **Journalist ≥ marketer** (``privcert:journalist_to_marketer``): ``R_M = (1/n) Σ_E f_E/F_E``
  is the mean over the records of ``1/F_E``, at most its largest value ``R_J``; equal when
  every class has the same ``F_E``.
* **k-anonymity ⇒ k-map** (``privcert:k_to_k_map``): ``K = min F_E ≥ min f_E = k``,
  equal without a population table.
* **Sample uniqueness and k** (``privcert:k_to_uniqueness``, ``privcert:uniqueness_to_k``):
  ``u = c_1/n`` counts the records of classes of one record; ``k ≥ 2`` says there is none,
  so ``u = 0``, and ``u = 0`` says ``k ≥ 2``. With ``k = 1`` nothing is known but
  ``u ≤ 1`` (attained when every record is unique), and ``u > 0`` says only ``k ≥ 1``.
* **Journalist risk and k-map** (``privcert:journalist_k_map``): with a population table
  ``R_J = 1/min F_E`` and ``K = min F_E``: ``K = 1/R_J`` exactly, both ways.
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Claim, equation
from theory.definitions import k, risk
from verifier.references import PRIVCERT, Source
from verifier.symbols import journalist, k_map, marketer, uniques

__all__ = ["CLAIMS"]


def _src(item: str) -> Source:
    return Source(PRIVCERT, "theory", item)


_POPULATION = "F_E ≥ f_E for every class (the verifier refuses a population table with fewer people than records)"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "privcert:prosecutor_to_journalist", _src("prosecutor risk ⇒ journalist risk"), "implication",
        "prosecutor_risk", "journalist_risk", equation(journalist, risk), (),
        note=f"R_J = 1/min F_E ≤ 1/min f_E = R since {_POPULATION}; equal without a population table.",
        tight=True),
    Claim(
        "privcert:journalist_to_marketer", _src("journalist risk ⇒ marketer risk"), "implication",
        "journalist_risk", "marketer_risk", equation(marketer, journalist), (),
        note="R_M is the mean over the records of 1/F_E, at most its largest value R_J; equal when every class "
        "has the same population count.", tight=True),
    Claim(
        "privcert:k_to_k_map", _src("k-anonymity ⇒ k-map"), "implication",
        "k_anonymity", "k_map", equation(k_map, k), (),
        note=f"K = min F_E ≥ min f_E = k since {_POPULATION}; equal without a population table.", tight=True),
    Claim(
        "privcert:k_to_uniqueness", _src("k-anonymity, k ≥ 2 ⇒ no sample unique"), "implication",
        "k_anonymity", "sample_uniqueness",
        equation(uniques, sympy.Piecewise((0, k >= 2), (1, True))), (),
        note="u = c_1/n and k ≥ 2 leaves no class of one record; with k = 1 only u ≤ 1 (every record unique).",
        tight=True),
    Claim(
        "privcert:uniqueness_to_k", _src("no sample unique ⇒ k-anonymity, k ≥ 2"), "implication",
        "sample_uniqueness", "k_anonymity",
        equation(k, sympy.Piecewise((2, equation(uniques, 0)), (1, True))), (),
        note="u = 0: no class of one record, so k ≥ 2 (attained by a class of two); u > 0 says only k ≥ 1.",
        tight=True),
    Claim(
        "privcert:journalist_k_map", _src("journalist risk ⇔ k-map"), "equivalence",
        "journalist_risk", "k_map", equation(k_map, 1 / journalist), (),
        note="With a population table R_J = 1/min F_E and K = min F_E (El Emam & Dankar 2008): K = 1/R_J.",
        tight=True),
)
