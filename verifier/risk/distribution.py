"""The distribution of prosecutor risk over the records, in the bands ARX shows.

A record of a class of ``f`` records is re-identified by a prosecutor with probability
``1/f`` (El Emam & Dankar 2008). ARX's risk analysis shows how many records fall in each
of 24 bands of that risk, ``[0, 10^-8]``, ``(10^-8, 10^-7]``, …, ``(1/3, 1/2]``,
``(1/2, 1]``, upper bounds inclusive (its ``RiskModelSampleRiskDistribution``). ARX
writes three of the upper bounds as decimals, 0.143, 0.167 and 0.334; no risk ``1/f``
lies between 1/7 and 0.143, 1/6 and 0.167 or 1/3 and 0.334, so the exact bounds 1/7, 1/6
and 1/3 used here put every record in the band ARX puts it in. Counts are exact and come
from the class-size histogram, in O(#distinct class sizes · log #bands).

References
----------
El Emam & Dankar 2008, Sec. 3 (prosecutor risk); Dankar, El Emam, Neisa & Roffey 2012,
Sec. 2 (the sample's frequencies of frequencies).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction

from verifier.risk.histogram import SizeHistogram

__all__ = ["UPPER_BOUNDS", "RiskBand", "risk_distribution"]

UPPER_BOUNDS: tuple[Fraction, ...] = (
    *(Fraction(1, 10**e) for e in range(8, 2, -1)),
    *(Fraction(p, 100) for p in range(1, 10)),
    Fraction(1, 10), Fraction(1, 8), Fraction(1, 7), Fraction(1, 6), Fraction(1, 5), Fraction(1, 4),
    Fraction(1, 3), Fraction(1, 2), Fraction(1),
)
"""The inclusive upper bounds of ARX's risk bands; each band's lower bound is the previous one (0 for the first)."""


@dataclass(frozen=True)
class RiskBand:
    """The records whose prosecutor risk ``1/f`` lies in ``(lower, upper]`` (``[0, upper]`` for the first band).

    Attributes
    ----------
    lower, upper
        The band's bounds.
    records
        The records in the band.
    share
        ``records / n``.
    """

    lower: Fraction
    upper: Fraction
    records: int
    share: Fraction

    @property
    def label(self) -> str:
        """The band as ARX labels it, in percent: ``(50%, 100%]``, ``[0%, 1e-06%]``."""
        opening = "[" if self.lower == 0 else "("
        return f"{opening}{_percent(self.lower)}, {_percent(self.upper)}]"


def _percent(value: Fraction) -> str:
    """A bound in percent, short: ``50%``, ``12.5%``, ``14.29%`` (1/7), ``1e-06%``."""
    percent = float(value * 100)
    return f"{percent:.4g}%" if percent >= 0.01 or percent == 0 else f"{percent:.0e}%"


def risk_distribution(histogram: SizeHistogram) -> tuple[RiskBand, ...]:
    """The records of each of ARX's 24 bands of prosecutor risk ``1/f``, lowest risk first.

    An empty release has every band empty (shares 0).

    >>> import numpy as np
    >>> bands = risk_distribution(SizeHistogram(np.array([1, 3, 10]), np.array([2, 1, 1])))
    >>> [(band.label, band.records) for band in bands if band.records]
    [('(9%, 10%]', 10), ('(25%, 33.33%]', 3), ('(50%, 100%]', 2)]
    """
    records = [0] * len(UPPER_BOUNDS)
    for size, classes in zip(histogram.sizes.tolist(), histogram.classes.tolist()):
        records[bisect_left(UPPER_BOUNDS, Fraction(1, int(size)))] += int(size) * int(classes)
    rows = histogram.rows
    lowers = (Fraction(0), *UPPER_BOUNDS[:-1])
    return tuple(RiskBand(lower, upper, count, Fraction(count, rows) if rows else Fraction(0))
                 for lower, upper, count in zip(lowers, UPPER_BOUNDS, records))
