"""Time ordered t-closeness on unique quasi-identifiers: every row its own class.

Usage (from the repository root, with the project's environment)::

    .venv/bin/python benchmarks/emd_scaling.py --rows 2e5,2e6
    .venv/bin/python benchmarks/emd_scaling.py --rows 2e5,2e6 --before /tmp/privcert-main --before-rows 2e5

The release has ``rows`` rows, a quasi-identifier ``id`` unique on every row (``rows``
classes of size 1) and ``salary`` with ``--values`` distinct values (uniform), declared
numerical. For each size the script times :func:`verifier.tables.counting.count_tables` and
:func:`verifier.privacy.t_closeness.t_closeness` with the ordered distance, in a child process of the
current interpreter; with ``--before DIR`` it also runs the same child with ``DIR`` (a
checkout of an earlier version, e.g. ``git archive main | tar -x -C DIR``) first on the
import path, at ``--before-rows``, and checks that both give the same level and witness.
It prints one Markdown table (seconds, wall time, one run each).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(rows: int, values: int, seed: int) -> dict[str, object]:
    """Build the release, count it and measure ordered t-closeness; timings and the result."""
    import numpy as np
    import pandas as pd

    from verifier.privacy.t_closeness import t_closeness
    from verifier.tables.counting import count_tables
    from verifier.tables.counts import AttributeSpec

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"id": np.arange(rows), "salary": 1000 + 10 * rng.integers(0, values, size=rows)})
    start = time.perf_counter()
    _, (table,) = count_tables(frame, ["id"], [AttributeSpec(("salary",), kind="numerical")])
    counted = time.perf_counter()
    result = t_closeness(table, "ordered")
    measured = time.perf_counter()
    return {
        "rows": rows,
        "values": table.m,
        "count_tables_s": counted - start,
        "t_closeness_s": measured - counted,
        "level": result.level.exact,
        "witness": result.witness.qi if result.witness else None,
    }


def run(rows: int, values: int, seed: int, source: Path) -> dict[str, object]:
    """:func:`child` in a fresh interpreter with ``source`` first on the import path."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, __file__, "--child", str(rows), "--values", str(values), "--seed", str(seed)]
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True, cwd=source).stdout
    return json.loads(output.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="2e5,2e6", help="comma-separated sizes for the current code")
    parser.add_argument("--values", type=int, default=2000, help="distinct salary values")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", type=Path, help="an earlier checkout to time at --before-rows")
    parser.add_argument("--before-rows", default="2e5", help="comma-separated sizes for --before")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.values, args.seed)))
        return
    runs = []
    if args.before is not None:
        for rows in (int(float(r)) for r in args.before_rows.split(",")):
            runs.append(("before", run(rows, args.values, args.seed, args.before)))
    for rows in (int(float(r)) for r in args.rows.split(",")):
        runs.append(("after", run(rows, args.values, args.seed, ROOT)))
    results: dict[tuple[int, str], dict[str, object]] = {(int(r["rows"]), which): r for which, r in runs}  # type: ignore[call-overload]
    for (rows, which), r in results.items():
        other = results.get((rows, "after" if which == "before" else "before"))
        if other is not None and (other["level"], other["witness"]) != (r["level"], r["witness"]):
            raise SystemExit(f"{rows} rows: before and after disagree: {r} vs {other}")
    print("| code | rows | classes | values | count_tables (s) | ordered t_closeness (s) | level |")
    print("|---|---|---|---|---|---|---|")
    for which, r in runs:
        print(f"| {which} | {r['rows']:,} | {r['rows']:,} | {r['values']:,} | {r['count_tables_s']:.3g} "
              f"| {r['t_closeness_s']:.3g} | {r['level']} |")


if __name__ == "__main__":
    main()
