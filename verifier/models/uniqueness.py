"""Sample uniqueness and population uniqueness (Pitman, Zayatz, SNB, the Dankar rule).

Measured by :mod:`verifier.risk.sample` and :mod:`verifier.risk.population` from the
class-size histogram; population uniqueness needs a sampling fraction or a population
size (the run's ``sampling_fraction`` / ``population`` inputs, or the requirement's
``sampling_fraction``) and is an estimate (exact bounds ± its tolerance).

References
----------
Dankar, El Emam, Neisa & Roffey 2012 (sample and population uniqueness, the decision
rule); Zayatz 1991; Pitman 1996; Hoshino 2001; Chen & Keller-McNulty 1998.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

import sympy

from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import MapDefinition, Model, Parameter, Subject, register
from verifier.symbols import uniques

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["SAMPLE_UNIQUENESS", "POPULATION_UNIQUENESS", "FRACTION"]

_SHARE = Domain(lower=Fraction(0), upper=Fraction(1))
FRACTION = Domain(lower=Fraction(0), upper=Fraction(1), lower_open=True)
"""Where a sampling fraction lies: (0, 1]."""

_DANKAR = "Dankar et al. 2012"


def _sample(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.sample import sample_uniqueness

    yield sample_uniqueness(subject.classes)


def _population(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.histogram import frame_of, sampling, size_histogram
    from verifier.risk.population import ESTIMATORS, population_uniqueness

    rows = subject.classes.rows
    given = frame_of(rows, subject.options.inputs)
    frames = [] if given is None else [given]
    for requested in subject.requested(POPULATION_UNIQUENESS.id):
        if requested.get("sampling_fraction") is not None:
            frames.append(sampling(rows, fraction=requested["sampling_fraction"]))
    if rows == 0:
        return
    histogram = size_histogram(subject.classes.sizes)
    for frame in dict.fromkeys(frames):
        for estimator in ESTIMATORS:
            yield population_uniqueness(histogram, frame, estimator)


SAMPLE_UNIQUENESS = Model(
    id="sample_uniqueness", name="sample uniqueness", kind="risk", scope="release",
    source=Source(_DANKAR, "2", "sample uniques"), comparison="at_most", threshold=_SHARE, units="share of records",
    measure=_sample, by_default=False,
    definition=MapDefinition(uniques, sympy.Interval(0, 1), ("N",),
                          "at most a share u of the records is unique on the quasi-identifiers"),
)

POPULATION_UNIQUENESS = Model(
    id="population_uniqueness", name="population uniqueness (estimated)", kind="risk", scope="release",
    source=Source(_DANKAR, "3", "population uniques: Pitman, Zayatz, SNB and the decision rule"),
    comparison="at_most", threshold=_SHARE, units="share of the population (estimate)", measure=_population,
    by_default=False, needs_one_of=frozenset({"sampling_fraction", "population"}),
    parameters=(Parameter("estimator", "pitman, zayatz, snb or dankar (the decision rule)",
                          choices=("pitman", "zayatz", "snb", "dankar"), required=True),
                Parameter("sampling_fraction", "the share of the population in the release (default: the run's "
                                               "[risk] sampling_fraction or population)", domain=FRACTION)),
)

register(SAMPLE_UNIQUENESS, POPULATION_UNIQUENESS)
