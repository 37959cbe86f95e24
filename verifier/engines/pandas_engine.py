"""The pandas engine: a Parquet release counted a batch at a time, anything else loaded into memory.

A Parquet release (a file or a dataset directory) is read in record batches and counted
densely as they come (:mod:`verifier.stream_counts`), so memory is a batch and the count
tables, not the table. Its text columns of few distinct values are read as Arrow
dictionaries, as Parquet stores them: the values are those written, their codes come
with them, and only each batch's dictionary is looked up, never a string per row.

The release is loaded whole (:func:`verifier.load.load_table`, the same dictionary columns
as pandas categoricals) and counted by :func:`verifier.counts.count_tables` when it is
CSV, when its dense tables would pass :data:`verifier.stream_counts.DENSE_CELLS`, or
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

from verifier.counts import AttributeSpec, Classes, CountTable, check_columns, count_tables, count_tables_from_cells
from verifier.engines import Phase, ignore_phase
from verifier.errors import DataError
from verifier.load import check_schema, load_table, parquet_dataset, parquet_files, release_format
from verifier.stream_counts import BATCH_ROWS, DenseLimit, StreamCounter

__all__ = ["PandasEngine"]

_DICTIONARY_SHARE = 10
"""A column has few values when its dictionary pages take at most 1/10 of its bytes."""


@dataclass(frozen=True)
class PandasEngine:
    """Parquet streamed into dense counts, or :func:`verifier.load.load_table` then :func:`verifier.counts.count_tables` (the default engine)."""

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
        few = _few_values(path)
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
            counter = StreamCounter(qi, attributes, source=source)
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


def _few_values(path: Path) -> set[str]:
    """The Parquet columns whose values the file stores as a small dictionary (in every row group of its first file).

    Parquet writers encode a column as a dictionary and fall back to plain values when the
    dictionary grows too large; reading a column of mostly distinct values as a dictionary
    costs more than it saves. Only the footer is read. A CSV release has none.
    """
    if release_format(path) != "parquet":
        return set()
    import pyarrow.parquet as pq

    try:
        metadata = pq.ParquetFile(parquet_files(path)[0] if path.is_dir() else path).metadata
    except (OSError, pa.ArrowException):
        return set()  # the reader names what is wrong with the file
    few: set[str] | None = None
    for number in range(metadata.num_row_groups):
        group = metadata.row_group(number)
        small = set()
        for column in (group.column(index) for index in range(group.num_columns)):
            if column.has_dictionary_page and column.dictionary_page_offset is not None:
                size = column.data_page_offset - column.dictionary_page_offset
                if 0 < size * _DICTIONARY_SHARE <= column.total_compressed_size:
                    small.add(column.path_in_schema)
        few = small if few is None else few & small
    return few or set()
