"""Granularity: Iyengar's loss metric, per quasi-identifier and over all of them (Iyengar 2002, Sec. 3).

A released cell whose node has ``M_P`` of the domain's ``M`` leaves under it loses
``(M_P - 1) / (M - 1)``: 0 for an original value, 1 for a suppressed cell. ``raw`` is the
mean over the records (and, for the release, over the quasi-identifiers: Iyengar's LM).

ARX (``QualityModelColumnOrientedLoss``, "granularity") sums the domain share
``M_P / M`` with ``min = 1/M`` and ``max = 1``, so its quality on one attribute is exactly
``1 - LM``; over several it aggregates before normalizing (``QualityMeasureColumnOriented``,
arithmetic mean): ``1 - (mean share - mean 1/M) / (1 - mean 1/M)``, which weighs small
domains less than the mean of the LMs does. A domain of one leaf loses nothing (LM 0;
ARX: undefined).

>>> import pandas as pd
>>> from verifier.tables.hierarchy import Hierarchy
>>> from verifier.utility.pair import align
>>> h = Hierarchy.from_rows([["21", "2*", "*"], ["22", "2*", "*"], ["35", "3*", "*"], ["36", "3*", "*"]])
>>> pair = align(pd.DataFrame({"age": ["21", "22", "35", "36"]}), pd.DataFrame({"age": ["2*", "2*", "35", "*"]}),
...              ["age"], hierarchies={"age": h})
>>> loss(pair)[0].raw     # (1/3 + 1/3 + 0 + 1) / 4
Fraction(5, 12)
"""

from __future__ import annotations

from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality, release_unmeasured
from verifier.utility.pair import Pair

__all__ = ["loss"]

SOURCE = "Iyengar 2002"


def loss(pair: Pair) -> tuple[Figure, ...]:
    """One figure per quasi-identifier, then the release's (only when every quasi-identifier was measured)."""
    figures, shares, minima = [], [], []
    for column, problem in zip(pair.columns, pair.problems, strict=True):
        if problem is not None:
            figures.append(Figure("loss", column.name, None, None, "share of the domain", f"not applicable: {problem}"))
            continue
        size = column.domain.size
        counts = [column.domain.leaf_count(cell) for cell in column.release]
        lm = Fraction(sum(c - 1 for c in counts), pair.rows * (size - 1)) if size > 1 else Fraction(0)
        share = Fraction(sum(counts), pair.rows * size)
        shares.append(share)
        minima.append(Fraction(1, size))
        figures.append(Figure("loss", column.name, lm, arx_quality(share, Fraction(1, size), Fraction(1)),
                              "share of the domain"))
    unmeasured = release_unmeasured("loss", figures, "share of the domain")
    if unmeasured is not None:
        return (*figures, unmeasured)
    applied = [f.raw for f in figures if f.raw is not None]
    total = sum(applied, Fraction(0)) / len(applied)
    mean_min = sum(minima, Fraction(0)) / len(minima)
    quality = arx_quality(sum(shares, Fraction(0)) / len(shares), mean_min, Fraction(1))
    return (*figures, Figure("loss", None, total, quality, "share of the domain"))
