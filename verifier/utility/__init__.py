"""What a release cost: utility models measured between an original table and its release.

One module per model, each a function of the aligned pair (:mod:`verifier.utility.pair`)
returning :class:`~verifier.utility.figure.Figure` s (the paper's raw value and ARX's
normalized quality, labelled):

=========================  ======================================  ===========================
model                      module                                  source
=========================  ======================================  ===========================
``loss`` (granularity)     :mod:`verifier.utility.loss`            Iyengar 2002
``non_uniform_entropy``    :mod:`verifier.utility.non_uniform_entropy`  Gionis & Tassa 2009
``precision``              :mod:`verifier.utility.precision`       Sweeney 2002
``discernibility``         :mod:`verifier.utility.discernibility`  Bayardo & Agrawal 2005
``aecs``                   :mod:`verifier.utility.aecs`            LeFevre et al. 2006
``ambiguity``              :mod:`verifier.utility.ambiguity`       Nergiz & Clifton 2007
``kl_divergence``          :mod:`verifier.utility.kl_divergence`   Kifer & Gehrke 2006
``attribute_sse``          :mod:`verifier.utility.attribute_sse`   ARX's attribute-level SSE
``record_sse``, ``sse_sst``  :mod:`verifier.utility.record_sse`    Soria-Comas et al. 2015, eq. (5); ARX
=========================  ======================================  ===========================

With a target attribute, :data:`TARGET_MODELS` adds the models of a prediction of it from
the quasi-identifiers: classification accuracy, Brier score and ROC AUC of logistic
regression, naive Bayes and a random forest (:mod:`verifier.utility.classification_figures`;
ARX's ``StatisticsClassification``), estimates of a seeded cross-validation.

The definitions follow the papers; ARX's quality models
(``org.deidentifier.arx.aggregates.quality``) fix the normalization, and each module says
where ARX's code departs from its paper and which reading it keeps. The utility of a
randomized release's mechanism (Ekenstedt et al. 2022, eq. (4)) is the theory's
(:mod:`theory.mechanism_selection.utility`); :func:`privcert.api.utility` adds it, since
the verifier does not import the theory.

These models are not in the model registry (:mod:`verifier.registry`): a registered model
is a function of the release's count tables, and these are functions of two tables
record by record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verifier.utility.aecs import aecs
from verifier.utility.ambiguity import ambiguity
from verifier.utility.attribute_sse import attribute_sse
from verifier.utility.classification_figures import classification_figures
from verifier.utility.discernibility import discernibility
from verifier.utility.figure import Figure
from verifier.utility.kl_divergence import kl_divergence
from verifier.utility.loss import loss
from verifier.utility.non_uniform_entropy import non_uniform_entropy
from verifier.utility.pair import SUPPRESSED, Pair, align
from verifier.utility.precision import precision
from verifier.utility.record_sse import record_sse

if TYPE_CHECKING:
    import pandas as pd

    from verifier.tables.hierarchy import Hierarchy

__all__ = ["MODELS", "TARGET_MODELS", "Figure", "Pair", "UtilityReport", "align", "measure_utility", "target_figures", "utility_of"]

MODELS: tuple[tuple[str, Callable[[Pair], tuple[Figure, ...]]], ...] = (
    ("loss", loss),
    ("non_uniform_entropy", non_uniform_entropy),
    ("precision", precision),
    ("discernibility", discernibility),
    ("aecs", aecs),
    ("ambiguity", ambiguity),
    ("kl_divergence", kl_divergence),
    ("attribute_sse", attribute_sse),
    ("record_sse", record_sse),
)
"""The utility models in report order: (name, function of the aligned pair)."""

TARGET_MODELS: tuple[tuple[str, Callable[..., tuple[Figure, ...]]], ...] = (
    ("classification", classification_figures),
)
"""The models measured on a target attribute, after :data:`MODELS`: (name, function of the aligned pair, the
two tables and the target, with ``classifiers``)."""


@dataclass(frozen=True)
class UtilityReport:
    """Every utility model's figures for one release of one original.

    Attributes
    ----------
    original, release
        The two tables' names (files).
    qi
        The quasi-identifiers.
    rows
        ``N``, the original's records.
    suppressed
        How many of them the release suppresses (or leaves out).
    figures
        Every figure, model by model (per attribute first, then the release's).
    pairing
        How the records were paired (:attr:`verifier.utility.pair.Pair.pairing`).
    inferred
        The hierarchies read from the release's labels (:attr:`verifier.utility.pair.Pair.inferred`).
    """

    original: str
    release: str
    qi: tuple[str, ...]
    rows: int
    suppressed: int
    figures: tuple[Figure, ...]
    pairing: str = "row by row"
    inferred: tuple[str, ...] = ()

    def figure(self, metric: str, attribute: str | None = None) -> Figure:
        """The figure of ``metric`` on ``attribute`` (``None``: the release's).

        Raises
        ------
        KeyError
            No such figure.
        """
        found = next((f for f in self.figures if f.metric == metric and f.attribute == attribute), None)
        if found is None:
            raise KeyError(f"no {metric} figure for {attribute or 'the release'}")
        return found

    def to_json(self) -> dict[str, Any]:
        return {"original": self.original, "release": self.release, "qi": list(self.qi), "rows": self.rows,
                "suppressed": self.suppressed, "pairing": self.pairing, "inferred_hierarchies": list(self.inferred),
                "utility": [f.to_json() for f in self.figures]}


def target_figures(pair: Pair, original: pd.DataFrame, release: pd.DataFrame, target: str | None,
                   classifiers: Sequence[str] | None = None) -> tuple[Figure, ...]:
    """Every model of :data:`TARGET_MODELS` on ``target`` (none without one); ``classifiers``: all by default."""
    if target is None:
        return ()
    chosen = {} if classifiers is None else {"classifiers": tuple(classifiers)}
    return tuple(f for _, model in TARGET_MODELS for f in model(pair, original, release, target, **chosen))


def utility_of(pair: Pair, extra: Sequence[Figure] = ()) -> UtilityReport:
    """Every model on an aligned pair (``extra``: figures measured elsewhere, appended)."""
    figures = tuple(f for _, model in MODELS for f in model(pair))
    return UtilityReport(pair.original_source, pair.release_source, pair.qi, pair.rows, sum(pair.suppressed),
                         figures + tuple(extra), pair.pairing, pair.inferred)


def measure_utility(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    suppressed: str = SUPPRESSED,
    sources: tuple[str, str] = ("original", "release"),
    target: str | None = None,
    classifiers: Sequence[str] | None = None,
) -> UtilityReport:
    """Every utility model of ``release`` against ``original`` (:func:`verifier.utility.pair.align` for the arguments).

    With ``target``, the models of :data:`TARGET_MODELS` too (``classifiers``: all by default).

    Raises
    ------
    DataError
        The tables cannot be aligned (see :func:`~verifier.utility.pair.align`), or the target is not a column of
        both or is a quasi-identifier.
    """
    pair = align(original, release, qi, hierarchies=hierarchies, key=key, suppressed=suppressed, sources=sources)
    return utility_of(pair, target_figures(pair, original, release, target, classifiers))
