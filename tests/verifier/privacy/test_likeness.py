"""Basic and enhanced β-likeness and δ-disclosure privacy (verifier.privacy.likeness)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from _measure_tables import (
    class_counts,
    empty_table,
    fractions_p,
    paper_table,
    perturbed,
    releases,
    table_from_counts,
    tables_of,
    wide_screen,
)
from verifier.privacy.likeness import (
    basic_beta_likeness,
    delta_disclosure,
    delta_disclosure_present,
    enhanced_beta_likeness,
)
from verifier.privacy.multiplicative import multiplicative_t_closeness


def _gains(table) -> list[tuple[Fraction, Fraction]]:
    """Brute force: ``(gain, p)`` for every cell with q > p."""
    p = fractions_p(table)
    out = []
    for _, row in class_counts(table):
        size = sum(row)
        for count, p_s in zip(row, p):
            q = Fraction(count, size)
            if q > p_s:
                out.append(((q - p_s) / p_s, p_s))
    return out


def test_table2_beta():
    # Li et al. 2007, Table 2, N = 9: Heart Disease 5, Cancer 3, Flu 1.
    # Class (4790*, >=40) = {Flu, HD, Cancer}: Flu q = 1/3 vs p = 1/9, gain (1/3 - 1/9)/(1/9) = 2.
    # Other gains: class 1 HD (1 - 5/9)/(5/9) = 4/5; class 3 Cancer (2/3 - 1/3)/(1/3) = 1. So β* = 2.
    measurement = basic_beta_likeness(paper_table("disease2"))
    assert measurement.level.exact == "2"
    assert measurement.witness.qi == {"zip": "4790*", "age": ">=40"}
    assert measurement.witness.value == "Flu"
    assert measurement.witness.numbers["q"] == Fraction(1, 3) and measurement.witness.numbers["p"] == Fraction(1, 9)


def test_table2_enhanced_beta_is_unattainable():
    # Class (476**, 2*) is all Heart Disease: gain 4/5 = 0.8 > -ln(5/9) = 0.5878...,
    # so (q-p)/p <= min(β, -ln p) fails for every β.
    measurement = enhanced_beta_likeness(paper_table("disease2"))
    assert measurement.level.exact == "inf"
    assert "unattainable" in measurement.level.reason and "unattainable" in measurement.notes
    assert measurement.witness.qi == {"zip": "476**", "age": "2*"}
    assert measurement.witness.value == "Heart Disease"
    assert not measurement.level.satisfies(10**6, "at_most")
    assert Fraction(4, 5) > -math.log(5 / 9)


def test_table4_beta():
    # Table 4: values seen once in the table (p = 1/9) appear once in a class of 3 (q = 1/3):
    # gain 2; values seen twice (p = 2/9): gain (1/3 - 2/9)/(2/9) = 1/2. β* = 2.
    # Enhanced: 2 <= -ln(1/9) = 2.197... and 1/2 <= -ln(2/9) = 1.504..., so β* = 2 as well.
    table = paper_table("disease4")
    assert basic_beta_likeness(table).level.exact == "2"
    enhanced = enhanced_beta_likeness(table)
    assert enhanced.level.exact == "2" and enhanced.witness.value == "gastric ulcer"


def test_beta_zero_when_every_class_has_the_table_distribution():
    table = table_from_counts([{"a": 1, "b": 2}, {"a": 2, "b": 4}])
    for measure in (basic_beta_likeness, enhanced_beta_likeness):
        measurement = measure(table)
        assert measurement.level.exact == "0" and measurement.witness is None
        assert "β* = 0" in measurement.notes[0]
    assert delta_disclosure(table).level.exact == "0"


def test_delta_on_paper_tables_is_infinite():
    # Table 2: class (476**, 2*) lacks Cancer (p = 3/9): q = 0, |ln(q/p)| = ∞.
    table2 = delta_disclosure(paper_table("disease2"))
    assert table2.level.exact == "inf" and table2.witness.value == "Cancer"
    assert table2.witness.qi == {"zip": "476**", "age": "2*"}
    # Table 4: every class lacks most diseases; the first class lacks 'bronchitis' (first in sorted order).
    table4 = delta_disclosure(paper_table("disease4"))
    assert table4.level.exact == "inf" and table4.witness.value == "bronchitis"


def test_delta_closed_form():
    # Classes {a,a,b} and {a,b,b}; p(a) = p(b) = 1/2. Class 0: q(a)/p = (2/3)/(1/2) = 4/3,
    # q(b)/p = 2/3 -> |ln| = ln(3/2) > ln(4/3). So δ* = ln(3/2), attained by class 0, value b
    # (and by class 1, value a; class 0 sorts first).
    measurement = delta_disclosure(table_from_counts([{"a": 2, "b": 1}, {"a": 1, "b": 2}]))
    assert measurement.level.exact == "ln(3/2)"
    assert measurement.witness.qi == {"q": 0} and measurement.witness.value == "b"
    assert "natural logarithm" in measurement.notes
    # Strict definition: δ = ln(3/2) itself fails, anything larger passes.
    assert not measurement.level.satisfies(sympy.log(sympy.Rational(3, 2)), "below")
    assert measurement.level.satisfies(Fraction(41, 100), "below")  # ln 1.5 = 0.4055


def test_delta_high_side():
    # Classes {a,a,a,b} and {b,b,b,b,b,b,b,a}: N = 12, p(a) = 4/12 = 1/3, p(b) = 2/3.
    # Class 0: q(a)/p = (3/4)/(1/3) = 9/4; q(b)/p = (1/4)/(2/3) = 3/8 -> |ln| = ln(8/3) > ln(9/4).
    # Class 1: q(a)/p = (1/8)/(1/3) = 3/8 -> ln(8/3) too; q(b)/p = (7/8)/(2/3) = 21/16.
    measurement = delta_disclosure(table_from_counts([{"a": 3, "b": 1}, {"a": 1, "b": 7}]))
    assert measurement.level.exact == "ln(8/3)"
    measurement = delta_disclosure(table_from_counts([{"a": 3, "b": 1}, {"a": 1, "b": 3}, {"a": 0, "b": 0, "c": 4}]))
    # With a third value c in its own class, every other class lacks c: δ* = ∞.
    assert measurement.level.exact == "inf" and measurement.witness.value == "c"


@settings(max_examples=80, deadline=None)
@given(releases())
def test_basic_beta_matches_brute_force(frame):
    _, table = tables_of(frame)
    gains = _gains(table)
    measurement = basic_beta_likeness(table)
    assert measurement.level.value == max((g for g, _ in gains), default=0)
    assert measurement.level.satisfies(0, "at_least")


@settings(max_examples=80, deadline=None)
@given(releases())
def test_enhanced_unattainable_iff_a_gain_exceeds_minus_ln_p(frame):
    _, table = tables_of(frame)
    gains = _gains(table)
    # Independent check in 60-digit arithmetic (no gain comes within 1e-50 of -ln p here).
    with mpmath.workdps(60):
        unattainable = any(mpmath.mpf(g.numerator) / g.denominator
                           > -mpmath.log(mpmath.mpf(p.numerator) / p.denominator) for g, p in gains)
    measurement = enhanced_beta_likeness(table)
    assert (measurement.level.exact == "inf") == unattainable
    if not unattainable:
        assert measurement.level == basic_beta_likeness(table).level


@settings(max_examples=80, deadline=None)
@given(releases())
def test_delta_matches_brute_force(frame):
    _, table = tables_of(frame)
    p = fractions_p(table)
    worst, infinite = Fraction(1), False
    for _, row in class_counts(table):
        size = sum(row)
        for count, p_s in zip(row, p):
            if p_s == 0:
                continue
            if count == 0:
                infinite = True
                continue
            ratio = Fraction(count, size) / p_s
            worst = max(worst, ratio, 1 / ratio)
    measurement = delta_disclosure(table)
    if infinite:
        assert measurement.level.exact == "inf"
    else:
        assert measurement.level.value == sympy.log(sympy.Rational(worst.numerator, worst.denominator))
        assert math.isclose(measurement.level.number, math.log(worst), abs_tol=1e-12)


def test_delta_present_on_table_2():
    # Table 2 of Li et al. 2007: N = 9, p(Heart) = 5/9, p(Cancer) = 3/9, p(Flu) = 1/9. Over the
    # values present in each class the largest ratio is class (4790*, >=40)'s Flu:
    # (1/3)/(1/9) = 3 (the others: 9/5, 5/3, 1, 5/3, 2). Two classes lack a value, so the
    # definition's δ* is infinite while the variant is ln 3.
    measurement = delta_disclosure_present(paper_table("disease2"))
    assert measurement.model == "delta_disclosure_present" and measurement.comparison == "below"
    assert measurement.level.exact == "ln(3)"
    assert measurement.witness.qi == {"zip": "4790*", "age": ">=40"} and measurement.witness.value == "Flu"
    assert any("2 class(es) lack a value" in note for note in measurement.notes)
    assert delta_disclosure(paper_table("disease2")).level.exact == "inf"


def test_delta_present_skips_the_lacking_class():
    # Class a = {flu, cancer}, class b = {cancer, cancer}; p(flu) = 1/4, p(cancer) = 3/4.
    # b lacks flu (δ* = ∞); over present values: a's flu (1/2)/(1/4) = 2, a's cancer 2/3,
    # b's cancer 4/3: ln 2, the number pyCANON reports for this table.
    measurement = delta_disclosure_present(table_from_counts([{"flu": 1, "cancer": 1}, {"cancer": 2}]))
    assert measurement.level.exact == "ln(2)"
    assert measurement.witness.qi == {"q": 0} and measurement.witness.value == "flu"


def test_delta_present_witness_when_q_over_p_and_p_over_q_tie():
    # p(a) = p(b) = 1/2. Class 0 = {a, b, b, b}: its a has p/q = (1/2)/(1/4) = 2; class 1 =
    # {a, a}: its a has q/p = 1/(1/2) = 2. The largest ratio, 2, is attained both ways, and
    # the witness is the class whose QI values sort first, class 0, on the p/q side.
    measurement = delta_disclosure_present(table_from_counts([{"a": 1, "b": 3}, {"a": 2}]))
    assert measurement.level.exact == "ln(2)"
    assert measurement.witness.qi == {"q": 0} and measurement.witness.value == "a"


@settings(max_examples=80, deadline=None)
@given(releases())
def test_delta_present_matches_brute_force(frame):
    # Brute force over the cells with q > 0; never above the definition's δ*, and equal to it
    # when no class lacks a value of the table.
    _, table = tables_of(frame)
    p = fractions_p(table)
    ratios = [Fraction(count, sum(row)) / p_s for _, row in class_counts(table) for count, p_s in zip(row, p) if count]
    worst = max(max(r, 1 / r) for r in ratios)
    present, definition = delta_disclosure_present(table), delta_disclosure(table)
    assert present.level.value == sympy.log(sympy.Rational(worst.numerator, worst.denominator))
    lacking = any(count == 0 and p_s for _, row in class_counts(table) for count, p_s in zip(row, p))
    if lacking:
        assert definition.level.exact == "inf"
    else:
        assert present.level == definition.level and present.witness == definition.witness


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_row_order_and_labels_never_matter(data):
    frame = data.draw(releases())
    shuffled = data.draw(perturbed(frame))
    t1, t2 = tables_of(frame)[1], tables_of(shuffled)[1]
    for measure in (basic_beta_likeness, enhanced_beta_likeness, delta_disclosure, delta_disclosure_present):
        assert measure(t1).to_json() == measure(t2).to_json()


@pytest.mark.parametrize("measure", [basic_beta_likeness, enhanced_beta_likeness, delta_disclosure,
                                     delta_disclosure_present])
def test_comparison_direction(measure):
    expected = "below" if measure in (delta_disclosure, delta_disclosure_present) else "at_most"
    assert measure(paper_table("disease4")).comparison == expected


@settings(max_examples=60, deadline=None)
@given(releases())
def test_exact_steps_agree_with_the_screen(frame):
    # Widening the float screens sends every cell through the exact code (sympy's certified
    # comparison for -ln p, Fractions for the maxima); forcing Python ints instead of int64
    # exercises the path used beyond ~2·10^9 rows; screening two cells at a time against -ln p
    # sends the exact step cells of every chunk but the first. None may change any result.
    _, table = tables_of(frame)
    measures = (basic_beta_likeness, enhanced_beta_likeness, delta_disclosure, delta_disclosure_present)
    expected = [measure(table).to_json() for measure in measures]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("verifier.privacy.likeness.CHUNK_CELLS", 2)
        patch.setattr("verifier.privacy.likeness.screen_margin", wide_screen)
        patch.setattr("verifier.privacy._screen.screen_margin", wide_screen)
        patch.setattr("verifier._exact_max.INT64_SAFE", 1)
        assert [measure(table).to_json() for measure in measures] == expected


@pytest.mark.parametrize("measure", [basic_beta_likeness, enhanced_beta_likeness, delta_disclosure,
                                     delta_disclosure_present])
def test_table_without_rows_is_undefined(measure):
    measurement = measure(empty_table())
    assert measurement.level.exact == "undefined" and measurement.witness is None
    assert "no equivalence class with rows" in measurement.level.reason
    assert not measurement.level.satisfies(10, measurement.comparison)


@given(releases())
@settings(max_examples=60, deadline=None)
def test_delta_is_the_log_of_multiplicative_t_over_distinct_values(frame) -> None:
    # |ln(q/p)| ≤ δ for every cell ⟺ max(q/p, p/q) ≤ e^δ, so δ* = ln t* with t* the
    # multiplicative t-closeness level over the distinct values (Domingo-Ferrer & Soria-Comas 2015, Def. 4), and both are
    # infinite on the same tables; both name the same class and value.
    _, table = tables_of(frame)
    delta, t = delta_disclosure(table), multiplicative_t_closeness(table)
    if t.level.is_finite:
        assert delta.level.value == sympy.log(t.level.value)
    else:
        assert delta.level.value == sympy.oo
    assert (delta.witness.qi, delta.witness.value) == (t.witness.qi, t.witness.value)
