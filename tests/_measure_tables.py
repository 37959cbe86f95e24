"""Shared test tables for the anonymity, diversity and likeness measures.

The worked examples of Li et al. 2007 (Tables 2 and 4), a builder from
per-class count lists, and hypothesis strategies for small random releases together
with a row-order/index-label perturbation of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes, CountTable

# Li et al. 2007, Table 2 ("A 3-Anonymous Version of Table 1") and Table 4 ("A 3-diverse version of
# Table 3"): same generalized quasi-identifiers, rows 1-9 in the order printed.
ZIP = ["476**"] * 3 + ["4790*"] * 3 + ["476**"] * 3
AGE = ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 3
TABLE2_DISEASE = ["Heart Disease"] * 3 + ["Flu", "Heart Disease", "Cancer"] + ["Heart Disease", "Cancer", "Cancer"]
TABLE4_DISEASE = [
    "gastric ulcer", "gastritis", "stomach cancer",
    "gastritis", "flu", "bronchitis",
    "bronchitis", "pneumonia", "stomach cancer",
]
TABLE4_SALARY = [3, 4, 5, 6, 11, 8, 7, 9, 10]


def paper_frame() -> pd.DataFrame:
    return pd.DataFrame({"zip": ZIP, "age": AGE, "disease2": TABLE2_DISEASE,
                         "disease4": TABLE4_DISEASE, "salary": TABLE4_SALARY})


def paper_table(column: str) -> CountTable:
    kind = "numerical" if column == "salary" else "categorical"
    _, (table,) = count_tables(paper_frame(), ["zip", "age"], [AttributeSpec((column,), kind=kind)])
    return table


def frame_from_counts(classes: Sequence[dict[str, int]]) -> pd.DataFrame:
    """Class ``i`` gets QI value ``i`` and ``count`` rows of each ``value``."""
    rows = [(i, value) for i, counts in enumerate(classes) for value, count in counts.items() for _ in range(count)]
    return pd.DataFrame(rows, columns=["q", "s"])


def tables_of(frame: pd.DataFrame) -> tuple[Classes, CountTable]:
    classes, (table,) = count_tables(frame, ["q"], [AttributeSpec(("s",))])
    return classes, table


def table_from_counts(classes: Sequence[dict[str, int]]) -> CountTable:
    return tables_of(frame_from_counts(classes))[1]


@st.composite
def releases(draw: st.DrawFn, max_rows: int = 30, qi_values: int = 4, s_values: int = 4) -> pd.DataFrame:
    """A small release: QI ``q`` (ints) and sensitive ``s`` (letters)."""
    rows = draw(st.lists(st.tuples(st.integers(0, qi_values - 1), st.integers(0, s_values - 1)),
                         min_size=1, max_size=max_rows))
    return pd.DataFrame({"q": [q for q, _ in rows], "s": ["abcdefgh"[s] for _, s in rows]})


@st.composite
def perturbed(draw: st.DrawFn, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its rows shuffled and its index relabelled."""
    order = draw(st.permutations(range(len(frame))))
    labels = draw(st.lists(st.integers(-10**6, 10**6), min_size=len(frame), max_size=len(frame), unique=True))
    out = frame.iloc[list(order)].copy()
    out.index = pd.Index(labels)
    return out


def class_counts(table: CountTable) -> list[tuple[int, list[int]]]:
    """Brute force: ``(class index, dense counts)`` for every class with rows."""
    return [(i, table.row(i).tolist()) for i in range(table.classes.count) if table.sizes[i] > 0]


def fractions_p(table: CountTable) -> list[Fraction]:
    """Brute force: the overall frequency ``p_s`` of every value."""
    return [Fraction(int(total), table.n) for total in np.asarray(table.totals)]


def wide_screen(value: float, terms: int) -> float:
    """A stand-in for ``screen_margin`` so wide that every entry goes to the exact step."""
    return abs(value) * 10 + 10


def empty_table() -> CountTable:
    """A count table whose only class has no counted row (every row excluded)."""
    classes = Classes(qi=("q",), keys=pd.DataFrame({"q": [0]}), sizes=np.array([2], dtype=np.int64))
    nothing = np.zeros(0, dtype=np.int64)
    return CountTable(spec=AttributeSpec(("s",), missing="exclude"), classes=classes, values=("a",),
                      class_index=nothing, value_index=nothing, count=nothing,
                      sizes=np.zeros(1, dtype=np.int64), totals=np.zeros(1, dtype=np.int64), excluded=2)


def no_classes() -> Classes:
    """Classes of a table without rows (count_tables refuses such a table; built by hand)."""
    return Classes(qi=("q",), keys=pd.DataFrame({"q": []}), sizes=np.zeros(0, dtype=np.int64))
