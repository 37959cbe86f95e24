"""Brute-force exact levels and random tables for the theory tests, independent of theory.tables.levels.

Every level enumerates all subsets / pairs / classes with Fractions, straight from the
definitions of Ekenstedt et al. 2022 (Defs. 4-8), with the Domingo-Ferrer & Soria-Comas 2015, Def. 4 conventions: a bucket no record can
reach is ignored; x/0 with x > 0 is infinite. Returns ``math.inf`` for infinite levels.
:func:`set_distance_level` is the literal Domingo-Ferrer & Soria-Comas 2015, Def. 4 distance (a maximum over every set S of
buckets, which Domingo-Ferrer & Soria-Comas 2015, Prop. 2 reduces to single buckets); :func:`same` compares with
theory.tables.levels' convention; :func:`tables` is a hypothesis strategy for random tables.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from itertools import chain, combinations

import sympy
from hypothesis import strategies as st

from theory.tables.probability_table import ProbabilityTable

Rows = Sequence[Sequence[Fraction]]
INF = math.inf


def _mean(rows: Rows, members: Sequence[int], bucket: int) -> Fraction:
    return sum((Fraction(rows[i][bucket]) for i in members), Fraction(0)) / len(members)


def _two_way(whole: Fraction, part: Fraction) -> Fraction | float:
    if part == 0:
        return INF
    return max(whole / part, part / whole)


def group_level(rows: Rows, groups: Sequence[Sequence[int]]) -> Fraction | float:
    """max over groups and buckets of max(Pr_D/Pr_G, Pr_G/Pr_D) (at least 1)."""
    everyone = range(len(rows))
    worst: Fraction | float = Fraction(1)
    for bucket in range(len(rows[0])):
        whole = _mean(rows, everyone, bucket)
        if whole == 0:
            continue
        for group in groups:
            worst = max(worst, _two_way(whole, _mean(rows, group, bucket)))
    return worst


def kt_level(rows: Rows, size: int) -> Fraction | float:
    """(k,t)-closeness, Ekenstedt et al. 2022, Def. 7: every subset of ``size`` records."""
    return group_level(rows, list(combinations(range(len(rows)), size)))


def multiplicative_level(rows: Rows, classes: Sequence[Sequence[int]]) -> Fraction | float:
    """Multiplicative t-closeness, Ekenstedt et al. 2022, Def. 4, over the given classes."""
    return group_level(rows, classes)


def k_eps_dp_ratio(rows: Rows, size: int) -> Fraction | float:
    """(k,ε)-DP, Ekenstedt et al. 2022, Def. 8, Q = record distribution: every removal of ``size`` records; e^ε."""
    everyone = range(len(rows))
    rest = [[i for i in everyone if i not in removed] for removed in combinations(everyone, size)]
    return group_level(rows, rest)


def ldp_ratio(rows: Rows) -> Fraction | float:
    """ε-LDP, Ekenstedt et al. 2022, Def. 6: max over buckets and ordered pairs of records; e^ε."""
    worst: Fraction | float = Fraction(1)
    for bucket in range(len(rows[0])):
        for a in rows:
            for b in rows:
                x, y = Fraction(a[bucket]), Fraction(b[bucket])
                if x > 0:
                    worst = max(worst, INF if y == 0 else x / y)
    return worst


def ordered_emd(cluster: Sequence[int], n: int) -> Fraction:
    """EMD (ordered distance) between a cluster of distinct ranks in 1..n and all n ranks,
    as a minimum-cost flow on the line: the mass crossing each gap r|r+1 times 1/(n-1)."""
    inside = set(cluster)
    carried, cost = Fraction(0), Fraction(0)
    for rank in range(1, n):
        carried += (Fraction(1, len(cluster)) if rank in inside else 0) - Fraction(1, n)
        cost += abs(carried)
    return cost / (n - 1)


def same(level: object, brute: Fraction | float) -> bool:
    """theory.tables.levels value (Fraction or sympy.oo) equals a brute-force value (Fraction or inf)."""
    return level is sympy.oo if brute == math.inf else level == brute


def set_distance_level(table: ProbabilityTable) -> Fraction | float:
    """Multiplicative t-closeness with Domingo-Ferrer & Soria-Comas 2015, Def. 4 literally: every non-empty set S of buckets."""
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
