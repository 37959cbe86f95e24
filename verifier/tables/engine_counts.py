"""Counting what an engine counted: cells keyed by distinct values, or its group-bys, into count tables.

An engine (:mod:`verifier.engines`) hands over, per attribute, the non-empty cells with
the attribute's distinct values as found (:class:`Cells`), a dense ``class × value``
table of them (:class:`DenseCells`), or the rows of its group-bys as Arrow record batches
(:class:`GroupCounter`). :func:`count_tables_from_cells` codes, parses and
checks each distinct value once, with the functions that read rows, then spreads the
codes over the cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from verifier.cpus import usable_cpus
from verifier.errors import DataError
from verifier.tables.counting import (
    combined_ids,
    count_attribute,
    first_occurrences,
    flag_identifiers,
    refuse_empty,
    sums,
)
from verifier.tables.counts import BLOCK_CELLS, AttributeSpec, Classes, CountTable, qi_order
from verifier.tables.distinct import runs
from verifier.tables.load import refuse_nan
from verifier.tables.values import Locate, first_row, value_codes

__all__ = ["Cells", "DenseCells", "GroupCounter", "check_classes", "count_tables_from_cells", "joined", "narrow"]


class GroupCounter:
    """Counts an engine's group-bys, batch by batch, into the cells of :func:`count_tables_from_cells`.

    Each group-by (one per attribute, in the order of ``attributes``; one over the
    quasi-identifiers alone when there is no attribute) holds the distinct combinations of
    the QI columns and the attribute's columns, and their numbers of rows in the column
    ``count`` (``SELECT qi..., columns..., COUNT(*) ... GROUP BY qi..., columns...``).
    Missing values are groups of their own, so every group-by covers every row and holds
    every class. Its rows arrive as Arrow record batches, in any number and order
    (:meth:`add`).

    Parameters
    ----------
    qi, attributes, source
        As for :func:`count_tables`.
    count
        The name of the count column.

    Notes
    -----
    A batch's text is not kept: its distinct QI combinations and its distinct values of
    the attribute are (each coded in Arrow, a hash lookup, no Python object per row), and
    for each of its rows the place of its combination and of its value among those kept,
    and its count. :meth:`cells` codes what was kept once more, across batches, so memory
    is one batch, the kept distinct rows and three integers a row of the group-bys,
    however many rows they have (DuckDB's spill to disk bounds the rest).
    """

    def __init__(self, qi: Sequence[str], attributes: Sequence[AttributeSpec], *, count: str, source: str = "data"):
        self.qi = tuple(qi)
        self.attributes = tuple(attributes)
        self.count = count
        self.source = source
        self._classes = _DistinctRows()
        self._values = [_DistinctRows() for _ in self.attributes]
        sets = max(len(self.attributes), 1)
        self._class_places: list[list[np.ndarray]] = [[] for _ in range(sets)]
        self._value_places: list[list[np.ndarray]] = [[] for _ in range(sets)]
        self._weights: list[list[np.ndarray]] = [[] for _ in range(sets)]

    def add(self, number: int, batch: pa.RecordBatch | pa.Table) -> None:
        """Count rows of the group-by of attribute ``number`` (``0`` for the one over the quasi-identifiers alone).

        Raises
        ------
        DataError
            When a floating-point column holds NaN (:func:`verifier.tables.load.refuse_nan`).
        """
        refuse_nan(self.source, batch, rows=False)
        self._class_places[number].append(self._classes.add([batch.column(column) for column in self.qi]))
        self._weights[number].append(narrow(batch.column(self.count).to_numpy().astype(np.int64, copy=False)))
        if self.attributes:
            columns = self.attributes[number].columns
            self._value_places[number].append(self._values[number].add([batch.column(column) for column in columns]))

    def cells(self) -> tuple[pa.Table, np.ndarray, list[Cells]]:
        """The classes' keys (one row a class), their sizes and each attribute's cells (see :class:`Cells`).

        What was counted is handed over, not copied: the counter is empty afterwards.

        Raises
        ------
        DataError
            When the release has no rows, or when its group-bys disagree on the classes'
            sizes (the release changed between them).
        """
        weights = [joined(parts) for parts in self._weights]
        refuse_empty(int(weights[0].sum()), self.source)
        keys, class_ids = self._classes.distinct(self.qi)
        class_index = [class_ids[joined(parts)] for parts in self._class_places]
        sizes = sums(class_index[0], weights[0], keys.num_rows)
        check_classes(sizes, zip(class_index[1:], weights[1:], strict=True), self.source)
        cells = []
        for number, spec in enumerate(self.attributes):
            values, value_ids = self._values[number].distinct(spec.columns)
            cells.append(Cells(values=values, class_index=class_index[number],
                               value_index=value_ids[joined(self._value_places[number])], count=weights[number]))
        return keys, sizes, cells


def check_classes(sizes: np.ndarray, counted: Iterable[tuple[np.ndarray, np.ndarray]], source: str) -> None:
    """Refuse group-bys whose cells (class index, count) do not sum to the classes' ``sizes``: the release changed
    between the passes that read it.

    Raises
    ------
    DataError
        Naming the release ``source``.
    """
    for index, count in counted:
        if not np.array_equal(sums(index, count, len(sizes)), sizes):
            raise DataError(f"{source}: the group-bys of the release do not hold the same classes: the release "
                            "changed while it was being read")


def joined(parts: list[np.ndarray]) -> np.ndarray:
    """The arrays of ``parts`` end to end as one int64 array; ``parts`` is emptied as they are joined (half the memory)."""
    joined = np.empty(sum(map(len, parts)), dtype=np.int64)
    start = 0
    while parts:
        part = parts.pop(0)
        joined[start:start + len(part)] = part
        start += len(part)
    return joined


class _DistinctRows:
    """The distinct rows of some columns across batches: each batch's own distinct rows are kept, and
    :meth:`add` gives each row's place among all rows kept so far."""

    def __init__(self) -> None:
        self._parts: list[list[pa.Array]] = []
        self._kept = 0

    def add(self, columns: Sequence[pa.Array | pa.ChunkedArray]) -> np.ndarray:
        """Keep the distinct rows of ``columns`` (one array each, of equal lengths); each row's place among those kept."""
        ids = _row_ids(columns)
        first = pa.array(first_occurrences(ids))
        self._parts.append([column.take(first) for column in columns])
        places = ids + self._kept
        self._kept += len(first)
        return narrow(places)

    def distinct(self, names: Sequence[str]) -> tuple[pa.Table, np.ndarray]:
        """The distinct rows across every batch (columns ``names``), and each kept row's row among them."""
        columns = [pa.chunked_array([part[number] for part in self._parts]) for number in range(len(names))]
        ids = _row_ids(columns)
        first = pa.array(first_occurrences(ids))
        return pa.table({name: column.take(first) for name, column in zip(names, columns, strict=True)}), ids


def _row_ids(columns: Sequence[pa.Array | pa.ChunkedArray]) -> np.ndarray:
    """Number the rows' combinations of values of ``columns`` by first appearance (missing values one value a column)."""
    encoded = [pc.dictionary_encode(column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column,
                                    null_encoding="encode") for column in columns]
    return combined_ids(((codes.indices.to_numpy(zero_copy_only=False), len(codes.dictionary)) for codes in encoded),
                        len(columns[0]))


def narrow(values: np.ndarray) -> np.ndarray:
    """Non-negative int64 ``values`` as int32 when they fit (half the memory while they wait to be counted)."""
    return values.astype(np.int32) if not len(values) or int(values.max()) < 1 << 31 else values


@dataclass(frozen=True)
class DenseCells:
    """One attribute's counts as a dense ``class × value`` table, before its values are coded.

    Attributes
    ----------
    values
        The attribute's distinct values as found, as for :class:`Cells`.
    counts
        Rows per (table row, table column), in a signed integer type that holds them (int16,
        int32 or int64); rows and columns no class or value names are empty.
    rows
        Each class's row of ``counts`` (classes in the order of the keys).
    columns
        Each value's column of ``counts`` (values in the order of ``values``).
    """

    values: pa.Table
    counts: np.ndarray
    rows: np.ndarray
    columns: np.ndarray


@dataclass(frozen=True)
class Cells:
    """One attribute's non-empty cells before its values are coded: what an engine counted.

    Attributes
    ----------
    values
        The attribute's distinct values as found (one column per attribute column, one row
        per value; missing values as nulls), not yet parsed, ordered or checked.
    class_index, value_index, count
        Each cell's class (a row of the classes' keys), value (a row of ``values``) and
        number of rows.
    """

    values: pa.Table
    class_index: np.ndarray
    value_index: np.ndarray
    count: np.ndarray


def count_tables_from_cells(
    keys: pa.Table,
    sizes: np.ndarray,
    cells: Sequence[Cells | DenseCells],
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    source: str = "data",
    locate: Locate = first_row,
) -> tuple[Classes, tuple[CountTable, ...]]:
    """Build the classes and count tables from counts taken elsewhere (an engine), keyed by distinct values.

    Parameters
    ----------
    keys
        One row per class (any numbering): the class's quasi-identifier values.
    sizes
        Rows per class, in the rows' order of ``keys``.
    cells
        One per attribute, in the order of ``attributes``: the cells, or a dense table.
    qi, attributes, source
        As for :func:`count_tables`.
    locate
        Finds the release row that an error message names (the cells hold distinct
        values, not rows).

    Returns
    -------
    (Classes, tuple of CountTable)
        The same as :func:`count_tables` on the rows, except the class numbering: classes
        are numbered in the order of their quasi-identifier values (:func:`qi_order`),
        not by first appearance. No measure depends on the numbering.

    Notes
    -----
    Each attribute's values are coded, parsed and checked once per distinct value by the
    functions of :func:`count_tables`, then the codes are spread over the cells.
    """
    qi = tuple(qi)
    refuse_empty(int(sizes.sum()), source)
    keys_frame = keys.to_pandas(integer_object_nulls=True)
    order = qi_order(keys_frame, qi)
    renumber = np.empty(len(order), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    found = Classes(qi=qi, keys=keys_frame.iloc[order].reset_index(drop=True), sizes=sizes[order])
    found.__dict__["qi_rank"] = np.arange(found.count)  # the keys are in QI order: no second sort for the rank
    if found.rows > 1 and found.count == found.rows:
        flag_identifiers(found.keys, qi, source)
    tables = tuple(_count_dense(cell, cell.rows[order], found, spec, source, locate) if isinstance(cell, DenseCells)
                   else _count_cells(cell, renumber, found, spec, source, locate)
                   for cell, spec in zip(cells, attributes, strict=True))
    return found, tables


def _count_cells(cells: Cells, renumber: np.ndarray, classes: Classes, spec: AttributeSpec, source: str,
                 locate: Locate) -> CountTable:
    """One attribute's count table from its cells (``renumber``: each row of the keys' class number).

    Cells that come grouped by class (a streamed count's, sorted by class and value) are
    put in the order of the classes by moving each class's run of cells whole: one
    ``argsort`` of the classes and a gather, where sorting the cells again took a stable
    sort of every cell (0.8 s of CPU for 10^7 cells of 10^6 classes). Within a class the
    cells keep their order, so when the values' codes follow it too, the cells reach
    :func:`~verifier.tables.counting.count_attribute` in order and are not sorted there.
    """
    class_index, value_index, count = cells.class_index, cells.value_index, cells.count
    grouped = class_index.size > 1 and bool(np.all(class_index[1:] >= class_index[:-1]))
    if grouped:
        firsts, lengths = runs(class_index)
        starts = np.cumsum(lengths) - lengths
        targets = renumber[firsts]
        by_class = np.argsort(targets, kind="stable")
        lengths, starts = lengths[by_class], starts[by_class]
        moved = np.arange(class_index.size) - np.repeat(np.cumsum(lengths) - lengths - starts, lengths)
        ids = np.repeat(targets[by_class], lengths)
        value_index, count = value_index[moved], count[moved]
    else:
        ids = renumber[class_index]
    return count_attribute(cells.values.to_pandas(integer_object_nulls=True), ids, classes, spec, source, count,
                           locate, raw=value_index)


def _count_dense(cells: DenseCells, rows: np.ndarray, classes: Classes, spec: AttributeSpec, source: str,
                 locate: Locate) -> CountTable:
    """One attribute's count table from a dense table of counts: ``rows`` are its rows in the order of the classes.

    The table is read in blocks of classes (at most :data:`BLOCK_CELLS` cells each), on
    :func:`~verifier.cpus.usable_cpus` threads when there are several: numpy's gathers
    release the interpreter.
    """
    frame = cells.values.to_pandas(integer_object_nulls=True)
    codes, values, excluded = value_codes(frame, spec, source, locate,
                                           lambda mask: int(cells.counts[:, cells.columns[mask]].sum()))
    m = len(values)
    kept = np.flatnonzero(codes >= 0)
    by_code = kept[np.argsort(codes[kept], kind="stable")]
    starts = np.flatnonzero(np.r_[True, np.diff(codes[by_code]) != 0])
    targets, columns = codes[by_code][starts], cells.columns[by_code]
    merged = starts.size < columns.size  # values written two ways (2.50 and 2.5) share a code
    spread = not np.array_equal(targets, np.arange(m))  # a declared value no row holds
    in_order = np.array_equal(columns, np.arange(columns.size))  # the table's columns already in code order
    per_block = max(1, BLOCK_CELLS // max(m, columns.size))

    def block(start: int) -> tuple[np.ndarray, ...]:
        """The block's cells (class, value, count), its classes' sizes and its values' totals."""
        chosen = rows[start:start + per_block]
        dense = np.take(cells.counts[:, :columns.size], chosen, axis=0) if in_order else \
            cells.counts[np.ix_(chosen, columns)]
        if merged:  # in int64: two cells together may pass the table's own type
            dense = np.add.reduceat(dense.astype(np.int64), starts, axis=1)
        if spread:
            dense, found = np.zeros((dense.shape[0], m), dtype=np.int64), dense
            dense[:, targets] = found
        flat = dense.reshape(-1)
        nonzero = np.flatnonzero(flat)
        owner, value = np.divmod(nonzero, m)
        return owner + start, value, flat[nonzero].astype(np.int64), dense.sum(axis=1), dense.sum(axis=0)

    firsts = range(0, rows.size, per_block)
    if len(firsts) > 1:
        with ThreadPoolExecutor(usable_cpus()) as pool:
            found = list(pool.map(block, firsts))
    else:
        found = [block(first) for first in firsts]
    class_index, value_index, count, sizes = (np.concatenate([part[i] for part in found] or [np.empty(0, np.int64)])
                                              for i in range(4))
    totals = np.zeros(m, dtype=np.int64)
    for part in found:
        totals += part[4]
    return CountTable(
        spec=spec,
        classes=classes,
        values=values,
        class_index=class_index,
        value_index=value_index,
        count=count,
        sizes=sizes,
        totals=totals,
        excluded=excluded,
    )
