"""Sample uniqueness, marketer and journalist risk: exact fractions of the class sizes.

Three attackers (El Emam & Dankar 2008; Dankar et al. 2012): the *prosecutor* knows
the target is in the release (:func:`verifier.privacy.anonymity.prosecutor_risk`); the
*journalist* does not, and matches the target against the population, so a record of
class ``E`` is re-identified with probability ``1/F_E`` (``F_E`` people of the
population share its quasi-identifiers); the *marketer* re-identifies as many records
as possible, expecting ``Σ_E f_E / F_E`` correct matches. ``F_E ≥ f_E``, so prosecutor ≥
journalist ≥ marketer.

References
----------
El Emam & Dankar 2008, Sec. 3 (prosecutor, journalist and marketer risk);
Dankar, El Emam, Neisa & Roffey 2012, Sec. 2 (sample uniqueness).
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from verifier._exact_max import first_by_qi
from verifier.results import Level, Measurement, Witness
from verifier.risk.histogram import size_histogram
from verifier.risk.population_table import ClassPopulations
from verifier.tables.counts import Classes

__all__ = ["sample_uniqueness", "marketer_risk", "journalist_risk", "records_above"]

_EMPTY = "the release has no records"
WITHOUT_TABLE = ("without a population table every class of the release is taken as its own population class "
                 "(F_E = f_E), the worst case: the attacker's target is known to be in the release")


def sample_uniqueness(classes: Classes) -> Measurement:
    """The share of records that are unique in the release: ``c_1 / n``.

    References
    ----------
    Dankar et al. 2012, Sec. 2 (sample uniques).
    """
    if classes.count == 0:
        return Measurement("sample_uniqueness", None, Level.undefined(_EMPTY), None, "at_most")
    histogram = size_histogram(classes.sizes)
    uniques = histogram.of_size(1)
    return Measurement("sample_uniqueness", None, Level.of(Fraction(uniques, histogram.rows)),
                       witness_numbers(unique_records=uniques, rows=histogram.rows), "at_most")


def witness_numbers(**numbers: object) -> Witness:
    """A witness that names no class, only numbers."""
    return Witness(numbers=numbers)


def _sum_of_ratios(numerators: np.ndarray, denominators: np.ndarray) -> Fraction:
    """``Σ_i numerators[i] / denominators[i]`` exactly: grouped by denominator, over their lcm."""
    denominators = np.asarray(denominators)
    if denominators.dtype != object:
        denominators = denominators.astype(np.int64)
    distinct, inverse = np.unique(denominators, return_inverse=True)
    sums = np.zeros(distinct.size, dtype=object)
    np.add.at(sums, inverse, np.asarray(numerators, dtype=np.int64).astype(object))
    common = lcm(*(int(d) for d in distinct)) if distinct.size else 1
    return Fraction(sum(int(s) * (common // int(d)) for s, d in zip(sums.tolist(), distinct.tolist())), common)


def marketer_risk(classes: Classes, populations: ClassPopulations | None = None) -> Measurement:
    """The expected share of records a marketer re-identifies by matching every record.

    .. math:: R_m = \\frac{1}{n}\\sum_E \\frac{f_E}{F_E}

    With no population table ``F_E = f_E``, so ``R_m = #classes / n``.

    References
    ----------
    El Emam & Dankar 2008, Sec. 3 (marketer risk); Dankar et al. 2012, Sec. 2.
    """
    if classes.count == 0:
        return Measurement("marketer_risk", None, Level.undefined(_EMPTY), None, "at_most")
    rows = classes.rows
    if populations is None:
        return Measurement("marketer_risk", None, Level.of(Fraction(classes.count, rows)),
                           witness_numbers(classes=classes.count, rows=rows), "at_most", notes=(WITHOUT_TABLE,))
    expected = _sum_of_ratios(classes.sizes, populations.sizes)
    return Measurement("marketer_risk", None, Level.of(expected / rows), witness_numbers(
        expected_reidentifications=expected, rows=rows, population=populations.total,
        population_table_sha256=populations.sha256), "at_most")


def records_above(sizes: np.ndarray, weights: np.ndarray, threshold: Fraction) -> int:
    """The records (``weights`` per class) whose risk ``1/size`` exceeds ``threshold``, decided on integers."""
    sizes = np.asarray(sizes).astype(object)
    risky = sizes * threshold.numerator < threshold.denominator
    return int(np.asarray(weights, dtype=np.int64)[np.asarray(risky, dtype=bool)].sum())


def journalist_risk(classes: Classes, threshold: Fraction, populations: ClassPopulations | None = None) -> Measurement:
    """The highest probability that a journalist re-identifies a record: ``1 / min_E F_E``.

    ``numbers`` counts the records whose risk ``1/F_E`` exceeds ``threshold`` and the mean
    risk over the records. Without a population table the journalist's risk is the
    prosecutor's (``F_E = f_E``), which bounds it from above; the note says so.

    References
    ----------
    El Emam & Dankar 2008, Sec. 3 (journalist risk).
    """
    parameters = {"threshold": threshold}
    if classes.count == 0:
        return Measurement("journalist_risk", None, Level.undefined(_EMPTY), None, "at_most", parameters=parameters)
    rows = classes.rows
    population = classes.sizes if populations is None else populations.sizes
    smallest = int(population.min())
    index = first_by_qi(classes, np.flatnonzero(population == smallest))
    risky = records_above(population, classes.sizes, threshold)
    numbers: dict[str, object] = {"population_count": smallest, "records_above_threshold": risky,
                                  "share_above_threshold": Fraction(risky, rows),
                                  "mean_risk": _sum_of_ratios(classes.sizes, population) / rows}
    notes: tuple[str, ...] = ()
    if populations is None:
        notes = ("equals the prosecutor risk: " + WITHOUT_TABLE,)
    else:
        numbers.update(population=populations.total, population_table_sha256=populations.sha256)
    witness = Witness(qi=classes.describe(index), size=int(classes.sizes[index]), numbers=numbers)
    return Measurement("journalist_risk", None, Level.of(Fraction(1, smallest)), witness, "at_most",
                       parameters=parameters, notes=notes)
