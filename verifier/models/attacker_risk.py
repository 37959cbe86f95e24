"""Marketer and journalist re-identification risk, with a population table when one is given.

Measured by :mod:`verifier.risk.sample`. Without a population table each class of the
release is its own population class (``F = f``): the marketer's risk is then
``#classes / n`` and the journalist's equals the prosecutor's.

References
----------
El Emam & Dankar 2008, Sec. 3 (prosecutor, journalist and marketer risk).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Subject, register
from verifier.symbols import journalist, marketer

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.risk.population_table import ClassPopulations

__all__ = ["MARKETER_RISK", "JOURNALIST_RISK", "populations"]

_PROBABILITY = Domain(lower=Fraction(0), upper=Fraction(1))
_EL_EMAM = "El Emam & Dankar 2008"


def populations(subject: Subject) -> ClassPopulations | None:
    """The population count of each class, when the run has a population table."""
    from verifier.risk.population_table import class_populations

    table = subject.options.inputs.population_table
    return None if table is None else class_populations(table, subject.classes)


def _marketer(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.sample import marketer_risk

    yield marketer_risk(subject.classes, populations(subject))


def _journalist(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.sample import journalist_risk

    yield journalist_risk(subject.classes, subject.options.risk_threshold, populations(subject))


MARKETER_RISK = Model(
    id="marketer_risk", name="marketer re-identification risk", kind="risk", scope="release",
    source=Source(_EL_EMAM, "3", "marketer risk"), comparison="at_most", threshold=_PROBABILITY,
    units="expected share of records re-identified", measure=_marketer, by_default=False,
    reads=frozenset({"population_table"}),
    definition=MapDefinition(marketer, sympy.Interval.Lopen(0, 1), ("N",),
                          "an attacker who matches every record re-identifies a share R_M of them on average"),
)

JOURNALIST_RISK = Model(
    id="journalist_risk", name="journalist re-identification risk", kind="risk", scope="release",
    source=Source(_EL_EMAM, "3", "journalist risk"), comparison="at_most", threshold=_PROBABILITY,
    units="probability", measure=_journalist, by_default=False, recheck="statement",
    reads=frozenset({"population_table"}),
    definition=MapDefinition(journalist, sympy.Interval.Lopen(0, 1), ("N",),
                          "no record is re-identified with probability above R_J = 1/(smallest population class "
                          "present), the target not known to be in the release"),
)

register(MARKETER_RISK, JOURNALIST_RISK)
