"""t-closeness with the EMD (verifier.privacy.t_closeness): worked examples of Li et al. 2007, brute-force checks.

Independent methods used here: the ordered EMD as a 1-D Wasserstein distance computed by
matching sorted samples; the equal EMD as total variation with Fractions; the
hierarchical EMD by an exact min-cost transportation solver (successive shortest paths
over Fractions) written in this file, itself checked against the ordered closed form.
(sympy 1.14's simplex is not used: on these degenerate transportation LPs ``linprog``
returned an infeasible point and ``lpmin`` raised "Oscillating system".)
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from verifier.errors import ExcludedRowsWarning, HierarchyError, PolicyError
from verifier.privacy.t_closeness import emd, t_closeness
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.hierarchy import Hierarchy, load_hierarchy

DISEASES = load_hierarchy(Path(__file__).parents[2] / "data" / "disease_hierarchy.csv")

# Li et al. 2007, Table 3: records 1..9 as (salary in k, disease).
RECORDS = {
    1: (3, "gastric ulcer"), 2: (4, "gastritis"), 3: (5, "stomach cancer"),
    4: (6, "gastritis"), 5: (11, "flu"), 6: (8, "bronchitis"),
    7: (7, "bronchitis"), 8: (9, "pneumonia"), 9: (10, "stomach cancer"),
}  # fmt: skip


def generalized(groups: dict[tuple[str, str], tuple[int, ...]]) -> list[tuple[str, str, int, str]]:
    """Rows (zip, age, salary, disease): each QI group holds the listed records of Table 3."""
    return [(z, a, *RECORDS[r]) for (z, a), records in groups.items() for r in records]


# Li et al. 2007, Table 4 (a 3-diverse version of Table 3) and Table 5 ("0.167-closeness w.r.t. Salary and
# 0.278-closeness w.r.t. Disease").
TABLE_4 = generalized({("476**", "2*"): (1, 2, 3), ("4790*", ">=40"): (4, 5, 6), ("476**", "3*"): (7, 8, 9)})
TABLE_5 = generalized({("4767*", "<=40"): (1, 3, 8), ("4790*", ">=40"): (4, 5, 6), ("4760*", "<=40"): (2, 7, 9)})


def salary_disease(rows: list[tuple[str, str, int, str]]) -> tuple[CountTable, CountTable]:
    frame = pd.DataFrame(rows, columns=["zip", "age", "salary", "disease"])
    specs = [AttributeSpec(("salary",), kind="numerical"), AttributeSpec(("disease",))]
    _, (salary, disease) = count_tables(frame, ["zip", "age"], specs)
    return salary, disease


def class_emds(table: CountTable, distance: str, hierarchy: Hierarchy | None = None) -> dict[str, Fraction]:
    """EMD of each class (keyed by its zip) with verifier.privacy.t_closeness.emd."""
    return {
        table.classes.describe(i)["zip"]: emd(
            table.row(i), table.totals, distance, hierarchy=hierarchy, values=table.values  # type: ignore[arg-type]
        )
        for i in range(table.classes.count)
    }


def min_cost_transport(supply: list[Fraction], demand: list[Fraction], cost: list[list[Fraction]]) -> Fraction:
    """Exact optimum of the transportation problem (Li et al. 2007, "Earth Mover Distance", c1–c3).

    Successive shortest paths: Bellman-Ford over the residual graph (forward arcs
    source→sink uncapacitated at cost d_ij, backward arcs along positive flow at -d_ij),
    augmenting from any source with supply left to the nearest sink with demand left.
    """
    supply, demand = list(supply), list(demand)
    flow = [[Fraction(0)] * len(demand) for _ in supply]
    while any(s > 0 for s in supply):
        # distances to sources (kind 0) and sinks (kind 1); start at sources with supply.
        inf = None
        dist: dict[tuple[int, int], Fraction | None] = {(0, i): (Fraction(0) if s > 0 else inf) for i, s in enumerate(supply)}
        dist.update({(1, j): inf for j in range(len(demand))})
        parent: dict[tuple[int, int], tuple[int, int]] = {}
        for _ in range(len(supply) + len(demand)):
            changed = False
            for i in range(len(supply)):
                for j in range(len(demand)):
                    di, dj = dist[(0, i)], dist[(1, j)]
                    if di is not None and (dj is None or di + cost[i][j] < dj):
                        dist[(1, j)], parent[(1, j)], changed = di + cost[i][j], (0, i), True
                    dj = dist[(1, j)]
                    if flow[i][j] > 0 and dj is not None and (dist[(0, i)] is None or dj - cost[i][j] < dist[(0, i)]):
                        dist[(0, i)], parent[(0, i)], changed = dj - cost[i][j], (1, j), True
            if not changed:
                break
        sink = min((j for j in range(len(demand)) if demand[j] > 0 and dist[(1, j)] is not None), key=lambda j: dist[(1, j)])
        path = [(1, sink)]
        while path[-1] in parent:
            path.append(parent[path[-1]])
        source = path[-1][1]
        amount = min(supply[source], demand[sink])
        for (kind_a, a), (_, b) in zip(path[1:], path[:-1]):
            if kind_a == 1:  # backward arc: sink a -> source b along existing flow
                amount = min(amount, flow[b][a])
        for (kind_a, a), (_, b) in zip(path[1:], path[:-1]):
            if kind_a == 0:
                flow[a][b] += amount
            else:
                flow[b][a] -= amount
        supply[source] -= amount
        demand[sink] -= amount
    return sum((cost[i][j] * flow[i][j] for i in range(len(supply)) for j in range(len(demand))), Fraction(0))


def hierarchical_by_transport(counts: list[int], totals: list[int], leaves: list[str], hierarchy: Hierarchy) -> Fraction:
    p = [Fraction(c, sum(counts)) for c in counts]
    q = [Fraction(c, sum(totals)) for c in totals]
    cost = [[hierarchy.distance(a, b) for b in leaves] for a in leaves]
    return min_cost_transport(p, q, cost)


# ---------------------------------------------------------------- Li et al. 2007 worked examples


def test_001_ordered_salary_table_4() -> None:
    # Salaries 3k..11k are m = 9 ordered values, each 1/9 of Q.
    # P1 = {3k,4k,5k}: r = (2,2,2,-1,-1,-1,-1,-1,-1)/9, prefix sums (2,4,6,5,4,3,2,1,0)/9,
    #   sum 27/9 = 3, EMD = 3/8 = 0.375 (Li et al. 2007: the flow cost 27/72).
    # P2 = {6k,8k,11k}: r = (-1,-1,-1,2,-1,2,-1,-1,2)/9, |prefix| (1,2,3,1,2,0,1,2,0)/9 = 12/9,
    #   EMD = 12/72 = 1/6 = 0.167.
    # P3 = {7k,9k,10k}: r = (-1,-1,-1,-1,2,-1,2,2,-1)/9, |prefix| (1,2,3,4,2,3,1,1,0)/9 = 17/9,
    #   EMD = 17/72.
    salary, _ = salary_disease(TABLE_4)
    by_qi = {
        tuple(salary.classes.describe(i).values()): emd(salary.row(i), salary.totals, "ordered")
        for i in range(salary.classes.count)
    }
    assert by_qi == {
        ("476**", "2*"): Fraction(3, 8),
        ("4790*", ">=40"): Fraction(1, 6),
        ("476**", "3*"): Fraction(17, 72),
    }
    result = t_closeness(salary, "ordered")
    assert result.level.value == sympy.Rational(3, 8)
    assert result.witness is not None and result.witness.qi == {"zip": "476**", "age": "2*"}
    assert Fraction(result.witness.numbers["numerator"], result.witness.numbers["denominator"]) == Fraction(3, 8)
    assert result.witness.size == 3 and result.witness.numbers["table_size"] == 9


def test_001_hierarchical_disease_table_4_exact_values_differ_from_slides() -> None:
    # Q over the 6 diseases present: gastric ulcer 1, gastritis 2, stomach cancer 2 (stomach
    # diseases, 5/9), flu 1, bronchitis 2, pneumonia 1 (respiratory infections, 4/9).
    # P1 = {gastric ulcer, gastritis, stomach cancer}: all mass under "Stomach diseases", Q has
    #   4/9 under "Respiratory infection"; any flow moves >= 4/9 across the root (distance 1),
    #   and moving exactly each leaf's excess (2/9, 1/9, 1/9) there achieves it: EMD = 4/9
    #   (0.444), not the slides' 0.5.
    # P2 = {gastritis, flu, bronchitis}: 2/9 must cross the root (cost 2/9); inside stomach
    #   diseases gastritis' excess 1/9 moves at 1/3, inside respiratory infections 1/9 moves
    #   at 1/3: EMD = 2/9 + 2/27 = 8/27 (0.296), not the slides' 0.278 = 5/18.
    _, disease = salary_disease(TABLE_4)
    by_qi = {
        tuple(disease.classes.describe(i).values()): emd(
            disease.row(i), disease.totals, "hierarchical", hierarchy=DISEASES, values=disease.values
        )
        for i in range(disease.classes.count)
    }
    assert by_qi[("476**", "2*")] == Fraction(4, 9) != Fraction(1, 2)
    assert by_qi[("4790*", ">=40")] == Fraction(8, 27) != Fraction(5, 18)
    assert by_qi[("476**", "3*")] == Fraction(8, 27)
    for i in range(disease.classes.count):
        exact = hierarchical_by_transport(
            list(disease.row(i)), list(disease.totals), list(disease.values), DISEASES
        )
        assert exact == by_qi[tuple(disease.classes.describe(i).values())]
    result = t_closeness(disease, "hierarchical", DISEASES)
    assert result.level.exact == "4/9"
    assert result.parameters == {"hierarchy": DISEASES.digest, "height": 3, "values": 6, "domain": "table"}


def test_001_table_5_levels() -> None:
    # Salary: {3k,5k,9k}: r=(2,-1,2,-1,-1,-1,2,-1,-1)/9, |prefix| (2,1,3,2,1,0,2,1,0)/9 = 12/9 -> 1/6;
    #   {6k,8k,11k} = P2 above -> 1/6; {4k,7k,10k}: r=(-1,2,-1,-1,2,-1,-1,2,-1)/9,
    #   |prefix| (1,1,0,1,1,0,1,1,0)/9 = 6/9 -> 6/72 = 1/12. Level 1/6 = 0.167, as printed.
    # Disease: {gastric ulcer, stomach cancer, pneumonia} 7/27; {gastritis, flu, bronchitis} 8/27
    #   (= P2 of Table 4); {gastritis, bronchitis, stomach cancer} 5/27. Level 8/27 = 0.296, not the
    #   printed 0.278: Table 5 is 0.296-close w.r.t. disease.
    salary, disease = salary_disease(TABLE_5)
    assert class_emds(salary, "ordered") == {"4767*": Fraction(1, 6), "4790*": Fraction(1, 6), "4760*": Fraction(1, 12)}
    assert class_emds(disease, "hierarchical", DISEASES) == {
        "4767*": Fraction(7, 27),
        "4790*": Fraction(8, 27),
        "4760*": Fraction(5, 27),
    }
    for i in range(disease.classes.count):
        assert hierarchical_by_transport(
            list(disease.row(i)), list(disease.totals), list(disease.values), DISEASES
        ) == class_emds(disease, "hierarchical", DISEASES)[disease.classes.describe(i)["zip"]]
    assert t_closeness(salary, "ordered").level.exact == "1/6"
    worst = t_closeness(disease, "hierarchical", DISEASES)
    assert worst.level.exact == "8/27"
    assert worst.witness is not None and worst.witness.qi == {"zip": "4790*", "age": ">=40"}
    # Ties (two classes at 1/6) are broken by the repr of the QI tuple, not by row order.
    assert t_closeness(salary, "ordered").witness.qi == {"zip": "4767*", "age": "<=40"}  # type: ignore[union-attr]


def test_equal_distance_table_4() -> None:
    # Equal distance = total variation. P1: stomach leaves 3/9-1/9, 3/9-2/9, 3/9-2/9 = 4/9 excess.
    _, disease = salary_disease(TABLE_4)
    assert set(class_emds(disease, "equal").values()) == {Fraction(4, 9)}
    assert t_closeness(disease, "equal").level.exact == "4/9"


def test_single_value_is_zero_with_a_note() -> None:
    frame = pd.DataFrame({"q": [1, 1, 2], "x": [5, 5, 5]})
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical")])
    result = t_closeness(table, "ordered")
    assert result.level.exact == "0"
    assert result.notes == ("the attribute takes a single value: every class has the table's distribution and the EMD is 0",)


def test_declared_domain_changes_m() -> None:
    # Values 1, 2 present; domain {1,2,3,4} declared: m = 4. Class {1}: r = (1/2, -1/2, 0, 0),
    # prefix (1/2, 0, 0, 0) -> (1/2)/3 = 1/6 (with m = 2 it would be 1/2).
    frame = pd.DataFrame({"q": [1, 2], "x": [1, 2]})
    _, (present,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical")])
    _, (declared,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical", order=(4, 3, 2, 1))])
    assert t_closeness(present, "ordered").level.exact == "1/2"
    result = t_closeness(declared, "ordered")
    assert result.level.exact == "1/6" and result.parameters["domain"] == "declared"


def test_ordinal_uses_the_declared_order() -> None:
    # Order low < mid < high; Q = (1/3, 1/3, 1/3). Class {low}: prefix (2/3, 1/3, 0) -> 1/2.
    # Class {mid, high}: prefix (-1/3, -1/3, 0) -> 1/3. Alphabetical order (high, low, mid)
    # would give {low}: prefix (-1/3, 1/3, 0) -> 1/3 instead.
    frame = pd.DataFrame({"q": [1, 2, 2], "x": ["low", "mid", "high"]})
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="ordinal", order=("low", "mid", "high"))])
    result = t_closeness(table, "ordered")
    assert result.level.exact == "1/2" and result.witness is not None and result.witness.qi == {"q": 1}


def test_excluded_class_is_skipped() -> None:
    frame = pd.DataFrame({"q": [1, 1, 2, 3], "x": [1.0, 2.0, np.nan, 1.0]})
    with pytest.warns(ExcludedRowsWarning):
        _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical", missing="exclude")])
    # Class 2 is all excluded. Q = (2/3, 1/3) over values (1, 2), m - 1 = 1.
    # Class 1 = {1, 2}: |1/2 - 2/3| = 1/6; class 3 = {1}: |1 - 2/3| = 1/3. Level 1/3.
    result = t_closeness(table, "ordered")
    assert result.level.exact == "1/3"
    assert result.notes == ('1 row(s) with a missing value excluded (missing = "exclude")',)


# ------------------------------------------------------------------ scale and exactness


def dense_table(counts: np.ndarray, kind: str = "numerical") -> CountTable:
    """A CountTable built directly from dense counts[class, value] (no rows needed)."""
    classes = Classes(qi=("q",), keys=pd.DataFrame({"q": range(counts.shape[0])}), sizes=counts.sum(axis=1))
    cls, val = np.nonzero(counts)
    return CountTable(
        spec=AttributeSpec(("x",), kind=kind),  # type: ignore[arg-type]
        classes=classes,
        values=tuple(range(counts.shape[1])),
        class_index=cls.astype(np.int64),
        value_index=val.astype(np.int64),
        count=counts[cls, val].astype(np.int64),
        sizes=counts.sum(axis=1),
        totals=counts.sum(axis=0),
    )


def test_hundred_million_rows_exact_and_no_overflow() -> None:
    # 2·10^8 rows over m = 2000 values: Σ_f |N·F_E - |E|·F_Q| reaches ~F·N·|E| ≈ 2·10^19 > 2^63,
    # so the exact step must use Python integers. Checked against a pure-Python Fraction sum.
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 100_000, size=(4, 2000)).astype(np.int64)
    counts[0] *= 3
    counts[3, :1000] = 0
    counts[3, 1000:] *= 2
    table = dense_table(counts)
    assert table.n > 2 * 10**8
    result = t_closeness(table, "ordered")
    totals = [int(v) for v in counts.sum(axis=0)]
    n = sum(totals)

    def reference(row: np.ndarray) -> Fraction:
        size, acc_e, acc_q, total = int(row.sum()), 0, 0, Fraction(0)
        for c, t in zip(row.tolist(), totals):
            acc_e, acc_q = acc_e + c, acc_q + t
            total += abs(Fraction(acc_e, size) - Fraction(acc_q, n))
        return total / (len(totals) - 1)

    expected = max(reference(row) for row in counts)
    assert Fraction(str(result.level.exact)) == expected
    assert result.witness is not None and result.witness.qi == {"q": 3}


def test_near_ties_are_decided_exactly() -> None:
    # Class 0 = (10^17 - 1, 1, 0), class 1 = (10^17, 0, 0), class 2 = (0, 0, 3·10^17); values 0, 1, 2.
    # Q's prefix sums are ((2·10^17 - 1)/N, 2·10^17/N, 1) with N = 5·10^17. Class 1's EMD exceeds
    # class 0's by 10^-17 / 2: float64 cannot tell them apart (and names class 0 first), so only
    # the exact step can name class 1.
    big = 10**17
    counts = np.array([[big - 1, 1, 0], [big, 0, 0], [0, 0, 3 * big]], dtype=np.int64)
    table = dense_table(counts)
    exact = [emd(row, counts.sum(axis=0), "ordered") for row in counts]
    assert exact[1] - exact[0] == Fraction(1, 2 * big)
    result = t_closeness(table, "ordered")
    assert Fraction(str(result.level.exact)) == exact[1]
    assert result.witness is not None and result.witness.qi == {"q": 1}


# ----------------------------------------------------------------------- properties


@st.composite
def small_tables(draw: st.DrawFn) -> pd.DataFrame:
    m = draw(st.integers(1, 6))
    rows = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, m - 1)), min_size=1, max_size=25))
    return pd.DataFrame(rows, columns=["q", "x"])


def ordered_by_sorted_samples(counts: list[int], totals: list[int]) -> Fraction:
    """1-D Wasserstein over ranks: match sorted samples of equal size |E|·N one to one."""
    size, n, m = sum(counts), sum(totals), len(totals)
    if m == 1:
        return Fraction(0)
    class_sample = sorted(v for v, c in enumerate(counts) for _ in range(c * n))
    table_sample = sorted(v for v, c in enumerate(totals) for _ in range(c * size))
    return Fraction(sum(abs(a - b) for a, b in zip(class_sample, table_sample)), size * n * (m - 1))


@given(small_tables())
@settings(max_examples=60, deadline=None)
def test_ordered_equals_wasserstein_and_equal_equals_total_variation(frame: pd.DataFrame) -> None:
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical")])
    totals = [int(v) for v in table.totals]
    ordered, equal = [], []
    for i in range(table.classes.count):
        row = [int(v) for v in table.row(i)]
        size = sum(row)
        assert emd(row, totals, "ordered") == ordered_by_sorted_samples(row, totals)
        variation = sum((abs(Fraction(c, size) - Fraction(t, table.n)) for c, t in zip(row, totals)), Fraction(0)) / 2
        assert emd(row, totals, "equal") == variation
        ordered.append(ordered_by_sorted_samples(row, totals))
        equal.append(variation)
    for distance, values in (("ordered", ordered), ("equal", equal)):
        level = Fraction(str(t_closeness(table, distance).level.exact))  # type: ignore[arg-type]
        assert level == max(values)
        assert 0 <= level <= 1


@given(small_tables(), st.integers(0, 3), st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_merging_two_classes_never_raises_the_emd(frame: pd.DataFrame, a: int, b: int) -> None:
    # Li et al. 2007, "Properties of EMD": D[P,Q] <= max(D[P1,Q], D[P2,Q]) when P is the union of P1 and P2
    # (P is a mixture of P1 and P2 and the EMD is convex in P).
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind="numerical")])
    rows = {table.classes.describe(i)["q"]: [int(v) for v in table.row(i)] for i in range(table.classes.count)}
    assume(a in rows and b in rows)
    totals = [int(v) for v in table.totals]
    merged = [x + y for x, y in zip(rows[a], rows[b])] if a != b else rows[a]
    for distance in ("ordered", "equal"):
        parts = max(emd(rows[a], totals, distance), emd(rows[b], totals, distance))  # type: ignore[arg-type]
        assert emd(merged, totals, distance) <= parts  # type: ignore[arg-type]


@given(small_tables(), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_row_order_and_index_labels_never_change_results(frame: pd.DataFrame, random: object) -> None:
    shuffled = frame.sample(frac=1.0, random_state=random.randint(0, 2**31))  # type: ignore[attr-defined]
    shuffled.index = [f"r{random.randint(0, 10**9)}-{i}" for i in range(len(shuffled))]  # type: ignore[attr-defined]
    spec = [AttributeSpec(("x",), kind="numerical")]
    hierarchy = Hierarchy.from_rows([[str(v), f"g{v % 2}", "all"] for v in range(6)])
    outputs = []
    for data in (frame, shuffled):
        _, (table,) = count_tables(data, ["q"], spec)
        outputs.append(
            [t_closeness(table, d).to_json() for d in ("ordered", "equal")]
            + [t_closeness(table, "hierarchical", hierarchy).to_json()]
        )
    assert outputs[0] == outputs[1]


@st.composite
def hierarchies_and_counts(draw: st.DrawFn) -> tuple[Hierarchy, list[int], list[int]]:
    height = draw(st.integers(1, 3))
    leaves = draw(st.integers(2, 5))
    paths = []
    for leaf in range(leaves):
        fanout = [draw(st.integers(0, 1)) for _ in range(height - 1)]
        path = [f"v{leaf}"]
        for h in range(1, height):
            path.append(f"n{h}-" + "".join(map(str, fanout[h - 1 :])))
        paths.append([*path, "root"])
    counts = draw(st.lists(st.integers(0, 4), min_size=leaves, max_size=leaves).filter(any))
    extra = draw(st.lists(st.integers(0, 4), min_size=leaves, max_size=leaves))
    return Hierarchy.from_rows(paths), counts, [c + e for c, e in zip(counts, extra)]


@given(hierarchies_and_counts())
@settings(max_examples=60, deadline=None)
def test_hierarchical_equals_exact_transportation_optimum(case: tuple[Hierarchy, list[int], list[int]]) -> None:
    hierarchy, counts, totals = case
    leaves = list(hierarchy.leaves)
    value = emd(counts, totals, "hierarchical", hierarchy=hierarchy, values=leaves)
    assert value == hierarchical_by_transport(counts, totals, leaves, hierarchy)
    assert 0 <= value <= 1
    # The solver itself, against the ordered closed form (ground distance |i - j| / (m - 1)).
    m = len(counts)
    line = [[Fraction(abs(i - j), m - 1) for j in range(m)] for i in range(m)]
    p = [Fraction(c, sum(counts)) for c in counts]
    q = [Fraction(c, sum(totals)) for c in totals]
    assert min_cost_transport(p, q, line) == emd(counts, totals, "ordered")


@given(small_tables())
@settings(max_examples=40, deadline=None)
def test_height_one_hierarchy_gives_equal_distance(frame: pd.DataFrame) -> None:
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",))])
    flat = Hierarchy.from_rows([[str(v), "any"] for v in table.values])
    assert t_closeness(table, "hierarchical", flat).level == t_closeness(table, "equal").level


# ----------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("distance", "kind", "hierarchy", "error", "message"),
    [
        ("manhattan", "ordinal", None, PolicyError,
         "t-closeness distance: expected 'equal', 'ordered' or 'hierarchical', found 'manhattan'"),
        ("ordered", "categorical", None, PolicyError,
         "attribute 'x': the ordered distance needs a numerical or ordinal attribute, found 'categorical'"),
        ("hierarchical", "categorical", None, PolicyError,
         "attribute 'x': the hierarchical distance needs a hierarchy file, none was given"),
        ("equal", "categorical", "flat", PolicyError,
         "attribute 'x': a hierarchy applies to the hierarchical distance only, not 'equal'"),
        ("hierarchical", "categorical", "partial", HierarchyError,
         "<rows>: value 'c' of column 'x' is not a leaf of the hierarchy (leaves: ['a', 'b'])"),
    ],
)
def test_bad_inputs(distance: str, kind: str, hierarchy: str | None, error: type[Exception], message: str) -> None:
    frame = pd.DataFrame({"q": [1, 1, 2], "x": ["a", "b", "c"]})
    _, (table,) = count_tables(frame, ["q"], [AttributeSpec(("x",), kind=kind)])  # type: ignore[arg-type]
    given_hierarchy = {
        None: None,
        "flat": Hierarchy.from_rows([["a", "r"], ["b", "r"], ["c", "r"]]),
        "partial": Hierarchy.from_rows([["a", "r"], ["b", "r"]]),
    }[hierarchy]
    with pytest.raises(error) as caught:
        t_closeness(table, distance, given_hierarchy)  # type: ignore[arg-type]
    assert str(caught.value) == message
