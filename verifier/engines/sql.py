"""The group-bys in SQL, written once and run by every SQL engine (DuckDB, Spark SQL).

An engine registers the release as a view named ``release`` whose columns are the
file's columns (CSV: all text; Parquet: as stored; Hive partition values: text) and
runs the statements of :func:`aggregation`, one per sensitive attribute: the distinct
combinations of the quasi-identifiers and the attribute's columns with their
``COUNT(*)``, a 64-bit integer on both engines, fetched as Arrow. Missing values form
groups of their own, so each result covers every row and holds every class; the classes
are summed from the first. :class:`SqlEngine` turns the results into count tables with
:func:`verifier.counts.count_tables_from_groups` (quasi-identifiers coded in Arrow), so
that coding, exact parsing of numerical values (once per distinct value), missing values
and errors are those of the pandas path.

One statement per attribute, not one ``GROUPING SETS`` statement for all: the sets are
then held one at a time, and on DuckDB the single scan was no faster
(benchmarks/RESULTS.md, "Engines").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from verifier.counts import AttributeSpec, Classes, CountTable, check_columns, count_tables_from_groups
from verifier.engines import EngineName, Phase, ignore_phase
from verifier.engines.locate import release_locator
from verifier.errors import DataError
from verifier.load import check_csv, check_schema, csv_header, parquet_files, refuse_nan, release_format

__all__ = ["COUNT", "RELATION", "quote", "aggregation", "EngineReadError", "Runner", "SqlEngine",
           "first_lines"]

RELATION = "release"
"""The view every engine registers the release under."""

COUNT = "privcert_count"
"""The name of the count column (not a column name a release is likely to use)."""


def quote(name: str) -> str:
    """A column name as an SQL identifier (double quotes, as DuckDB and Spark SQL in ANSI mode read it)."""
    return '"' + name.replace('"', '""') + '"'


def aggregation(qi: Sequence[str], columns: Sequence[str]) -> str:
    """The statement of one attribute: ``SELECT qi..., columns..., COUNT(*) FROM release GROUP BY qi..., columns...``.

    Missing values form groups of their own (every NULL of a column in one group), so no
    row is dropped, and ``COUNT(*)`` counts rows, never values.
    """
    names = ", ".join(quote(column) for column in dict.fromkeys([*qi, *columns]))
    return f"SELECT {names}, COUNT(*) AS {quote(COUNT)} FROM {RELATION} GROUP BY {names}"


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
        sets = [spec.columns for spec in attributes] or [()]
        try:
            with self._open(path, kind, header, encoding) as run:
                schema = run(f"SELECT * FROM {RELATION} LIMIT 0").schema
                if kind == "parquet":
                    check_schema(path, schema)
                check_columns(schema.names, qi, attributes, source)
                partitions = len(parquet_files(path)) if path.is_dir() else 1
                groups = []
                for done, columns in enumerate(sets):
                    phase("scan", done, len(sets), f"aggregations over {partitions:,} partition(s)")
                    groups.append(run(aggregation(qi, columns)))
                    refuse_nan(str(path), groups[-1], rows=False)
                rows = pc.sum(groups[0].column(COUNT)).as_py() or 0
                phase("group", len(sets), len(sets), f"aggregations, {rows:,} rows in {partitions:,} partition(s)")
        except EngineReadError as error:
            if kind == "csv":
                check_csv(path, encoding)
            raise DataError(f"{path}: cannot read the file as {kind.upper()} with --engine {self.name}: {error}") from error
        return count_tables_from_groups(groups, qi, attributes, count=COUNT, source=source,
                                        locate=release_locator(path, kind, encoding))


def first_lines(text: str, lines: int = 3) -> str:
    """The first lines of an engine's error message (the rest is a stack trace), at most 1,000 characters."""
    message = " ".join(line.strip() for line in str(text).strip().splitlines()[:lines])
    return message if len(message) <= 1000 else f"{message[:1000]}… ({len(message):,} characters)"
