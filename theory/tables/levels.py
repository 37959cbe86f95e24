"""Exact optimal privacy levels of a probability table, one function per definition.

Every function returns the *optimal* level (Ekenstedt et al. 2022, Def. 1: the strongest level the table
satisfies) exactly. Ratio-type levels are returned as a ratio ``T`` (a
:class:`fractions.Fraction` ≥ 1, or ``sympy.oo`` when a zero probability makes it
infinite): for t-closeness variants ``T`` is ``t`` itself, for the DP family ``T = e^ε``
and :func:`eps_of` gives ``ε = ln T``.

All ratio levels share one convention, the one of Domingo-Ferrer & Soria-Comas 2015, Def. 4: a quotient ``0/0`` (a bucket
no record can reach) is ignored, ``x/0`` with ``x > 0`` is infinite.

Public API (stable; used by ``privcert theory`` and the tests)::

    multiplicative_t(table)             Ekenstedt et al. 2022, Def. 4 (= stochastic t-closeness, Domingo-Ferrer & Soria-Comas 2015, Defs. 3-4)
    kt_closeness_t(table, k)            Ekenstedt et al. 2022, Def. 7
    ldp_ratio(table)                    Ekenstedt et al. 2022, Def. 6      -> e^ε
    dp_ratio(table)                     Ekenstedt et al. 2022, Def. 5      -> e^ε
    k_eps_dp_ratio(table, k)            Ekenstedt et al. 2022, Def. 8      -> e^ε
    classwise_k_eps_dp_ratio(table, k)  Ekenstedt et al. 2022, Thm. 5 proof: Def. 8 inside every class
    k_anonymity(table)                  smallest class size
    level(definition_id, table, size=None)   dispatch by registry id
    eps_of(T), ratio_of(eps), is_ratio_definition(definition_id)

Every level is measured by :mod:`verifier.randomized.levels` (the one implementation of these
levels): a probability table is handed over as the sufficient statistics of a randomized
release, each distinct row a "true value" of a mechanism matrix, counted per class with
multiplicities. Tests compare every function with an independent enumeration of all subsets.

References
----------
Ekenstedt et al. 2022, Sec. III-IV, Definitions 4-8; Appendix B (extreme groups).
Domingo-Ferrer & Soria-Comas 2015, Sec. 3-5, Definitions 3-4, Proposition 2.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TypeAlias

import sympy

from theory.definitions import definition, eps, subset_sized
from theory.tables.probability_table import ProbabilityTable
from verifier.randomized import levels as randomized
from verifier.randomized.levels import Extreme, sufficient_table
from verifier.randomized.mechanism import Mechanism
from verifier.tables.counts import CountTable

__all__ = [
    "Ratio",
    "multiplicative_t",
    "stochastic_t",
    "kt_closeness_t",
    "ldp_ratio",
    "dp_ratio",
    "k_eps_dp_ratio",
    "classwise_k_eps_dp_ratio",
    "k_anonymity",
    "level",
    "eps_of",
    "ratio_of",
    "is_ratio_definition",
    "SIZED_DEFINITIONS",
]

Ratio: TypeAlias = Fraction | sympy.Expr
"""An exact ratio level: a Fraction ≥ 1, or ``sympy.oo``."""

SIZED_DEFINITIONS = subset_sized()
"""Definitions whose level depends on a subset size k besides the table (Defs. 7, 8)."""


def _ratio(extreme: Extreme) -> Ratio:
    """The verifier's exact level as a theory ratio (``sympy.oo`` when infinite)."""
    return sympy.oo if extreme.ratio is None else extreme.ratio


@lru_cache(maxsize=1024)
def _sufficient(table: ProbabilityTable) -> tuple[CountTable, Mechanism]:
    """The table as the verifier sees a randomized release: ``n[class, row]`` and ``M``.

    Every distinct probability row is one "true value" of a mechanism ``M`` whose matrix
    holds those rows; the records are counted per class and row (with multiplicities).
    """
    distinct = tuple(dict.fromkeys(table.probs))
    code = {row: i for i, row in enumerate(distinct)}
    owner = [0] * table.n
    for m, group in enumerate(table.classes):
        for i in group:
            owner[i] = m
    counts = sufficient_table(owner, [code[row] for row in table.probs], [1] * table.n, range(len(distinct)),
                              len(table.classes))
    mechanism = Mechanism(tuple(range(len(distinct))), tuple(range(table.p)), distinct, "probability table")
    return counts, mechanism


def _check_size(table: ProbabilityTable, size: int, what: str) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= table.n - 1:
        raise ValueError(f"{what}: expected an integer k in [1, N-1] = [1, {table.n - 1}], found {size!r}")


def multiplicative_t(table: ProbabilityTable) -> Ratio:
    r"""Optimal level t of multiplicative t-closeness over ``table.classes``.

    .. math::
        t = \max_{E, l} \max\left(\frac{\Pr_{\hat D}(B_l)}{\Pr_E(B_l)},
                                  \frac{\Pr_E(B_l)}{\Pr_{\hat D}(B_l)}\right)

    with the averages of Ekenstedt et al. 2022, Def. 4. This is also stochastic t-closeness
    (Domingo-Ferrer & Soria-Comas 2015, Def. 3) with the distance of their Def. 4: by their
    Prop. 2 the maximum over all bucket sets S is attained at single buckets. Measured by
    :func:`verifier.randomized.levels.multiplicative_t`.

    References
    ----------
    Ekenstedt et al. 2022, Definition 4; Domingo-Ferrer & Soria-Comas 2015, Definitions 3-4, Prop. 2.
    """
    return _ratio(randomized.multiplicative_t(*_sufficient(table)))


stochastic_t = multiplicative_t
"""Domingo-Ferrer & Soria-Comas 2015, Def. 3 with the multiplicative distance of their Def. 4: the same level as Ekenstedt et al. 2022, Def. 4."""


def kt_closeness_t(table: ProbabilityTable, k: int) -> Ratio:
    r"""Optimal level t of (k, t)-closeness: every subset K of k records is t-close to the table.

    The extremes over K are the k records with the smallest and the largest probability
    of each bucket (Ekenstedt et al. 2022, Appendix B); measured by
    :func:`verifier.randomized.levels.kt_closeness`.

    References
    ----------
    Ekenstedt et al. 2022, Definition 7; Appendix B (proof of Lemma 2).
    """
    _check_size(table, k, "(k,t)-closeness (Ekenstedt et al. 2022, Def. 7)")
    return _ratio(randomized.kt_closeness(*_sufficient(table), k))


def k_eps_dp_ratio(table: ProbabilityTable, k: int) -> Ratio:
    r"""Optimal ``e^ε`` of (k, ε)-DP with Q returning the record distribution.

    ``Pr(Z(Q(D)) ∈ B_l) = Pr_D(B_l)`` (Ekenstedt et al. 2022, Appendix F), and ``D_{-K}``
    removes any k records; measured by :func:`verifier.randomized.levels.k_eps_dp`.

    References
    ----------
    Ekenstedt et al. 2022, Definition 8; Appendix F (choice of Q).
    """
    _check_size(table, k, "(k,ε)-DP (Ekenstedt et al. 2022, Def. 8)")
    return _ratio(randomized.k_eps_dp(*_sufficient(table), k))


def dp_ratio(table: ProbabilityTable) -> Ratio:
    """Optimal ``e^ε`` of ε-DP (one record removed): (1, ε)-DP, Ekenstedt et al. 2022, Lemma 3(3).

    References
    ----------
    Ekenstedt et al. 2022, Definition 5 (neighbour: one record removed), Lemma 3(3).
    """
    return k_eps_dp_ratio(table, 1)


def classwise_k_eps_dp_ratio(table: ProbabilityTable, k: int) -> Ratio:
    """(k, ε)-DP measured inside every equivalence class larger than k; the worst class.

    The reading Ekenstedt et al. 2022 uses in the proof of Theorem 5 ("calculate the (k, ε)-DP privacy level
    within every equivalence class and not globally"). Classes with at most k records
    admit no removal of k records and are skipped; ``1`` when no class is larger than k.

    References
    ----------
    Ekenstedt et al. 2022, Sec. IV.C before Theorem 5; Appendix G.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"classwise (k,ε)-DP: expected an integer k >= 1, found {k!r}")
    inside = [k_eps_dp_ratio(table.restrict(group), k) for group in table.classes if len(group) > k]
    return sympy.oo if sympy.oo in inside else max(inside, default=Fraction(1))


def ldp_ratio(table: ProbabilityTable) -> Ratio:
    r"""Optimal ``e^ε`` of ε-LDP: the largest ratio of two records' probabilities of a bucket.

    .. math:: e^{\varepsilon} = \max_{l} \max_{i, j} \Pr(Z(c_i) \in B_l) / \Pr(Z(c_j) \in B_l)

    Measured by :func:`verifier.randomized.levels.ldp`.

    References
    ----------
    Ekenstedt et al. 2022, Definition 6.
    """
    return _ratio(randomized.ldp(_sufficient(table)[1]))


def k_anonymity(table: ProbabilityTable) -> int:
    """The k of k-anonymity: the size of the smallest equivalence class (Ekenstedt et al. 2022, Def. 4, ``min |E_i| = k``)."""
    return min(len(group) for group in table.classes)


def is_ratio_definition(definition_id: str) -> bool:
    """True when the definition's level is ε and :func:`level` returns ``e^ε``."""
    return definition(definition_id).level == eps


def level(definition_id: str, table: ProbabilityTable, size: int | None = None) -> Ratio | int:
    """The optimal level of ``table`` under a registered definition (ratio form for ε levels).

    Parameters
    ----------
    definition_id
        A :mod:`theory.definitions` id other than ``t_closeness`` (EMD is measured by the
        verifier on count tables, not on probability tables).
    size
        The subset size k of ``kt_closeness`` and ``k_eps_dp`` (required for them only).

    Raises
    ------
    ValueError
        For ``t_closeness``, or a missing/unexpected ``size``.
    """
    definition(definition_id)  # raises UnknownDefinitionError listing the valid ids
    if (definition_id in SIZED_DEFINITIONS) != (size is not None):
        need = "requires" if definition_id in SIZED_DEFINITIONS else "takes no"
        raise ValueError(f"level of {definition_id!r} {need} a subset size k, found size={size!r}")
    if size is not None:  # a sized definition (checked above)
        return (kt_closeness_t if definition_id == "kt_closeness" else k_eps_dp_ratio)(table, size)
    simple = {
        "multiplicative_t_closeness": multiplicative_t,
        "stochastic_t_closeness": stochastic_t,
        "dp": dp_ratio,
        "ldp": ldp_ratio,
        "k_anonymity": k_anonymity,
    }
    if definition_id not in simple:
        raise ValueError(
            f"level of {definition_id!r}: not defined on probability tables; expected one of "
            f"{', '.join(sorted([*simple, *SIZED_DEFINITIONS]))}"
        )
    return simple[definition_id](table)


def eps_of(ratio: Ratio) -> sympy.Expr:
    """``ε = ln T`` as an exact sympy expression (``oo`` for ``oo``)."""
    return sympy.oo if ratio is sympy.oo else sympy.log(sympy.Rational(ratio.numerator, ratio.denominator))


def ratio_of(epsilon: sympy.Expr | Fraction | int | str) -> sympy.Expr:
    """``T = e^ε`` as an exact sympy expression."""
    return sympy.exp(sympy.sympify(epsilon))
