"""Utility of a release mechanism: Ekenstedt et al. 2022, Sec. V.B, eqs. (3)-(6).

The true value ``Y`` has distribution ``f = (p_y(a_1), ..., p_y(a_n))``; a mechanism with
matrix ``M[y, z] = Pr(Z = z | Y = y)`` releases ``Z``; a user guesses ``Y`` from ``Z`` and
earns ``g(y, guess)``. With the best guess for every ``z``, the expected gain is

.. math::  U(Y, Z) = \\sum_z \\max_{\\hat y} \\sum_y f_y M[y, z] g(y, \\hat y)

(eq. (3) maximised over the user's post-processing); for the binary gain
``g = δ(y, ŷ)`` it is eq. (4), ``U = sum_z max_y f_y M[y, z]``: the probability of guessing
right. It lies in ``[max_y f_y, 1]``: guessing the most frequent value ignores ``Z``, and
no guess beats knowing ``Y``.

Closed forms for the mechanisms of Figs. 4-5 (:mod:`theory.mechanism_selection.matrices`):

* eq. (5), Fig. 4 alone: ``sum_i max(f_i (p + (1-p)/n), max_{j != i} f_j (1-p)/n)``. The paper
  writes ``N`` where the number of values ``n`` is meant; with ``n`` it is correct.
* eq. (6), Fig. 5 then Fig. 4. The composed matrix is ``C = (1-p)/n J + p A`` with ``A`` the
  Fig. 5 matrix, so the joint probabilities are ``f_1(a_i) = f_i C[i, i]`` (printed
  correctly) and ``f_2(a_i, a_j) = f_i C[i, j] = f_i ((1-p)/n + p (1-p_t) f_j)``. The
  printed ``f_2 = f_i (p_t (1-p)/n + (1-p_t) f_j (p + (1-p)/n))`` lacks the term
  ``f_i (1-p_t)(1-f_j)(1-p)/n`` (the uniform re-draw of a value that the first stage
  changed). The printed sum ``sum_j max_i max{f_1(a_i), f_2(a_i, a_j)}`` also takes
  ``f_1(a_i)`` for every ``i`` instead of only ``i = j``: with no noise
  (``p_t = p = 1``) and ``f = (3/4, 1/4)`` it gives ``3/2 > 1``. The corrected sum is
  ``sum_j max(f_1(a_j), max_{i != j} f_2(a_i, a_j))``, which equals eq. (4) on ``C``.

References
----------
Ekenstedt et al. 2022, Sec. V.B (eqs. (3)-(6)); Alvim et al. [37] for eq. (3).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from theory.mechanism_selection.matrices import (
    Exact,
    exact,
    f_i,
    f_j,
    frequencies_of,
    n,
    p_ldp,
    p_t,
)

__all__ = [
    "F1",
    "F2_PRINTED",
    "F2_DERIVED",
    "utility",
    "utility_ldp_closed",
    "utility_composed_closed",
    "utility_composed_printed",
]

F1 = f_i * (p_t * (p_ldp + (1 - p_ldp) / n) + (1 - p_t) * (f_i * p_ldp + (1 - p_ldp) / n))
"""Ekenstedt et al. 2022, Sec. V.B ``f_1(a_i) = Pr(Y = a_i, Z = a_i)`` for Fig. 5 then Fig. 4 (``N`` read as ``n``)."""
F2_PRINTED = f_i * (p_t * (1 - p_ldp) / n + (1 - p_t) * (f_j * (p_ldp + (1 - p_ldp) / n)))
"""Ekenstedt et al. 2022, Sec. V.B ``f_2(a_i, a_j)`` as printed (``N`` read as ``n``); it is missing a term."""
F2_DERIVED = f_i * ((1 - p_ldp) / n + p_ldp * (1 - p_t) * f_j)
"""``f_2(a_i, a_j) = Pr(Y = a_i, Z = a_j)``, ``j != i``, derived from the composed matrix."""


def utility(
    matrix: sympy.Matrix,
    frequencies: Sequence[Exact],
    gain: sympy.Matrix | None = None,
) -> sympy.Expr:
    """eq. (3) with the best guess for each release; eq. (4) when ``gain`` is ``None``.

    Parameters
    ----------
    matrix
        ``M[y, z] = Pr(Z = z | Y = y)``.
    frequencies
        ``p_y``, one per row of ``matrix``.
    gain
        ``g[y, guess]``, square over the values of ``Y``; ``None`` is the binary gain.

    >>> from fractions import Fraction
    >>> from theory.mechanism_selection.matrices import ldp_matrix
    >>> utility(ldp_matrix(2, Fraction(1, 2)), [Fraction(1, 2), Fraction(1, 2)])
    3/4
    """
    f = frequencies_of(frequencies)
    rows, columns = matrix.shape
    if len(f) != rows:
        raise ValueError(f"{len(f)} frequencies for a mechanism on {rows} values")
    if gain is not None and gain.shape != (rows, rows):
        raise ValueError(f"the gain must be {rows}x{rows} (true value x guess), got {gain.shape}")
    total: sympy.Expr = sympy.Integer(0)
    for z in range(columns):
        joint = [f[y] * matrix[y, z] for y in range(rows)]
        if gain is None:
            total += sympy.Max(*joint)
        else:
            total += sympy.Max(*(sum(joint[y] * gain[y, guess] for y in range(rows)) for guess in range(rows)))
    return sympy.simplify(total)


def _others(values: Sequence[sympy.Expr], skip: int) -> list[sympy.Expr]:
    return [value for i, value in enumerate(values) if i != skip] or [sympy.Integer(0)]


def utility_ldp_closed(frequencies: Sequence[Exact], keep: Exact) -> sympy.Expr:
    """eq. (5): utility of Fig. 4 with ``p_LDP = keep`` on ``n = len(frequencies)`` values."""
    f = frequencies_of(frequencies)
    p, size = exact(keep, "p_LDP"), len(f)
    change = (1 - p) / size
    return sympy.simplify(
        sum(sympy.Max(f[i] * (p + change), *(other * change for other in _others(f, i))) for i in range(size))
    )


def _composed_terms(frequencies: Sequence[Exact], first: Exact, second: Exact, f2: sympy.Expr) -> tuple[
    tuple[sympy.Expr, ...], list[list[sympy.Expr]]
]:
    f = frequencies_of(frequencies)
    values = {p_t: exact(first, "p_t"), p_ldp: exact(second, "p_LDP"), n: len(f)}
    ones = tuple(F1.subs(values).subs(f_i, fi) for fi in f)
    twos = [[f2.subs(values).subs({f_i: fi, f_j: fj}) for fj in f] for fi in f]
    return ones, twos


def utility_composed_closed(frequencies: Sequence[Exact], first: Exact, second: Exact) -> sympy.Expr:
    """eq. (6), corrected: Fig. 5 with ``p_t = first`` then Fig. 4 with ``p_LDP = second``.

    ``sum_j max(f_1(a_j), max_{i != j} f_2(a_i, a_j))`` with the derived ``f_2``. With
    ``second = 1`` it is the utility of Fig. 5 alone (mechanism 3).
    """
    ones, twos = _composed_terms(frequencies, first, second, F2_DERIVED)
    size = len(ones)
    column = [[twos[i][j] for i in range(size)] for j in range(size)]
    return sympy.simplify(sum(sympy.Max(ones[j], *_others(column[j], j)) for j in range(size)))


def utility_composed_printed(frequencies: Sequence[Exact], first: Exact, second: Exact) -> sympy.Expr:
    """eq. (6) exactly as printed: ``sum_j max_i max{f_1(a_i), f_2(a_i, a_j)}``, printed ``f_2``."""
    ones, twos = _composed_terms(frequencies, first, second, F2_PRINTED)
    size = len(ones)
    return sympy.simplify(sum(sympy.Max(*(sympy.Max(ones[i], twos[i][j]) for i in range(size))) for j in range(size)))
