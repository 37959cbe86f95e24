"""A toy model (the largest class's share of the records), registered by the tests that need a model no
module of verifier/models declares."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import sympy

from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Subject
from verifier.results import Level, Measurement, Witness

SHIFT = [0]
"""Added to the toy level: a test changes it to see ``verify`` measure the toy model again."""


def largest_share(subject: Subject) -> Iterator[Measurement]:
    sizes = subject.classes.sizes
    largest = int(sizes.argmax())
    share = Fraction(int(sizes[largest]), subject.classes.rows) + SHIFT[0]
    yield Measurement("largest_class_share", None, Level.of(share),
                      Witness(qi=subject.classes.describe(largest), size=int(sizes[largest])), "at_most")


TOY = Model(
    id="largest_class_share",
    name="largest class share",
    kind="privacy",
    scope="release",
    source=Source("privcert (derived here)", "tests", "a toy model"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)),
    units="share of records",
    measure=largest_share,
    definition=MapDefinition(sympy.Symbol("m", positive=True), sympy.Interval.Lopen(0, 1), ("N",),
                          "no class holds more than a share m of the records"),
)
