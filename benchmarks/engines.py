"""Whole-process ``privcert measure`` on each engine against a bare DuckDB and a bare pandas group-by.

The release is one Parquet file, written in row groups of 10^6 rows (never whole in
memory): five text quasi-identifiers (age band 16 values, sex 2, zip 25 written with a
leading zero, education 5, marital status 5: 20,000 classes, all occupied from 10^6 rows
on) and two sensitive attributes, ``disease`` (text, 20 values, skewed) and ``salary``
(64-bit integers, 2,000 values, declared numerical). ``--shape`` chooses among a family
of shapes (:func:`shape_columns`), from dense (class, value) cells to one per row:

* ``classes`` (the default): the release above, 20,000 classes, 40 million possible
  ``salary`` cells, nearly all occupied at 10^8 rows;
* ``sparse``: the age in single years (71 values) and 40 zips, 142,000 classes; at 10^7
  rows about 70 rows a class and about 9.8 million (class, ``salary``) cells, nearly one
  per row, too many for a dense table;
* ``sparse-int``: ``sparse`` with every quasi-identifier an integer;
* ``unique``: one quasi-identifier ``id`` unique on every row (run at 400,000 rows);
* ``tens``: two integer quasi-identifiers ``a``, ``b`` forming 10^6 classes of exactly 10
  rows each at 10^7 rows, in random order.

``--format csv`` writes and measures the same rows as CSV (the bare scripts read CSV).

Each command is a fresh process run under ``/usr/bin/time -v`` (wall seconds from a
Python timer around it; peak memory is the maximum resident set that ``time`` reports):

* ``duckdb-bare``: a script that runs ``SELECT qi..., S, COUNT(*) FROM read_parquet(...)
  GROUP BY ALL`` for each sensitive attribute with DuckDB's defaults and fetches each
  result as Arrow (the yardstick: the ratios are to it);
* ``pandas-bare``: a script that reads the file with ``pandas.read_parquet`` and runs
  ``groupby(qi + [S], observed=True, dropna=False, sort=False).size()`` for each;
* ``pandas``, ``duckdb``: ``privcert measure FILE --qi ... --sensitive disease,salary
  --numerical salary --engine E --json OUT --quiet``, every model on both attributes;
* ``pandas@before``, ``duckdb@before`` (and, when ``--only`` names it, ``duckdb-spill@before``)
  (with ``--before DIR``, an earlier checkout made
  with ``git archive <commit> | tar -x -C DIR``): the same command with ``DIR`` first on
  the import path; both versions' measurements must be identical.

Only with ``--only`` (each is an order of magnitude slower, or a variant of the DuckDB engine):

* ``spark``: ``--engine spark`` with Spark's ``local[*]`` master;
* ``spark-cluster``: ``--engine spark --master spark://127.0.0.1:PORT``, a standalone
  cluster on this machine (tests/_spark_cluster.py: a master and ``--workers`` one-core
  workers of 2 GiB, started before the rounds and stopped after them, not timed); the
  driver gets 4 GiB and a result size of 4 GiB (``PYSPARK_SUBMIT_ARGS``), as a local
  session does (the grouped rows come back to it);
* ``duckdb-spill``: the DuckDB engine made to count by its SQL group-bys
  (``PRIVCERT_DUCKDB_DENSE_CELLS=0``) under a memory limit (``--spill-limit``, 1GB by
  default, ``PRIVCERT_DUCKDB_MEMORY_LIMIT``), spilling to a folder under
  ``benchmarks/data/`` (``PRIVCERT_DUCKDB_TEMP_DIRECTORY``) whose size is sampled while it
  runs: the most bytes it held is the "spilled" column.

A Spark driver's JVM is a child of the Python process that does not wait for it, so
``time`` does not see it, and a cluster's executors are the workers' children: for the
Spark commands, CPU and peak memory come from sampling ``/proc`` every 0.25 s (the
command's session and, on the cluster, every process the workers start): the CPU seconds
of each process when last seen, summed, and the peak of the summed resident memory.

Each version's own modules are compiled to bytecode first, as installing the wheel does
(where ``PYTHONDONTWRITEBYTECODE`` is set, an editable checkout would otherwise compile
about 70 of them again in every run, a cost no installed user pays).

Runs are paired: round after round, every command runs once in turn, the order rotated by
one place each round, with a pause before each (``--pause``, 3 s by default), and each command's
ratio to ``duckdb-bare`` (and its wall time's to ``pandas-bare``, the yardstick of the
unique shape) is taken within its round, then the median over rounds. The
JSON's own timings say where ``measure`` spent its time (``count_tables``, the models,
the rest of the process: start-up, imports, writing the JSON).

The pause is for virtual machines that hand freed memory back to their host (a balloon
device's free page reporting, as on Firecracker): there, what a process pays for the
pages it touches depends on what the process before it freed and how long ago. Memory
freed a moment before is still backed and cheap to touch again, memory freed seconds
before has gone back to the host and costs a fault on the host too, and huge pages,
which need 2 MiB of contiguous free memory, draw mostly on the latter. With numpy's
huge pages (before the command line turned them off, privcert/memory.py), the DuckDB
engine took 1.8 s at 10^7 rows right after another ``measure`` and 3.5 to 3.9 s after a
4 s pause. The pause has every command start as a command run on its own would.

Run from the repository root::

    .venv/bin/python benchmarks/engines.py                       # 10^6 rows, 3 rounds
    .venv/bin/python benchmarks/engines.py --sizes 1e6,1e7       # 10^7 too (about 5 min on 2 cores)
    .venv/bin/python benchmarks/engines.py --shape unique --sizes 4e5
    .venv/bin/python benchmarks/engines.py --shape classes,sparse,sparse-int,tens --sizes 1e7 --only pandas,duckdb
    .venv/bin/python benchmarks/engines.py --shape sparse --format csv --sizes 1e7 --only pandas,duckdb
    .venv/bin/python benchmarks/engines.py --shape classes,sparse --sizes 1e8 --rounds 1 --only pandas,duckdb
    .venv/bin/python benchmarks/engines.py --before /tmp/privcert-before --sizes 1e7
    .venv/bin/python benchmarks/engines.py --sizes 1e8 --rounds 1 --only duckdb
    .venv/bin/python benchmarks/engines.py --sizes 1e7 --rounds 1 --only pandas,duckdb,spark,spark-cluster
    .venv/bin/python benchmarks/engines.py --sizes 1e8 --rounds 1 --only duckdb,duckdb-spill --spill-limit 1GB

Releases and results are kept in ``benchmarks/data/`` (git-ignored); the Markdown table is
printed at the end.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
SPILL = DATA / "spill"
OPTIONAL = ("spark", "spark-cluster", "duckdb-spill")
"""Commands run only when ``--only`` names them."""
GROUP = 1_000_000
QI = ("age", "sex", "zip", "education", "marital")
SENSITIVE = ("disease", "salary")
AGES = np.array([f"{15 + 5 * i}-{19 + 5 * i}" for i in range(16)])
ZIPS = np.array([f"0{2101 + i}" for i in range(25)])
EDUCATION = np.array(["none", "primary", "secondary", "bachelor", "master"])
MARITAL = np.array(["single", "married", "divorced", "widowed", "separated"])
DISEASES = np.array([f"disease-{i:02d}" for i in range(20)])
SALARY_VALUES = 2000


SHAPES = ("classes", "sparse", "sparse-int", "unique", "tens")
"""The family of release shapes, by how many classes and (class, value) cells they have (:func:`shape_columns`)."""
SPARSE_AGES = np.array([str(15 + i) for i in range(71)])
SPARSE_ZIPS = np.array([f"0{2101 + i}" for i in range(40)])
TENS_CLASSES = 1_000_000


def shape_columns(shape: str, start: int, size: int, generator: np.random.Generator,
                  classes: np.ndarray | None) -> dict[str, np.ndarray]:
    """The columns of rows ``start..start+size-1`` of ``shape`` (``classes`` gives each row's class for ``tens``).

    * ``classes``: five text QIs, 20,000 classes, ``salary``'s cells dense (40 million possible).
    * ``sparse``: five text QIs, 142,000 classes (age in single years), about one (class, salary) cell per row.
    * ``sparse-int``: ``sparse`` with the QIs written as integers.
    * ``unique``: one text QI ``id`` unique on every row.
    * ``tens``: two integer QIs, 10^6 classes of exactly 10 rows each (at 10^7 rows), rows in random order.
    """
    salary = 20_000 + 25 * generator.integers(0, SALARY_VALUES, size)
    disease = DISEASES[np.minimum(generator.geometric(0.2, size) - 1, DISEASES.size - 1)]
    if shape == "unique":
        return {"id": np.char.add("p", np.arange(start, start + size).astype(str)),
                "disease": DISEASES[generator.integers(0, DISEASES.size, size)], "salary": salary}
    if shape == "tens":
        assert classes is not None
        return {"a": classes // 1000, "b": classes % 1000, "disease": disease, "salary": salary}
    ages, zips = (AGES, ZIPS) if shape == "classes" else (SPARSE_AGES, SPARSE_ZIPS)
    codes = {"age": generator.integers(0, ages.size, size), "sex": generator.integers(0, 2, size),
             "zip": generator.integers(0, zips.size, size),
             "education": generator.integers(0, EDUCATION.size, size),
             "marital": generator.integers(0, MARITAL.size, size)}
    if shape == "sparse-int":
        return {**codes, "disease": disease, "salary": salary}
    return {"age": ages[codes["age"]], "sex": np.array(["F", "M"])[codes["sex"]], "zip": zips[codes["zip"]],
            "education": EDUCATION[codes["education"]], "marital": MARITAL[codes["marital"]],
            "disease": disease, "salary": salary}


def write_release(rows: int, shape: str, path: Path) -> None:
    """Write ``rows`` synthetic rows of ``shape`` (:data:`SHAPES`) to ``path`` (Parquet, or CSV for a ``.csv``
    path), a row group at a time."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    generator = np.random.default_rng(rows)
    classes = None
    if shape == "tens":  # each class exactly rows / 10^6 rows, in random order
        classes = generator.permutation(rows) % min(TENS_CLASSES, rows)
    writer: pq.ParquetWriter | pcsv.CSVWriter | None = None
    try:
        for start in range(0, rows, GROUP):
            size = min(GROUP, rows - start)
            table = pa.table(shape_columns(shape, start, size, generator,
                                           None if classes is None else classes[start:start + size]))
            if writer is None:
                writer = (pcsv.CSVWriter(path, table.schema) if path.name.endswith(".csv.partial")
                          else pq.ParquetWriter(path, table.schema))
            if isinstance(writer, pq.ParquetWriter):
                writer.write_table(table, row_group_size=GROUP)
            else:
                writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def release(rows: int, shape: str, file_format: str = "parquet") -> Path:
    """The release of ``rows`` rows of ``shape`` under benchmarks/data/ (``file_format`` parquet or csv), written
    once."""
    path = DATA / f"engines_{shape}_{rows}.{file_format}"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        write_release(rows, shape, partial)
        partial.rename(path)
    return path


def qi_of(shape: str) -> tuple[str, ...]:
    return {"unique": ("id",), "tens": ("a", "b")}.get(shape, QI)


def bare_duckdb(path: Path, qi: tuple[str, ...]) -> None:
    """The yardstick: DuckDB with its defaults, one ``GROUP BY ALL`` per sensitive attribute, fetched as Arrow."""
    import duckdb

    connection = duckdb.connect()
    names = ", ".join(qi)
    for attribute in SENSITIVE:
        result = connection.sql(f"SELECT {names}, {attribute}, COUNT(*) FROM '{path}' GROUP BY ALL")
        print(attribute, result.to_arrow_table().num_rows)


def bare_pandas(path: Path, qi: tuple[str, ...]) -> None:
    """pandas' own group-by of the loaded file, missing values kept, groups in order of appearance."""
    import pandas as pd

    frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
    for attribute in SENSITIVE:
        print(attribute, len(frame.groupby([*qi, attribute], observed=True, dropna=False, sort=False).size()))


Command = tuple[list[str], dict[str, str], Path]


def commands(path: Path, shape: str, before: Path | None, out: Path, master: str = "",
             spill_limit: str = "1GB") -> dict[str, Command]:
    """Every command of a round, by label: its argument list, environment and working directory
    (``master``: the standalone cluster's URL for ``spark-cluster``).

    ``python -m`` puts the working directory first on the import path, so each version
    runs from its own directory."""
    python = sys.executable
    base = dict(os.environ)
    found = {
        "duckdb-bare": ([python, __file__, "--bare", "duckdb", shape, str(path)], base, ROOT),
        "pandas-bare": ([python, __file__, "--bare", "pandas", shape, str(path)], base, ROOT),
    }
    variants = {"spark": ("spark", [], {}),
                "spark-cluster": ("spark", ["--master", master],
                                  {"PYSPARK_SUBMIT_ARGS": "--driver-memory 4g --conf spark.driver.maxResultSize=4g "
                                                          "--conf spark.executor.memory=2g pyspark-shell"}),
                "duckdb-spill": ("duckdb", [], {"PRIVCERT_DUCKDB_DENSE_CELLS": "0",
                                                "PRIVCERT_DUCKDB_MEMORY_LIMIT": spill_limit,
                                                "PRIVCERT_DUCKDB_TEMP_DIRECTORY": str(SPILL)})}
    for source, suffix in [(ROOT, ""), *([(before, "@before")] if before else [])]:
        for label in ("pandas", "duckdb", *(variants if not suffix else ("duckdb-spill",))):
            engine, extra, env = variants.get(label, (label, [], {}))
            found[label + suffix] = ([python, "-m", "privcert", "measure", str(path), "--qi", ",".join(qi_of(shape)),
                                      "--sensitive", ",".join(SENSITIVE), "--numerical", "salary", "--engine", engine,
                                      *extra, "--quiet", "--json", str(out / f"{label}{suffix}.json")],
                                     {**base, "PYTHONPATH": str(source), **env}, source)
    return found


PACKAGES = ("privcert", "verifier", "theory", "reports", "mechanisms")


def compile_sources(source: Path) -> None:
    """Compile a version's own modules to bytecode, as installing its wheel does: where the environment sets
    ``PYTHONDONTWRITEBYTECODE``, an editable checkout would otherwise compile them again in every run."""
    for package in PACKAGES:
        if not compileall.compile_dir(source / package, quiet=1):
            raise RuntimeError(f"{source / package}: a module does not compile")


CLOCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def processes(sessions: Collection[int], skip: Collection[int]) -> dict[int, tuple[float, int]]:
    """The CPU seconds and resident bytes of each process of ``sessions`` (session ids) but ``skip``, from /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            text = Path(entry.path, "stat").read_text()
        except OSError:  # it has exited
            continue
        fields = text[text.rindex(")") + 2:].split()  # from the 3rd field (state) on
        if int(fields[3]) in sessions:
            found[int(entry.name)] = ((int(fields[11]) + int(fields[12])) / CLOCK, int(fields[21]) * PAGE)
    return found


def folder_bytes(folder: Path) -> int:
    """The bytes the files under ``folder`` take on disk."""
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            with suppress(FileNotFoundError):  # DuckDB removes its files as it goes
                total += os.stat(os.path.join(root, name)).st_blocks * 512
    return total


class Watch(threading.Thread):
    """Samples, every 0.25 s until stopped, the processes of ``sessions`` (the CPU seconds each had when last
    seen, the peak of their summed resident memory) and the bytes under ``folder``."""

    def __init__(self, sessions: Collection[int], skip: Collection[int], folder: Path | None) -> None:
        super().__init__(daemon=True)
        self.sessions, self.skip, self.folder = set(sessions), set(skip), folder
        self.cpu: dict[int, float] = {}
        self.peak = self.folder_peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        while True:
            found = processes(self.sessions, self.skip)
            self.cpu.update({pid: cpu for pid, (cpu, _) in found.items()})
            self.peak = max(self.peak, sum(rss for _, rss in found.values()))
            if self.folder is not None:
                self.folder_peak = max(self.folder_peak, folder_bytes(self.folder))
            if self.done.wait(0.25):
                return


def run(command: list[str], env: dict[str, str], cwd: Path, sessions: Collection[int] | None = None,
        skip: Collection[int] = (), spill: Path | None = None) -> dict[str, float]:
    """One whole-process run under ``/usr/bin/time -v``: wall seconds (Python timer), CPU seconds, peak RSS bytes.

    With ``sessions`` (session ids, e.g. a cluster's workers), CPU and peak memory are the sampled ones of
    the command's session and those (:class:`Watch`), as ``tree_cpu`` and ``tree_peak`` beside ``time``'s;
    with ``spill``, ``spilled`` is the most bytes sampled under that folder."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        process = subprocess.Popen(["/usr/bin/time", "-v", "-o", report.name, *command], env=env, cwd=cwd,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        watch = None
        if sessions is not None or spill is not None:
            watch = Watch({process.pid, *(sessions or ())}, skip, spill)
            watch.start()
        _, stderr = process.communicate()
        wall = time.perf_counter() - started
        if watch is not None:
            watch.done.set()
            watch.join()
        text = report.read()
    if process.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}: {stderr[-2000:]}")

    def field(name: str) -> float:
        match = re.search(rf"{re.escape(name)}: ([\d.]+)", text)
        if match is None:
            raise RuntimeError(f"/usr/bin/time -v gave no {name!r}: {text}")
        return float(match.group(1))

    result = {"wall": wall, "cpu": field("User time (seconds)") + field("System time (seconds)"),
              "peak": field("Maximum resident set size (kbytes)") * 1024}
    if watch is not None and sessions is not None:
        result.update(tree_cpu=sum(watch.cpu.values()), tree_peak=float(watch.peak))
    if watch is not None and spill is not None:
        result["spilled"] = float(watch.folder_peak)
    return result


def profile(document: dict[str, object]) -> dict[str, float]:
    """Where ``measure`` spent its time, from the JSON: the count tables and the models."""
    timings = document["run"]["timings"]  # type: ignore[index]
    return {"count_tables": timings["count_tables"], "models": timings["total"] - timings["count_tables"]}


@contextmanager
def cluster(workers: int) -> Iterator[tuple[str, list[int]]]:
    """A standalone Spark cluster of ``workers`` one-core workers on this machine (tests/_spark_cluster.py):
    its URL and its daemons' process ids (each the id of a session of its own, the executors' too)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _spark_cluster import standalone_cluster

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spark-cluster-", dir=DATA) as folder:
        with standalone_cluster(Path(folder), workers=workers, cores=1, memory="2g") as running:
            print(f"standalone cluster {running.url} up in {time.perf_counter() - started:.1f} s", flush=True)
            yield running.url, [process.pid for process in running.daemons.values()]


def bench(rows: int, shape: str, rounds: int, before: Path | None, only: list[str] | None,
          pause: float, spill_limit: str = "1GB", workers: int = 2, yardstick: bool = True,
          file_format: str = "parquet") -> dict[str, object]:
    path = release(rows, shape, file_format)
    tag = shape if file_format == "parquet" else f"{shape}-{file_format}"
    out = DATA / f"engines_{tag}_{rows}_json"
    out.mkdir(exist_ok=True)
    wanted = [label for label in commands(path, shape, before, out)
              if (label == "duckdb-bare" and yardstick) or (label in only if only else label.removesuffix("@before") not in OPTIONAL)]
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in wanted}
    for source in (ROOT, *([before] if before else [])):
        compile_sources(source)
    with ExitStack() as stack:
        master, daemons = stack.enter_context(cluster(workers)) if "spark-cluster" in wanted else ("", [])
        plan = commands(path, shape, before, out, master, spill_limit)
        load_before = os.getloadavg()
        for round_number in range(rounds):
            shift = round_number % len(wanted)  # each command takes each place in the round in turn
            for label in wanted[shift:] + wanted[:shift]:
                command, env, cwd = plan[label]
                time.sleep(pause)
                watched: dict[str, object] = {}
                if label.startswith("spark"):
                    watched = {"sessions": daemons, "skip": daemons}
                if label == "duckdb-spill":
                    SPILL.mkdir(exist_ok=True)
                    watched["spill"] = SPILL
                result = run(command, env, cwd, **watched)  # type: ignore[arg-type]
                if "tree_cpu" in result:  # the JVMs: the driver's, unseen by time, and the executors
                    result.update(cpu=result["tree_cpu"], peak=max(result["peak"], result["tree_peak"]))
                json_file = out / f"{label}.json"
                if label not in ("duckdb-bare", "pandas-bare") and json_file.exists():
                    result.update(profile(json.loads(json_file.read_text())))
                runs[label].append(result)
                spilled = f" spilled {result['spilled'] / 2**30:.2f} GiB" if "spilled" in result else ""
                print(f"{rows:>12,} {tag} round {round_number + 1}: {label:<15} {result['wall']:7.2f} s "
                      f"{result['cpu']:7.2f} s CPU {result['peak'] / 2**30:5.2f} GiB{spilled}", flush=True)
    measured = {label: json.loads((out / f"{label}.json").read_text())["measurements"]
                for label in wanted if (out / f"{label}.json").exists()}
    for label, document in measured.items():
        if document != measured[next(iter(measured))]:
            raise SystemExit(f"{label} measured differently from {next(iter(measured))}")
    load = os.getloadavg()
    print(f"{rows:>12,} {tag}: load average (1, 5, 15 min) {load_before} before, {load} after, "
          f"on {os.cpu_count()} CPUs", flush=True)
    results = {"rows": rows, "shape": tag, "rounds": rounds, "pause": pause, "load_before": load_before[0],
               "load": load[0], "loads": [load_before, load], "runs": runs,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (DATA / f"engines_{tag}_{rows}.json").write_text(json.dumps(results, indent=2) + "\n")
    return results


def table(results: dict[str, object]) -> str:
    """The Markdown rows of one size: medians over rounds, ratios to ``duckdb-bare`` (and the wall
    time's to ``pandas-bare``, where it ran) taken round by round, and the 1-minute load average
    before and after the rounds (on a loaded machine the CPU ratio says more than the wall time's)."""
    runs: dict[str, list[dict[str, float]]] = results["runs"]  # type: ignore[assignment]

    def ratio(items: list[dict[str, float]], to: str, key: str) -> str:
        if to not in runs:
            return ""
        return f"{statistics.median(r[key] / y[key] for r, y in zip(items, runs[to], strict=True)):.2f}"

    def spilled(items: list[dict[str, float]]) -> str:
        return f"{statistics.median(r['spilled'] for r in items) / 2**30:.2f} GiB" if "spilled" in items[0] else ""

    lines = []
    before = results.get("load_before")
    load = (f"{before:.1f} → " if isinstance(before, float) else "") + f"{results['load']:.1f}"
    for label, items in runs.items():
        split = ""
        if "count_tables" in items[0]:
            split = (f"{statistics.median(r['count_tables'] for r in items):.2f} / "
                     f"{statistics.median(r['models'] for r in items):.2f}")
        lines.append(f"| {results.get('shape', 'classes')} | {results['rows']:,} | {label} | {statistics.median(r['wall'] for r in items):.2f} | "
                     f"{statistics.median(r['cpu'] for r in items):.2f} | "
                     f"{statistics.median(r['peak'] for r in items) / 2**30:.2f} GiB | "
                     f"{ratio(items, 'duckdb-bare', 'wall')} | {ratio(items, 'duckdb-bare', 'cpu')} | "
                     f"{ratio(items, 'duckdb-bare', 'peak')} | "
                     f"{ratio(items, 'pandas-bare', 'wall')} | {split} | {spilled(items)} | {load} |")
    return "\n".join(lines)


HEADER = ("| shape | rows | command | wall (s) | CPU (s) | peak memory | time ÷ bare DuckDB | CPU ÷ bare DuckDB "
          "| memory ÷ bare DuckDB | time ÷ bare pandas | count tables / models (s) | spilled | load average |\n"
          "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bare", nargs=3, metavar=("TOOL", "SHAPE", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="1e6", help="row counts, comma-separated (default 1e6)")
    parser.add_argument("--shape", default="classes",
                        help=f"shapes of release, comma-separated, among {', '.join(SHAPES)} (default classes)")
    parser.add_argument("--format", default="parquet", help="file formats, comma-separated: parquet, csv")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds (default 3)")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds to wait before each command (default 3)")
    parser.add_argument("--before", type=Path, help="an earlier checkout: also run its privcert measure")
    parser.add_argument("--only", help="commands to run besides duckdb-bare, comma-separated (e.g. duckdb,pandas)")
    parser.add_argument("--spill-limit", default="1GB", help="DuckDB's memory limit for duckdb-spill (default 1GB)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the spark-cluster (default 2)")
    parser.add_argument("--no-yardstick", action="store_true",
                        help="leave out duckdb-bare (e.g. at 10^8 rows, where it takes minutes and 7 GiB)")
    parser.add_argument("--render", action="store_true", help="print the table of every saved run")
    args = parser.parse_args()
    if args.bare:
        tool, shape, path = args.bare
        (bare_duckdb if tool == "duckdb" else bare_pandas)(Path(path), qi_of(shape))
        return
    if args.render:
        saved = sorted(DATA.glob("engines_*_*.json"), key=lambda p: (p.stem.split("_")[1], int(p.stem.split("_")[2])))
        print(HEADER)
        for file in saved:
            print(table(json.loads(file.read_text())))
        return
    shapes, formats = args.shape.split(","), args.format.split(",")
    if not set(shapes) <= set(SHAPES) or not set(formats) <= {"parquet", "csv"}:
        parser.error(f"--shape takes {', '.join(SHAPES)}; --format parquet, csv")
    rendered = [table(bench(int(float(size)), shape, args.rounds, args.before and args.before.resolve(),
                            args.only.split(",") if args.only else None, args.pause, args.spill_limit,
                            args.workers, not args.no_yardstick, file_format))
                for shape in shapes for file_format in formats for size in args.sizes.split(",")]
    print(HEADER)
    print("\n".join(rendered))


if __name__ == "__main__":
    main()
