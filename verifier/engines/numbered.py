"""DuckDB's group-bys with the classes and values numbered inside DuckDB: integers cross over to Python, not text.

Past its dense tables, the DuckDB engine counts a release by group-bys
(:mod:`verifier.engines.sql`). Handed over as they are, the groups of a release whose
(class, value) cells are nearly one a row carry every row's quasi-identifier text into
Python, where it is coded again (at 10^8 rows of five text quasi-identifiers, about
8·10^7 groups: most of the count's time). Here DuckDB numbers them itself:

1. the classes: the distinct combinations of the quasi-identifiers with their
   ``COUNT(*)``, into a temporary table, each numbered (``row_number``) and hashed
   (DuckDB's 64-bit ``hash`` of the combination);
2. each attribute's distinct values, numbered likewise;
3. one pass over the release groups its rows by their combination's hash and each
   attribute's columns (``GROUPING SETS``, one set an attribute), joins each group to
   the numbers of its class and value, and hands over three integers a group: class,
   value, count.

Grouping by the hash is grouping by the combination when no two combinations share a
hash, which is checked after step 1; when two do, or when a column is not one whose
values group as written (:data:`AS_WRITTEN`: DuckDB groups a float's ``-0.0`` with
``0.0``), :func:`numbered_cells` gives ``None`` and the engine counts the groups as text
(:class:`verifier.tables.engine_counts.GroupCounter`). A release that changes between
the passes is refused: a group whose value was not there when the values were numbered,
or classes whose cells do not sum to their sizes (a hash that was not there is dropped
by the join, and its rows are missing from the sums).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from verifier.engines.engine import Phase
from verifier.engines.sql import RELATION, quote
from verifier.errors import DataError
from verifier.tables.counting import refuse_empty
from verifier.tables.counts import AttributeSpec
from verifier.tables.engine_counts import Cells, check_classes, joined, narrow
from verifier.tables.stream_counts import BATCH_ROWS

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

__all__ = ["AS_WRITTEN", "CLASSES", "NumberedClasses", "column_types", "grouping_id", "number_classes", "numbered_cells"]

AS_WRITTEN = frozenset({"VARCHAR", "BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                        "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"})
"""DuckDB's types whose values group as written (one group a value): the columns DuckDB may hash or number."""

CLASSES = "privcert_classes"
"""The temporary table of the classes: ``number``, ``hash``, the quasi-identifiers ``q_0, q_1, …``, ``size``."""


def column_types(connection: DuckDBPyConnection, columns: Sequence[str]) -> dict[str, str]:
    """DuckDB's type of each of ``columns`` of the release (a query of no rows)."""
    if not columns:
        return {}
    found = connection.sql(f"SELECT {', '.join(map(quote, columns))} FROM {RELATION} LIMIT 0").types
    return dict(zip(columns, map(str, found), strict=True))


def grouping_id(grouping: Sequence[str], chosen: Sequence[str]) -> int:
    """``GROUPING(grouping...)`` on the rows of the set ``chosen``: a bit set for each column not in it, the first highest."""
    return sum(1 << (len(grouping) - 1 - place) for place, column in enumerate(grouping) if column not in chosen)


@dataclass(frozen=True)
class NumberedClasses:
    """The classes numbered by :func:`number_classes`: in the order of their numbers, their quasi-identifier
    values (``keys``, the quasi-identifiers' names), sizes and hashes."""

    keys: pa.Table
    sizes: np.ndarray
    hashes: pa.Array


def number_classes(connection: DuckDBPyConnection, qi: Sequence[str], *, rows: str = RELATION,
                   size: str = "COUNT(*)") -> NumberedClasses | None:
    """Number the distinct combinations of ``qi`` in ``rows`` (the temporary table :data:`CLASSES`: step 1 of the
    module), or ``None`` when two of them share a hash (the table is then dropped).

    ``rows`` is the release, or a relation of its rows already grouped (with ``size``, the aggregate that sums
    them). The streamed count of the DuckDB engine numbers its classes so, from the pass that finds its
    dictionaries, in the same connection; the group-bys that follow when it passes its dense bound take them as
    they are (:func:`numbered_cells`).
    """
    names = [f"q_{place}" for place in range(len(qi))]
    listed = ", ".join(names)
    chosen = ", ".join(f"{quote(column)} AS {name}" for column, name in zip(qi, names, strict=True))
    connection.execute(f"CREATE OR REPLACE TEMP TABLE {CLASSES} AS SELECT row_number() OVER () - 1 AS number, "
                       f"hash({listed}) AS hash, {listed}, size FROM (SELECT {chosen}, {size} AS size "
                       f"FROM {rows} GROUP BY ALL)")
    if _collide(connection):
        connection.execute(f"DROP TABLE {CLASSES}")
        return None
    return _numbered_classes(connection, qi)


def _collide(connection: DuckDBPyConnection) -> bool:
    """Whether two classes of :data:`CLASSES` share a hash."""
    ((distinct,),) = connection.execute(f"SELECT COUNT(DISTINCT hash) = COUNT(*) FROM {CLASSES}").fetchall()
    return not distinct


def _numbered_classes(connection: DuckDBPyConnection, qi: Sequence[str]) -> NumberedClasses:
    """The classes of :data:`CLASSES`, in the order of their numbers."""
    names = [f"q_{place}" for place in range(len(qi))]
    found = connection.sql(f"SELECT {', '.join(names)}, size, hash FROM {CLASSES} ORDER BY number").to_arrow_table()
    return NumberedClasses(keys=found.select(names).rename_columns(list(qi)),
                           sizes=found.column("size").to_numpy().astype(np.int64),
                           hashes=found.column("hash").combine_chunks())


def numbered_cells(connection: DuckDBPyConnection, qi: Sequence[str], attributes: Sequence[AttributeSpec], *,
                   source: str, phase: Phase, unit: str) -> tuple[pa.Table, np.ndarray, list[Cells]] | None:
    """The classes' keys, their sizes and each attribute's cells, counted by DuckDB on the registered ``release``
    with classes and values numbered by DuckDB (see the module); ``None`` when the release is not one it can
    number so (nothing was counted then, or only its classes).

    Raises
    ------
    DataError
        When the release has no rows, or changed between the passes that read it.
    """
    every = list(dict.fromkeys([*qi, *(column for spec in attributes for column in spec.columns)]))
    if not qi or not all(kind in AS_WRITTEN for kind in column_types(connection, every).values()):
        return None
    phase("scan", 0, len(attributes) + 1, unit)
    numbered = connection.execute("SELECT COUNT(*) FROM duckdb_tables() WHERE temporary AND table_name = ?",
                                  [CLASSES]).fetchall() != [(0,)]
    classes = _numbered_classes(connection, qi) if numbered else number_classes(connection, qi)
    if classes is None:
        return None  # two combinations share a hash
    refuse_empty(int(classes.sizes.sum()), source)
    if not attributes:
        return classes.keys, classes.sizes, []
    values = [_numbered_values(connection, number, spec) for number, spec in enumerate(attributes)]
    places, numbers, counts = _cells(connection, qi, attributes, phase, unit)
    cells = []
    for number, spec in enumerate(attributes):
        value_index = joined(numbers[number])
        if value_index.size and value_index.min() < 0:
            raise DataError(f"{source}: column(s) {', '.join(map(repr, spec.columns))} hold a value they did not "
                            "hold when their distinct values were read: the release changed while it was being read")
        cells.append(Cells(values=values[number], class_index=joined(places[number]), value_index=value_index,
                           count=joined(counts[number])))
    check_classes(classes.sizes, ((cell.class_index, cell.count) for cell in cells), source)
    return classes.keys, classes.sizes, cells


def _numbered_values(connection: DuckDBPyConnection, number: int, spec: AttributeSpec) -> pa.Table:
    """Number the distinct values of the attribute ``spec`` (the temporary table ``privcert_values_<number>``)
    and return them, in the order of their numbers, with the attribute's column names."""
    names = [f"v_{place}" for place in range(len(spec.columns))]
    chosen = ", ".join(f"{quote(column)} AS {name}" for column, name in zip(spec.columns, names, strict=True))
    table = f"privcert_values_{number}"
    connection.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT row_number() OVER () - 1 AS number, * "
                       f"FROM (SELECT DISTINCT {chosen} FROM {RELATION})")
    found = connection.sql(f"SELECT {', '.join(names)} FROM {table} ORDER BY number").to_arrow_table()
    return found.rename_columns(list(spec.columns))


def _cells(connection: DuckDBPyConnection, qi: Sequence[str], attributes: Sequence[AttributeSpec], phase: Phase,
           unit: str) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]], list[list[np.ndarray]]]:
    """The one pass of step 3 (see the module): each attribute's cells as parts, batch by batch, of class numbers,
    value numbers (``-1``: a value not numbered) and counts."""
    grouping = [f"a_{number}_{place}" for number, spec in enumerate(attributes) for place in range(len(spec.columns))]
    columns = [column for spec in attributes for column in spec.columns]
    sets = [[f"a_{number}_{place}" for place in range(len(spec.columns))] for number, spec in enumerate(attributes)]
    ids = [grouping_id(grouping, chosen) for chosen in sets]
    read = ", ".join([f"hash({', '.join(map(quote, qi))}) AS hash",
                      *(f"{quote(column)} AS {name}" for column, name in zip(columns, grouping, strict=True))])
    grouped = (f"SELECT GROUPING({', '.join(grouping)}) AS grouping_set, hash, {', '.join(grouping)}, "
               f"COUNT(*) AS size FROM (SELECT {read} FROM {RELATION}) "
               f"GROUP BY GROUPING SETS ({', '.join('(hash, ' + ', '.join(chosen) + ')' for chosen in sets)})")
    joins = " ".join(
        f"LEFT JOIN privcert_values_{number} w_{number} ON g.grouping_set = {ids[number]} AND "
        + " AND ".join(f"g.{name} IS NOT DISTINCT FROM w_{number}.v_{place}" for place, name in enumerate(chosen))
        for number, chosen in enumerate(sets))
    value = "CASE g.grouping_set " + " ".join(f"WHEN {ids[number]} THEN w_{number}.number"
                                               for number in range(len(sets))) + " END"
    statement = (f"SELECT k.number AS class, g.grouping_set, COALESCE({value}, -1) AS value, g.size "
                 f"FROM ({grouped}) g JOIN {CLASSES} k ON g.hash = k.hash {joins}")
    places: list[list[np.ndarray]] = [[] for _ in attributes]
    numbers: list[list[np.ndarray]] = [[] for _ in attributes]
    counts: list[list[np.ndarray]] = [[] for _ in attributes]
    phase("scan", 1, len(attributes) + 1, unit)
    for batch in connection.sql(statement).to_arrow_reader(BATCH_ROWS):
        found = batch.column("grouping_set").to_numpy()
        place, number, count = (batch.column(name).to_numpy() for name in ("class", "value", "size"))
        for attribute, chosen in enumerate(ids):
            mine = found == chosen if len(ids) > 1 else slice(None)
            places[attribute].append(narrow(place[mine]))
            numbers[attribute].append(narrow(number[mine]))
            counts[attribute].append(narrow(count[mine].astype(np.int64)))
    return places, numbers, counts
