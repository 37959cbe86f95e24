"""Tests of mechanisms.randomized_response (Ekenstedt et al. 2022, Sec. V.A, Figs. 4-5).

The concrete Fraction matrices are cross-checked with theory.mechanism_selection.matrices, and the
per-record tables they produce are measured with theory.tables.levels (exact) to confirm the
corrected eqs. (1)-(2). Sampling is checked against the exact matrix with a binomial
tolerance on a seeded generator.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms.randomized_response import (
    empirical_frequencies,
    ldp_randomized_response,
    tclo_randomized_response,
)
from theory.mechanism_selection.matrices import compose, ldp_matrix, ldp_ratio_closed, tclo_matrix, tclo_t_closed
from theory.tables import levels
from theory.tables.probability_table import ProbabilityTable
from verifier.errors import DataError, MechanismError
from verifier.randomized.mechanism import Mechanism

VALUES = ("flu", "cancer", "hiv")


def probability_table(mechanism: Mechanism, column: list[str]) -> list[tuple[Fraction, ...]]:
    """Per-record rows Pr(Z(c_r) = a_j): the table Ekenstedt et al. 2022 (Defs. 4-8) state levels on."""
    return [mechanism.matrix[code] for code in mechanism.codes(column)]


def as_sympy(mechanism: Mechanism) -> sympy.Matrix:
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in mechanism.matrix])


@given(st.integers(min_value=1, max_value=5), st.fractions(min_value=0, max_value=1, max_denominator=11))
@settings(max_examples=30, deadline=None)
def test_ldp_matrix_matches_theory(size: int, keep: Fraction) -> None:
    values = [f"a{i}" for i in range(size)]
    assert as_sympy(ldp_randomized_response(values, keep=keep)) == ldp_matrix(size, keep)


@pytest.mark.parametrize("exp_epsilon", [Fraction(1), Fraction(3, 2), Fraction(3), Fraction(39, 19)])
def test_exp_epsilon_is_met_exactly_on_the_records(exp_epsilon: Fraction) -> None:
    mechanism = ldp_randomized_response(VALUES, exp_epsilon=exp_epsilon)
    column = ["flu", "cancer", "hiv", "flu"]
    table = ProbabilityTable.from_rows(probability_table(mechanism, column))
    # Ekenstedt et al. 2022, Def. 6 measured on the records = the corrected eq. (1)
    assert levels.ldp_ratio(table) == exp_epsilon
    keep = mechanism.matrix[0][0] - mechanism.matrix[0][1]
    assert ldp_ratio_closed(3, keep) == exp_epsilon


def test_tclo_matrix_and_eq2_on_a_partitioned_release() -> None:
    # 4 flu, 2 cancer, 2 hiv; f = (1/2, 1/4, 1/4); p_t = 1/3.
    # Class of the two cancer records: Pr_E(cancer) = 1/3 + (2/3)(1/4) = 1/2 = 2 Pr_D(cancer),
    # and Pr_D(flu)/Pr_E(flu) = 1/(1 - 1/3) = 3/2, so t = max(2, 3/2) = 2 (corrected eq. (2)).
    column = ["flu"] * 4 + ["cancer"] * 2 + ["hiv"] * 2
    f = empirical_frequencies(column, VALUES)
    assert f == (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4))
    mechanism = tclo_randomized_response(VALUES, f, Fraction(1, 3))
    assert as_sympy(mechanism) == tclo_matrix(f, Fraction(1, 3))
    table = ProbabilityTable.from_rows(probability_table(mechanism, column), [range(4), range(4, 6), range(6, 8)])
    assert levels.multiplicative_t(table) == 2
    assert tclo_t_closed(f, Fraction(1, 3)) == 2


def test_then_is_theory_composition() -> None:
    f = (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6))
    first = tclo_randomized_response(VALUES, f, Fraction(2, 5))
    second = ldp_randomized_response(VALUES, keep=Fraction(1, 4))
    composed = first.then(second)
    assert as_sympy(composed) == compose(tclo_matrix(f, Fraction(2, 5)), ldp_matrix(3, Fraction(1, 4)))
    assert all(sum(row) == 1 for row in composed.matrix)


def test_sampling_matches_the_matrix_within_binomial_tolerance() -> None:
    # 20,000 records per true value; each released count must lie within 5 standard deviations
    # sqrt(m p (1-p)) of its mean m p (a false alarm has probability < 1e-5 per cell; the seed
    # makes the run deterministic).
    mechanism = tclo_randomized_response(VALUES, (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)), Fraction(1, 5))
    per_value = 20_000
    column = pd.Series(np.repeat(np.array(VALUES, dtype=object), per_value))
    released = mechanism.sample(column, np.random.default_rng(20260101))
    for i, true_value in enumerate(VALUES):
        counts = Counter(released[i * per_value : (i + 1) * per_value])
        for j, value in enumerate(VALUES):
            p = float(mechanism.matrix[i][j])
            assert abs(counts[value] - per_value * p) <= 5 * math.sqrt(per_value * p * (1 - p)) + 1, (true_value, value)


def test_sampling_is_reproducible_and_never_releases_impossible_values() -> None:
    mechanism = tclo_randomized_response(VALUES, (Fraction(1, 2), Fraction(1, 2), Fraction(0)), Fraction(1, 2))
    column = ["flu", "cancer"] * 500
    first = mechanism.sample(column, np.random.default_rng(7))
    assert list(first) == list(mechanism.sample(column, np.random.default_rng(7)))
    assert "hiv" not in set(first)  # Pr(Z(c) = hiv) = 0 for flu and cancer
    identity = ldp_randomized_response(VALUES, keep=1)
    assert list(identity.sample(column, np.random.default_rng(3))) == column


def test_empirical_frequencies_counts_exactly() -> None:
    assert empirical_frequencies(np.array(["hiv", "flu", "flu"], dtype=object), VALUES) == (
        Fraction(2, 3),
        Fraction(0),
        Fraction(1, 3),
    )


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: ldp_randomized_response(VALUES), ValueError, "exactly one of keep"),
        (lambda: ldp_randomized_response(VALUES, keep=Fraction(1, 2), exp_epsilon=2), ValueError, "exactly one"),
        (lambda: ldp_randomized_response(VALUES, keep=0.5), TypeError, "int or a Fraction"),
        (lambda: ldp_randomized_response(VALUES, exp_epsilon=Fraction(1, 2)), ValueError, "must be >= 1"),
        (lambda: ldp_randomized_response(VALUES, keep=Fraction(3, 2)), ValueError, r"lie in \[0, 1\]"),
        (lambda: tclo_randomized_response(VALUES, (Fraction(1, 2),) * 3, 0), ValueError, "sum to 1"),
        (lambda: tclo_randomized_response(("a", "a"), (Fraction(1, 2),) * 2, 0), MechanismError, "distinct"),
        (lambda: ldp_randomized_response(VALUES, keep=1).sample(["flu", "ebola"], np.random.default_rng(0)),
         DataError, "record 2 has true value 'ebola'"),
        (lambda: empirical_frequencies(["flu", "ebola"], VALUES), DataError, "record 2 has value 'ebola'"),
        (lambda: empirical_frequencies([], VALUES), DataError, "empty column"),
        (lambda: ldp_randomized_response(0, keep=1), ValueError, "at least one value"),
        (lambda: ldp_randomized_response(VALUES, keep=1).then(ldp_randomized_response(("x",), keep=1)),
         MechanismError, "cannot compose"),
    ],
)
def test_bad_inputs(build: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        build()  # type: ignore[operator]


def test_a_randomized_response_wider_than_its_bound_is_refused_before_any_matrix_is_built() -> None:
    from mechanisms.randomized_response import MAX_VALUES

    with pytest.raises(MechanismError, match="1,001 distinct values"):
        ldp_randomized_response(MAX_VALUES + 1, keep=Fraction(1, 2))
    with pytest.raises(MechanismError, match="at most 1,000 values"):
        tclo_randomized_response(range(MAX_VALUES + 1), [Fraction(1, MAX_VALUES + 1)] * (MAX_VALUES + 1), Fraction(1, 2))
    assert len(ldp_randomized_response(MAX_VALUES, keep=Fraction(1, 2)).values) == MAX_VALUES
