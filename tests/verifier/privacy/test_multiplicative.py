"""Multiplicative t-closeness (verifier.privacy.multiplicative): Domingo-Ferrer & Soria-Comas 2015, Fig. 2, Table 1, brute force."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pandas as pd
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.privacy.multiplicative import multiplicative_t_closeness
from verifier.tables.buckets import EqualFrequency, Groups, Ranges
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, CountTable


def table_of(rows: list[tuple[object, object]], kind: str = "numerical", order: tuple[object, ...] | None = None) -> CountTable:
    frame = pd.DataFrame(rows, columns=["E", "x"])
    _, (table,) = count_tables(frame, ["E"], [AttributeSpec(("x",), kind=kind, order=order)])  # type: ignore[arg-type]
    return table


# Domingo-Ferrer & Soria-Comas 2015, §6, Fig. 2: 12 values in three buckets of four (B1 = 1..4, B2 = 5..8, B3 = 9..12); each
# class takes two points of "its" bucket and one of each other bucket.
FIG_2 = {1: [1, 2, 5, 9], 2: [3, 6, 7, 10], 3: [4, 8, 11, 12]}


def test_000_fig_2_is_one_point_five_close() -> None:
    # D = (1/3, 1/3, 1/3); D(E1) = (1/2, 1/4, 1/4): ratios (1/2)/(1/3) = 3/2 and
    # (1/3)/(1/4) = 4/3, so t = 3/2 for every class (Domingo-Ferrer & Soria-Comas 2015: "satisfies 1.5-closeness").
    table = table_of([(e, v) for e, values in FIG_2.items() for v in values])
    result = multiplicative_t_closeness(table, Ranges.from_edges([1, 5, 9, 13]))
    assert result.level.value == sympy.Rational(3, 2)
    assert result.comparison == "at_most" and result.model == "multiplicative_t_closeness"
    assert result.witness is not None
    assert (result.witness.qi, result.witness.value) == ({"E": 1}, "[1, 5)")
    assert result.witness.numbers == {
        "ratio": Fraction(3, 2),
        "direction": "class/table",
        "class_count": 2,
        "class_size": 4,
        "bucket_count": 4,
        "table_size": 12,
    }
    assert result.parameters == {
        "bucketing": "ranges",
        "ranges": ["[1, 5)", "[5, 9)", "[9, 13)"],
        "bucket_count": 3,
        "buckets": ["[1, 5)", "[5, 9)", "[9, 13)"],
    }
    # The same buckets from Domingo-Ferrer & Soria-Comas (2015)'s equal-frequency construction with t = 2 (b = 3 buckets of 4).
    assert multiplicative_t_closeness(table, EqualFrequency(2)).level.value == sympy.Rational(3, 2)


@pytest.mark.parametrize("t", [1, 2, 3, 4])
def test_000_table_1_shape_gives_exactly_t(t: int) -> None:
    # Domingo-Ferrer & Soria-Comas 2015, Table 1: t + 1 buckets of mass 1/(t+1); class E_i has mass t/(t+1) in B_i and
    # 1/(t(t+1)) in each other bucket. With |E_i| = t(t+1): t² records of B_i and one of each
    # other bucket; each bucket then holds t² + t = t(t+1) records, N = t(t+1)².
    # Ratios: (t/(t+1)) / (1/(t+1)) = t and (1/(t+1)) / (1/(t(t+1))) = t.
    rows = []
    for bucket in range(t + 1):
        values = iter(range(1000 * bucket, 1000 * bucket + t * (t + 1)))
        for klass in range(t + 1):
            rows += [(klass, next(values)) for _ in range(t * t if klass == bucket else 1)]
    table = table_of(rows)
    result = multiplicative_t_closeness(table, EqualFrequency(t))
    assert result.parameters["bucket_count"] == t + 1
    assert result.level.value == sympy.Integer(t)


def test_missing_bucket_is_infinite_with_a_witness() -> None:
    table = table_of([(1, "a"), (1, "b"), (2, "a"), (3, "b"), (3, "a")], kind="categorical")
    result = multiplicative_t_closeness(table)
    assert result.level.exact == "inf"
    assert result.level.reason == (
        "class {'E': 2} has no record in bucket 'b', which holds 2 of the table's 5 records: "
        "the ratio P(b)/P_E(b) has a zero denominator (Domingo-Ferrer & Soria-Comas 2015, Definition 4)"
    )
    assert result.witness is not None and (result.witness.qi, result.witness.value) == ({"E": 2}, "b")
    assert result.witness.numbers["classes_lacking_a_bucket"] == 1
    # Grouping both values into one bucket makes every class identical to the table: t = 1.
    grouped = multiplicative_t_closeness(table, Groups.from_mapping({"all": ["a", "b"]}))
    assert grouped.level.exact == "1"


def test_declared_value_absent_from_the_table_is_skipped() -> None:
    # 0/0 counts as 0 (Domingo-Ferrer & Soria-Comas 2015, Definition 4): a declared category nobody has does not make t infinite.
    # First table: Q = (1/4, 3/4, 0) over (low, mid, high); class 1 = {low} lacks "mid", which the
    # table holds: ∞. Second table: both classes equal Q = (1/2, 1/2, 0) and lack only "high",
    # which the table lacks too (0/0 = 0): t = 1.
    table = table_of([(1, "low"), (2, "low"), (2, "mid"), (2, "mid")], kind="ordinal", order=("low", "mid", "high"))
    assert multiplicative_t_closeness(table).level.exact == "inf"
    balanced = table_of([(1, "low"), (1, "mid"), (2, "low"), (2, "mid")], kind="ordinal", order=("low", "mid", "high"))
    assert multiplicative_t_closeness(balanced).level.exact == "1"


def brute_force(rows: list[tuple[int, int]]) -> Fraction | None:
    """max over classes and values of max(P_E/P, P/P_E), with a loop; None for infinity."""
    values = sorted({v for _, v in rows})
    best = Fraction(0)
    for klass in {e for e, _ in rows}:
        mine = [v for e, v in rows if e == klass]
        for value in values:
            p_e = Fraction(mine.count(value), len(mine))
            p = Fraction(sum(v == value for _, v in rows), len(rows))
            if p_e == 0:
                return None
            best = max(best, p_e / p, p / p_e)
    return best


def by_definition_4(rows: list[tuple[int, int]]) -> Fraction | None:
    """Domingo-Ferrer & Soria-Comas 2015, Definition 4 over every set S of values (0/0 = 0, x/0 = ∞); None for infinity."""
    values = sorted({v for _, v in rows})
    best = Fraction(0)
    for klass in {e for e, _ in rows}:
        mine = [v for e, v in rows if e == klass]
        for size in range(1, len(values) + 1):
            for subset in combinations(values, size):
                p_e = Fraction(sum(v in subset for v in mine), len(mine))
                p = Fraction(sum(v in subset for _, v in rows), len(rows))
                if p_e == 0:
                    return None
                best = max(best, p_e / p, p / p_e)
    return best


rows_strategy = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=30)


@given(rows_strategy)
@settings(max_examples=80, deadline=None)
def test_equals_brute_force_and_definition_4_and_is_at_least_one(rows: list[tuple[int, int]]) -> None:
    result = multiplicative_t_closeness(table_of(rows))
    expected = brute_force(rows)
    assert by_definition_4(rows) == expected  # Domingo-Ferrer & Soria-Comas 2015, Proposition 2: single values suffice
    if expected is None:
        assert result.level.exact == "inf"
    else:
        assert result.level.value == sympy.Rational(expected.numerator, expected.denominator)
        assert expected >= 1


@given(rows_strategy, st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_row_order_and_index_labels_never_change_results(rows: list[tuple[int, int]], random: object) -> None:
    frame = pd.DataFrame(rows, columns=["E", "x"])
    shuffled = frame.sample(frac=1.0, random_state=random.randint(0, 2**31))  # type: ignore[attr-defined]
    shuffled.index = [f"r{i * 7 + 3}" for i in range(len(shuffled))]
    spec = [AttributeSpec(("x",), kind="numerical")]
    outputs = []
    for data in (frame, shuffled):
        _, (table,) = count_tables(data, ["E"], spec)
        outputs.append([multiplicative_t_closeness(table, b).to_json() for b in (None, EqualFrequency(1))])
    assert outputs[0] == outputs[1]
