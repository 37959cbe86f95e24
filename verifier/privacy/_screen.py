"""ClassCells, screened exact maxima and exact log comparisons for the diversity and likeness measures.

Every measure of :mod:`verifier.privacy.anonymity`, :mod:`verifier.privacy.diversity` and
:mod:`verifier.privacy.likeness` is an extreme over classes, or over the non-empty cells
``(class, value)``, of a quantity built from integer counts (docs/design.md, "Screen in
float64, decide exactly"). The pattern is always the same:

1. compute the quantity for every class or cell in float64, vectorized over the sparse
   cells of the count table (only non-zero cells are stored; no dense ``classes × m``);
2. keep every entry within :func:`verifier._exact_max.screen_margin` of the float
   extreme (float64 ratios of integers below 2**53 are off by a few ulps);
3. decide the extreme exactly on those candidates (:func:`verifier._exact_max.exact_argmax`);
4. name the witness by :func:`verifier._exact_max.first_by_qi`, so row order never
   changes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from verifier._exact_max import exact_argmax, first_by_qi, screen_margin
from verifier.errors import PolicyError
from verifier.measures import EMPTY, class_witness, excluded_notes, undefined
from verifier.tables.counts import Classes, CountTable

CHUNK_CELLS = 1 << 16
"""ClassCells screened (or classes computed) at a time: float64 temporaries of 512 KiB, which stay in the cache and
add no pages to the process, instead of one the size of the table."""

__all__ = [
    "ClassCells",
    "cells_of",
    "screened_max",
    "log_form_sign",
    "prime_exponents",
    "first_cell_by_qi",
    "class_witness",
    "excluded_notes",
    "EMPTY",
    "undefined",
    "as_fraction",
]

@dataclass(frozen=True)
class ClassCells:
    """The non-empty cells of a count table, grouped by class (classes with rows only).

    Attributes
    ----------
    cls
        Class index of each cell (sorted; classes of size 0 have no cell).
    value
        Value code of each cell.
    count
        ``n[E, s]`` (int64, positive).
    present
        The classes that have at least one cell, in increasing order.
    starts
        Offset of each present class's first cell (for ``np.ufunc.reduceat``).
    sizes
        ``|E|`` of each present class, as counted for this attribute.
    """

    cls: np.ndarray
    value: np.ndarray
    count: np.ndarray
    present: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray

    @property
    def distinct(self) -> np.ndarray:
        """Number of distinct values of each present class."""
        return np.diff(np.append(self.starts, self.cls.size))

    def per_cell(self, per_class: np.ndarray) -> np.ndarray:
        """Broadcast a per-present-class array to the cells."""
        return np.repeat(per_class, self.distinct)

    def position(self, index: int) -> int:
        """Position of class ``index`` among the present classes."""
        return int(np.searchsorted(self.present, index))

    def subset(self, keep: np.ndarray) -> ClassCells:
        """The cells of the present classes selected by ``keep`` (a mask over :attr:`present`)."""
        distinct = self.distinct[keep]
        cell_keep = self.per_cell(keep)
        return ClassCells(
            cls=self.cls[cell_keep],
            value=self.value[cell_keep],
            count=self.count[cell_keep],
            present=self.present[keep],
            starts=np.concatenate([[0], np.cumsum(distinct)[:-1]]).astype(np.int64),
            sizes=self.sizes[keep],
        )

    def sorted_within(self, values: np.ndarray, *, descending: bool = False) -> np.ndarray:
        """``values`` (non-negative integers, one per cell) sorted within each class; classes stay in order.

        One sort of the integers ``position · B + value`` (``B`` above every value), which
        numpy does by radix, several times faster than a two-key ``np.lexsort``; the two-key sort is used when those integers would not fit in int64.
        """
        bound = int(values.max()) + 1 if values.size else 1
        if self.present.size * bound >= 1 << 62:
            return values[np.lexsort((-values if descending else values, self.cls))]
        keys = self.per_cell(np.arange(self.present.size, dtype=np.int64) * bound)
        keys += bound - 1 - values if descending else values
        keys.sort(kind="stable")  # a radix sort: three times numpy's default on 10^7 cells
        keys %= bound
        return bound - 1 - keys if descending else keys


def cells_of(table: CountTable) -> ClassCells:
    """The non-empty cells of ``table``, grouped by class, with per-class offsets (built once per table)."""
    return table.derived("cells", lambda: _cells(table))


def _cells(table: CountTable) -> ClassCells:
    cls = np.asarray(table.class_index, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]]) if cls.size else np.zeros(0, dtype=np.int64)
    present = cls[starts]
    return ClassCells(
        cls=cls,
        value=np.asarray(table.value_index, dtype=np.int64),
        count=np.asarray(table.count, dtype=np.int64),
        present=present,
        starts=starts,
        sizes=np.asarray(table.sizes, dtype=np.int64)[present],
    )


def screened_max(num: np.ndarray, den: np.ndarray) -> tuple[Fraction, np.ndarray]:
    """The exact maximum of ``num/den`` and every position that attains it.

    All entries are screened in float64 (:data:`CHUNK_CELLS` at a time); the exact maximum
    is taken over those within :func:`~verifier._exact_max.screen_margin` of the float
    maximum.

    Parameters
    ----------
    num, den
        Integer arrays (int64, or object arrays of Python ints), ``den > 0``, not empty.

    Returns
    -------
    (Fraction, positions)
        The exact maximum and the sorted positions whose ratio equals it.

    Examples
    --------
    >>> value, where = screened_max(np.array([1, 2, 2]), np.array([3, 6, 7]))
    >>> value, where.tolist()
    (Fraction(1, 3), [0, 1])
    """
    approx = np.empty(num.size, dtype=np.float64)
    for start in range(0, num.size, CHUNK_CELLS):
        chunk = slice(start, start + CHUNK_CELLS)
        approx[chunk] = num[chunk].astype(np.float64) / den[chunk].astype(np.float64)
    top = float(approx.max())
    candidates = np.flatnonzero(approx >= top - screen_margin(top, 1))
    best, mask = exact_argmax(num[candidates], den[candidates])
    return best, candidates[mask]


_BIGINT_BITS = 1 << 18
_FIRST_PRECISION = 128


def prime_exponents(terms: Mapping[int, int | Fraction]) -> dict[int, Fraction]:
    """Rewrite ``Π x^e`` over ``terms = {x: e}`` (integers ``x ≥ 1``) as ``Π p^E`` over primes.

    The non-zero exponents ``E`` only; an empty result means the product is exactly 1.

    Examples
    --------
    >>> prime_exponents({12: 1, 2: -2})
    {3: Fraction(1, 1)}
    """
    out: dict[int, Fraction] = {}
    for x, e in terms.items():
        for prime, power in sympy.factorint(x).items():
            out[int(prime)] = out.get(int(prime), Fraction(0)) + Fraction(e) * int(power)
    return {prime: e for prime, e in sorted(out.items()) if e}


def log_form_sign(terms: Mapping[int, int]) -> int:
    """The exact sign of ``Σ e·ln x`` over ``terms = {x: e}`` (integers ``x ≥ 1``).

    Equivalent to comparing the integers ``Π_{e>0} x^e`` and ``Π_{e<0} x^{-e}``. When
    those have at most 2**18 bits they are formed and compared directly. Otherwise the
    sum is rewritten over primes (:func:`prime_exponents`): it is 0 exactly when every
    prime's exponent is 0 (unique factorization). If not, the logarithms of distinct
    primes being linearly independent over the rationals, the sum is not 0, and an
    interval enclosure (``mpmath.iv``, rigorous outward rounding) at increasing
    precision excludes 0 after finitely many steps and gives the sign.

    Examples
    --------
    >>> log_form_sign({7: 3, 343: -1})   # 3 ln 7 - ln 343 = 0
    0
    >>> log_form_sign({2: 10, 10: -3})   # 1024 > 1000
    1
    """
    bits = sum(abs(e) * x.bit_length() for x, e in terms.items())
    if bits <= _BIGINT_BITS:
        positive = math.prod(x**e for x, e in terms.items() if e > 0)
        negative = math.prod(x ** (-e) for x, e in terms.items() if e < 0)
        return (positive > negative) - (positive < negative)
    primes = prime_exponents(terms)
    if not primes:
        return 0
    context = mpmath.ctx_iv.MPIntervalContext()
    context.prec = _FIRST_PRECISION
    while True:
        total = context.mpf(0)
        for prime, e in primes.items():
            total += context.mpf(e.numerator) * context.log(context.mpf(prime)) / e.denominator
        if total.a > 0:
            return 1
        if total.b < 0:
            return -1
        context.prec *= 4


def first_cell_by_qi(classes: Classes, cells: ClassCells, positions: np.ndarray) -> int:
    """The cell among ``positions``: the class first by :func:`first_by_qi`, then the
    smallest value code in it."""
    chosen = first_by_qi(classes, cells.cls[positions])
    in_class = positions[cells.cls[positions] == chosen]
    return int(in_class[np.argmin(cells.value[in_class])])


def as_fraction(value: object, name: str) -> Fraction:
    """``value`` as a ``Fraction``; a policy level must be exact (``int`` or ``Fraction``).

    Raises
    ------
    PolicyError
        ``value`` is a float, a bool, text or anything else.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, Fraction)):
        raise PolicyError(f"{name}: expected an exact number (int or Fraction), found {value!r}")
    return Fraction(int(value)) if isinstance(value, (int, np.integer)) else value
