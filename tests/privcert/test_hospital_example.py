"""examples/hospital/build.py reproduces the bundled hospital-style release byte for byte."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_build_script_reproduces_the_committed_release_and_original(tmp_path: Path) -> None:
    target, original = tmp_path / "release.csv", tmp_path / "admissions.csv"
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "hospital" / "build.py"), str(target),
                           "--original", str(original)], capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == (ROOT / "privcert" / "data" / "hospital" / "release.csv").read_bytes()
    assert original.read_bytes() == (ROOT / "examples" / "hospital" / "admissions.csv").read_bytes()
