"""Counting what an engine counted: cells keyed by distinct values, or its group-bys, into count tables.

An engine (:mod:`verifier.engines`) hands over, per attribute, the non-empty cells with
the attribute's distinct values as found (:class:`Cells`), a dense ``class × value``
table of them (:class:`DenseCells`), or the rows of its group-bys as Arrow tables
(:func:`count_tables_from_groups`). :func:`count_tables_from_cells` codes, parses and
checks each distinct value once, with the functions that read rows, then spreads the
codes over the cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from verifier.cpus import usable_cpus
from verifier.tables.counting import (
    combined_ids,
    count_attribute,
    first_occurrences,
    flag_identifiers,
    refuse_empty,
    sums,
)
from verifier.tables.counts import BLOCK_CELLS, AttributeSpec, Classes, CountTable, qi_order
from verifier.tables.values import Locate, first_row, value_codes

__all__ = ["Cells", "DenseCells", "count_tables_from_cells", "count_tables_from_groups"]


def count_tables_from_groups(
    groups: Sequence[pa.Table],
    qi: Sequence[str],
    attributes: Sequence[AttributeSpec],
    *,
    count: str,
    source: str = "data",
    locate: Locate = first_row,
) -> tuple[Classes, tuple[CountTable, ...]]:
    """Build the classes and count tables from group-bys done elsewhere (an engine), as Arrow tables.

    Parameters
    ----------
    groups
        One per attribute, in the order of ``attributes`` (one over the quasi-identifiers
        alone when there is no attribute): the distinct combinations of the QI columns and
        the attribute's columns, and their numbers of rows in the column ``count``
        (``SELECT qi..., columns..., COUNT(*) ... GROUP BY qi..., columns...``). Missing
        values are groups of their own, so every group-by covers every row and holds
        every class.
    qi, attributes, source
        As for :func:`count_tables`.
    count
        The name of the count column.
    locate
        Finds the release row that an error message names (the groups hold distinct
        values, not rows).

    Returns
    -------
    (Classes, tuple of CountTable)
        The same as :func:`count_tables` on the rows, except the class numbering: classes
        are numbered in the order of their quasi-identifier values (:func:`qi_order`),
        not by first appearance. No measure depends on the numbering.

    Notes
    -----
    The quasi-identifier values stay in Arrow: each column is coded against the distinct
    values of the first group-by (a hash lookup in Arrow, no Python object per row), the
    codes are combined into class numbers as :func:`count_tables` does, and each
    attribute's distinct values are found in Arrow too; :func:`count_tables_from_cells`
    does the rest.
    """
    qi = tuple(qi)
    weights = [group.column(count).to_numpy().astype(np.int64, copy=False) for group in groups]
    refuse_empty(int(weights[0].sum()), source)
    dictionaries = [pc.unique(_no_nan(groups[0].column(column))) for column in qi]
    codes = [np.concatenate([_positions(group.column(column), dictionary) for group in groups])
             for column, dictionary in zip(qi, dictionaries, strict=True)]
    bounds = np.cumsum([0] + [group.num_rows for group in groups])
    ids = combined_ids(zip(codes, map(len, dictionaries), strict=True), int(bounds[-1]))
    first = first_occurrences(ids[:bounds[1]])
    keys = pa.table({column: dictionary.take(pa.array(column_codes[first]))
                     for column, dictionary, column_codes in zip(qi, dictionaries, codes, strict=True)})
    del codes
    sizes = sums(ids[:bounds[1]], weights[0], len(first))
    cells = []
    for number, spec in enumerate(attributes):
        group = groups[number].select(list(spec.columns))
        raw = combined_ids(((encoded.indices.to_numpy(zero_copy_only=False), len(encoded.dictionary))
                             for encoded in (pc.dictionary_encode(column.combine_chunks(), null_encoding="encode")
                                             for column in group.columns)), group.num_rows)
        cells.append(Cells(values=group.take(pa.array(first_occurrences(raw))), class_index=ids[bounds[number]:bounds[number + 1]],
                           value_index=raw, count=weights[number]))
    return count_tables_from_cells(keys, sizes, cells, qi, attributes, source=source, locate=locate)


@dataclass(frozen=True)
class DenseCells:
    """One attribute's counts as a dense ``class × value`` table, before its values are coded.

    Attributes
    ----------
    values
        The attribute's distinct values as found, as for :class:`Cells`.
    counts
        Rows per (table row, table column), int32 or int64; rows and columns no class or
        value names are empty.
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
                   else count_attribute(cell.values.to_pandas(integer_object_nulls=True), renumber[cell.class_index], found,
                               spec, source, cell.count, locate, raw=cell.value_index)
                   for cell, spec in zip(cells, attributes, strict=True))
    return found, tables


def _positions(values: pa.ChunkedArray, dictionary: pa.Array) -> np.ndarray:
    """The position of each value in ``dictionary`` (NULL included), looked up in Arrow."""
    found = pc.index_in(_no_nan(values), value_set=dictionary, skip_nulls=False)
    if found.null_count:
        raise ValueError("every group-by must hold the same classes")
    return found.to_numpy(zero_copy_only=False)


def _no_nan(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Floating-point NaN as a missing value, as pandas reads it (one class for NaN and NULL)."""
    if not pa.types.is_floating(values.type):
        return values
    return pc.if_else(pc.is_nan(values), pa.scalar(None, values.type), values)


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
        if merged:
            dense = np.add.reduceat(dense, starts, axis=1)
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
