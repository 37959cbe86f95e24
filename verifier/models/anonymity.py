"""k-anonymity, prosecutor risk and (α,k)-anonymity: the models of the class sizes.

Measured by :mod:`verifier.privacy.anonymity`.

References
----------
Samarati & Sweeney 1998 (k-anonymity, as stated in Ekenstedt et al. 2022, Sec. II);
El Emam & Dankar 2008, Sec. 3 (prosecutor risk); Wong et al. 2006, Def. 2 ((α,k)-anonymity).
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
from verifier.symbols import alpha, k, risk

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["K_ANONYMITY", "PROSECUTOR_RISK", "ALPHA_K_ANONYMITY"]


def _k_anonymity(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.anonymity import k_anonymity

    yield k_anonymity(subject.classes)


def _prosecutor_risk(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.anonymity import prosecutor_risk

    yield prosecutor_risk(subject.classes, subject.options.risk_threshold)


def _alpha_k_anonymity(subject: Subject) -> Iterator[Measurement]:
    from verifier.privacy.anonymity import alpha_k_anonymity

    yield alpha_k_anonymity(attribute_table(subject))


K_ANONYMITY = Model(
    id="k_anonymity",
    name="k-anonymity",
    kind="privacy",
    scope="release",
    source=Source("Ekenstedt et al. 2022", "II", "k-anonymity (Samarati-Sweeney)"),
    comparison="at_least",
    threshold=Domain(lower=Fraction(1), integer=True),
    units="records",
    measure=_k_anonymity,
    definition=MapDefinition(k, sympy.Range(1, sympy.oo), ("N",),
                          "every record shares its quasi-identifiers with at least k-1 others", minimal_class_size=k),
    smallest_class=True,
)

PROSECUTOR_RISK = Model(
    id="prosecutor_risk",
    name="prosecutor re-identification risk",
    kind="risk",
    scope="release",
    source=Source("El Emam & Dankar 2008", "3", "prosecutor risk"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)),
    units="probability",
    measure=_prosecutor_risk,
    definition=MapDefinition(risk, sympy.Interval.Lopen(0, 1), ("N",),
                          "no record is re-identified with probability above R = 1/(smallest class)",
                          minimal_class_size=sympy.ceiling(1 / risk)),
    by_default=True,
)

ALPHA_K_ANONYMITY = Model(
    id="alpha_k_anonymity",
    name="(α,k)-anonymity (α part)",
    kind="privacy",
    scope="attribute",
    source=Source("Wong et al. 2006", "3", "Def. 2"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)),
    units="frequency",
    measure=_alpha_k_anonymity,
    definition=MapDefinition(alpha, sympy.Interval.Lopen(0, 1), ("N",),
                          "no value makes up more than a fraction α of any class",
                          minimal_class_size=sympy.ceiling(1 / alpha)),
)

register(K_ANONYMITY, PROSECUTOR_RISK, ALPHA_K_ANONYMITY)
