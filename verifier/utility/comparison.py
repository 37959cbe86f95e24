"""Candidate releases of one original side by side: what each protects (k, prosecutor risk) and what it cost.

A publisher choosing between releases weighs privacy against utility. For each candidate,
:func:`compare` measures on the release alone its k-anonymity level and its prosecutor
re-identification risk, highest and mean (El Emam & Dankar 2008: ``1/min|E|`` and
``#classes/N``), and against the original every utility model of :mod:`verifier.utility`
(with a target, the classifiers' figures too: estimates, one column each). All three
privacy figures are exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifier.utility.classification_figures import CLASSIFICATION_METRICS
from verifier.utility.figure import Figure, value_json
from verifier.utility.pair import SUPPRESSED

if TYPE_CHECKING:
    import pandas as pd

    from verifier.tables.hierarchy import Hierarchy
    from verifier.utility import UtilityReport

__all__ = ["Candidate", "ReleaseComparison", "compare"]


@dataclass(frozen=True)
class Candidate:
    """One release: its privacy levels over the quasi-identifiers and its utility figures.

    Attributes
    ----------
    release
        The release's name (its file).
    k
        The k-anonymity level (the smallest class), ``None`` for an empty release.
    risk
        The highest prosecutor risk ``1/k``, ``None`` for an empty release.
    mean_risk
        The mean prosecutor risk, classes over records.
    utility
        Every utility figure against the original.
    """

    release: str
    k: int | None
    risk: Fraction | None
    mean_risk: Fraction | None
    utility: UtilityReport

    def figure(self, metric: str) -> Figure | None:
        """The release's figure of ``metric`` (over every quasi-identifier, or a classifier's on the target),
        ``None`` when the model has none."""
        return next((f for f in self.utility.figures if f.metric == metric and _release_wide(f)), None)

    def to_json(self) -> dict[str, Any]:
        return {"release": self.release, "k": self.k, "prosecutor_risk": value_json(self.risk),
                "mean_prosecutor_risk": value_json(self.mean_risk), **self.utility.to_json()}


@dataclass(frozen=True)
class ReleaseComparison:
    """Every candidate release of one original, in the order given."""

    original: str
    qi: tuple[str, ...]
    candidates: tuple[Candidate, ...]

    @property
    def metrics(self) -> tuple[str, ...]:
        """The utility models with a value over every quasi-identifier for at least one candidate, in report order."""
        return tuple(dict.fromkeys(f.metric for c in self.candidates for f in c.utility.figures
                                   if _release_wide(f) and f.raw is not None))

    def to_json(self) -> dict[str, Any]:
        return {"original": self.original, "qi": list(self.qi), "releases": [c.to_json() for c in self.candidates]}


def _release_wide(figure: Figure) -> bool:
    """A figure of the whole release: over every quasi-identifier, or a classifier's (on the target)."""
    return figure.attribute is None or figure.metric in CLASSIFICATION_METRICS


def compare(
    original: pd.DataFrame,
    releases: Sequence[tuple[str, pd.DataFrame]],
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    suppressed: str = SUPPRESSED,
    original_name: str = "original",
    target: str | None = None,
    classifiers: Sequence[str] | None = None,
) -> ReleaseComparison:
    """Measure each ``(name, release)`` of ``original``: privacy over ``qi`` and every utility model.

    With ``target``, each release's classifiers too (:data:`verifier.utility.TARGET_MODELS`), with the same folds
    and seeds for every release.

    Raises
    ------
    DataError
        A release cannot be aligned with the original, or lacks a quasi-identifier (the
        message names the release's file, row and column).
    """
    from verifier.measure import measure
    from verifier.question import Question
    from verifier.utility import measure_utility

    candidates = []
    for name, release in releases:
        utility = measure_utility(original, release, qi, hierarchies=hierarchies, key=key, suppressed=suppressed,
                                  sources=(original_name, name), target=target, classifiers=classifiers)
        question = Question.of(qi, (), source=name)
        levels = {m.model: m for m in measure(release, question, source=name, progress=False).measurements}
        value = levels["k_anonymity"].level.value
        k = None if value is None else int(value)
        witness = levels["prosecutor_risk"].witness
        mean = None if witness is None else Fraction(witness.numbers["mean_risk"])
        candidates.append(Candidate(name, k, None if k is None else Fraction(1, k), mean, utility))
    return ReleaseComparison(original_name, tuple(qi), tuple(candidates))
