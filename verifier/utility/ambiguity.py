"""Ambiguity: how many original tuples each released record could stand for (Nergiz & Clifton 2007, Sec. 5.1).

A released record whose cells are nodes with ``c_1, ..., c_m`` leaves under them could be
any of ``c_1 ⋯ c_m`` tuples of the domain; ``raw`` is the mean of these products over the
records (a suppressed cell counts its whole domain). It needs every quasi-identifier
generalized (not perturbed).

ARX (``QualityModelRowOrientedAmbiguity``): the sum instead of the mean, ``min = N``
(every record its own original), ``max = N · M_1 ⋯ M_m``. Exact.

>>> import pandas as pd
>>> from verifier.utility.pair import align
>>> pair = align(pd.DataFrame({"a": ["x", "y", "z", "w"]}), pd.DataFrame({"a": ["x", "x", "y", "*"]}), ["a"])
>>> ambiguity(pair)[0].note.startswith("not applicable")   # y released as x: not a generalization
True
"""

from __future__ import annotations

import math
from fractions import Fraction

from verifier.utility.figure import Figure, arx_quality
from verifier.utility.pair import Pair

__all__ = ["ambiguity"]

SOURCE = "Nergiz & Clifton 2007"


def ambiguity(pair: Pair) -> tuple[Figure]:
    """The release's mean ambiguity."""
    problem = pair.generalization_problem
    if problem is not None:
        return (Figure("ambiguity", None, None, None, "tuples", f"not applicable: {problem}"),)
    n = pair.rows
    total = sum(math.prod(column.domain.leaf_count(column.release[i]) for column in pair.columns) for i in range(n))
    most = n * math.prod(column.domain.size for column in pair.columns)
    return (Figure("ambiguity", None, Fraction(total, n), arx_quality(Fraction(total), Fraction(n), Fraction(most)),
                   "tuples"),)
