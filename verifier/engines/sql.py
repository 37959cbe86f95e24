"""The SQL of the engines, written once and run by every SQL engine (DuckDB, Spark SQL).

An engine registers the release as a view named ``release`` whose columns are the
file's columns (CSV: all text; Parquet: as stored; Hive partition values: text). Two
plans count it:

* **Streamed** (DuckDB): :func:`projection` streams the quasi-identifiers and the
  attributes' columns as Arrow record batches, counted densely as they come by
  :class:`verifier.tables.stream_counts.StreamCounter` (each batch's text coded through a small
  dictionary of its own, no group-by over text; text that Parquet stores as small
  dictionaries is streamed as DuckDB's hashes of it and turned back into Arrow
  dictionaries of its distinct values; quasi-identifiers that all are such columns may
  come as one column, :data:`CLASS`, the number of each row's combination, with the
  table of combinations beside it: :class:`Streamed`). Memory is one batch and the dense
  tables; when these would pass the engine's ``dense_cells``, the count stops and the
  second plan runs.
* **Grouped** (Spark, and DuckDB past ``dense_cells``): the statements of
  :func:`aggregation`, one per sensitive attribute: the distinct combinations of the
  quasi-identifiers and the attribute's columns with their ``COUNT(*)``, a 64-bit
  integer on both engines, fetched as Arrow record batches (:meth:`Session.batches`)
  and counted as they come (:class:`verifier.tables.engine_counts.GroupCounter`: a
  batch's text is coded in Arrow and dropped, so memory is a batch and a few integers per
  row of the result). Missing values form groups of their own, so each result covers
  every row and holds every class; the classes are summed from the first. One statement per attribute, not one ``GROUPING SETS`` statement for all: the
  sets are then held one at a time, and on DuckDB the single scan was no faster
  (benchmarks/RESULTS.md, "Engines"). DuckDB, when every column groups as written,
  numbers the classes and values itself and hands over three integers a group
  (:mod:`verifier.engines.numbered`, the engine's ``group`` of :class:`Session`).

Either way the counts reach :func:`verifier.tables.engine_counts.count_tables_from_cells`, so coding,
exact parsing of numerical values (once per distinct value), missing values and errors
are those of the pandas path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from verifier.engines.engine import EngineName, Phase, ignore_phase
from verifier.engines.locate import release_locator
from verifier.errors import DataError
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.encodings import Encoding, text_encoding
from verifier.tables.engine_counts import Cells, DenseCells, GroupCounter, count_tables_from_cells
from verifier.tables.load import check_csv, check_schema, csv_header, parquet_files, release_format
from verifier.tables.stream_counts import DenseLimit, StreamCounter
from verifier.tables.transcode import readable_csv
from verifier.tables.values import check_columns

__all__ = ["CLASS", "COUNT", "RELATION", "quote", "aggregation", "projection", "Counted", "EngineReadError", "Grouper",
           "Runner", "Streamed", "Streamer", "Session", "SqlEngine", "first_lines"]

RELATION = "release"
"""The view every engine registers the release under."""

COUNT = "privcert_count"
"""The name of the count column (not a column name a release is likely to use)."""


def quote(name: str) -> str:
    """A column name as an SQL identifier (double quotes, as DuckDB and Spark SQL in ANSI mode read it)."""
    return '"' + name.replace('"', '""') + '"'


def aggregation(qi: Sequence[str], columns: Sequence[str], floats: Collection[str] = ()) -> str:
    """The statement of one attribute: ``SELECT qi..., columns..., COUNT(*) FROM release GROUP BY qi..., columns...``.

    Missing values form groups of their own (every NULL of a column in one group), so no
    row is dropped, and ``COUNT(*)`` counts rows, never values. DuckDB and Spark group a
    floating-point column's ``-0.0`` with ``0.0`` and write the group as either, where
    the pandas engine keeps them apart as written; so a column of ``floats`` is also
    grouped by whether it is ``-0.0`` (``atan2(x, -1) < 0``, which tells DuckDB's apart;
    Spark normalizes a grouping key's zeros before it, but not its text, ``-0.0`` as
    Java writes it), and read back as ``MIN`` of its group, whose rows are one value.
    """
    names = list(dict.fromkeys([*qi, *columns]))
    chosen = ", ".join(f"MIN({quote(column)}) AS {quote(column)}" if column in floats else quote(column)
                       for column in names)
    keys = ", ".join(_float_keys(quote(column)) if column in floats else quote(column) for column in names)
    return f"SELECT {chosen}, COUNT(*) AS {quote(COUNT)} FROM {RELATION} GROUP BY {keys}"


def _float_keys(name: str) -> str:
    """The grouping keys of a floating-point column ``name`` that keep ``-0.0`` apart from ``0.0`` (:func:`aggregation`)."""
    return f"{name}, ({name} = 0 AND atan2({name}, -1) < 0), CAST({name} AS STRING)"


def projection(columns: Sequence[str], expressions: Mapping[str, str] | None = None) -> str:
    """The statement that streams the release's ``columns``, row by row: ``SELECT columns... FROM release``.

    A column named in ``expressions`` is read as that expression of it (``expression AS column``).
    """
    expressions = expressions or {}
    names = [f"{expressions[column]} AS {quote(column)}" if column in expressions else quote(column)
             for column in dict.fromkeys(columns)]
    return f"SELECT {', '.join(names)} FROM {RELATION}"


class EngineReadError(Exception):
    """The engine could not read the release; the message is the engine's."""


Runner = Callable[[str], pa.Table]
"""Runs one statement on the registered ``release`` view and returns the result as Arrow."""

Fetcher = Callable[[str], Iterable[pa.RecordBatch]]
"""Runs one statement on the registered ``release`` view and yields its result as Arrow record batches."""

CLASS = "privcert_class"
"""The column a :class:`Streamed` may carry in place of the quasi-identifiers: each row's class number."""


@dataclass(frozen=True)
class Streamed:
    """The rows of the registered ``release`` view as Arrow record batches, from a :data:`Streamer`.

    The batches hold the quasi-identifiers and the columns asked for, or, when
    ``classes`` is given, the column :data:`CLASS` in place of the quasi-identifiers:
    each row's row of ``classes``, a table of the quasi-identifiers' distinct
    combinations.
    """

    batches: Generator[pa.RecordBatch, None, None]
    classes: pa.Table | None = None


Streamer = Callable[[Sequence[str], Sequence[str]], Streamed]
"""Streams the quasi-identifiers and the other columns given of the registered ``release`` view, row by row."""

Counted = tuple[pa.Table, np.ndarray, Sequence[Cells | DenseCells]]
"""The classes' keys (one row a class), their sizes and each attribute's cells, as
:func:`verifier.tables.engine_counts.count_tables_from_cells` takes them."""

Grouper = Callable[[Sequence[str], Sequence[AttributeSpec], str, Phase, str], Counted | None]
"""An engine's own plan for the group-bys (quasi-identifiers, attributes, source, phase, unit of progress):
the counts, or ``None`` when the release is not one it counts (the group-bys of :func:`aggregation` then do)."""


@dataclass(frozen=True)
class Session:
    """The release registered as ``release``: statements run whole (``run``) or, when the engine can, streamed.

    A release is streamed and counted densely when the engine gives ``stream`` and the
    dense tables fit in ``dense_cells`` cells (:mod:`verifier.tables.stream_counts`); otherwise
    by the engine's own ``group`` when it gives one and it can (DuckDB:
    :mod:`verifier.engines.numbered`), else by the group-bys of :func:`aggregation`,
    fetched in batches when the engine gives ``fetch``.
    """

    run: Runner
    stream: Streamer | None = None
    dense_cells: int = 0
    fetch: Fetcher | None = None
    group: Grouper | None = None

    def batches(self, statement: str) -> Iterator[pa.RecordBatch]:
        """The result of ``statement`` in record batches: fetched so when the engine can, else run whole and split."""
        if self.fetch is not None:
            yield from self.fetch(statement)
        else:
            yield from self.run(statement).to_batches()


class SqlEngine(ABC):
    """An engine that counts the release through SQL, streamed or grouped; subclasses only open the release."""

    name: EngineName

    @abstractmethod
    def _open(self, path: Path, kind: str, header: list[str] | None, encoding: str) -> AbstractContextManager[Session]:
        """Register ``path`` as the view ``release`` and yield a :class:`Session` (``header``: the CSV's columns).

        Errors reading the data raise :class:`EngineReadError`.
        """

    def _check_csv(self, path: Path, encoding: str) -> None:  # noqa: B027 (a hook: no extra check by default)
        """Checks the engine does not make while reading a CSV release it reads as it is (none by default)."""

    @abstractmethod
    def _spelling(self, encoding: Encoding) -> str | None:
        """The engine's name for ``encoding`` when it reads a CSV file in it as pandas does; ``None``: transcoded."""

    @property
    def _local(self) -> bool:
        """Whether the engine reads this machine's files (a temporary copy of the release)."""
        return True

    _skips_empty_lines: bool = False
    """Whether the engine's CSV reader skips empty lines (a release of one column is then read from a copy
    whose records end in an empty field: :data:`verifier.tables.transcode.PAD`)."""

    def count_tables(
        self,
        path: Path,
        qi: Sequence[str],
        attributes: Sequence[AttributeSpec],
        *,
        source: str,
        encoding: str = "utf-8",
        phase: Phase = ignore_phase,
    ) -> tuple[Classes, tuple[CountTable, ...]]:
        """The classes and count tables of the release at ``path`` (see :mod:`verifier.engines.sql`).

        A CSV release the engine cannot read as it is (its encoding, or carriage returns) is read from a
        UTF-8 copy made as a stream (:func:`verifier.tables.transcode.readable_csv`).
        """
        kind = release_format(path)
        locate = release_locator(path, kind, encoding)
        with ExitStack() as stack:
            header, read, spelling = None, path, encoding
            if kind == "csv":
                header = csv_header(path, encoding)
                chosen = text_encoding(encoding)
                pad = self._skips_empty_lines and len(header) == 1
                read, spelling = stack.enter_context(readable_csv(
                    path, chosen, self._spelling(chosen), engine=self.name, local=self._local, pad=pad))
                if read == path:
                    self._check_csv(path, encoding)
                if pad:
                    header = [*header, f"{header[0]}_padding"]
            try:
                with self._open(read, kind, header, spelling) as session:
                    schema = session.run(f"SELECT * FROM {RELATION} LIMIT 0").schema
                    if kind == "parquet":
                        check_schema(path, schema)
                    check_columns(schema.names, qi, attributes, source)
                    partitions = len(parquet_files(path)) if path.is_dir() else 1
                    counted = _stream(session, qi, attributes, str(path), phase, partitions, kind == "parquet")
                    if counted is None:
                        floats = {field.name for field in schema if pa.types.is_floating(field.type)}
                        counted = _group(session, qi, attributes, floats, str(path), phase, partitions)
            except EngineReadError as error:
                if kind == "csv":
                    check_csv(path, encoding)
                raise DataError(f"{path}: cannot read the file as {kind.upper()} with --engine {self.name}: "
                                f"{error}") from error
        return count_tables_from_cells(*counted, qi, attributes, source=source, locate=locate)


def _stream(session: Session, qi: Sequence[str], attributes: Sequence[AttributeSpec], source: str, phase: Phase,
            partitions: int, counted: bool) -> Counted | None:
    """The release counted densely as it streams (:mod:`verifier.tables.stream_counts`); ``None`` when it cannot be
    (``counted``: the release's rows are counted first, as Parquet's metadata tells them without a scan)."""
    if session.stream is None or session.dense_cells <= 0:
        return None
    rows = int(session.run(f"SELECT COUNT(*) FROM {RELATION}").column(0)[0].as_py()) if counted else None
    streamed = session.stream(qi, [column for spec in attributes for column in spec.columns])
    counter = StreamCounter(qi if streamed.classes is None else (CLASS,), attributes, source=source,
                            limit=session.dense_cells, rows=rows)
    unit = f"rows streamed from {partitions:,} partition(s)"
    try:
        with closing(streamed.batches) as batches:
            counter.add_all(batches, lambda rows: phase("scan", rows, None, unit))
    except DenseLimit:
        return None
    keys, sizes, cells = counter.cells()
    if streamed.classes is not None:
        keys = streamed.classes.take(keys.column(CLASS))
    rows = int(sizes.sum())
    phase("group", rows, rows, f"rows in {partitions:,} partition(s), counted densely")
    return keys, sizes, cells


def _group(session: Session, qi: Sequence[str], attributes: Sequence[AttributeSpec], floats: Collection[str],
           source: str, phase: Phase, partitions: int) -> Counted:
    """The release counted by one :func:`aggregation` per attribute (one over the quasi-identifiers alone
    when there is none; ``floats``: the release's floating-point columns), each result counted batch by batch."""
    sets = [spec.columns for spec in attributes] or [()]
    unit = f"aggregations over {partitions:,} partition(s)"
    counted = None if session.group is None else session.group(qi, attributes, source, phase, unit)
    if counted is None:
        counter = GroupCounter(qi, attributes, count=COUNT, source=source)
        for done, columns in enumerate(sets):
            phase("scan", done, len(sets), unit)
            for batch in session.batches(aggregation(qi, columns, floats)):
                counter.add(done, batch)
        counted = counter.cells()
    keys, sizes, cells = counted
    rows = int(sizes.sum())
    phase("group", len(sets), len(sets), f"aggregations, {rows:,} rows in {partitions:,} partition(s)")
    return keys, sizes, cells


def first_lines(text: str, lines: int = 3) -> str:
    """The first lines of an engine's error message (the rest is a stack trace), at most 1,000 characters."""
    message = " ".join(line.strip() for line in str(text).strip().splitlines()[:lines])
    return message if len(message) <= 1000 else f"{message[:1000]}… ({len(message):,} characters)"
