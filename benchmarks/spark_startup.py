"""Where the start-up of ``--engine spark`` goes: one process's phases, timed, beside the whole command.

Each round runs fresh processes in turn, with a pause before each (``--pause``):

* ``java -version``: a bare JVM's start;
* ``phases`` (one per ``--variant``): this script in a fresh Python process (``--phases``)
  that counts examples/table4 (9 rows, CSV) with the Spark engine as ``measure`` does and
  notes the seconds of each phase from its first line: privcert's engine imported (with
  pyarrow, numpy, pandas), pyspark imported, the driver JVM started (``spark-submit``
  runs Spark's launcher in a JVM of its own, then the driver's JVM, until its gateway
  answers), the SparkContext and SparkSession created, the release read and registered
  with its schema, each aggregation (a Spark job each), the count tables; then it stops
  the session and waits for the JVM to exit, so that the process's CPU (``wait4``)
  includes the JVM's. Python's own start is the process's wall time less the phases;
* ``measure --engine pandas`` and ``measure --engine spark``: the whole command as users
  run it (CPU and peak memory sampled over the process's session, the driver JVM's
  included: benchmarks/engines.py's ``run``).

A variant gives the phases' session other settings, ``NAME=KEY=VALUE[;KEY=VALUE...]``, to time
what one costs: ``c2=quick=false`` (the driver JVM with its optimizing compiler, C2, whatever
the release's size: :data:`verifier.engines.spark_engine.QUICK_BYTES`),
``before=quick=false;spark.ui.enabled=true`` (also Spark's web UI on, as before both
changes), ``java:OPTIONS`` (the driver JVM's options, in place of privcert's).

Run from the repository root::

    .venv/bin/python benchmarks/spark_startup.py --rounds 2 --variant c2=quick=false \
        --variant "before=quick=false;spark.ui.enabled=true"
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from engines import ROOT, run

TABLE4 = ROOT / "examples" / "table4" / "release.csv"
MEASURE = ["measure", str(TABLE4), "--qi", "zip,age", "--sensitive", "salary,disease", "--numerical", "salary",
           "--quiet"]


def phases(master: str, settings: dict[str, str]) -> list[tuple[str, float]]:
    """Count examples/table4 with the Spark engine, noting when each phase ends (seconds from the start)."""
    started = time.perf_counter()
    marks: list[tuple[str, float]] = []

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter() - started))

    import verifier.engines.spark_engine as spark_engine
    from verifier.tables.counts import AttributeSpec

    mark("privcert's engine imported (pyarrow, numpy, pandas)")
    import pyspark.sql  # noqa: F401 (timed)
    from pyspark import SparkContext

    mark("pyspark imported")
    launch = spark_engine._launch_gateway

    def timed_launch(*arguments: object) -> object:
        gateway = launch(*arguments)  # type: ignore[arg-type]
        mark("driver JVM started (launcher JVM, driver JVM, gateway)")
        return gateway

    spark_engine._launch_gateway = timed_launch  # type: ignore[assignment]
    start_session = spark_engine.spark_session

    def timed_session(master: str, *, quick: bool = False, **config: str) -> object:
        chosen = {key: value for key, value in settings.items() if key not in ("java", "quick")}
        if "java" in settings:
            chosen["spark.driver.extraJavaOptions"] = (f"-Dlog4j2.configurationFile={spark_engine.LOG4J2.as_uri()} "
                                                       f"{settings['java']}")
        session = start_session(master, quick=settings.get("quick", str(quick)).lower() == "true",
                                **{**config, **chosen})
        mark("SparkContext and SparkSession created")
        return session

    spark_engine.spark_session = timed_session  # type: ignore[assignment]

    def phase(name: str, done: int, total: int | None, unit: str) -> None:
        mark("release read and registered, schema" if name == "scan" and done == 0
             else f"aggregation {done if name == 'scan' else total} (a Spark job)")

    attributes = [AttributeSpec(("salary",), "numerical"), AttributeSpec(("disease",))]
    spark_engine.SparkEngine(master).count_tables(TABLE4, ["zip", "age"], attributes, source=str(TABLE4),
                                                  phase=phase)
    mark("count tables built")
    process = SparkContext._gateway.proc  # type: ignore[union-attr]
    SparkContext._active_spark_context.stop()  # type: ignore[union-attr]
    process.stdin.close()  # the gateway exits when its standard input closes
    process.wait()
    mark("session stopped, JVM exited")
    return marks


def children_cpu() -> float:
    """CPU seconds of this process's children that have been waited for (their own waited children included)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phases", metavar="SETTINGS", help=argparse.SUPPRESS)
    parser.add_argument("--master", default="local[*]", help="Spark's master (default local[*])")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds to wait before each process (default 3)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=KEY=VALUE[;KEY=VALUE]",
                        help="a variant of the session's settings for the phases (repeatable)")
    args = parser.parse_args()
    if args.phases is not None:
        print(json.dumps(phases(args.master, json.loads(args.phases))))
        return
    variants: dict[str, dict[str, str]] = {"privcert": {}}
    for text in args.variant:
        name, _, settings = text.partition("=")
        variants[name] = dict(setting.split("=", 1) if not setting.startswith("java:") else ("java", setting[5:])
                              for setting in settings.split(";"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: dict[str, list[dict[str, object]]] = {}
    load_before = os.getloadavg()
    for round_number in range(args.rounds):
        for label, command in [("java -version", ["java", "-version"]),
                               *((f"phases ({name})", [sys.executable, __file__, "--phases", json.dumps(settings),
                                                       "--master", args.master])
                                 for name, settings in variants.items()),
                               ("measure --engine pandas", [sys.executable, "-m", "privcert", *MEASURE]),
                               ("measure --engine spark", [sys.executable, "-m", "privcert", *MEASURE, "--engine",
                                                           "spark", "--master", args.master])]:
            time.sleep(args.pause)
            if label.startswith("phases"):
                started, cpu = time.perf_counter(), children_cpu()
                done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
                wall, cpu = time.perf_counter() - started, children_cpu() - cpu
                marks = json.loads(done.stdout.strip().splitlines()[-1])
                result: dict[str, object] = {"wall": wall, "cpu": cpu, "marks": marks}
                print(f"round {round_number + 1}: {label}: {wall:.1f} s, {cpu:.1f} s CPU; " + "; ".join(
                    f"{name} {end - (marks[i - 1][1] if i else 0):.2f} s" for i, (name, end) in enumerate(marks)),
                    flush=True)
            else:
                measured = run(command, env, ROOT, sessions=[])
                tree = "spark" in label  # the driver JVM, which time does not see
                result = {"wall": measured["wall"], "cpu": measured["tree_cpu" if tree else "cpu"],
                          "peak": measured["tree_peak" if tree else "peak"]}
                print(f"round {round_number + 1}: {label}: {result['wall']:.2f} s, {result['cpu']:.2f} s "
                      f"CPU, {result['peak'] / 2**30:.2f} GiB", flush=True)
            results.setdefault(label, []).append(result)
    load = os.getloadavg()
    print(f"load average (1, 5, 15 min): {load_before} before, {load} after, on {os.cpu_count()} CPUs")
    print("\n| what | wall (s), median | CPU (s), median | runs: wall (s) |\n|---|---:|---:|---|")
    for label, items in results.items():
        walls = [float(item["wall"]) for item in items]  # type: ignore[arg-type]
        cpu = statistics.median(float(item["cpu"]) for item in items) if "cpu" in items[0] else None  # type: ignore[arg-type]
        print(f"| {label} | {statistics.median(walls):.2f} | {'' if cpu is None else f'{cpu:.2f}'} | "
              f"{', '.join(f'{wall:.2f}' for wall in walls)} |")
        if label.startswith("phases"):
            for i, (name, _) in enumerate(items[0]["marks"]):  # type: ignore[arg-type]
                spans = [item["marks"][i][1] - (item["marks"][i - 1][1] if i else 0)  # type: ignore[index]
                         for item in items]
                print(f"| … {name} | {statistics.median(spans):.2f} | | {', '.join(f'{span:.2f}' for span in spans)} |")


if __name__ == "__main__":
    main()
