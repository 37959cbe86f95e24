"""A statistical estimate as a measurement: exact bounds ``value ± tolerance`` and how it was computed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from verifier.results import Estimate, Level, Measurement, Witness

__all__ = ["estimated"]

_GRID = 10**12


def estimated(model: str, value: float, estimate: Estimate, *, witness: Witness | None,
              parameters: Mapping[str, Any], notes: tuple[str, ...] = (), upper: Fraction = Fraction(1)
              ) -> Measurement:
    """The measurement of an estimate in ``[0, upper]``: ``lower`` and ``level`` are ``value ∓ tolerance``
    rounded outwards to multiples of 10^-12 and clipped to ``[0, upper]``."""
    exact = Fraction(value)
    low = Fraction(math.floor((exact - estimate.tolerance) * _GRID), _GRID)
    high = Fraction(math.ceil((exact + estimate.tolerance) * _GRID), _GRID)
    return Measurement(model, None, Level.of(min(high, upper)), witness, "at_most", parameters=dict(parameters),
                       notes=notes, lower=Level.of(max(low, Fraction(0))), estimate=estimate)
