"""A statistical estimate as a measurement: exact bounds ``value ± tolerance`` and how it was computed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from verifier.results import Estimate, Level, Measurement, Witness

__all__ = ["estimated", "decimal_exponent"]

_GRID = 10**12
"""The coarsest grid the bounds are rounded outwards to (10^-12); a smaller tolerance rounds to a finer one."""


def decimal_exponent(value: Fraction) -> int:
    """The ``e`` with ``10^e ≤ value < 10^(e+1)``, for ``value > 0``.

    >>> decimal_exponent(Fraction(15, 10**7)), decimal_exponent(Fraction(1)), decimal_exponent(Fraction(99, 10))
    (-6, 0, 0)
    """
    exponent = len(str(value.numerator)) - len(str(value.denominator))
    return exponent if Fraction(10) ** exponent <= value else exponent - 1


def estimated(model: str, value: float, estimate: Estimate, *, witness: Witness | None,
              parameters: Mapping[str, Any], notes: tuple[str, ...] = (), upper: Fraction = Fraction(1)
              ) -> Measurement:
    """The measurement of an estimate in ``[0, upper]``: ``lower`` and ``level`` are ``value ∓ tolerance``
    rounded outwards to multiples of 10^-12 (of a thousandth of the tolerance when it is below 10^-9) and clipped
    to ``[0, upper]``."""
    exact = Fraction(value)
    grid = max(_GRID, 10 ** (3 - decimal_exponent(estimate.tolerance))) if estimate.tolerance > 0 else _GRID
    low = Fraction(math.floor((exact - estimate.tolerance) * grid), grid)
    high = Fraction(math.ceil((exact + estimate.tolerance) * grid), grid)
    return Measurement(model, None, Level.of(min(high, upper)), witness, "at_most", parameters=dict(parameters),
                       notes=notes, lower=Level.of(max(low, Fraction(0))), estimate=estimate)
