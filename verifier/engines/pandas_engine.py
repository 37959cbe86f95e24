"""The pandas engine: a Parquet release counted a batch at a time, anything else loaded into memory.

A Parquet release (a file or a dataset directory) is read in record batches and counted
densely as they come (:mod:`verifier.tables.stream_counts`), so memory is a batch and the count
tables, not the table. Its text columns of few distinct values are read as Arrow
dictionaries, as Parquet stores them: the values are those written, their codes come
with them, and only each batch's dictionary is looked up, never a string per row.

The release is loaded whole (:func:`verifier.tables.load.load_table`, the same dictionary columns
as pandas categoricals) and counted by :func:`verifier.tables.counting.count_tables` when it is
CSV, when its dense tables would pass :data:`verifier.tables.stream_counts.DENSE_CELLS`, or
when the streamed count meets an error (a column not found, a value that is not a
number, a missing sensitive value, ...): the whole table names the row at fault, with its
index label, as it always has, and the warnings of a streamed count are given only when
it succeeds.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyarrow as pa

from verifier.engines.engine import Phase, ignore_phase
from verifier.errors import DataError
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes, CountTable
from verifier.tables.engine_counts import count_tables_from_cells
from verifier.tables.load import check_schema, dictionary_columns, load_table, parquet_dataset, release_format
from verifier.tables.stream_counts import BATCH_ROWS, DenseLimit, StreamCounter
from verifier.tables.values import check_columns

__all__ = ["PandasEngine"]

@dataclass(frozen=True)
class PandasEngine:
    """Parquet streamed into dense counts, or :func:`verifier.tables.load.load_table` then :func:`verifier.tables.counting.count_tables` (the default engine)."""

    name: Literal["pandas"] = "pandas"

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
        phase("scan", 0, None, "rows")
        few = dictionary_columns(path)
        if release_format(path) == "parquet":
            streamed = _streamed(path, qi, attributes, few, source, phase)
            if streamed is not None:
                return streamed
        frame = load_table(path, encoding=encoding, categories=few)
        phase("group", len(frame), len(frame), "rows")
        return count_tables(frame, qi, attributes, source=source)


class _ReadWhole(Exception):
    """An error whose row only the whole table names as the pandas engine always has."""


def _read_whole(frame: object, columns: object, mask: object) -> tuple[int, str]:
    raise _ReadWhole


def _streamed(path: Path, qi: Sequence[str], attributes: Sequence[AttributeSpec], few: set[str], source: str,
              phase: Phase) -> tuple[Classes, tuple[CountTable, ...]] | None:
    """The Parquet release at ``path`` counted a batch at a time; ``None`` when it is to be loaded whole instead."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            dataset = parquet_dataset(path)
            check_schema(path, dataset.schema)
            check_columns(dataset.schema.names, qi, attributes, source)
            text = [field.name for field in dataset.schema if field.name in few and (
                pa.types.is_string(field.type) or pa.types.is_large_string(field.type))]
            counter = StreamCounter(qi, attributes, source=source, rows=dataset.count_rows())
            batches = (parquet_dataset(path, text) if text else dataset).to_batches(
                columns=list(counter.columns), batch_size=BATCH_ROWS, batch_readahead=2)
            counter.add_all(batches, lambda rows: phase("scan", rows, None, "rows"))
            counted = count_tables_from_cells(*counter.cells(), qi, attributes, source=source, locate=_read_whole)
        except (DenseLimit, DataError, _ReadWhole, pa.ArrowException, OSError):
            return None
    for warning in caught:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    phase("group", counted[0].rows, counted[0].rows, "rows")
    return counted
