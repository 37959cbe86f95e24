"""The relations derived here, against the verifier's exact measures on random releases.

For every implication claim of ``theory.papers.derived.claims``: the level the verifier measures
for the conclusion is never weaker than the claim's bound at the measured premise level
(hypothesis), and an explicit release attains the bound (tight), with the exact values
worked out by hand in each test.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _theory_bruteforce import INF, k_eps_dp_ratio
from theory.claims.catalog import all_claims, claim
from theory.definitions import N, definition
from theory.papers.derived.checks import bound_of, release_levels, spread_family
from theory.papers.derived.claims import n_min

CLASS = st.dictionaries(st.sampled_from("abcd"), st.integers(1, 4), min_size=1, max_size=4)
RELEASES = st.lists(CLASS, min_size=1, max_size=4)
EMD = ("t_closeness_equal", "t_closeness_ordered", "t_closeness_hierarchical")
MEASURED = {*release_levels([{"a": 1, "b": 1}], 2), "t_closeness"}
"""The definitions measured on a release alone (the risk claims against a population are checked on their own)."""
IMPLICATIONS = [c.id for c in all_claims() if c.id.startswith("privcert:") and c.kind in ("implication", "equivalence")
                and set(c.definitions) <= MEASURED]


def _at_least_as_strong(conclusion: str, measured: sympy.Expr, bound: sympy.Expr) -> bool:
    if definition(conclusion).direction == "smaller_is_stronger":
        return bound == sympy.oo or (measured != sympy.oo and bool(sympy.Le(measured, bound)))
    return measured == sympy.oo or bound != sympy.oo and bool(sympy.Ge(measured, bound))


@pytest.mark.parametrize("claim_id", IMPLICATIONS)
@settings(max_examples=25, deadline=None)
@given(counts=RELEASES, l=st.integers(2, 3))
def test_bound_never_beaten_on_random_releases(claim_id: str, counts: list[dict[str, int]], l: int) -> None:
    premise, conclusion = claim(claim_id).definitions
    found = release_levels(counts, l)
    bound = bound_of(claim_id, found[premise])
    for key in EMD if conclusion == "t_closeness" else (conclusion,):
        assert _at_least_as_strong(conclusion, found[key], bound), (key, found[key], bound)


@settings(max_examples=40, deadline=None)
@given(counts=RELEASES)
def test_ordered_and_hierarchical_emd_at_most_total_variation(counts: list[dict[str, int]]) -> None:
    found = release_levels(counts)
    assert found["t_closeness_ordered"] <= found["t_closeness_equal"]
    assert found["t_closeness_hierarchical"] <= found["t_closeness_equal"]


@settings(max_examples=40, deadline=None)
@given(counts=RELEASES)
def test_equalities(counts: list[dict[str, int]]) -> None:
    """δ* = ln t* (one bucket per value); R = 1/k; α* = c*/(1 + c*) at l = 2."""
    found = release_levels(counts, 2)
    t = found["multiplicative_t_closeness"]
    assert found["delta_disclosure"] == (sympy.oo if t == sympy.oo else sympy.log(t))
    assert found["prosecutor_risk"] * found["k_anonymity"] == 1
    c = found["recursive_cl_diversity"]
    if c != sympy.oo:
        assert found["alpha_k_anonymity"] == c / (1 + c)


def test_tight_multiplicative_release() -> None:
    """Table (1/3, 2/3) over a and c; class {a, a, c} is (2/3, 1/3): t = 2, every EMD 1/3 = (t - 1)/(t + 1), β = 1."""
    found = release_levels([{"a": 2, "c": 1}, {"a": 1, "c": 5}])
    assert found["multiplicative_t_closeness"] == 2
    assert [found[key] for key in EMD] == [Fraction(1, 3)] * 3
    assert bound_of("privcert:mult_to_emd", sympy.Integer(2)) == sympy.Rational(1, 3)
    assert found["basic_beta_likeness"] == 1 and found["delta_disclosure"] == sympy.log(2)


def test_suggested_one_minus_one_over_t_is_valid_but_not_tight() -> None:
    """No release reaches 1 - 1/t: the best has total variation (t - 1)/(t + 1) < (t - 1)/t for t > 1."""
    t = sympy.Symbol("t", positive=True)
    assert sympy.factor((1 - 1 / t) - claim("privcert:mult_to_emd").effective.rhs.subs(sympy.Symbol("t", positive=True), t)) \
        == (t - 1) / (t * (t + 1))
    best = Fraction(0)
    for split in product(range(4), repeat=4):
        counts = [{"a": split[0] + 1, "c": split[1] + 1}, {"a": split[2] + 1, "c": split[3] + 1}]
        found = release_levels(counts)
        t_level = found["multiplicative_t_closeness"]
        assert found["t_closeness_equal"] < 1 - 1 / t_level or t_level == 1
        best = max(best, Fraction(str(found["t_closeness_equal"])))
    assert best > 0


def test_tight_l_diversity_chain() -> None:
    """Uniform classes of three values: α = 1/3, entropy l = 3, distinct l = 3; at l = 2, {a, a, b} gives c = 2, α = 2/3."""
    uniform = release_levels([{"a": 1, "b": 1, "c": 1}, {"b": 2, "c": 2, "d": 2}])
    assert uniform["alpha_k_anonymity"] == Fraction(1, 3)
    assert uniform["entropy_l_diversity"] == 3 and uniform["distinct_l_diversity"] == 3
    skewed = release_levels([{"a": 2, "b": 1}, {"a": 1, "b": 1, "c": 1}], 2)
    assert skewed["recursive_cl_diversity"] == 2 and skewed["alpha_k_anonymity"] == Fraction(2, 3)


@pytest.mark.parametrize("m, emd, present", [(2, Fraction(1, 4), sympy.log(2)), (4, Fraction(3, 16), sympy.log(Fraction(4, 3)))])
def test_non_implication_family(m: int, emd: Fraction, present: sympy.Expr) -> None:
    """E_1 = {a×m}, E_j = {a×(m-1), c}: EMD (m-1)/m² and present δ ln(m/(m-1)) shrink; t and δ are infinite."""
    found = release_levels(spread_family(m))
    assert found["t_closeness_equal"] == emd and found["delta_disclosure_present"] == present
    assert found["multiplicative_t_closeness"] == sympy.oo and found["delta_disclosure"] == sympy.oo


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 4), min_size=1, max_size=3).filter(lambda c: len(c) > 1 or c[0] > 1))
def test_deterministic_release_dp_level(counts: list[int]) -> None:
    """The corrected e^ε of a deterministic release (Ekenstedt et al. 2022, Def. 5) against brute force, one value
    of two records or more included (e^ε = 1 there)."""
    rows = [[1 if j == v else 0 for j in range(len(counts))] for v, n in enumerate(counts) for _ in range(n)]
    brute = k_eps_dp_ratio(rows, 1)
    assert (brute == INF) == (min(counts) == 1)
    assert (brute == 1) == (len(counts) == 1)
    if brute != INF:
        formula = claim("privcert:deterministic_dp").corrected.rhs.subs({N: len(rows), n_min: min(counts)})
        assert sympy.Rational(brute.numerator, brute.denominator) == formula
