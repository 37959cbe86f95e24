"""Exact levels of theory.tables.levels on probability tables.

Golden values come from the tables of Ekenstedt et al. (2022)'s appendix (derivations beside each value);
random tables are compared with the all-subsets brute force of tests/_theory_bruteforce.py,
and the theorems that relate the levels (Ekenstedt et al. 2022, Thm. 2, Thm. 3 corrected, Thm. 4(1),
Lemma 3(3); Domingo-Ferrer & Soria-Comas 2015, Prop. 2) are checked as properties with exact arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _theory_bruteforce import (
    k_eps_dp_ratio,
    kt_level,
    ldp_ratio,
    multiplicative_level,
    same,
    set_distance_level,
    tables,
)
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable

F = Fraction


def two_buckets(column: list[Fraction], classes: list[list[int]] | None = None) -> ProbabilityTable:
    """Rows (x, 1 - x): the a_1 / a_2 buckets of Ekenstedt et al. (2022)'s appendix tables."""
    return ProbabilityTable.from_rows([[x, 1 - x] for x in column], classes)


# ---------------------------------------------------------------- ProbabilityTable


@pytest.mark.parametrize(
    ("rows", "classes", "message"),
    [
        ([], None, "expected at least one record"),
        ([[]], None, "expected at least one bucket"),
        ([[F(1)], [F(1, 2), F(1, 2)]], None, "row 1: expected 1 bucket probabilities"),
        ([[F(1, 2), F(1, 3)]], None, "row 0: expected bucket probabilities summing to 1, found sum 5/6"),
        ([[F(3, 2), F(-1, 2)]], None, r"row 0, bucket 0: expected a probability in \[0, 1\], found 3/2"),
        ([[0.5, 0.5]], None, "row 0, bucket 0: expected an exact probability .* found float 0.5"),
        ([["a", "1"]], None, "row 0, bucket 0: expected a 'p/q' string, found 'a'"),
        ([[1], [1]], [[0], [0, 1]], "class 1: record 0 is already in class 0"),
        ([[1], [1]], [[0]], r"records \[1\] are in no class"),
        ([[1], [1]], [[0, 1], []], "class 1: expected a non-empty equivalence class"),
        ([[1], [1]], [[0, 2]], r"class 0: expected record indices in range\(2\), found 2"),
    ],
)
def test_table_rejects_bad_input(rows: list, classes: list | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProbabilityTable.from_rows(rows, classes)


def test_table_normalises_and_round_trips_json() -> None:
    table = ProbabilityTable.from_rows([["1/3", "2/3"], [1, 0], [F(1, 2), F(1, 2)]], [[2, 0], [1]])
    assert table.probs[0] == (F(1, 3), F(2, 3))
    assert table.classes == ((0, 2), (1,))  # sorted classes, sorted members
    assert table.to_json() == {"probs": [["1/3", "2/3"], ["1", "0"], ["1/2", "1/2"]], "classes": [[0, 2], [1]]}
    assert ProbabilityTable.from_json(table.to_json()) == table
    with pytest.raises(ValueError, match="expected key 'probs'"):
        ProbabilityTable.from_json({"rows": []})


@given(tables())
def test_json_round_trip_random(table: ProbabilityTable) -> None:
    assert ProbabilityTable.from_json(table.to_json()) == table


# ---------------------------------------------------------------- golden values from Ekenstedt et al. 2022


def test_table_iii_multiplicative_one_ldp_grows() -> None:
    """Ekenstedt et al. 2022, Table III, μ = 1/4, σ = 1/100: both classes average μ in a_1 (and 1 - μ in a_2), so
    multiplicative t = 1; LDP ratio in a_1 = (2μ - σ)/σ = (49/100)/(1/100) = 49 (a_2 gives
    (1 - σ)/(1 - 2μ + σ) = 99/51, smaller): the caption's ln((2μ - σ)/σ)."""
    mu, sigma = F(1, 4), F(1, 100)
    table = two_buckets([mu, mu, sigma, 2 * mu - sigma], [[0, 1], [2, 3]])
    assert levels.multiplicative_t(table) == 1
    assert levels.ldp_ratio(table) == 49
    # Ekenstedt et al. 2022, Thm. 5 proof, (1,ε)-DP inside classes: removing record 4 leaves σ against μ: μ/σ = 25.
    assert levels.classwise_k_eps_dp_ratio(table, 1) == 25
    assert levels.k_anonymity(table) == 2


def test_table_v_kt_depends_on_sigma_and_the_caption_needs_mu_at_most_half() -> None:
    """Ekenstedt et al. 2022, Table V: a_1 = (2μ - σ, σ | 2μ - σ, σ), two classes: multiplicative t = 1 for
    every σ, and with μ = 1/4, σ = 1/100 the (2,t) level is μ/σ = 25 (the smallest pair {σ, σ} against Pr_D = μ).

    The proof's "t_0 = μ/σ" assumes only μ > σ. With μ = 27/50, σ = 1/10 (still a valid table:
    2μ - σ = 49/50 ≤ 1) bucket a_2 dominates: the pair {2μ - σ, 2μ - σ} has Pr(a_2) = 1/50 against
    Pr_D(a_2) = 1 - μ = 23/50, ratio 23 > μ/σ = 27/5. The claim needs μ ≤ 1/2 (then
    (1 - μ)/(1 - 2μ + σ) ≤ μ/σ), or t_0 = max(μ/σ, (1 - μ)/(1 - 2μ + σ)).
    """
    for mu, sigma, t in ((F(1, 4), F(1, 100), F(25)), (F(27, 50), F(1, 10), F(23))):
        table = two_buckets([2 * mu - sigma, sigma, 2 * mu - sigma, sigma], [[0, 1], [2, 3]])
        assert levels.multiplicative_t(table) == 1
        assert levels.kt_closeness_t(table, 2) == t == max(mu / sigma, (1 - mu) / (1 - 2 * mu + sigma))
    assert F(23) != F(27, 50) / F(1, 10)


def test_table_vi_is_two_close_for_every_sigma() -> None:
    """Ekenstedt et al. 2022, Table VI, μ = 1/4: Pr_D(a_1) = (μ + 2μ + μ - σ + σ)/4 = μ; the smallest pair
    {μ - σ, σ} averages μ/2, so t = 2 (a_2 ratios stay below 2 because μ <= 1/2); the LDP
    ratio is 2μ/σ (largest 2μ, smallest σ)."""
    mu = F(1, 4)
    for sigma in (F(1, 10), F(1, 1000)):
        table = two_buckets([mu, 2 * mu, mu - sigma, sigma])
        assert levels.kt_closeness_t(table, 2) == 2
        assert levels.ldp_ratio(table) == 2 * mu / sigma


def test_table_iv_caption_is_wrong() -> None:
    """Ekenstedt et al. 2022, Table IV, N = 4, k = 2, μ = 1/2: a_1 = (0, μ, μ, μ), Pr_D = 3μ/4 = 3/8; the
    smallest pair {0, μ} averages 1/4, ratio (3/8)/(1/4) = 3/2 = k(N-k+1)/N; the caption says
    t = N - k + 1 = 3. Every single record is a subset of size 1 < k, and {0} makes t = ∞."""
    table = two_buckets([F(0), F(1, 2), F(1, 2), F(1, 2)])
    assert levels.kt_closeness_t(table, 2) == F(3, 2) != 3
    assert levels.kt_closeness_t(table, 1) is sympy.oo


def test_table_vii_caption_omits_bucket_a2() -> None:
    """Ekenstedt et al. 2022, Table VII with N = 5, k = 3, μ = 1, α = 1/10: a_1 = (1, 1, 9/10, 1/10, 0),
    a_2 = (0, 0, 1/10, 9/10, 1). The caption's "ε" = max(N/(N-1), (N-1)k/((k-1)N)) =
    max(5/4, 6/5) = 5/4 is a ratio e^ε and ignores a_2, where removing record 5 leaves
    (2 - 1)/4 against 2/5: ratio (2/5)/(1/4) = 8/5 > 5/4."""
    table = two_buckets([F(1), F(1), F(9, 10), F(1, 10), F(0)])
    assert levels.dp_ratio(table) == F(8, 5)
    assert max(F(5, 4), F(4 * 3, 2 * 5)) == F(5, 4)


def test_table_vii_k_removal_matches_caption() -> None:
    """Table VII, N = 6, k = 2, μ = 1/2, α = 1/20: removing the k largest (μ, μ - α) leaves
    α + 0 + ... over N - k = 4 records; e^{ε_k} = (kμ/N)/(α/(N-k)) = (1/6)/(1/80) = 40/3 =
    (N-k)μk/(Nα), as printed (as a ratio, not ε)."""
    mu, alpha = F(1, 2), F(1, 20)
    table = two_buckets([mu, mu - alpha, alpha, F(0), F(0), F(0)])
    assert levels.k_eps_dp_ratio(table, 2) == F(6 - 2) * mu * 2 / (6 * alpha) == F(40, 3)


def test_level_dispatch_and_errors() -> None:
    table = two_buckets([F(1, 2), F(1, 4), F(1, 4)])
    assert levels.level("kt_closeness", table, 2) == levels.kt_closeness_t(table, 2)
    assert levels.level("ldp", table) == 2
    assert levels.level("stochastic_t_closeness", table) == levels.multiplicative_t(table) == 1
    with pytest.raises(ValueError, match="'kt_closeness' requires a subset size"):
        levels.level("kt_closeness", table)
    with pytest.raises(ValueError, match="'ldp' takes no a subset size"):
        levels.level("ldp", table, 1)
    with pytest.raises(ValueError, match="'t_closeness': not defined on probability tables"):
        levels.level("t_closeness", table)
    with pytest.raises(ValueError, match=r"expected an integer k in \[1, N-1\] = \[1, 2\], found 3"):
        levels.kt_closeness_t(table, 3)
    assert levels.is_ratio_definition("k_eps_dp") and not levels.is_ratio_definition("kt_closeness")


def test_eps_conversions() -> None:
    assert levels.eps_of(F(4)) == sympy.log(4)
    assert levels.eps_of(sympy.oo) is sympy.oo
    assert levels.ratio_of("log(3)") == 3


# ---------------------------------------------------------------- against brute force


@settings(max_examples=150, deadline=None)
@given(tables())
def test_levels_match_all_subsets_brute_force(table: ProbabilityTable) -> None:
    rows = table.probs
    assert same(levels.ldp_ratio(table), ldp_ratio(rows))
    assert same(levels.multiplicative_t(table), multiplicative_level(rows, table.classes))
    for size in range(1, table.n):
        assert same(levels.kt_closeness_t(table, size), kt_level(rows, size))
        assert same(levels.k_eps_dp_ratio(table, size), k_eps_dp_ratio(rows, size))
    if table.n > 1:
        assert same(levels.dp_ratio(table), k_eps_dp_ratio(rows, 1))  # Def. 5 = Def. 8, k = 1


@settings(max_examples=80, deadline=None)
@given(tables(max_p=4))
def test_000_prop2_single_buckets_suffice(table: ProbabilityTable) -> None:
    """Domingo-Ferrer & Soria-Comas 2015, Def. 4 maximises over every set S of buckets; Prop. 2: single buckets suffice."""
    assert same(levels.multiplicative_t(table), set_distance_level(table))


@settings(max_examples=60, deadline=None)
@given(tables(min_n=2, max_n=5))
def test_classwise_dp_is_dp_inside_each_class(table: ProbabilityTable) -> None:
    for size in range(1, table.n):
        inside = [k_eps_dp_ratio(table.restrict(c).probs, size) for c in table.classes if len(c) > size]
        expected = max(inside, default=F(1))
        assert same(levels.classwise_k_eps_dp_ratio(table, size), expected)


# ---------------------------------------------------------------- theorems as properties


@settings(max_examples=150, deadline=None)
@given(tables(min_n=2))
def test_thm4_1_k_eps_dp_is_n_minus_k_closeness(table: ProbabilityTable) -> None:
    """Ekenstedt et al. 2022, Thm. 4(1): (k,ε)-DP at e^ε is (N-k, e^ε)-closeness (removing K keeps D minus K)."""
    for size in range(1, table.n):
        assert levels.k_eps_dp_ratio(table, size) == levels.kt_closeness_t(table, table.n - size)


@settings(max_examples=150, deadline=None)
@given(tables(min_n=2))
def test_thm2_both_directions(table: ProbabilityTable) -> None:
    """Ekenstedt et al. 2022, Thm. 2: (1,t)-closeness ⇒ LDP with e^ε <= t^2; LDP ⇒ (1, (e^ε(N-1)+1)/N)-closeness."""
    t1, ratio = levels.kt_closeness_t(table, 1), levels.ldp_ratio(table)
    if t1 is not sympy.oo:
        assert ratio is not sympy.oo and ratio <= t1**2
    if ratio is not sympy.oo:
        assert t1 <= (ratio * (table.n - 1) + 1) / table.n


@settings(max_examples=150, deadline=None)
@given(tables(min_n=2), st.data())
def test_thm3_corrected_bound_holds(table: ProbabilityTable, data: st.DataObject) -> None:
    """Ekenstedt et al. 2022, Thm. 3 corrected: LDP at T ⇒ (k, (k + (N-k)T)/N)-closeness (printed: N-k-1)."""
    ratio = levels.ldp_ratio(table)
    if ratio is sympy.oo:
        return
    size = data.draw(st.integers(1, table.n - 1))
    assert levels.kt_closeness_t(table, size) <= (size + (table.n - size) * ratio) / table.n


@pytest.mark.parametrize(("n", "k", "ratio"), [(3, 2, F(2)), (5, 2, F(3)), (6, 4, F(7, 2)), (4, 1, F(5))])
def test_thm3_corrected_bound_is_attained(n: int, k: int, ratio: Fraction) -> None:
    """Tightness: k records at m = 1/(T+1) and N-k at Tm (bucket a_2 mirrors them, LDP = T):
    Pr_D/Pr_K = (km + (N-k)Tm)/(Nm) = (k + (N-k)T)/N, above the printed (k + (N-k-1)T)/N."""
    m = 1 / (ratio + 1)
    table = two_buckets([m] * k + [ratio * m] * (n - k))
    assert levels.ldp_ratio(table) == ratio
    assert levels.kt_closeness_t(table, k) == (k + (n - k) * ratio) / n > (k + (n - k - 1) * ratio) / n
