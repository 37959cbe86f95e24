"""Witness families for Ekenstedt et al. (2022)'s non-implications (theory.tables.witnesses).

Each witness is re-measured with the all-subsets brute force of tests/_theory_bruteforce.py:
its premise level is finite and the same for every bound (it does not depend on the
bound: that is what makes the pair a non-implication), and its conclusion level exceeds
the requested bound.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _theory_bruteforce import k_eps_dp_ratio, kt_level, ldp_ratio, multiplicative_level
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable
from theory.tables.witnesses import (
    ImplicationHolds,
    InadmissibleParameters,
    NoWitnessError,
    carrier_classes,
    target_ratio,
    verify_witness,
    witness,
)


def brute(definition_id: str, table: ProbabilityTable, size: int | None, classwise: bool = False) -> Fraction | float:
    """The level by enumeration, independent of theory.tables.levels (ratio space)."""
    rows = table.probs
    if definition_id in ("multiplicative_t_closeness", "stochastic_t_closeness"):
        return multiplicative_level(rows, table.classes)
    if definition_id == "ldp":
        return ldp_ratio(rows)
    if definition_id == "dp":
        return k_eps_dp_ratio(rows, 1)
    if definition_id == "kt_closeness":
        return kt_level(rows, size)  # type: ignore[arg-type]
    if classwise:
        inside = [k_eps_dp_ratio(table.restrict(c).probs, size) for c in table.classes if len(c) > size]  # type: ignore[arg-type]
        return max(inside, default=Fraction(1))
    return k_eps_dp_ratio(rows, size)  # type: ignore[arg-type]


# (premise, conclusion, params, premise size, conclusion size): one row per non-implication of Ekenstedt et al. 2022.
CASES = [
    ("multiplicative_t_closeness", "ldp", {"N": 4, "k": 2}, None, None),  # Thm. 1, Table III
    ("multiplicative_t_closeness", "ldp", {"N": 7, "k": 1}, None, None),
    ("stochastic_t_closeness", "ldp", {"N": 5, "k": 2}, None, None),
    ("multiplicative_t_closeness", "kt_closeness", {"N": 4, "k": 2, "k_t": 2}, None, 2),  # Lemma 2(3), Table V
    ("multiplicative_t_closeness", "kt_closeness", {"N": 7, "k": 3, "k_t": 5}, None, 5),
    ("multiplicative_t_closeness", "k_eps_dp", {"N": 6, "k": 2, "k_DP": 2}, None, 2),  # Thm. 5, global
    ("multiplicative_t_closeness", "k_eps_dp", {"N": 4, "k": 2, "k_DP": 1, "classwise": 1}, None, 1),  # Thm. 5
    ("kt_closeness", "kt_closeness", {"N": 5, "k_premise": 3, "k_conclusion": 2}, 3, 2),  # Lemma 2(2), Table IV
    ("kt_closeness", "ldp", {"N": 4, "k": 2}, 2, None),  # Thm. 3(2), Table VI
    ("kt_closeness", "ldp", {"N": 8, "k": 5}, 5, None),
    ("kt_closeness", "ldp", {"N": 5, "k": 4}, 4, None),  # N = k + 1: one zero record
    ("dp", "k_eps_dp", {"N": 6, "k": 3}, None, 3),  # Lemma 3(4), Table VII
    ("dp", "k_eps_dp", {"N": 4, "k": 3}, None, 3),  # N = k + 1
    ("k_eps_dp", "k_eps_dp", {"N": 6, "k_premise": 2, "k_conclusion": 4}, 2, 4),  # Lemma 3(2)
    ("kt_closeness", "k_eps_dp", {"N": 6, "k_t": 3, "k_DP": 4}, 3, 4),  # Thm. 4(2)
    ("k_eps_dp", "kt_closeness", {"N": 6, "k_DP": 2, "k_t": 3}, 2, 3),  # Thm. 4(3), reverse
]


@pytest.mark.parametrize(("premise", "conclusion", "params", "kp", "kc"), CASES)
@pytest.mark.parametrize("bound", [0, 3, "5/2", 40])
def test_witness_exceeds_bound_with_fixed_premise(premise: str, conclusion: str, params: dict, kp: int | None, kc: int | None, bound: object) -> None:
    found = witness(premise, conclusion, bound, params=params)
    table = found.table
    assert table.n == params["N"]
    premise_level = brute(premise, table, kp)
    conclusion_level = brute(conclusion, table, kc, classwise=bool(params.get("classwise")))
    limit = sympy.exp(sympy.sympify(bound)) if levels.is_ratio_definition(conclusion) else sympy.sympify(bound)
    assert premise_level != math.inf
    assert conclusion_level == math.inf or sympy.Rational(conclusion_level) > limit
    # theory.tables.levels agrees with the brute force on both levels.
    assert found.premise_level == premise_level
    assert found.conclusion_level == (sympy.oo if conclusion_level == math.inf else conclusion_level)
    # The premise level does not move with the bound.
    assert witness(premise, conclusion, 7, params=params).premise_level == found.premise_level
    if premise in ("multiplicative_t_closeness", "stochastic_t_closeness"):
        assert found.premise_level == 1 and levels.k_anonymity(table) == params["k"]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.fractions(min_value=0, max_value=50))
def test_table_vi_family_random(k: int, bound: Fraction) -> None:
    n = k + 2
    found = witness("kt_closeness", "ldp", bound, params={"N": n, "k": k})
    assert found.premise_level == witness("kt_closeness", "ldp", 0, params={"N": n, "k": k}).premise_level
    assert sympy.Rational(ldp_ratio(found.table.probs)) > sympy.exp(sympy.Rational(bound))


@pytest.mark.parametrize(
    ("premise", "conclusion", "params", "message"),
    [
        ("kt_closeness", "ldp", {"N": 5, "k": 1}, "Theorem 2"),
        ("dp", "k_eps_dp", {"N": 5, "k": 1}, r"Lemma 3\(3\)"),
        ("kt_closeness", "kt_closeness", {"N": 5, "k_premise": 2, "k_conclusion": 3}, r"Lemma 2\(1\)"),
        ("k_eps_dp", "k_eps_dp", {"N": 5, "k_premise": 3, "k_conclusion": 2}, r"Lemma 3\(1\)"),
        ("kt_closeness", "k_eps_dp", {"N": 6, "k_t": 3, "k_DP": 3}, r"Thm. 4\(1\)"),
        ("k_eps_dp", "kt_closeness", {"N": 6, "k_DP": 2, "k_t": 4}, r"Thm. 4\(1\)"),
        ("multiplicative_t_closeness", "k_eps_dp", {"N": 6, "k": 2, "k_DP": 1}, r"max\(t\(N-1\)/k, N/\(N-1\)\)"),
        ("multiplicative_t_closeness", "kt_closeness", {"N": 6, "k": 2, "k_t": 5}, "is ε-DP"),
    ],
)
def test_implications_have_no_witness(premise: str, conclusion: str, params: dict, message: str) -> None:
    with pytest.raises(ImplicationHolds, match=message):
        witness(premise, conclusion, 3, params=params)


def test_unsupported_and_inadmissible() -> None:
    with pytest.raises(NoWitnessError, match="supported pairs: multiplicative"):
        witness("ldp", "dp", 3, params={"N": 4})
    with pytest.raises(InadmissibleParameters, match=r"no partition of N=5 records has a smallest class of k=3"):
        witness("multiplicative_t_closeness", "ldp", 3, params={"N": 5, "k": 3})
    with pytest.raises(ImplicationHolds, match=r"no class can hold more than N - k = 2 <= k_DP = 2 records"):
        witness("multiplicative_t_closeness", "k_eps_dp", 3, params={"N": 3, "k_premise": 1, "k_conclusion": 2,
                                                                     "classwise": 1})
    with pytest.raises(ValueError, match="expected a finite real level"):
        witness("multiplicative_t_closeness", "ldp", "oo", params={"N": 4, "k": 2})


def test_multiplicative_implies_dp_globally() -> None:
    """Why the global reading of Ekenstedt et al. 2022, Thm. 5 needs k_DP >= 2: removing one record keeps every
    other class, whose mass is >= (N - |E|) S/(N t) >= k S/(N t); so e^ε <= max(t(N-1)/k, N/(N-1)).
    Checked on the carrier family (t = 1, k = 2, N = 6: bound 5/2) for shrinking σ."""
    for bound in (2, 20, 200):
        table = carrier_classes(6, 2, target_ratio("ldp", bound))
        assert levels.multiplicative_t(table) == 1
        assert levels.dp_ratio(table) <= max(Fraction(1 * 5, 2), Fraction(6, 5))


def test_paper_appendix_a_comment_does_not_average_mu() -> None:
    """Ekenstedt et al. 2022, App. A, comments on Thm. 1: a class of k - 1 records with σ/(k-1) and one with
    kμ - (k-1)σ averages (σ + kμ - (k-1)σ)/k = μ + (2-k)σ/k, which is μ only for k = 2.
    carrier_classes uses k - 1 records with σ each (mean exactly μ = 1/N)."""
    mu, sigma, size = Fraction(1, 10), Fraction(1, 100), 4
    paper = [sigma / (size - 1)] * (size - 1) + [size * mu - (size - 1) * sigma]
    assert sum(paper) / size == mu + (2 - size) * sigma / size != mu
    table = carrier_classes(8, 4, Fraction(9))
    for group in table.classes:
        assert sum(table.probs[i][0] for i in group) / len(group) == Fraction(1, 8)


def test_verify_witness_reports_failure() -> None:
    table = ProbabilityTable.from_rows([[Fraction(1, 2), Fraction(1, 2)]] * 4, [[0, 1], [2, 3]])
    check = verify_witness("multiplicative_t_closeness", "ldp", 1, table)
    assert not check.exceeds and check.conclusion_level == 1 and "not >" in check.detail


def test_target_ratio() -> None:
    assert target_ratio("ldp", sympy.log(5)) == 5  # e^{ln 5} = 5 exactly
    assert target_ratio("kt_closeness", "7/2") == 4
    assert target_ratio("kt_closeness", -3) == 1
