"""Throughput and peak memory of the engines that build the count tables (verifier/engines).

A synthetic release is written as Hive-partitioned Parquet in chunks (never whole in
memory): quasi-identifiers region (the partition column, 8 values), age (73 values), zip
(100 values) and sex (2 values), about 117,000 classes; sensitive attributes disease
(categorical, 20 values) and salary (numerical, 50 values). Each engine audits it against
a policy (k-anonymity, distinct l-diversity on disease, ordered t-closeness on salary,
and every other measure, since an audit measures everything once); the floor is one bare
DuckDB ``GROUP BY`` of the same six columns with ``COUNT(*)``, fetched as Arrow.

Every run is a fresh subprocess; its peak memory is the larger of its maximum resident set
size (``os.wait4``) and the peak of the summed resident set of its process tree sampled
every 50 ms (Spark's JVM is a grandchild that is not waited for).

Run from the repository root::

    .venv/bin/python benchmarks/engines.py                 # 10^6 and 10^7 rows
    .venv/bin/python benchmarks/engines.py --huge          # also 10^8 rows (duckdb and the floor)

Results are saved in ``benchmarks/data/engines_<rows>.json`` and rendered into
``benchmarks/RESULTS.md`` (section "Engines") with ``--render``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
CHUNK = 2_000_000
REGIONS = np.array(["north", "south", "east", "west", "centre", "coast", "hills", "islands"])
DISEASES = np.array([f"disease-{i:02d}" for i in range(20)])
POLICY = """[data]
qi = ["region", "age", "zip", "sex"]

[sensitive.disease]

[sensitive.salary]
kind = "numerical"

[[require]]
model = "k_anonymity"
threshold = 5

[[require]]
model = "distinct_l_diversity"
attribute = "disease"
threshold = 3

[[require]]
model = "t_closeness"
attribute = "salary"
threshold = 0.2
"""
FLOOR = ("SELECT region, age, zip, sex, disease, salary, COUNT(*) AS n FROM read_parquet({files}, "
         "hive_partitioning = true, hive_types_autocast = false) GROUP BY region, age, zip, sex, disease, salary")


def write_release(rows: int, root: Path) -> None:
    """Write ``rows`` synthetic rows under ``root`` as Parquet partitioned by region, ``CHUNK`` rows at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    generator = np.random.default_rng(rows)
    for number, start in enumerate(range(0, rows, CHUNK)):
        size = min(CHUNK, rows - start)
        age = generator.integers(18, 91, size)
        table = pa.table({
            "region": REGIONS[generator.integers(0, REGIONS.size, size)],
            "age": age,
            "zip": np.char.add("0", (2100 + generator.integers(0, 100, size)).astype(str)),
            "sex": np.where(generator.random(size) < 0.5, "F", "M"),
            "disease": DISEASES[np.minimum(generator.geometric(0.2, size) - 1, DISEASES.size - 1)],
            "salary": 1000 * np.clip((age - 18) // 2 + generator.integers(-5, 6, size), 0, 49),
        })
        pq.write_to_dataset(table, root, partition_cols=["region"], basename_template=f"chunk{number:04d}-{{i}}.parquet")


def _release(rows: int) -> Path:
    root = DATA / f"engines_{rows}"
    if not (root / ".complete").exists():
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        write_release(rows, root)
        (root / ".complete").write_text(f"{time.perf_counter() - started:.1f}\n")
    return root


def run_one(kind: str, path: Path, policy: Path) -> dict[str, float]:
    """Run one audit (``kind`` = an engine) or the floor in this process; return its wall time."""
    started = time.perf_counter()
    if kind == "floor":
        import duckdb

        from verifier.load import parquet_files

        files = "[" + ", ".join(f"'{file}'" for file in parquet_files(path)) + "]"
        connection = duckdb.connect(config={"memory_limit": "2GB", "preserve_insertion_order": False})
        groups = connection.sql(FLOOR.format(files=files)).to_arrow_table().num_rows
        return {"seconds": time.perf_counter() - started, "groups": groups}
    from verifier.audit import audit
    from verifier.engines import get_engine
    from verifier.policy import load_policy

    result = audit(path, load_policy(policy), engine=get_engine(kind), progress=False)
    return {"seconds": time.perf_counter() - started, "classes": result.report.classes, "rows": result.report.rows,
            "passed": result.passed}


def _tree_rss(pid: int) -> int:
    """Summed resident set (bytes) of ``pid`` and its descendants, from /proc."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                stack += [int(child) for child in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def measure_run(kind: str, path: Path, policy: Path) -> dict[str, float]:
    """Run ``kind`` in a fresh subprocess; add its peak memory (bytes) to what it reports."""
    child = subprocess.Popen([sys.executable, __file__, "--run-one", kind, str(path), str(policy)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(child.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    done.set()
    sampler.join()
    if status != 0:
        raise RuntimeError(f"{kind} on {path} failed with status {status}")
    result = json.loads(output.strip().splitlines()[-1])
    result["peak_bytes"] = max(usage.ru_maxrss * 1024, peak[0])
    return result


def bench(rows: int, engines: list[str]) -> dict[str, object]:
    path = _release(rows)
    policy = DATA / "engines_policy.toml"
    policy.write_text(POLICY)
    results: dict[str, object] = {"rows": rows, "written_seconds": float((path / ".complete").read_text())}
    for kind in ["floor", *engines]:
        print(f"{rows:>12,} rows: {kind} ...", flush=True)
        result = measure_run(kind, path, policy)
        result["rows_per_second"] = rows / result["seconds"]
        results[kind] = result
        print(f"{'':>18}{result['seconds']:.1f} s, {result['rows_per_second']:,.0f} rows/s, "
              f"peak {result['peak_bytes'] / 2**30:.2f} GiB", flush=True)
    (DATA / f"engines_{rows}.json").write_text(json.dumps(results, indent=2) + "\n")
    return results


def render() -> str:
    """The Markdown table of every saved size."""
    lines = ["| rows | engine | seconds | rows/s | ratio to the floor | peak memory |",
             "|---:|---|---:|---:|---:|---:|"]
    for saved in sorted(DATA.glob("engines_*.json"), key=lambda p: int(p.stem.split("_")[1])):
        results = json.loads(saved.read_text())
        floor = results["floor"]["seconds"]
        for kind in ("floor", "pandas", "duckdb", "spark"):
            if kind in results:
                r = results[kind]
                label = "bare DuckDB GROUP BY (floor)" if kind == "floor" else kind
                lines.append(f"| {results['rows']:,} | {label} | {r['seconds']:.1f} | {r['rows_per_second']:,.0f} | "
                             f"{r['seconds'] / floor:.1f}× | {r['peak_bytes'] / 2**30:.2f} GiB |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-one", nargs=3, metavar=("KIND", "PATH", "POLICY"), help=argparse.SUPPRESS)
    parser.add_argument("--huge", action="store_true", help="also 10^8 rows (duckdb and the floor only)")
    parser.add_argument("--sizes", default="1e6,1e7", help="row counts, comma-separated (default 1e6,1e7)")
    parser.add_argument("--render", action="store_true", help="print the table of every saved size")
    args = parser.parse_args()
    if args.run_one:
        kind, path, policy = args.run_one
        print(json.dumps(run_one(kind, Path(path), Path(policy))))
        return
    if args.render:
        print(render())
        return
    DATA.mkdir(parents=True, exist_ok=True)
    for rows in [int(float(size)) for size in args.sizes.split(",")]:
        bench(rows, ["pandas", "duckdb", "spark"])
    if args.huge:
        bench(10**8, ["duckdb"])
    print(render())


if __name__ == "__main__":
    main()
