"""Time ``privcert measure`` as a user runs it (whole process) on unique quasi-identifiers.

Usage (from the repository root, with the project's environment)::

    .venv/bin/python benchmarks/measure_cli.py --rows 2e6
    .venv/bin/python benchmarks/measure_cli.py --rows 2e6 --before /tmp/privcert-before

The release has ``rows`` rows; the quasi-identifiers ``zip`` and ``age`` are unique in
combination (every class holds one record, neither column alone is an identifier),
``salary`` is uniform over ``--values`` values (declared numerical) and ``disease`` over
10 categories. It is written once as CSV under ``benchmarks/data/`` (git-ignored). Each
run is one ``privcert measure ... --json`` in a child process; the script reports its wall
time, CPU time (user + system, which a loaded machine inflates less than wall time), peak
RSS, and the time the JSON gives for t-closeness. With ``--before DIR`` (an earlier
checkout, e.g. ``git archive <commit> | tar -x -C DIR``) the same command also runs with
``DIR`` first on the import path, and the script checks that both give the same exact
level for every (model, attribute) they share.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
DISEASES = ["flu", "cold", "asthma", "cancer", "hiv", "gastritis", "angina", "bronchitis", "ulcer", "stroke"]


def release(rows: int, values: int, seed: int) -> Path:
    """Write (once) and return the CSV release of ``rows`` unique-QI records."""
    path = DATA / f"unique_{rows}_{values}_{seed}.csv"
    if not path.exists():
        rng = np.random.default_rng(seed)
        i = np.arange(rows)
        DATA.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({
            "zip": (10000 + i // 100).astype(str),
            "age": (i % 100).astype(str),
            "salary": (1000 + 10 * rng.integers(0, values, size=rows)).astype(str),
            "disease": rng.choice(DISEASES, size=rows),
        }).to_csv(path, index=False)
    return path


def run(data: Path, source: Path | None, out: Path) -> dict[str, object]:
    """One whole-process ``privcert measure``; its times, peak memory and JSON document."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    command = [sys.executable, "-c", "import sys; from privcert.cli import app; sys.argv[0] = 'privcert'; app()",
               "measure", str(data), "--qi", "zip,age", "--sensitive", "salary,disease", "--numerical", "salary",
               "--json", str(out)]
    wrapped = subprocess.run([sys.executable, __file__, "--wrap", *command], env=env, check=True,
                             capture_output=True, text=True, cwd=source or ROOT)
    usage = json.loads(wrapped.stdout)
    document = json.loads(out.read_text())
    timings = document.get("run", document).get("timings", {})
    return {
        **usage,
        "t_closeness_s": timings.get("t_closeness"),
        "levels": {(m["model"], m.get("attribute")): m["exact"] for m in document["measurements"]},
    }


def wrap(command: list[str]) -> None:
    """Run ``command``; print its wall time, CPU time and peak RSS (this process has no other child)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}))


def main() -> None:
    if sys.argv[1:2] == ["--wrap"]:
        wrap(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="2e6", help="comma-separated sizes")
    parser.add_argument("--values", type=int, default=2000, help="distinct salary values")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", type=Path, help="an earlier checkout to run the same command with")
    args = parser.parse_args()
    print("| code | rows | wall (s) | CPU (s) | peak RSS (MB) | t-closeness (s) |")
    print("|---|---|---|---|---|---|")
    for rows in (int(float(r)) for r in args.rows.split(",")):
        data = release(rows, args.values, args.seed)
        runs = [("after", run(data, None, DATA / "after.json"))]
        if args.before is not None:
            runs.insert(0, ("before", run(data, args.before.resolve(), DATA / "before.json")))
            shared = runs[0][1]["levels"].keys() & runs[1][1]["levels"].keys()  # type: ignore[union-attr]
            differ = [key for key in shared if runs[0][1]["levels"][key] != runs[1][1]["levels"][key]]  # type: ignore[index]
            if differ:
                raise SystemExit(f"{rows} rows: before and after disagree on {differ}")
        for which, r in runs:
            print(f"| {which} | {rows:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_mb']:,.0f} "
                  f"| {r['t_closeness_s']:.3g} |")


if __name__ == "__main__":
    main()
