"""Checks of the claims of Ekenstedt et al. 2022 (:mod:`theory.papers.ekenstedt2022.claims`), one function per claim.

Implications with a closed-form f are derived symbolically (:mod:`theory.papers.derivations`)
and confirmed with exact levels; identities between definitions are argued from the
definitions and confirmed on a seeded sample of tables; non-implications are confirmed by
re-measuring the witness families.

References
----------
Ekenstedt et al. 2022, Sec. IV and Appendix A-G.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy

from theory.claims.catalog import claim
from theory.claims.claim import CheckResult
from theory.papers.check_steps import (
    check_ldp_group_bound,
    check_witness,
    confirmed,
    exceeds,
    identity,
    le,
    ratio_value,
    result,
    spot_check,
)
from theory.papers.derivations import nonnegative
from theory.papers.domingoferrer2015.checks import set_distance_check
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

__all__ = ["CHECKS"]

SizedLevel = Callable[[ProbabilityTable, int], object]


def _sizes(table: ProbabilityTable) -> range:
    return range(1, table.n)


def _sized_le(
    lower: SizedLevel, upper: SizedLevel, when: Callable[[int, int, int], bool]
) -> Callable[[ProbabilityTable], bool]:
    """Predicate: ``lower(table, a) <= upper(table, b)`` for all sizes a, b in 1..N-1 with ``when(N, a, b)``."""
    return lambda table: all(
        le(lower(table, a), upper(table, b)) for a in _sizes(table) for b in _sizes(table) if when(table.n, a, b)
    )


def _singletons(table: ProbabilityTable) -> ProbabilityTable:
    return ProbabilityTable(table.probs, tuple((i,) for i in range(table.n)))


def _thm1_exception() -> CheckResult:
    t, mu = sympy.symbols("t mu", positive=True)
    failed = identity((t * mu) / (mu / t) - t**2, "tμ/(μ/t) = t^2")
    return failed or confirmed(
        "singleton classes: LDP ratio <= (multiplicative t)^2",
        "sympy: with singleton classes Def. 4 is (1,t)-closeness; tμ/(μ/t) = t^2",
        lambda table: le(levels.ldp_ratio(table), ratio_value(levels.multiplicative_t(_singletons(table))) ** 2),
        classes=False,
        derived=True,
    )


def _thm1_exception_kt() -> CheckResult:
    return confirmed(
        "singleton classes: (1,t)-closeness = multiplicative t",
        "definition: a class of one record averages that record's probabilities (Def. 4 = Def. 7 at k = 1)",
        lambda table: levels.kt_closeness_t(table, 1) == levels.multiplicative_t(_singletons(table)),
        classes=False,
    )


def _lemma2_1() -> CheckResult:
    x, avg, size = sympy.symbols("x A k", positive=True)
    failed = identity((size * avg + x) / (size + 1) - avg - (x - avg) / (size + 1), "the top-(k+1) average")
    return failed or confirmed(
        "(k_1,t) level <= (k_0,t) level for all k_0 <= k_1",
        "sympy: the top-(k+1) average is (k A + x)/(k+1) = A + (x - A)/(k+1) <= A for x <= A",
        _sized_le(levels.kt_closeness_t, levels.kt_closeness_t, lambda n, small, big: big <= small),
        derived=True,
    )


def _lemma2_3a() -> CheckResult:
    return confirmed(
        "multiplicative t <= (k_0,t) level for every k_0 <= smallest class",
        "definition: a class of size >= k_0 averages between the k_0 smallest and k_0 largest (Lemma 2(1))",
        lambda table: all(
            le(levels.multiplicative_t(table), levels.kt_closeness_t(table, a))
            for a in _sizes(table)
            if a <= levels.k_anonymity(table)
        ),
    )


def _n_minus_1_bound() -> tuple[list[str], bool, ProbabilityTable | None]:
    """The k = N-1 implication of :func:`_lemma2_3b`: steps, whether sympy certified the
    gap, and the first sample table that violates the bound (``None`` when none does).

    Removing record i leaves mass ``Nμ - p_i >= k_1 μ/t`` (the other classes), so with
    ``Nμ - p_i = k_1 μ/t + w`` (w >= 0) the gap to the bound is ``(N-1) t w/(k_1 (k_1 μ/t + w))``.
    """
    n, tt, kk, m, w = (sympy.Symbol(s, positive=True) for s in ("N", "t", "k", "mu", "w"))
    gap = (n - 1) * tt / kk - (n - 1) * m / (kk * m / tt + w)
    certified = nonnegative(gap, {n: 1 + sympy.Symbol("a", nonnegative=True)})

    def bounded(table: ProbabilityTable) -> bool:
        level = ratio_value(levels.multiplicative_t(table))
        bound = sympy.Max((table.n - 1) * level / levels.k_anonymity(table), sympy.Rational(table.n, table.n - 1))
        return le(levels.kt_closeness_t(table, table.n - 1), bound)

    spot, failure = spot_check(bounded, "(N-1)-closeness level <= max((N-1)t/k_1, N/(N-1))", min_n=3)
    steps = [
        "sympy: Pr_D/Pr_{D-i} = (N-1)μ/(Nμ - p_i) and Nμ - p_i >= k_1 μ/t give a gap (N-1)t w/(k_1(k_1μ/t + w)) "
        + ("certified >= 0" if certified else "NOT certified"),
        "argument: Pr_{D-i}/Pr_D = (Nμ - p_i)/((N-1)μ) <= N/(N-1)",
        spot,
    ]
    return steps, certified, failure


def _lemma2_3b() -> CheckResult:
    below = check_witness(claim("ekenstedt2022:lemma2_3b"), {"k_conclusion": 2})
    steps, certified, failure = _n_minus_1_bound()
    if failure is not None or below.status != "proven" or not certified:
        return result("unknown", [*below.checked_by, *steps], f"{below.detail}; {steps[-1]}", failure)
    return result(
        "corrected",
        [*below.checked_by, *steps],
        "printed for every k; holds for k <= N-2 (witness: " + below.detail + "); fails at k = N-1",
        {"k": "N-1", "implication": "ekenstedt2022:lemma2_3c: multiplicative t-closeness (smallest class k_1) => "
         "(N-1, max((N-1)t/k_1, N/(N-1)))-closeness"},
    )


def _thm5() -> CheckResult:
    """Printed for every k_DP; vacuous for k_DP >= N - k_0, witnessed (carrier classes) for k_DP < N - k_0."""
    from theory.tables.witnesses import ImplicationHolds, witness

    inside = check_witness(claim("ekenstedt2022:thm5"), {"N": 4, "k_premise": 1, "k_conclusion": 2, "classwise": 1})
    try:
        witness("multiplicative_t_closeness", "k_eps_dp", 3,
                params={"N": 3, "k_premise": 1, "k_conclusion": 2, "classwise": 1})
    except ImplicationHolds as error:
        vacuous = str(error)
    else:
        return result("unknown", inside.checked_by, "no vacuous corner found at N = 3, k_0 = 1, k_DP = 2")
    if inside.status != "proven":
        return inside
    return result(
        "corrected",
        [*inside.checked_by, "symbolic: with smallest class k_0 every class holds at most N - k_0 records"],
        f"printed for every k_DP; holds for k_DP < N - k_0 ({inside.detail}); fails for k_DP >= N - k_0: {vacuous}",
        {"N": 3, "k_0": 1, "k_DP": 2, "implication": "class-wise (k_DP,ε)-DP is 1 for every table (no class holds "
         "more than k_DP records)"},
    )


def _lemma2_3c() -> CheckResult:
    steps, certified, failure = _n_minus_1_bound()
    if failure is not None or not certified:
        return result("unknown", steps, steps[-1], failure)
    return result("proven", steps, "multiplicative t-closeness bounds (N-1)-closeness")


def _thm2a() -> CheckResult:
    return confirmed(
        "LDP ratio <= ((1,t) level)^2",
        "sympy: μ/t <= Pr(Z(c_i)) <= tμ gives Pr_i/Pr_j <= tμ/(μ/t) = t^2",
        lambda table: le(levels.ldp_ratio(table), ratio_value(levels.kt_closeness_t(table, 1)) ** 2),
        classes=False,
    )


def _lemma3_1() -> CheckResult:
    return confirmed(
        "(k_1,ε)-DP ratio <= (k_0,ε)-DP ratio for k_1 <= k_0",
        "argument: (k,ε)-DP is (N-k, e^ε)-closeness (Theorem 4(1)); Lemma 2(1)",
        _sized_le(levels.k_eps_dp_ratio, levels.k_eps_dp_ratio, lambda n, small, big: small <= big),
        classes=False,
    )


def _lemma3_3() -> CheckResult:
    return confirmed(
        "ε-DP ratio == (1,ε)-DP ratio",
        "definition: Def. 8 with k = 1 is Def. 5",
        lambda table: levels.dp_ratio(table) == levels.k_eps_dp_ratio(table, 1),
        classes=False,
    )


def _lemma3_4a() -> CheckResult:
    return confirmed(
        "ε-DP ratio <= (k,ε)-DP ratio for every k",
        "argument: Lemma 3(1) with k_1 = 1 and Lemma 3(3)",
        lambda table: all(le(levels.dp_ratio(table), levels.k_eps_dp_ratio(table, a)) for a in _sizes(table)),
        classes=False,
    )


def _thm4_1() -> CheckResult:
    t = sympy.Symbol("t", positive=True)
    e = sympy.Symbol("e", nonnegative=True)
    failed = identity(sympy.exp(sympy.log(t)) - t, "g(f(t)) = t") or identity(sympy.log(sympy.exp(e)) - e, "f(g(ε)) = ε")
    return failed or confirmed(
        "(N-k,ε)-DP ratio == (k,t) level for every k",
        "definition: {D \\ K : |K| = N-k} is the family of k-subsets; f = ln t, g = e^ε, f∘g = g∘f = id",
        lambda table: all(
            levels.k_eps_dp_ratio(table, table.n - a) == levels.kt_closeness_t(table, a) for a in _sizes(table)
        ),
        classes=False,
        derived=True,
    )


def _thm4_2a() -> CheckResult:
    table = ProbabilityTable.from_rows([[0, 1]] + [["1/2", "1/2"]] * 3)
    closeness, dp = levels.kt_closeness_t(table, 2), levels.k_eps_dp_ratio(table, 3)
    if not exceeds(dp, sympy.Integer(10**6)) or closeness is sympy.oo:
        return result("unknown", ["exact levels"], f"expected (2,t) finite and (3,ε)-DP infinite, found {closeness}, {dp}")
    return result(
        "refuted",
        ["exact levels: N=4, k_t=2, k_DP=3 > N-k_t"],
        f"(2,t)-closeness at t = {closeness} but (3,ε)-DP ratio {dp} (no f(t) bounds it)",
        table,
    )


def _thm4_2b() -> CheckResult:
    spot, failure = spot_check(
        _sized_le(levels.kt_closeness_t, levels.k_eps_dp_ratio, lambda n, k_t, k_dp: k_dp > n - k_t),
        "(k_t,t) level <= (k_DP,ε)-DP ratio whenever k_DP > N - k_t",
        classes=False,
    )
    if failure is not None:
        return result("unknown", [spot], "the implication DP => closeness failed on a sample table", failure)
    return result(
        "refuted",
        ["argument: Theorem 4(1) then Lemma 2(1) (N - k_DP < k_t)", spot],
        "the implication exists: (k_DP,ε)-DP => (k_t, e^ε)-closeness for k_DP > N - k_t",
        {"implication": "(k_DP, eps)-DP => (k_t, exp(eps))-closeness", "via": ["ekenstedt2022:thm4_1", "ekenstedt2022:lemma2_1"]},
    )


def _thm4_3a() -> CheckResult:
    return confirmed(
        "(k_DP,ε)-DP ratio <= (k_t,t) level whenever k_DP < N - k_t",
        "argument: Lemma 2(1) to size N - k_DP > k_t, then Theorem 4(1)",
        _sized_le(levels.k_eps_dp_ratio, levels.kt_closeness_t, lambda n, k_dp, k_t: k_dp < n - k_t),
        classes=False,
    )


def _definitional(line: str) -> Callable[[], CheckResult]:
    return lambda: result("proven", [f"definition: {line}"], line)


def _k_anonymity() -> CheckResult:
    return confirmed(
        "k-anonymity level == smallest class size",
        "definition: Ekenstedt et al. 2022, Def. 4 requires min |E_i| = k",
        lambda table: levels.k_anonymity(table) == min(len(c) for c in table.classes),
    )


def _witness(claim_id: str, **params: int) -> Callable[[], CheckResult]:
    return lambda: check_witness(claim(claim_id), params)


CHECKS: dict[str, Callable[[], CheckResult]] = {
    "ekenstedt2022:lemma1": lambda: check_ldp_group_bound(claim("ekenstedt2022:lemma1")),
    "ekenstedt2022:thm1": _witness("ekenstedt2022:thm1"),
    "ekenstedt2022:thm1_exception": _thm1_exception,
    "ekenstedt2022:thm1_exception_kt": _thm1_exception_kt,
    "ekenstedt2022:lemma2_1": _lemma2_1,
    "ekenstedt2022:lemma2_2": _witness("ekenstedt2022:lemma2_2", k_premise=3, k_conclusion=2),
    "ekenstedt2022:lemma2_3a": _lemma2_3a,
    "ekenstedt2022:lemma2_3b": _lemma2_3b,
    "ekenstedt2022:lemma2_3c": _lemma2_3c,
    "ekenstedt2022:lemma2_4": _definitional("the inequalities of Def. 7 widen as t grows (Def. 1)"),
    "ekenstedt2022:thm2a": _thm2a,
    "ekenstedt2022:thm2b": lambda: check_ldp_group_bound(claim("ekenstedt2022:thm2b")),
    "ekenstedt2022:thm3a": lambda: check_ldp_group_bound(claim("ekenstedt2022:thm3a")),
    "ekenstedt2022:thm3b": _witness("ekenstedt2022:thm3b", k=2),
    "ekenstedt2022:lemma3_1": _lemma3_1,
    "ekenstedt2022:lemma3_2": _witness("ekenstedt2022:lemma3_2", k_premise=1, k_conclusion=2),
    "ekenstedt2022:lemma3_3": _lemma3_3,
    "ekenstedt2022:lemma3_4a": _lemma3_4a,
    "ekenstedt2022:lemma3_4b": _witness("ekenstedt2022:lemma3_4b", k=2),
    "ekenstedt2022:lemma3_5": _definitional("the inequalities of Def. 8 widen as ε grows (Def. 1)"),
    "ekenstedt2022:thm4_1": _thm4_1,
    "ekenstedt2022:thm4_2": _witness("ekenstedt2022:thm4_2", N=4, k_t=2, k_DP=3),
    "ekenstedt2022:thm4_2a": _thm4_2a,
    "ekenstedt2022:thm4_2b": _thm4_2b,
    "ekenstedt2022:thm4_3a": _thm4_3a,
    "ekenstedt2022:thm4_3b": _witness("ekenstedt2022:thm4_3b", k_DP=1, k_t=2),
    "ekenstedt2022:thm5": _thm5,
    "ekenstedt2022:sec3b_equivalence": lambda: set_distance_check("ekenstedt2022:sec3b_equivalence"),
    "ekenstedt2022:def4_k_anonymity": _k_anonymity,
}
