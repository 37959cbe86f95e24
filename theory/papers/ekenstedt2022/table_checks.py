"""Checks of the appendix-table levels of Ekenstedt et al. 2022 (:mod:`theory.papers.ekenstedt2022.table_claims`).

Each table is built for every point of an exact grid of (N, k, μ, σ, α) satisfying the
claim's conditions and measured with :mod:`theory.tables.levels`. The printed form is refuted by
the first grid point where it differs from the measured level; the corrected form must
equal the measured level at every grid point. (A grid is evidence, not a proof: a caption
whose printed form matched everywhere would stay ``unknown``.)

References
----------
Ekenstedt et al. 2022, Appendix A-E, Tables III-VII.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from functools import partial

import sympy

from theory.claims.catalog import claim
from theory.claims.claim import CheckResult
from theory.definitions import N, eps, k
from theory.papers.check_steps import holds, ratio_value, result
from theory.papers.ekenstedt2022.table_claims import alpha, mu, sigma
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

__all__ = ["CHECKS", "caption_table"]

_MU = [Fraction(1, 10), Fraction(1, 4), Fraction(2, 5), Fraction(1, 2), Fraction(3, 5), Fraction(3, 4), Fraction(9, 10)]
_SHARE = [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(9, 10)]


def caption_table(table_id: str, values: Mapping[sympy.Symbol, Fraction | int]) -> ProbabilityTable:
    """The table of Ekenstedt et al. (2022)'s appendix with ``Pr(c_i = a_1)`` from its rows, a_2 the complement."""
    m, s, a = (Fraction(values.get(x, 0)) for x in (mu, sigma, alpha))
    n, size = int(values.get(N, 4)), int(values.get(k, 2))
    columns = {
        "ekenstedt2022:table3": ([m, m, s, 2 * m - s], [[0, 1], [2, 3]]),
        "ekenstedt2022:table4": ([Fraction(0)] * (size - 1) + [m] * (n - size + 1), None),
        "ekenstedt2022:table5": ([2 * m - s, s, 2 * m - s, s], [[0, 1], [2, 3]]),
        "ekenstedt2022:table6": ([m, 2 * m, m - s, s], None),
        "ekenstedt2022:table7": ([m] * (size - 1) + [m - a, a] + [Fraction(0)] * (n - size - 1), None),
    }
    column, classes = columns[table_id]
    return ProbabilityTable.from_rows([[p, 1 - p] for p in column], classes)


def _grid(table_id: str) -> Iterator[Mapping[sympy.Symbol, Fraction | int]]:
    for m in _MU:
        if table_id == "ekenstedt2022:table4":
            for n in range(3, 7):
                for size in range(2, n):
                    yield {mu: m, N: n, k: size}
        elif table_id == "ekenstedt2022:table7":
            for share in _SHARE[::2]:
                for n in range(4, 6):
                    for size in range(2, n - 1):
                        yield {mu: m, alpha: share * m, N: n, k: size}
        else:
            yield from ({mu: m, sigma: share * m} for share in _SHARE)


def _measured(table_id: str, table: ProbabilityTable, values: Mapping[sympy.Symbol, Fraction | int]) -> sympy.Expr:
    """The level the claim is about, in the claim's own units (t, or ε)."""
    if table_id in ("ekenstedt2022:table3", "ekenstedt2022:table6"):
        return sympy.log(ratio_value(levels.ldp_ratio(table)))
    if table_id == "ekenstedt2022:table7":
        return sympy.log(ratio_value(levels.dp_ratio(table)))
    return ratio_value(levels.kt_closeness_t(table, 2 if table_id == "ekenstedt2022:table5" else int(values[k])))


def _at(expr: sympy.Basic, exact: dict[sympy.Symbol, sympy.Expr]) -> sympy.Expr:
    """``expr`` at ``exact`` with x/0 = oo inside Max/Min (a ratio with a zero denominator)."""
    if isinstance(expr, (sympy.Max, sympy.Min)):
        parts = [_at(a, exact) for a in expr.args]
        infinite = [p for p in parts if p in (sympy.oo, sympy.zoo)]
        finite = [p for p in parts if p not in (sympy.oo, sympy.zoo)]
        if isinstance(expr, sympy.Max):
            return sympy.oo if infinite else sympy.Max(*finite)
        return sympy.Min(*finite) if finite else sympy.oo
    if not expr.args:
        return expr.subs(exact)
    value = expr.func(*(_at(a, exact) for a in expr.args))
    return sympy.oo if value is sympy.zoo else value


def _side(relation: sympy.Basic, values: Mapping[sympy.Symbol, Fraction | int]) -> sympy.Expr:
    """The claimed level at ``values``: solve ``Eq(level or exp(level), expr)`` for the level."""
    exact = {x: sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v for x, v in values.items()}
    value = _at(relation.rhs, exact)
    return sympy.log(value) if relation.lhs == sympy.exp(eps) else value


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    if sympy.oo in (a, b):
        return a == b
    return sympy.simplify(a - b) == 0


def _side_conditions(table_id: str, table: ProbabilityTable) -> bool:
    """The caption's other statement (a level that does not move with σ)."""
    if table_id in ("ekenstedt2022:table3", "ekenstedt2022:table5"):
        return levels.multiplicative_t(table) == 1
    if table_id == "ekenstedt2022:table6":
        return levels.kt_closeness_t(table, 2) == 2
    return True


def _check(table_id: str) -> CheckResult:
    item = claim(table_id)
    mismatch, points = None, 0
    for values in _grid(table_id):
        if not holds(item.conditions, values):
            continue
        table = caption_table(table_id, values)
        measured = _measured(table_id, table, values)
        points += 1
        if not _side_conditions(table_id, table) or not _same(measured, _side(item.effective, values)):
            return result("unknown", ["exact levels on a grid"],
                          f"corrected form differs at {values}: measured {measured}", table)
        if mismatch is None and not _same(measured, _side(item.printed, values)):
            mismatch = (values, table, measured)
    steps = [f"exact levels on a grid of {points} parameter points: the corrected form equals the measured level"]
    if mismatch is None:
        return result("unknown", steps, "printed form matched at every grid point; no symbolic proof")
    values, table, measured = mismatch
    shown = ", ".join(f"{x}={v}" for x, v in values.items())
    return result("corrected", steps, f"at {shown}: measured {measured}, printed {_side(item.printed, values)}", table)


CHECKS: dict[str, Callable[[], CheckResult]] = {
    table_id: partial(_check, table_id)
    for table_id in ("ekenstedt2022:table3", "ekenstedt2022:table4", "ekenstedt2022:table5", "ekenstedt2022:table6", "ekenstedt2022:table7")
}
