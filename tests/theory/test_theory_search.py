"""Z3 counterexample search (theory.search.refute).

Every ``sat`` table is re-measured here with the all-subsets brute force of
tests/_theory_bruteforce.py (independent of theory.tables.levels, which search itself uses).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy

from _theory_bruteforce import k_eps_dp_ratio, kt_level, ldp_ratio, multiplicative_level
from theory.claims.claim import Claim
from theory.definitions import N, eps, k, k_dp, k_t, t
from theory.search.refute import refute_claim, search_claim
from theory.search.solver import EncodingError, ratio_bound, search
from theory.tables.probability_table import ProbabilityTable
from verifier.references import Source

PRINTED_THM3 = k / N * (1 + (N - k - 1) / k * sympy.exp(eps))
"""Ekenstedt et al. 2022, Thm. 3 as printed."""
CORRECTED_THM3 = (k + (N - k) * sympy.exp(eps)) / N
"""Derived: LDP confines every record to [m, Tm]; K at m and the rest at Tm maximise
Pr_D/Pr_K = (k + (N-k)T)/N, which exceeds the other direction NT/(kT + N - k) by
k(N-k)(T-1)^2 >= 0 after cross-multiplying (tests/theory/test_theory_levels.py checks tightness)."""


def _brute_ratio(value: Fraction | float, bound: Fraction) -> bool:
    return value == math.inf or value > bound


def _thm3_claim(printed: sympy.Basic, corrected: sympy.Basic | None) -> Claim:
    return Claim(
        "test_thm3",
        Source("Ekenstedt et al. 2022", "IV.A", "Theorem 3"),
        "implication",
        "ldp",
        "kt_closeness",
        sympy.Eq(t, printed),
        (sympy.Gt(k, 1), sympy.Lt(k, N)),
        None if corrected is None else sympy.Eq(t, corrected),
    )


def test_ratio_bound_translates_to_ratio_space() -> None:
    # T = e^ε becomes A; the conclusion's t stays t.
    assert ratio_bound("ldp", "kt_closeness", PRINTED_THM3, {"N": 5, "k": 2}) == sympy.Rational(2, 5) + sympy.Rational(2, 5) * sympy.Symbol("A", positive=True)
    # ε = ln(t^2) as a conclusion ε becomes e^ε = t^2 = A^2 (Ekenstedt et al. 2022, Thm. 2, first item).
    assert ratio_bound("kt_closeness", "ldp", sympy.log(t**2), {"N": 3}) == sympy.Symbol("A", positive=True) ** 2
    with pytest.raises(EncodingError, match=r"symbols \['k'\] with no value"):
        ratio_bound("ldp", "kt_closeness", CORRECTED_THM3, {"N": 5})
    with pytest.raises(EncodingError, match="cannot translate"):
        search("ldp", "kt_closeness", sympy.sqrt(sympy.exp(eps)), n=3, params={"k": 1})


@pytest.mark.parametrize("n", [3, 4, 5])
def test_thm3_printed_bound_has_counterexamples(n: int) -> None:
    """Z3 finds a table for every k with 1 < k < N; the brute force confirms each one. With
    e^ε >= 2 imposed the printed bound is >= 1 for N >= 4, so the counterexamples are not the
    trivial ones where the printed t is below 1."""
    for size in range(2, n):
        found = search("ldp", "kt_closeness", PRINTED_THM3, n=n, params={"k": size}, timeout_s=10,
                       premise_conditions=[sympy.Ge(eps, sympy.log(2))])
        assert found.status == "sat", found.detail
        table, a = found.table, found.premise_level
        assert a is not None and a >= 2
        assert ldp_ratio(table.probs) <= a
        printed = Fraction(size + (n - size - 1) * a, n)
        assert found.bound_value == printed
        assert _brute_ratio(kt_level(table.probs, size), printed)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_thm3_corrected_bound_is_unsat(n: int) -> None:
    for size in range(1, n):
        found = search("ldp", "kt_closeness", CORRECTED_THM3, n=n, params={"k": size}, timeout_s=20)
        assert found.status == "unsat", found.detail


@pytest.mark.slow
@pytest.mark.parametrize("n", [7, 8, 9, 10])
def test_thm3_corrected_bound_is_unsat_larger_n(n: int) -> None:
    for size in range(1, n):
        assert search("ldp", "kt_closeness", CORRECTED_THM3, n=n, params={"k": size}, timeout_s=120).status == "unsat"


def test_fixed_level_and_positive_probabilities() -> None:
    """With e^ε fixed to 3 and all probabilities > 0 the printed Thm. 3 still fails at N = 5,
    k = 2 (bound (2 + 2*3)/5 = 8/5); the found table has no zero."""
    found = search("ldp", "kt_closeness", PRINTED_THM3, n=5, params={"k": 2}, premise_level=Fraction(3), positive=True)
    assert found.status == "sat" and found.premise_level == 3 and found.bound_value == Fraction(8, 5)
    assert all(x > 0 for row in found.table.probs for x in row)
    assert _brute_ratio(kt_level(found.table.probs, 2), Fraction(8, 5))


def test_thm1_class_search_finds_ldp_blowup() -> None:
    """Multiplicative t-closeness ⇏ LDP (Ekenstedt et al. 2022, Thm. 1): at N = 4, k = 2 no f(t) = 10 t bounds the
    LDP ratio; the counterexample's classes have two records each."""
    found = search("multiplicative_t_closeness", "ldp", sympy.log(10 * t), n=4, params={"k": 2}, timeout_s=20)
    assert found.status == "sat", found.detail
    table = found.table
    assert sorted(len(c) for c in table.classes) == [2, 2]
    assert multiplicative_level(table.probs, table.classes) <= found.premise_level
    assert _brute_ratio(ldp_ratio(table.probs), 10 * found.premise_level)


def test_thm4_equivalence_is_unsat_both_ways() -> None:
    claim = Claim(
        "test_thm4",
        Source("Ekenstedt et al. 2022", "IV.C", "Theorem 4(1)"),
        "equivalence",
        "kt_closeness",
        "k_eps_dp",
        sympy.Eq(eps, sympy.log(t)),
        (sympy.Eq(k_dp, N - k_t),),
    )
    outcome = search_claim(claim, claim.printed, max_n=4, timeout_s=10)
    assert outcome.status == "unsat", outcome.detail
    assert any(c.endswith("reverse") for c in outcome.cases) and any(c.endswith("forward") for c in outcome.cases)


def test_refute_claim_corrects_thm3() -> None:
    outcome = refute_claim(_thm3_claim(PRINTED_THM3, CORRECTED_THM3), max_n=4, timeout_s=10)
    assert outcome.status == "corrected", outcome.detail
    table = outcome.counterexample
    assert isinstance(table, ProbabilityTable)
    # The counterexample violates the printed bound at its own LDP level (brute force).
    ratio = ldp_ratio(table.probs)
    size = 2
    assert _brute_ratio(kt_level(table.probs, size), Fraction(size + (table.n - size - 1) * ratio, table.n))


def test_refute_claim_without_correction_is_refuted_and_true_claim_unknown() -> None:
    assert refute_claim(_thm3_claim(PRINTED_THM3, None), max_n=3).status == "refuted"
    proven_small = refute_claim(_thm3_claim(CORRECTED_THM3, None), max_n=4)
    assert proven_small.status == "unknown"  # unsat for N <= 4 is not a proof for every N
    assert "unsat" in proven_small.checked_by[0]


def test_refute_claim_non_implication_uses_witnesses() -> None:
    claim = Claim(
        "test_lemma3_4b",
        Source("Ekenstedt et al. 2022", "IV.B", "Lemma 3(4)"),
        "non_implication",
        "dp",
        "k_eps_dp",
        sympy.false,
        (sympy.Gt(k, 1),),
    )
    outcome = refute_claim(claim, max_n=5)
    assert outcome.status == "proven", outcome.detail
    assert k_eps_dp_ratio(outcome.counterexample.probs, 1) != math.inf  # the premise (ε-DP) is finite


def test_timeout_is_unknown_never_unsat() -> None:
    found = search("ldp", "kt_closeness", CORRECTED_THM3, n=7, params={"k": 3}, timeout_s=0.001)
    assert found.status == "unknown"


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -1.0, 0.0])
def test_a_time_limit_that_is_not_positive_and_finite_is_refused_by_the_library(timeout: float) -> None:
    """Every entry point of the search refuses it before any Z3 call, whatever the claim (none searched here)."""
    from theory.checks import check, check_all
    from theory.claims.catalog import claim

    message = "expected a positive, finite number of seconds"
    item = claim("ekenstedt2022:thm3a")
    with pytest.raises(ValueError, match=message):
        refute_claim(item, max_n=4, timeout_s=timeout)
    with pytest.raises(ValueError, match=message):
        search_claim(item, item.printed, max_n=2, timeout_s=timeout)
    with pytest.raises(ValueError, match=message):
        search("ldp", "kt_closeness", PRINTED_THM3, n=3, params={"k": 2}, timeout_s=timeout)
    with pytest.raises(ValueError, match=message):
        check(item.id, deep=True, timeout_s=timeout)
    with pytest.raises(ValueError, match=message):
        check_all(deep=True, timeout_s=timeout)
    assert check(item.id, timeout_s=timeout).status == "corrected"
