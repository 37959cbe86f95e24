"""Checks of the claims of Domingo-Ferrer & Soria-Comas 2015 (:mod:`theory.papers.domingoferrer2015.claims`), one function per claim.

References
----------
Domingo-Ferrer & Soria-Comas 2015, Secs. 3-6.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations, product
from math import ceil, floor

import sympy

from theory.claims.catalog import claim
from theory.claims.claim import CheckResult
from theory.definitions import N, eps, k, t
from theory.papers.check_steps import check_ldp_group_bound, confirmed, exceeds, identity, le, ratio_value, result
from theory.papers.domingoferrer2015.claims import b, l
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

__all__ = ["CHECKS", "set_distance", "point_distance", "set_distance_check", "emphasis_table"]


def _quotient(a: Fraction, c: Fraction) -> Fraction | sympy.Expr:
    """Domingo-Ferrer & Soria-Comas 2015, Def. 4's quotient: 0 when both are zero, infinite when only the denominator is."""
    if c == 0:
        return Fraction(0) if a == 0 else sympy.oo
    return a / c


def _distance(p: Sequence[Fraction], q: Sequence[Fraction], sets: list[tuple[int, ...]]) -> object:
    worst = Fraction(0)
    for s in sets:
        a, c = sum((p[i] for i in s), Fraction(0)), sum((q[i] for i in s), Fraction(0))
        for value in (_quotient(a, c), _quotient(c, a)):
            if value is sympy.oo:
                return sympy.oo
            worst = max(worst, value)
    return worst


def set_distance(p: Sequence[Fraction], q: Sequence[Fraction]) -> object:
    """Domingo-Ferrer & Soria-Comas 2015, Def. 4: the max over every non-empty set S of buckets of both quotients."""
    sets = [s for r in range(1, len(p) + 1) for s in combinations(range(len(p)), r)]
    return _distance(p, q, sets)


def point_distance(p: Sequence[Fraction], q: Sequence[Fraction]) -> object:
    """Domingo-Ferrer & Soria-Comas 2015, Prop. 2: the same max over single buckets."""
    return _distance(p, q, [(i,) for i in range(len(p))])


def _class_distributions(table: ProbabilityTable) -> list[tuple[list[Fraction], list[Fraction]]]:
    whole = [sum(table.column(j), Fraction(0)) / table.n for j in range(table.p)]
    return [
        ([sum((table.probs[i][j] for i in group), Fraction(0)) / len(group) for j in range(table.p)], whole)
        for group in table.classes
    ]


def set_distance_check(claim_id: str) -> CheckResult:
    """Props. 2 / Sec. III.B: the Def. 4 distance over all sets equals the max over buckets."""
    a, c, x, y = sympy.symbols("a c x y", positive=True)
    # Mediant: (a + x)/(c + y) <= max(a/c, x/y); with a/c >= x/y the gap is (a y - c x)/(c (c + y)) >= 0.
    failed = identity(a / c - (a + x) / (c + y) - (a * y - c * x) / (c * (c + y)), f"{claim_id}: the mediant identity")
    return failed or confirmed(
        "max over all bucket sets == max over single buckets (every class)",
        "sympy: mediant inequality (a+x)/(c+y) <= max(a/c, x/y)",
        lambda table: all(set_distance(p, q) == point_distance(p, q) for p, q in _class_distributions(table)),
        max_p=4,
        derived=True,
    )


def _prop1_dp() -> CheckResult:
    table = ProbabilityTable.from_rows([[0, 1], [0, 1], ["1/2", "1/2"], ["1/2", "1/2"]], [[0, 1], [2, 3]])
    dp, closeness = levels.dp_ratio(table), levels.stochastic_t(table)
    printed = claim("domingoferrer2015:prop1_dp").printed.rhs.subs({N: 4, k: 2})
    bound = printed.subs(sympy.exp(eps), ratio_value(dp))
    if dp is sympy.oo or not exceeds(closeness, bound):
        return result("unknown", ["exact levels"], f"expected finite DP and t above the bound, found {dp}, {closeness}")
    return result(
        "refuted",
        ["exact levels: a class of two records that never reach bucket 0"],
        f"ε-DP (Def. 5) at e^ε = {dp} but stochastic t = {closeness} > printed {bound}",
        table,
    )


def _prop3() -> CheckResult:
    return confirmed(
        "class-wise views: LDP ratio <= t^2",
        "sympy: two views within t of the table's distribution differ by at most t·t = t^2",
        lambda table: le(levels.ldp_ratio(table), ratio_value(levels.stochastic_t(table)) ** 2),
        constant_classes=True,
    )


def _bucket_size() -> CheckResult:
    solutions = sympy.solve(sympy.Eq(t * b / N + (1 - b / N) / t, 1), b)
    if [sympy.simplify(s - N / (t + 1)) for s in solutions] != [0]:
        return result("refuted", ["sympy: solve"], f"solutions {solutions}", {"solutions": [str(s) for s in solutions]})
    return result("proven", ["sympy: solve t b/N + (1 - b/N)/t = 1 for b"], "b = N/(t+1) is the only solution")


def emphasis_table(counts: Sequence[Sequence[int]]) -> ProbabilityTable:
    """A deterministic table: class m holds ``counts[m][j]`` records whose value is in bucket j."""
    width = len(counts[0])
    rows, classes, start = [], [], 0
    for composition in counts:
        for j, c in enumerate(composition):
            rows += [[1 if i == j else 0 for i in range(width)]] * c
        classes.append(list(range(start, start + sum(composition))))
        start += sum(composition)
    return ProbabilityTable.from_rows(rows, classes)


def _table1() -> CheckResult:
    big, small = t / (t + 1), 1 / (t * (t + 1))
    sums = sympy.simplify(big + t * small - 1)
    ratios = (sympy.simplify(big / (1 / (t + 1))), sympy.simplify((1 / (t + 1)) / small))
    concrete = levels.multiplicative_t(emphasis_table([[4, 1, 1], [1, 4, 1], [1, 1, 4]]))
    if sums != 0 or ratios != (t, t) or concrete != 2:
        return result("refuted", ["sympy"], f"row sum - 1 = {sums}, ratios {ratios}, t=2 table level {concrete}")
    return result(
        "proven",
        ["sympy: rows sum to 1; quotients t/(t+1) : 1/(t+1) and 1/(t+1) : 1/(t(t+1)) are both t",
         "exact levels: the t = 2 table (classes of 6 records, 4/1/1) has multiplicative t = 2"],
        "every class of Table 1 is at distance exactly t",
    )


def _k_lower() -> CheckResult:
    gap = N / ((t + 1) * l) - (t + 1) - (t + 1) / l * (N / (t + 1) ** 2 - l)
    missing = levels.multiplicative_t(emphasis_table([[1, 1, 0], [1, 1, 2]]))
    if missing is not sympy.oo or sympy.simplify(gap) != 0:
        return result("unknown", ["exact levels", "sympy"], f"class without bucket 3: {missing}; gap {gap}")
    return result(
        "proven",
        ["argument: a class missing a bucket is at infinite distance, so each of its k records covers "
         "t+1 buckets: k >= t+1",
         "sympy: N/((t+1) l) - (t+1) = ((t+1)/l) (N/(t+1)^2 - l), so k >= t+1 <=> l <= N/(t+1)^2",
         "exact levels: a class without one of the buckets has multiplicative t = oo"],
        "k >= t+1 and l <= N/(t+1)^2",
    )


def _class_sizes() -> CheckResult:
    checked = 0
    for records in range(1, 41):
        for level in range(1, 5):
            for emphasis in range(1, records // (level + 1) ** 2 + 1):
                classes = (level + 1) * emphasis
                sizes = [ceil(Fraction(i * records, classes)) - ceil(Fraction((i - 1) * records, classes))
                         for i in range(1, classes + 1)]
                if sum(sizes) != records or max(sizes) - min(sizes) > 1:
                    return result("refuted", ["exhaustive"], "sizes do not partition N", {"N": records, "sizes": sizes})
                checked += 1
    return result(
        "proven",
        ["argument: the sum telescopes to ceil((t+1) l N/((t+1) l)) - ceil(0) = N; consecutive ceilings of "
         "multiples of N/((t+1)l) differ by floor or ceil of it",
         f"exhaustive: {checked} settings N <= 40, t <= 4, every admissible l"],
        "the class sizes add up to N and differ by at most one",
    )


def _within(composition: Sequence[int], weights: Sequence[Fraction], level: int) -> bool:
    size = sum(composition)
    return all(c > 0 and Fraction(c, size) <= level * w and w <= level * Fraction(c, size)
               for c, w in zip(composition, weights))


def _counts() -> CheckResult:
    table = emphasis_table([[5, 1, 1], [1, 5, 1], [1, 1, 5]])
    measured = levels.multiplicative_t(table)
    if not exceeds(measured, sympy.Integer(2)):
        return result("unknown", ["exact levels"], f"expected t > 2, found {measured}")
    checked = 0
    for level in (2, 3):
        weights = [Fraction(1, level + 1)] * (level + 1)
        for size in range(1, 13):
            for composition in product(range(size + 1), repeat=level + 1):
                if sum(composition) != size:
                    continue
                corrected = all(floor(size * w * level) >= c >= ceil(size * w / level) for c, w in zip(composition, weights))
                if corrected != _within(composition, weights, level):
                    return result("unknown", ["exhaustive"], f"corrected rule disagrees at {composition}")
                checked += 1
    return result(
        "corrected",
        ["exact levels: classes (5,1,1),(1,5,1),(1,1,5) of 7, e p t = 14/3, ceil = 5 records of B_i",
         f"exhaustive: corrected counts <=> distance <= t on {checked} class compositions (t = 2, 3; e <= 12)"],
        f"printed ceil(e p t) gives multiplicative t = {measured} > 2; corrected to floor(e p t) / ceil(e p / t)",
        table,
    )


def _bucket_counts() -> CheckResult:
    printed = claim("domingoferrer2015:sec63_bucket_sizes").printed
    failing = next(
        ((n, m) for n in range(2, 30) for m in range(2, n) if printed.subs({N: n, b: m}) is sympy.false), None
    )
    corrected = claim("domingoferrer2015:sec63_bucket_sizes").effective
    holds = all(corrected.subs({N: n, b: m}) is sympy.true for n in range(2, 25) for m in range(1, n + 1))
    if failing is None or not holds:
        return result("unknown", ["exhaustive"], f"printed failing at {failing}, corrected holds {holds}")
    n, m = failing
    return result(
        "corrected",
        ["exhaustive: first failure of the printed count, N < 30; the corrected count (the division identity "
         "N = b floor(N/b) + N mod b) on every N < 25, b <= N"],
        f"N = {n}, b = {m}: {m} buckets of at least ceil({n}/{m}) = {ceil(Fraction(n, m))} values exceed N",
        {"N": n, "b": m, "printed_total": str(m * ceil(Fraction(n, m)) + n % m)},
    )


def _proportions() -> CheckResult:
    q = sympy.Symbol("q", positive=True)
    upper, lower = (q * b).subs(q, t / b), (1 / (q * b)).subs(q, 1 / (t * b))
    if sympy.simplify(upper - t) != 0 or sympy.simplify(lower - t) != 0:
        return result("refuted", ["sympy"], "the extreme proportions do not attain t")
    return result(
        "proven",
        ["sympy: q b <= t and 1/(q b) <= t <=> 1/(t b) <= q <= t/b; equality at the ends"],
        "Def. 4 against a uniform 1/b is exactly the proportion window",
    )


CHECKS: dict[str, Callable[[], CheckResult]] = {
    "domingoferrer2015:prop1": lambda: check_ldp_group_bound(claim("domingoferrer2015:prop1")),
    "domingoferrer2015:prop1_dp": _prop1_dp,
    "domingoferrer2015:prop2": lambda: set_distance_check("domingoferrer2015:prop2"),
    "domingoferrer2015:prop3": _prop3,
    "domingoferrer2015:sec61_bucket_size": _bucket_size,
    "domingoferrer2015:table1": _table1,
    "domingoferrer2015:sec62_k_lower": _k_lower,
    "domingoferrer2015:sec62_class_sizes": _class_sizes,
    "domingoferrer2015:sec62_counts": _counts,
    "domingoferrer2015:sec63_bucket_sizes": _bucket_counts,
    "domingoferrer2015:sec63_proportions": _proportions,
}
