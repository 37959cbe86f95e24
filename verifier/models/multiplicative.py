"""Multiplicative t-closeness: every bucket's probability within a factor t of the table's.

Measured by :mod:`verifier.privacy.multiplicative` over the attribute's buckets (declared, or
one per distinct value).

References
----------
Ekenstedt et al. 2022, Sec. IV, Def. 4; Domingo-Ferrer & Soria-Comas 2015, Def. 4 (the
multiplicative distance).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from verifier.literal import Domain
from verifier.measures import attribute_table
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Subject, register
from verifier.symbols import k, t

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["MULTIPLICATIVE_T_CLOSENESS"]


def _measure(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.multiplicative import multiplicative_t_closeness

    table = attribute_table(subject)
    bucketing = subject.options.buckets.get(table.spec.columns[0]) if len(table.spec.columns) == 1 else None
    yield multiplicative_t_closeness(table, bucketing)


MULTIPLICATIVE_T_CLOSENESS = Model(
    id="multiplicative_t_closeness",
    name="multiplicative t-closeness (with k-anonymity)",
    kind="privacy",
    scope="attribute",
    source=Source("Ekenstedt et al. 2022", "IV", "Def. 4"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(1)),
    units="ratio",
    measure=_measure,
    definition=MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "k", "buckets"),
                          "k-anonymous classes; Pr(class in B)/Pr(table in B) and its inverse are at most t",
                          minimal_class_size=k),
)

register(MULTIPLICATIVE_T_CLOSENESS)
