"""Checks of the mechanism claims of Ekenstedt et al. 2022, Sec. V (:mod:`theory.papers.ekenstedt2022.mechanism_claims`).

Each check derives the corrected form from the mechanism's matrix (sympy), confirms it
against the exact levels measured on per-record probability tables (:mod:`theory.tables.levels`,
an independent computation), and exhibits a table on which the printed form is wrong. The
derivations are in :mod:`theory.mechanism_selection.matrices` and :mod:`theory.mechanism_selection.utility`.

References
----------
Ekenstedt et al. 2022, Sec. V.A (eqs. (1)-(2)), Sec. V.B (eqs. (5)-(6)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import sympy

from theory.claims.claim import CheckResult
from theory.definitions import N
from theory.mechanism_selection.matrices import (
    EQ1_DERIVED,
    EQ1_PRINTED,
    EQ2_PRINTED,
    LDP_CHANGE,
    LDP_KEEP,
    TCLO_CHANGE,
    TCLO_KEEP,
    S_i,
    f_i,
    f_j,
    ldp_matrix,
    ldp_ratio_closed,
    n,
    p_ldp,
    p_t,
    tclo_matrix,
    tclo_t_closed,
    tclo_t_printed,
)
from theory.mechanism_selection.utility import (
    F2_DERIVED,
    F2_PRINTED,
    utility,
    utility_composed_closed,
    utility_composed_printed,
)
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

__all__ = ["CHECKS", "table_for"]


def table_for(matrix: sympy.Matrix, counts: Sequence[int], classes: Sequence[Sequence[int]] | None = None) -> ProbabilityTable:
    """The per-record table of a data set with ``counts[i]`` records of value ``a_i``.

    Records are numbered value by value; ``classes`` defaults to one class per value.
    """
    rows = [tuple(Fraction(str(entry)) for entry in matrix.row(i)) for i, count in enumerate(counts) for _ in range(count)]
    if classes is None:
        starts = [sum(counts[:i]) for i in range(len(counts))]
        classes = [range(start, start + count) for start, count in zip(starts, counts) if count]
    return ProbabilityTable.from_rows(rows, classes)


def _zero(expression: sympy.Expr) -> bool:
    return sympy.simplify(expression) == 0


def _check_eq1() -> CheckResult:
    ratio = sympy.exp(EQ1_DERIVED.rhs)
    if not _zero(LDP_KEEP / LDP_CHANGE - ratio):
        return CheckResult("unknown", None, ("sympy",), "derived eq. (1) does not match Fig. 4's column ratio")
    for values in range(2, 6):
        for keep in (Fraction(0), Fraction(1, 5), Fraction(1, 2), Fraction(9, 10)):
            measured = levels.ldp_ratio(table_for(ldp_matrix(values, keep), [1] * values))
            if sympy.Rational(measured) != ldp_ratio_closed(values, keep):
                return CheckResult("unknown", None, ("levels.ldp_ratio",), f"n={values}, p={keep}: measured {measured}")
    counterexample = table_for(ldp_matrix(2, Fraction(1, 2)), [1, 1])
    printed = sympy.exp(EQ1_PRINTED.rhs.subs({p_ldp: sympy.Rational(1, 2), N: 2}))
    return CheckResult(
        "corrected",
        counterexample,
        ("sympy: column ratio of Fig. 4", "exact: levels.ldp_ratio, n = 2..5, 4 values of p_LDP"),
        f"n = N = 2, p_LDP = 1/2: measured e^eps = {levels.ldp_ratio(counterexample)}, printed gives {printed}",
    )


def _check_eq2() -> CheckResult:
    derived = (
        _zero(TCLO_KEEP / f_i - (p_t / f_i + 1 - p_t))
        and _zero(f_j / TCLO_CHANGE - 1 / (1 - p_t))
        and _zero(EQ2_PRINTED.rhs.subs(S_i, 1 - f_i) - sympy.Max(f_i**2 / TCLO_KEEP, 1 / (1 - p_t)))
    )
    if not derived:
        return CheckResult("unknown", None, ("sympy",), "derived eq. (2) does not match Fig. 5's class ratios")
    k = 2
    for counts in ((2, 2), (2, 6), (3, 2, 5), (2, 2, 2, 2)):
        f = [Fraction(c, sum(counts)) for c in counts]
        for keep in (Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(4, 5)):
            measured = levels.kt_closeness_t(table_for(tclo_matrix(f, keep), counts), k)
            if sympy.Rational(measured) != tclo_t_closed(f, keep):
                return CheckResult("unknown", None, ("levels.kt_closeness_t",), f"f={f}, p_t={keep}: measured {measured}")
    f, keep = [Fraction(1, 4), Fraction(3, 4)], Fraction(1, 2)
    counterexample = table_for(tclo_matrix(f, keep), [2, 6])
    return CheckResult(
        "corrected",
        counterexample,
        ("sympy: class ratios of Fig. 5", "exact: levels.kt_closeness_t (k=2) on 16 tables", "exact: levels.multiplicative_t"),
        f"f = (1/4, 3/4), p_t = 1/2, classes {{a_1 x2}}, {{a_2 x6}}: measured t = "
        f"{levels.multiplicative_t(counterexample)}, printed gives {tclo_t_printed(f, keep)}",
    )


def _check_eq5() -> CheckResult:
    f = [Fraction(1, 10), Fraction(3, 10), Fraction(3, 5)]
    counts = [1, 3, 6]
    for keep in (Fraction(0), Fraction(1, 4), Fraction(2, 3)):
        matrix = ldp_matrix(len(f), keep)
        closed = sum(
            sympy.Max(max(g for j, g in enumerate(f) if j != i) * LDP_CHANGE, f[i] * LDP_KEEP).subs({p_ldp: keep, n: 3})
            for i in range(3)
        )
        if sympy.simplify(closed - utility(matrix, f)) != 0:
            return CheckResult("unknown", None, ("sympy",), f"eq. (5) with n differs from eq. (4) at p={keep}")
    keep = Fraction(1, 2)
    printed = sum(
        sympy.Max(max(g for j, g in enumerate(f) if j != i) * (1 - keep) / sum(counts), f[i] * (keep + (1 - keep) / sum(counts)))
        for i in range(3)
    )
    return CheckResult(
        "corrected",
        {"frequencies": [str(g) for g in f], "N": sum(counts), "p_LDP": str(keep)},
        ("exact: eq. (4) on Fig. 4's matrix",),
        f"N = 10 records, n = 3 values, p_LDP = 1/2: eq. (4) gives {utility(ldp_matrix(3, keep), f)}, "
        f"printed (with N) gives {printed}",
    )


def _check_eq6() -> CheckResult:
    f = [Fraction(1, 5), Fraction(3, 10), Fraction(1, 2)]
    for first, second in ((Fraction(1, 3), Fraction(2, 5)), (Fraction(0), Fraction(1)), (Fraction(1), Fraction(1, 2))):
        matrix = tclo_matrix(f, first) * ldp_matrix(3, second)
        if utility_composed_closed(f, first, second) != utility(matrix, f):
            return CheckResult("unknown", None, ("sympy",), f"corrected eq. (6) differs from eq. (4) at {first}, {second}")
    f = [Fraction(3, 4), Fraction(1, 4)]
    return CheckResult(
        "corrected",
        {"frequencies": ["3/4", "1/4"], "p_t": "1", "p_LDP": "1"},
        ("sympy: entries of the product matrix", "exact: eq. (4) on the product matrix"),
        f"no noise (p_t = p_LDP = 1), f = (3/4, 1/4): eq. (4) gives {utility(tclo_matrix(f, 1), f)}, printed eq. (6) "
        f"gives {utility_composed_printed(f, 1, 1)}; printed f_2 is short by "
        f"{sympy.factor(F2_DERIVED - F2_PRINTED)}",
    )


CHECKS: dict[str, Callable[[], CheckResult]] = {
    "ekenstedt2022:eq1": _check_eq1,
    "ekenstedt2022:eq2": _check_eq2,
    "ekenstedt2022:eq5": _check_eq5,
    "ekenstedt2022:eq6": _check_eq6,
}
