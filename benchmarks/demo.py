"""Whole-process CPU and wall time of ``privcert demo``, the README's first command.

The demo audits the two bundled releases, signs a certificate for each, writes it as
JSON, HTML and PDF, and verifies it twice (with and without the release). Each round is
a fresh process (:func:`startup.run`: wall seconds from a Python timer, CPU seconds, user
+ system, from ``os.wait4``) writing into a new folder of a scratch directory. The claim
statuses are read from a status cache of the scratch directory's own
(``PRIVCERT_CACHE_DIR``), warmed by one demo before the rounds, as on a machine where
privcert has run once; ``--cold`` also times one demo with an empty cache, which checks
every claim first. The 1-minute load average is printed before and after the rounds:
on a machine shared with other work the CPU seconds say more than the wall time.

Run from the repository root::

    .venv/bin/python benchmarks/demo.py --rounds 5
    .venv/bin/python benchmarks/demo.py --rounds 3 --cold
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

from startup import PRIVCERT, ROOT, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed demos (default 5)")
    parser.add_argument("--cold", action="store_true", help="also time one demo with an empty status cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="privcert-demo-") as name:
        scratch = Path(name)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PRIVCERT_CACHE_DIR": str(scratch / "cache")}
        cold = run(["demo", "--out", str(scratch / "cold")], scratch, env) if args.cold else None
        if cold is None:
            subprocess.run([*PRIVCERT, "demo", "--out", str(scratch / "warm")], cwd=scratch, env=env, check=True,
                           stdout=subprocess.DEVNULL)
        before = os.getloadavg()[0]
        figures = [run(["demo", "--out", str(scratch / f"round-{number}")], scratch, env)
                   for number in range(args.rounds)]
        after = os.getloadavg()[0]
    walls, cpus = [wall for wall, _ in figures], [cpu for _, cpu in figures]
    print(f"{args.rounds} rounds; 1-minute load average {before:.2f} before, {after:.2f} after, "
          f"on {os.cpu_count()} CPUs")
    print("| command | wall (s), median (min–max) | CPU (s), median (min–max) |")
    print("|---|---:|---:|")
    print(f"| `privcert demo` (status cache warm) | {statistics.median(walls):.2f} ({min(walls):.2f}–{max(walls):.2f}) "
          f"| {statistics.median(cpus):.2f} ({min(cpus):.2f}–{max(cpus):.2f}) |")
    if cold is not None:
        print(f"| `privcert demo` (status cache empty: every claim checked first) | {cold[0]:.2f} | {cold[1]:.2f} |")


if __name__ == "__main__":
    main()
