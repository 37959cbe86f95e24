"""t-closeness with the Earth Mover's Distance: each class's distribution close to the table's.

Measured by :mod:`verifier.privacy.t_closeness` with the ordered distance for numerical and ordinal
attributes, the equal distance for categorical ones, and also the hierarchical distance
when the attribute has a hierarchy.

References
----------
Li et al. 2007, "Earth Mover Distance" (ordered, equal and hierarchical ground distances);
Domingo-Ferrer & Soria-Comas 2015, Sec. 3, Def. 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from verifier.literal import Domain
from verifier.measures import attribute_table
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Parameter, RequirementError, Subject, register
from verifier.symbols import t

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.tables.counts import AttributeSpec
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["DISTANCES", "T_CLOSENESS", "check_distance"]

DISTANCES: tuple[str, ...] = ("equal", "ordered", "hierarchical")
"""Ground distances of ``t_closeness`` (Li et al. 2007, "Earth Mover Distance")."""


def check_distance(distance: str | None, attribute: AttributeSpec | None, hierarchy: Hierarchy | None) -> str:
    """The ground distance a requirement names, checked against the attribute; by default ``ordered``
    for a numerical or ordinal attribute and ``equal`` for a categorical one.

    Raises
    ------
    RequirementError
        ``ordered`` on a categorical attribute, ``equal`` on an ordered one, or
        ``hierarchical`` without a hierarchy.
    """
    kind = attribute.kind if attribute is not None else "categorical"
    if distance is None:
        return "ordered" if kind in ("numerical", "ordinal") else "equal"
    if distance not in DISTANCES:
        raise RequirementError("distance", f"one of {', '.join(DISTANCES)}", repr(distance))
    if distance == "ordered" and kind == "categorical":
        raise RequirementError("distance", "'equal' or 'hierarchical' for a categorical attribute "
                                           "('ordered' needs numerical or ordinal)", "'ordered'")
    if distance == "equal" and kind != "categorical":
        raise RequirementError("distance", f"'ordered' for a {kind} attribute ('equal' is for categorical ones)",
                               "'equal'")
    if distance == "hierarchical" and hierarchy is None:
        name = attribute.name if attribute is not None else None
        raise RequirementError("distance", f"a hierarchy file declared for {name!r} (sensitive.NAME.hierarchy)",
                               "'hierarchical' without one")
    return distance


def _check(parameters: dict[str, Any], attribute: AttributeSpec | None, hierarchy: Hierarchy | None) -> None:
    parameters["distance"] = check_distance(parameters.get("distance"), attribute, hierarchy)


def _measure(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.t_closeness import t_closeness

    table = attribute_table(subject)
    if table.spec.ordered:
        yield t_closeness(table, "ordered")
        return
    yield t_closeness(table, "equal")
    hierarchy = subject.options.hierarchies.get(table.spec.columns[0]) if len(table.spec.columns) == 1 else None
    if hierarchy is not None:
        yield t_closeness(table, "hierarchical", hierarchy)


T_CLOSENESS = Model(
    id="t_closeness",
    name="t-closeness (EMD)",
    kind="privacy",
    scope="attribute",
    source=Source("Domingo-Ferrer & Soria-Comas 2015", "3", "Def. 2 (t-closeness, EMD)"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)),
    units="EMD",
    measure=_measure,
    parameters=(Parameter("distance", "the ground distance (default: ordered for numerical and ordinal "
                                      "attributes, equal for categorical ones)", choices=DISTANCES),),
    check_requirement=_check,
    definition=MapDefinition(t, sympy.Interval(0, 1), ("N", "buckets"),
                          "the EMD between every class's and the table's sensitive distribution is at most t"),
)

register(T_CLOSENESS)
