"""The class-size histogram and the sampling frame every population model starts from.

References
----------
Dankar, El Emam, Neisa & Roffey 2012, Sec. 2 (the sample frequencies of frequencies the
estimators use); El Emam & Dankar 2008, Sec. 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verifier.errors import PolicyError

__all__ = ["SizeHistogram", "size_histogram", "Sampling", "sampling", "SamplingFrameError", "frame_of"]


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


LARGEST_POPULATION = 10**300
"""The largest population size a frame may have: the estimators compute in float64."""


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


class SamplingFrameError(PolicyError):
    """A sampling frame that cannot hold the release; ``key`` names the input it came from (``sampling_fraction``,
    ``population`` or ``population_table``), so that the caller can say where it was given."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


def sampling(rows: int, *, fraction: Fraction | None = None, population: int | None = None,
             release: str = "the release") -> Sampling:
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
            raise SamplingFrameError(f"sampling fraction: expected a number in (0, 1], found {fraction}",
                                     "sampling_fraction")
        if rows and fraction < Fraction(rows, LARGEST_POPULATION):
            raise SamplingFrameError(f"sampling fraction: expected at least {rows}/10^300 (a population of at most "
                                     f"10^300 people, the range of the estimators' float64), found {_short(fraction)}",
                                     "sampling_fraction")
        size = int(Fraction(rows) / fraction + Fraction(1, 2))
        return Sampling(rows, size, fraction)
    assert population is not None
    if population < max(rows, 1):
        raise SamplingFrameError(f"population size: expected at least the {rows} records of {release}, found "
                                 f"{_short(population)}", "population")
    if population > LARGEST_POPULATION:
        raise SamplingFrameError(f"population size: expected at most 10^300 people (the range of the estimators' "
                                 f"float64), found {_short(population)}", "population")
    return Sampling(rows, population, Fraction(rows, population))


def _short(value: object) -> str:
    """A number as text, its middle elided past 40 characters."""
    text = str(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text)} characters)"


def frame_of(rows: int, inputs: Mapping[str, Any], release: str = "the release") -> Sampling | None:
    """The sampling frame of a run, read the same way for every model (``None``: none given).

    A ``sampling_fraction`` or a ``population`` size (not both) gives it; without either, a
    ``population_table`` gives ``N`` as its total count. A fraction of 1 is the whole
    population (``N = n``), never a default.

    >>> frame_of(10, {"sampling_fraction": Fraction(1)}).fraction
    Fraction(1, 1)
    >>> frame_of(10, {}) is None
    True
    """
    fraction, population = inputs.get("sampling_fraction"), inputs.get("population")
    if fraction is not None or population is not None:
        return sampling(rows, fraction=fraction, population=population, release=release)
    table = inputs.get("population_table")
    if table is None:
        return None
    if int(table.total) < max(rows, 1):
        raise SamplingFrameError(f"{table.source}: population table: its counts sum to {_short(table.total)} people; "
                                 f"expected at least the {rows} records of {release}", "population_table")
    return sampling(rows, population=int(table.total), release=release)
