"""Counting a release streamed as Arrow record batches, in dense tables of bounded size.

An engine that can hand the release over a batch at a time (DuckDB reading CSV or
Parquet; pyarrow reading Parquet for the pandas engine) needs no group-by over text.
:class:`StreamCounter` codes each batch's columns through a dictionary of the batch's
own, a small one, mapped onto codes kept for the whole release (a column read as a
dictionary is used as it is, so no row is hashed); it numbers the classes and each
attribute's values (through the combinations of each batch's own dictionaries, then
dense tables of code pairs), and keeps each attribute's rows as sorted cell numbers
``class · width + value`` until they reach 1/:data:`SPARSE_SHARE` of the ``class ×
value`` cells, then adds them to a dense table of counts. Reading, encoding, numbering,
turning numbers into cells and counting are the steps of a pipeline, each on a thread
of its own (:meth:`StreamCounter.add_all`). Memory is a few batches plus those tables,
whatever the number of rows; the tables and dictionaries are bounded by :data:`DENSE_CELLS`,
past which :class:`DenseLimit` is raised and the engine counts another way (many
distinct quasi-identifier combinations, or many values per class).
:meth:`StreamCounter.cells` hands the counts, keyed by the values as found, to
:func:`verifier.tables.engine_counts.count_tables_from_cells`, which codes, parses and checks the
values exactly as for every other engine.

Missing values are values of their own (a null is coded like any value); a float NaN is
refused (:func:`verifier.tables.load.refuse_nan`). Counts are exact: a dense table of counts
is held in the narrowest of :data:`COUNT_TYPES` that holds a bound on its cells (the sum,
over what was added to it, of the most rows added to one cell at a time), and widened
before an addition could pass it. On the 20,000 × 2,000 table of a 10^7-row release the
bound stays in the hundreds: int16 halves, against int32, the memory first touched when the
table is made (on a virtual machine, 0.15 s instead of 0.36 s to make and fill it from
5 million rows) and the memory read to find its non-empty cells.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from threading import Lock
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from verifier.tables.counting import refuse_empty
from verifier.tables.counts import AttributeSpec
from verifier.tables.distinct import distinct, runs, small_codes, sorted_runs
from verifier.tables.engine_counts import Cells, DenseCells
from verifier.tables.load import refuse_nan

__all__ = ["BATCH_ROWS", "DENSE_CELLS", "SPARSE_SHARE", "TALLY_SHARE", "PROBE_ROWS", "LOCAL_COMBINATIONS", "COUNT_TYPES",
           "DenseLimit", "StreamCounter"]

BATCH_ROWS = 1 << 19
"""Rows per Arrow record batch an engine streams the release in (DuckDB's reader, pyarrow's Parquet dataset)."""

DENSE_CELLS = 1 << 26
"""The most cells (int64: 512 MiB) the dense tables and the dictionaries of a :class:`StreamCounter` hold together."""

SPARSE_SHARE = 8
"""An attribute is counted in a dense table once its rows reach 1/8 of the table's cells."""

PROBE_ROWS = 1 << 16
"""Rows counted alone before the rest: enough to show most releases with too many cells."""

COUNT_TYPES: tuple[type[np.signedinteger[Any]], ...] = (np.int16, np.int32, np.int64)
"""The types a dense table of counts is held in, narrowest first: the first that holds the bound on its cells."""

TALLY_SHARE = 8
"""A batch's rows are counted by one ``bincount`` over the ``classes × width`` cells when these are at most 8 times
the rows (a ``bincount`` of 2.8 million cells takes 4 ms, sorting 2^19 cell numbers 15 to 25 ms), else sorted."""

LOCAL_COMBINATIONS = 1 << 16
"""A batch's rows are numbered through the combinations of its columns' own dictionaries when
these are at most this many (or at most the batch's rows)."""


class DenseLimit(Exception):
    """Counting densely would pass :data:`DENSE_CELLS`: the release has too many combinations for it."""


class _Budget:
    """Cells in use across a counter's tables, bounded by ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.lock = Lock()  # the coding thread and the counting thread both take cells

    def take(self, cells: int) -> None:
        with self.lock:
            if self.used + cells > self.limit:
                raise DenseLimit(f"more than {self.limit:,} dense cells")
            self.used += cells


class _Dictionary:
    """The distinct values of one column, in order of first appearance; a value's position is its code."""

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.values: pa.Array | None = None
        self._last: tuple[pa.Array, np.ndarray] | None = None

    @property
    def size(self) -> int:
        return 0 if self.values is None else len(self.values)

    def local(self, column: pa.DictionaryArray) -> tuple[np.ndarray, np.ndarray]:
        """The codes of the column's own dictionary (one more, last, for a null if it has any) and each row's entry.

        Only the column's dictionary is looked up (values not seen yet are appended); its
        rows keep their own indices.
        """
        if column.indices.null_count == 0:
            return self._known(column.dictionary), column.indices.to_numpy()
        local = pa.concat_arrays([column.dictionary, pa.array([None], column.dictionary.type)])
        return self._positions(local), pc.fill_null(column.indices, len(local) - 1).to_numpy()

    def _known(self, local: pa.Array) -> np.ndarray:
        """:meth:`_positions`, kept for the last dictionary looked up: batches often share one (an engine's
        dictionary of the release's distinct values, a Parquet column chunk's), and a value's code never changes."""
        if self._last is not None and self._last[0].equals(local):
            return self._last[1]
        positions = self._positions(local)
        self._last = (local, positions)
        return positions

    def _positions(self, local: pa.Array) -> np.ndarray:
        """The codes of the values ``local`` (appending those not seen yet).

        The first values are coded in sorted order (Arrow's), which is usually the order
        the count tables code them in, so their dense columns need no reordering
        (:func:`verifier.tables.engine_counts.count_tables_from_cells`); values seen later are appended.
        """
        found = None if self.values is None else pc.index_in(local, value_set=self.values, skip_nulls=False)
        if found is None or found.null_count:
            new = pc.unique(local if found is None else local.filter(pc.is_null(found)))
            if found is None:
                new = new.take(pc.array_sort_indices(new))
            self.budget.take(len(new))
            self.values = new if self.values is None else pa.concat_arrays([self.values, new])
            found = pc.index_in(local, value_set=self.values, skip_nulls=False)
        return found.to_numpy().astype(np.int64)


class _Grid:
    """A dense table (int64 unless ``dtype`` says otherwise) that grows (by half again, at least to the size asked
    for) within a budget."""

    def __init__(self, budget: _Budget, fill: int, dtype: type[np.signedinteger[Any]] = np.int64) -> None:
        self.budget = budget
        self.fill = fill
        self.table = np.full((0, 0), fill, dtype=dtype)

    def fit(self, rows: int, columns: int) -> np.ndarray:
        have_rows, have_columns = self.table.shape
        if rows > have_rows or columns > have_columns:
            rows = max(rows, have_rows + have_rows // 2) if rows > have_rows else have_rows
            columns = max(columns, have_columns + have_columns // 2) if columns > have_columns else have_columns
            self.budget.take(rows * columns - self.table.size)
            grown = np.zeros((rows, columns), dtype=self.table.dtype) if self.fill == 0 else \
                np.full((rows, columns), self.fill, dtype=self.table.dtype)
            grown[:have_rows, :have_columns] = self.table
            self.table = grown
        return self.table

    def hold(self, bound: int) -> np.ndarray:
        """The table, widened first to the narrowest of :data:`COUNT_TYPES` whose values reach ``bound`` if its own do not."""
        if bound > np.iinfo(self.table.dtype).max:
            wide = next(kind for kind in COUNT_TYPES if np.iinfo(kind).max >= bound)
            self.table = self.table.astype(wide)
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

    def ids(self, columns: Sequence[pa.DictionaryArray]) -> np.ndarray:
        """The number of each row's combination of ``columns`` (new combinations are numbered).

        When the combinations of the columns' own dictionaries are few (at most
        :data:`LOCAL_COMBINATIONS`, or the rows), each row's is one mixed-radix number of
        its dictionary indices; only the combinations present are looked up, and each row
        takes its number from them. Otherwise every row's codes are looked up.
        """
        local = [dictionary.local(column) for dictionary, column in zip(self.dictionaries, columns, strict=True)]
        shape = tuple(positions.size for positions, _ in local)
        combinations = int(np.prod(shape, dtype=object))
        if len(local) == 1 or combinations > max(LOCAL_COMBINATIONS, len(columns[0])):
            return self._numbers([positions[indices] for positions, indices in local])
        flat = local[0][1].astype(np.int64)
        for size, (_, indices) in zip(shape[1:], local[1:], strict=True):
            flat *= size
            flat += indices
        present = np.flatnonzero(np.bincount(flat, minlength=combinations))
        numbers = np.empty(combinations, dtype=np.int64)
        numbers[present] = self._numbers([positions[indices] for (positions, _), indices
                                          in zip(local, np.unravel_index(present, shape), strict=True)])
        return numbers[flat]

    def _numbers(self, codes: Sequence[np.ndarray]) -> np.ndarray:
        """The numbers of the combinations of ``codes`` (one array of codes per column)."""
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


_END = object()
"""What the first step of :func:`_staged` returns when there is nothing more."""


def _staged(first: Callable[[], Any], steps: Sequence[Callable[[Any], Any]]) -> Generator[Any, None, None]:
    """Each item ``first()`` returns (until :data:`_END`) taken through ``steps``, in order, each step on a thread of its own.

    ``len(steps) + 1`` items are under way at once, one at each step, so the steps work
    side by side; the first error of any step is raised here. Closing the iterator
    cancels what has not started and waits for what has.
    """
    threads = [ThreadPoolExecutor(1) for _ in range(len(steps) + 1)]

    def launch() -> Future[Any]:
        future = threads[0].submit(first)
        for thread, step in zip(threads[1:], steps, strict=True):
            future = thread.submit(_after, step, future)
        return future

    try:
        pending = deque(launch() for _ in threads)
        while (item := pending.popleft().result()) is not _END:
            pending.append(launch())
            yield item
    finally:
        for thread in threads:
            thread.shutdown(wait=True, cancel_futures=True)


def _after(step: Callable[[Any], Any], before: Future[Any]) -> Any:
    item = before.result()
    return item if item is _END else step(item)


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
    rows
        The release's rows, when known before it is read (a Parquet file's metadata): the
        count then stops as soon as it is certain to pass ``limit`` (:meth:`_doomed`),
        not when it does, so little of the release is read in vain.

    Raises
    ------
    DenseLimit
        From :meth:`add`, when counting this release densely would pass ``limit``.
    """

    def __init__(self, qi: Sequence[str], attributes: Sequence[AttributeSpec], *, source: str,
                 limit: int = DENSE_CELLS, rows: int | None = None) -> None:
        self.qi = tuple(qi)
        self.attributes = tuple(attributes)
        self.source = source
        self.columns = tuple(dict.fromkeys([*self.qi, *(column for spec in self.attributes for column in spec.columns)]))
        budget = _Budget(limit)
        self.budget = budget
        self.expected = rows
        self.dictionaries = {column: _Dictionary(budget) for column in self.columns}
        self.classes = _Chain([self.dictionaries[column] for column in self.qi], budget)
        self.values = [_Chain([self.dictionaries[column] for column in spec.columns], budget)
                       for spec in self.attributes]
        self.sizes = _Grid(budget, 0)
        self.counts = [_Counts(budget) for _ in self.attributes]
        self.rows = 0

    def add(self, batch: pa.RecordBatch) -> None:
        """Count the rows of ``batch`` (it holds every column of :attr:`columns`)."""
        self._count(_coded(self._number(self._encode(batch))))

    def add_all(self, batches: Iterable[pa.RecordBatch], progress: Callable[[int], None] = lambda rows: None) -> None:
        """Count every batch of ``batches``, reporting the rows counted so far to ``progress`` after each.

        A pipeline of five threads (:func:`_staged`): one reads a batch, one
        dictionary-encodes its columns, one numbers its classes and values, one turns the
        numbers into cells (:func:`_coded`), and this one adds them to the tables, each a
        batch behind the one before. Arrow, DuckDB and numpy
        release the interpreter while they work, so the steps run at once and the slowest
        sets the pace (reading, for DuckDB; numbering, for Parquet read by Arrow). The
        first :data:`PROBE_ROWS` rows are counted alone first: a release of too many
        cells usually shows it by then, so little is counted in vain.
        """
        iterator = _probed(batches)
        rows = 0
        with closing(_staged(lambda: next(iterator, _END), [self._encode, self._number, _coded])) as coded:
            for item in coded:
                self._count(item)
                rows += item.rows
                progress(rows)

    def _encode(self, batch: pa.RecordBatch) -> dict[str, pa.DictionaryArray]:
        """Each column as a dictionary of its own (the batch's distinct values); reads no state, so any thread may."""
        refuse_nan(self.source, batch, rows=False)
        return {column: _dictionary(batch.column(column)) for column in self.columns}

    def _number(self, columns: dict[str, pa.DictionaryArray]) -> _Numbered:
        """The numbers of each row's class and values; only this touches the dictionaries and the chains."""
        ids = self.classes.ids([columns[column] for column in self.qi])
        values = [chain.ids([columns[column] for column in spec.columns])
                  for spec, chain in zip(self.attributes, self.values, strict=True)]
        return _Numbered(ids, self.classes.size, values, [chain.size for chain in self.values])

    def _count(self, coded: _Coded) -> None:
        """Add a coded batch to the tables; only this touches the sizes and the counts."""
        classes = coded.sizes.size
        self.sizes.fit(classes, 1)[:classes, 0] += coded.sizes
        self.rows += coded.rows
        for counts, tally in zip(self.counts, coded.tallies, strict=True):
            counts.add(tally)
            if self._doomed(counts, tally):
                raise DenseLimit(f"more than {self.budget.limit:,} dense cells: the release's {self.expected:,} rows "
                                 f"would be kept as cell numbers")

    def _doomed(self, counts: _Counts, tally: _Tally) -> bool:
        """Whether an attribute's counts, ``tally`` the last added, are certain to pass the budget before the
        release's :attr:`expected` rows are all counted.

        So they are when they are still kept as cell numbers (one a row, every row to come
        adding one, or a dense table), their ``classes × width`` cells already pass the
        budget (the dense table could never be made: the classes and values only grow),
        and the cell numbers kept plus the rows still to come pass it too.
        """
        if self.expected is None or counts.rows is None:
            return False
        limit = self.budget.limit
        return tally.classes * tally.width > limit and counts.kept + (self.expected - self.rows) > limit

    def cells(self) -> tuple[pa.Table, np.ndarray, list[Cells | DenseCells]]:
        """The classes' keys, their sizes and each attribute's counts (values as found, only those counted).

        Raises
        ------
        DataError
            When no row was counted (the release has none).
        """
        refuse_empty(self.rows, self.source)
        sizes = self.sizes.table[:self.classes.size, 0]
        occupied = np.flatnonzero(sizes)  # a dictionary read from the file may hold values no row has
        renumber = np.full(sizes.size, -1, dtype=np.int64)
        renumber[occupied] = np.arange(occupied.size)
        found = [counts.cells(chain, spec.columns, occupied, renumber)
                 for spec, chain, counts in zip(self.attributes, self.values, self.counts, strict=True)]
        return self.classes.values(occupied, self.qi), sizes[occupied], found


@dataclass(frozen=True)
class _Tally:
    """One attribute's rows of a batch: their cells ``class · width + value``, sorted, or, when the
    ``classes × width`` cells are few next to the rows, the count of each cell (``dense``)."""

    cells: np.ndarray
    classes: int
    width: int
    dense: bool


def _tally(ids: np.ndarray, values: np.ndarray, classes: int, width: int) -> _Tally:
    """The :class:`_Tally` of rows of class numbers ``ids`` and value numbers ``values``."""
    width = max(width, 1)
    cells = ids * width
    cells += values
    if classes * width <= TALLY_SHARE * cells.size:  # a small table: one bincount over all of it
        return _Tally(np.bincount(cells, minlength=classes * width), classes, width, True)
    if classes * width <= 1 << 32:  # sorted as uint32: 0.6 times int64's time
        cells = cells.astype(np.uint32)
    cells.sort()  # added in order, a table is read and written in order: half the time of random order
    return _Tally(cells, classes, width, False)


def _widened(tally: _Tally, width: int) -> np.ndarray:
    """The cell numbers of ``tally`` in a table ``width`` wide (at least its own; the order is kept)."""
    if width == tally.width:
        return tally.cells
    cells = tally.cells.astype(np.int64)
    return cells + (width - tally.width) * (cells // tally.width)


@dataclass(frozen=True)
class _Numbered:
    """A batch numbered: each row's class and, per attribute, value number; the classes and values numbered so far."""

    ids: np.ndarray
    classes: int
    values: list[np.ndarray]
    widths: list[int]


def _coded(numbered: _Numbered) -> _Coded:
    """The rows of each class and each attribute's :class:`_Tally` of a numbered batch; reads no state."""
    return _Coded(numbered.ids.size, np.bincount(numbered.ids, minlength=numbered.classes),
                  [_tally(numbered.ids, values, numbered.classes, width)
                   for values, width in zip(numbered.values, numbered.widths, strict=True)])


@dataclass(frozen=True)
class _Coded:
    """A batch coded: its rows, the rows of each class numbered so far, and each attribute's :class:`_Tally`."""

    rows: int
    sizes: np.ndarray
    tallies: list[_Tally]


class _Counts:
    """One attribute's counts: the batches' sorted cell numbers, then a dense ``class × value`` table.

    While the rows are fewer than 1/:data:`SPARSE_SHARE` of the table's cells, their cell
    numbers are kept (one cell a row) and counted by sorting at the end; past that, the
    dense table counts them, so it is never much larger than the rows. The table is held
    in the narrowest of :data:`COUNT_TYPES` that reaches :attr:`bound`, the sum over the
    tallies added to it of the most rows one of them adds to a cell: no cell holds more.
    """

    def __init__(self, budget: _Budget) -> None:
        self.budget = budget
        self.grid = _Grid(budget, 0, COUNT_TYPES[0])
        self.rows: list[_Tally] | None = []
        self.kept = 0
        self.bound = 0

    def add(self, tally: _Tally) -> None:
        if self.rows is None:
            kept = [tally]
        else:
            self.rows.append(tally)
            if not tally.dense:
                self.budget.take(tally.cells.size)
                self.kept += tally.cells.size
                if SPARSE_SHARE * self.kept < tally.classes * tally.width:
                    return
            self.budget.take(-self.kept)
            kept, self.rows = self.rows, None
        width = self.grid.fit(max(t.classes for t in kept), max(t.width for t in kept)).shape[1]
        for part in kept:
            if part.dense:
                block = part.cells.reshape(part.classes, part.width)
                table = self._hold(int(block.max(initial=0)))
                table[:part.classes, :part.width] += block
            else:
                cells, repeats = runs(_widened(part, width))
                table = self._hold(int(repeats.max(initial=0)))
                table.reshape(-1)[cells] += repeats.astype(table.dtype, copy=False)

    def _hold(self, most: int) -> np.ndarray:
        """The table, wide enough for a tally that adds at most ``most`` rows to a cell."""
        self.bound += most
        return self.grid.hold(self.bound)

    def cells(self, chain: _Chain, names: Sequence[str], occupied: np.ndarray,
              renumber: np.ndarray) -> Cells | DenseCells:
        """The counts keyed by classes (``renumber``: class number → row of the keys) and values as found."""
        if self.rows is None:
            used = np.flatnonzero(self.grid.table.any(axis=0))
            return DenseCells(values=chain.values(used, names), counts=self.grid.table, rows=occupied, columns=used)
        width = max(chain.size, 1)
        keys = np.concatenate([_widened(part, width) for part in self.rows] or [np.empty(0, np.int64)])
        found, count = sorted_runs(keys)  # the batches' sorted runs, merged
        classes, raw = np.divmod(found, width)
        used, value_index = small_codes(raw, width)
        return Cells(values=chain.values(used, names), class_index=renumber[classes],
                     value_index=value_index.reshape(-1), count=count.astype(np.int64))
