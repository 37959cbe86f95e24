"""Individual risk with sampling weights: Benedetti & Franconi's estimate, as sdcMicro's ``indivRisk``.

A record of a class with ``f`` sample records whose sampling weights sum to ``F̂``
(the estimated population count of its combination) has the re-identification risk
``r = E[1/F | f]`` under a negative-binomial superpopulation model; with
``p = f / F̂`` the approximation (sdcMicro's ``method = "approx"``) is

* ``f = 1``: ``r = p/(1-p) · ln(1/p)``;
* ``f = 2``: ``r = p/(1-p) - (p/(1-p))² · ln(1/p)``;
* ``f > 2``: ``r = p / (f - (1-p))``;
* ``f = F̂`` (the whole population is in the sample): ``r = 1/f``.

The level is the largest ``r`` over the records, exact (a closed form with a logarithm
for ``f ≤ 2``), found by screening in float64 (each risk computed without cancellation,
relative error below 10^-14) and comparing every candidate within 10^-9 of the maximum
exactly; ``numbers.global_risk`` is the mean risk over the records and
``numbers.expected_reidentifications`` the sum (float64).

References
----------
Benedetti & Franconi 1998; Franconi & Polettini 2004, Sec. 3 (the approximation for
``f > 2``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import sympy

from verifier._exact_max import first_by_qi
from verifier.errors import DataError
from verifier.inputs import ClassWeights
from verifier.results import Level, Measurement, Witness
from verifier.tables.counts import Classes

__all__ = ["uniform_weights", "individual_risks", "individual_risk", "risk_expression"]

_MARGIN = 1e-9


def uniform_weights(classes: Classes, population: int) -> ClassWeights:
    """Every record weighs ``N/n``: ``F̂_k = f_k · N / n``."""
    weight = Fraction(population, classes.rows)
    return ClassWeights(tuple(int(size) * weight for size in classes.sizes), f"uniform N/n = {weight}")


def risk_expression(f: int, total: Fraction) -> sympy.Expr:
    """The exact risk of a record of a class with ``f`` records and weight sum ``total``."""
    p = sympy.Rational(f) / sympy.Rational(total.numerator, total.denominator)
    if p == 1:
        return sympy.Rational(1, f)
    odds = p / (1 - p)
    if f == 1:
        return odds * sympy.log(1 / p)
    if f == 2:
        return odds - odds**2 * sympy.log(1 / p)
    return p / (f - (1 - p))


def _risk_float(f: int, total: Fraction) -> float:
    """The risk in float64 without cancellation: ``q = 1 - p`` is taken exactly, and near ``p = 1``
    (``q ≤ 1/2``) the ``f = 2`` form is summed as ``p Σ_{k≥1} q^(k-1)/(k(k+1))``, all terms
    positive (``odds - odds²·ln(1/p)`` loses every digit there), relative error below 10^-14."""
    exact = Fraction(f) / total
    q = float(1 - exact)
    p = float(exact)
    if q == 0:
        return 1.0 / f
    logarithm = -math.log1p(-q) if q <= 0.5 else -math.log(p)
    if f == 1:
        return p * logarithm / q
    if f == 2:
        if q <= 0.5:
            return p * math.fsum(q ** (k - 1) / (k * (k + 1)) for k in range(1, 60))
        odds = p / q
        return odds - odds * odds * logarithm
    return p / (f - q)


def individual_risks(classes: Classes, weights: ClassWeights) -> np.ndarray:
    """The float64 risk of the records of each class (one value per class).

    Raises
    ------
    DataError
        A class whose weights sum to less than its number of records.
    """
    short = next((i for i, (size, total) in enumerate(zip(classes.sizes.tolist(), weights.sums)) if total < size), None)
    if short is not None:
        raise DataError(f"individual risk: class {classes.describe(short)} has {int(classes.sizes[short])} records "
                        f"whose weights ({weights.source}) sum to {weights.sums[short]}; expected at least the number "
                        "of records (a weight is the number of people a record stands for)")
    cache: dict[tuple[int, Fraction], float] = {}
    return np.array([cache.setdefault((size, total), _risk_float(size, total))
                     for size, total in zip(classes.sizes.tolist(), weights.sums)], dtype=float)


def individual_risk(classes: Classes, weights: ClassWeights) -> Measurement:
    """The largest individual risk of a record, with the mean and the sum over the records.

    References
    ----------
    Benedetti & Franconi 1998; Franconi & Polettini 2004, Sec. 3; sdcMicro ``indivRisk``
    (``method = "approx"``).
    """
    parameters = {"weights": weights.source}
    if classes.count == 0:
        return Measurement("individual_risk", None, Level.undefined("the release has no records"), None, "at_most",
                           parameters=parameters)
    risks = individual_risks(classes, weights)
    top = float(risks.max())
    near = np.flatnonzero(risks >= top - _MARGIN * max(top, 1.0))
    exact = {(int(classes.sizes[i]), weights.sums[i]): None for i in near}
    best = None
    for key in exact:
        value = risk_expression(*key)
        if best is None or bool(sympy.Gt(value, best[1])):
            best = (key, value)
    assert best is not None
    attaining = [int(i) for i in near if (int(classes.sizes[i]), weights.sums[i]) == best[0]]
    index = first_by_qi(classes, attaining)
    sizes = classes.sizes.astype(float)
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]), numbers={
        "weight_sum": weights.sums[index],
        "global_risk": float((risks * sizes).sum() / sizes.sum()),
        "expected_reidentifications": float((risks * sizes).sum()),
    })
    return Measurement("individual_risk", None, Level(best[1]), witness, "at_most", parameters=parameters,
                       notes=("global_risk and expected_reidentifications are computed in float64",))
