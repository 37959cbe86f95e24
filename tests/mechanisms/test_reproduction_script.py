"""Smoke test of examples/microaggregation/reproduce.py on a small size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "microaggregation" / "reproduce.py"


def test_reproduction_script_runs_and_writes_tables_and_plots(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "results.md").read_text(encoding="utf-8")
    assert "### Table 3" in text and "## Fig. 6" in text and "## Fig. 5" in text
    # Algorithm 3 on 200 records, k = 2, t = 0.05: Expression (3) gives ⌈200/20.9⌉ = 10,
    # 200 mod 10 = 0, so every cluster has 10 records.
    assert "| k = 2 | 10/10 | 10/10 |" in text.split("### Table 3")[1]
    for name in ("fig5", "fig6_mcd", "fig6_hcd"):
        assert (tmp_path / f"{name}.svg").stat().st_size > 0 and (tmp_path / f"{name}.png").stat().st_size > 0


def test_a_quick_run_never_writes_over_the_committed_results(tmp_path: Path) -> None:
    committed = {path: path.read_bytes() for path in SCRIPT.parent.iterdir() if path.is_file()}
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, check=False,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    (written,) = tmp_path.glob("privcert-microaggregation-*/results.md")
    assert done.stdout.splitlines()[-1] == f"wrote {written}"
    assert {path: path.read_bytes() for path in SCRIPT.parent.iterdir() if path.is_file()} == committed
