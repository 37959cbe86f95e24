"""Seeded pseudo-random probability tables for the exact spot checks of :mod:`theory.checks`.

The checks that rest on a general symbolic argument also confirm it on a fixed sample of
tables with exact levels (:mod:`theory.tables.levels`); the sample is reproducible (a fixed
seed) so a check's outcome never depends on the run.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from typing import TypedDict

from theory.tables.probability_table import ProbabilityTable

__all__ = ["SampleOptions", "sample_tables"]


class SampleOptions(TypedDict, total=False):
    """Keyword options of :func:`sample_tables` besides ``count``, for callers that forward them."""

    seed: int
    min_n: int
    max_n: int
    max_p: int
    zeros: bool
    classes: bool
    constant_classes: bool


def _row(rng: random.Random, buckets: int, zeros: bool) -> tuple[Fraction, ...]:
    low = 0 if zeros else 1
    weights = [rng.randint(low, 6) for _ in range(buckets)]
    if not any(weights):
        weights[rng.randrange(buckets)] = 1
    total = sum(weights)
    return tuple(Fraction(w, total) for w in weights)


def _partition(rng: random.Random, records: int, at_least_two: bool) -> tuple[tuple[int, ...], ...]:
    order = list(range(records))
    rng.shuffle(order)
    cuts = sorted(rng.sample(range(1, records), rng.randint(1 if at_least_two else 0, records - 1)))
    bounds = [0, *cuts, records]
    return tuple(tuple(order[a:b]) for a, b in zip(bounds, bounds[1:]))


def sample_tables(
    count: int = 40,
    *,
    seed: int = 2022,
    min_n: int = 2,
    max_n: int = 6,
    max_p: int = 3,
    zeros: bool = True,
    classes: bool = True,
    constant_classes: bool = False,
) -> Iterator[ProbabilityTable]:
    """``count`` tables of ``min_n..max_n`` records and 2..``max_p`` buckets, exact Fractions.

    Parameters
    ----------
    zeros
        Allow zero probabilities (infinite levels).
    classes
        Random partitions into at least two classes (else one class).
    constant_classes
        Every record of a class gets the same row (the class-wise view of Domingo-Ferrer & Soria-Comas 2015, Prop. 3).
    """
    rng = random.Random(seed)
    for _ in range(count):
        records = rng.randint(max(min_n, 2), max_n)
        buckets = rng.randint(2, max_p)
        groups = _partition(rng, records, True) if classes else (tuple(range(records)),)
        rows: list[tuple[Fraction, ...]] = [()] * records
        for group in groups:
            shared = _row(rng, buckets, zeros)
            for i in group:
                rows[i] = shared if constant_classes else _row(rng, buckets, zeros)
        yield ProbabilityTable.from_rows(rows, groups)
