"""The levels of a randomized release: stochastic t-closeness, ε-LDP, ε-DP, (k,t)-closeness, (k,ε)-DP.

Each is a level of the mechanism a release was made with, measured from the original
data's count table ``n[class, true value]`` and the mechanism's matrix
``M[true value, bucket]`` (publisher mode, :mod:`verifier.randomized.publisher`); in auditor
mode only ε-LDP is measured and the others are implied by the theory
(:mod:`verifier.randomized.modes`). Their inputs are ``mechanism`` (the matrix),
``subset_sizes`` (the k of (k,t)-closeness and (k,ε)-DP) and ``stochastic_distances``
(the EMD distances of stochastic t-closeness besides the multiplicative one, with their
hierarchies). Thresholds may be written ``ln(q)`` or ``e^x``; a level known only between
bounds (noise mechanisms) passes only on its upper bound and fails only on its lower.

References
----------
Domingo-Ferrer & Soria-Comas 2015, Sec. 4, Def. 3 (stochastic t-closeness) with Def. 4;
Ekenstedt et al. 2022, Sec. IV, Defs. 5-8.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from verifier.literal import Domain
from verifier.measures import attribute_table
from verifier.models.t_closeness import DISTANCES, check_distance
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Parameter, RequirementError, Subject, register
from verifier.symbols import eps, k, t

if TYPE_CHECKING:
    from verifier.randomized.mechanism import AnyMechanism
    from verifier.results import Measurement
    from verifier.tables.counts import AttributeSpec, CountTable
    from verifier.tables.hierarchy import Hierarchy

__all__ = ["STOCHASTIC_DISTANCES", "STOCHASTIC_T_CLOSENESS", "LDP", "DP", "KT_CLOSENESS", "K_EPS_DP"]

STOCHASTIC_DISTANCES: tuple[str, ...] = ("multiplicative", *DISTANCES)
"""Distances of ``stochastic_t_closeness`` (Domingo-Ferrer & Soria-Comas 2015, Defs. 3-4)."""

_EKENSTEDT = "Ekenstedt et al. 2022"
_NEEDS = frozenset({"mechanism"})
_SIZE = Parameter("k", "the subset size", Domain(lower=Fraction(1), integer=True), required=True, shorthand=True)


def _inputs(subject: Subject) -> tuple[CountTable, AnyMechanism]:
    return attribute_table(subject), subject.options.inputs["mechanism"]


def _stochastic(subject: Subject) -> Iterator[Measurement]:
    from verifier.randomized.publisher import stochastic_t_closeness_levels

    table, mechanism = _inputs(subject)
    yield from stochastic_t_closeness_levels(table, mechanism, subject.options.inputs.stochastic_distances)


def _stochastic_check(parameters: dict[str, Any], attribute: AttributeSpec | None,
                      hierarchy: Hierarchy | None) -> Domain:
    distance = parameters.setdefault("distance", "multiplicative")
    if distance not in STOCHASTIC_DISTANCES:
        raise RequirementError("distance", f"one of {', '.join(STOCHASTIC_DISTANCES)}", repr(distance))
    if distance == "multiplicative":
        return Domain(lower=Fraction(1))
    check_distance(distance, attribute, hierarchy)
    return Domain(lower=Fraction(0), upper=Fraction(1))


def _ldp(subject: Subject) -> Iterator[Measurement]:
    from verifier.randomized.publisher import ldp_level

    yield ldp_level(*_inputs(subject))


def _dp(subject: Subject) -> Iterator[Measurement]:
    from verifier.randomized.publisher import dp_level

    found = dp_level(*_inputs(subject))
    if found is not None:
        yield found


def _sized(model: str, removal: bool) -> Any:
    def measure(subject: Subject) -> Iterator[Measurement]:
        from verifier.randomized.publisher import subset_level

        table, mechanism = _inputs(subject)
        for size in subject.options.inputs.subset_sizes:
            yield subset_level(model, table, mechanism, size, removal)

    return measure


STOCHASTIC_T_CLOSENESS = Model(
    id="stochastic_t_closeness", name="stochastic t-closeness", kind="randomized", scope="attribute",
    source=Source("Domingo-Ferrer & Soria-Comas 2015", "4", "Def. 3 (with the distance of Def. 4)"),
    comparison="at_most", threshold=Domain(lower=Fraction(0)), units="ratio (multiplicative) or EMD",
    measure=_stochastic, needs=_NEEDS, closed_forms=True, check_requirement=_stochastic_check,
    parameters=(Parameter("distance", "multiplicative (default), or an EMD ground distance",
                          choices=STOCHASTIC_DISTANCES),), implied_at=(("distance", "multiplicative"),),
    definition=MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "k", "buckets"),
                          "for every class E, the multiplicative distance between Pr(E's record in B) "
                          "and Pr(table's record in B) is at most t", minimal_class_size=k),
)

LDP = Model(
    id="ldp", name="ε-local differential privacy", kind="randomized", scope="attribute",
    source=Source(_EKENSTEDT, "IV", "Def. 6"), comparison="at_most", threshold=Domain(lower=Fraction(0)),
    units="nats", measure=_ldp, needs=_NEEDS, closed_forms=True,
    definition=MapDefinition(eps, sympy.Interval(0, sympy.oo), ("N", "buckets"),
                          "any two records' output distributions differ by a factor at most e^ε"),
)

DP = Model(
    id="dp", name="ε-differential privacy", kind="randomized", scope="attribute",
    source=Source(_EKENSTEDT, "IV", "Def. 5"), comparison="at_most", threshold=Domain(lower=Fraction(0)),
    units="nats", measure=_dp, needs=_NEEDS, closed_forms=True,
    definition=MapDefinition(eps, sympy.Interval(0, sympy.oo), ("N", "buckets"),
                          "removing one record changes the probability of every output set by a factor at most e^ε"),
)

KT_CLOSENESS = Model(
    id="kt_closeness", name="(k,t)-closeness", kind="randomized", scope="attribute",
    source=Source(_EKENSTEDT, "IV", "Def. 7"), comparison="at_most", threshold=Domain(lower=Fraction(1)),
    units="ratio", measure=_sized("kt_closeness", removal=False), needs=_NEEDS, closed_forms=True, parameters=(_SIZE,),
    definition=MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "k", "buckets"),
                          "every subset of k records is multiplicatively t-close to the whole data set",
                          subset_size=_SIZE.symbol),
)

K_EPS_DP = Model(
    id="k_eps_dp", name="(k,ε)-differential privacy", kind="randomized", scope="attribute",
    source=Source(_EKENSTEDT, "IV", "Def. 8"), comparison="at_most", threshold=Domain(lower=Fraction(0)),
    units="nats", measure=_sized("k_eps_dp", removal=True), needs=_NEEDS, closed_forms=True, parameters=(_SIZE,),
    definition=MapDefinition(eps, sympy.Interval(0, sympy.oo), ("N", "k", "buckets"),
                          "removing any k records changes the probability of every output set by a factor at most "
                          "e^ε", subset_size=_SIZE.symbol),
)

register(STOCHASTIC_T_CLOSENESS, LDP, DP, KT_CLOSENESS, K_EPS_DP)
