"""Count tables (verifier/tables/counts.py): the one group-by every measure is built on."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.errors import DataError, ExcludedRowsWarning, PolicyError
from verifier.results import jsonable
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes, CountTable, _json_reprs, qi_order

QI = ["zip", "age"]


def _class_multiset(classes: Classes) -> Counter[tuple[Any, ...]]:
    return Counter((tuple(classes.describe(i).values()), int(classes.sizes[i])) for i in range(classes.count))


def _cell_multiset(table: CountTable) -> Counter[tuple[Any, ...]]:
    """``(class QI values, value, count)`` of every non-zero cell: independent of class numbering."""
    return Counter(
        (tuple(table.classes.describe(int(c)).values()), table.values[int(v)], int(n))
        for c, v, n in zip(table.class_index, table.value_index, table.count)
    )


def _brute_force(frame: pd.DataFrame, qi: list[str], columns: list[str]) -> Counter[tuple[Any, ...]]:
    """The same multiset by a plain loop over rows (missing as None)."""
    cells: Counter[tuple[Any, ...]] = Counter()
    for _, row in frame.iterrows():
        key = tuple(None if pd.isna(row[c]) else row[c] for c in qi)
        value = tuple(row[c] for c in columns)
        cells[(key, value[0] if len(columns) == 1 else value)] += 1
    return Counter({(key, value, n): 1 for (key, value), n in cells.items()})


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(1, 25))
    zips = st.sampled_from(["476**", "4790*", None])
    ages = st.sampled_from([20, 30, None])
    return pd.DataFrame({
        "zip": draw(st.lists(zips, min_size=rows, max_size=rows)),
        "age": draw(st.lists(ages, min_size=rows, max_size=rows)),
        "disease": draw(st.lists(st.sampled_from(["flu", "ulcer", "cancer"]), min_size=rows, max_size=rows)),
        "salary": draw(st.lists(st.integers(1, 6), min_size=rows, max_size=rows)),
    })


SPECS = (
    AttributeSpec(("disease",)),
    AttributeSpec(("salary",), kind="numerical"),
    AttributeSpec(("disease", "salary")),
)


@settings(max_examples=60, deadline=None)
@given(frame=_frames(), data=st.data())
def test_row_order_and_index_labels_never_change_the_counts(frame: pd.DataFrame, data: st.DataObject) -> None:
    order = data.draw(st.permutations(range(len(frame))))
    labels = data.draw(st.lists(st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b"])),
                                min_size=len(frame), max_size=len(frame)))
    shuffled = frame.iloc[list(order)].copy()
    shuffled.index = pd.Index(labels, dtype=object)  # arbitrary, repeated, mixed-type labels
    classes, tables = count_tables(frame, QI, SPECS)
    classes2, tables2 = count_tables(shuffled, QI, SPECS)
    assert _class_multiset(classes) == _class_multiset(classes2)
    assert classes.rows == classes2.rows == len(frame), "no row is ever dropped"
    for table, table2 in zip(tables, tables2):
        assert table.values == table2.values, "values are coded in sorted order, not by appearance"
        assert _cell_multiset(table) == _cell_multiset(table2)
        np.testing.assert_array_equal(table.totals, table2.totals)
    for table, spec in zip(tables, SPECS):
        assert _cell_multiset(table) == _brute_force(frame, QI, list(spec.columns))


@settings(max_examples=30, deadline=None)
@given(frame=_frames())
def test_dense_blocks_and_rows_match_the_sparse_cells(frame: pd.DataFrame) -> None:
    _, (table,) = count_tables(frame, QI, [AttributeSpec(("salary",), kind="numerical")])
    dense = np.vstack([block for _, _, block in table.blocks(max_cells=7)])
    expected = np.zeros((table.classes.count, table.m), dtype=np.int64)
    expected[table.class_index, table.value_index] = table.count
    np.testing.assert_array_equal(dense, expected)
    np.testing.assert_array_equal(dense.sum(axis=1), table.sizes)
    np.testing.assert_array_equal(dense.sum(axis=0), table.totals)
    for i in range(table.classes.count):
        np.testing.assert_array_equal(table.row(i), expected[i])


def test_missing_quasi_identifier_values_form_a_class() -> None:
    frame = pd.DataFrame({
        "zip": ["476**", None, None, "476**", None],
        "age": [20, 30, 30, None, None],
        "disease": ["flu"] * 5,
    })
    classes, (table,) = count_tables(frame, QI, [AttributeSpec(("disease",))])
    # Four classes: (476**, 20), (None, 30) x2, (476**, None), (None, None); nothing dropped.
    assert _class_multiset(classes) == Counter({
        (("476**", 20.0), 1): 1, ((None, 30.0), 2): 1, (("476**", None), 1): 1, ((None, None), 1): 1,
    })
    assert classes.rows == table.n == 5


def test_missing_sensitive_value_is_an_error_by_default() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "b"], "age": [1, 1, 2], "disease": ["flu", None, "flu"]}, index=[7, 8, 9])
    with pytest.raises(DataError) as caught:
        count_tables(frame, QI, [AttributeSpec(("disease",))], source="r.csv")
    assert str(caught.value) == (
        "r.csv: sensitive attribute 'disease' has 1 missing value(s), the first at row 2 (index label 8); "
        'set missing = "value" (a category of its own) or missing = "exclude" for this attribute in the policy'
    )


def test_missing_sensitive_value_as_a_category() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "b"], "age": [1, 1, 2], "disease": ["flu", None, "flu"]})
    _, (table,) = count_tables(frame, QI, [AttributeSpec(("disease",), missing="value")])
    assert table.values == ("flu", None) and table.n == 3 and table.excluded == 0
    assert _cell_multiset(table) == Counter({(("a", 1), "flu", 1): 1, (("a", 1), None, 1): 1, (("b", 2), "flu", 1): 1})


def test_excluded_sensitive_values_are_counted_and_warned_about() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "b"], "age": [1, 1, 2], "salary": [3.0, None, None]})
    with pytest.warns(ExcludedRowsWarning, match="2 row\\(s\\) with a missing value of 'salary' excluded"):
        classes, (table,) = count_tables(frame, QI, [AttributeSpec(("salary",), kind="numerical", missing="exclude")])
    assert table.excluded == 2 and table.n == 1
    # The class sizes for the QI-only models keep every row; the class (b, 2) has no counted row left.
    assert classes.sizes.tolist() == [2, 1] and table.sizes.tolist() == [1, 0]


@pytest.mark.parametrize(
    ("spec", "expected_values"),
    [
        (AttributeSpec(("disease", "salary")), (("flu", 1), ("flu", 2), ("ulcer", 1))),
        (AttributeSpec(("salary", "disease")), ((1, "flu"), (1, "ulcer"), (2, "flu"))),
    ],
)
def test_joint_attributes_count_the_combinations_present(spec: AttributeSpec, expected_values: tuple[Any, ...]) -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "a", "b"], "age": [1, 1, 1, 2],
                          "disease": ["flu", "flu", "ulcer", "flu"], "salary": [1, 1, 1, 2]})
    _, (table,) = count_tables(frame, QI, [spec])
    assert table.values == expected_values and table.attribute == spec.columns
    assert _cell_multiset(table) == _brute_force(frame, QI, list(spec.columns))


def test_joint_attribute_with_a_missing_part_follows_its_missing_policy() -> None:
    frame = pd.DataFrame({"zip": ["a", "a"], "age": [1, 1], "disease": ["flu", None], "salary": [1, 2]})
    with pytest.raises(DataError, match="sensitive attribute \\['disease', 'salary'\\] has 1 missing value"):
        count_tables(frame, QI, [AttributeSpec(("disease", "salary"))])
    _, (table,) = count_tables(frame, QI, [AttributeSpec(("disease", "salary"), missing="value")])
    assert table.values == (("flu", 1), None)


def test_declared_order_and_domain_set_the_value_codes() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "b"], "age": [1, 1, 2], "grade": ["mid", "low", "mid"], "salary": [5, 3, 5]})
    _, (grade, salary) = count_tables(frame, QI, [
        AttributeSpec(("grade",), kind="ordinal", order=("low", "mid", "high")),
        AttributeSpec(("salary",), kind="numerical", order=(9, 5, 3, 7)),
    ])
    assert grade.values == ("low", "mid", "high") and grade.totals.tolist() == [1, 2, 0]
    assert salary.values == (3, 5, 7, 9) and salary.totals.tolist() == [1, 2, 0, 0]


BAD = [
    pytest.param(pd.DataFrame({"zip": ["a"], "age": [1], "grade": ["top"]}),
                 [AttributeSpec(("grade",), kind="ordinal", order=("low", "high"))], DataError,
                 "r.csv: column 'grade', row 1 (index label 0): value 'top' is not in the declared order ['low', 'high']",
                 id="value outside the order"),
    pytest.param(pd.DataFrame({"zip": ["a"], "age": [1], "salary": [4]}),
                 [AttributeSpec(("salary",), kind="numerical", order=(5, 3))], DataError,
                 "r.csv: column 'salary', row 1 (index label 0): value 4 is not in the declared domain [3, 5]",
                 id="value outside the domain"),
    pytest.param(pd.DataFrame({"zip": ["a"], "age": [1], "grade": ["low"]}),
                 [AttributeSpec(("grade",), kind="ordinal", order=("low", "low"))], PolicyError,
                 "sensitive attribute 'grade': the declared order/domain repeats a value", id="repeated order"),
    pytest.param(pd.DataFrame({"zip": ["a", "a"], "age": [1, 1], "salary": ["3", "3K"]}),
                 [AttributeSpec(("salary",), kind="numerical")], DataError,
                 "r.csv: column 'salary' is declared numerical but row 2 (index label 1) holds '3K'",
                 id="text in a numerical column"),
    pytest.param(pd.DataFrame({"zip": ["a"], "age": [1]}), [AttributeSpec(("salary",))], DataError,
                 "r.csv: column(s) ['salary'] not found; the table has columns ['zip', 'age']", id="absent column"),
    pytest.param(pd.DataFrame({"zip": [], "age": [], "salary": []}), [AttributeSpec(("salary",))], DataError,
                 "r.csv: the table has no rows", id="no rows"),
]


@pytest.mark.parametrize(("frame", "specs", "error", "message"), BAD)
def test_bad_inputs(frame: pd.DataFrame, specs: list[AttributeSpec], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        count_tables(frame, QI, specs, source="r.csv")
    assert message in str(caught.value)


def test_no_quasi_identifier() -> None:
    with pytest.raises(PolicyError, match="r.csv: at least one quasi-identifier column is needed"):
        count_tables(pd.DataFrame({"s": [1]}), [], [], source="r.csv")


def test_an_attribute_with_no_value_left_is_an_error() -> None:
    frame = pd.DataFrame({"zip": ["a"], "age": [1], "salary": [None]})
    with pytest.warns(ExcludedRowsWarning), pytest.raises(DataError, match="'salary' has no non-missing value"):
        count_tables(frame, QI, [AttributeSpec(("salary",), kind="numerical", missing="exclude")])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"columns": ()}, "a sensitive attribute needs at least one column"),
        ({"columns": ("a", "b"), "kind": "numerical"},
         "joint attribute ['a', 'b']: expected kind 'categorical' (combinations have no order), found 'numerical'"),
        ({"columns": ("a",), "kind": "ordinal", "missing": "value"},
         "sensitive attribute 'a': missing = 'value' makes a category of its own and applies to categorical "
         "attributes only; the ordinal attribute must use 'error' or 'exclude'"),
    ],
)
def test_bad_attribute_specs(arguments: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        AttributeSpec(**arguments)
    assert str(caught.value) == message


def test_regroup_merges_values_into_buckets() -> None:
    frame = pd.DataFrame({"zip": ["a", "a", "a", "b"], "age": [1] * 4, "salary": [1, 2, 3, 3]})
    _, (table,) = count_tables(frame, ["zip"], [AttributeSpec(("salary",), kind="numerical")])
    merged = table.regroup(np.array([0, 0, 1]), ["low", "high"])
    assert merged.values == ("low", "high") and merged.totals.tolist() == [2, 2]
    assert _cell_multiset(merged) == Counter({(("a",), "low", 2): 1, (("a",), "high", 1): 1, (("b",), "high", 1): 1})
    with pytest.raises(ValueError, match="mapping must give a bucket for each of the 3 values"):
        table.regroup(np.array([0, 1]), ["x", "y"])


@given(frame=_frames(), data=st.data(), max_cells=st.integers(1, 12))
@settings(max_examples=60, deadline=None)
def test_rows_of_selected_classes_match_the_dense_blocks(frame: pd.DataFrame, data: st.DataObject,
                                                          max_cells: int) -> None:
    # The gather of a few classes' rows must equal those rows of the full dense matrix,
    # built independently here from the sparse cells, whatever the chunk size.
    _, (table,) = count_tables(frame, QI, [AttributeSpec(("disease",), missing="value")])
    dense = np.zeros((table.classes.count, table.m), dtype=np.int64)
    dense[table.class_index, table.value_index] = table.count
    chosen = np.array(sorted(data.draw(st.sets(st.integers(0, table.classes.count - 1), min_size=1))))
    gathered = [(chunk, rows) for chunk, rows in table.rows(chosen, max_cells=max_cells)]
    assert np.concatenate([chunk for chunk, _ in gathered]).tolist() == chosen.tolist()
    assert np.array_equal(np.concatenate([rows for _, rows in gathered]), dense[chosen])
    assert all(rows.size <= max(max_cells, table.m) for _, rows in gathered)
    assert np.array_equal(table.row(int(chosen[0])), dense[chosen[0]])


_KEY_VALUES = st.one_of(
    st.lists(st.one_of(st.none(), st.text(alphabet=st.sampled_from("ab'\"\\ \t~\x7fé€"), max_size=4), st.text()),
             min_size=1, max_size=12),
    st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), min_size=1, max_size=12),
    st.lists(st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=3)), min_size=1, max_size=12),
)


@settings(max_examples=200, deadline=None)
@given(values=_KEY_VALUES, arrow=st.booleans())
def test_the_quasi_identifier_order_compares_the_repr_of_each_values_json_form(values: list[Any], arrow: bool) -> None:
    # Arrow writes plain text and integers; the rest goes through Python: both must give repr(jsonable(v))
    index = pd.Index(values, dtype=object)
    if arrow and all(isinstance(v, str) or v is None for v in values):
        index = pd.Index(pd.array(values, dtype="string[pyarrow]"))
    distinct = index.unique()
    assert _json_reprs(distinct).to_pylist() == [repr(jsonable(v)) for v in distinct.tolist()]
    keys = pd.DataFrame({"q": distinct})
    expected = sorted(range(len(distinct)), key=lambda i: repr(jsonable(distinct[i])))
    assert qi_order(keys, ["q"]).tolist() == expected


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["b", "a", "10", "9", None]), st.sampled_from([3, -1, 20])),
                min_size=1, max_size=40))
def test_classes_from_cells_rank_as_their_keys_sort(rows: list[tuple[Any, int]]) -> None:
    """Classes built from counted cells come numbered in QI order, so their rank is kept rather than sorted again:
    it must be the rank a fresh sort of their keys gives."""
    import pyarrow as pa

    from verifier.tables.engine_counts import Cells, count_tables_from_cells

    distinct = list(dict.fromkeys(rows))[::-1]  # any numbering but the QI order
    keys = pa.table({"zip": [z for z, _ in distinct], "age": [a for _, a in distinct]})
    sizes = np.array([rows.count(key) for key in distinct], dtype=np.int64)
    cells = Cells(class_index=np.arange(len(distinct)), value_index=np.zeros(len(distinct), dtype=np.int64),
                  values=pa.table({"s": ["x"]}), count=sizes)
    classes, _ = count_tables_from_cells(keys, sizes, [cells], ("zip", "age"), [AttributeSpec(("s",))])
    fresh = Classes(qi=classes.qi, keys=classes.keys, sizes=classes.sizes)
    assert np.array_equal(classes.qi_rank, fresh.qi_rank)
    assert np.array_equal(fresh.qi_rank, np.arange(classes.count))


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 5)), min_size=0, max_size=40),
       in_order=st.booleans())
def test_sparse_cells_are_counted_the_same_sorted_or_not(cells: list[tuple[int, int]], in_order: bool) -> None:
    # far more possible cells than keys: counted by sorting, or, when the keys come in order, by their runs alone
    from verifier.tables.counting import _cell_counts

    chosen = sorted(cells) if in_order else cells
    keys = np.array([key for key, _ in chosen], dtype=np.int64)
    weights = np.array([weight for _, weight in chosen], dtype=np.int64)
    expected = Counter[int]()
    for key, weight in cells:
        expected[key] += weight
    found, counts = _cell_counts(keys, weights, 10**7)
    assert found.tolist() == sorted(expected) and counts.tolist() == [expected[key] for key in sorted(expected)]
    assert counts.dtype == np.int64
