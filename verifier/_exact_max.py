"""Exact maxima of rationals screened in float64, and a row-order-free tie-break.

The measures of this package screen every class in float64 and decide on exact
rationals (docs/design.md, "Screen in float64, decide exactly"). The helpers here hold the parts that
are the same for every measure: how wide the screening margin is, how to take the
exact maximum of many candidate fractions without one ``Fraction`` per candidate, and
which class to name when several attain the maximum.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from verifier.tables.counts import Classes

__all__ = ["INT64_SAFE", "screen_margin", "exact_argmax", "first_by_qi", "exact_ints"]

INT64_SAFE = 1 << 62
"""Bound below which sums of products are computed in int64 without overflow."""

_RELATIVE = 1e-9
_EPS = float(np.finfo(np.float64).eps)


def screen_margin(screened_max: float, terms: int) -> float:
    """How far below the screened maximum a candidate may lie and still be the true one.

    Parameters
    ----------
    screened_max
        The largest float64 level.
    terms
        How many float64 terms of magnitude at most 1 were summed for one level; each
        carries a rounding error of a few ulps, so ``16 * terms * eps`` bounds it.
    """
    return _RELATIVE * abs(screened_max) + 16.0 * max(terms, 1) * _EPS


def exact_ints(bound: int, array: np.ndarray) -> np.ndarray:
    """``array`` in a dtype whose arithmetic stays exact up to ``bound``.

    int64 when ``bound`` is below :data:`INT64_SAFE`, Python integers (object dtype)
    otherwise, so that products and sums beyond 2**63 never wrap.
    """
    if bound < INT64_SAFE:
        return np.asarray(array, dtype=np.int64)
    return np.asarray(array, dtype=np.int64).astype(object)


def exact_argmax(numerators: np.ndarray, denominators: np.ndarray) -> tuple[Fraction, np.ndarray]:
    """The exact maximum of ``numerators[i] / denominators[i]`` and where it is attained.

    Only the distinct (numerator, denominator) pairs become ``Fraction`` objects. On int64
    arrays with positive denominators whose cross products stay below :data:`INT64_SAFE`,
    no pair does: the float64 maximum is a guess, checked (and raised while some entry
    exceeds it) by cross-multiplying in int64, which is exact there.

    Returns
    -------
    (maximum, mask)
        ``mask[i]`` is true when entry ``i`` equals the maximum.
    """
    found = _int64_argmax(np.asarray(numerators), np.asarray(denominators))
    if found is not None:
        return found
    numerators = np.asarray(numerators).astype(object)
    denominators = np.asarray(denominators).astype(object)
    best = max(Fraction(int(n), int(d)) for n, d in set(zip(numerators.tolist(), denominators.tolist())))
    mask = numerators * best.denominator == denominators * best.numerator
    return best, np.asarray(mask, dtype=bool)


def _int64_argmax(numerators: np.ndarray, denominators: np.ndarray) -> tuple[Fraction, np.ndarray] | None:
    """:func:`exact_argmax` by int64 cross products, or ``None`` where they could overflow
    (or the arrays are not int64 with positive denominators)."""
    if numerators.dtype != np.int64 or denominators.dtype != np.int64 or numerators.size == 0:
        return None
    if int(denominators.min()) <= 0:
        return None
    largest_numerator = max(abs(int(numerators.max())), abs(int(numerators.min())))
    largest_denominator = int(denominators.max())
    approx = numerators / denominators
    chosen = int(np.argmax(approx))
    while True:
        best = Fraction(int(numerators[chosen]), int(denominators[chosen]))
        if (largest_numerator * best.denominator >= INT64_SAFE
                or largest_denominator * abs(best.numerator) >= INT64_SAFE):
            return None
        left = numerators * best.denominator
        right = denominators * best.numerator
        above = np.flatnonzero(left > right)
        if above.size == 0:
            return best, left == right
        chosen = int(above[np.argmax(approx[above])])


def first_by_qi(classes: Classes, indices: Sequence[int] | np.ndarray) -> int:
    """The class among ``indices`` whose quasi-identifier values sort first (:func:`~verifier.tables.counts.qi_order`).

    Classes may be numbered by first appearance in the table, so the index itself can
    depend on row order; the QI values do not. The classes' order is computed once
    (:attr:`~verifier.tables.counts.Classes.qi_rank`); each call is then one ``argmin``.
    """
    indices = np.asarray(indices, dtype=np.int64)
    return int(indices[np.argmin(classes.qi_rank[indices])])
