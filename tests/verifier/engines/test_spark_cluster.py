"""The Spark engine on a standalone cluster: a master and two workers, each a JVM of its own.

The other Spark tests run a ``local[2]`` session inside the test process; here the
command line's driver hands the group-bys to executors that two workers start, as on a
cluster of machines, all on the loopback interface. The cluster (tests/_spark_cluster.py)
is started from the pyspark distribution, waited for by polling the master's state until
both workers have registered (at most :data:`START_SECONDS`), and always stopped, the
executors with it; every failure quotes the daemons' and executors' logs.

Six JVMs (master, two workers, the driver and an executor per worker) take about a
minute on two quiet cores and several on a loaded machine, so the test is not part of
the default run: CI runs it as a step of its own, ``pytest -m spark_cluster``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from _spark_cluster import Cluster, standalone_cluster

START_SECONDS = 240
"""The longest the master and both workers may take to start and register (a loaded 2-core machine)."""

MEASURE_SECONDS = 600
"""The longest one ``privcert measure`` may take (the Spark run at load 10 took about 2 minutes)."""

pytestmark = [pytest.mark.slow, pytest.mark.spark_cluster]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """A standalone master and two one-core workers on 127.0.0.1, stopped after the test."""
    with standalone_cluster(tmp_path / "cluster", workers=2, cores=1, memory="1g",
                            start_seconds=START_SECONDS) as running:
        yield running


def _release(folder: Path) -> None:
    """A Parquet folder of four files (four tasks to share between the executors): 4,000 rows, 2 QIs, 2 attributes."""
    generator = np.random.default_rng(35)
    folder.mkdir()
    for part in range(4):
        rows = 1_000
        pq.write_table(pa.table({
            "zip": pa.array(np.array(["47677", "47602", "47678", "47905", "47909"])[generator.integers(0, 5, rows)]),
            "age": pa.array(generator.integers(20, 30, rows)),
            "disease": pa.array(np.array(["flu", "gastritis", "colitis", "bronchitis"])[generator.integers(0, 4, rows)]),
            "salary": pa.array(generator.integers(3, 12, rows) * 1000),
        }), folder / f"part-{part}.parquet")


def _measure(release: Path, out: Path, *engine: str) -> subprocess.CompletedProcess[str]:
    """``privcert measure`` in a process group of its own, killed with its driver JVM if it outlasts
    :data:`MEASURE_SECONDS`."""
    command = [sys.executable, "-m", "privcert", "measure", str(release), "--qi", "zip,age",
               "--sensitive", "salary,disease", "--numerical", "salary", "--json", str(out), "--quiet", *engine]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}, cwd=out.parent,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=MEASURE_SECONDS)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        stderr += f"\n(killed after {MEASURE_SECONDS} s)"
    finally:
        with suppress(ProcessLookupError):  # the driver JVM, should it outlive its Python process
            os.killpg(process.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def test_spark_on_a_standalone_cluster_measures_as_pandas_does(cluster: Cluster, tmp_path: Path) -> None:
    release = tmp_path / "release"
    _release(release)
    pandas = _measure(release, tmp_path / "pandas.json")
    assert pandas.returncode == 0, pandas.stderr
    spark = _measure(release, tmp_path / "spark.json", "--engine", "spark", "--master", cluster.url)
    assert spark.returncode == 0, f"{spark.stderr}\n{cluster.said()}"
    assert spark.stderr == "", "--quiet: nothing from Spark's JVMs on the terminal"
    expected, found = (json.loads((tmp_path / name).read_text()) for name in ("pandas.json", "spark.json"))
    assert found["run"]["engine"] == "spark"
    for document in (expected, found):
        document.pop("run")
    assert found == expected
    executors = [len(list(directory.glob("app-*/*"))) for directory in cluster.work]
    assert all(executors), f"an executor on each worker, found {executors}:\n{cluster.said()}"
    assert cluster.alive_workers(cluster.state()) == 2, cluster.said()
