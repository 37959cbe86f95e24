"""One reading of the sampling frame for every risk model: a fraction (1 included), a population size, a table.

The oracle is DIS-SUDA's formula (Elliot, Manning & Ford 2002; sdcMicro's ``suda2``):
``1 / (1 + pairs·(1-d) / (d · s^q · Σ 1/s^q))`` with ``q = 1 + (8 - M)/20`` and ``d`` the
sampling fraction ``n/N``, written here from the SUDA scores; Pitman's share and the
individual risks at ``N`` are compared across the ways of giving the same frame.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from privcert.cli import app
from verifier.risk.suda import suda2
from verifier.tables.counting import count_tables

RELEASE = Path("privcert/data/hospital/release.csv")
QI = ["zip", "diagnosis"]


def _dis_max(fraction: Fraction) -> float:
    classes, _ = count_tables(pd.read_csv(RELEASE, dtype=str), QI, [])
    result = suda2(classes)
    q = 1 + (8 - len(QI)) / 20
    positive = [float(s) for s in result.scores if s > 0]
    adjust = sum(1 / s**q for s in positive)
    d = float(fraction)
    return max(1 / (1 + result.pairs * (1 - d) / (d * s**q * adjust)) for s in positive)


def _measure(tmp_path: Path, frame: list[str]) -> dict[str, dict]:
    result = CliRunner().invoke(app, ["measure", str(RELEASE), "--qi", ",".join(QI), "--risk", *frame, "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    found: dict[str, dict] = {}
    for m in document["measurements"]:
        key = m["model"] if m["model"] != "population_uniqueness" else f"pu_{m['parameters']['estimator']}"
        found[key] = m
    return found


def _table(tmp_path: Path, factor: int) -> Path:
    classes, _ = count_tables(pd.read_csv(RELEASE, dtype=str), QI, [])
    table = tmp_path / "population.csv"
    frame = pd.DataFrame({name: classes.keys[name] for name in QI})
    frame["count"] = classes.sizes * factor
    frame.to_csv(table, index=False)
    return table


@pytest.mark.parametrize(("frame", "fraction"), [
    (["--sampling-fraction", "1"], Fraction(1)),
    (["--sampling-fraction", "1/2"], Fraction(1, 2)),
    (["--population", "600"], Fraction(1, 2)),
    (["--population", "20100"], Fraction(300, 20100)),
    (["--population-table", "TABLE"], Fraction(1, 3)),
])
def test_dis_suda_reads_the_frame_as_given(tmp_path: Path, frame: list[str], fraction: Fraction) -> None:
    if "TABLE" in frame:
        frame = ["--population-table", str(_table(tmp_path, 3))]
    found = _measure(tmp_path, frame)
    suda = found["suda"]
    assert Fraction(suda["parameters"]["dis_fraction"]) == fraction
    assert suda["estimate"]["value"] == pytest.approx(_dis_max(fraction), rel=1e-12)
    if fraction == 1:
        assert suda["estimate"]["value"] == 1.0


def test_every_model_reads_the_same_frame_however_it_is_given(tmp_path: Path) -> None:
    """1/2 as a fraction, as a population of 600 and as a population table of 600 people: the same figures."""
    ways = [["--sampling-fraction", "1/2"], ["--population", "600"], ["--population-table", str(_table(tmp_path, 2))]]
    results = [_measure(tmp_path, way) for way in ways]
    for model in ("suda", "pu_pitman", "pu_zayatz", "pu_dankar", "individual_risk"):
        values = {json.dumps(r[model].get("estimate", {}).get("value", r[model]["level"])) for r in results}
        assert len(values) == 1, (model, values)
