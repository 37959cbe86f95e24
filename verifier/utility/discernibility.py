"""Discernibility: each record is charged the size of its class, a suppressed one the table's (Bayardo & Agrawal 2005, Sec. 2).

``C_DM = Σ_E |E|² + S·N`` over the release's classes ``E`` (records with equal released
quasi-identifiers, suppressed records left out), ``S`` suppressed records out of ``N``.
A release whose classes all have at least ``k`` records has ``C_DM ≥ N·k``.

ARX (``QualityModelRowOrientedDiscernibility``): ``min`` the original's own ``C_DM``
(its classes of equal original values), ``max = N²``. Exact.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"a": ["x", "y", "z", "w"]}), pd.DataFrame({"a": ["x", "x", "y", "*"]}), ["a"])
>>> discernibility(pair)[0].raw     # 2² + 1² + 1·4
Fraction(9, 1)
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Pair

__all__ = ["discernibility", "release_classes", "original_classes"]

SOURCE = "Bayardo & Agrawal 2005"


def release_classes(pair: Pair) -> Counter[tuple[str | None, ...]]:
    """The release's classes (released quasi-identifier tuples of the records not suppressed) and their sizes."""
    return Counter(pair.release_tuple(i) for i in range(pair.rows) if not pair.suppressed[i])


def original_classes(pair: Pair) -> Counter[tuple[str, ...]]:
    """The original's classes (equal original quasi-identifier tuples) and their sizes."""
    return Counter(zip(*(column.original for column in pair.columns), strict=True))


def discernibility(pair: Pair) -> tuple[Figure]:
    """The release's discernibility penalty."""
    n = pair.rows
    value = Fraction(sum(size * size for size in release_classes(pair).values()) + sum(pair.suppressed) * n)
    least = Fraction(sum(size * size for size in original_classes(pair).values()))
    return (Figure("discernibility", None, value, arx_quality(value, least, Fraction(n * n)), "records²"),)
