"""Distinct, entropy and recursive (c,l)-diversity: how many well-represented values each class holds.

Measured by :mod:`verifier.privacy.diversity`.

References
----------
Machanavajjhala et al. 2007, Sec. 4 (distinct l-diversity; Def. 4.2, entropy
l-diversity; Def. 4.3, recursive (c,l)-diversity).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from verifier.literal import Domain
from verifier.measures import attribute_table
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Parameter, Subject, register
from verifier.symbols import c, ell

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.tables.counts import CountTable

__all__ = ["DISTINCT_L_DIVERSITY", "ENTROPY_L_DIVERSITY", "RECURSIVE_CL_DIVERSITY"]

_MACHANAVAJJHALA = "Machanavajjhala et al. 2007"


def _distinct(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.diversity import distinct_l_diversity

    yield distinct_l_diversity(attribute_table(subject))


def _entropy(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.diversity import entropy_l_diversity

    yield entropy_l_diversity(attribute_table(subject))


def _entropy_decide(measurement: Measurement, threshold: Any, table: CountTable | None) -> bool:
    """Entropy l-diversity decided on integers (:func:`verifier.privacy.diversity.entropy_l_satisfied`), and
    the closed form's decision, when sympy can take it, must agree.

    Raises
    ------
    RuntimeError
        The two decisions disagree (a defect, never expected).
    """
    from verifier.privacy.diversity import entropy_l_satisfied

    assert table is not None
    passed = entropy_l_satisfied(table, threshold)
    try:
        closed_form = measurement.level.satisfies(threshold, measurement.comparison)
    except ArithmeticError:
        return passed
    if closed_form != passed:
        raise RuntimeError(f"entropy l-diversity level {measurement.level.exact} decided {closed_form} against "
                           f"l = {threshold} but the integer test says {passed}")
    return passed


def _recursive(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.diversity import recursive_cl_diversity

    table = attribute_table(subject)
    requested = tuple(int(p["l"]) for p in subject.requested(RECURSIVE_CL_DIVERSITY.id) if "l" in p)
    for l in dict.fromkeys(subject.options.l + requested):
        yield recursive_cl_diversity(table, l)


DISTINCT_L_DIVERSITY = Model(
    id="distinct_l_diversity",
    name="distinct l-diversity",
    kind="privacy",
    scope="attribute",
    source=Source(_MACHANAVAJJHALA, "4", "distinct l-diversity"),
    comparison="at_least",
    threshold=Domain(lower=Fraction(1), integer=True),
    units="values",
    measure=_distinct,
    definition=MapDefinition(ell, sympy.Range(1, sympy.oo), ("N",), "every class holds at least l distinct values",
                          minimal_class_size=ell),
)

ENTROPY_L_DIVERSITY = Model(
    id="entropy_l_diversity",
    name="entropy l-diversity",
    kind="privacy",
    scope="attribute",
    source=Source(_MACHANAVAJJHALA, "4", "Def. 4.2"),
    comparison="at_least",
    threshold=Domain(lower=Fraction(1)),
    units="values (e to the class entropy)",
    measure=_entropy,
    decide=_entropy_decide,
    definition=MapDefinition(ell, sympy.Interval(1, sympy.oo), ("N",), "every class's entropy is at least ln l",
                          minimal_class_size=sympy.ceiling(ell)),
)

RECURSIVE_CL_DIVERSITY = Model(
    id="recursive_cl_diversity",
    name="recursive (c,l)-diversity",
    kind="privacy",
    scope="attribute",
    source=Source(_MACHANAVAJJHALA, "4", "Def. 4.3"),
    comparison="below",
    threshold=Domain(lower=Fraction(0), lower_open=True),
    units="ratio",
    measure=_recursive,
    parameters=(Parameter("l", "the l of (c,l)-diversity; the threshold is c", Domain(lower=Fraction(1), integer=True),
                          required=True, shorthand=True),),
    definition=MapDefinition(c, sympy.Interval(0, sympy.oo), ("N", "l"),
                          "in every class the most frequent count r_1 is below c times r_l + ... + r_m"),
)

register(DISTINCT_L_DIVERSITY, ENTROPY_L_DIVERSITY, RECURSIVE_CL_DIVERSITY)
