"""Choose a randomized-response mechanism that meets a t and an ε requirement: Ekenstedt et al. 2022, Sec. V.C.

A data publisher must release a nominal attribute with multiplicative t-closeness at level
``t0`` (classes of at least ``k`` of the ``N`` records, Ekenstedt et al. 2022, Def. 4) and ε-LDP at level ``ε0``
(Def. 6). The paper compares three mechanisms:

1. ``"ldp"``: Fig. 4 alone, at ``e^ε = min(e^ε0, e^ε_t)``, where ``ε_t`` is the largest ε
   whose LDP guarantee implies ``t0`` (``ε_t`` from the ε-LDP ⇒ (k,t)-closeness bound);
2. ``"tclo+ldp"``: Fig. 5 at ``t0`` (``p_t`` from eq. (2)) followed by Fig. 4 at ``ε0``
   (``p_LDP`` from eq. (1));
3. ``"tclo"``: Fig. 5 alone at ``t0``.

Every design parameter is the largest that meets its target (utility, eq. (4), never
decreases when a keep-probability grows: the composed matrix is affine in it, eq. (4) is
convex in the matrix, and at keep-probability 0 every row is equal, the least useful
mechanism). Each choice is then *checked*, not assumed: its achieved ``e^ε`` is measured
on its matrix (:func:`theory.mechanism_selection.matrices.ldp_ratio`), its achieved ``t`` is the
smaller of two valid upper bounds on every partition into classes of at least ``k``
records: the bound implied by its ε,

.. math::  t \\le \\frac{k + (N - k)\\, e^{\\varepsilon}}{N},

(tight: a class of ``k`` records whose probability of some output is ``e^ε`` times smaller
than that of the other ``N - k`` records attains it; Ekenstedt et al. 2022, Thm. 3 prints ``N - k - 1`` in
place of ``N - k``, which its own ``k = 1`` case, Thm. 2, contradicts; the planner reads the
corrected form from the claims registry, claim ``ekenstedt2022:thm3a``), and the worst
class of identical values (:func:`theory.mechanism_selection.matrices.worst_class_t`). Inverting the
first bound at ``t0`` gives ``e^ε_t = (t0 N - k)/(N - k)``.

References
----------
Ekenstedt et al. 2022, Sec. V.C-D (mechanisms 1-3, the worked setting), Thms. 2-3,
eqs. (1), (2), (4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import sympy

from theory.claims.catalog import claim
from theory.definitions import N as n_symbol
from theory.definitions import eps
from theory.definitions import k as k_symbol
from theory.mechanism_selection.matrices import (
    Exact,
    compose,
    exact,
    frequencies_of,
    ldp_matrix,
    ldp_ratio,
    p_ldp_for_ratio,
    p_t_for,
    tclo_matrix,
    worst_class_t,
)
from theory.mechanism_selection.utility import utility

__all__ = ["ChoiceName", "Choice", "Plan", "plan", "implied_t", "exp_epsilon_for_t", "at_most"]

ChoiceName = Literal["ldp", "tclo+ldp", "tclo"]


_RATIO = sympy.Symbol("T", positive=True)
_TARGET = sympy.Symbol("t0", positive=True)


@cache
def _ldp_to_t() -> tuple[sympy.Expr, sympy.Expr]:
    """The registry's ε-LDP ⇒ (k,t)-closeness bound (claim ``ekenstedt2022:thm3a``, corrected) and its inverse."""
    bound = claim("ekenstedt2022:thm3a").effective.rhs.subs(sympy.exp(eps), _RATIO)
    (inverse,) = sympy.solve(sympy.Eq(bound, _TARGET), _RATIO)
    return bound, inverse


def implied_t(exp_epsilon: Exact, records: int, k: int) -> sympy.Expr:
    """The multiplicative t guaranteed by ε-LDP with classes of at least ``k`` of ``records``.

    ``(k + (N - k) e^ε) / N``, read from the claims registry (Ekenstedt et al. 2022, Thm. 3 corrected; its
    ``k = 1`` case is Thm. 2's ``(1 + (N-1) e^ε)/N``).
    """
    ratio = sympy.oo if exp_epsilon is sympy.oo else exact(exp_epsilon, "e^epsilon")
    return _ldp_to_t()[0].subs({_RATIO: ratio, n_symbol: records, k_symbol: k})


def exp_epsilon_for_t(t0: Exact, records: int, k: int) -> sympy.Expr:
    """``e^ε_t = (t0 N - k) / (N - k)``: the largest ``e^ε`` whose :func:`implied_t` is ``<= t0``."""
    return _ldp_to_t()[1].subs({_TARGET: exact(t0, "t0"), n_symbol: records, k_symbol: k})


@dataclass(frozen=True)
class Choice:
    """One mechanism choice, its design parameters and what it achieves, all exact.

    Parameters
    ----------
    name
        ``"ldp"``, ``"tclo+ldp"`` or ``"tclo"`` (Ekenstedt et al. 2022, Sec. V.C mechanisms 1, 2, 3).
    p_t, p_ldp
        Keep-probabilities of Fig. 5 and Fig. 4 (``None`` for a stage not used).
    matrix
        The (composed) mechanism ``M[true, released]``.
    exp_epsilon
        Achieved ``e^ε`` (Def. 6 on the data set's values).
    t
        Achieved multiplicative t bound for every partition into classes of ``>= k`` records.
    meets_t, meets_epsilon
        ``t <= t0`` and ``e^ε <= e^ε0``, decided exactly.
    utility
        eq. (4).
    """

    name: ChoiceName
    p_t: sympy.Expr | None
    p_ldp: sympy.Expr | None
    matrix: sympy.ImmutableMatrix
    exp_epsilon: sympy.Expr
    t: sympy.Expr
    meets_t: bool
    meets_epsilon: bool
    utility: sympy.Expr

    @property
    def epsilon(self) -> sympy.Expr:
        """Achieved ``ε = ln e^ε``."""
        return sympy.log(self.exp_epsilon)

    @property
    def meets(self) -> bool:
        """Both requirements hold."""
        return self.meets_t and self.meets_epsilon

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "p_t": _number(self.p_t),
            "p_ldp": _number(self.p_ldp),
            "epsilon": _number(self.epsilon),
            "t": _number(self.t),
            "meets_t": self.meets_t,
            "meets_epsilon": self.meets_epsilon,
            "utility": _number(self.utility),
        }


@dataclass(frozen=True)
class Plan:
    """The outcome of :func:`plan`: every choice, and the best one that meets both levels."""

    t0: sympy.Expr
    eps0: sympy.Expr
    records: int
    k: int
    frequencies: tuple[sympy.Expr, ...]
    exp_epsilon_t: sympy.Expr
    choices: tuple[Choice, ...]
    best: Choice | None

    @property
    def epsilon_t(self) -> sympy.Expr:
        """``ε_t``: the LDP level whose guarantee implies ``t0`` (Ekenstedt et al. 2022, Sec. V.C)."""
        return sympy.log(self.exp_epsilon_t)

    def choice(self, name: ChoiceName) -> Choice:
        """The choice called ``name``."""
        for candidate in self.choices:
            if candidate.name == name:
                return candidate
        raise KeyError(f"no choice {name!r}; choices are {[c.name for c in self.choices]}")

    def to_json(self) -> dict[str, Any]:
        return {
            "t0": _number(self.t0),
            "eps0": _number(self.eps0),
            "N": self.records,
            "k": self.k,
            "frequencies": [_number(f) for f in self.frequencies],
            "epsilon_t": _number(self.epsilon_t),
            "choices": [c.to_json() for c in self.choices],
            "best": None if self.best is None else self.best.name,
        }


def _number(value: sympy.Expr | None) -> dict[str, Any] | None:
    if value is None:
        return None
    if value == sympy.oo:
        return {"exact": "oo", "float": None}
    return {"exact": sympy.sstr(value), "float": float(value.evalf(17))}


def at_most(low: sympy.Expr, high: sympy.Expr) -> bool:
    """Decide ``low <= high`` exactly: equal closed forms simplify to a zero difference,
    others are told apart by sympy's certified numerical evaluation (which refuses to guess)."""
    if low == high or high == sympy.oo:
        return True
    if low == sympy.oo:
        return False
    difference = sympy.simplify(high - low)
    if difference == 0:
        return True
    relation = sympy.Ge(difference, 0)
    if relation in (sympy.true, sympy.false):
        return bool(relation)
    raise ArithmeticError(f"cannot decide {low} <= {high} exactly")


def plan(t0: Exact, eps0: Exact, N: int, k: int, frequencies: Sequence[Exact]) -> Plan:
    """Evaluate the three mechanism choices of Ekenstedt et al. 2022, Sec. V.C and pick the most useful valid one.

    Parameters
    ----------
    t0
        Required multiplicative t-closeness level (``>= 1``).
    eps0
        Required ε-LDP level (``>= 0``; ``sympy.oo`` for no LDP requirement). Give
        ``sympy.log(r)`` to keep everything rational.
    N, k
        Number of records and smallest class size (``1 <= k < N``).
    frequencies
        ``p_y(a_i)`` of the attribute's ``n`` values in the data set.

    Returns
    -------
    Plan
        Every choice with its exact levels and utility; ``best`` is the one of highest
        utility among those meeting both requirements (on ties, the one with fewer
        stages, then the earlier), or ``None`` if none does.

    Examples
    --------
    Ekenstedt et al. 2022, Sec. V.D's setting, ``t0 = 2, N = 100, k = 5``, with ``ε0 = ε_t``:

    >>> from fractions import Fraction
    >>> p = plan(2, sympy.log(Fraction(39, 19)), 100, 5, [Fraction(1, 2), Fraction(1, 2)])
    >>> p.exp_epsilon_t, p.best.name, p.best.utility
    (39/19, 'ldp', 39/58)
    """
    target_t, f = exact(t0, "t0"), frequencies_of(frequencies)
    if bool(target_t < 1):
        raise ValueError(f"t0 must be >= 1, got {target_t}")
    if not 1 <= k < N:
        raise ValueError(f"k must satisfy 1 <= k < N, got k={k}, N={N}")
    target_eps = sympy.oo if eps0 is sympy.oo else exact(eps0, "eps0")
    if bool(target_eps < 0):
        raise ValueError(f"eps0 must be >= 0, got {target_eps}")
    target_ratio = sympy.exp(target_eps)
    ratio_t = exp_epsilon_for_t(target_t, N, k)
    size = len(f)
    keep_t = p_t_for(target_t, f)
    candidates: tuple[tuple[ChoiceName, sympy.Expr | None, sympy.Expr | None, sympy.ImmutableMatrix], ...]
    keep_ldp = p_ldp_for_ratio(sympy.Min(target_ratio, ratio_t), size)
    keep_second = p_ldp_for_ratio(target_ratio, size)
    candidates = (
        ("ldp", None, keep_ldp, ldp_matrix(size, keep_ldp)),
        ("tclo+ldp", keep_t, keep_second, compose(tclo_matrix(f, keep_t), ldp_matrix(size, keep_second))),
        ("tclo", keep_t, None, tclo_matrix(f, keep_t)),
    )
    choices = []
    for name, first, second, matrix in candidates:
        ratio = ldp_ratio(matrix, f)
        level = sympy.Min(implied_t(ratio, N, k), worst_class_t(matrix, f))
        choices.append(
            Choice(
                name,
                first,
                second,
                matrix,
                ratio,
                level,
                at_most(level, target_t),
                at_most(ratio, target_ratio),
                utility(matrix, f),
            )
        )
    best = None
    for choice in sorted(choices, key=lambda c: (c.p_t is not None) + (c.p_ldp is not None)):
        if choice.meets and (best is None or not at_most(choice.utility, best.utility)):
            best = choice
    return Plan(target_t, target_eps, N, k, f, ratio_t, tuple(choices), best)
