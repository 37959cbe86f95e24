r"""A differentially private estimate of the original's histogram, for a mechanism that depends on the data.

A mechanism computed from the original's counts can disclose them through its published matrix
(Fig. 5 of Ekenstedt et al. 2022 writes them into it). Computed instead from an estimate that is
ε_E-differentially private, it discloses no more than the estimate does, and the release with its
mechanism is (ε + ε_E)-differentially private for each of the original's records, ε the mechanism's
ε-LDP level (sequential composition; the claim ``privcert:estimate_composition``).

**The estimate.** Each value's count ``c`` receives independent two-sided geometric noise
(Ghosh et al. 2009), ``Pr(Z = z) = (1 − α)/(1 + α) · α^{|z|}``, and is clamped to ``[0, N]``
(``N`` is public: the release has ``N`` records). One record's value replaced moves two counts by one
each, and each clamped count's probabilities change by a factor at most ``1/α``, so the estimate is
ε_E-DP for ``α^{-2} ≤ e^{ε_E}``; ``α`` is the rational ``1/r``, ``r`` at most ``e^{ε_E/2}``
(:func:`theory.mechanism_selection.release_plan.rational_ratio_below`), so that the bound is exact.
The noise is drawn exactly: ``Z = G_1 − G_2`` with ``G_i`` the number of successes of Bernoulli(α)
trials before the first failure, each trial an integer draw. The estimated frequencies are the
clamped counts over their total (uniform when every count is 0).

.. math::

    \Pr(\hat c = m) = \begin{cases} \alpha^{c}/(1+\alpha) & m = 0 \\
    \frac{1-\alpha}{1+\alpha}\,\alpha^{|m-c|} & 0 < m < N \\ \alpha^{N-c}/(1+\alpha) & m = N \end{cases}

References
----------
Ghosh et al. 2009 (the geometric mechanism); Dwork & Roth 2014, Thm. 3.16
(sequential composition), Prop. 2.1 (post-processing).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import sympy

from verifier.display import exact_text

__all__ = ["Draws", "HistogramEstimate", "clamped_probability", "estimate_histogram"]


class Draws(Protocol):
    """A source of uniform integers (:class:`random.Random`; by default the operating system's)."""

    def randrange(self, stop: int, /) -> int: ...


@dataclass(frozen=True)
class HistogramEstimate:
    """An ε_E-differentially private estimate of the original's value counts.

    Attributes
    ----------
    epsilon
        ε_E, what the estimate spends (exact, ``> 0``).
    alpha
        The geometric noise's ratio, rational, with ``α^{-2} ≤ e^{ε_E}``.
    records
        ``N``, the clamp's upper end.
    counts
        The noisy counts clamped to ``[0, N]``, in the order of the original's values.
    """

    epsilon: sympy.Expr
    alpha: Fraction
    records: int
    counts: tuple[int, ...]

    @property
    def frequencies(self) -> tuple[Fraction, ...]:
        """The estimated distribution: the counts over their total (uniform when they are all 0)."""
        total = sum(self.counts)
        if not total:
            return tuple(Fraction(1, len(self.counts)) for _ in self.counts)
        return tuple(Fraction(count, total) for count in self.counts)

    def to_json(self) -> dict[str, Any]:
        return {"epsilon": exact_text(self.epsilon), "alpha": str(self.alpha), "counts": list(self.counts),
                "frequencies": [str(f) for f in self.frequencies]}


def clamped_probability(count: int, noisy: int, records: int, alpha: Fraction) -> Fraction:
    """``Pr(ĉ = noisy)`` for a true ``count``: geometric noise of ratio ``alpha`` clamped to ``[0, records]``.

    >>> [clamped_probability(1, m, 2, Fraction(1, 2)) for m in range(3)]
    [Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)]
    """
    if not 0 <= noisy <= records:
        return Fraction(0)
    if noisy == 0:
        return alpha**count / (1 + alpha)
    if noisy == records:
        return alpha ** (records - count) / (1 + alpha)
    return (1 - alpha) / (1 + alpha) * alpha ** abs(noisy - count)


def _geometric(alpha: Fraction, draws: Draws) -> int:
    """Successes of Bernoulli(α) trials before the first failure: ``Pr(G = m) = (1 − α) α^m``, exactly."""
    found = 0
    while draws.randrange(alpha.denominator) < alpha.numerator:
        found += 1
    return found


def estimate_histogram(counts: Sequence[int], epsilon: sympy.Expr, alpha: Fraction,
                       draws: Draws | None = None) -> HistogramEstimate:
    """The original's counts with two-sided geometric noise of ratio ``alpha``, clamped to ``[0, N]``.

    Parameters
    ----------
    counts
        The original's count of each value (``N`` their sum).
    epsilon
        ε_E, the estimate's level; ``alpha`` must satisfy ``α^{-2} ≤ e^{ε_E}`` (the caller's exact choice).
    alpha
        The noise's ratio, ``0 < α < 1``.
    draws
        Where the noise comes from: the operating system's randomness by default. A seeded generator makes
        the noise known to whoever knows the seed, and then the estimate protects nothing.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"expected a noise ratio 0 < α < 1, found {alpha}")
    source = draws if draws is not None else random.SystemRandom()
    records = sum(counts)
    noisy = tuple(min(records, max(0, count + _geometric(alpha, source) - _geometric(alpha, source)))
                  for count in counts)
    return HistogramEstimate(epsilon, alpha, records, noisy)
