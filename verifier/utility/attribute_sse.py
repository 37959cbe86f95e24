"""Squared error per attribute: how far each released value lies from the original number (ARX, "attribute-level squared error").

A numerical quasi-identifier's released cell stands for an interval ``[lo, hi]``: itself
when it is a number (microaggregation, noise), the smallest and largest original values of
the records released with the same text when it is a generalization (``3*``, ``[30, 40[``),
and the original's whole range when it is suppressed (ARX,
``QualityModel.getNumbersFromNumericColumnAndHierarchy``). A record's error is the squared
distance from its original value ``x`` to the farther end, ``max((x - lo)², (x - hi)²)``.
``raw`` is the sum over the records (the SSE); exact.

ARX (``QualityModelColumnOrientedSquaredError``): ``min = 0``, ``max = Σ d(x)`` with
``d(x) = max((x - min)², (x - max)²)`` over the original's range, and each error capped at
``d(x)`` (a perturbed value outside the range costs no more than suppression); the quality
is ``1 - Σ min(error, d(x)) / max``, the raw SSE is uncapped. A column whose original
values are not all numbers is not measured.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"x": ["0", "2", "4", "6"]}), pd.DataFrame({"x": ["1", "1", "5", "5"]}), ["x"])
>>> attribute_sse(pair)[0].raw
Fraction(4, 1)
"""

from __future__ import annotations

from fractions import Fraction

from verifier.tables.values import exact_number
from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Column, Pair

__all__ = ["attribute_sse", "intervals"]

SOURCE = "ARX, QualityModelColumnOrientedSquaredError"


def intervals(column: Column, numbers: tuple[Fraction, ...]) -> list[tuple[Fraction, Fraction]]:
    """The interval each released cell stands for (see the module docstring)."""
    low, high = min(numbers), max(numbers)
    spans: dict[str, tuple[Fraction, Fraction]] = {}
    for value, cell in zip(numbers, column.release, strict=True):
        if cell is not None and exact_number(cell) is None:
            a, b = spans.get(cell, (value, value))
            spans[cell] = (min(a, value), max(b, value))
    out = []
    for cell in column.release:
        if cell is None:
            out.append((low, high))
        elif (number := exact_number(cell)) is not None:
            out.append((Fraction(number), Fraction(number)))
        else:
            out.append(spans[cell])
    return out


def attribute_sse(pair: Pair) -> tuple[Figure, ...]:
    """One figure per numerical quasi-identifier (others: not applicable)."""
    figures = []
    for column in pair.columns:
        numbers = column.numbers
        if numbers is None:
            figures.append(Figure("attribute_sse", column.name, None, None, "squared units",
                                  "not applicable: the original values are not all numbers"))
            continue
        low, high = min(numbers), max(numbers)
        sse = capped = most = Fraction(0)
        for x, (lo, hi) in zip(numbers, intervals(column, numbers), strict=True):
            error = max((x - lo) ** 2, (x - hi) ** 2)
            bound = max((x - low) ** 2, (x - high) ** 2)
            sse += error
            capped += min(error, bound)
            most += bound
        figures.append(Figure("attribute_sse", column.name, sse, arx_quality(capped, Fraction(0), most),
                              "squared units"))
    return tuple(figures)
