#!/usr/bin/env python3
"""Run a command while busy processes hold the CPUs: the check that the test suite does not depend on the machine's speed.

    python scripts/cpu_load.py --processes 8 -- pytest

starts ``--processes`` processes that spin (``stress-ng --cpu 8`` does the same, from Debian's
``stress-ng``), runs the command, stops them (SIGTERM to each, by its own process id) and exits with the
command's exit code. No test may fail under such a load: a test waits for events (a state, an answer, an
exit), never for a span of time (README.md, "The suite under CPU load").
"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys


def _spin() -> None:
    while True:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8, help="busy processes to start (default 8)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run, after --")
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command or arguments.processes < 0:
        parser.error("expected --processes N (N >= 0) and a command after --")
    busy = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(arguments.processes)]
    for process in busy:
        process.start()
    try:
        return subprocess.call(command)
    finally:
        for process in busy:
            process.terminate()
        for process in busy:
            process.join()


if __name__ == "__main__":
    sys.exit(main())
