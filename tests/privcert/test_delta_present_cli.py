"""End-to-end: `privcert audit` with δ-disclosure over the values present in each class."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from privcert.cli import app

RELEASE = Path(__file__).parents[2] / "examples" / "table4" / "release.csv"


def test_audit_delta_present_beside_the_definition(tmp_path: Path) -> None:
    # Table 4 of Li et al. 2007: every class holds 3 of the 6 diseases once, p = 1/9 or 2/9,
    # so over the present values the largest q/p is (1/3)/(1/9) = 3: δ = ln 3 ≈ 1.0986 < 11/10
    # passes. Every class lacks a disease, so the definition's δ* is infinite and fails.
    shutil.copy(RELEASE, tmp_path / "release.csv")
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[data]\npath = "release.csv"\nqi = ["zip", "age"]\n\n[sensitive.disease]\n\n'
        '[[require]]\nmodel = "delta_disclosure_present"\nattribute = "disease"\nthreshold = "11/10"\n\n'
        '[[require]]\nmodel = "delta_disclosure"\nattribute = "disease"\nthreshold = "11/10"\n'
    )
    result = CliRunner().invoke(app, ["audit", "--policy", str(policy), "--json", "-"], catch_exceptions=False)
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert [(m["model"], m["exact"], m["passed"]) for m in document["measurements"]] == [
        ("delta_disclosure_present", "ln(3)", True),
        ("delta_disclosure", "inf", False),
    ]
