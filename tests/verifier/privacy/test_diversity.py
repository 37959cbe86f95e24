"""Distinct, entropy and recursive (c,l)-diversity (verifier.privacy.diversity)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _measure_tables import (
    class_counts,
    empty_table,
    paper_table,
    perturbed,
    releases,
    table_from_counts,
    tables_of,
    wide_screen,
)
from verifier.errors import PolicyError
from verifier.privacy._screen import log_form_sign, prime_exponents
from verifier.privacy.diversity import (
    distinct_l_diversity,
    entropy_l_diversity,
    entropy_l_satisfied,
    recursive_cl_diversity,
)


def test_table4_is_3_diverse():
    # Li et al. 2007, Table 4: each class holds 3 different diseases (once each): distinct l = 3.
    measurement = distinct_l_diversity(paper_table("disease4"))
    assert measurement.level.exact == "3"
    assert measurement.witness.numbers["distinct_values"] == 3


def test_table2_distinct_l_is_1():
    # Li et al. 2007, Table 2: class (476**, 2*) is Heart Disease ×3, one distinct value (homogeneity attack).
    measurement = distinct_l_diversity(paper_table("disease2"))
    assert measurement.level.exact == "1"
    assert measurement.witness.qi == {"zip": "476**", "age": "2*"}


def test_table4_entropy_l_is_exactly_3():
    # Each class of Table 4 is uniform over 3 values: H = -3·(1/3)ln(1/3) = ln 3, l = exp(ln 3) = 3.
    measurement = entropy_l_diversity(paper_table("disease4"))
    assert measurement.level.value == 3 and measurement.level.exact == "3"
    assert measurement.level.satisfies(3, "at_least")
    assert entropy_l_satisfied(paper_table("disease4"), 3)
    # pyCANON computes int(e ** H) in floats (H summed as below), which truncates this class to 2.
    p = np.array([1 / 3] * 3)
    assert int(np.exp(1) ** -np.sum(p * np.log(p))) == 2


def test_table2_entropy_l_is_1():
    # Table 2, class (476**, 2*): H = 0, l = 1; the other classes: (1,1,1) -> 3, (1,2) -> 3/2^(2/3).
    measurement = entropy_l_diversity(paper_table("disease2"))
    assert measurement.level.exact == "1"
    assert measurement.witness.qi == {"zip": "476**", "age": "2*"}


def test_entropy_closed_form_of_a_skewed_class():
    # Counts (2, 1): H = -(2/3)ln(2/3) - (1/3)ln(1/3) = ln 3 - (2/3) ln 2, so l = 3 / 2^(2/3).
    # Counts (4, 2) have the same distribution, hence the same l (profile reduced by the gcd).
    table = table_from_counts([{"a": 2, "b": 1}, {"a": 4, "b": 2}, {"a": 1, "b": 1, "c": 1}])
    measurement = entropy_l_diversity(table)
    assert sympy.simplify(measurement.level.value - 3 / sympy.Integer(2) ** sympy.Rational(2, 3)) == 0
    assert measurement.witness.qi == {"q": 0}
    assert measurement.witness.numbers["profile"] == [1, 2]
    assert not entropy_l_satisfied(table, Fraction(189, 100))  # 3/2^(2/3) = 1.8899...
    assert entropy_l_satisfied(table, Fraction(188, 100))


def test_recursive_on_paper_tables():
    table4 = paper_table("disease4")
    # Table 4, every class (1, 1, 1): l = 2: r_1 / (r_2 + r_3) = 1/2; l = 3: 1/1; l = 4: tail empty.
    assert recursive_cl_diversity(table4, 2).level.exact == "1/2"
    assert recursive_cl_diversity(table4, 3).level.exact == "1"
    four = recursive_cl_diversity(table4, 4)
    assert four.level.exact == "inf" and "fewer than l = 4" in four.level.reason
    # Table 2, l = 2: class (476**, 2*) has one value, so no c works.
    two = recursive_cl_diversity(paper_table("disease2"), 2)
    assert two.level.exact == "inf" and two.witness.qi == {"zip": "476**", "age": "2*"}
    # Table 2, l = 1: c* = max r_1/|E| = 3/3 (class 1); the table is (c,1)-diverse iff c > 1.
    one = recursive_cl_diversity(paper_table("disease2"), 1)
    assert one.level.exact == "1" and one.comparison == "below"
    assert not one.level.satisfies(1, "below") and one.level.satisfies(Fraction(101, 100), "below")


def test_recursive_uses_the_largest_count_first():
    # Counts (5, 3, 1), l = 2. Decreasing order: r_1 = 5, r_2 + r_3 = 4, c* = 5/4.
    # pyCANON sorts increasingly and takes the smallest count over the largest: 1/(3+5) = 1/8.
    table = table_from_counts([{"a": 5, "b": 3, "c": 1}])
    measurement = recursive_cl_diversity(table, 2)
    assert measurement.level.value == sympy.Rational(5, 4)
    assert measurement.witness.value == "a"
    assert measurement.witness.numbers == {"r_1": 5, "tail_sum": 4, "distinct_values": 3}
    # Brute force on the definition: r_1 < c·(r_2 + r_3) fails at c = 5/4 and 1/8, holds just above 5/4.
    assert not 5 < Fraction(5, 4) * 4 and not 5 < Fraction(1, 8) * 4 and 5 < Fraction(126, 100) * 4


@pytest.mark.parametrize(
    ("l", "message"),
    [
        (0, "expected an integer l >= 1, found 0"),
        (-2, "expected an integer l >= 1, found -2"),
        (1.5, "expected an integer l >= 1, found 1.5"),
        ("2", "expected an integer l >= 1, found '2'"),
        (True, "expected an integer l >= 1, found True"),
        (Fraction(2), r"expected an integer l >= 1, found Fraction\(2, 1\)"),
    ],
)
def test_recursive_bad_l(l, message):
    with pytest.raises(PolicyError, match=message):
        recursive_cl_diversity(paper_table("disease4"), l)
    assert issubclass(PolicyError, ValueError)


@pytest.mark.parametrize(
    ("l", "message"),
    [
        (0, "expected l > 0, found 0"),
        (Fraction(-1, 2), "expected l > 0, found -1/2"),
        (2.5, "expected an exact number"),
        (True, "expected an exact number"),
    ],
)
def test_entropy_satisfied_bad_l(l, message):
    with pytest.raises(PolicyError, match=message):
        entropy_l_satisfied(paper_table("disease4"), l)


def _brute_entropy_holds(counts: list[int], bound: Fraction) -> bool:
    # n^n · b^n >= a^n · Π c^c, straight from H(E) >= ln(a/b).
    n = sum(counts)
    product = math.prod(c**c for c in counts if c)
    return n**n * bound.denominator**n >= bound.numerator**n * product


def _brute_min_entropy_class(table) -> list[int]:
    # Compare n_a·H_a with n_b·H_b exactly: H_a <= H_b iff (n_a^n_a/P_a)^n_b <= (n_b^n_b/P_b)^n_a.
    best = None
    for _, row in class_counts(table):
        counts = [c for c in row if c]
        n, p = sum(counts), math.prod(c**c for c in counts)
        if best is None or Fraction(n**n, p) ** best[0] < Fraction(best[0] ** best[0], best[1]) ** n:
            best = (n, p, counts)
    return best[2]


@settings(max_examples=80, deadline=None)
@given(releases(), st.integers(1, 40), st.integers(1, 12))
def test_entropy_satisfied_matches_brute_force(frame, a, b):
    _, table = tables_of(frame)
    bound = Fraction(a, b)
    expected = all(_brute_entropy_holds([c for c in row if c], bound) for _, row in class_counts(table))
    assert entropy_l_satisfied(table, bound) == expected
    assert entropy_l_diversity(table).level.satisfies(bound, "at_least") == expected


@settings(max_examples=80, deadline=None)
@given(releases())
def test_entropy_level_matches_brute_force(frame):
    _, table = tables_of(frame)
    counts = _brute_min_entropy_class(table)
    n = sum(counts)
    expected = n * sympy.Mul(*(sympy.Integer(c) ** sympy.Rational(-c, n) for c in counts))
    assert sympy.simplify(entropy_l_diversity(table).level.value - expected) == 0


@settings(max_examples=80, deadline=None)
@given(releases())
def test_entropy_between_one_and_distinct(frame):
    _, table = tables_of(frame)
    entropy = entropy_l_diversity(table).level
    distinct = distinct_l_diversity(table).level
    assert entropy.satisfies(1, "at_least")
    assert distinct.satisfies(entropy.value, "at_least")


@settings(max_examples=80, deadline=None)
@given(releases(), st.integers(1, 4))
def test_recursive_matches_brute_force(frame, l):
    _, table = tables_of(frame)
    worst = Fraction(0)
    for _, row in class_counts(table):
        r = sorted((c for c in row if c), reverse=True)
        if len(r) < l:
            worst = None
            break
        worst = max(worst, Fraction(r[0], sum(r[l - 1:])))
    measurement = recursive_cl_diversity(table, l)
    assert measurement.level.exact == ("inf" if worst is None else str(worst))
    assert measurement.parameters == {"l": l}


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_row_order_and_labels_never_matter(data):
    frame = data.draw(releases())
    shuffled = data.draw(perturbed(frame))
    t1, t2 = tables_of(frame)[1], tables_of(shuffled)[1]
    for measure in (distinct_l_diversity, entropy_l_diversity):
        assert measure(t1).to_json() == measure(t2).to_json()
    for l in (1, 2, 3):
        assert recursive_cl_diversity(t1, l).to_json() == recursive_cl_diversity(t2, l).to_json()


def test_huge_class_uses_interval_arithmetic():
    # Counts (10000, 10001): n·log2(n) > 2^18 bits, so the exact decision runs on
    # mpmath intervals; the brute-force big-integer comparison checks it.
    counts = [10000, 10001]
    table = table_from_counts([{"a": counts[0], "b": counts[1]}])
    level = entropy_l_diversity(table).level
    approx = Fraction(level.number)
    for bound in (approx * (1 - Fraction(1, 10**14)), approx, approx * (1 + Fraction(1, 10**14))):
        expected = _brute_entropy_holds(counts, bound)
        assert entropy_l_satisfied(table, bound) == expected
        assert level.satisfies(bound, "at_least") == expected


def test_log_form_sign_beyond_big_integers():
    # 2^(10^6) vs 10^301029 / 10^301030 (> 2^18 bits: decided on mpmath intervals), and the
    # exact equality 4^(10^6) = 2^(2·10^6), which no interval can decide: over primes it is
    # 2^(2·10^6 - 2·10^6) = 1.
    assert log_form_sign({2: 10**6, 10: -301030}) == -1
    assert log_form_sign({2: 10**6, 10: -301029}) == 1
    assert log_form_sign({4: 10**6, 2: -2 * 10**6}) == 0
    assert prime_exponents({4: 10**6, 2: -2 * 10**6}) == {}


def test_large_class_level_stays_symbolic_and_agrees():
    # A class of 10^6 rows with counts (300001, 299999, 400000): sympy must not expand
    # c^(c/n) into a 10^6-digit integer; the closed form is built over primes.
    counts = {"a": 300001, "b": 299999, "c": 400000}
    table = table_from_counts([counts])
    level = entropy_l_diversity(table).level
    p = np.array(list(counts.values())) / 10**6
    assert math.isclose(level.number, math.exp(-np.sum(p * np.log(p))), rel_tol=1e-12)
    approx = Fraction(level.number)
    for bound in (approx * (1 - Fraction(1, 10**12)), approx * (1 + Fraction(1, 10**12))):
        assert entropy_l_satisfied(table, bound) == level.satisfies(bound, "at_least")
    assert entropy_l_satisfied(table, approx * (1 - Fraction(1, 10**12)))


@settings(max_examples=60, deadline=None)
@given(releases(), st.integers(1, 30), st.integers(1, 10))
def test_exact_steps_agree_with_the_screen(frame, a, b):
    # Every class through the exact comparisons (log_form_sign) must give the same results;
    # so must the per-class grouping of profiles that a hash collision falls back to
    # (a zero hash base makes every class of the same width collide).
    _, table = tables_of(frame)
    expected = (entropy_l_diversity(table).to_json(), entropy_l_satisfied(table, Fraction(a, b)),
                recursive_cl_diversity(table, 2).to_json())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("verifier.privacy.diversity.screen_margin", wide_screen)
        patch.setattr("verifier.privacy._screen.screen_margin", wide_screen)
        patch.setattr("verifier.privacy.diversity._HASH_BASE", np.uint64(0))
        assert (entropy_l_diversity(table).to_json(), entropy_l_satisfied(table, Fraction(a, b)),
                recursive_cl_diversity(table, 2).to_json()) == expected


@pytest.mark.parametrize(
    "measure",
    [distinct_l_diversity, entropy_l_diversity, lambda table: recursive_cl_diversity(table, 2)],
)
def test_table_without_rows_is_undefined(measure):
    measurement = measure(empty_table())
    assert measurement.level.exact == "undefined" and measurement.witness is None
    assert "excluded" in measurement.notes[-1]
    assert not entropy_l_satisfied(empty_table(), 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=30))
def test_key_groups_is_numpys_unique_over_columns(columns: list[tuple[int, int]]) -> None:
    """The lexsort grouping of the entropy profiles returns what ``np.unique(axis=1)`` does, empty input included."""
    from verifier.tables.distinct import key_groups

    keys = np.array(columns, dtype=np.uint64).reshape(-1, 2).T
    first, group = key_groups(keys)
    _, expected_first, expected_group = np.unique(keys, axis=1, return_index=True, return_inverse=True)
    assert first.tolist() == expected_first.tolist()
    assert group.tolist() == expected_group.ravel().tolist()
