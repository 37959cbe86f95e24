"""Helpers for helper F's theory tests: random exact tables and the 000 Def. 4 set distance.

The per-definition brute-force levels live in tests/_theory_bruteforce.py (all subsets,
Fractions); this module adds the literal 000 Def. 4 distance (a maximum over every set S of
buckets, which 000 Prop. 2 reduces to single buckets), a comparison in theory.levels'
convention, and a hypothesis strategy for random tables.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import chain, combinations

import sympy
from _theory_bruteforce import multiplicative_level
from hypothesis import strategies as st

from theory.tables import ProbabilityTable


def same(level: object, brute: Fraction | float) -> bool:
    """theory.levels value (Fraction or sympy.oo) equals a brute-force value (Fraction or inf)."""
    return level is sympy.oo if brute == math.inf else level == brute


def set_distance_level(table: ProbabilityTable) -> Fraction | float:
    """Multiplicative t-closeness with 000 Def. 4 literally: every non-empty set S of buckets."""
    sets = list(chain.from_iterable(combinations(range(table.p), r) for r in range(1, table.p + 1)))
    merged = [[sum((row[l] for l in s), Fraction(0)) for s in sets] for row in table.probs]
    return multiplicative_level(merged, table.classes)


@st.composite
def tables(draw: st.DrawFn, min_n: int = 2, max_n: int = 6, max_p: int = 3, zeros: bool = True) -> ProbabilityTable:
    """Random exact tables: integer weights per row normalised, random class partition."""
    n = draw(st.integers(min_n, max_n))
    p = draw(st.integers(1, max_p))
    rows = []
    for _ in range(n):
        weights = draw(st.lists(st.integers(0 if zeros else 1, 5), min_size=p, max_size=p))
        if not any(weights):
            weights[0] = 1
        rows.append([Fraction(w, sum(weights)) for w in weights])
    labels = draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    return ProbabilityTable.from_rows(rows, list(groups.values()))
