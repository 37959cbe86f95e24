"""Tests of theory.mechanism_selection (matrices, utility, planner) and the eq. (1)-(6) claims.

Closed forms are checked against levels measured independently: a brute force over
record pairs / subsets (tests/_theory_bruteforce.py), and theory.tables.levels on the per-record table.
Source: Ekenstedt et al. 2022, Sec. V.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import _theory_bruteforce as brute
from theory.mechanism_selection.matrices import (
    EQ1_DERIVED,
    EQ1_PRINTED,
    LDP_CHANGE,
    LDP_KEEP,
    N,
    compose,
    ldp_matrix,
    ldp_ratio,
    ldp_ratio_closed,
    p_ldp,
    p_ldp_for_ratio,
    p_t_for,
    released_distribution,
    tclo_matrix,
    tclo_t_closed,
    tclo_t_printed,
    worst_class_t,
)
from theory.mechanism_selection.planner import exp_epsilon_for_t, implied_t, plan
from theory.mechanism_selection.utility import (
    utility,
    utility_composed_closed,
    utility_composed_printed,
    utility_ldp_closed,
)
from theory.papers.ekenstedt2022.mechanism_checks import CHECKS, table_for
from theory.papers.ekenstedt2022.mechanism_claims import CLAIMS
from theory.tables import levels

SETTINGS = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------- rows for the brute force (tests/_theory_bruteforce.py)


def rows_of(matrix: sympy.Matrix, counts: list[int]) -> list[list[Fraction]]:
    return [[Fraction(str(x)) for x in matrix.row(i)] for i, c in enumerate(counts) for _ in range(c)]


fraction = st.fractions(min_value=0, max_value=1, max_denominator=12)
counts_strategy = st.lists(st.integers(min_value=0, max_value=3), min_size=2, max_size=3).filter(
    lambda c: sum(1 for x in c if x) >= 2 and sum(c) <= 7
)


def freqs(counts: list[int]) -> list[Fraction]:
    return [Fraction(c, sum(counts)) for c in counts]


# ---------------------------------------------------------------- eq. (1)


def test_eq1_derived_from_fig4_entries() -> None:
    # Fig. 4: keep = p + (1-p)/n, change = (1-p)/n; the largest column ratio is keep/change.
    assert sympy.simplify(LDP_KEEP / LDP_CHANGE - sympy.exp(EQ1_DERIVED.rhs)) == 0


@pytest.mark.parametrize("values", [2, 3, 5])
@pytest.mark.parametrize("keep", [Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(5, 6)])
def test_eq1_equals_measured_ldp_level(values: int, keep: Fraction) -> None:
    matrix = ldp_matrix(values, keep)
    rows = rows_of(matrix, [1] * values)
    expected = brute.ldp_ratio(rows)
    assert ldp_ratio_closed(values, keep) == expected
    assert levels.ldp_ratio(table_for(matrix, [1] * values)) == expected
    assert ldp_ratio(matrix, [Fraction(1, values)] * values) == expected


def test_eq1_printed_is_wrong() -> None:
    # n = N = 2, p = 1/2: matrix [[3/4, 1/4], [1/4, 3/4]], e^eps = (3/4)/(1/4) = 3;
    # printed 1 + p/(N(1-p)) = 1 + (1/2)/(2 * 1/2) = 3/2.
    printed = sympy.exp(EQ1_PRINTED.rhs.subs({p_ldp: sympy.Rational(1, 2), N: 2}))
    assert printed == sympy.Rational(3, 2)
    assert brute.ldp_ratio(rows_of(ldp_matrix(2, Fraction(1, 2)), [1, 1])) == 3


@given(st.integers(min_value=1, max_value=6), st.fractions(min_value=1, max_value=20, max_denominator=9))
@SETTINGS
def test_p_ldp_for_ratio_inverts_eq1(values: int, ratio: Fraction) -> None:
    keep = p_ldp_for_ratio(ratio, values)
    assert 0 <= keep < 1
    if values >= 2:
        assert ldp_ratio_closed(values, keep) == ratio


# ---------------------------------------------------------------- eq. (2)


def test_eq2_counterexample() -> None:
    # f = (1/4, 3/4), p_t = 1/2: row of a_1 is (1/2 + 1/8, 3/8) = (5/8, 3/8), Pr_D = f,
    # class of the two a_1 records: (5/8)/(1/4) = 5/2 > printed 1/(1 - 1/2) = 2.
    f = [Fraction(1, 4), Fraction(3, 4)]
    matrix = tclo_matrix(f, Fraction(1, 2))
    table = table_for(matrix, [2, 6])
    assert levels.multiplicative_t(table) == Fraction(5, 2)
    assert tclo_t_closed(f, Fraction(1, 2)) == Fraction(5, 2)
    assert tclo_t_printed(f, Fraction(1, 2)) == 2


@given(counts_strategy, fraction, st.integers(min_value=1, max_value=3))
@SETTINGS
def test_eq2_is_tight_for_kt_closeness(counts: list[int], keep: Fraction, k: int) -> None:
    f = freqs(counts)
    matrix = tclo_matrix(f, keep)
    rows = rows_of(matrix, counts)
    measured = brute.kt_level(rows, k)
    closed = tclo_t_closed(f, keep)
    assert worst_class_t(matrix, f) == closed
    assert measured <= closed
    present = [c for c in counts if c]
    if min(present) >= k and sum(counts) - max(present) >= k:
        assert measured == closed
    assert tclo_t_printed(f, keep) <= closed


def test_tclo_release_distribution_is_the_data_distribution() -> None:
    f = [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
    assert released_distribution(tclo_matrix(f, Fraction(2, 7)), f) == tuple(sympy.Rational(x) for x in f)


@given(counts_strategy, st.fractions(min_value=1, max_value=6, max_denominator=5))
@SETTINGS
def test_p_t_for_meets_t0_and_is_largest(counts: list[int], t0: Fraction) -> None:
    f = freqs(counts)
    keep = p_t_for(t0, f)
    assert 0 <= keep <= 1
    assert tclo_t_closed(f, keep) <= t0
    if keep < 1:
        assert tclo_t_closed(f, keep + Fraction(1, 1000)) > t0


# ---------------------------------------------------------------- utility, eqs. (3)-(6)


matrix_rows = st.lists(st.lists(st.integers(min_value=0, max_value=5), min_size=3, max_size=3), min_size=3, max_size=3)


def stochastic(raw: list[list[int]]) -> sympy.Matrix:
    return sympy.Matrix([[sympy.Rational(x + 1, sum(r) + 3) for x in r] for r in raw])


@given(matrix_rows, matrix_rows, st.lists(st.integers(min_value=0, max_value=4), min_size=3, max_size=3).filter(any))
@SETTINGS
def test_utility_bounds_and_post_processing(first: list[list[int]], second: list[list[int]], weights: list[int]) -> None:
    f = [Fraction(w, sum(weights)) for w in weights]
    a, b = stochastic(first), stochastic(second)
    ua = utility(a, f)
    assert max(f) <= ua <= 1
    assert utility(compose(a, b), f) <= ua  # post-processing never helps the guesser
    # eq. (3) with the binary gain is eq. (4)
    assert utility(a, f, sympy.eye(3)) == ua


@given(counts_strategy, fraction, fraction)
@SETTINGS
def test_closed_forms_eq5_eq6_equal_eq4(counts: list[int], first: Fraction, second: Fraction) -> None:
    f = freqs(counts)
    size = len(f)
    assert utility_ldp_closed(f, second) == utility(ldp_matrix(size, second), f)
    composed = compose(tclo_matrix(f, first), ldp_matrix(size, second))
    assert utility_composed_closed(f, first, second) == utility(composed, f)


def test_eq6_printed_exceeds_one_without_noise() -> None:
    # p_t = p_LDP = 1 is the identity: utility 1. Printed: sum over 2 outputs of max_i f_1(a_i) = 2 * 3/4.
    f = [Fraction(3, 4), Fraction(1, 4)]
    assert utility_composed_closed(f, 1, 1) == 1
    assert utility_composed_printed(f, 1, 1) == Fraction(3, 2)


# ---------------------------------------------------------------- composition


@given(counts_strategy, fraction, fraction)
@SETTINGS
def test_composition_levels(counts: list[int], first: Fraction, second: Fraction) -> None:
    f = freqs(counts)
    size = len(f)
    a, b = tclo_matrix(f, first), ldp_matrix(size, second)
    composed = compose(a, b)
    ra, rb, rc = ldp_ratio(a, f), ldp_ratio(b, f), ldp_ratio(composed, f)
    assert rc == brute.ldp_ratio(rows_of(composed, counts))
    # post-processing: eps(composed) <= min(eps_a, eps_b) <= eps_a + eps_b
    assert sympy.Le(rc, sympy.Min(ra, rb)) == sympy.true
    if ra != sympy.oo and rb != sympy.oo:
        assert rc <= ra * rb
    # exact value: 1 + p p_t / ((1-p)/n + p (1-p_t) f_min)  (column of the rarest value)
    f_min = min(x for x in f if x)
    if second < 1 or first < 1:
        assert rc == 1 + second * first / ((1 - second) / size + second * (1 - first) * f_min)
    assert worst_class_t(composed, f) <= worst_class_t(a, f)


# ---------------------------------------------------------------- worked setting and planner


def test_worked_setting_epsilon_t() -> None:
    # Ekenstedt et al. 2022, Sec. V.D: t0 = 2, n = 2, N = 100, k = 5, "eps_t = 0.7".
    # Tight bound t = (k + (N-k) e^eps)/N = 2  =>  e^eps = (2*100 - 5)/(100 - 5) = 39/19, eps = 0.7191.
    # (Ekenstedt et al. 2022, Thm. 3 as printed, N-k-1: e^eps = 195/94, eps = 0.7297; both round to 0.7.)
    ratio = exp_epsilon_for_t(2, 100, 5)
    assert ratio == sympy.Rational(39, 19)
    assert round(float(sympy.log(ratio)), 1) == 0.7
    assert implied_t(ratio, 100, 5) == 2


def test_worked_setting_bound_is_attained() -> None:
    # 5 records of a_1, 95 of a_2, Fig. 4 at e^eps = 39/19: the class of the 5 a_1 records has
    # Pr_D(a_2)/Pr_E(a_2) = (5 + 95 * 39/19)/100 = 2 = t0 exactly.
    matrix = ldp_matrix(2, p_ldp_for_ratio(sympy.Rational(39, 19), 2))
    table = table_for(matrix, [5, 95])
    assert levels.multiplicative_t(table) == 2
    assert levels.kt_closeness_t(table, 5) == 2


def test_worked_setting_plan() -> None:
    # uniform n = 2, eps0 = eps_t: p_LDP = (39/19 - 1)/(39/19 - 1 + 2) = 10/29;
    # U_LDP = 2 * 1/2 * (10/29 + (19/29)/2) = 39/58; Fig. 5 at t0 = 2 has p_t = 1/2 and U = 3/4,
    # composed U = 17/29; 3/4 > 39/58 > 17/29 but Fig. 5 alone has e^eps = 3 > 39/19.
    p = plan(2, sympy.log(sympy.Rational(39, 19)), 100, 5, [Fraction(1, 2), Fraction(1, 2)])
    assert p.best is not None and p.best.name == "ldp"
    assert p.choice("ldp").utility == sympy.Rational(39, 58)
    assert p.choice("tclo+ldp").utility == sympy.Rational(17, 29)
    assert p.choice("tclo").utility == sympy.Rational(3, 4)
    assert not p.choice("tclo").meets_epsilon
    assert all(c.meets_t for c in p.choices)


def test_plan_with_irrational_and_infinite_eps0() -> None:
    f = [Fraction(1, 4), Fraction(3, 4)]
    # eps0 = 1/2: e^eps0 = 1.6487 < e^eps_t = 39/19 = 2.0526, so mechanism 1 runs at exactly eps0.
    p = plan(2, sympy.Rational(1, 2), 100, 5, f)
    ldp = p.choice("ldp")
    assert sympy.simplify(ldp.exp_epsilon - sympy.exp(sympy.Rational(1, 2))) == 0
    assert ldp.meets and not p.choice("tclo").meets_epsilon  # Fig. 5 at p_t = 1/3: e^eps = 1 + (1/3)/((2/3)(1/4)) = 3
    assert p.choice("tclo").exp_epsilon == 3
    # eps0 = oo: no LDP requirement; Fig. 5 alone and the chain with p_LDP = 1 coincide (U = 3/4),
    # and the tie goes to the single-stage mechanism.
    q = plan(2, sympy.oo, 100, 5, [Fraction(1, 2)] * 2)
    assert q.choice("tclo+ldp").utility == q.choice("tclo").utility == sympy.Rational(3, 4)
    assert q.best is not None and q.best.name == "tclo"
    assert q.to_json()["best"] == "tclo"


def test_t0_one_forces_an_uninformative_release() -> None:
    # t0 = 1 forces every class to equal the data set: p_t = 0 and e^eps_t = 1 (p_LDP = 0);
    # every mechanism then releases independent noise and U = max f = 2/3.
    p = plan(1, 0, 10, 2, [Fraction(2, 3), Fraction(1, 3)])
    assert all(c.meets and c.utility == sympy.Rational(2, 3) for c in p.choices)


@given(
    st.fractions(min_value=1, max_value=6, max_denominator=4),
    st.integers(min_value=1, max_value=19).map(lambda a: [Fraction(a, 20), Fraction(20 - a, 20)]),
)
@settings(max_examples=25, deadline=None)
def test_planner_choices_are_valid_and_ldp_dominates(t0: Fraction, f: list[Fraction]) -> None:
    records, k = 100, 5
    p = plan(t0, sympy.log(exp_epsilon_for_t(t0, records, k)), records, k, f)
    ldp, both = p.choice("ldp"), p.choice("tclo+ldp")
    assert ldp.meets and both.meets
    # Ekenstedt et al. 2022, Sec. V.D: with eps0 = eps_t, U_LDP >= U_tClo+LDP (Fig. 6)
    assert sympy.Ge(ldp.utility, both.utility) == sympy.true
    counts = [int(x * records) for x in f]  # multiples of 5 = k
    for choice in p.choices:  # the reported t bounds the exact (k,t) level of the 100-record data set
        assert sympy.Le(levels.kt_closeness_t(table_for(choice.matrix, counts), k), choice.t) == sympy.true


@given(counts_strategy, fraction, st.fractions(min_value=1, max_value=8, max_denominator=6))
@SETTINGS
def test_ldp_alone_beats_composition_at_equal_epsilon(counts: list[int], first: Fraction, ratio: Fraction) -> None:
    # Ekenstedt et al. 2022, Sec. V.D: at the same eps, Fig. 4 alone is at least as useful as Fig. 5 followed by
    # Fig. 4, whatever p_t (so mechanism 1 beats mechanism 2 for every eps0 <= eps_t).
    f = freqs(counts)
    second = ldp_matrix(len(f), p_ldp_for_ratio(ratio, len(f)))
    assert utility(compose(tclo_matrix(f, first), second), f) <= utility(second, f)


def test_tclo_alone_can_beat_ldp_unlike_fig6_text() -> None:
    # Ekenstedt et al. 2022, Sec. V.D says U_tClo <= U_LDP for every p_y(a_1) (t0 = 2, eps = eps_t). With the
    # corrected eq. (1), at p_y = (1/2, 1/2): U_tClo = 3/4 (p_t = 1/2) > U_LDP = 39/58 (p_LDP = 10/29).
    f = [Fraction(1, 2)] * 2
    assert utility(tclo_matrix(f, p_t_for(2, f)), f) == sympy.Rational(3, 4)
    assert utility(ldp_matrix(2, p_ldp_for_ratio(exp_epsilon_for_t(2, 100, 5), 2)), f) == sympy.Rational(39, 58)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((Fraction(1, 2), 1, 100, 5, [Fraction(1, 2)] * 2), ValueError, "t0 must be >= 1"),
        ((2, -1, 100, 5, [Fraction(1, 2)] * 2), ValueError, "eps0 must be >= 0"),
        ((2, 1, 100, 100, [Fraction(1, 2)] * 2), ValueError, "k must satisfy 1 <= k < N"),
        ((2, 1, 100, 5, [Fraction(1, 2), Fraction(1, 3)]), ValueError, "must sum to 1"),
        ((2, 1, 100, 5, [Fraction(3, 2), Fraction(-1, 2)]), ValueError, "must be >= 0"),
        ((2.0, 1, 100, 5, [Fraction(1, 2)] * 2), TypeError, "must be exact"),
        ((2, 1, 100, 5, []), ValueError, "at least one value"),
    ],
)
def test_plan_rejects_bad_input(args: tuple, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        plan(*args)


# ---------------------------------------------------------------- registered claims


def test_mechanism_claims_are_checked() -> None:
    assert {c.id for c in CLAIMS} == set(CHECKS)
    for claim in CLAIMS:
        result = CHECKS[claim.id]()
        assert result.status == "corrected", result.detail
        assert claim.corrected is not None and claim.source.paper == "Ekenstedt et al. 2022"
