"""Non-uniform entropy: the information a generalized cell hides about its original value (Gionis & Tassa 2009, Sec. 3).

A record whose original value ``x`` is released as a node ``B`` (a set of leaves) loses
``-log2 Pr(X = x | X ∈ B) = log2(n(B) / n(x))`` bits, where ``n`` counts the original's
records (``n(B)``: those whose value lies under ``B``); a suppressed cell loses
``log2(N / n(x))``. ``raw`` is the sum over the records (and over the quasi-identifiers,
for the release), in bits.

ARX (``QualityModelColumnOrientedNonUniformEntropy``): ``min = 0``, ``max`` the sum for
the fully suppressed release, quality ``1 - raw / max``; over several attributes
``1 - sum(raw) / sum(max)``. ARX computes the same sum level by level for a release that
generalizes one attribute to several heights (local recoding), conditioning each step on
the records generalized at least that far; the two agree on full-domain generalization
and this module keeps the paper's per-record form. Logarithms: floats, ``exact`` is false.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"a": ["x", "x", "y", "z"]}), pd.DataFrame({"a": ["x", "*", "y", "*"]}), ["a"])
>>> [round(f.raw, 6) for f in non_uniform_entropy(pair)]     # log2(4/2) + log2(4/1)
[3.0, 3.0]
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality, release_unmeasured
from verifier.utility.pair import Column, Pair

__all__ = ["non_uniform_entropy", "log2"]

SOURCE = "Gionis & Tassa 2009"


def log2(value: Fraction | int) -> float:
    """``log2`` of a positive rational, accurate for integers of any size."""
    value = Fraction(value)
    return math.log2(value.numerator) - math.log2(value.denominator)


def _bits(column: Column) -> tuple[float, float]:
    """The column's loss and its loss when fully suppressed, in bits."""
    counts = Counter(column.original)
    under: dict[str | None, int] = {None: len(column.original)}
    pairs = Counter(zip(column.original, column.release, strict=True))
    loss = 0.0
    for (value, node), times in pairs.items():
        if node is not None and node not in under:
            under[node] = sum(n for leaf, n in counts.items() if column.domain.covers(node, leaf))
        loss += times * log2(Fraction(under[node], counts[value]))
    most = sum(n * log2(Fraction(len(column.original), n)) for n in counts.values())
    return loss, most


def non_uniform_entropy(pair: Pair) -> tuple[Figure, ...]:
    """One figure per quasi-identifier, then the release's (only when every quasi-identifier was measured)."""
    figures, losses, maxima = [], [], []
    for column, problem in zip(pair.columns, pair.problems, strict=True):
        if problem is not None:
            figures.append(Figure("non_uniform_entropy", column.name, None, None, "bits", f"not applicable: {problem}"))
            continue
        loss, most = _bits(column)
        losses.append(loss)
        maxima.append(most)
        figures.append(Figure("non_uniform_entropy", column.name, loss, arx_quality(loss, 0.0, most), "bits"))
    unmeasured = release_unmeasured("non_uniform_entropy", figures, "bits")
    if unmeasured is not None:
        return (*figures, unmeasured)
    return (*figures, Figure("non_uniform_entropy", None, sum(losses), arx_quality(sum(losses), 0.0, sum(maxima)),
                             "bits"))
