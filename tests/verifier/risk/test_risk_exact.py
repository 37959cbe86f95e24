"""Exact risk decisions: the individual risk's maximum near cancellation, population counts and weights of any size.

Oracles: the Benedetti-Franconi closed form evaluated exactly (sympy) and at 50 digits
(mpmath); population counts compared as Python integers.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from typer.testing import CliRunner

from privcert.cli import app


def _measure(path: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["measure", str(path), "--qi", "zip", "--risk", *extra, "--json", "-"])
    return result.exit_code, result.output


def _models(output: str) -> dict[str, dict]:
    return {m["model"]: m for m in json.loads(output)["measurements"]}


@pytest.mark.parametrize("weight", ["1.00000002", "1.000000002"])
def test_the_largest_individual_risk_is_found_where_the_float_form_cancels(tmp_path: Path, weight: str) -> None:
    """A class of two whose weights sum to about 2 has risk just under 1/2, though ``odds - odds²·ln(1/p)`` in
    float64 loses every digit there (0.39 or 1.5 instead): the maximum is that class, not the record of weight 4
    (risk (1/3)·ln 4 = 0.462), a requirement ≤ 0.495 fails, and the mean risk stays a probability."""
    release = tmp_path / "release.csv"
    release.write_text(f"zip,s,w\n1,a,1\n1,b,{weight}\n2,a,1\n2,b,1\n2,c,2\n3,a,4\n")
    code, output = _measure(release, "--weights", "w")
    assert code == 0, output
    risk = _models(output)["individual_risk"]
    mpmath.mp.dps = 50
    p = mpmath.mpf(2) / (1 + mpmath.mpf(weight))
    odds = p / (1 - p)
    pair = odds - odds**2 * mpmath.log(1 / p)
    assert 0.4999999 < float(pair) < 0.5
    assert risk["level"] == pytest.approx(float(pair), rel=1e-12)
    assert risk["level"] > 0.495
    single = mpmath.mpf(1) / 3 * mpmath.log(4)
    mean = (2 * pair + 3 * mpmath.mpf(3) / 4 / (3 - mpmath.mpf(1) / 4) + single) / 6
    assert risk["witness"]["numbers"]["global_risk"] == pytest.approx(float(mean), rel=1e-12)


def test_population_counts_are_exact_integers_of_any_size(tmp_path: Path) -> None:
    release = tmp_path / "release.csv"
    release.write_text("zip,s\n1,a\n1,b\n2,a\n")
    table = tmp_path / "population.csv"
    table.write_text(f"zip,count\n1,{2**53 + 3}\n2,{2**53 + 5}\n")
    code, output = _measure(release, "--population-table", str(table))
    assert code == 0, output
    assert _models(output)["k_map"]["level"] == 2**53 + 3  # not 2^53 + 4 (float64)
    table.write_text(f"zip,count\n1,{2**63 + 5}\n2,7\n")
    code, output = _measure(release, "--population-table", str(table))
    assert code == 0, output
    models = _models(output)
    assert models["k_map"]["level"] == 7
    assert Fraction(models["marketer_risk"]["exact"]) == (Fraction(2, 2**63 + 5) + Fraction(1, 7)) / 3


@pytest.mark.parametrize(("weight", "message"), [
    ("0", "found 0"),
    ("-3", "found -3"),
    ("1e99999999", "at most 10^300"),
    ("1e400", "at most 10^300"),
])
def test_weights_that_are_not_a_number_of_people_are_refused(tmp_path: Path, weight: str, message: str) -> None:
    release = tmp_path / "release.csv"
    release.write_text(f"zip,s,w\n1,a,2\n1,b,{weight}\n2,a,5\n")
    code, output = _measure(release, "--weights", "w")
    assert code == 2 and message in output and "'w'" in output, output


def test_a_population_beyond_float64_is_refused_with_exit_2(tmp_path: Path) -> None:
    release = tmp_path / "release.csv"
    release.write_text("zip,s\n1,a\n1,b\n2,a\n")
    code, output = _measure(release, "--population", str(10**400))
    assert code == 2 and "at most 10^300" in output, output
