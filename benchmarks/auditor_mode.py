"""Whole-process ``privcert audit`` on the bundled randomized example: auditor mode against publisher mode.

Publisher mode measures every level from the original data and the mechanism; auditor mode
measures ε-LDP from the mechanism and asks the implication map for the levels it implies
(the map drawn from the cached claim statuses). The difference is what answering from the map
costs a command: importing the claim modules that draw it, building it, and the queries.

Both commands run in turn, round after round, each as a fresh process; wall seconds come from
a Python timer and CPU seconds (user + system) from ``os.wait4``'s resource usage. Each version
gets a status cache of its own (``PRIVCERT_CACHE_DIR``), warmed by one run that is not counted.

Run from the repository root::

    .venv/bin/python benchmarks/auditor_mode.py                        # 7 rounds
    .venv/bin/python benchmarks/auditor_mode.py --before /tmp/privcert-before

``--before DIR``: an earlier checkout (``git archive <commit> | tar -x -C DIR``), run with ``DIR``
first on the import path, for a before/after table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "randomized"


def run(code: Path, mode: str, cache: Path) -> tuple[float, float]:
    """One ``privcert audit --policy examples/randomized/MODE.toml``: (wall seconds, CPU seconds)."""
    env = {**os.environ, "PYTHONPATH": str(code), "PRIVCERT_CACHE_DIR": str(cache)}
    command = [sys.executable, "-m", "privcert", "audit", "--policy", str(EXAMPLE / f"{mode}.toml")]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed: {process.stderr.read().decode() if process.stderr else ''}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", type=Path, help="an earlier checkout to time the same way")
    args = parser.parse_args()
    versions = {"now": ROOT, **({"before": args.before.resolve()} if args.before else {})}
    with tempfile.TemporaryDirectory(prefix="privcert-auditor-bench-") as scratch:
        caches = {name: Path(scratch) / name for name in versions}
        for name, code in versions.items():
            for mode in ("publisher", "auditor"):
                run(code, mode, caches[name])
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.rounds):
            for name, code in versions.items():
                for mode in ("publisher", "auditor"):
                    figures.setdefault((name, mode), []).append(run(code, mode, caches[name]))
    load = os.getloadavg()[0]
    print(f"{args.rounds} rounds, medians; 1-minute load average at the end {load:.2f} on {os.cpu_count()} CPUs")
    print("| version | publisher wall (s) | auditor wall (s) | auditor − publisher, wall (s) | CPU (s) |")
    print("|---|---:|---:|---:|---:|")
    for name in versions:
        publisher, auditor = figures[(name, "publisher")], figures[(name, "auditor")]
        gaps = [(a[0] - p[0], a[1] - p[1]) for p, a in zip(publisher, auditor, strict=True)]
        print(f"| {name} | {statistics.median(w for w, _ in publisher):.2f} | {statistics.median(w for w, _ in auditor):.2f} "
              f"| {statistics.median(w for w, _ in gaps):.2f} | {statistics.median(c for _, c in gaps):.2f} |")


if __name__ == "__main__":
    main()
