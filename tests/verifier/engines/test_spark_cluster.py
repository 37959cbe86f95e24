"""The Spark engine on a standalone cluster: a master and two workers, each a JVM of its own.

The other Spark tests run a ``local[2]`` session inside the test process; here the
command line's driver hands the group-bys to executors that two workers start, as on a
cluster of machines, all on the loopback interface. The cluster is started from the
pyspark distribution (``spark-class`` with Spark's ``Master`` and ``Worker``), is given
at most :data:`START_SECONDS` to have both workers registered, and is always stopped.

Six JVMs (master, two workers, the driver and an executor per worker) take 1-3 minutes
on two cores, so the test is slow: ``pytest -m slow tests/verifier/engines/test_spark_cluster.py``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

START_SECONDS = 240
"""The longest the master and both workers may take to start and register (a loaded 2-core machine)."""

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _spark_home() -> Path:
    import pyspark

    return Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)


def _alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=5) as answer:
            return int(json.load(answer)["aliveworkers"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.fixture
def standalone_cluster(tmp_path: Path) -> Iterator[tuple[str, list[Path]]]:
    """A standalone master and two one-core workers on 127.0.0.1: the master's URL and the workers' directories."""
    spark_class = str(_spark_home() / "bin" / "spark-class")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_HOME": str(_spark_home())}
    port, ui_port = _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    logs = tmp_path / "cluster-logs"
    logs.mkdir()
    work = [tmp_path / f"worker{i}" for i in (1, 2)]
    commands = [("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                            "--webui-port", str(ui_port)])]
    commands += [(directory.name, ["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1",
                                   "--memory", "1g", "--webui-port", str(_free_port()), "--work-dir", str(directory)])
                 for directory in work]
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, arguments in commands:
            with open(logs / f"{name}.log", "wb") as log:
                processes.append(subprocess.Popen([spark_class, *arguments], stdout=log, stderr=subprocess.STDOUT,
                                                  stdin=subprocess.DEVNULL, env=env, start_new_session=True))
        deadline = time.monotonic() + START_SECONDS
        while _alive_workers(ui_port) < 2:
            stopped = [name for (name, _), process in zip(commands, processes) if process.poll() is not None]
            if stopped or time.monotonic() > deadline:
                said = {name: (logs / f"{name}.log").read_text(errors="replace")[-2000:] for name, _ in commands}
                pytest.fail(f"the cluster did not start within {START_SECONDS} s (stopped: {stopped}): {said}")
            time.sleep(1)
        yield url, work
    finally:
        for process in processes:
            with suppress(ProcessLookupError):  # the group has exited already
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):  # the group has exited already
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


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
    return subprocess.run([sys.executable, "-m", "privcert", "measure", str(release), "--qi", "zip,age",
                           "--sensitive", "salary,disease", "--numerical", "salary", "--json", str(out), "--quiet",
                           *engine], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"}, cwd=out.parent)


def test_spark_on_a_standalone_cluster_measures_as_pandas_does(standalone_cluster: tuple[str, list[Path]],
                                                               tmp_path: Path) -> None:
    url, workers = standalone_cluster
    release = tmp_path / "release"
    _release(release)
    pandas = _measure(release, tmp_path / "pandas.json")
    assert pandas.returncode == 0, pandas.stderr
    spark = _measure(release, tmp_path / "spark.json", "--engine", "spark", "--master", url)
    assert spark.returncode == 0, spark.stderr
    assert spark.stderr == "", "--quiet: nothing from Spark's JVMs on the terminal"
    expected, found = (json.loads((tmp_path / name).read_text()) for name in ("pandas.json", "spark.json"))
    assert found["run"]["engine"] == "spark"
    for document in (expected, found):
        document.pop("run")
    assert found == expected
    assert [len(list(directory.glob("app-*/*"))) for directory in workers] == [1, 1], "an executor on each worker"
