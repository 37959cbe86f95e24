"""The randomized-response mechanisms of Ekenstedt et al. 2022, Sec. V.A, symbolically, with eqs. (1)-(2).

A mechanism on a nominal attribute with values ``a_1, ..., a_n`` is its transition matrix
``M[i, j] = Pr(Z(a_i) = a_j)`` (rows: true value, columns: released value).

* Fig. 4 (ε-LDP): keep the true value with probability ``p_LDP``, otherwise release a value
  drawn uniformly from ``{a_1, ..., a_n}`` (the true one included):
  ``M = p_LDP I + (1 - p_LDP)/n J``.
* Fig. 5 (multiplicative t-closeness): keep the true value with probability ``p_t``,
  otherwise release a value drawn from the data set's empirical distribution
  ``f = (p_y(a_1), ..., p_y(a_n))``: ``M = p_t I + (1 - p_t) 1 f^T``. Its released
  distribution over the whole data set is ``f`` itself (``f^T M = f^T``).
* Sequential composition (Sec. V.C, mechanism 2): run one mechanism on the output of the
  other, ``M = M_first M_second``.

Levels, derived here from the matrices and checked against the printed equations:

* eq. (1). The LDP level (Ekenstedt et al. 2022, Def. 6) is the largest ratio of two entries of one column:
  ``e^ε = (p_LDP + (1-p_LDP)/n) / ((1-p_LDP)/n) = 1 + n p_LDP / (1 - p_LDP)``. The paper
  prints ``ε = ln(1 + p_LDP / (N (1 - p_LDP)))``, which is wrong (it divides by the
  number of values instead of multiplying, and names it N): for ``n = 2``,
  ``p_LDP = 1/2`` the matrix is ``[[3/4, 1/4], [1/4, 3/4]]`` with ``e^ε = 3``; the printed
  form gives ``3/2`` (``N = n = 2``).
* eq. (2). The worst equivalence class holds records that all share one value ``a_i``
  (every class average is a convex combination of rows, so no class can be farther from
  the data set than its most extreme row). For Fig. 5 that gives the ratios
  ``Pr_E(a_i)/Pr_D(a_i) = p_t/f_i + 1 - p_t`` and ``Pr_D(a_j)/Pr_E(a_j) = 1/(1 - p_t)``, so
  ``t = max(p_t / f_min + 1 - p_t, 1/(1 - p_t))``. The printed form reduces (its
  ``mu_i`` equals ``f_i``) to ``max(f_i^2 / (p_t + (1-p_t) f_i), 1/(1-p_t)) = 1/(1-p_t)``:
  its first term is the first ratio inverted (always ``<= 1``), so it misses every case where
  a rare value dominates: ``f = (1/4, 3/4)``, ``p_t = 1/2`` gives ``t = 5/2``, printed ``2``.

The level of any matrix on any frequency vector is also computed directly
(:func:`ldp_ratio`, :func:`worst_class_t`), which is how the closed forms are checked.

References
----------
Ekenstedt et al. 2022, Sec. V.A (Figs. 4-5, eqs. (1)-(2)), Sec. V.C (mechanisms 1-3),
Defs. 4, 6, 7.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TypeAlias

import sympy

from theory.definitions import N, eps, t

__all__ = [
    "Exact",
    "p_ldp",
    "p_t",
    "n",
    "f_i",
    "f_j",
    "f_min",
    "S_i",
    "LDP_KEEP",
    "LDP_CHANGE",
    "TCLO_KEEP",
    "TCLO_CHANGE",
    "EQ1_PRINTED",
    "EQ1_DERIVED",
    "EQ2_PRINTED",
    "EQ2_DERIVED",
    "exact",
    "frequencies_of",
    "ldp_matrix",
    "tclo_matrix",
    "compose",
    "released_distribution",
    "ldp_ratio",
    "worst_class_t",
    "ldp_ratio_closed",
    "p_ldp_for_ratio",
    "tclo_t_closed",
    "tclo_t_printed",
    "p_t_for",
]

Exact: TypeAlias = int | Fraction | sympy.Expr
"""An exact number: an ``int``, a ``Fraction`` or a sympy expression."""

p_ldp = sympy.Symbol("p_LDP", nonnegative=True)
"""Fig. 4's design parameter: probability of releasing the true value unchanged."""
p_t = sympy.Symbol("p_t", nonnegative=True)
"""Fig. 5's design parameter: probability of releasing the true value unchanged."""
n = sympy.Symbol("n", positive=True, integer=True)
"""Number of values of the nominal attribute."""
f_i = sympy.Symbol("f_i", positive=True)
"""``p_y(a_i)``: frequency of the true value ``a_i`` in the data set."""
f_j = sympy.Symbol("f_j", positive=True)
"""``p_y(a_j)``: frequency of another value ``a_j``, ``j != i``."""
f_min = sympy.Symbol("f_min", positive=True)
"""The smallest frequency among the values present in the data set."""
S_i = sympy.Symbol("S_i", nonnegative=True)
"""``sum_{j != i} p_y(a_j)`` as it appears in the printed eq. (2) (equal to ``1 - f_i``)."""

LDP_KEEP = p_ldp + (1 - p_ldp) / n
"""Fig. 4: ``Pr(Z(a_i) = a_i)``."""
LDP_CHANGE = (1 - p_ldp) / n
"""Fig. 4: ``Pr(Z(a_i) = a_j)`` for ``j != i``."""
TCLO_KEEP = p_t + (1 - p_t) * f_i
"""Fig. 5: ``Pr(Z(a_i) = a_i)``."""
TCLO_CHANGE = (1 - p_t) * f_j
"""Fig. 5: ``Pr(Z(a_i) = a_j)`` for ``j != i``."""

EQ1_PRINTED = sympy.Eq(eps, sympy.log(1 + p_ldp / (N * (1 - p_ldp))))
"""Ekenstedt et al. 2022, eq. (1) as printed."""
EQ1_DERIVED = sympy.Eq(eps, sympy.log(1 + n * p_ldp / (1 - p_ldp)))
"""eq. (1) derived from Fig. 4: ``ε = ln(LDP_KEEP / LDP_CHANGE)`` (the largest column ratio)."""

_MU_I = f_i * (p_t + (1 - p_t) * f_i + (1 - p_t) * S_i)
EQ2_PRINTED = sympy.Eq(t, sympy.Max(_MU_I / (p_t / f_i + (1 - p_t)), _MU_I / (f_i * (1 - p_t))))
"""Ekenstedt et al. 2022, eq. (2) as printed, for one value ``a_i`` (the paper maximises it over ``i``)."""
EQ2_DERIVED = sympy.Eq(t, sympy.Max(p_t / f_min + 1 - p_t, 1 / (1 - p_t)))
"""eq. (2) derived from Fig. 5 (worst class: identical values), at least two values present."""


def exact(value: Exact, what: str = "value") -> sympy.Expr:
    """Convert an exact number to sympy; floats are refused (they would hide rounding)."""
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"{what} must be exact (int, Fraction or sympy), got {value!r}")
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    result = sympy.sympify(value)
    if not isinstance(result, sympy.Expr) or result.has(sympy.Float):
        raise TypeError(f"{what} must be exact (int, Fraction or sympy), got {value!r}")
    return result


def frequencies_of(frequencies: Sequence[Exact]) -> tuple[sympy.Expr, ...]:
    """Check and convert a frequency vector ``(p_y(a_1), ..., p_y(a_n))``.

    Raises
    ------
    ValueError
        When it is empty, has a negative entry, or does not sum to exactly 1.
    """
    values = tuple(exact(f, f"frequency p_y(a_{i + 1})") for i, f in enumerate(frequencies))
    if not values:
        raise ValueError("frequencies must list at least one value, got an empty sequence")
    for i, value in enumerate(values):
        if bool(value < 0):
            raise ValueError(f"frequency p_y(a_{i + 1}) must be >= 0, got {value}")
    total = sympy.Add(*values)
    if total != 1:
        raise ValueError(f"frequencies must sum to 1, got {values} summing to {total}")
    return values


def _probability(value: Exact, name: str) -> sympy.Expr:
    result = exact(value, name)
    if bool(result < 0) or bool(result > 1):
        raise ValueError(f"{name} must lie in [0, 1], got {result}")
    return result


def ldp_matrix(values: int, keep: Exact) -> sympy.ImmutableMatrix:
    """Fig. 4: ``M = p_LDP I + (1 - p_LDP)/n J`` for ``n = values`` values.

    >>> ldp_matrix(2, Fraction(1, 2))
    Matrix([
    [3/4, 1/4],
    [1/4, 3/4]])
    """
    if values < 1:
        raise ValueError(f"the number of values n must be >= 1, got {values}")
    p = _probability(keep, "p_LDP")
    off = (1 - p) / values
    return sympy.ImmutableMatrix(values, values, lambda i, j: off + (p if i == j else 0))


def tclo_matrix(frequencies: Sequence[Exact], keep: Exact) -> sympy.ImmutableMatrix:
    """Fig. 5: ``M = p_t I + (1 - p_t) 1 f^T`` for the empirical frequencies ``f``.

    >>> tclo_matrix([Fraction(1, 4), Fraction(3, 4)], Fraction(1, 2))
    Matrix([
    [5/8, 3/8],
    [1/8, 7/8]])
    """
    f = frequencies_of(frequencies)
    p = _probability(keep, "p_t")
    size = len(f)
    return sympy.ImmutableMatrix(size, size, lambda i, j: (1 - p) * f[j] + (p if i == j else 0))


def compose(first: sympy.Matrix, second: sympy.Matrix) -> sympy.ImmutableMatrix:
    """Sequential composition: ``second`` applied to the output of ``first`` (matrix product).

    Ekenstedt et al. 2022, Sec. V.C, mechanism 2 attaches Fig. 4's root to every leaf of Fig. 5.
    """
    if first.shape[1] != second.shape[0]:
        raise ValueError(f"cannot compose a {first.shape} mechanism with a {second.shape} one")
    return sympy.ImmutableMatrix(first * second)


def released_distribution(matrix: sympy.Matrix, frequencies: Sequence[Exact]) -> tuple[sympy.Expr, ...]:
    """``Pr_D(a_j) = sum_i p_y(a_i) M[i, j]``: the whole data set's release distribution (Def. 4)."""
    f = frequencies_of(frequencies)
    if len(f) != matrix.shape[0]:
        raise ValueError(f"{len(f)} frequencies for a mechanism on {matrix.shape[0]} values")
    return tuple(sympy.expand(sum(f[i] * matrix[i, j] for i in range(len(f)))) for j in range(matrix.shape[1]))


def _present(frequencies: Sequence[Exact]) -> tuple[int, ...]:
    return tuple(i for i, f in enumerate(frequencies_of(frequencies)) if f != 0)


def ldp_ratio(matrix: sympy.Matrix, frequencies: Sequence[Exact]) -> sympy.Expr:
    """``e^ε`` of Ekenstedt et al. 2022, Def. 6 for the records of a data set with these frequencies.

    The largest ``M[i, b] / M[j, b]`` over released values ``b`` and true values ``i, j``
    present in the data set (a record with value ``a_i`` releases row ``i``); ``oo`` when
    one of them can release ``b`` and another cannot.
    """
    rows = _present(frequencies)
    worst: sympy.Expr = sympy.Integer(1)
    for b in range(matrix.shape[1]):
        column = [matrix[i, b] for i in rows]
        high, low = sympy.Max(*column), sympy.Min(*column)
        if high == 0:
            continue
        if low == 0:
            return sympy.oo
        worst = sympy.Max(worst, high / low)
    return worst


def worst_class_t(matrix: sympy.Matrix, frequencies: Sequence[Exact]) -> sympy.Expr:
    """The multiplicative t of the worst possible class: all its records share one value.

    ``max_{i present, b} max(M[i, b] / Pr_D(b), Pr_D(b) / M[i, b])``: the (1,t)-closeness
    level of the data set (Ekenstedt et al. 2022, Def. 7 with k = 1). Any class is an average of rows, so
    this bounds multiplicative t-closeness (Def. 4) for every partition and (k,t)-closeness
    for every k; it is attained by a class of ``k`` identical values when the extreme values
    have at least ``k`` records. This is the computation behind Ekenstedt et al. 2022, eq. (2).
    """
    released = released_distribution(matrix, frequencies)
    worst: sympy.Expr = sympy.Integer(1)
    for i in _present(frequencies):
        for b, overall in enumerate(released):
            if overall == 0:
                continue
            if matrix[i, b] == 0:
                return sympy.oo
            worst = sympy.Max(worst, matrix[i, b] / overall, overall / matrix[i, b])
    return worst


def ldp_ratio_closed(values: int, keep: Exact) -> sympy.Expr:
    """eq. (1), corrected: ``e^ε = 1 + n p_LDP / (1 - p_LDP)`` (``oo`` at ``p_LDP = 1``)."""
    p = _probability(keep, "p_LDP")
    if p == 1:
        return sympy.oo
    return sympy.simplify(sympy.exp(EQ1_DERIVED.rhs).subs({n: values, p_ldp: p}))


def p_ldp_for_ratio(ratio: Exact, values: int) -> sympy.Expr:
    """Invert eq. (1): the ``p_LDP`` whose mechanism has ``e^ε = ratio`` exactly.

    ``p_LDP = (e^ε - 1) / (e^ε - 1 + n)``; ``ratio = oo`` gives ``1`` (no noise).
    """
    r = sympy.oo if ratio is sympy.oo else exact(ratio, "e^epsilon")
    if r == sympy.oo:
        return sympy.Integer(1)
    if bool(r < 1):
        raise ValueError(f"e^epsilon must be >= 1, got {r}")
    return (r - 1) / (r - 1 + values)


def tclo_t_closed(frequencies: Sequence[Exact], keep: Exact) -> sympy.Expr:
    """eq. (2), corrected: the multiplicative t of Fig. 5 in its worst class.

    ``t = max(p_t / f_min + 1 - p_t, 1 / (1 - p_t))`` over the values present; with a single
    value present every class equals the data set and ``t = 1``.
    """
    f = frequencies_of(frequencies)
    p = _probability(keep, "p_t")
    present = [value for value in f if value != 0]
    if len(present) == 1:
        return sympy.Integer(1)
    if p == 1:
        return sympy.oo
    return sympy.Max(p / min(present) + 1 - p, 1 / (1 - p))


def tclo_t_printed(frequencies: Sequence[Exact], keep: Exact) -> sympy.Expr:
    """eq. (2) exactly as printed, maximised over the values present (kept to refute it).

    Its second term ``1/(1 - p_t)`` is infinite at ``p_t = 1``.
    """
    f = frequencies_of(frequencies)
    p = _probability(keep, "p_t")
    if p == 1:
        return sympy.oo
    terms = [
        EQ2_PRINTED.rhs.subs({f_i: value, S_i: 1 - value, p_t: p})
        for value in f
        if value != 0
    ]
    return sympy.Max(*terms)


def p_t_for(t0: Exact, frequencies: Sequence[Exact]) -> sympy.Expr:
    """Invert the corrected eq. (2): the largest ``p_t`` whose Fig. 5 mechanism is ``t0``-close.

    ``p_t = min(1 - 1/t0, (t0 - 1) f_min / (1 - f_min))`` (both ratios of eq. (2) are
    increasing in ``p_t``); ``1`` when a single value is present.
    """
    target = exact(t0, "t0")
    if bool(target < 1):
        raise ValueError(f"t0 must be >= 1, got {target}")
    present = [value for value in frequencies_of(frequencies) if value != 0]
    if len(present) == 1:
        return sympy.Integer(1)
    smallest = min(present)
    return sympy.Min(1 - 1 / target, (target - 1) * smallest / (1 - smallest))
