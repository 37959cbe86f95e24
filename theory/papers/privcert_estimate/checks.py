"""Check of :mod:`theory.papers.privcert_estimate.claims`: every outcome of small originals, enumerated exactly.

For originals of 2 values and 3 or 4 records, each pair that differs in one record's value (every value
still present), and noise ratios ``α`` of 1/2 and 2/3, every clamped noisy histogram is enumerated with
its exact probability (:func:`theory.mechanism_selection.estimate.clamped_probability`), the plan's
mechanism is built from it (:func:`theory.mechanism_selection.release_plan.estimate_optimum`) once with
each original's counts, and the joint probability of the mechanism and the changed record's released
value is compared, in fractions, with ``α^-2 e^ε(m)`` times the neighbour's, ``e^ε(m)`` the verifier's
ε-LDP level of ``m`` and ``α^-2 ≤ e^ε_E``.

References
----------
Dwork & Roth 2014, Thm. 3.16 (sequential composition), Prop. 2.1 (post-processing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import cache, partial
from itertools import product

import sympy

from theory.claims.claim import CheckResult
from theory.mechanism_selection.estimate import HistogramEstimate, clamped_probability
from theory.mechanism_selection.optimal import Optimum, implied_ratio
from theory.mechanism_selection.release_plan import estimate_optimum
from theory.papers.check_steps import result

__all__ = ["CHECKS", "neighbours", "outcome_distribution"]

_T0, _RATIO, _K = Fraction(2), Fraction(3), 1
_CASES = ((2, 3), (2, 4))
_ALPHAS = (Fraction(1, 2), Fraction(2, 3))

Matrix = tuple[tuple[Fraction, ...], ...]


def neighbours(values: int, records: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], int, int]]:
    """Every ``(D, D', a, b)``: originals of ``values`` values (each present) and ``records`` records, ``D'`` with one
    record of value ``a`` in ``D`` changed to ``b``."""
    for counts in product(range(1, records + 1), repeat=values):
        if sum(counts) != records:
            continue
        for a, b in product(range(values), repeat=2):
            if a != b and counts[a] >= 2:
                changed = list(counts)
                changed[a] -= 1
                changed[b] += 1
                yield counts, tuple(changed), a, b


def outcome_distribution(counts: tuple[int, ...], alpha: Fraction, build: Callable[[tuple[int, ...]], Optimum]
                         ) -> dict[Matrix, tuple[Fraction, Optimum]]:
    """Each mechanism the estimate can give, with its exact probability (noisy counts enumerated over ``[0, N]``)."""
    records = sum(counts)
    found: dict[Matrix, tuple[Fraction, Optimum]] = {}
    for noisy in product(range(records + 1), repeat=len(counts)):
        probability = Fraction(1)
        for count, value in zip(counts, noisy):
            probability *= clamped_probability(count, value, records, alpha)
        optimum = build(noisy)
        before = found.get(optimum.matrix, (Fraction(0), optimum))[0]
        found[optimum.matrix] = (before + probability, optimum)
    return found


@cache
def _optimum(counts: tuple[int, ...], noisy: tuple[int, ...]) -> Optimum:
    """The plan's mechanism from the noisy counts, given the original's counts (the noise's ratio does not enter)."""
    return estimate_optimum(counts, HistogramEstimate(sympy.log(4), Fraction(1, 2), sum(counts), noisy), _T0, _RATIO,
                            _K)


def _check() -> CheckResult:
    pairs = 0
    for (values, records), alpha in product(_CASES, _ALPHAS):
        bound = min(_RATIO, implied_ratio(_T0, records, _K))
        for before, after, a, b in neighbours(values, records):
            pairs += 1
            first = outcome_distribution(before, alpha, partial(_optimum, before))
            second = outcome_distribution(after, alpha, partial(_optimum, after))
            case = {"D": list(before), "D'": list(after), "alpha": str(alpha)}
            if set(first) != set(second):
                return result("refuted", ["exact enumeration"], f"D = {before}, D' = {after}: the mechanisms "
                              "depend on the original's counts, not only on the estimate", case)
            for matrix, (mass, optimum) in first.items():
                other = second[matrix][0]
                ratio = optimum.exp_epsilon
                if ratio is None or ratio > bound or mass > other / alpha**2 or other > mass / alpha**2:
                    return result("refuted", ["exact enumeration"], f"D = {before}, D' = {after}, α = {alpha}: "
                                  f"Pr(m) = {mass} against {other}, e^ε(m) = {ratio}", case)
                for z in range(values):
                    joint, joint_other = mass * matrix[a][z], other * matrix[b][z]
                    if joint > joint_other * ratio / alpha**2 or joint_other > joint * ratio / alpha**2:
                        return result("refuted", ["exact enumeration"], f"D = {before}, D' = {after}, α = {alpha}, "
                                      f"z = {z}: Pr(m, z) = {joint} against {joint_other}", case)
    return result("proven", ["argument (see the claims module)",
                             f"exact enumeration: {pairs} neighbouring originals of 2 values and 3-4 records, "
                             "α ∈ {1/2, 2/3}, every noisy histogram"],
                  "Pr(m, z) ≤ α^-2 e^ε(m) Pr'(m, z) ≤ e^(ε_E + ε_M) Pr'(m, z) for every mechanism m and released "
                  "value z, and the mechanisms are the same function of the estimate for both originals")


CHECKS: dict[str, Callable[[], CheckResult]] = {"privcert:estimate_composition": _check}
