"""Engines: where the count tables are built, the one step that reads rows.

Building the count tables is the only step of an audit that sees rows (docs/design.md,
"Engines return count tables, nothing else"). An engine reads a release (CSV, Parquet, or a directory of Parquet files)
and returns the :class:`~verifier.tables.counts.Classes` and the
:class:`~verifier.tables.counts.CountTable` of each sensitive attribute; every measure after
that is the same code whatever the engine.

* ``pandas`` (the default): a Parquet release is read a batch at a time and counted
  densely as it comes (:mod:`verifier.tables.stream_counts`); CSV, or a release with too many
  (class, value) cells for that, is loaded into memory (:func:`verifier.tables.load.load_table`)
  and counted by :func:`verifier.tables.counting.count_tables`.
* ``duckdb``: in-process, reads the files directly (CSV, Parquet, a directory of Parquet
  files) and streams the rows as Arrow record batches; they are counted densely as they
  come (:mod:`verifier.tables.stream_counts`), in memory bounded by a batch and the count tables.
  A release with too many (class, value) cells for that is counted by SQL group-bys,
  which spill to disk past DuckDB's memory limit.
* ``spark``: Apache Spark (PySpark), on a cluster (``master``) or ``local[*]``.

DuckDB's fallback and Spark run the same SQL (:mod:`verifier.engines.sql`): one group-by
per attribute (quasi-identifiers × the attribute's columns → ``COUNT(*)``, a 64-bit
integer), fetched as Arrow; the classes are summed from the first. Whichever way the
counts were taken, the attributes' distinct values are coded, parsed (numerical
attributes, exactly) and checked in Python by the same functions as the pandas path
(:func:`verifier.tables.engine_counts.count_tables_from_cells`).

What every engine is (:class:`Engine`, its name and its progress callback) is declared in
:mod:`verifier.engines.engine`, which the engines import; this package chooses one.
"""

from __future__ import annotations

from verifier.engines.engine import ENGINES, Engine, EngineName, Phase, ignore_phase
from verifier.errors import PolicyError

__all__ = ["ENGINES", "EngineName", "Engine", "Phase", "get_engine", "ignore_phase"]


def get_engine(name: str, *, master: str | None = None) -> Engine:
    """The engine called ``name`` (``pandas``, ``duckdb`` or ``spark``).

    Parameters
    ----------
    name
        The engine.
    master
        Spark's master URL (default ``local[*]``); only for ``spark``.

    Raises
    ------
    PolicyError
        An unknown engine, ``master`` given for an engine other than Spark, or an engine
        whose library is not installed (the message names the extra that installs it).
    """
    if name not in ENGINES:
        raise PolicyError(f"--engine: expected one of {', '.join(ENGINES)}, found {name!r}")
    if master is not None and name != "spark":
        raise PolicyError(f"--master {master}: applies to --engine spark only, found --engine {name}")
    if name == "pandas":
        from verifier.engines.pandas_engine import PandasEngine

        return PandasEngine()
    if name == "duckdb":
        _installed("duckdb", "duckdb")
        from verifier.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    _installed("pyspark", "spark")
    from verifier.engines.spark_engine import SparkEngine

    return SparkEngine(master or "local[*]")


def _installed(module: str, engine: str) -> None:
    """Raise :class:`PolicyError` naming the extra to install when ``module`` is missing."""
    from importlib.util import find_spec

    if find_spec(module) is None:
        raise PolicyError(f"--engine {engine} needs the Python package {module}, which is not installed: "
                          f"pip install 'privcert[{engine}]'")
