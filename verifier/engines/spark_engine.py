"""The Spark engine: Apache Spark SQL (Zaharia et al. 2016) on a cluster or ``local[*]``.

The release is read by Spark itself (CSV with every column as text, failing on a
malformed row; Parquet files and partitioned directories, partition values as text)
and registered as the temporary view ``release``; the aggregation of
:mod:`verifier.engines.sql` runs in ANSI mode with double-quoted identifiers, so the
statement is the one DuckDB runs, and the grouped rows come back as Arrow.

Spark decodes CSV leniently (an invalid byte becomes U+FFFD), so a CSV release is first
checked for its encoding by one streaming pass on the driver
(:func:`verifier.load.check_csv`); Parquet needs no such pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pyarrow as pa

from verifier.engines.sql import RELATION, EngineReadError, Session, SqlEngine, first_lines
from verifier.errors import DataError
from verifier.load import check_csv

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SparkEngine", "SESSION_CONFIG", "LOCAL_MEMORY", "spark_session"]

SESSION_CONFIG: dict[str, str] = {
    "spark.sql.ansi.enabled": "true",
    "spark.sql.ansi.doubleQuotedIdentifiers": "true",
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.ui.showConsoleProgress": "false",
}
"""Settings every privcert Spark session runs with (the SQL of :mod:`verifier.engines.sql` needs the first two;
privcert shows its own progress, so Spark's console bar is off)."""


LOCAL_MEMORY = os.environ.get("PRIVCERT_SPARK_MEMORY", "4g")
"""The JVM heap of a local Spark session and the most its results may hold (environment variable
``PRIVCERT_SPARK_MEMORY``). Spark's default of 1g cannot hold the grouped rows of a release of
10^7 rows (about 9 million rows come back for 20,000 classes and 2,000 values) and the JVM
dies; on a cluster, ``spark-submit``'s own settings apply."""


def spark_session(master: str, **config: str) -> SparkSession:
    """The Spark session for ``master`` with :data:`SESSION_CONFIG` (and ``config``); an active one is reused.

    In local mode the shuffle has one partition per core (Spark's default of 200 suits a
    cluster; on one machine it costs a task per partition and aggregation), and the driver,
    which runs the tasks too, has :data:`LOCAL_MEMORY`.
    """
    from pyspark.sql import SparkSession

    local = {"spark.sql.shuffle.partitions": str(os.cpu_count() or 1), "spark.driver.memory": LOCAL_MEMORY,
             "spark.driver.maxResultSize": LOCAL_MEMORY} if master.startswith("local") else {}
    builder = SparkSession.builder.master(master).appName("privcert")
    for key, value in {**SESSION_CONFIG, **local, **config}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    for key, value in SESSION_CONFIG.items():
        if session.conf.isModifiable(key):
            session.conf.set(key, value)
    return session


@dataclass(frozen=True)
class SparkEngine(SqlEngine):
    """Count with Spark SQL.

    Parameters
    ----------
    master
        Spark's master URL: ``local[*]`` (every core of this machine), ``local[2]``,
        ``spark://host:7077``, ``yarn``...
    """

    master: str = "local[*]"
    name: Literal["spark"] = "spark"

    def _check_csv(self, path: Path, encoding: str) -> None:
        check_csv(path, encoding, fields=False)

    @contextmanager
    def _open(self, path: Path, kind: str, header: list[str] | None, encoding: str) -> Iterator[Session]:
        from py4j.protocol import Py4JJavaError, Py4JNetworkError
        from pyspark.errors import PySparkException
        from pyspark.sql.types import StringType, StructField, StructType

        try:
            session = spark_session(self.master)
        except (Py4JJavaError, PySparkException) as error:
            raise DataError(f"cannot start Spark (master {self.master}, local memory {LOCAL_MEMORY}): "
                            f"{first_lines(str(error))}") from error
        try:
            if kind == "csv":
                assert header is not None
                schema = StructType([StructField(name, StringType()) for name in header])
                codec = "UTF-8" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else encoding
                frame = session.read.csv(str(path), schema=schema, header=True, enforceSchema=True, mode="FAILFAST",
                                         multiLine=True, encoding=codec, nullValue="", quote='"', escape='"')
            else:
                frame = session.read.parquet(str(path))
            frame.createOrReplaceTempView(RELATION)
        except (Py4JJavaError, PySparkException) as error:
            raise EngineReadError(first_lines(str(error))) from error

        def run(statement: str) -> pa.Table:
            try:
                return session.sql(statement).toArrow()
            except (Py4JJavaError, PySparkException) as error:
                raise EngineReadError(first_lines(str(error))) from error
            except (Py4JNetworkError, ConnectionError) as error:
                raise EngineReadError(f"Spark's JVM stopped during the aggregation ({error}); a local session "
                                      f"has {LOCAL_MEMORY} of memory (PRIVCERT_SPARK_MEMORY): give it more") from error

        try:
            yield Session(run)
        finally:
            with suppress(Py4JNetworkError, ConnectionError):  # a JVM that stopped has no view left to drop
                session.catalog.dropTempView(RELATION)
