"""What an engine is: its name, the progress callback it reports to, and the one method it has.

The engines (:mod:`verifier.engines.pandas_engine`, :mod:`verifier.engines.duckdb_engine`,
:mod:`verifier.engines.spark_engine`) import this module; :func:`verifier.engines.get_engine`
imports them, so they never import the package that chooses them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol

from verifier.tables.counts import AttributeSpec, Classes, CountTable

__all__ = ["ENGINES", "EngineName", "Engine", "Phase", "ignore_phase"]

EngineName = Literal["pandas", "duckdb", "spark"]
ENGINES: tuple[EngineName, ...] = ("pandas", "duckdb", "spark")

Phase = Callable[[str, int, int | None, str], None]
"""Progress of a count: ``phase(name, done, total, unit)``, e.g. ``("group", 2, 4, "aggregations")``."""


def ignore_phase(name: str, done: int, total: int | None, unit: str) -> None:
    """A :data:`Phase` that shows nothing."""


class Engine(Protocol):
    """Builds the classes and count tables of a release file or dataset directory."""

    @property
    def name(self) -> EngineName:
        """The engine's name (``pandas``, ``duckdb``, ``spark``), recorded in results and certificates."""
        ...

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
        """The classes and one count table per attribute, as :func:`verifier.tables.counting.count_tables` gives them."""
        ...
