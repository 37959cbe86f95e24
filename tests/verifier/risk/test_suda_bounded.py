"""SUDA2 bounded: equivalent and constant quasi-identifiers searched once, MSUs no larger than the classes allow,
a requirement's max_size honoured without an unbounded search beside it.

Oracles: brute-force enumeration of every subset (small tables with repeated and constant
columns), and the count of MSUs of three records derived by hand.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.audit import audit
from verifier.policy import parse_policy
from verifier.risk.suda import suda2
from verifier.tables.counting import count_tables


def _brute(rows: list[tuple[int, ...]]) -> set[tuple[tuple[int, ...], int]]:
    """(record values, mask) of every MSU: unique on the set, shared on each non-empty set one smaller."""
    width = len(rows[0])

    def unique(index: int, columns: tuple[int, ...]) -> bool:
        if not columns:
            return False
        return sum(all(r[c] == rows[index][c] for c in columns) for r in rows) == 1

    found = set()
    for index in range(len(rows)):
        for size in range(1, width + 1):
            for columns in itertools.combinations(range(width), size):
                if unique(index, columns) and not any(unique(index, tuple(c for c in columns if c != drop))
                                                      for drop in columns):
                    found.add((rows[index], sum(1 << c for c in columns)))
    return found


@st.composite
def _with_repeated_columns(draw: st.DrawFn) -> list[tuple[int, ...]]:
    base = draw(st.integers(1, 4))
    rows = draw(st.lists(st.tuples(*[st.integers(0, 2)] * base), min_size=1, max_size=12))
    layout = draw(st.lists(st.integers(-1, base - 1), min_size=1, max_size=7))  # -1: a constant column
    return [tuple(7 if c < 0 else row[c] for c in layout) for row in rows]


@settings(max_examples=80, deadline=None)
@given(_with_repeated_columns())
def test_msus_with_repeated_and_constant_columns_equal_brute_force(rows: list[tuple[int, ...]]) -> None:
    columns = [f"q{i}" for i in range(len(rows[0]))]
    classes, _ = count_tables(pd.DataFrame(rows, columns=columns).astype(str), columns, [])
    result = suda2(classes)
    keys = [tuple(int(v) for v in classes.keys.iloc[c]) for c in range(classes.count)]
    assert {(keys[r], m) for r, m in zip(result.msu_records.tolist(), result.msu_masks.tolist())} == _brute(rows)


def test_two_hundred_quasi_identifiers_of_three_records() -> None:
    """Columns of three kinds (separating record 0, 1 or 2): record i has |kind i| MSUs of one value and
    |kind j|·|kind l| of two (one column separating it from each other record)."""
    kinds = np.random.default_rng(3).integers(0, 3, size=200)
    values = np.array([[1 if k == r else 0 for k in kinds] for r in range(3)])
    frame = pd.DataFrame(values.astype(str), columns=[f"q{i}" for i in range(200)])
    classes, _ = count_tables(frame, list(frame.columns), [])
    result = suda2(classes)
    a, b, c = (int((kinds == k).sum()) for k in range(3))
    assert result.msu_masks.size == a + b * c + b + a * c + c + a * b
    assert sorted(set(result.msu_sizes.tolist())) == [1, 2]
    assert result.dis.tolist() == [1.0, 1.0, 1.0]  # no class of two: DIS-SUDA is 1


def test_a_requirement_max_size_bounds_the_search_and_may_exceed_the_quasi_identifiers(tmp_path: Path) -> None:
    release = tmp_path / "release.csv"
    release.write_text("a,b,s\n1,1,x\n1,2,y\n2,2,x\n2,2,y\n")
    policy = parse_policy('[data]\nqi = ["a", "b"]\n[sensitive.s]\n[[require]]\nmodel = "suda"\nmax_size = 9\n'
                          'threshold = "1/2"\n[[require]]\nmodel = "suda"\nmax_size = 1\nthreshold = "1/2"\n')
    result = audit(release, policy)
    sizes = sorted(m.parameters["max_size"] for m in result.report.measurements if m.model == "suda")
    assert sizes == [1, 9]  # no third, unbounded search
    assert [check.verdict for check in result.checks] == ["pass", "pass"]
