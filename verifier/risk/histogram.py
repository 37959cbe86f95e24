"""The class-size histogram and the sampling frame every population model starts from.

References
----------
Dankar, El Emam, Neisa & Roffey 2012, Sec. 2 (the sample frequencies of frequencies the
estimators use); El Emam & Dankar 2008, Sec. 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from verifier.errors import PolicyError

__all__ = ["SizeHistogram", "size_histogram", "Sampling", "sampling"]


@dataclass(frozen=True)
class SizeHistogram:
    """How many classes have each size: ``classes[i]`` classes of ``sizes[i]`` records.

    Attributes
    ----------
    sizes
        The distinct class sizes, ascending (int64).
    classes
        The number of classes of each size (int64).
    """

    sizes: np.ndarray
    classes: np.ndarray

    @property
    def rows(self) -> int:
        """Records ``n`` (the sample size)."""
        return int(sum(int(s) * int(c) for s, c in zip(self.sizes, self.classes)))

    @property
    def count(self) -> int:
        """Classes ``u``."""
        return int(self.classes.sum())

    def of_size(self, size: int) -> int:
        """The number of classes of exactly ``size`` records (``c_size``)."""
        where = np.flatnonzero(self.sizes == size)
        return int(self.classes[where[0]]) if where.size else 0


def size_histogram(sizes: np.ndarray) -> SizeHistogram:
    """The histogram of class sizes (one ``np.unique``: O(C log C) once, then O(#distinct sizes)).

    >>> size_histogram(np.array([1, 2, 1, 5])).classes.tolist()
    [2, 1, 1]
    """
    distinct, counts = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return SizeHistogram(distinct, counts.astype(np.int64))


@dataclass(frozen=True)
class Sampling:
    """A release as a sample of a population: its size ``N`` and the sampling fraction.

    Attributes
    ----------
    rows
        The sample size ``n``.
    population
        The population size ``N`` (``round(n / f)`` when a fraction ``f`` is given, as ARX
        rounds it; or as given).
    given
        The sampling fraction as given (or ``n / N`` when the population size was given).
    """

    rows: int
    population: int
    given: Fraction

    @property
    def fraction(self) -> Fraction:
        """The sampling fraction the estimators use, ``π = n / N``."""
        return Fraction(self.rows, self.population)


def sampling(rows: int, *, fraction: Fraction | None = None, population: int | None = None) -> Sampling:
    """The sampling frame from a sampling fraction ``f`` (``N = round(n / f)``, halves up) or a population size.

    Raises
    ------
    PolicyError
        Neither or both given, ``f`` outside ``(0, 1]``, or ``N < n``.

    >>> sampling(7, fraction=Fraction(1, 10)).population
    70
    >>> sampling(30, population=40).fraction
    Fraction(3, 4)
    """
    if (fraction is None) == (population is None):
        raise PolicyError("population models: expected a sampling fraction or a population size (one of them)")
    if fraction is not None:
        if not 0 < fraction <= 1:
            raise PolicyError(f"sampling fraction: expected a number in (0, 1], found {fraction}")
        size = int(Fraction(rows) / fraction + Fraction(1, 2))
        return Sampling(rows, size, fraction)
    assert population is not None
    if population < max(rows, 1):
        raise PolicyError(f"population size: expected at least the {rows} records of the release, found {population}")
    return Sampling(rows, population, Fraction(rows, population))
