"""The privacy definitions the theory reasons about, as values.

Each :class:`Definition` holds what the implication framework of Ekenstedt et al. 2022 needs: the level
symbol, the direction of strength (Ekenstedt et al. 2022, Definition 1: a level is
*stronger* when it is smaller for t and ε, larger for k), the level's domain, the
parameters the definition is relative to (N records, a class size k, the buckets), and
its source. Ids are shared with the verifier's JSON model ids.

References
----------
Ekenstedt et al. 2022, Sec. III (Defs. 1-3), Sec. IV (Defs. 4-8).
Domingo-Ferrer & Soria-Comas 2015, Sec. 3-4 (Defs. 3-4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy

from theory._registry import lookup
from theory.claims import Source

__all__ = [
    "Direction",
    "Definition",
    "DEFINITIONS",
    "definition",
    "definition_ids",
    "UnknownDefinitionError",
    "N",
    "k",
    "t",
    "eps",
    "k_t",
    "k_dp",
    "k0",
    "k1",
    "t1",
    "eps1",
    "alpha",
    "risk",
    "ell",
    "c",
    "beta",
    "delta",
]

Direction = Literal["smaller_is_stronger", "larger_is_stronger"]

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

_P003 = "Ekenstedt et al. 2022"
_P000 = "Domingo-Ferrer & Soria-Comas 2015"


class UnknownDefinitionError(KeyError):
    """A definition id that is not registered; the message lists the valid ids."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Definition:
    """A privacy definition with a level (Ekenstedt et al. 2022, Def. 1).

    Parameters
    ----------
    id
        Registry id, shared with the verifier's JSON model ids.
    name
        Human-readable name.
    level
        The level symbol (``k``, ``t``, ``epsilon``).
    direction
        ``"smaller_is_stronger"`` (t, ε) or ``"larger_is_stronger"`` (k), Ekenstedt et al. 2022, Def. 1.
    domain
        The set of admissible levels (a sympy Interval or Range).
    parameters
        The symbols the definition is relative to besides its level (N, k, buckets).
    source
        Where the definition is stated.
    summary
        One line: what a release at level ``level`` guarantees.
    """

    id: str
    name: str
    level: sympy.Symbol
    direction: Direction
    domain: sympy.Set
    parameters: tuple[str, ...]
    source: Source
    summary: str

    def stronger(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
        """The relation "level ``a`` is at least as strong as level ``b``" (Ekenstedt et al. 2022, Def. 1)."""
        if self.direction == "smaller_is_stronger":
            return sympy.Le(a, b)
        return sympy.Ge(a, b)


DEFINITIONS: tuple[Definition, ...] = (
    Definition(
        "k_anonymity",
        "k-anonymity",
        k,
        "larger_is_stronger",
        sympy.Range(1, sympy.oo),
        ("N",),
        Source(_P003, "II", "k-anonymity (Samarati-Sweeney)"),
        "every record shares its quasi-identifiers with at least k-1 others",
    ),
    Definition(
        "t_closeness",
        "t-closeness (EMD)",
        t,
        "smaller_is_stronger",
        sympy.Interval(0, 1),
        ("N", "buckets"),
        Source(_P000, "3", "Def. 2 (t-closeness, EMD)"),
        "the EMD between every class's and the table's sensitive distribution is at most t",
    ),
    Definition(
        "multiplicative_t_closeness",
        "multiplicative t-closeness (with k-anonymity)",
        t,
        "smaller_is_stronger",
        sympy.Interval(1, sympy.oo),
        ("N", "k", "buckets"),
        Source(_P003, "IV", "Def. 4"),
        "k-anonymous classes; Pr(class in B)/Pr(table in B) and its inverse are at most t",
    ),
    Definition(
        "stochastic_t_closeness",
        "stochastic t-closeness",
        t,
        "smaller_is_stronger",
        sympy.Interval(1, sympy.oo),
        ("N", "buckets"),
        Source(_P000, "4", "Def. 3 (with the distance of Def. 4)"),
        "for every class E, the multiplicative distance between Pr(E's record in B) "
        "and Pr(table's record in B) is at most t",
    ),
    Definition(
        "kt_closeness",
        "(k,t)-closeness",
        t,
        "smaller_is_stronger",
        sympy.Interval(1, sympy.oo),
        ("N", "k", "buckets"),
        Source(_P003, "IV", "Def. 7"),
        "every subset of k records is multiplicatively t-close to the whole data set",
    ),
    Definition(
        "dp",
        "ε-differential privacy",
        eps,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N", "buckets"),
        Source(_P003, "IV", "Def. 5"),
        "removing one record changes the probability of every output set by a factor at most e^ε",
    ),
    Definition(
        "ldp",
        "ε-local differential privacy",
        eps,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N", "buckets"),
        Source(_P003, "IV", "Def. 6"),
        "any two records' output distributions differ by a factor at most e^ε",
    ),
    Definition(
        "k_eps_dp",
        "(k,ε)-differential privacy",
        eps,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N", "k", "buckets"),
        Source(_P003, "IV", "Def. 8"),
        "removing any k records changes the probability of every output set by a factor at most e^ε",
    ),
)

_VERIFIER_MODELS: tuple[Definition, ...] = (
    Definition(
        "prosecutor_risk",
        "prosecutor re-identification risk",
        risk,
        "smaller_is_stronger",
        sympy.Interval.Lopen(0, 1),
        ("N",),
        Source("El Emam & Dankar 2008", "3", "prosecutor risk"),
        "no record is re-identified with probability above R = 1/(smallest class)",
    ),
    Definition(
        "alpha_k_anonymity",
        "(α,k)-anonymity (α part)",
        alpha,
        "smaller_is_stronger",
        sympy.Interval.Lopen(0, 1),
        ("N",),
        Source("Wong et al. 2006", "3", "Def. 2"),
        "no value makes up more than a fraction α of any class",
    ),
    Definition(
        "distinct_l_diversity",
        "distinct l-diversity",
        ell,
        "larger_is_stronger",
        sympy.Range(1, sympy.oo),
        ("N",),
        Source("Machanavajjhala et al. 2007", "4", "distinct l-diversity"),
        "every class holds at least l distinct values",
    ),
    Definition(
        "entropy_l_diversity",
        "entropy l-diversity",
        ell,
        "larger_is_stronger",
        sympy.Interval(1, sympy.oo),
        ("N",),
        Source("Machanavajjhala et al. 2007", "4", "Def. 4.2"),
        "every class's entropy is at least ln l",
    ),
    Definition(
        "recursive_cl_diversity",
        "recursive (c,l)-diversity",
        c,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N", "l"),
        Source("Machanavajjhala et al. 2007", "4", "Def. 4.3"),
        "in every class the most frequent count r_1 is below c times r_l + ... + r_m",
    ),
    Definition(
        "basic_beta_likeness",
        "basic β-likeness",
        beta,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N",),
        Source("Cao & Karras 2012", "3", "Def. 2"),
        "no class raises a value's frequency p to q with (q - p)/p above β",
    ),
    Definition(
        "enhanced_beta_likeness",
        "enhanced β-likeness",
        beta,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N",),
        Source("Cao & Karras 2012", "3", "Def. 3"),
        "no class raises a value's frequency p to q with (q - p)/p above min(β, -ln p)",
    ),
    Definition(
        "delta_disclosure",
        "δ-disclosure privacy",
        delta,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N",),
        Source("Brickell & Shmatikov 2008", "3", "Def. 4"),
        "for every class and every value of the table, |ln(q/p)| is below δ",
    ),
    Definition(
        "delta_disclosure_present",
        "δ-disclosure over the values present in each class",
        delta,
        "smaller_is_stronger",
        sympy.Interval(0, sympy.oo),
        ("N",),
        Source("Brickell & Shmatikov 2008", "3", "Def. 4, over the values a class holds (as ARX, pyCANON)"),
        "for every class and every value it holds, |ln(q/p)| is below δ",
    ),
)
"""The other models the verifier measures (ids are its JSON model ids)."""

DEFINITIONS = DEFINITIONS + _VERIFIER_MODELS

_BY_ID = {d.id: d for d in DEFINITIONS}


def definition_ids() -> tuple[str, ...]:
    """The registered definition ids, in registry order."""
    return tuple(_BY_ID)


def definition(definition_id: str) -> Definition:
    """Look a definition up by id.

    Raises
    ------
    UnknownDefinitionError
        When ``definition_id`` is not registered; the message lists the valid ids.
    """
    return lookup(_BY_ID, definition_id, "definition", UnknownDefinitionError)
