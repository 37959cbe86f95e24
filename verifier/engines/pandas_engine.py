"""The pandas engine: load the release into memory, then one factorization and bincounts.

Parquet text columns of few distinct values are loaded as categoricals (Arrow
dictionaries, as Parquet stores them): the values are those written, and their codes
come with them, so the group-by hashes no string per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyarrow as pa

from verifier.counts import AttributeSpec, Classes, CountTable, count_tables
from verifier.engines import Phase, ignore_phase
from verifier.load import load_table, parquet_files, release_format

__all__ = ["PandasEngine"]

_DICTIONARY_SHARE = 10
"""A column has few values when its dictionary pages take at most 1/10 of its bytes."""


@dataclass(frozen=True)
class PandasEngine:
    """:func:`verifier.load.load_table`, then :func:`verifier.counts.count_tables` (the default engine)."""

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
        frame = load_table(path, encoding=encoding, categories=_few_values(path))
        phase("group", len(frame), len(frame), "rows")
        return count_tables(frame, qi, attributes, source=source)


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
