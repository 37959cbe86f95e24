"""The pandas engine: load the release into memory, then one factorization and bincounts.

Parquet text columns are loaded as categoricals (Arrow dictionaries, as Parquet usually
stores them): the values are those written, and their codes come with them, so the
group-by hashes no string per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from verifier.counts import AttributeSpec, Classes, CountTable, count_tables
from verifier.engines import Phase, ignore_phase
from verifier.load import load_table

__all__ = ["PandasEngine"]


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
        frame = load_table(path, encoding=encoding, categories=True)
        phase("group", len(frame), len(frame), "rows")
        return count_tables(frame, qi, attributes, source=source)
