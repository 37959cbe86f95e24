"""Benedetti-Franconi individual risk with sampling weights (sdcMicro's ``indivRisk``).

Measured by :mod:`verifier.risk.individual`. The weights are a column of the release
(the run's ``weights`` input: their sum per class is the estimated population count
``F̂``), or, without one, ``N/n`` for every record from the sampling fraction or the
population size. A certificate carries no weights column, so with one ``verify`` needs
the release (``--data``).

References
----------
Benedetti & Franconi 1998; Franconi & Polettini 2004, Sec. 3.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

from verifier.literal import Domain
from verifier.references import Source
from verifier.registry import Model, Subject, register

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["INDIVIDUAL_RISK"]


def _individual(subject: Subject) -> Iterator[Measurement]:
    from verifier.risk.histogram import frame_of
    from verifier.risk.individual import individual_risk, uniform_weights

    weights = subject.options.inputs.get("class_weights")
    frame = frame_of(subject.classes.rows, subject.options.inputs) if subject.classes.rows else None
    if weights is None and frame is not None:
        weights = uniform_weights(subject.classes, frame.population)
    if weights is not None:
        yield individual_risk(subject.classes, weights)


INDIVIDUAL_RISK = Model(
    id="individual_risk", name="individual risk (Benedetti-Franconi)", kind="risk", scope="release",
    source=Source("Franconi & Polettini 2004", "3", "individual risk, approximation"), comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)), units="probability", measure=_individual,
    by_default=False, needs_one_of=frozenset({"weights", "sampling_fraction", "population"}),
)

register(INDIVIDUAL_RISK)
