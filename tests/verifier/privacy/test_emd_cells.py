"""The sparse EMD numerators (verifier.privacy._emd_cells) against the definitions computed densely.

The reference here is the definition of Li et al. 2007 written out with Fractions over
every value of the domain: the ordered EMD ``(1/(m-1)) Σ_i |Σ_{j<=i} (p_j - q_j)|``, the
equal EMD ``½ Σ |p_i - q_i|``, and the hierarchical EMD by the recursion over the tree
(``recursion_001`` of test_hierarchy). Tables are random, with declared domains (values
absent from the table), random hierarchies, and counts large enough to take the Python
integer path for some classes.
"""

from __future__ import annotations

from fractions import Fraction
from unittest.mock import patch

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hierarchy import recursion_001

from verifier.privacy.t_closeness import emd, t_closeness
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.hierarchy import Hierarchy


def dense_emd(counts: list[int], totals: list[int], distance: str, hierarchy: Hierarchy | None, leaves: list[str]) -> Fraction:
    """The definition over every value, with Fractions."""
    p = [Fraction(c, sum(counts)) for c in counts]
    q = [Fraction(t, sum(totals)) for t in totals]
    if distance == "equal":
        return sum((abs(a - b) for a, b in zip(p, q)), Fraction(0)) / 2
    if distance == "ordered":
        if len(p) == 1:
            return Fraction(0)
        running, total = Fraction(0), Fraction(0)
        for a, b in zip(p, q):
            running += a - b
            total += abs(running)
        return total / (len(p) - 1)
    assert hierarchy is not None
    return recursion_001(hierarchy, counts, leaves, totals, below=False)


def table_of(rows: list[list[int]], values: list[object], kind: str) -> CountTable:
    """A count table from dense per-class counts (classes named ``c0``, ``c1``, ...)."""
    dense = np.array(rows, dtype=np.int64)
    cls, value = np.nonzero(dense)
    sizes = dense.sum(axis=1)
    names = [f"c{i}" for i in range(len(rows))]
    classes = Classes(qi=("q",), keys=pd.DataFrame({"q": names}), sizes=sizes)
    return CountTable(
        spec=AttributeSpec(("s",), kind=kind),  # type: ignore[arg-type]
        classes=classes,
        values=tuple(values),
        class_index=cls.astype(np.int64),
        value_index=value.astype(np.int64),
        count=dense[cls, value],
        sizes=sizes,
        totals=dense.sum(axis=0),
    )


@st.composite
def hierarchies(draw: st.DrawFn) -> Hierarchy:
    """A random hierarchy: leaves ``v0..``, each node at height h named by its branch below the root."""
    height = draw(st.integers(1, 3))
    leaves = draw(st.integers(1, 8))
    paths = []
    for leaf in range(leaves):
        branch = draw(st.lists(st.integers(0, 2), min_size=height - 1, max_size=height - 1))
        paths.append([f"v{leaf}"] + [f"n{h}:" + ".".join(map(str, branch[h - 1:])) for h in range(1, height)] + ["root"])
    return Hierarchy.from_rows(paths)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[list[int]], str, Hierarchy | None, list[str]]:
    """Dense class counts over a domain (some values absent from the table), a distance, a hierarchy."""
    distance = draw(st.sampled_from(["equal", "ordered", "hierarchical"]))
    hierarchy = draw(hierarchies()) if distance == "hierarchical" else None
    m = len(hierarchy.leaves) if hierarchy else draw(st.integers(1, 9))
    scale = draw(st.sampled_from([1, 1, 1 << 40]))
    count = st.one_of(st.just(0), st.just(0), st.integers(1, 5), st.integers(1, 5).map(lambda c: c * scale))
    rows = draw(st.lists(st.lists(count, min_size=m, max_size=m).filter(any), min_size=1, max_size=6))
    leaves = list(hierarchy.leaves) if hierarchy else [str(i) for i in range(m)]
    return rows, distance, hierarchy, leaves


@settings(max_examples=300, deadline=None)
@given(cases())
def test_t_closeness_is_the_dense_definition(case: tuple[list[list[int]], str, Hierarchy | None, list[str]]) -> None:
    rows, distance, hierarchy, leaves = case
    totals = [sum(column) for column in zip(*rows)]
    values: list[object] = list(leaves) if distance == "hierarchical" else list(range(len(leaves)))
    table = table_of(rows, values, "numerical" if distance == "ordered" else "categorical")
    expected = [dense_emd(r, totals, distance, hierarchy, leaves) for r in rows]
    result = t_closeness(table, distance, hierarchy)  # type: ignore[arg-type]
    assert result.level.value == max(expected)
    assert result.witness is not None
    assert result.witness.qi == {"q": min(f"c{i}" for i, e in enumerate(expected) if e == max(expected))}
    assert Fraction(result.witness.numbers["numerator"], result.witness.numbers["denominator"]) == max(expected)
    for r, e in zip(rows, expected):
        assert emd(r, totals, distance, hierarchy=hierarchy, values=values) == e  # type: ignore[arg-type]


def test_python_integer_path_for_large_classes_only() -> None:
    # terms·N·s passes 2**62 for the large class only: it is summed with Python integers, the
    # small one in int64, and both agree with the definition.
    big = 1 << 45
    rows = [[big, 0, big], [1, 2, 0]]
    totals = [big + 1, 2, big]
    table = table_of(rows, [0, 1, 2], "numerical")
    expected = [dense_emd(r, totals, "ordered", None, []) for r in rows]
    assert t_closeness(table, "ordered").level.value == max(expected)
    assert [emd(r, totals, "ordered") for r in rows] == expected


@settings(max_examples=150, deadline=None)
@given(cases())
def test_classes_taken_in_runs_of_a_few_cells_give_the_same_result(
        case: tuple[list[list[int]], str, Hierarchy | None, list[str]]) -> None:
    rows, distance, hierarchy, leaves = case
    values: list[object] = list(leaves) if distance == "hierarchical" else list(range(len(leaves)))
    table = table_of(rows, values, "numerical" if distance == "ordered" else "categorical")
    whole = t_closeness(table, distance, hierarchy)  # type: ignore[arg-type]
    with patch("verifier.privacy._emd_cells.CHUNK_CELLS", 2):
        assert t_closeness(table, distance, hierarchy) == whole  # type: ignore[arg-type]
