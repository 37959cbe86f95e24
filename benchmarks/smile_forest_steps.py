"""Accuracy of Smile's forest re-implemented (tests/_smile_forest.py) on one table of the classification fixture.

``python benchmarks/smile_forest_steps.py TABLE [SWITCH=1 ...]`` prints, as one JSON line, the accuracy the slow
tests of tests/verifier/utility/test_classification_peers.py compute (ARX's codes and folds, 100 trees) with the
switches given, its CPU and wall seconds and the 1-minute load average; docs/utility.md ("Random forest") and
benchmarks/RESULTS.md hold the figures.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "verifier" / "utility")]

import test_classification_peers as peers  # noqa: E402


def main(arguments: list[str]) -> None:
    """Run the re-implementation on ``arguments[0]`` with the switches ``NAME=1`` that follow it."""
    switches = {name: value == "1" for name, value in (item.split("=") for item in arguments[1:])}
    cpu, wall = time.process_time(), time.time()
    accuracy = peers._smile_accuracy(arguments[0], **switches)
    print(json.dumps({"table": arguments[0], **switches, "accuracy": round(accuracy, 4),
                      "cpu": round(time.process_time() - cpu, 1), "wall": round(time.time() - wall, 1),
                      "load": Path("/proc/loadavg").read_text().split()[0]}))


if __name__ == "__main__":
    main(sys.argv[1:])
