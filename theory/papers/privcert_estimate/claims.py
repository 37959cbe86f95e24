r"""The release with a mechanism computed from a differentially private estimate: sequential composition.

A plan may compute its mechanism from an ε_E-differentially private estimate ``Ĥ`` of the original's
histogram (:mod:`theory.mechanism_selection.estimate`) by a function ``B`` of ``Ĥ``, ``N``, ``k`` and the
targets only, every output of which is ε_M-LDP (the auditor's optimum: its constraints do not depend on
the estimate). What is published is the mechanism ``m = B(Ĥ)`` and the release ``Z_j ~ m(x_j, ·)`` of
each record.

Proof
-----
Let ``D`` and ``D'`` differ in the value of one record ``i`` (``x_i`` and ``x'_i``; N and every other
record the same). For every mechanism ``m`` and release ``z``,

.. math::

    \frac{\Pr_D(B(\hat H) = m, Z = z)}{\Pr_{D'}(B(\hat H) = m, Z = z)}
    = \frac{\Pr_D(\hat H \in B^{-1}(m))}{\Pr_{D'}(\hat H \in B^{-1}(m))}
      \cdot \frac{m(x_i, z_i)}{m(x'_i, z_i)} \le e^{\varepsilon_E} \, e^{\varepsilon(m)}

(the other records' factors are the same on both sides and cancel; the first factor is the probability of
one set of estimates, at most ``e^ε_E`` by the estimate's ε_E-DP, post-processing; the second is a ratio
of one column of ``m``, at most ``e^ε(m)``, its ε-LDP level). With ``ε(m) ≤ ε_M`` for every ``m`` the
construction can give, summing over any set of outcomes gives ``(ε_M + ε_E)``-DP for replacing one
record's value (Dwork & Roth 2014, Thm. 3.16, adaptively: the mechanism is chosen from the estimate's
outcome). What is composed is exactly this: the estimate's ε_E against the original's records, and the
mechanism's ε-LDP bound ε_M, which protects each record's own released value; nothing else is published.
The values present and ``N`` are not protected (the data-independent optimum publishes them too).
"""

from __future__ import annotations

import sympy

from theory.claims.claim import Claim, equation
from verifier.references import PRIVCERT, Source

__all__ = ["CLAIMS", "eps_E", "eps_M", "eps_release"]

eps_M = sympy.Symbol("epsilon_M", nonnegative=True)
"""The ε-LDP bound of every mechanism the construction can give."""
eps_E = sympy.Symbol("epsilon_E", positive=True)
"""The ε the estimate of the original's histogram spends."""
eps_release = sympy.Symbol("epsilon_release", nonnegative=True)
"""The release's ε (with its mechanism) for replacing one of the original's records."""

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "privcert:estimate_composition",
        Source(PRIVCERT, "theory", "a mechanism from a differentially private estimate: sequential composition"),
        "bound", None, None, equation(eps_release, eps_M + eps_E),
        (sympy.Ge(eps_M, 0), sympy.Gt(eps_E, 0)),
        note="The release with a mechanism computed from an ε_E-DP estimate of the original's histogram, every "
        "output of the construction ε_M-LDP, is (ε_M + ε_E)-DP for replacing one record's value; at each published "
        "mechanism m the loss is at most ε(m) + ε_E (sequential composition, Dwork & Roth 2014, Thm. 3.16).",
    ),
)
