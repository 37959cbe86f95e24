"""Time the PDF view of a release whose names and values are very long strings.

A release with a 5,000-character sensitive attribute name and 10,000-character values is
audited with ``--pdf`` (whole process, ``/usr/bin/time``-free: Python's own clock around
the command). WeasyPrint lays out an unbreakable string in quadratic time, so before the
views bounded their cells this never finished; it should take seconds.

Run from the repository root::

    .venv/bin/python benchmarks/long_text.py [--privcert PATH] [--timeout S]

``--privcert`` names the ``privcert`` executable to time (default: the one beside this
interpreter), so an earlier version installed elsewhere can be timed on the same files.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NAME_LENGTH = 5_000
VALUE_LENGTH = 10_000


def write_release(folder: Path) -> Path:
    """A 9-row release (3 classes of 3) whose sensitive attribute has a very long name and very long values."""
    name = "n" * NAME_LENGTH
    values = [chr(ord("a") + i) * VALUE_LENGTH for i in range(3)]
    rows = [f"{zip_code},{values[(row + cls) % 3]}" for cls, zip_code in enumerate(("476**", "4790*", "4760*"))
            for row in range(3)]
    (folder / "release.csv").write_text(f"zip,{name}\n" + "\n".join(rows) + "\n", encoding="utf-8")
    (folder / "policy.toml").write_text(
        f'[data]\npath = "release.csv"\nqi = ["zip"]\n[sensitive.{name}]\n'
        f'[[require]]\nmodel = "distinct_l_diversity"\nattribute = "{name}"\nthreshold = 3\n', encoding="utf-8")
    return folder / "policy.toml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--privcert", default=str(Path(sys.executable).parent / "privcert"))
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        policy = write_release(folder)
        start = time.perf_counter()
        try:
            done = subprocess.run([args.privcert, "audit", "--policy", str(policy), "--pdf", str(folder / "view.pdf")],
                                  capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            print(f"PDF of a {NAME_LENGTH}-character name and {VALUE_LENGTH}-character values: "
                  f"not done after {args.timeout:.0f} s (stopped)")
            return 1
        seconds = time.perf_counter() - start
        size = (folder / "view.pdf").stat().st_size if (folder / "view.pdf").exists() else 0
    print(f"PDF of a {NAME_LENGTH}-character name and {VALUE_LENGTH}-character values: {seconds:.1f} s, "
          f"exit {done.returncode}, {size:,} bytes")
    return 0 if done.returncode in (0, 1) else done.returncode


if __name__ == "__main__":
    sys.exit(main())
