"""The level symbols of the models and of the claims relating them (sympy).

A model's :class:`~verifier.registry.MapDefinition` names its level symbol; the theory's
claims are written in the same symbols, so a level measured by the verifier can be carried
along the implication map. Sizes are positive integers, t and the other levels positive,
ε and β, δ non-negative.
"""

from __future__ import annotations

import sympy

__all__ = ["N", "k", "t", "eps", "k_t", "k_dp", "k0", "k1", "t1", "eps1", "alpha", "risk", "ell", "c", "beta",
           "delta", "journalist", "marketer", "k_map", "uniques"]

N = sympy.Symbol("N", positive=True, integer=True)
"""Number of records in the data set."""
k = sympy.Symbol("k", positive=True, integer=True)
"""Equivalence-class (or subset) size; also the k-anonymity level."""
t = sympy.Symbol("t", positive=True)
"""t-closeness level (EMD in [0, 1]; multiplicative in [1, oo))."""
eps = sympy.Symbol("epsilon", nonnegative=True)
"""Differential-privacy level ε (ε = ln T, T the maximal probability ratio)."""
k_t = sympy.Symbol("k_t", positive=True, integer=True)
"""The subset size of (k,t)-closeness when it appears next to (k,ε)-DP (Ekenstedt et al. 2022, Thm. 5)."""
k_dp = sympy.Symbol("k_DP", positive=True, integer=True)
"""The subset size of (k,ε)-DP when it appears next to (k,t)-closeness (Ekenstedt et al. 2022, Thm. 5)."""

k0 = sympy.Symbol("k_0", positive=True, integer=True)
"""A first subset/class size when a claim relates two sizes (Ekenstedt et al. 2022, Lemmas 2-3)."""
k1 = sympy.Symbol("k_1", positive=True, integer=True)
"""A second subset/class size when a claim relates two sizes (Ekenstedt et al. 2022, Lemmas 2-3)."""
t1 = sympy.Symbol("t_1", positive=True)
"""The conclusion's t when premise and conclusion both have a t level."""
eps1 = sympy.Symbol("epsilon_1", nonnegative=True)
"""The conclusion's ε when premise and conclusion both have an ε level."""

alpha = sympy.Symbol("alpha", positive=True)
"""The α of (α,k)-anonymity: the largest in-class frequency of a value (Wong et al. 2006)."""
risk = sympy.Symbol("R", positive=True)
"""The highest prosecutor re-identification risk 1/min|E| (El Emam & Dankar 2008)."""
ell = sympy.Symbol("l", positive=True)
"""The l of distinct and entropy l-diversity (Machanavajjhala et al. 2007)."""
c = sympy.Symbol("c", positive=True)
"""The c of recursive (c,l)-diversity (Machanavajjhala et al. 2007, Def. 4.3)."""
beta = sympy.Symbol("beta", nonnegative=True)
"""The β of basic and enhanced β-likeness (Cao & Karras 2012)."""
delta = sympy.Symbol("delta", nonnegative=True)
"""The δ of δ-disclosure privacy (Brickell & Shmatikov 2008), natural logarithm."""
journalist = sympy.Symbol("R_J", positive=True)
"""The highest journalist re-identification risk 1/min F_E over the classes present (El Emam & Dankar 2008)."""
marketer = sympy.Symbol("R_M", positive=True)
"""The marketer re-identification risk: the expected share of records re-identified (El Emam & Dankar 2008)."""
k_map = sympy.Symbol("K", positive=True, integer=True)
"""The k of k-map: the smallest population count of a class of the release (El Emam & Dankar 2008)."""
uniques = sympy.Symbol("u", nonnegative=True)
"""Sample uniqueness: the share of records unique in the release (Dankar et al. 2012)."""
