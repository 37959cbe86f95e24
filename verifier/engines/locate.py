"""Naming the release row an error is about, when the engine only returned distinct values.

The SQL engines return one row per distinct combination of values, so an error found
in those values (a numerical cell that is not a number, a value outside a declared
order, a missing sensitive value) cannot say by itself where it is. Only then is the
release read once more, streamed in batches (never whole in memory), to find the first
row holding one of the offending values: the same row the pandas path names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from verifier.tables.load import csv_header, parquet_dataset
from verifier.tables.values import Locate

__all__ = ["release_locator"]

_POSITION = "__privcert_position"
_ROW = "__privcert_row"


def _batches(path: Path, kind: str, encoding: str, columns: Sequence[str]) -> Iterator[pd.DataFrame]:
    if kind == "parquet":
        for batch in parquet_dataset(path).to_batches(columns=list(columns)):
            yield pa.Table.from_batches([batch]).to_pandas(integer_object_nulls=True)
        return
    header = csv_header(path, encoding)
    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(encoding=encoding, block_size=1 << 24),
        parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types={name: pa.string() for name in header},
                                             include_columns=list(columns), null_values=[""],
                                             strings_can_be_null=True, quoted_strings_can_be_null=True),
    )
    for batch in reader:
        yield pa.Table.from_batches([batch]).to_pandas()


def release_locator(path: Path, kind: str, encoding: str) -> Locate:
    """A :data:`~verifier.tables.values.Locate` that streams the release at ``path`` to find the first offending row."""

    def locate(frame: pd.DataFrame, columns: Sequence[str], mask: np.ndarray) -> tuple[int, str]:
        columns = list(columns)
        flagged = frame.loc[mask, columns].reset_index(names=_POSITION)
        seen = 0
        for batch in _batches(path, kind, encoding, columns):
            batch = batch[columns].astype(flagged[columns].dtypes.to_dict(), errors="ignore")
            batch[_ROW] = np.arange(seen, seen + len(batch))
            hits = batch.merge(flagged, on=columns, how="inner")
            if len(hits):
                first = hits.loc[hits[_ROW].idxmin()]
                return int(first[_POSITION]), f"row {int(first[_ROW]) + 1}"
            seen += len(batch)
        return int(np.flatnonzero(mask)[0]), "a row"

    return locate
