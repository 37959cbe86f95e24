"""k-map and δ-presence: the release against a population table.

Both need the run's ``population_table`` input (a table of the quasi-identifiers with
the number of people of each combination); a certificate does not carry that table, so
``verify`` shows their levels as the publisher's statement.

References
----------
El Emam & Dankar 2008, Sec. 3 (k-map); Nergiz, Atzori & Clifton 2007, Def. 3 (δ-presence).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from verifier import symbols
from verifier.literal import Domain
from verifier.models.attacker_risk import populations
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Subject, register

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["K_MAP", "DELTA_PRESENCE"]

_NEEDS = frozenset({"population_table"})


def _k_map(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.population_table import k_map

    found = populations(subject)
    assert found is not None
    yield k_map(subject.classes, found)


def _delta_presence(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.population_table import delta_presence

    found = populations(subject)
    assert found is not None
    yield delta_presence(subject.classes, found)


K_MAP = Model(
    id="k_map", name="k-map", kind="risk", scope="release", source=Source("El Emam & Dankar 2008", "3", "k-map"),
    comparison="at_least", threshold=Domain(lower=Fraction(1), integer=True), units="people of the population",
    measure=_k_map, needs=_NEEDS, by_default=False, recheck="statement",
    definition=MapDefinition(symbols.k_map, sympy.Range(1, sympy.oo), ("N",),
                          "every record matches at least K people of the population"),
)

DELTA_PRESENCE = Model(
    id="delta_presence", name="δ-presence (δ_max)", kind="risk", scope="release",
    source=Source("Nergiz, Atzori & Clifton 2007", "3", "Def. 3"), comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)), units="probability", measure=_delta_presence,
    needs=_NEEDS, by_default=False, recheck="statement",
)

register(K_MAP, DELTA_PRESENCE)
