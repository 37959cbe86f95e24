"""Constructions do not leak: only the quasi-identifiers, the sensitive attribute and ``--keep`` columns are released,
and a code written in digits (a zip code) is released as one of its cluster's codes, never as a mean."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from privcert.cli import app

ADMISSIONS = Path("examples/hospital/admissions.csv")


def _with_id(tmp_path: Path) -> Path:
    frame = pd.read_csv(ADMISSIONS, dtype=str)
    frame.insert(0, "id", [f"P{i:04d}" for i in range(len(frame))])
    path = tmp_path / "with_id.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", [["microaggregate", "--t", "0.1"], ["bucketize", "--t", "2"]])
def test_only_named_columns_are_released(tmp_path: Path, command: list[str]) -> None:
    data, out = _with_id(tmp_path), tmp_path / "release.csv"
    base = ["anonymize", command[0], str(data), "--qi", "age,zip", "--sensitive", "stay_days", "--k", "5",
            *command[1:], "--out", str(out)]
    result = CliRunner().invoke(app, base)
    assert result.exit_code == 0, result.output
    release = pd.read_csv(out, dtype=str)
    assert list(release.columns) == ["age", "zip", "stay_days"]  # no id, no diagnosis
    original_zips = set(pd.read_csv(data, dtype=str)["zip"])
    assert set(release["zip"]) <= original_zips  # codes, not means such as 47810.4
    result = CliRunner().invoke(app, [*base, "--keep", "diagnosis"])
    assert result.exit_code == 0, result.output
    assert list(pd.read_csv(out, dtype=str).columns) == ["age", "zip", "diagnosis", "stay_days"]
    result = CliRunner().invoke(app, [*base, "--keep", "nosuch"])
    assert result.exit_code == 2 and "--keep 'nosuch'" in result.output, result.output
