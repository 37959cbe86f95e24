"""Precision: how far up its hierarchy each cell is generalized (Sweeney 2002, Sec. 4, "Prec").

A released cell at height ``h`` of a hierarchy of height ``H`` costs ``h / H`` (a
suppressed cell ``1``). ``raw`` is the mean cost over the records (and, for the release,
over the quasi-identifiers); Sweeney's precision is ``1 - raw``. ARX
(``QualityModelColumnOrientedPrecision``, "generalization intensity": ``min = 0``,
``max = 1``) reports the same ``1 - raw`` as its quality, per attribute and for the mean.

>>> import pandas as pd
>>> from verifier.tables.hierarchy import Hierarchy
>>> from verifier.utility.pair import align
>>> h = Hierarchy.from_rows([["21", "2*", "*"], ["22", "2*", "*"], ["35", "3*", "*"], ["36", "3*", "*"]])
>>> pair = align(pd.DataFrame({"age": ["21", "22", "35", "36"]}), pd.DataFrame({"age": ["2*", "2*", "35", "*"]}),
...              ["age"], hierarchies={"age": h})
>>> precision(pair)[0].raw     # (1/2 + 1/2 + 0 + 1) / 4
Fraction(1, 2)
"""

from __future__ import annotations

from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality, release_unmeasured
from verifier.utility.pair import Pair

__all__ = ["precision"]

SOURCE = "Sweeney 2002"


def precision(pair: Pair) -> tuple[Figure, ...]:
    """One figure per quasi-identifier, then the release's (only when every quasi-identifier was measured)."""
    figures = []
    for column, problem in zip(pair.columns, pair.problems, strict=True):
        if problem is not None:
            figures.append(Figure("precision", column.name, None, None, "share of the height",
                                  f"not applicable: {problem}"))
            continue
        height = column.domain.height
        cost = Fraction(sum(column.domain.level(cell) for cell in column.release), pair.rows * height)
        figures.append(Figure("precision", column.name, cost, arx_quality(cost, Fraction(0), Fraction(1)),
                              "share of the height"))
    unmeasured = release_unmeasured("precision", figures, "share of the height")
    if unmeasured is not None:
        return (*figures, unmeasured)
    applied = [f.raw for f in figures if isinstance(f.raw, Fraction)]
    total = sum(applied, Fraction(0)) / len(applied)
    return (*figures, Figure("precision", None, total, arx_quality(total, Fraction(0), Fraction(1)),
                             "share of the height"))
