"""The re-identification game of Wan et al. 2015: the adversary's and the publisher's payoffs, exactly.

A publisher shares each record for a benefit ``B`` (times one minus the record's
information loss) and loses ``L`` times the adversary's success probability when the
record is attacked; an adversary attacks a record when the expected gain ``G·p`` exceeds
the cost ``C`` of the attack. A record of class ``E`` is re-identified with probability
``p = 1/F_E``: ``F_E = f_E``, its size in the release, for a prosecutor (the target is
known to be in the release), its population count for a journalist (without a
population table ``F_E = f_E``, the worst case). Per record of ``E``:

.. math::

    \\text{adversary} = \\frac{G}{F_E} - C, \\qquad
    \\text{publisher} = B\\,(1 - IL_E) - [\\tfrac{G}{F_E} - C > 0]\\,\\frac{L}{F_E}

as ARX computes them (``RiskModelCostBenefit``). ``IL_E`` is ARX's entropy-based
information loss (``MetricSDNMEntropyBasedInformationLoss``), which measures a
transformation against the hierarchies of the original; a release read as it is
published, every released value a value of its column's domain, has ``IL_E = 0``, which
is also what ARX computes when it is given the release as its data. Every figure is then
a fraction of the declared cost/benefit figures and the class counts.

References
----------
Wan, Vorobeychik, Xia, Clayton, Kantarcioglu, Ganta, Heatherly & Malin 2015, Methods
(the re-identification game, the publisher's and the adversary's payoffs).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from verifier._exact_max import first_by_qi
from verifier.results import Level, Measurement, Witness
from verifier.risk.population_table import ClassPopulations
from verifier.risk.sample import WITHOUT_TABLE, _sum_of_ratios
from verifier.tables.counts import Classes

__all__ = ["Attacker", "CostBenefit", "ARX_COSTS", "no_attack_k", "publisher_payoff", "adversary_payoff", "INFORMATION_LOSS"]

Attacker = Literal["prosecutor", "journalist"]
"""Who plays: the target known to be in the release (``1/f_E``), or not (``1/F_E``)."""

INFORMATION_LOSS = ("the release is read as published: every released value is a value of its column's domain, so "
                    "the information loss of every class is 0 (ARX's entropy-based loss of the release given as data)")
_EMPTY = "the release has no records"


@dataclass(frozen=True)
class CostBenefit:
    """The cost/benefit figures of the game, declared by the publisher (ARX's ``ARXCostBenefitConfiguration``).

    Attributes
    ----------
    publisher_benefit
        ``B``: what the publisher gains by sharing one record (at no information loss).
    publisher_loss
        ``L``: what the publisher loses when a record is re-identified.
    adversary_gain
        ``G``: what the adversary gains by re-identifying a record.
    adversary_cost
        ``C``: what one attack costs the adversary.

    Raises
    ------
    ValueError
        A figure that is not an exact number ≥ 0 (the name and the value found).
    """

    publisher_benefit: Fraction
    publisher_loss: Fraction
    adversary_gain: Fraction
    adversary_cost: Fraction

    def __post_init__(self) -> None:
        for name, value in self.parameters().items():
            if isinstance(value, (bool, float)) or not isinstance(value, (int, Fraction)) or value < 0:
                raise ValueError(f"cost/benefit figure {name}: expected an exact number ≥ 0, found {value}")
            object.__setattr__(self, name, Fraction(value))

    def parameters(self) -> dict[str, Fraction]:
        """The figures by name, as a requirement names them."""
        return {"publisher_benefit": self.publisher_benefit, "publisher_loss": self.publisher_loss,
                "adversary_gain": self.adversary_gain, "adversary_cost": self.adversary_cost}

    def attacked(self, population: np.ndarray) -> np.ndarray:
        """Whether the adversary profits from attacking a record of each class: ``G/F - C > 0``, on integers."""
        gain, cost = self.adversary_gain, self.adversary_cost
        scaled = np.asarray(population, dtype=object) * (cost.numerator * gain.denominator)
        return np.asarray(scaled < gain.numerator * cost.denominator, dtype=bool)


ARX_COSTS = CostBenefit(Fraction(1200), Fraction(300), Fraction(300), Fraction(4))
"""ARX's default figures (``ARXCostBenefitConfiguration``), those of Wan et al. 2015's example."""


def no_attack_k(costs: CostBenefit) -> int | None:
    """The smallest class an adversary has no incentive to attack, as ARX derives it (``ProfitabilityProsecutorNoAttack``).

    ``G/F - C < 0`` holds from ``F = ⌊G/C⌋ + 1`` on; ARX takes ``1`` when ``G = 0`` and no
    class (``None``) when ``C = 0 < G``.
    """
    if costs.adversary_gain == 0:
        return 1
    if costs.adversary_cost == 0:
        return None
    return int(costs.adversary_gain // costs.adversary_cost) + 1


def _population(classes: Classes, populations: ClassPopulations | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The held classes' indices, their sizes and the ``F`` their success probability is ``1/F`` of."""
    held = np.flatnonzero(np.asarray(classes.sizes) > 0)
    sizes = np.asarray(classes.sizes)[held]
    population = sizes if populations is None else np.asarray(populations.sizes, dtype=object)[held]
    return held, sizes, population


def _ratios(sizes: np.ndarray, population: np.ndarray, chosen: np.ndarray) -> Fraction:
    """``Σ f_E / F_E`` over the ``chosen`` classes, exactly."""
    return _sum_of_ratios(sizes[chosen], population[chosen]) if chosen.any() else Fraction(0)


def _notes(populations: ClassPopulations | None, attacker: Attacker) -> tuple[str, ...]:
    return (WITHOUT_TABLE,) if attacker == "journalist" and populations is None else ()


def publisher_payoff(model: str, classes: Classes, costs: CostBenefit, attacker: Attacker,
                     populations: ClassPopulations | None = None) -> Measurement:
    """The publisher's smallest expected payoff per record over the classes (ARX's ``Profitability*`` criteria).

    ARX keeps a class when this payoff is above 0 and suppresses it otherwise;
    ``numbers`` gives the classes and records it would suppress (``unprofitable_*``), the
    publisher's payoff of the release ``Σ_E f_E·payoff_E`` (ARX's ``publisher payout`` of
    the release as it is), that of the profitable classes alone (ARX's payout once it has
    suppressed the others), its maximum ``n·B`` and the classes the adversary attacks.
    """
    parameters = costs.parameters()
    if classes.rows == 0:
        return Measurement(model, None, Level.undefined(_EMPTY), None, "at_least", parameters=parameters)
    held, sizes, population = _population(classes, populations)
    attacked = costs.attacked(population)
    benefit, loss = costs.publisher_benefit, costs.publisher_loss
    # a class is unprofitable when B - [attacked]·L/F ≤ 0: attacked with B·F ≤ L, or B = 0
    scaled = np.asarray(population, dtype=object) * (benefit.numerator * loss.denominator)
    unprofitable = (attacked & np.asarray(scaled <= loss.numerator * benefit.denominator, dtype=bool)) | (benefit == 0)
    lost = _ratios(sizes, population, attacked)
    withheld = (classes.rows - int(sizes[~unprofitable].sum())) * benefit - loss * _ratios(
        sizes, population, attacked & unprofitable)
    worst = np.flatnonzero(population == min(population.tolist())) if attacked.any() else np.arange(held.size)
    index = first_by_qi(classes, held[worst])
    at = int(population[int(np.flatnonzero(held == index)[0])])
    level = benefit - (loss / at if attacked.any() else 0)
    numbers: dict[str, object] = {
        "release_payoff": classes.rows * benefit - loss * lost, "maximum_payoff": classes.rows * benefit,
        "profitable_payoff": classes.rows * benefit - loss * lost - withheld,
        "attacked_classes": int(attacked.sum()), "attacked_records": int(sizes[attacked].sum()),
        "unprofitable_classes": int(unprofitable.sum()), "unprofitable_records": int(sizes[unprofitable].sum()),
        "success_probability": Fraction(1, at), "adversary_payoff": costs.adversary_gain / at - costs.adversary_cost,
    }
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]), numbers=numbers)
    return Measurement(model, None, Level.of(level), witness, "at_least", parameters=parameters,
                       notes=(INFORMATION_LOSS, *_notes(populations, attacker)))


def adversary_payoff(model: str, classes: Classes, costs: CostBenefit, attacker: Attacker,
                     populations: ClassPopulations | None = None) -> Measurement:
    """The adversary's largest expected payoff of attacking one record: ``G / min_E F_E - C``.

    Below 0 no class is worth attacking: ARX's no-attack criteria (``Profitability*NoAttack``)
    keep the classes with ``F_E ≥ k``, ``k`` = :func:`no_attack_k`; ``numbers`` gives
    ``k`` (``None``: no class) and the classes and records below it, which ARX suppresses.
    """
    parameters = {"adversary_gain": costs.adversary_gain, "adversary_cost": costs.adversary_cost}
    if classes.rows == 0:
        return Measurement(model, None, Level.undefined(_EMPTY), None, "below", parameters=parameters)
    held, sizes, population = _population(classes, populations)
    smallest = min(population.tolist())
    index = first_by_qi(classes, held[np.flatnonzero(population == smallest)])
    k = no_attack_k(costs)
    below = np.ones(held.size, dtype=bool) if k is None else np.asarray(population < k, dtype=bool)
    numbers: dict[str, object] = {"no_attack_k": k, "population_count": int(smallest),
                                  "classes_below_k": int(below.sum()), "records_below_k": int(sizes[below].sum())}
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]), numbers=numbers)
    level = costs.adversary_gain / int(smallest) - costs.adversary_cost
    return Measurement(model, None, Level.of(level), witness, "below", parameters=parameters,
                       notes=_notes(populations, attacker))
