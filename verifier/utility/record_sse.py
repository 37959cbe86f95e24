"""Squared error per record over the numerical quasi-identifiers (Soria-Comas et al. 2015, eq. 5; ARX's SSE/SST).

Each released cell is read as a point: the number itself, or the midpoint of the interval
it stands for (:func:`verifier.utility.attribute_sse.intervals`). With ``σ_j²`` the
population variance of attribute ``j`` in the original,

* ``record_sse``: ``raw = (1/(N·m)) Σ_r Σ_j (x_rj - y_rj)² / σ_j²``, the normalized SSE of
  Soria-Comas et al. 2015, eq. (5) (an attribute with ``σ_j = 0`` adds 0 when the release keeps its one value; when
  it changes it the error is unbounded and the figure undefined, never 0); exact. Its
  quality is ARX's record-level squared error (``QualityModelRowOrientedSquaredError``):
  ``1 - Σ_r √(Σ_j ((x_rj - far_rj)/σ_j)²) / Σ_r √(Σ_j ((x_rj - far*_rj)/σ_j)²)``, where
  ``far`` is the end of the record's interval farther from ``x`` and ``far*`` the farther
  end of the attribute's whole range (original and release); a float.
* ``sse_sst``: ``raw = SSE / SST`` with ``SSE = Σ_r Σ_j (x_rj - y_rj)²`` and, as ARX's
  ``QualityModelRowOrientedSSESST`` computes it, ``SST = Σ_r Σ_j (y_rj - x̄_j)²`` (the
  release's spread around the original's centroid); quality ``1 - SSE/SST`` truncated to
  ``[0, 1]``; exact. ``None`` when ``SST = 0``.

Only the quasi-identifiers whose original values are all numbers take part.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"x": ["0", "2", "4", "6"]}), pd.DataFrame({"x": ["1", "1", "5", "5"]}), ["x"])
>>> [f.raw for f in record_sse(pair)]     # each error ±1, σ² = 5; SSE 4, SST 4·4
[Fraction(1, 5), Fraction(1, 4)]
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifier.utility.attribute_sse import intervals
from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Pair

__all__ = ["record_sse"]

SOURCE = "Soria-Comas et al. 2015"


def record_sse(pair: Pair) -> tuple[Figure, Figure]:
    """The normalized SSE (``record_sse``) and SSE/SST (``sse_sst``) of the release."""
    measured = [(column, numbers) for column in pair.columns if (numbers := column.numbers) is not None]
    if not measured:
        note = "not applicable: no quasi-identifier has numbers for original values"
        return (Figure("record_sse", None, None, None, "σ²", note), Figure("sse_sst", None, None, None, "ratio", note))
    n = pair.rows
    normalized = sse = sst = Fraction(0)
    distance = [0.0] * n
    farthest = [0.0] * n
    unbounded: list[str] = []
    for column, numbers in measured:
        spans = intervals(column, numbers)
        mean = sum(numbers, Fraction(0)) / n
        variance = sum(((x - mean) ** 2 for x in numbers), Fraction(0)) / n
        low = min(min(numbers), min(lo for lo, _ in spans))
        high = max(max(numbers), max(hi for _, hi in spans))
        squared = Fraction(0)  # this attribute's Σ_r (x - y)², divided by σ² once
        for r, (x, (lo, hi)) in enumerate(zip(numbers, spans, strict=True)):
            y = (lo + hi) / 2
            squared += (x - y) ** 2
            sst += (y - mean) ** 2
            if variance:
                distance[r] += float(max((x - lo) ** 2, (x - hi) ** 2) / variance)
                farthest[r] += float(max((x - low) ** 2, (x - high) ** 2) / variance)
        sse += squared
        if variance:
            normalized += squared / variance
        elif squared:
            unbounded.append(column.name)
    real = sum(math.sqrt(d) for d in distance)
    worst = sum(math.sqrt(d) for d in farthest)
    ratio = sse / sst if sst else None
    if unbounded:
        note = (f"undefined: {', '.join(map(repr, unbounded))} has one value in the original (σ = 0) and the "
                "release changes it, an error of infinitely many σ (never 0, nothing lost)")
        record = Figure("record_sse", None, None, None, "σ²", note)
    else:
        record = Figure("record_sse", None, normalized / (n * len(measured)), arx_quality(real, 0.0, worst), "σ²")
    return (record,
            Figure("sse_sst", None, ratio, arx_quality(ratio, Fraction(0), Fraction(1)), "ratio"))
