"""The Spark engine: Apache Spark SQL (Zaharia et al. 2016) on a cluster or ``local[*]``.

The release is read by Spark itself (CSV with every column as text, failing on a
malformed row; Parquet files and partitioned directories, partition values as text)
and registered as the temporary view ``release``; the aggregation of
:mod:`verifier.engines.sql` runs in ANSI mode with double-quoted identifiers, so the
statement is the one DuckDB runs, and the grouped rows come back as Arrow.

Spark decodes CSV leniently (an invalid byte becomes U+FFFD), so a CSV release is first
checked for its encoding by one streaming pass on the driver
(:func:`verifier.tables.load.check_csv`); Parquet needs no such pass.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import pyarrow as pa

from verifier.engines.sql import RELATION, EngineReadError, Session, SqlEngine, first_lines
from verifier.errors import DataError
from verifier.tables.encodings import Encoding
from verifier.tables.load import check_csv, parquet_files

if TYPE_CHECKING:
    from py4j.java_gateway import JavaGateway
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

__all__ = ["SparkEngine", "SESSION_CONFIG", "LOCAL_MEMORY", "LOG4J2", "QUICK_BYTES", "spark_session"]

LOG4J2 = Path(__file__).with_name("spark-log4j2.properties")
"""The logging of a driver JVM that privcert starts: errors only."""

SESSION_CONFIG: dict[str, str] = {
    "spark.sql.ansi.enabled": "true",
    "spark.sql.ansi.doubleQuotedIdentifiers": "true",
    "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.ui.showConsoleProgress": "false",
}
"""Settings every privcert Spark session runs with (the SQL of :mod:`verifier.engines.sql` needs the first two;
privcert shows its own progress, so Spark's console bar is off)."""


QUICK_BYTES = 16 << 20
"""A release of fewer bytes (its files') is counted by a driver JVM that compiles with C1 alone
(``-XX:TieredStopAtLevel=1``): on the 9 rows of examples/table4, the JVM's optimizing compiler (C2)
took half of Spark's CPU, for code that then ran once (benchmarks/RESULTS.md, "Spark: start-up")."""

LOCAL_MEMORY = os.environ.get("PRIVCERT_SPARK_MEMORY", "4g")
"""The JVM heap of a local Spark session and the most its results may hold (environment variable
``PRIVCERT_SPARK_MEMORY``). Spark's default of 1g cannot hold the grouped rows of a release of
10^7 rows (about 9 million rows come back for 20,000 classes and 2,000 values) and the JVM
dies; on a cluster, ``spark-submit``'s own settings apply."""


def spark_session(master: str, *, quick: bool = False, **config: str) -> SparkSession:
    """The Spark session for ``master`` with :data:`SESSION_CONFIG` (and ``config``); an active one is reused.

    In local mode the shuffle has one partition per core (Spark's default of 200 suits a
    cluster; on one machine it costs a task per partition and aggregation), the driver,
    which runs the tasks too, has :data:`LOCAL_MEMORY`, and Spark's web UI is off (a
    server started with every session, for watching jobs on a cluster; privcert shows its
    own progress). A driver JVM started here logs
    errors only (:data:`LOG4J2`) and writes its output to a file of its own, not to this
    process's terminal: Spark's start-up notices are not privcert's output. With ``quick``
    (a small release: :data:`QUICK_BYTES`), it compiles with C1 alone.
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    local = {"spark.sql.shuffle.partitions": str(os.cpu_count() or 1), "spark.driver.memory": LOCAL_MEMORY,
             "spark.driver.maxResultSize": LOCAL_MEMORY, "spark.ui.enabled": "false"
             } if master.startswith("local") else {}
    java = f"-Dlog4j2.configurationFile={LOG4J2.as_uri()}" + (" -XX:TieredStopAtLevel=1" if quick else "")
    quiet = {"spark.driver.extraJavaOptions": java}
    settings = {**quiet, **SESSION_CONFIG, **local, **config}
    if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:  # no JVM yet: start it here
        conf = SparkConf().setMaster(master).setAppName("privcert").setAll(list(settings.items()))
        with _quiet_pyspark():
            SparkContext(conf=conf, gateway=_launch_gateway(master, conf))
    builder = SparkSession.builder.master(master).appName("privcert")
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    for key, value in SESSION_CONFIG.items():
        if session.conf.isModifiable(key):
            session.conf.set(key, value)
    return session


def _launch_gateway(master: str, conf: SparkConf) -> JavaGateway:
    """Start the driver JVM writing its output to an unlinked file; if it stops at once, the error holds its last lines."""
    from pyspark.errors import PySparkRuntimeError
    from pyspark.java_gateway import launch_gateway

    with tempfile.TemporaryFile() as log:
        try:
            return launch_gateway(conf, popen_kwargs={"stdout": log, "stderr": log})
        except PySparkRuntimeError as error:
            log.seek(0)
            said = log.read().decode(errors="replace").strip().splitlines()
            raise _cannot_start(master, " / ".join(said[-5:]) or str(error)) from error


def _size(path: Path) -> int:
    """The bytes of the release's files (a directory: its Parquet files)."""
    return sum(file.stat().st_size for file in parquet_files(path)) if path.is_dir() else path.stat().st_size


def _cannot_start(master: str, why: str) -> DataError:
    return DataError(f"cannot start Spark (master {master}, local memory {LOCAL_MEMORY}): {first_lines(why)}")


@contextmanager
def _quiet_pyspark() -> Iterator[None]:
    """PySpark's warning that it does not yet support this pandas: privcert hands Spark no pandas object."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        yield


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

    def _spelling(self, encoding: Encoding) -> str | None:
        return encoding.spark

    @property
    def _local(self) -> bool:
        return self.master.startswith("local")

    _skips_empty_lines = True

    @contextmanager
    def _open(self, path: Path, kind: str, header: list[str] | None, encoding: str) -> Iterator[Session]:
        from py4j.protocol import Py4JJavaError, Py4JNetworkError
        from pyspark.errors import PySparkException
        from pyspark.sql.types import StringType, StructField, StructType

        try:
            session = spark_session(self.master, quick=_size(path) < QUICK_BYTES)
        except (Py4JJavaError, PySparkException) as error:
            raise _cannot_start(self.master, str(error)) from error
        try:
            if kind == "csv":
                assert header is not None
                schema = StructType([StructField(name, StringType()) for name in header])
                frame = session.read.csv(str(path), schema=schema, header=True, enforceSchema=True, mode="FAILFAST",
                                         multiLine=True, encoding=encoding, nullValue="", quote='"', escape='"')
            else:
                frame = session.read.parquet(str(path))
            frame.createOrReplaceTempView(RELATION)
        except (Py4JJavaError, PySparkException) as error:
            raise EngineReadError(first_lines(str(error))) from error

        def run(statement: str) -> pa.Table:
            try:
                with _quiet_pyspark():
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
