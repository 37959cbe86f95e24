"""β-likeness (basic, enhanced) and δ-disclosure privacy: the relative gain of a value's frequency in a class.

Measured by :mod:`verifier.privacy.likeness`. δ-disclosure is measured over every value of the
table, and, to compare with ARX and pyCANON, over the values present in each class.

References
----------
Cao & Karras 2012, Sec. 3, Defs. 2-3 (basic and enhanced β-likeness); Brickell & Shmatikov
2008, Sec. 3, Def. 4 (δ-disclosure privacy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from verifier.literal import Domain
from verifier.measures import attribute_table
from verifier.references import Source
from verifier.registry import MapDefinition, Measure, Model, Subject, register
from verifier.symbols import beta, delta

if TYPE_CHECKING:
    from verifier.results import Measurement
    from verifier.tables.counts import CountTable

__all__ = ["BASIC_BETA_LIKENESS", "ENHANCED_BETA_LIKENESS", "DELTA_DISCLOSURE", "DELTA_DISCLOSURE_PRESENT"]


def _on_table(name: str) -> Measure:
    """The measure that calls ``verifier.privacy.likeness.<name>`` on the attribute's count table."""
    def measure(subject: Subject) -> Iterator[Measurement]:
        from verifier.privacy import likeness

        function: Callable[[CountTable], Measurement] = getattr(likeness, name)
        yield function(attribute_table(subject))

    return measure


_CAO = "Cao & Karras 2012"
_BRICKELL = "Brickell & Shmatikov 2008"
_NON_NEGATIVE = Domain(lower=Fraction(0))

BASIC_BETA_LIKENESS = Model(
    id="basic_beta_likeness", name="basic β-likeness", kind="privacy", scope="attribute",
    source=Source(_CAO, "3", "Def. 2"), comparison="at_most", threshold=_NON_NEGATIVE, units="relative gain",
    measure=_on_table("basic_beta_likeness"),
    definition=MapDefinition(beta, sympy.Interval(0, sympy.oo), ("N",),
                          "no class raises a value's frequency p to q with (q - p)/p above β"),
)

ENHANCED_BETA_LIKENESS = Model(
    id="enhanced_beta_likeness", name="enhanced β-likeness", kind="privacy", scope="attribute",
    source=Source(_CAO, "3", "Def. 3"), comparison="at_most", threshold=_NON_NEGATIVE, units="relative gain",
    measure=_on_table("enhanced_beta_likeness"),
    definition=MapDefinition(beta, sympy.Interval(0, sympy.oo), ("N",),
                          "no class raises a value's frequency p to q with (q - p)/p above min(β, -ln p)"),
)

DELTA_DISCLOSURE = Model(
    id="delta_disclosure", name="δ-disclosure privacy", kind="privacy", scope="attribute",
    source=Source(_BRICKELL, "3", "Def. 4"), comparison="below", threshold=_NON_NEGATIVE, units="nats",
    measure=_on_table("delta_disclosure"),
    definition=MapDefinition(delta, sympy.Interval(0, sympy.oo), ("N",),
                          "for every class and every value of the table, |ln(q/p)| is below δ"),
)

DELTA_DISCLOSURE_PRESENT = Model(
    id="delta_disclosure_present", name="δ-disclosure over the values present in each class", kind="privacy",
    scope="attribute", source=Source(_BRICKELL, "3", "Def. 4, over the values a class holds (as ARX, pyCANON)"),
    comparison="below", threshold=_NON_NEGATIVE, units="nats", measure=_on_table("delta_disclosure_present"),
    definition=MapDefinition(delta, sympy.Interval(0, sympy.oo), ("N",),
                          "for every class and every value it holds, |ln(q/p)| is below δ"),
)

register(BASIC_BETA_LIKENESS, ENHANCED_BETA_LIKENESS, DELTA_DISCLOSURE, DELTA_DISCLOSURE_PRESENT)
