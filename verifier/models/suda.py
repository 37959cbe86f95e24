"""SUDA: minimal sample uniques (SUDA2) with SUDA and DIS-SUDA scores.

Measured by :mod:`verifier.risk.suda` on the classes' quasi-identifier values. The level
is the largest DIS-SUDA score (an estimate in float64, with exact bounds ± its
tolerance); ``numbers`` counts the MSUs by size, the special uniques and the records with
a positive SUDA score.

References
----------
Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.literal import Domain
from verifier.measures import measurement
from verifier.references import Source
from verifier.registry import Model, Parameter, Subject, register

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["SUDA", "suda_measurement"]

TOLERANCE = Fraction(1, 10**9)
"""The tolerance stated for DIS-SUDA scores (float64, relative rounding error below 10^-13)."""


def suda_measurement(subject: Subject, max_size: int | None) -> Measurement:
    """The ``suda`` measurement with MSUs up to ``max_size`` values (default: all)."""
    from verifier.results import Estimate, Level, Witness
    from verifier.risk.estimated import estimated
    from verifier.risk.histogram import frame_of
    from verifier.risk.suda import DIS_FRACTION, suda2

    classes = subject.classes
    frame = frame_of(classes.rows, subject.options.inputs) if classes.rows else None
    result = suda2(classes, max_size, DIS_FRACTION if frame is None else frame.fraction)
    sizes = result.msu_sizes
    numbers: dict[str, Any] = {
        "msus": int(sizes.size),
        "msus_by_size": {str(size): int((sizes == size).sum()) for size in sorted(set(sizes.tolist()))},
        "special_uniques": result.special_uniques(),
        "records_with_score": int(sum(1 for s in result.scores if s > 0)),
        "max_suda_score": int(max(result.scores, default=0)),
        "pairs": result.pairs,
    }
    # the size asked for (a requirement finds its measurement by it), though the search stops at the QIs' number
    parameters = {"max_size": result.max_size if max_size is None else max_size, "dis_fraction": result.dis_fraction}
    partial = () if result.complete else (
        f"a partial search: minimal sample uniques of at most {result.max_size} of the {result.attributes} "
        "quasi-identifiers (max_size); larger ones are not counted, so scores may be higher",)
    if classes.count == 0 or numbers["records_with_score"] == 0:
        return measurement("suda", subject, Level.of(0), Witness(numbers=numbers), "at_most", parameters=parameters,
                           notes=("no record has a minimal sample unique within max_size", *partial))
    top = int(result.dis.argmax())
    witness = Witness(qi=classes.describe(top), size=1, numbers={**numbers, "suda_score": int(result.scores[top])})
    return estimated("suda", float(result.dis[top]), Estimate(float(result.dis[top]), TOLERANCE, "closed form"),
                     witness=witness, parameters=parameters, notes=partial)


def _suda(subject: Subject) -> Iterator[Measurement]:
    requested = [p.get("max_size") for p in subject.requested(SUDA.id)]
    given = subject.options.inputs.get("suda_max_size")
    # the requirements' searches, and the run's own only when it asks for one or nothing else does (an unbounded
    # search beside a bounded requirement would cost what max_size is there to avoid)
    wanted = [*requested, given] if given is not None or not requested else requested
    for max_size in dict.fromkeys(wanted):
        yield suda_measurement(subject, max_size)


SUDA = Model(
    id="suda", name="SUDA (largest DIS-SUDA score)", kind="risk", scope="release",
    source=Source("Elliot, Manning & Ford 2002", "3", "SUDA and DIS-SUDA"), comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)), units="probability (estimate)", measure=_suda,
    by_default=False,
    parameters=(Parameter("max_size", "the largest minimal sample unique searched (default: all quasi-identifiers)",
                          domain=Domain(lower=Fraction(1), integer=True)),),
)

register(SUDA)
