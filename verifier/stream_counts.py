"""Counting a release streamed as Arrow record batches, in dense tables of bounded size.

An engine that can hand the release over a batch at a time (DuckDB reading CSV or
Parquet; pyarrow reading Parquet for the pandas engine) needs no group-by over text.
:class:`StreamCounter` codes each batch's columns through a dictionary of the batch's
own, a small one, mapped onto codes kept for the whole release (a column read as a
dictionary is used as it is, so no row is hashed); it numbers the classes and each
attribute's values through dense tables of code pairs, and keeps each attribute's rows
as (class, value) codes until they reach 1/:data:`SPARSE_SHARE` of the ``class × value``
cells, then adds them to a dense table of counts. The next batch is read and encoded on a
second thread while one is counted. Memory is two batches plus those tables, whatever
the number of rows; the tables and dictionaries are bounded by :data:`DENSE_CELLS`,
past which :class:`DenseLimit` is raised and the engine counts another way (many
distinct quasi-identifier combinations, or many values per class).
:meth:`StreamCounter.cells` hands the counts, keyed by the values as found, to
:func:`verifier.counts.count_tables_from_cells`, which codes, parses and checks the
values exactly as for every other engine.

Missing values are values of their own (a null is coded like any value); a float NaN is
refused (:func:`verifier.load.refuse_nan`). Counts are int64, exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from verifier._distinct import distinct
from verifier.counts import AttributeSpec, Cells, DenseCells
from verifier.load import refuse_nan

__all__ = ["BATCH_ROWS", "DENSE_CELLS", "SPARSE_SHARE", "PROBE_ROWS", "DenseLimit", "StreamCounter"]

BATCH_ROWS = 1 << 19
"""Rows per Arrow record batch an engine streams the release in (DuckDB's reader, pyarrow's Parquet dataset)."""

DENSE_CELLS = 1 << 26
"""The most cells (int64: 512 MiB) the dense tables and the dictionaries of a :class:`StreamCounter` hold together."""

SPARSE_SHARE = 8
"""An attribute is counted in a dense table once its rows reach 1/8 of the table's cells."""

PROBE_ROWS = 1 << 16
"""Rows counted alone before the rest: enough to show most releases with too many cells."""


class DenseLimit(Exception):
    """Counting densely would pass :data:`DENSE_CELLS`: the release has too many combinations for it."""


class _Budget:
    """Cells in use across a counter's tables, bounded by ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self, cells: int) -> None:
        if self.used + cells > self.limit:
            raise DenseLimit(f"more than {self.limit:,} dense cells")
        self.used += cells


class _Dictionary:
    """The distinct values of one column, in order of first appearance; a value's position is its code."""

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.values: pa.Array | None = None

    @property
    def size(self) -> int:
        return 0 if self.values is None else len(self.values)

    def codes(self, column: pa.DictionaryArray) -> np.ndarray:
        """Each row's code (a null is a value of its own); values not seen yet are appended.

        Only the column's dictionary is looked up; its indices become codes by one ``take``.
        """
        if column.indices.null_count == 0:
            return self._positions(column.dictionary)[column.indices.to_numpy()]
        local = pa.concat_arrays([column.dictionary, pa.array([None], column.dictionary.type)])
        return self._positions(local)[pc.fill_null(column.indices, len(local) - 1).to_numpy()]

    def _positions(self, local: pa.Array) -> np.ndarray:
        """The codes of the values ``local`` (appending those not seen yet)."""
        found = None if self.values is None else pc.index_in(local, value_set=self.values, skip_nulls=False)
        if found is None or found.null_count:
            new = pc.unique(local if found is None else local.filter(pc.is_null(found)))
            self.budget.take(len(new))
            self.values = new if self.values is None else pa.concat_arrays([self.values, new])
            found = pc.index_in(local, value_set=self.values, skip_nulls=False)
        return found.to_numpy().astype(np.int64)


class _Grid:
    """A dense int64 table that grows (by half again, at least to the size asked for) within a budget."""

    def __init__(self, budget: _Budget, fill: int) -> None:
        self.budget = budget
        self.fill = fill
        self.table = np.full((0, 0), fill, dtype=np.int64)

    def fit(self, rows: int, columns: int) -> np.ndarray:
        have_rows, have_columns = self.table.shape
        if rows > have_rows or columns > have_columns:
            rows = max(rows, have_rows + have_rows // 2) if rows > have_rows else have_rows
            columns = max(columns, have_columns + have_columns // 2) if columns > have_columns else have_columns
            self.budget.take(rows * columns - self.table.size)
            grown = np.zeros((rows, columns), dtype=np.int64) if self.fill == 0 else \
                np.full((rows, columns), self.fill, dtype=np.int64)
            grown[:have_rows, :have_columns] = self.table
            self.table = grown
        return self.table


class _Pairs:
    """Dense numbers for the pairs ``(left, right)`` of two codes, in a ``left × right`` grid.

    Pairs are numbered as they first occur, batch by batch (within a batch in ``(left, right)``
    order); :meth:`split` gives a number's pair back.
    """

    def __init__(self, budget: _Budget) -> None:
        self.grid = _Grid(budget, -1)
        self.left = np.empty(0, dtype=np.int64)
        self.right = np.empty(0, dtype=np.int64)

    @property
    def size(self) -> int:
        return int(self.left.size)

    def ids(self, left: np.ndarray, right: np.ndarray, lefts: int, rights: int) -> np.ndarray:
        grid = self.grid.fit(lefts, rights)
        width, table = grid.shape[1], grid.reshape(-1)
        flat = left * width
        flat += right
        found = table.take(flat)
        new = found < 0
        if new.any():
            pairs = distinct(flat[new])
            table[pairs] = np.arange(self.size, self.size + pairs.size)
            pair_left, pair_right = np.divmod(pairs, width)
            self.left = np.concatenate([self.left, pair_left])
            self.right = np.concatenate([self.right, pair_right])
            found[new] = table.take(flat[new])
        return found

    def split(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``(left, right)`` codes of pair numbers ``ids``."""
        return self.left[ids], self.right[ids]


class _Chain:
    """Numbers for combinations of several columns' codes: the first column's codes, then pairs, column by column."""

    def __init__(self, dictionaries: Sequence[_Dictionary], budget: _Budget) -> None:
        self.dictionaries = tuple(dictionaries)
        self.pairs = tuple(_Pairs(budget) for _ in self.dictionaries[1:])

    @property
    def size(self) -> int:
        return self.pairs[-1].size if self.pairs else self.dictionaries[0].size

    def ids(self, codes: Sequence[np.ndarray]) -> np.ndarray:
        found, count = codes[0], self.dictionaries[0].size
        for pairs, column, dictionary in zip(self.pairs, codes[1:], self.dictionaries[1:], strict=True):
            found = pairs.ids(found, column, count, dictionary.size)
            count = pairs.size
        return found

    def values(self, ids: np.ndarray, names: Sequence[str]) -> pa.Table:
        """The columns' values of the combinations ``ids``."""
        columns = []
        for pairs, dictionary in zip(reversed(self.pairs), reversed(self.dictionaries[1:]), strict=True):
            ids, right = pairs.split(ids)
            columns.append(_take(dictionary, right))
        columns.append(_take(self.dictionaries[0], ids))
        return pa.table(dict(zip(names, reversed(columns), strict=True)))


def _probed(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``batches``, the first split after its first :data:`PROBE_ROWS` rows."""
    iterator = iter(batches)
    first = next(iterator, None)
    if first is not None:
        yield from (first.slice(0, PROBE_ROWS), first.slice(PROBE_ROWS)) if first.num_rows > PROBE_ROWS else (first,)
        yield from iterator


def _dictionary(column: pa.Array) -> pa.DictionaryArray:
    """``column`` dictionary-encoded (a null as an index to no value), or as it is when it already is."""
    return column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)


def _take(dictionary: _Dictionary, codes: np.ndarray) -> pa.Array:
    assert dictionary.values is not None
    return dictionary.values.take(pa.array(codes))


class StreamCounter:
    """The classes and one dense ``class × value`` count table per attribute, added to a batch at a time.

    Parameters
    ----------
    qi
        The quasi-identifier columns.
    attributes
        The sensitive attributes (a joint attribute's values are the combinations of its
        columns).
    source
        Names the release in errors.
    limit
        The most cells the dense tables and dictionaries hold together (:data:`DENSE_CELLS`).

    Raises
    ------
    DenseLimit
        From :meth:`add`, when counting this release densely would pass ``limit``.
    """

    def __init__(self, qi: Sequence[str], attributes: Sequence[AttributeSpec], *, source: str,
                 limit: int = DENSE_CELLS) -> None:
        self.qi = tuple(qi)
        self.attributes = tuple(attributes)
        self.source = source
        self.columns = tuple(dict.fromkeys([*self.qi, *(column for spec in self.attributes for column in spec.columns)]))
        budget = _Budget(limit)
        self.dictionaries = {column: _Dictionary(budget) for column in self.columns}
        self.classes = _Chain([self.dictionaries[column] for column in self.qi], budget)
        self.values = [_Chain([self.dictionaries[column] for column in spec.columns], budget)
                       for spec in self.attributes]
        self.sizes = _Grid(budget, 0)
        self.counts = [_Counts(budget) for _ in self.attributes]

    def add(self, batch: pa.RecordBatch) -> None:
        """Count the rows of ``batch`` (it holds every column of :attr:`columns`)."""
        self._count(self._encode(batch))

    def add_all(self, batches: Iterable[pa.RecordBatch], progress: Callable[[int], None] = lambda rows: None) -> None:
        """Count every batch of ``batches``, reporting the rows counted so far to ``progress`` after each.

        The next batch is read and dictionary-encoded on a second thread (Arrow and most
        engines release the interpreter while they work) while this one is counted. The
        first :data:`PROBE_ROWS` rows are counted alone first: a release of too many cells
        usually shows it by then, so little is counted in vain.
        """
        iterator = _probed(batches)

        def encoded() -> tuple[int, dict[str, pa.DictionaryArray]] | None:
            batch = next(iterator, None)
            return None if batch is None else (batch.num_rows, self._encode(batch))

        rows = 0
        with ThreadPoolExecutor(1) as reader:
            pending = reader.submit(encoded)
            while (item := pending.result()) is not None:
                pending = reader.submit(encoded)
                self._count(item[1])
                rows += item[0]
                progress(rows)

    def _encode(self, batch: pa.RecordBatch) -> dict[str, pa.DictionaryArray]:
        """Each column as a dictionary of its own (the batch's distinct values); reads no state, so any thread may."""
        refuse_nan(self.source, pa.Table.from_batches([batch]), rows=False)
        return {column: _dictionary(batch.column(column)) for column in self.columns}

    def _count(self, columns: dict[str, pa.DictionaryArray]) -> None:
        codes = {column: self.dictionaries[column].codes(array) for column, array in columns.items()}
        ids = self.classes.ids([codes[column] for column in self.qi])
        classes = self.classes.size
        sizes = self.sizes.fit(classes, 1)
        sizes[:classes, 0] += np.bincount(ids, minlength=classes)
        for spec, chain, counts in zip(self.attributes, self.values, self.counts, strict=True):
            counts.add(ids, chain.ids([codes[column] for column in spec.columns]), classes, chain.size)

    def cells(self) -> tuple[pa.Table, np.ndarray, list[Cells | DenseCells]]:
        """The classes' keys, their sizes and each attribute's counts (values as found, only those counted)."""
        sizes = self.sizes.table[:self.classes.size, 0]
        occupied = np.flatnonzero(sizes)  # a dictionary read from the file may hold values no row has
        renumber = np.full(sizes.size, -1, dtype=np.int64)
        renumber[occupied] = np.arange(occupied.size)
        found = [counts.cells(chain, spec.columns, occupied, renumber)
                 for spec, chain, counts in zip(self.attributes, self.values, self.counts, strict=True)]
        return self.classes.values(occupied, self.qi), sizes[occupied], found


class _Counts:
    """One attribute's counts: each row's (class, value) codes, then a dense ``class × value`` table.

    While the rows are fewer than 1/:data:`SPARSE_SHARE` of the table's cells, their codes
    are kept (2 cells a row) and counted by sorting at the end; past that, the dense table
    counts them, so it is never much larger than the rows.
    """

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.grid = _Grid(budget, 0)
        self.rows: list[tuple[np.ndarray, np.ndarray]] | None = []
        self.kept = 0

    def add(self, ids: np.ndarray, values: np.ndarray, classes: int, width: int) -> None:
        if self.rows is None:
            kept = [(ids, values)]
        else:
            self.budget.take(2 * ids.size)
            self.rows.append((ids, values))
            self.kept += ids.size
            if SPARSE_SHARE * self.kept < classes * width:
                return
            self.budget.take(-2 * self.kept)
            kept, self.rows = self.rows, None
        table = self.grid.fit(classes, width)
        for rows, columns in kept:
            cells = rows * table.shape[1] + columns
            if table.size <= 4 * cells.size:  # a small table: one bincount over all of it
                table += np.bincount(cells, minlength=table.size).reshape(table.shape)
            else:
                np.add.at(table.reshape(-1), cells, 1)

    def cells(self, chain: _Chain, names: Sequence[str], occupied: np.ndarray,
              renumber: np.ndarray) -> Cells | DenseCells:
        """The counts keyed by classes (``renumber``: class number → row of the keys) and values as found."""
        if self.rows is None:
            used = np.flatnonzero(self.grid.table.any(axis=0))
            return DenseCells(values=chain.values(used, names), counts=self.grid.table, rows=occupied, columns=used)
        width = max(chain.size, 1)
        keys = np.concatenate([rows * width + columns for rows, columns in self.rows] or [np.empty(0, np.int64)])
        found, count = np.unique(keys, return_counts=True)  # sorts (numpy's plain unique hashes, slowly)
        classes, raw = np.divmod(found, width)
        used, value_index = np.unique(raw, return_inverse=True)
        return Cells(values=chain.values(used, names), class_index=renumber[classes],
                     value_index=value_index.reshape(-1), count=count.astype(np.int64))
