"""The engines' tests share one local Spark session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from verifier.engines.spark_engine import SparkEngine, spark_session


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkEngine]:
    """One local Spark (2 cores, loopback, no UI, 2 shuffle partitions) for the whole test session."""
    session = spark_session("local[2]", **{"spark.driver.host": "127.0.0.1", "spark.ui.enabled": "false",
                                            "spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"})
    yield SparkEngine("local[2]")
    session.stop()
