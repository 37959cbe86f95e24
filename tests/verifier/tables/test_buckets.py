"""Bucketizations (verifier.tables.buckets): Domingo-Ferrer & Soria-Comas 2015, §6.1–6.2 equal frequency, ranges, groups."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.errors import DataError, PolicyError
from verifier.tables.buckets import DistinctValues, EqualFrequency, Groups, Ranges, bucketize
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, CountTable


def table_of(values: list[Any], kind: str = "numerical", order: tuple[Any, ...] | None = None) -> CountTable:
    frame = pd.DataFrame({"q": 0, "x": values})
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind=kind, order=order)])  # type: ignore[arg-type]
    return table


def paper_bucket_sizes(n: int, t: int) -> list[int]:
    """Domingo-Ferrer & Soria-Comas 2015, §6.2: B_j holds records ⌊(j-1)·N/(t+1) + 0.5⌋ + 1 .. ⌊j·N/(t+1) + 0.5⌋ (exact floor)."""
    b = t + 1
    edges = [(2 * j * n + b) // (2 * b) for j in range(b + 1)]
    return [hi - lo for lo, hi in zip(edges, edges[1:])]


@given(st.integers(2, 60), st.integers(1, 6))
@settings(max_examples=80, deadline=None)
def test_equal_frequency_on_distinct_values_is_the_papers_construction(n: int, t: int) -> None:
    if n < t + 1:
        n = t + 1
    table = bucketize(table_of(list(range(n))), EqualFrequency(t))
    sizes = [int(v) for v in table.totals]
    assert sizes == paper_bucket_sizes(n, t)
    # Bucket sizes are ⌊N/b⌋ or ⌈N/b⌉ (they sum to N).
    assert set(sizes) <= {n // (t + 1), math.ceil(n / (t + 1))}


def test_000_section_6_3_bucket_sizes_are_floor_not_ceiling() -> None:
    # Domingo-Ferrer & Soria-Comas 2015, §6.3(a) says each bucket holds ⌈N/b⌉ values, some ⌈N/b⌉ + 1. For N = 10, b = 3 that is at
    # least 3·4 = 12 > 10 records: impossible. The construction of §6.2 gives 3, 4, 3 (⌊N/b⌋ or ⌈N/b⌉).
    assert paper_bucket_sizes(10, 2) == [3, 4, 3]
    assert [int(v) for v in bucketize(table_of(list(range(10))), EqualFrequency(2)).totals] == [3, 4, 3]
    assert 3 * math.ceil(10 / 3) > 10


def test_equal_frequency_never_splits_a_value() -> None:
    # Values 1×8, 2, 3 with t = 2: targets N/3 = 3.33 and 6.67 on cumulative counts (0, 8, 9, 10).
    # 3.33 is nearest to 0 (no cut: the first bucket would be empty); 6.67 is nearest to 8, so the
    # cut goes after value 1. Only 2 buckets are possible without splitting value 1.
    table = table_of([1] * 8 + [2, 3])
    mapping, labels = EqualFrequency(2).assign(table)
    assert mapping.tolist() == [0, 1, 1]
    assert labels == ("[1, 1]", "[2, 3]")


@given(st.lists(st.integers(0, 12), min_size=1, max_size=40), st.integers(1, 5))
@settings(max_examples=80, deadline=None)
def test_equal_frequency_invariants(values: list[int], t: int) -> None:
    table = table_of(values)
    mapping, labels = EqualFrequency(t).assign(table)
    assert len(labels) <= t + 1
    assert np.all(np.diff(mapping) >= 0) and mapping[0] == 0 and mapping[-1] == len(labels) - 1
    masses = np.bincount(mapping, weights=table.totals, minlength=len(labels))
    assert np.all(masses > 0)


def test_equal_frequency_with_a_declared_domain() -> None:
    # Domain 1..6, values 1, 2, 5, 6 present. t = 1: cut nearest N/2 = 2 is after value 2.
    # Values 3, 4 (no records) go with the second bucket; labels show each bucket's first/last value.
    table = table_of([1, 2, 5, 6], order=(1, 2, 3, 4, 5, 6))
    assert EqualFrequency(1).assign(table)[0].tolist() == [0, 0, 1, 1, 1, 1]
    assert EqualFrequency(1).assign(table)[1] == ("[1, 2]", "[3, 6]")


def test_ranges_numerical_and_open_ended() -> None:
    table = table_of([1, 4, 5, 20, 100])
    mapping, labels = Ranges(((None, 5), (5, 50), (50, None))).assign(table)
    assert mapping.tolist() == [0, 0, 1, 1, 2]
    assert labels == ("(-inf, 5)", "[5, 50)", "[50, inf)")
    merged = bucketize(table, Ranges.from_edges([0, 5, 1000]))
    assert merged.values == ("[0, 5)", "[5, 1000)") and merged.totals.tolist() == [2, 3]


def test_ranges_ordinal_by_declared_position() -> None:
    # Declared order low < mid < high < top; [mid, top) holds mid and high.
    order = ("low", "mid", "high", "top")
    table = table_of(["low", "mid", "high", "top"], kind="ordinal", order=order)
    mapping, labels = Ranges((("low", "mid"), ("mid", "top"), ("top", None))).assign(table)
    assert mapping.tolist() == [0, 1, 1, 2]
    assert labels == ("[low, mid)", "[mid, top)", "[top, inf)")


def test_groups_match_by_text() -> None:
    table = table_of([1, 2, 3, 3], kind="categorical")
    mapping, labels = Groups.from_mapping({"small": ["1", 2], "big": [3]}).assign(table)
    assert mapping.tolist() == [0, 0, 1] and labels == ("small", "big")


def test_distinct_values_is_the_identity() -> None:
    table = table_of([3, 1, 2])
    assert bucketize(table, DistinctValues()) is table
    assert DistinctValues().assign(table)[0].tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("make", "values", "kind", "error", "message"),
    [
        (lambda: EqualFrequency(0), [1], "numerical", PolicyError,
         "equal_frequency: expected a positive integer t, found 0"),
        (lambda: EqualFrequency(1.5), [1], "numerical", PolicyError,  # type: ignore[arg-type]
         "equal_frequency: expected a positive integer t, found 1.5"),
        (lambda: EqualFrequency(True), [1], "numerical", PolicyError,
         "equal_frequency: expected a positive integer t, found True"),
        (lambda: EqualFrequency(1), ["a"], "categorical", PolicyError,
         "attribute 'x': equal-frequency buckets need a numerical or ordinal attribute, found 'categorical'"),
        (lambda: Ranges(()), [1], "numerical", PolicyError, "ranges: expected at least one range [lo, hi), found none"),
        (lambda: Ranges(((1, 2, 3),)), [1], "numerical", PolicyError,  # type: ignore[arg-type]
         "ranges: expected [lo, hi] pairs, found [1, 2, 3]"),
        (lambda: Ranges.from_edges([1]), [1], "numerical", PolicyError,
         "range edges: expected at least 2 edges, found [1]"),
        (lambda: Ranges.from_edges([1, 3, 3]), [1], "numerical", PolicyError,
         "range edges: expected strictly increasing edges, found 3 then 3 at positions 1 and 2"),
        (lambda: Ranges.from_edges([1, 5, 9]), [1, 4, 9], "numerical", DataError,
         "attribute 'x': value 9 is in none of the ranges ['[1, 5)', '[5, 9)']; expected every value in exactly one range"),
        (lambda: Ranges(((1, 5), (3, 9))), [1, 4], "numerical", PolicyError,
         "attribute 'x': value 4 is in the ranges ['[1, 5)', '[3, 9)']; expected every value in exactly one range"),
        (lambda: Ranges(((5, 5),)), [5], "numerical", PolicyError,
         "attribute 'x': range [5, 5) is empty; expected lo < hi"),
        (lambda: Ranges(((1, 5),)), ["a"], "categorical", PolicyError,
         "attribute 'x': ranges need a numerical or ordinal attribute, found 'categorical'"),
        (lambda: Ranges((("low", "max"),)), ["low"], "ordinal", PolicyError,
         "attribute 'x': range bound 'max' is not a value of the declared order ['low', 'high']"),
        (lambda: Groups(()), ["a"], "categorical", PolicyError, "groups: expected at least one group, found none"),
        (lambda: Groups.from_mapping({"g": []}), ["a"], "categorical", PolicyError,
         "group 'g': expected at least one value, found none"),
        (lambda: Groups.from_mapping({"g1": ["a"], "g2": ["b", "a"]}), ["a"], "categorical", PolicyError,
         "value 'a' is listed in group 'g1' and in group 'g2'"),
        (lambda: Groups.from_mapping({"g1": ["a"]}), ["a", "b"], "categorical", DataError,
         "attribute 'x': value 'b' is in none of the groups ['g1']; expected every value in exactly one group"),
    ],
)
def test_bad_bucket_specs(make: Any, values: list[Any], kind: str, error: type[Exception], message: str) -> None:
    order = ("low", "high") if kind == "ordinal" else None
    with pytest.raises(error) as caught:
        make().assign(table_of(values, kind=kind, order=order))
    assert str(caught.value) == message
