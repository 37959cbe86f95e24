"""Identity disclosure: k-anonymity, (α,k)-anonymity, prosecutor risk and class metrics.

All of them are functions of the class sizes ``|E|`` (and, for (α,k)-anonymity, of the
counts ``n[E,s]``). Levels are exact integers or fractions; each comes with the class
that attains it, chosen by a canonical key so that row order never changes it.

References
----------
Li et al. 2007, "k-anonymity" (Table 2 is a 3-anonymous version of Table 1).
Wong, Li, Fu & Wang, "(α,k)-anonymity", KDD 2006.
El Emam & Dankar, "Protecting privacy using k-anonymity", JAMIA 2008 (prosecutor risk).
Bayardo & Agrawal, ICDE 2005 (discernibility); LeFevre, DeWitt & Ramakrishnan, ICDE 2006
(normalized average equivalence class size).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verifier._exact_max import exact_ints, first_by_qi
from verifier.errors import PolicyError
from verifier.privacy._screen import (
    EMPTY,
    as_fraction,
    cells_of,
    class_witness,
    excluded_notes,
    screened_max,
    undefined,
)
from verifier.results import Level, Measurement, Witness, jsonable
from verifier.tables.counts import Classes, CountTable

__all__ = ["k_anonymity", "alpha_k_anonymity", "prosecutor_risk", "class_metrics", "ClassMetrics"]


def _smallest(classes: Classes) -> tuple[int, int, int]:
    """``(k, witness class, number of classes of size k)``."""
    k = int(classes.sizes.min())
    ties = np.flatnonzero(classes.sizes == k)
    return k, first_by_qi(classes, ties), int(ties.size)


def k_anonymity(classes: Classes) -> Measurement:
    """The optimal k: the size of the smallest equivalence class.

    .. math:: k^* = \\min_E |E|

    A release is k-anonymous iff ``k ≤ k*`` (comparison ``at_least``).

    References
    ----------
    Li et al. 2007, "k-anonymity", Definition (each class has at least k records).

    Examples
    --------
    >>> import pandas as pd
    >>> from verifier.tables.counting import count_tables
    >>> classes, _ = count_tables(pd.DataFrame({"zip": ["a", "a", "b"]}), ["zip"], [])
    >>> k_anonymity(classes).level.exact
    '1'
    """
    if classes.count == 0:
        return Measurement("k_anonymity", None, Level.undefined(EMPTY), None, "at_least")
    k, index, ties = _smallest(classes)
    witness = Witness(qi=classes.describe(index), size=k,
                      numbers={"classes_of_size_k": ties, "classes": classes.count, "rows": classes.rows})
    return Measurement("k_anonymity", None, Level.of(k), witness, "at_least")


def alpha_k_anonymity(table: CountTable) -> Measurement:
    """The optimal α of (α,k)-anonymity: the largest in-class frequency of any value.

    .. math:: \\alpha^* = \\max_{E, s} \\frac{n[E,s]}{|E|}

    The release is (α,k)-anonymous iff ``α* ≤ α`` and ``k ≤ k*``; ``k*`` (the smallest
    class of this attribute's table) is reported in ``parameters``.

    References
    ----------
    Wong et al., "(α,k)-anonymity", KDD 2006, Definition 2 (value-specific form over all values).
    """
    cells = cells_of(table)
    if cells.present.size == 0:
        return undefined("alpha_k_anonymity", table, "at_most")
    top = np.maximum.reduceat(cells.count, cells.starts)
    alpha, where = screened_max(top, cells.sizes)
    index = first_by_qi(table.classes, cells.present[where])
    row = table.row(index)
    value = table.values[int(np.argmax(row))]
    witness = class_witness(table, index, value, value_count=int(row.max()))
    return Measurement("alpha_k_anonymity", table.attribute, Level.of(alpha), witness, "at_most",
                       parameters={"k": int(cells.sizes.min())}, notes=excluded_notes(table))


def _probability(threshold: Any) -> Fraction:
    value = as_fraction(threshold, "prosecutor_risk threshold")
    if not 0 <= value <= 1:
        raise PolicyError(f"prosecutor_risk threshold: expected a probability in [0, 1], found {value}")
    return value


def prosecutor_risk(classes: Classes, threshold: Fraction = Fraction(1, 5)) -> Measurement:
    """The highest re-identification risk of a record under the prosecutor model.

    A record in class ``E`` is re-identified with probability ``1/|E|``.

    .. math::

        R_{max} = \\frac{1}{\\min_E |E|}, \\qquad
        R_{mean} = \\frac{1}{N}\\sum_E |E|\\cdot\\frac{1}{|E|} = \\frac{\\#classes}{N}

    The witness also counts the records whose risk exceeds ``threshold``
    (``1/|E| > threshold``, decided on integers).

    References
    ----------
    El Emam & Dankar, JAMIA 2008, prosecutor re-identification risk.
    """
    limit = _probability(threshold)
    if classes.count == 0:
        return Measurement("prosecutor_risk", None, Level.undefined(EMPTY), None, "at_most",
                           parameters={"threshold": limit})
    k, index, ties = _smallest(classes)
    rows = classes.rows
    sizes = exact_ints(rows * max(limit.numerator, 1), classes.sizes)
    risky = int(sizes[sizes * limit.numerator < limit.denominator].sum())
    witness = Witness(qi=classes.describe(index), size=k, numbers={
        "classes_of_size_k": ties,
        "mean_risk": Fraction(classes.count, rows),
        "records_above_threshold": risky,
        "share_above_threshold": Fraction(risky, rows),
    })
    return Measurement("prosecutor_risk", None, Level.of(Fraction(1, k)), witness, "at_most",
                       parameters={"threshold": limit})


@dataclass(frozen=True)
class ClassMetrics:
    """Utility metrics of the class partition (not privacy levels).

    Attributes
    ----------
    discernibility
        ``Σ_E |E|²`` (Bayardo & Agrawal): each record is charged the size of its class.
    average_class_size
        ``N / #classes``.
    normalized_average_class_size
        ``(N / #classes) / k`` with ``k`` the smallest class size (LeFevre et al.).
    """

    discernibility: int
    average_class_size: Fraction
    normalized_average_class_size: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "discernibility": self.discernibility,
            "average_class_size": jsonable(self.average_class_size),
            "normalized_average_class_size": jsonable(self.normalized_average_class_size),
        }


def class_metrics(classes: Classes) -> ClassMetrics:
    """Discernibility and (normalized) average class size of the partition.

    .. math:: DM = \\sum_E |E|^2, \\quad C_{avg} = \\frac{N}{\\#classes}, \\quad
              C_{avg}^{norm} = \\frac{N}{\\#classes \\cdot k}

    References
    ----------
    Li et al. 2007, "Experimental Results", Figure 4 (discernibility metric cost,
    minimal average group size).
    """
    if classes.count == 0:
        raise ValueError(f"class_metrics: {EMPTY}")
    rows = classes.rows
    sizes = exact_ints(rows * rows, classes.sizes)
    average = Fraction(rows, classes.count)
    return ClassMetrics(
        discernibility=int((sizes * sizes).sum()),
        average_class_size=average,
        normalized_average_class_size=average / int(classes.sizes.min()),
    )
