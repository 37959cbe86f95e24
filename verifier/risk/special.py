"""The digamma and trigamma functions in float64, vectorized (recurrence, then the asymptotic series).

References
----------
Abramowitz & Stegun 1964, 6.3.5, 6.3.18, 6.4.6 and 6.4.12 (recurrences and asymptotic
expansions of ψ and ψ').
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["digamma", "trigamma", "lgamma", "psi", "psi1"]

_SHIFT = 20.0


def digamma(x: np.ndarray | float) -> np.ndarray:
    """ψ(x) for x > 0, relative error below 1e-14.

    >>> round(float(digamma(1.0)[0]), 12)  # -γ
    -0.577215664902
    """
    x = np.array(x, dtype=float, ndmin=1)
    result = np.zeros_like(x)
    while (small := x < _SHIFT).any():
        result[small] -= 1.0 / x[small]
        x = np.where(small, x + 1.0, x)
    inverse = 1.0 / (x * x)
    series = inverse * (1 / 12 - inverse * (1 / 120 - inverse * (1 / 252 - inverse * (1 / 240 - inverse / 132))))
    return result + np.log(x) - 0.5 / x - series


def trigamma(x: np.ndarray | float) -> np.ndarray:
    """ψ'(x) for x > 0, relative error below 1e-14.

    >>> round(float(trigamma(1.0)[0]), 12)  # π²/6
    1.644934066848
    """
    x = np.array(x, dtype=float, ndmin=1)
    result = np.zeros_like(x)
    while (small := x < _SHIFT).any():
        result[small] += 1.0 / (x[small] * x[small])
        x = np.where(small, x + 1.0, x)
    inverse = 1.0 / (x * x)
    series = (1 + inverse * (1 / 6 - inverse * (1 / 30 - inverse * (1 / 42 - inverse / 30)))) / x
    return result + series + 0.5 * inverse


def lgamma(x: np.ndarray | float) -> np.ndarray:
    """ln Γ(x), elementwise (:func:`math.lgamma`)."""
    return np.array([math.lgamma(v) for v in np.array(x, dtype=float, ndmin=1)])


def psi(x: float) -> float:
    """ψ(x) of one number (the algorithm of :func:`digamma` on a Python float: no array overhead)."""
    result = 0.0
    while x < _SHIFT:
        result -= 1.0 / x
        x += 1.0
    inverse = 1.0 / (x * x)
    series = inverse * (1 / 12 - inverse * (1 / 120 - inverse * (1 / 252 - inverse * (1 / 240 - inverse / 132))))
    return result + math.log(x) - 0.5 / x - series


def psi1(x: float) -> float:
    """ψ'(x) of one number (the algorithm of :func:`trigamma` on a Python float)."""
    result = 0.0
    while x < _SHIFT:
        result += 1.0 / (x * x)
        x += 1.0
    inverse = 1.0 / (x * x)
    return result + (1 + inverse * (1 / 6 - inverse * (1 / 30 - inverse * (1 / 42 - inverse / 30)))) / x + 0.5 * inverse
