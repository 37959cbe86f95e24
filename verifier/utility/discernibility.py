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

from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Pair

__all__ = ["discernibility"]

SOURCE = "Bayardo & Agrawal 2005"


def discernibility(pair: Pair) -> tuple[Figure]:
    """The release's discernibility penalty."""
    n = pair.rows
    value = Fraction(sum(size * size for size in pair.release_classes.values()) + sum(pair.suppressed) * n)
    least = Fraction(sum(size * size for size in pair.original_classes.values()))
    return (Figure("discernibility", None, value, arx_quality(value, least, Fraction(n * n)), "records²"),)
