"""Whole-process time of each ``privcert`` command on small inputs: what starting it costs.

Every command runs as a fresh process, in turn, round after round, from a scratch directory
(a demo certificate and key made there first); wall seconds come from a Python timer and CPU
seconds (user + system) from ``os.wait4``. The theory commands answer from a status cache
warmed before the first round. Prints a Markdown table of medians (the one in docs/cli.md).

Run from the repository root::

    .venv/bin/python benchmarks/startup.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PRIVCERT = [sys.executable, "-m", "privcert"]


def commands(scratch: Path) -> dict[str, list[str]]:
    """The commands timed, by the name the table shows (paths inside ``scratch`` or the bundled examples)."""
    release = EXAMPLES / "table4" / "release.csv"
    return {
        "privcert --help": ["--help"],
        "privcert --version": ["--version"],
        "privcert keygen": ["keygen", "--out", str(scratch / "keys" / "k")],
        "privcert verify (demo certificate)": ["verify", str(scratch / "demo" / "table5.cert.json"),
                                               "--public-key", str(scratch / "demo" / "demo.key.pub")],
        "privcert measure (examples/table4, 9 rows)": ["measure", str(release), "--qi", "zip,age",
                                                       "--sensitive", "salary,disease", "--numerical", "salary"],
        "privcert audit (randomized, publisher)": ["audit", "--policy", str(EXAMPLES / "randomized" / "publisher.toml")],
        "privcert audit (randomized, auditor)": ["audit", "--policy", str(EXAMPLES / "randomized" / "auditor.toml")],
        "privcert theory claims": ["theory", "claims"],
        "privcert theory implies ldp kt_closeness": ["theory", "implies", "ldp", "kt_closeness",
                                                     "--param", "N=100", "--param", "k=5", "--level", "1"],
    }


@dataclass(frozen=True)
class Timing:
    """One whole process: wall seconds (a Python timer) and the CPU seconds of that process alone, user and
    system (``os.wait4`` of its id, as ``/usr/bin/time`` reads them)."""

    wall: float
    user: float
    system: float

    @property
    def cpu(self) -> float:
        """User + system seconds."""
        return self.user + self.system


def run(arguments: list[str], cwd: Path, env: dict[str, str]) -> Timing:
    """One whole process; a failing command stops the benchmark."""
    start = time.perf_counter()
    process = subprocess.Popen([*PRIVCERT, *arguments], cwd=cwd, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"privcert {' '.join(arguments)} failed: {error}")
    return Timing(wall, usage.ru_utime, usage.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="privcert-startup-") as name:
        scratch = Path(name)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PRIVCERT_CACHE_DIR": str(scratch / "cache")}
        subprocess.run([*PRIVCERT, "demo", "--out", str(scratch / "demo")], cwd=scratch, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([*PRIVCERT, "theory", "claims"], cwd=scratch, env=env, check=True, stdout=subprocess.DEVNULL)
        timed = commands(scratch)
        figures: dict[str, list[Timing]] = {label: [] for label in timed}
        for _ in range(args.rounds):
            for label, arguments in timed.items():
                (scratch / "keys").mkdir(exist_ok=True)
                for key in (scratch / "keys").iterdir():
                    key.unlink()
                figures[label].append(run(arguments, scratch, env))
    print(f"{args.rounds} rounds, medians; 1-minute load average at the end {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print("| command | wall (s) | CPU (s) |")
    print("|---|---:|---:|")
    for label, runs in figures.items():
        print(f"| `{label}` | {statistics.median(r.wall for r in runs):.2f} | {statistics.median(r.cpu for r in runs):.2f} |")


if __name__ == "__main__":
    main()
