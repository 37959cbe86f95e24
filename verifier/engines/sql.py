"""The group-by in SQL, written once and run by every SQL engine (DuckDB, Spark SQL).

An engine registers the release as a view named ``release`` whose columns are the
file's columns (CSV: all text; Parquet: as stored; Hive partition values: text) and
runs the one statement of :func:`aggregation`: a single scan with one grouping set for
the classes and one per attribute. What comes back is one row per distinct combination
of each set's columns with its ``COUNT(*)``, a 64-bit integer on both engines, split
here by set (:func:`split_sets`). :class:`SqlEngine` turns those rows into count tables with
:func:`verifier.counts.count_tables_from_groups`, so that coding, exact parsing of
numerical values (once per distinct value), missing values and errors are those of the
pandas path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from verifier.counts import AttributeSpec, Classes, CountTable, check_columns, count_tables_from_groups
from verifier.engines import EngineName, Phase, ignore_phase
from verifier.engines.locate import release_locator
from verifier.errors import DataError
from verifier.load import check_csv, check_schema, csv_header, parquet_files, refuse_nan, release_format

__all__ = ["COUNT", "RELATION", "quote", "aggregation", "split_sets", "EngineReadError", "Runner", "SqlEngine",
           "first_lines"]

RELATION = "release"
"""The view every engine registers the release under."""

COUNT = "privcert_count"
"""The name of the count column (not a column name a release is likely to use)."""


def quote(name: str) -> str:
    """A column name as an SQL identifier (double quotes, as DuckDB and Spark SQL in ANSI mode read it)."""
    return '"' + name.replace('"', '""') + '"'


def _marker(index: int) -> str:
    """The name of ``GROUPING()`` of the ``index``-th sensitive column."""
    return f"privcert_grouped_{index}"


def aggregation(qi: Sequence[str], sets: Sequence[Sequence[str]]) -> str:
    """The one statement of every engine: one scan, grouping sets ``qi`` and ``qi + set`` for each set.

    ``SELECT qi..., columns..., GROUPING(column)..., COUNT(*) FROM release GROUP BY
    GROUPING SETS ((qi...), (qi..., set...), ...)``. ``GROUPING(column)`` is 0 where the
    row's set groups by the column, which tells the sets apart even where a missing value
    is a NULL of its own; missing values form groups of their own (every NULL in one
    group), so no row is dropped, and ``COUNT(*)`` counts rows, never values.
    """
    columns = list(dict.fromkeys(c for group in sets for c in group))
    names = ", ".join(quote(column) for column in dict.fromkeys([*qi, *columns]))
    markers = "".join(f", GROUPING({quote(c)}) AS {quote(_marker(i))}" for i, c in enumerate(columns))
    grouping = ", ".join("(" + ", ".join(quote(c) for c in dict.fromkeys([*qi, *group])) + ")"
                         for group in ([], *sets))
    return (f"SELECT {names}{markers}, COUNT(*) AS {quote(COUNT)} FROM {RELATION} "
            f"GROUP BY GROUPING SETS ({grouping})")


def split_sets(table: pa.Table, qi: Sequence[str],
               sets: Sequence[Sequence[str]]) -> list[tuple[pd.DataFrame, np.ndarray]]:
    """The result of :func:`aggregation` as one (groups, counts) pair per grouping set, classes first.

    Groups are pandas frames of their set's columns (exact integers, never floats), counts int64.
    """
    columns = list(dict.fromkeys(c for group in sets for c in group))
    grouped = {c: table.column(_marker(i)).to_numpy() == 0 for i, c in enumerate(columns)}
    frame = table.drop_columns([_marker(i) for i in range(len(columns))] + [COUNT]).to_pandas(integer_object_nulls=True)
    counts = table.column(COUNT).to_numpy().astype(np.int64, copy=False)
    found = []
    for group in ([], *sets):
        rows = np.ones(len(frame), dtype=bool)
        for column in columns:
            rows &= grouped[column] == (column in group)
        found.append((frame.loc[rows, list(dict.fromkeys([*qi, *group]))].reset_index(drop=True), counts[rows]))
    return found


class EngineReadError(Exception):
    """The engine could not read the release; the message is the engine's."""


Runner = Callable[[str], pa.Table]
"""Runs one statement on the registered ``release`` view and returns the result as Arrow."""


class SqlEngine(ABC):
    """An engine that runs :func:`aggregation` in SQL; subclasses only open the release."""

    name: EngineName

    @abstractmethod
    def _open(self, path: Path, kind: str, header: list[str] | None, encoding: str) -> AbstractContextManager[Runner]:
        """Register ``path`` as the view ``release`` and yield a :data:`Runner` (``header``: the CSV's columns).

        Errors reading the data raise :class:`EngineReadError`.
        """

    def _check_csv(self, path: Path, encoding: str) -> None:  # noqa: B027 (a hook: no extra check by default)
        """Checks the engine does not make while reading (none by default)."""

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
        """The classes and count tables of the release at ``path`` (see :mod:`verifier.engines.sql`)."""
        kind = release_format(path)
        header = csv_header(path, encoding) if kind == "csv" else None
        if kind == "csv":
            self._check_csv(path, encoding)
        sets = [spec.columns for spec in attributes]
        try:
            with self._open(path, kind, header, encoding) as run:
                schema = run(f"SELECT * FROM {RELATION} LIMIT 0").schema
                if kind == "parquet":
                    check_schema(path, schema)
                check_columns(schema.names, qi, attributes, source)
                partitions = len(parquet_files(path)) if path.is_dir() else 1
                phase("scan", 0, 1, f"aggregation over {partitions:,} partition(s)")
                result = run(aggregation(qi, sets))
                refuse_nan(str(path), result, rows=False)
                frames = split_sets(result, qi, sets)
                rows = int(frames[0][1].sum())
                phase("group", 1, 1, f"aggregation, {rows:,} rows in {partitions:,} partition(s)")
        except EngineReadError as error:
            if kind == "csv":
                check_csv(path, encoding)
            raise DataError(f"{path}: cannot read the file as {kind.upper()} with --engine {self.name}: {error}") from error
        return count_tables_from_groups(frames[0], frames[1:], qi, attributes, source=source,
                                        locate=release_locator(path, kind, encoding))


def first_lines(text: str, lines: int = 3) -> str:
    """The first lines of an engine's error message (the rest is a stack trace), at most 1,000 characters."""
    message = " ".join(line.strip() for line in str(text).strip().splitlines()[:lines])
    return message if len(message) <= 1000 else f"{message[:1000]}… ({len(message):,} characters)"
