"""A Spark standalone cluster on the loopback interface, from the pyspark distribution: a master and workers.

Each daemon is a JVM of its own, started with ``bin/spark-class`` (pip's pyspark ships it,
not the ``sbin`` scripts) in a process group of its own, so that stopping it stops the
executors it started too. Start-up is waited for by polling the master's state, never by
sleeping a fixed time: the master's JSON status page (``/json/`` at its web UI port) says
when it is ``ALIVE`` and how many workers have registered. Ports are chosen free by the
kernel, and the daemons are told not to move to another port when one was taken in the
meantime (``spark.port.maxRetries`` 0, so the URL given to the workers is the master's);
a daemon that could not bind its port is started again on new ports. Every wait is
bounded, and a failure quotes the daemons' logs.

Used by tests/verifier/engines/test_spark_cluster.py and by benchmarks/engines.py (``spark-cluster``).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cluster", "ClusterError", "standalone_cluster", "spark_home"]

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Reads the master's status page directly, whatever proxy the environment names."""

_PORT_TAKEN = ("Address already in use", "BindException", "could not bind on a random free port",
               "Failed to bind")
"""What a daemon's log says when the port it was given was taken before it bound it."""


class ClusterError(RuntimeError):
    """The cluster did not start (the message quotes the daemons' logs)."""


class _PortTaken(Exception):
    """A daemon could not bind the port it was given: start again on other ports."""


def spark_home() -> Path:
    """``SPARK_HOME``, or the pyspark package's folder (pip's pyspark is a Spark distribution)."""
    import pyspark

    return Path(os.environ.get("SPARK_HOME") or Path(pyspark.__file__).parent)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    """A running cluster: the master's URL and web UI, its daemons by name, their logs and the workers' folders."""

    url: str
    ui: str
    logs: Path
    work: tuple[Path, ...]
    daemons: dict[str, subprocess.Popen[bytes]]

    def state(self) -> dict[str, object]:
        """The master's state, from its JSON status page (empty while it does not answer)."""
        try:
            with _OPENER.open(f"{self.ui}/json/", timeout=5) as answer:
                found = json.load(answer)
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    def alive_workers(self, state: dict[str, object]) -> int:
        """How many workers ``state`` lists as alive."""
        listed = state.get("workers")
        return sum(isinstance(worker, dict) and worker.get("state") == "ALIVE"
                   for worker in (listed if isinstance(listed, list) else []))

    def said(self, tail: int = 3000) -> str:
        """The end of each daemon's log and of each executor's ``stderr``, for a failure message."""
        files = sorted(self.logs.glob("*.log")) + sorted(path for folder in self.work
                                                         for path in folder.glob("app-*/*/stderr"))
        return "\n".join(f"--- {path}:\n{path.read_text(errors='replace')[-tail:]}" for path in files)


@contextmanager
def standalone_cluster(folder: Path, *, workers: int = 2, cores: int = 1, memory: str = "1g",
                       start_seconds: float = 240, attempts: int = 3) -> Iterator[Cluster]:
    """A master and ``workers`` workers of ``cores`` cores and ``memory`` each, on 127.0.0.1, files under ``folder``.

    Yields once the master is alive and every worker has registered; always stops every
    daemon (and the executors they started) on leaving, even on failure.

    Raises
    ------
    ClusterError
        The cluster was not up within ``start_seconds`` (all attempts together), or a
        daemon stopped; the message quotes the logs.
    """
    deadline = time.monotonic() + start_seconds
    for attempt in range(1, attempts + 1):
        cluster = _start(folder / f"attempt-{attempt}", workers, cores, memory)
        try:
            _wait(cluster, workers, deadline, start_seconds)
        except _PortTaken:
            _stop(cluster.daemons.values())
            continue
        except BaseException:
            _stop(cluster.daemons.values())
            raise
        try:
            yield cluster
        finally:
            _stop(cluster.daemons.values())
        return
    raise ClusterError(f"the cluster's daemons could not bind free ports in {attempts} attempts:\n{cluster.said()}")


DAEMON_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The master's and workers' JVMs compile with C1 only and collect with one thread: they do little, and on two
cores their start-up competes with everything else for the CPUs."""


def _start(folder: Path, workers: int, cores: int, memory: str) -> Cluster:
    """Start the master and the workers (each in a process group of its own), with files under ``folder``."""
    home = spark_home()
    logs, work = folder / "logs", tuple(folder / f"worker{number}" for number in range(1, workers + 1))
    logs.mkdir(parents=True)
    properties = folder / "spark-defaults.conf"
    properties.write_text("spark.port.maxRetries 0\n")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_CONF_DIR": str(folder),
           "SPARK_DAEMON_JAVA_OPTS": DAEMON_JAVA_OPTIONS, "SPARK_DAEMON_MEMORY": "512m"}
    port, ui_port = _free_port(), _free_port()
    url = f"spark://127.0.0.1:{port}"
    commands = {"master": ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                           "--webui-port", str(ui_port), "--properties-file", str(properties)]}
    for directory in work:
        directory.mkdir()
        commands[directory.name] = ["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                                    "--cores", str(cores), "--memory", memory, "--webui-port", str(_free_port()),
                                    "--work-dir", str(directory), "--properties-file", str(properties)]
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for name, arguments in commands.items():
            with open(logs / f"{name}.log", "wb") as log:
                daemons[name] = subprocess.Popen([str(home / "bin" / "spark-class"), *arguments], stdout=log,
                                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                                                 start_new_session=True)
    except BaseException:
        _stop(daemons.values())
        raise
    return Cluster(url, f"http://127.0.0.1:{ui_port}", logs, work, daemons)


def _wait(cluster: Cluster, workers: int, deadline: float, start_seconds: float) -> None:
    """Poll the master's state until it is alive at ``cluster.url`` with ``workers`` workers registered."""
    while True:
        state = cluster.state()
        alive = cluster.alive_workers(state)
        here = str(state.get("url", "")).rpartition(":")[2] == cluster.url.rpartition(":")[2]  # its port, not another
        if state.get("status") == "ALIVE" and here and alive >= workers:
            return
        stopped = [name for name, process in cluster.daemons.items() if process.poll() is not None]
        if stopped:
            if any(sign in (cluster.logs / f"{name}.log").read_text(errors="replace")
                   for name in stopped for sign in _PORT_TAKEN):
                raise _PortTaken
            raise ClusterError(f"{', '.join(stopped)} stopped while the cluster started:\n{cluster.said()}")
        if time.monotonic() > deadline:
            raise ClusterError(f"the cluster was not up within {start_seconds:.0f} s (master {cluster.url}, "
                               f"{alive} of {workers} workers alive; its state: {state or 'no answer'}):\n"
                               f"{cluster.said()}")
        time.sleep(0.25)


def _stop(daemons: Iterable[subprocess.Popen[bytes]]) -> None:
    """Stop each daemon's process group (its executors with it): SIGTERM, then SIGKILL after 30 s."""
    daemons = list(daemons)
    for process in daemons:
        with suppress(ProcessLookupError):  # the group has exited already
            os.killpg(process.pid, signal.SIGTERM)
    for process in daemons:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        with suppress(ProcessLookupError):  # an executor left behind by a daemon that stopped
            os.killpg(process.pid, signal.SIGKILL)
