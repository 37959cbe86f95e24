"""One utility figure: a model's raw value and ARX's normalized quality, on one attribute or the release.

Every model reports two numbers, and says which is which:

* ``raw``: the metric as its paper defines it (Iyengar's loss, the discernibility penalty,
  the KL divergence in bits, ...), on the model's own scale; lower is better, except for
  a randomized release's expected utility and agreement and a classifier's accuracy and
  ROC AUC (higher is better);
* ``quality``: ARX's normalized quality, ``1 - (raw' - min) / (max - min)`` truncated to
  ``[0, 1]``, where ``raw'``, ``min`` and ``max`` are ARX's value for the release, for the
  least lossy release (the original itself) and for the most lossy one (every record
  suppressed), as ``org.deidentifier.arx.aggregates.quality`` computes them: 1 is the
  original's utility, 0 none. ``None`` when ARX's ``min`` and ``max`` coincide (ARX: NaN).
  A classifier's figures give instead the figure ARX's "Classification" view sets beside
  them (relative accuracy, Brier skill score, relative AUC: 1 predicts as well as the
  original; :mod:`verifier.utility.classification_figures`).

Both are exact (:class:`fractions.Fraction`) except where the metric takes a logarithm or
a square root (entropy, KL divergence, ARX's record-level distance): those are ``float``
and ``exact`` is ``False``. A model that does not apply (a generalization model on a
perturbed column) has ``raw = quality = None`` and says why in ``note``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifier.utility.classification import CLASSIFIERS

__all__ = ["MODEL_NAMES", "Figure", "Value", "arx_quality", "release_unmeasured", "short_text", "value_json", "value_text"]

Value = Fraction | float | None
"""An exact value, a float where the metric is not rational, or ``None`` (not applicable, undefined)."""


MODEL_NAMES = {
    "loss": "loss (granularity)",
    "non_uniform_entropy": "non-uniform entropy",
    "precision": "precision (generalization height)",
    "discernibility": "discernibility",
    "aecs": "average class size",
    "ambiguity": "ambiguity",
    "kl_divergence": "KL divergence",
    "attribute_sse": "squared error (attribute)",
    "record_sse": "squared error (record, normalized)",
    "sse_sst": "SSE/SST",
    "expected_utility": "expected utility, eq. (4)",
    "agreement": "agreement",
    **{f"{kind}_{name}": f"{label} ({name.replace('_', ' ')})" for name in CLASSIFIERS
       for kind, label in (("accuracy", "accuracy"), ("brier", "Brier score"), ("auc", "ROC AUC"))},
}
"""How a reader is shown each model (the terminal, the certificate's views; the JSON uses the ids)."""


@dataclass(frozen=True)
class Figure:
    """A utility model's value on one attribute (or the whole release: ``attribute`` is ``None``).

    Attributes
    ----------
    metric
        The model id (``loss``, ``discernibility``, ...).
    attribute
        The quasi-identifier, or ``None`` for the release as a whole.
    raw
        The paper's value (see the module docstring).
    quality
        ARX's normalized quality in ``[0, 1]`` (1: no loss).
    units
        What ``raw`` counts.
    note
        Why the model does not apply, or the convention used.
    """

    metric: str
    attribute: str | None
    raw: Value
    quality: Value
    units: str
    note: str = ""

    @property
    def exact(self) -> bool:
        """Whether both numbers are exact fractions (or absent)."""
        return not isinstance(self.raw, float) and not isinstance(self.quality, float)

    def to_json(self) -> dict[str, Any]:
        """JSON: exact values as text (``3/8``) with a float beside them."""
        return {"metric": self.metric, "attribute": self.attribute, "raw": value_json(self.raw),
                "quality": value_json(self.quality), "units": self.units, "exact": self.exact, "note": self.note}


def release_unmeasured(metric: str, figures: list[Figure], units: str) -> Figure | None:
    """The release's figure when a quasi-identifier was not measured: no value, and which were not and why.

    A figure over several quasi-identifiers averages (or sums) what each contributes; one
    left out would make the others' figure read as the whole release's (a release that
    perturbs two of three attributes would read as losing nothing). ``None`` when every
    quasi-identifier was measured.
    """
    missing = [f for f in figures if f.raw is None]
    if not missing:
        return None
    names = ", ".join(repr(f.attribute) for f in missing)
    return Figure(metric, None, None, None, units, f"not measured: {names} not measured, so no figure over all "
                                                   f"quasi-identifiers ({missing[0].note})")


def arx_quality(value: Value, minimum: Value, maximum: Value) -> Value:
    """``1 - (value - minimum) / (maximum - minimum)``, truncated to ``[0, 1]`` (ARX's ``getValue``)."""
    if value is None or minimum is None or maximum is None or maximum == minimum:
        return None
    share = (value - minimum) / (maximum - minimum)
    return 1 - min(max(share, type(share)(0)), type(share)(1))


def value_json(value: Value) -> dict[str, Any] | None:
    """``{"exact": "3/8", "value": 0.375}`` (``exact`` only for a fraction); ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, Fraction):
        return {"exact": str(value), "value": float(value)}
    return {"value": value}


def value_text(value: Value) -> str:
    """For a reader: ``3/8 ≈ 0.375``, ``12``, ``0.4512`` (a float, 4 significant digits), ``—`` (none)."""
    if value is None:
        return "—"
    if isinstance(value, Fraction):
        return str(value) if value.denominator == 1 else f"{value} ≈ {float(value):.4g}"
    return f"{value:.4g}"


def short_text(value: Value) -> str:
    """For a table cell: a short fraction as it is (``3/8``), a long one or a float to 4 digits, ``—`` (none)."""
    if isinstance(value, Fraction) and len(str(value)) <= 7:
        return str(value)
    return "—" if value is None else f"{float(value):.4g}"
