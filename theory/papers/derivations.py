"""Symbolic derivations behind the claim checks: tight bounds and the families attaining them.

Each derivation returns the derived closed form together with the steps that were
certified by sympy (a step is certified when an expression is shown to be a quotient of
polynomials with non-negative coefficients after a substitution that makes every
variable non-negative, or when a difference simplifies to zero).

References
----------
Ekenstedt et al. 2022, Appendix C-D (Theorems 2-3); Domingo-Ferrer & Soria-Comas 2015, Sec. 4
(Prop. 1) and Sec. 5 (Prop. 2); Soria-Comas et al. 2015, Sec. 7 (Props. 1-2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product

import sympy

from theory.definitions import N, eps, k
from theory.tables.probability_table import ProbabilityTable

__all__ = [
    "Derivation",
    "nonnegative",
    "ldp_to_closeness",
    "extremal_ldp_table",
    "ordered_emd",
    "least_cluster_emd",
    "largest_stratified_emd",
]

_T = sympy.exp(eps)
_u = sympy.Symbol("u", nonnegative=True)
_i = sympy.Symbol("i", nonnegative=True)
_j = sympy.Symbol("j", nonnegative=True)
_m = sympy.Symbol("m", nonnegative=True)
_a = sympy.Symbol("a", nonnegative=True)
_b = sympy.Symbol("b", nonnegative=True)


@dataclass(frozen=True)
class Derivation:
    """A derived closed form and the certified steps leading to it."""

    result: sympy.Expr
    steps: tuple[str, ...]


def nonnegative(expr: sympy.Expr, substitution: Mapping[sympy.Symbol, sympy.Expr]) -> bool:
    """Certify ``expr >= 0``: after ``substitution`` (every new variable non-negative), the
    numerator and denominator are polynomials with non-negative coefficients (up to one
    common sign).

    >>> x = sympy.Symbol("x")
    >>> nonnegative((x - 1) ** 2 * x, {x: 1 + _u})
    True
    """
    numerator, denominator = sympy.fraction(sympy.together(sympy.expand(expr.subs(substitution))))
    signs = set()
    for part in (numerator, denominator):
        symbols = sorted(part.free_symbols, key=str)
        coefficients = sympy.Poly(sympy.expand(part), *symbols).coeffs() if symbols else [part]
        if any(c > 0 for c in coefficients) and any(c < 0 for c in coefficients):
            return False
        signs.add(all(c >= 0 for c in coefficients))
    return len(signs) == 1


def ldp_to_closeness() -> Derivation:
    r"""The tight t that ε-LDP guarantees for a group of k records among N.

    Every bucket's column lies in ``[a, a e^ε]``. A group ratio is linear-fractional in each
    record's probability, so its extremes are at the ends of that range: with i of the k
    group records and j of the N-k others at the top,

    .. math::
        r_\uparrow = \frac{N (i T + k - i)}{k (i T + k - i + j T + N - k - j)}, \quad
        r_\downarrow = 1 / r_\uparrow,

    ``r_up`` increases in i and decreases in j (max ``N T / (k T + N - k)`` at i = k, j = 0),
    ``r_down`` the opposite (max ``(k + (N-k) T)/N`` at i = 0, j = N-k), and the second
    dominates: their difference is ``k (N-k) (T-1)^2 / (N (k T + N - k))``.

    References
    ----------
    Ekenstedt et al. 2022, Appendix C (Theorem 2) and D (Theorem 3);
    Domingo-Ferrer & Soria-Comas 2015, proof of Prop. 1.
    """
    T = sympy.Symbol("T", positive=True)
    group = _i * T + k - _i
    up = N * group / (k * (group + _j * T + N - k - _j))
    down = 1 / up
    ranges = {T: 1 + _u, k: _i + _a, N: _i + _a + _j + _b}
    steps = []
    for name, expr, var, sign in (
        ("r_up increases in i", up, _i, 1),
        ("r_up decreases in j", up, _j, -1),
        ("r_down decreases in i", down, _i, -1),
        ("r_down increases in j", down, _j, 1),
    ):
        if not nonnegative(sign * sympy.diff(expr, var), ranges):
            raise ArithmeticError(f"derivation of the LDP group bound: could not certify '{name}'")
        steps.append(name)
    top_up = sympy.cancel(up.subs(_i, k).subs(_j, 0))
    top_down = sympy.cancel(down.subs(_i, 0).subs(_j, N - k))
    gap = sympy.cancel(top_down - top_up - k * (N - k) * (T - 1) ** 2 / (N * (k * T + N - k)))
    if gap != 0 or not nonnegative(top_down - top_up, {T: 1 + _u, N: k + _m}):
        raise ArithmeticError("derivation of the LDP group bound: could not compare the two directions")
    steps.append("(k + (N-k)T)/N - N T/(k T + N - k) = k(N-k)(T-1)^2/(N(k T + N - k)) >= 0")
    closed = (k + (N - k) * T) / N
    if sympy.cancel(top_down - closed) != 0:
        raise ArithmeticError(f"derivation of the LDP group bound: expected {closed}, found {top_down}")
    return Derivation(closed.subs(T, _T), tuple(steps))


def extremal_ldp_table(
    records: int, low: int, ratio: Fraction, classes: Sequence[Sequence[int]] | None = None
) -> ProbabilityTable:
    """The family attaining :func:`ldp_to_closeness`: ``low`` records at the bottom of the range.

    Two buckets; a low record is ``(1/(1+T), T/(1+T))``, a high one ``(T/(1+T), 1/(1+T))``,
    so the LDP ratio is exactly T and the first ``low`` records form the worst group.
    """
    bottom, top = 1 / (1 + ratio), ratio / (1 + ratio)
    rows = [(bottom, top)] * low + [(top, bottom)] * (records - low)
    return ProbabilityTable.from_rows(rows, classes)


def ordered_emd(cluster: Iterable[int], n: int) -> Fraction:
    """EMD with the ordered distance between k distinct ranks (mass 1/k) and all n ranks (1/n).

    .. math:: EMD = \\frac{1}{n-1} \\sum_{r=1}^{n-1} |F_C(r) - r/n|

    References
    ----------
    Soria-Comas et al. 2015, Sec. 7 (ordered distance); Li et al. 2007 slides (EMD for numerical attributes).
    """
    ranks = sorted(cluster)
    size = len(ranks)
    total, below = Fraction(0), 0
    for r in range(1, n):
        while below < size and ranks[below] <= r:
            below += 1
        total += abs(Fraction(below, size) - Fraction(r, n))
    return total / (n - 1)


def least_cluster_emd(n: int, size: int) -> tuple[Fraction, tuple[int, ...]]:
    """The least EMD over all clusters of ``size`` of the ranks 1..n, and a cluster attaining it."""
    return min((ordered_emd(c, n), c) for c in combinations(range(1, n + 1), size))


def largest_stratified_emd(n: int, size: int) -> tuple[Fraction, tuple[int, ...]]:
    """The largest EMD over clusters taking one rank from each of ``size`` consecutive blocks of n/size."""
    width = n // size
    blocks = [range(s * width + 1, (s + 1) * width + 1) for s in range(size)]
    best: tuple[Fraction, tuple[int, ...]] = (Fraction(-1), ())
    for choice in product(*blocks):
        best = max(best, (ordered_emd(choice, n), choice))
    return best

