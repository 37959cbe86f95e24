"""Counting what an engine hands over: a streamed release densely (verifier/tables/stream_counts.py) and its
group-bys batch by batch (verifier/tables/engine_counts.py): the same count tables as counting the rows."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.errors import DataError, ExcludedRowsWarning
from verifier.measure import measure_tables
from verifier.tables import stream_counts
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.engine_counts import Cells, DenseCells, GroupCounter, count_tables_from_cells
from verifier.tables.stream_counts import LOCAL_COMBINATIONS, DenseLimit, StreamCounter

QI = ("zip", "age")
SPECS = (
    AttributeSpec(("disease",)),
    AttributeSpec(("salary",), kind="numerical", missing="exclude"),
    AttributeSpec(("job",), missing="value"),
    AttributeSpec(("disease", "job"), missing="value"),
)


@st.composite
def _releases(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(1, 40))

    def column(values: list[Any]) -> list[Any]:
        return draw(st.lists(st.sampled_from(values), min_size=rows, max_size=rows))

    return pd.DataFrame({
        "zip": column(["476**", "4790*", "02138", "2138", None]),
        "age": column([20, 30, None]),
        "disease": column(["flu", "gastritis", "colitis"]),
        "salary": column(["3", "2.50", "2.5", "9007199254740993", "9007199254740992", None]),
        "job": column(["nurse", "clerk", None]),
    })


def _measured(classes: Classes, tables: tuple[CountTable, ...]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        return json.dumps(measure_tables(classes, tables).to_json()["measurements"], sort_keys=True)


def _batches(frame: pd.DataFrame, sizes: list[int], dictionary: bool) -> list[pa.RecordBatch]:
    """The release as record batches of the given sizes; text columns as Arrow dictionaries when ``dictionary``."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if dictionary:
        table = pa.table({name: column.dictionary_encode() if pa.types.is_string(column.type) else column
                          for name, column in zip(table.column_names, table.columns, strict=True)})
    batches, start = [], 0
    for size in [*sizes, len(frame)]:
        if start < len(frame):
            batches.extend(table.slice(start, size).to_batches())
            start += size
    return batches


@pytest.mark.parametrize("local", [0, LOCAL_COMBINATIONS])
@settings(max_examples=40, deadline=None)
@given(frame=_releases(), sizes=st.lists(st.integers(1, 9), max_size=8), dictionary=st.booleans(),
       streamed=st.booleans())
def test_counting_batches_densely_equals_counting_the_rows(local: int, frame: pd.DataFrame, sizes: list[int],
                                                          dictionary: bool, streamed: bool) -> None:
    # local = 0: a batch's classes are numbered through the combinations of its dictionaries only when
    # these are fewer than its rows (else row by row); the default: nearly always through them
    counter = StreamCounter(QI, SPECS, source="release")
    with mock.patch.object(stream_counts, "LOCAL_COMBINATIONS", local):
        if streamed:  # coded on a second thread while counted
            counter.add_all(_batches(frame, sizes, dictionary))
        else:
            for batch in _batches(frame, sizes, dictionary):
                counter.add(batch)
    assert _outcome(lambda: count_tables_from_cells(*counter.cells(), QI, SPECS, source="release")) == \
        _outcome(lambda: count_tables(frame, QI, SPECS, source="release"))


@settings(max_examples=40, deadline=None)
@given(frame=_releases(), sizes=st.lists(st.integers(1, 9), max_size=8), order=st.randoms(use_true_random=False))
def test_counting_group_bys_batch_by_batch_equals_counting_the_rows(frame: pd.DataFrame, sizes: list[int],
                                                                   order: Any) -> None:
    # each attribute's group-by in its own order, cut in batches: the distinct rows are coded across batches
    counter = GroupCounter(QI, SPECS, count="n", source="release")
    for number, spec in enumerate(SPECS):
        grouped = frame.groupby([*QI, *spec.columns], dropna=False, sort=False).size().reset_index(name="n")
        rows = list(range(len(grouped)))
        order.shuffle(rows)
        for batch in _batches(grouped.iloc[rows].reset_index(drop=True), sizes, False):
            counter.add(number, batch)
    assert _outcome(lambda: count_tables_from_cells(*counter.cells(), QI, SPECS, source="release")) == \
        _outcome(lambda: count_tables(frame, QI, SPECS, source="release"))


def test_group_bys_that_disagree_on_the_classes_are_refused() -> None:
    specs = (AttributeSpec(("disease",)), AttributeSpec(("job",)))
    counter = GroupCounter(["zip"], specs, count="n", source="release")
    counter.add(0, pa.record_batch({"zip": ["a", "b"], "disease": ["flu", "flu"], "n": [2, 1]}))
    counter.add(1, pa.record_batch({"zip": ["a", "b", "b"], "job": ["nurse", "nurse", "clerk"], "n": [2, 1, 1]}))
    with pytest.raises(DataError, match="release: the group-bys of the release do not hold the same classes"):
        counter.cells()
    empty = GroupCounter(["zip"], specs[:1], count="n", source="release")
    empty.add(0, pa.record_batch({"zip": pa.array([], pa.string()), "disease": pa.array([], pa.string()),
                                  "n": pa.array([], pa.int64())}))  # a result of no rows may still come as a batch
    with pytest.raises(DataError, match="release: the table has no rows"):
        empty.cells()
    floats = GroupCounter(["score"], specs[:1], count="n", source="release")
    with pytest.raises(DataError, match="release: column 'score': holds the float NaN"):
        floats.add(0, pa.record_batch({"score": [1.5, float("nan")], "disease": ["flu", "flu"], "n": [1, 1]}))


def _outcome(count: Callable[[], tuple[Classes, tuple[CountTable, ...]]]) -> str:
    """What was measured on the count tables, or the error that counting raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExcludedRowsWarning)
            classes, tables = count()
    except DataError as error:
        return str(error)
    return f"{classes.rows} rows in {classes.count} classes: {_measured(classes, tables)}"


def test_a_dictionary_value_no_row_holds_is_neither_a_class_nor_a_value() -> None:
    batch = pa.record_batch({
        "zip": pa.DictionaryArray.from_arrays(pa.array([0, 0, 2], pa.int32()), pa.array(["a", "unused", "b"])),
        "disease": pa.DictionaryArray.from_arrays(pa.array([1, None, 1], pa.int32()), pa.array(["unused", "flu"])),
    })
    counter = StreamCounter(["zip"], [AttributeSpec(("disease",), missing="value")], source="release")
    counter.add(batch)
    classes, (table,) = count_tables_from_cells(*counter.cells(), ["zip"], [AttributeSpec(("disease",), missing="value")])
    assert classes.keys["zip"].tolist() == ["a", "b"] and classes.sizes.tolist() == [2, 1]
    assert table.values == ("flu", None) and table.count.tolist() == [1, 1, 1]


def test_past_the_dense_limit_counting_stops() -> None:
    frame = pd.DataFrame({"zip": [str(i) for i in range(100)], "salary": np.arange(100) % 10})
    counter = StreamCounter(["zip"], [AttributeSpec(("salary",), kind="numerical")], source="release", limit=300)
    with pytest.raises(DenseLimit, match="more than 300 dense cells"):
        counter.add(pa.RecordBatch.from_pandas(frame, preserve_index=False))


def test_rows_are_kept_until_they_reach_an_eighth_of_the_cells_then_counted_densely() -> None:
    generator = np.random.default_rng(3)
    frame = pd.DataFrame({"zip": generator.choice(["a", "b", None], 4000), "age": generator.choice([20, 30, 40, 50, 60], 4000),
                          "disease": generator.choice(["flu", "colitis"], 4000),
                          "salary": [str(i) for i in range(4000)], "job": generator.choice(["nurse", None], 4000)})
    specs = (AttributeSpec(("disease",)), AttributeSpec(("salary",), kind="numerical"))
    counter = StreamCounter(QI, specs, source="release")
    for batch in _batches(frame, [500] * 7, False):
        counter.add(batch)
    keys, sizes, (disease, salary) = counter.cells()
    assert isinstance(disease, DenseCells) and isinstance(salary, Cells)
    assert _outcome(lambda: count_tables_from_cells(keys, sizes, [disease, salary], QI, specs)) == \
        _outcome(lambda: count_tables(frame, QI, specs, source="data"))


def test_a_dense_table_is_held_in_the_narrowest_type_its_cells_bound_allows() -> None:
    generator = np.random.default_rng(4)
    frame = pd.DataFrame({"zip": generator.choice(["a", "b", None], 3000), "age": generator.choice([20, 30], 3000),
                          "disease": generator.choice(["flu", "colitis", "angina"], 3000)})
    specs = (AttributeSpec(("disease",)),)
    kinds, bounds = [], []
    with mock.patch.object(stream_counts, "COUNT_TYPES", (np.int8, np.int16, np.int64)):  # int8 passed at 127
        counter = StreamCounter(QI, specs, source="release")
        for batch in _batches(frame, [500] * 5, False):
            counter.add(batch)
            kinds.append(counter.cells()[2][0].counts.dtype)
            bounds.append(counter.counts[0].bound)
    # 18 cells of about 167 rows each: the bound (the sum of each batch's largest cell, at least the largest
    # cell) passes int8's 127 on the way, and each table is held in the narrowest type that reaches its bound
    assert kinds[0] == np.int8 and kinds[-1] == np.int16
    assert kinds == [next(kind for kind in (np.int8, np.int16) if np.iinfo(kind).max >= bound) for bound in bounds]
    assert bounds == sorted(bounds) and bounds[-1] >= int(frame.value_counts(dropna=False).max())
    assert _outcome(lambda: count_tables_from_cells(*counter.cells(), QI, specs)) == \
        _outcome(lambda: count_tables(frame, QI, specs, source="data"))
    narrow = StreamCounter(QI, specs, source="release")
    narrow.add(_batches(frame, [500], False)[0])
    assert narrow.cells()[2][0].counts.dtype == np.int16
    _, (table,) = count_tables_from_cells(*narrow.cells(), QI, specs)
    assert table.count.dtype == np.int64 and int(table.count.sum()) == 500  # a count table counts in int64


def test_a_dense_table_is_widened_before_a_count_could_pass_its_type() -> None:
    grid = stream_counts._Grid(stream_counts._Budget(1 << 20), 0, np.int16)
    grid.fit(2, 2)[0, 0] = 32_767
    assert grid.hold(32_767).dtype == np.int16
    assert grid.hold(32_768).dtype == np.int32 and grid.table[0, 0] == 32_767
    assert grid.hold(1 << 31).dtype == np.int64 and grid.table[0, 0] == 32_767
    assert grid.hold(5).dtype == np.int64  # never narrowed again


def test_a_dictionary_shared_by_batches_is_looked_up_once_and_new_values_still_get_codes() -> None:
    coded = stream_counts._Dictionary(stream_counts._Budget(1 << 20))
    shared = pa.array(["b", "a", "c"])
    first = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 0]), shared)
    codes, rows = coded.local(first)
    assert codes.tolist() == [1, 0, 2] and rows.tolist() == [0, 1, 2, 0]
    with mock.patch.object(coded, "_positions", side_effect=AssertionError("looked up again")):
        again, _ = coded.local(pa.DictionaryArray.from_arrays(pa.array([2, 2]), pa.array(["b", "a", "c"])))
    assert again.tolist() == [1, 0, 2]
    other, _ = coded.local(pa.DictionaryArray.from_arrays(pa.array([0, 1]), pa.array(["d", "a"])))
    assert other.tolist() == [3, 0] and coded.values.to_pylist() == ["a", "b", "c", "d"]


def _table_arrays(table: CountTable) -> list[list[int]]:
    return [np.asarray(part).tolist() for part in (table.class_index, table.value_index, table.count, table.sizes,
                                                   table.totals)]


def test_cells_grouped_by_class_are_moved_to_the_classes_order_class_by_class() -> None:
    # keys' rows b, a, c: in QI order a, b, c; each class's cells in value order, as a streamed count hands them over
    keys = pa.table({"zip": ["b", "a", "c"]})
    cells = Cells(values=pa.table({"salary": ["20", "10"]}), class_index=np.array([0, 0, 1, 2, 2]),
                  value_index=np.array([0, 1, 0, 0, 1]), count=np.array([2, 1, 3, 1, 1]))
    spec = AttributeSpec(("salary",), kind="numerical")
    classes, (table,) = count_tables_from_cells(keys, np.array([3, 3, 2]), [cells], ["zip"], [spec])
    assert classes.keys["zip"].tolist() == ["a", "b", "c"] and classes.sizes.tolist() == [3, 3, 2]
    # salary 10 is code 0, 20 code 1: class b's cells (20: 2, 10: 1) come out in code order
    assert _table_arrays(table) == [[0, 1, 1, 2, 2], [1, 0, 1, 0, 1], [3, 1, 2, 1, 1], [3, 3, 2], [2, 6]]


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(1, 4)), min_size=1, max_size=30,
                      unique_by=lambda cell: cell[:2]),
       values=st.permutations(["1", "2", "2.0", "3"]), order=st.randoms(use_true_random=False))
def test_cells_grouped_or_not_give_the_same_count_table(cells: list[tuple[int, int, int]], values: list[str],
                                                        order: Any) -> None:
    # the same cells grouped by class and value (moved class by class) and in any order (sorted): the same table,
    # whether or not the values' codes follow their order ("2" and "2.0" share a code)
    grouped = sorted(cells)
    shuffled = list(cells)
    order.shuffle(shuffled)
    classes = sorted({cell[0] for cell in cells})
    keys = pa.table({"zip": [f"z{(7 * number) % 11}" for number in classes]})  # QI order other than the classes'
    place = {number: row for row, number in enumerate(classes)}
    sizes = np.bincount([place[c] for c, _, _ in cells], weights=[n for _, _, n in cells]).astype(np.int64)
    spec = AttributeSpec(("salary",), kind="numerical")

    def table(chosen: list[tuple[int, int, int]]) -> list[list[int]]:
        found = Cells(values=pa.table({"salary": values}), class_index=np.array([place[c] for c, _, _ in chosen]),
                      value_index=np.array([v for _, v, _ in chosen]), count=np.array([n for _, _, n in chosen]))
        return _table_arrays(count_tables_from_cells(keys, sizes, [found], ["zip"], [spec])[1][0])

    expected: dict[tuple[int, int], int] = {}
    for c, v, n in cells:
        zip_rank = sorted(f"z{(7 * number) % 11}" for number in classes).index(f"z{(7 * c) % 11}")
        code = sorted({float(value) for value in values}).index(float(values[v]))
        expected[zip_rank, code] = expected.get((zip_rank, code), 0) + n
    ordered = sorted(expected.items())
    assert table(grouped) == table(shuffled)
    assert table(grouped)[:3] == [[c for (c, _), _ in ordered], [v for (_, v), _ in ordered], [n for _, n in ordered]]


@pytest.mark.parametrize(("rows", "stops"), [(60, False), (61, True)])
def test_knowing_the_rows_the_count_stops_once_certain_to_pass_the_dense_limit(rows: int, stops: bool) -> None:
    # 10 rows of 10 classes and 10 values: 100 cells, past the limit of 60; 10 kept cell numbers, the rest to come
    # one each: 10 + (60 - 10) reaches the limit, 10 + (61 - 10) passes it
    frame = pd.DataFrame({"zip": [str(i) for i in range(10)], "salary": np.arange(10)})
    specs = [AttributeSpec(("salary",), kind="numerical")]
    counter = StreamCounter(["zip"], specs, source="release", limit=60, rows=rows)
    batch = pa.RecordBatch.from_pandas(frame, preserve_index=False)
    if stops:
        with pytest.raises(DenseLimit, match="the release's 61 rows would be kept as cell numbers"):
            counter.add(batch)
    else:
        counter.add(batch)
        assert _outcome(lambda: count_tables_from_cells(*counter.cells(), ["zip"], specs)) == \
            _outcome(lambda: count_tables(frame, ["zip"], specs, source="data"))


def test_knowing_the_rows_a_count_whose_dense_table_fits_goes_on() -> None:
    # 40 rows of 4 classes and 10 values: 40 cells, within the limit; 10^6 rows to come change nothing
    frame = pd.DataFrame({"zip": [str(i % 4) for i in range(40)], "salary": np.arange(40) % 10})
    specs = [AttributeSpec(("salary",), kind="numerical")]
    counter = StreamCounter(["zip"], specs, source="release", limit=200, rows=10**6)
    counter.add(pa.RecordBatch.from_pandas(frame, preserve_index=False))
    assert _outcome(lambda: count_tables_from_cells(*counter.cells(), ["zip"], specs)) == \
        _outcome(lambda: count_tables(frame, ["zip"], specs, source="data"))
