"""Whole-process CPU and wall time of ``privcert demo``, the README's first command.

The demo audits the two bundled releases, signs a certificate for each, writes it as
JSON, HTML and PDF, and verifies it twice (with and without the release). Each round is
a fresh process (:func:`startup.run`: wall seconds from a Python timer; CPU seconds, user
and system, from the ``os.wait4`` of that process alone, as ``/usr/bin/time`` reads them)
writing into a new folder of a scratch directory. The claim statuses are read from a
status cache of the scratch directory's own (``PRIVCERT_CACHE_DIR``), warmed by a first
demo before the rounds, as on a machine where privcert has run once; a round that rewrites the
cache (it checked every claim again: the code of the checkout changed under the benchmark)
stops it, since its CPU would be the first run's. The bytecode of every module is written by
that first demo into the scratch directory (``PYTHONPYCACHEPREFIX``, whatever
``PYTHONDONTWRITEBYTECODE`` says) and read by the rounds, as on a machine where Python
writes bytecode: otherwise each round compiles again whatever has none (privcert's own
modules, 0.2 s of CPU, under ``PYTHONDONTWRITEBYTECODE``; several seconds for a virtual
environment installed without bytecode). ``--cold`` also times one demo with an
empty cache, which checks every claim first. The 1-minute load average is printed before
and after the rounds: on a machine shared with other work the CPU seconds say more than
the wall time.

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

from startup import PRIVCERT, ROOT, Timing, run


def _stamp(cache: Path) -> tuple[int, int]:
    """The status cache file's (modification time in ns, size): a round that checked claims rewrites it."""
    found = (cache / "theory_claims.json").stat()
    return found.st_mtime_ns, found.st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="timed demos (default 5)")
    parser.add_argument("--cold", action="store_true", help="also time one demo with an empty status cache")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="privcert-demo-") as name:
        scratch = Path(name)
        cache = scratch / "cache"
        env = {**{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
               "PYTHONPATH": str(ROOT), "PRIVCERT_CACHE_DIR": str(cache), "PYTHONPYCACHEPREFIX": str(scratch / "bytecode")}
        # the first demo writes the bytecode; under --cold with a status cache of its own, left empty for the cold one
        first = {**env, "PRIVCERT_CACHE_DIR": str(scratch / "first-cache")} if args.cold else env
        subprocess.run([*PRIVCERT, "demo", "--out", str(scratch / "first")], cwd=scratch, env=first, check=True,
                       stdout=subprocess.DEVNULL)
        cold = run(["demo", "--out", str(scratch / "cold")], scratch, env) if args.cold else None
        warm = _stamp(cache)
        before = os.getloadavg()[0]
        figures: list[Timing] = []
        for number in range(args.rounds):
            figures.append(run(["demo", "--out", str(scratch / f"round-{number}")], scratch, env))
            if _stamp(cache) != warm:
                raise SystemExit(f"round {number + 1} rewrote the status cache (it checked every claim): the code "
                                 "changed under the benchmark; run it on a checkout nothing edits")
        after = os.getloadavg()[0]
    print(f"{args.rounds} rounds; 1-minute load average {before:.2f} before, {after:.2f} after, "
          f"on {os.cpu_count()} CPUs")
    print("| command | wall (s), median (min–max) | CPU user + sys (s), median (min–max) | user (s) | sys (s) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| `privcert demo` (status cache warm) | {_spread([f.wall for f in figures])} "
          f"| {_spread([f.cpu for f in figures])} | {statistics.median(f.user for f in figures):.2f} "
          f"| {statistics.median(f.system for f in figures):.2f} |")
    if cold is not None:
        print(f"| `privcert demo` (status cache empty: every claim checked first) | {cold.wall:.2f} | {cold.cpu:.2f} "
              f"| {cold.user:.2f} | {cold.system:.2f} |")


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"

if __name__ == "__main__":
    main()
