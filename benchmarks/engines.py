"""Whole-process ``privcert measure`` on each engine against a bare DuckDB and a bare pandas group-by.

The release is one Parquet file, written in row groups of 10^6 rows (never whole in
memory): five text quasi-identifiers (age band 16 values, sex 2, zip 25 written with a
leading zero, education 5, marital status 5: 20,000 classes, all occupied from 10^6 rows
on) and two sensitive attributes, ``disease`` (text, 20 values, skewed) and ``salary``
(64-bit integers, 2,000 values, declared numerical). The unique-heavy shape
(``--shape unique``) has one quasi-identifier ``id`` unique on every row (400,000 rows
by default) and the same ``salary``.

Each command is a fresh process run under ``/usr/bin/time -v`` (wall seconds from a
Python timer around it; peak memory is the maximum resident set that ``time`` reports):

* ``duckdb-bare``: a script that runs ``SELECT qi..., S, COUNT(*) FROM read_parquet(...)
  GROUP BY ALL`` for each sensitive attribute with DuckDB's defaults and fetches each
  result as Arrow (the yardstick: the ratios are to it);
* ``pandas-bare``: a script that reads the file with ``pandas.read_parquet`` and runs
  ``groupby(qi + [S], observed=True, dropna=False, sort=False).size()`` for each;
* ``pandas``, ``duckdb``: ``privcert measure FILE --qi ... --sensitive disease,salary
  --numerical salary --engine E --json OUT --quiet``, every model on both attributes;
* ``pandas@before``, ``duckdb@before`` (with ``--before DIR``, an earlier checkout made
  with ``git archive <commit> | tar -x -C DIR``): the same command with ``DIR`` first on
  the import path; both versions' measurements must be identical.

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
    .venv/bin/python benchmarks/engines.py --before /tmp/privcert-before --sizes 1e7
    .venv/bin/python benchmarks/engines.py --sizes 1e8 --rounds 1 --only duckdb

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
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
GROUP = 1_000_000
QI = ("age", "sex", "zip", "education", "marital")
SENSITIVE = ("disease", "salary")
AGES = np.array([f"{15 + 5 * i}-{19 + 5 * i}" for i in range(16)])
ZIPS = np.array([f"0{2101 + i}" for i in range(25)])
EDUCATION = np.array(["none", "primary", "secondary", "bachelor", "master"])
MARITAL = np.array(["single", "married", "divorced", "widowed", "separated"])
DISEASES = np.array([f"disease-{i:02d}" for i in range(20)])
SALARY_VALUES = 2000


def write_release(rows: int, shape: str, path: Path) -> None:
    """Write ``rows`` synthetic rows of ``shape`` (``classes`` or ``unique``) to ``path``, a row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    generator = np.random.default_rng(rows)
    writer = None
    try:
        for start in range(0, rows, GROUP):
            size = min(GROUP, rows - start)
            salary = 20_000 + 25 * generator.integers(0, SALARY_VALUES, size)
            if shape == "unique":
                columns = {"id": np.char.add("p", np.arange(start, start + size).astype(str)),
                           "disease": DISEASES[generator.integers(0, DISEASES.size, size)], "salary": salary}
            else:
                columns = {
                    "age": AGES[generator.integers(0, AGES.size, size)],
                    "sex": np.where(generator.random(size) < 0.5, "F", "M"),
                    "zip": ZIPS[generator.integers(0, ZIPS.size, size)],
                    "education": EDUCATION[generator.integers(0, EDUCATION.size, size)],
                    "marital": MARITAL[generator.integers(0, MARITAL.size, size)],
                    "disease": DISEASES[np.minimum(generator.geometric(0.2, size) - 1, DISEASES.size - 1)],
                    "salary": salary,
                }
            table = pa.table(columns)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=GROUP)
    finally:
        if writer is not None:
            writer.close()


def release(rows: int, shape: str) -> Path:
    """The release of ``rows`` rows of ``shape`` under benchmarks/data/, written once."""
    path = DATA / f"engines_{shape}_{rows}.parquet"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        write_release(rows, shape, partial)
        partial.rename(path)
    return path


def qi_of(shape: str) -> tuple[str, ...]:
    return ("id",) if shape == "unique" else QI


def bare_duckdb(path: Path, qi: tuple[str, ...]) -> None:
    """The yardstick: DuckDB with its defaults, one ``GROUP BY ALL`` per sensitive attribute, fetched as Arrow."""
    import duckdb

    connection = duckdb.connect()
    names = ", ".join(qi)
    for attribute in SENSITIVE:
        result = connection.sql(f"SELECT {names}, {attribute}, COUNT(*) FROM read_parquet('{path}') GROUP BY ALL")
        print(attribute, result.to_arrow_table().num_rows)


def bare_pandas(path: Path, qi: tuple[str, ...]) -> None:
    """pandas' own group-by of the loaded file, missing values kept, groups in order of appearance."""
    import pandas as pd

    frame = pd.read_parquet(path)
    for attribute in SENSITIVE:
        print(attribute, len(frame.groupby([*qi, attribute], observed=True, dropna=False, sort=False).size()))


Command = tuple[list[str], dict[str, str], Path]


def commands(path: Path, shape: str, before: Path | None, out: Path) -> dict[str, Command]:
    """Every command of a round, by label: its argument list, environment and working directory.

    ``python -m`` puts the working directory first on the import path, so each version
    runs from its own directory."""
    python = sys.executable
    base = dict(os.environ)
    found = {
        "duckdb-bare": ([python, __file__, "--bare", "duckdb", shape, str(path)], base, ROOT),
        "pandas-bare": ([python, __file__, "--bare", "pandas", shape, str(path)], base, ROOT),
    }
    for source, suffix in [(ROOT, ""), *([(before, "@before")] if before else [])]:
        for engine in ("pandas", "duckdb", *(("spark",) if not suffix else ())):
            label = engine + suffix
            found[label] = ([python, "-m", "privcert", "measure", str(path), "--qi", ",".join(qi_of(shape)),
                             "--sensitive", ",".join(SENSITIVE), "--numerical", "salary", "--engine", engine,
                             "--quiet", "--json", str(out / f"{label}.json")],
                            {**base, "PYTHONPATH": str(source)}, source)
    return found


PACKAGES = ("privcert", "verifier", "theory", "reports", "mechanisms")


def compile_sources(source: Path) -> None:
    """Compile a version's own modules to bytecode, as installing its wheel does: where the environment sets
    ``PYTHONDONTWRITEBYTECODE``, an editable checkout would otherwise compile them again in every run."""
    for package in PACKAGES:
        if not compileall.compile_dir(source / package, quiet=1):
            raise RuntimeError(f"{source / package}: a module does not compile")


def run(command: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """One whole-process run under ``/usr/bin/time -v``: wall seconds (Python timer), CPU seconds, peak RSS bytes."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-v", "-o", report.name, *command], env=env, cwd=cwd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - started
        text = report.read()
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")

    def field(name: str) -> float:
        match = re.search(rf"{re.escape(name)}: ([\d.]+)", text)
        if match is None:
            raise RuntimeError(f"/usr/bin/time -v gave no {name!r}: {text}")
        return float(match.group(1))

    return {"wall": wall, "cpu": field("User time (seconds)") + field("System time (seconds)"),
            "peak": field("Maximum resident set size (kbytes)") * 1024}


def profile(document: dict[str, object]) -> dict[str, float]:
    """Where ``measure`` spent its time, from the JSON: the count tables and the models."""
    timings = document["run"]["timings"]  # type: ignore[index]
    return {"count_tables": timings["count_tables"], "models": timings["total"] - timings["count_tables"]}


def bench(rows: int, shape: str, rounds: int, before: Path | None, only: list[str] | None,
          pause: float) -> dict[str, object]:
    path = release(rows, shape)
    out = DATA / f"engines_{shape}_{rows}_json"
    out.mkdir(exist_ok=True)
    plan = commands(path, shape, before, out)
    plan = {label: plan[label] for label in plan
            if label == "duckdb-bare" or (label in only if only else label != "spark")}
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in plan}
    labels = list(plan)
    for source in (ROOT, *([before] if before else [])):
        compile_sources(source)
    load_before = os.getloadavg()[0]
    for round_number in range(rounds):
        shift = round_number % len(labels)  # each command takes each place in the round in turn
        for label in labels[shift:] + labels[:shift]:
            command, env, cwd = plan[label]
            time.sleep(pause)
            result = run(command, env, cwd)
            json_file = out / f"{label}.json"
            if label not in ("duckdb-bare", "pandas-bare") and json_file.exists():
                result.update(profile(json.loads(json_file.read_text())))
            runs[label].append(result)
            print(f"{rows:>12,} {shape} round {round_number + 1}: {label:<15} {result['wall']:7.2f} s "
                  f"{result['peak'] / 2**30:5.2f} GiB", flush=True)
    measured = {label: json.loads((out / f"{label}.json").read_text())["measurements"]
                for label in plan if (out / f"{label}.json").exists()}
    for label, document in measured.items():
        if document != measured[next(iter(measured))]:
            raise SystemExit(f"{label} measured differently from {next(iter(measured))}")
    load = os.getloadavg()[0]
    print(f"{rows:>12,} {shape}: 1-minute load average {load_before:.2f} before, {load:.2f} after, "
          f"on {os.cpu_count()} CPUs", flush=True)
    results = {"rows": rows, "shape": shape, "rounds": rounds, "pause": pause, "load_before": load_before,
               "load": load, "runs": runs,
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (DATA / f"engines_{shape}_{rows}.json").write_text(json.dumps(results, indent=2) + "\n")
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

    lines = []
    before = results.get("load_before")
    load = (f"{before:.1f} → " if isinstance(before, float) else "") + f"{results['load']:.1f}"
    for label, items in runs.items():
        split = ""
        if "count_tables" in items[0]:
            split = (f"{statistics.median(r['count_tables'] for r in items):.2f} / "
                     f"{statistics.median(r['models'] for r in items):.2f}")
        lines.append(f"| {results['rows']:,} | {label} | {statistics.median(r['wall'] for r in items):.2f} | "
                     f"{statistics.median(r['cpu'] for r in items):.2f} | "
                     f"{statistics.median(r['peak'] for r in items) / 2**30:.2f} GiB | "
                     f"{ratio(items, 'duckdb-bare', 'wall')} | {ratio(items, 'duckdb-bare', 'cpu')} | "
                     f"{ratio(items, 'duckdb-bare', 'peak')} | "
                     f"{ratio(items, 'pandas-bare', 'wall')} | {split} | {load} |")
    return "\n".join(lines)


HEADER = ("| rows | command | wall (s) | CPU (s) | peak memory | time ÷ bare DuckDB | CPU ÷ bare DuckDB "
          "| memory ÷ bare DuckDB | time ÷ bare pandas | count tables / models (s) | load average |\n"
          "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bare", nargs=3, metavar=("TOOL", "SHAPE", "PATH"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="1e6", help="row counts, comma-separated (default 1e6)")
    parser.add_argument("--shape", choices=("classes", "unique"), default="classes",
                        help="20,000 classes over five text QIs (default) or one unique QI")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds (default 3)")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds to wait before each command (default 3)")
    parser.add_argument("--before", type=Path, help="an earlier checkout: also run its privcert measure")
    parser.add_argument("--only", help="commands to run besides duckdb-bare, comma-separated (e.g. duckdb,pandas)")
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
    rendered = [table(bench(int(float(size)), args.shape, args.rounds, args.before and args.before.resolve(),
                            args.only.split(",") if args.only else None, args.pause))
                for size in args.sizes.split(",")]
    print(HEADER)
    print("\n".join(rendered))


if __name__ == "__main__":
    main()
