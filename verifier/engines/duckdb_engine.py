"""The DuckDB engine: in-process, reads the files directly, streams them, or groups them and spills to disk.

DuckDB (Raasveldt & Mühleisen 2019) reads CSV (every column as text: ``all_varchar``,
strict field counts, no null padding, only the empty cell missing), a Parquet file, or a
directory of Parquet files (Hive partition values as text). The rows it reads are
streamed to Python as Arrow record batches of :data:`verifier.tables.stream_counts.BATCH_ROWS` rows and counted densely
as they come (:mod:`verifier.tables.stream_counts`; the plans are in :mod:`verifier.engines.sql`),
so memory is a batch and the count tables, whatever the number of rows. A release whose
dense tables would pass ``dense_cells`` (many distinct quasi-identifier combinations
times many values) is counted by SQL group-bys instead, with the classes and values
numbered by DuckDB (:mod:`verifier.engines.numbered`), their results fetched in
batches too: their memory is bounded by ``memory_limit``, past which the hash
aggregation spills to ``temp_directory``.

The command line sets these through the environment: ``PRIVCERT_DUCKDB_MEMORY_LIMIT``,
``PRIVCERT_DUCKDB_TEMP_DIRECTORY`` and ``PRIVCERT_DUCKDB_DENSE_CELLS`` (``0``: always the
group-bys).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Collection, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from verifier.cpus import usable_cpus
from verifier.engines.engine import Phase
from verifier.engines.numbered import (
    AS_WRITTEN,
    NumberedClasses,
    column_types,
    grouping_id,
    number_classes,
    numbered_cells,
)
from verifier.engines.sql import (
    CLASS,
    RELATION,
    Counted,
    EngineReadError,
    Session,
    SqlEngine,
    Streamed,
    first_lines,
    projection,
    quote,
)
from verifier.errors import PolicyError
from verifier.tables.counts import AttributeSpec
from verifier.tables.encodings import Encoding
from verifier.tables.load import dictionary_columns, hive_columns, parquet_files
from verifier.tables.stream_counts import BATCH_ROWS, DENSE_CELLS

if TYPE_CHECKING:
    import pandas as pd
    from duckdb import DuckDBPyConnection

__all__ = ["DuckDBEngine", "DEFAULT_MEMORY_LIMIT"]

DEFAULT_MEMORY_LIMIT = os.environ.get("PRIVCERT_DUCKDB_MEMORY_LIMIT", "2GB")
"""DuckDB's memory limit unless one is given (environment variable ``PRIVCERT_DUCKDB_MEMORY_LIMIT``)."""


def _temp_directory() -> Path | None:
    """Where DuckDB spills unless told: ``PRIVCERT_DUCKDB_TEMP_DIRECTORY``, else the system's temporary directory."""
    chosen = os.environ.get("PRIVCERT_DUCKDB_TEMP_DIRECTORY")
    return Path(chosen) if chosen else None


def _dense_cells() -> int:
    """The dense bound unless told: ``PRIVCERT_DUCKDB_DENSE_CELLS`` (a whole number, ``0`` always groups),
    else :data:`~verifier.tables.stream_counts.DENSE_CELLS`."""
    chosen = os.environ.get("PRIVCERT_DUCKDB_DENSE_CELLS")
    if chosen is None:
        return DENSE_CELLS
    if not chosen.strip().isdigit():
        raise PolicyError(f"PRIVCERT_DUCKDB_DENSE_CELLS: expected a whole number of cells (0 counts by "
                          f"group-bys), found {chosen!r}")
    return int(chosen)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class DuckDBEngine(SqlEngine):
    """Count with DuckDB.

    Parameters
    ----------
    memory_limit
        DuckDB's ``memory_limit`` (e.g. ``"2GB"``); past it, operators spill to disk.
    temp_directory
        Where DuckDB spills: a fresh directory is made there and removed afterwards
        (default: ``PRIVCERT_DUCKDB_TEMP_DIRECTORY``, else the system's temporary
        directory).
    threads
        Worker threads (default: one per core this process may run on, which in a
        container or under ``taskset`` can be fewer than the machine's).
    dense_cells
        The most cells (8 bytes each) the release is counted in as it streams
        (:data:`verifier.tables.stream_counts.DENSE_CELLS`); a release that needs more is counted
        by SQL group-bys instead, and ``0`` always counts by group-bys (default:
        ``PRIVCERT_DUCKDB_DENSE_CELLS``, else that bound).
    """

    memory_limit: str = DEFAULT_MEMORY_LIMIT
    temp_directory: Path | None = field(default_factory=_temp_directory)
    threads: int | None = None
    dense_cells: int = field(default_factory=_dense_cells)
    name: Literal["duckdb"] = "duckdb"

    def _spelling(self, encoding: Encoding) -> str | None:
        return encoding.duckdb

    @contextmanager
    def _open(self, path: Path, kind: str, header: list[str] | None, encoding: str) -> Iterator[Session]:
        import duckdb

        if self.temp_directory is not None:
            Path(self.temp_directory).mkdir(parents=True, exist_ok=True)
        spill = Path(tempfile.mkdtemp(prefix="privcert-duckdb-", dir=self.temp_directory))
        connection = duckdb.connect(config={
            "memory_limit": self.memory_limit,
            "temp_directory": str(spill),
            "preserve_insertion_order": False,
            "threads": self.threads or usable_cpus(),
        })
        def run(statement: str) -> pa.Table:
            try:
                return connection.sql(statement).to_arrow_table()
            except duckdb.Error as error:
                raise EngineReadError(_message(str(error))) from error

        def fetch(statement: str) -> Generator[pa.RecordBatch, None, None]:
            try:
                yield from connection.sql(statement).to_arrow_reader(BATCH_ROWS)
            except duckdb.Error as error:
                raise EngineReadError(_message(str(error))) from error

        def stream(qi: Sequence[str], columns: Sequence[str]) -> Streamed:
            wanted = list(dict.fromkeys(columns))
            try:
                hashed, classes = _hashed(connection, qi, wanted, few)
            except duckdb.Error as error:
                raise EngineReadError(_message(str(error))) from error
            expressions = {column: f"hash({quote(column)})" for column in hashed if column != CLASS}
            if classes is None:
                return Streamed(batches(projection([*qi, *wanted], expressions), hashed))
            expressions[CLASS] = f"hash({', '.join(map(quote, qi))})"
            return Streamed(batches(projection([CLASS, *wanted], expressions), hashed), classes)

        def batches(statement: str, hashed: dict[str, tuple[pa.Array, pa.Array]]) -> Generator[pa.RecordBatch, None, None]:
            lookups = _lookups(hashed)
            try:
                for batch in connection.sql(statement).to_arrow_reader(BATCH_ROWS):
                    yield _unhashed(batch, lookups)
            except duckdb.Error as error:
                raise EngineReadError(_message(str(error))) from error

        def group(qi: Sequence[str], attributes: Sequence[AttributeSpec], source: str, phase: Phase,
                  unit: str) -> Counted | None:
            try:
                return numbered_cells(connection, qi, attributes, source=source, phase=phase, unit=unit)
            except duckdb.Error as error:
                raise EngineReadError(_message(str(error))) from error

        few = dictionary_columns(path) if kind == "parquet" else set()

        try:
            run(f"CREATE VIEW release AS SELECT * FROM {_reader(path, kind, header, encoding)}")
            yield Session(run, stream, self.dense_cells, fetch, group)
        finally:
            connection.close()
            shutil.rmtree(spill, ignore_errors=True)


def _hashed(connection: DuckDBPyConnection, qi: Sequence[str], columns: Sequence[str],
            few: Collection[str]) -> tuple[dict[str, tuple[pa.Array, pa.Array]], pa.Table | None]:
    """The distinct values of each text column among the quasi-identifiers ``qi`` and ``columns``
    that Parquet stores as small dictionaries (``few``: :func:`verifier.tables.load.dictionary_columns`),
    a missing value among them, and their hashes (DuckDB's ``hash``), for the columns whose
    hashes tell every two of their values apart; or, for the quasi-identifiers, their
    distinct combinations.

    Such a column is streamed as its hashes, 8 bytes a row instead of the text, and each
    hash is turned back into its value by :func:`_unhashed`: several times less work for
    DuckDB than handing the text over, and no text is hashed in Python. The values are
    the file's, unchanged; a column where two values share a hash is streamed as text.
    The quasi-identifiers, likewise, are streamed as one hash of each row's combination,
    the column :data:`~verifier.engines.sql.CLASS`, whose entry under that name is the
    combination's number, its row of the table of combinations returned: one column to
    hand over and to look up instead of one per quasi-identifier. The combinations are
    numbered as the group-bys past the dense bound number them
    (:func:`verifier.engines.numbered.number_classes`, kept for them in the same
    connection). That needs every
    quasi-identifier to be text, an integer or a boolean, whose groups are their values
    as written (DuckDB groups and hashes ``-0.0`` as ``0.0``, which the pandas engine keeps apart);
    every quasi-identifier must be one of ``few``, and one at least text: integers and
    booleans are handed over as they are, 8 bytes a row or less like a hash, and coded as
    they stream with no table of combinations to find first (on 10^6 combinations of two
    integer columns, the pass finding them and each batch's lookup of its hashes cost more
    than the count they spared). Otherwise, or when two combinations share a hash, the
    table is ``None`` and each text quasi-identifier is hashed on its own
    (:func:`_hash_pass`, one per :class:`_HashPlan`).
    """
    every = [column for column in dict.fromkeys([*qi, *columns]) if column in few]
    types = column_types(connection, every)
    if (qi and CLASS not in (*qi, *columns) and any(types.get(column) == "VARCHAR" for column in qi)
            and all(column in few and types[column] in AS_WRITTEN for column in qi)):
        found, classes = _hash_pass(connection, _HashPlan.of(qi, columns, types, combine=True))
        if classes is not None:
            found[CLASS] = (pa.array(np.arange(classes.keys.num_rows)), classes.hashes)
            return found, classes.keys
        # two combinations share a hash: each quasi-identifier on its own
    return _hash_pass(connection, _HashPlan.of(qi, columns, types, combine=False))[0], None


@dataclass(frozen=True)
class _HashPlan:
    """What one pass over the release hashes: each text column of ``singles`` on its own and, when
    ``combine``, the combination of the quasi-identifiers ``qi``."""

    qi: tuple[str, ...]
    singles: tuple[str, ...]
    combine: bool

    @classmethod
    def of(cls, qi: Sequence[str], columns: Sequence[str], types: dict[str, str], *, combine: bool) -> _HashPlan:
        """The text columns (DuckDB's ``VARCHAR``) among ``columns``, and the quasi-identifiers' unless combined."""
        wanted = dict.fromkeys([*columns, *(() if combine else qi)])
        return cls(tuple(qi), tuple(column for column in wanted if types.get(column) == "VARCHAR"), combine)

    @property
    def sets(self) -> tuple[tuple[str, ...], ...]:
        """The grouping sets: one a single column, and the quasi-identifiers when combined."""
        return tuple(dict.fromkeys([*((column,) for column in self.singles), *([self.qi] if self.combine else [])]))


_SETS = "privcert_sets"
"""The temporary table of a pass that combines the quasi-identifiers: its grouping sets' rows."""


def _hash_pass(connection: DuckDBPyConnection,
               plan: _HashPlan) -> tuple[dict[str, tuple[pa.Array, pa.Array]], NumberedClasses | None]:
    """One pass over the release finds the distinct values of every set of ``plan`` (``GROUPING SETS``),
    each hashed once; a set two of whose values share a hash is left out (streamed as it is). When the plan
    combines the quasi-identifiers, their combinations are numbered from the pass's rows, as the group-bys past
    the dense bound take them (:func:`verifier.engines.numbered.number_classes`; ``None`` when two share a hash)."""
    sets = plan.sets
    if not sets:
        return {}, None
    grouping = list(dict.fromkeys(column for chosen in sets for column in chosen))
    value = {column: f"value_{i}" for i, column in enumerate(grouping)}
    statement = _grouping_sets(sets, grouping, value)
    combined = grouping_id(grouping, plan.qi) if plan.combine else None
    if combined is None:
        found_sets = connection.sql(statement).to_arrow_table()
    else:
        connection.execute(f"CREATE OR REPLACE TEMP TABLE {_SETS} AS {statement}")
        found_sets = connection.sql(f"SELECT * FROM {_SETS} WHERE grouping_set <> {combined}").to_arrow_table()
    found: dict[str, tuple[pa.Array, pa.Array]] = {}
    for i, chosen in enumerate(sets):
        if len(chosen) == 1 and chosen[0] in plan.singles:
            mine = found_sets.filter(pc.equal(found_sets["grouping_set"], grouping_id(grouping, chosen)))
            hashes = mine[f"hash_{i}"]
            if not _collide(hashes):
                found[chosen[0]] = (mine[value[chosen[0]]].combine_chunks(), hashes.combine_chunks())
    if combined is None:
        return found, None
    rows = (f"(SELECT {', '.join(f'{value[column]} AS {quote(column)}' for column in plan.qi)}, size FROM {_SETS} "
            f"WHERE grouping_set = {combined})")
    classes = number_classes(connection, plan.qi, rows=rows, size="CAST(SUM(size) AS BIGINT)")
    connection.execute(f"DROP TABLE {_SETS}")
    return found, classes


def _grouping_sets(sets: Sequence[tuple[str, ...]], grouping: Sequence[str], value: dict[str, str]) -> str:
    """The query of one pass: the distinct values of each set, which set they belong to, their rows (``size``) and
    their hash ``hash_i``."""
    grouped = (f"SELECT GROUPING({', '.join(map(quote, grouping))}) AS grouping_set, "
               f"{', '.join(f'{quote(column)} AS {value[column]}' for column in grouping)}, COUNT(*) AS size "
               f"FROM {RELATION} "
               f"GROUP BY GROUPING SETS ({', '.join('(' + ', '.join(map(quote, chosen)) + ')' for chosen in sets)})")
    hashes = ", ".join(f"hash({', '.join(value[column] for column in chosen)}) AS hash_{i}" for i, chosen in enumerate(sets))
    return f"SELECT *, {hashes} FROM ({grouped})"


def _collide(hashes: pa.ChunkedArray) -> bool:
    """Whether two of the distinct values (or combinations) hashed to ``hashes`` share a hash."""
    return bool(pc.count_distinct(hashes).as_py() != len(hashes))


def _lookups(hashed: dict[str, tuple[pa.Array, pa.Array]]) -> dict[str, tuple[pa.Array, pd.Index]]:
    """Each hashed column's values and an index of their hashes, whose hash table is built once, at the first
    batch, and kept for the others (``pyarrow.compute.index_in`` builds one for every batch: 0.19 s a batch for
    10^6 combinations of the quasi-identifiers, against 0.04 s looked up in the kept table)."""
    import pandas as pd

    return {name: (values, pd.Index(hashes.to_numpy(zero_copy_only=False))) for name, (values, hashes) in hashed.items()}


def _unhashed(batch: pa.RecordBatch, lookups: dict[str, tuple[pa.Array, pd.Index]]) -> pa.RecordBatch:
    """``batch`` with each hashed column as an Arrow dictionary of its values (:func:`_hashed`, :func:`_lookups`)."""
    if not lookups:
        return batch
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        if name in lookups:
            values, hashes = lookups[name]
            indices = hashes.get_indexer(column.to_numpy(zero_copy_only=False))
            if indices.size and indices.min() < 0:
                raise EngineReadError(f"column {name!r} holds a value it did not hold when its distinct values were "
                                      "read: the release changed while it was being read")
            column = pa.DictionaryArray.from_arrays(pa.array(indices), values)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def _reader(path: Path, kind: str, header: list[str] | None, encoding: str) -> str:
    """The table function that reads the release, every option explicit (nothing sniffed; ``encoding``: DuckDB's name)."""
    if kind == "csv":
        assert header is not None
        columns = "{" + ", ".join(f"{_literal(name)}: 'VARCHAR'" for name in header) + "}"
        return (f"read_csv({_literal(str(path))}, columns = {columns}, header = true, auto_detect = false, "
                "delim = ',', quote = '\"', escape = '\"', strict_mode = true, null_padding = false, "
                f"nullstr = '', max_line_size = {1 << 30}, encoding = {_literal(encoding)})")
    if path.is_dir():
        files = parquet_files(path)
        listed = "[" + ", ".join(_literal(str(file)) for file in files) + "]"
        hive = "true, hive_types_autocast = false" if hive_columns(path, files) else "false"
        return f"read_parquet({listed}, hive_partitioning = {hive})"
    return f"read_parquet({_literal(str(path))}, hive_partitioning = false)"


def _message(text: str) -> str:
    """DuckDB's error in one line: the line of the file and what was found."""
    line = re.search(r"CSV Error on Line: (\d+)", text)
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if line and columns:
        return f"line {line.group(1)}: expected {columns.group(1)} fields as in the header, found {columns.group(2)}"
    return first_lines(text)
