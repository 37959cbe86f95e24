"""Utility never claims what it did not measure: figures over all quasi-identifiers, labels, σ = 0, pairing, compare.

Oracles: Iyengar's loss by hand on the labels' leaf counts (exact fractions); the pairing
of a reversed release; the normalized SSE's definition (Soria-Comas et al. 2015, eq. 5)
with σ = 0.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from privcert.cli import app
from verifier.errors import DataError
from verifier.utility import measure_utility
from verifier.utility.pair import label_members

AGES = ["31", "35", "38", "42", "47", "44"]
ZIPS = ["47801", "47802", "47899", "47901", "47903", "47801"]
SEXES = ["M", "F", "M", "F", "M", "F"]


def _original() -> pd.DataFrame:
    return pd.DataFrame({"id": [str(i) for i in range(6)], "age": AGES, "zip": ZIPS, "sex": SEXES})


def _decade(age: str) -> str:
    low = int(age) // 10 * 10
    return f"{low}-{low + 9}"


def test_a_figure_over_all_quasi_identifiers_needs_every_one_measured() -> None:
    """age perturbed (no hierarchy, no label): loss over all is not 0 (sex alone), it is not measured."""
    release = _original().assign(age=["33", "36", "30", "41", "49", "40"])
    report = measure_utility(_original(), release, ["age", "sex"])
    for metric in ("loss", "non_uniform_entropy", "precision"):
        figure = report.figure(metric)
        assert figure.raw is None and figure.quality is None, metric
        assert figure.note.startswith("not measured: 'age' not measured")
    assert report.figure("loss", "sex").raw == 0


@pytest.mark.parametrize("labels", ["dashed", "bracketed"])
def test_generalizations_are_read_from_the_release_labels(labels: str) -> None:
    ages = [_decade(a) if labels == "dashed" else f"[{int(a) // 10 * 10},{int(a) // 10 * 10 + 10})" for a in AGES]
    release = _original().assign(age=ages, zip=[z[:3] + "**" for z in ZIPS])
    report = measure_utility(_original(), release, ["age", "zip", "sex"])
    # age: 6 leaves, 30s cover 3 and 40s cover 3: each cell loses (3-1)/(6-1); zip: 5 leaves, 478** covers 3, 479** 2
    age_loss = Fraction(2, 5)
    zip_loss = (4 * Fraction(2, 4) + 2 * Fraction(1, 4)) / 6
    assert report.figure("loss", "age").raw == age_loss
    assert report.figure("loss", "zip").raw == zip_loss
    assert report.figure("loss").raw == (age_loss + zip_loss + 0) / 3
    assert any(line.startswith("age: no hierarchy given") for line in report.inferred)
    assert any("478** (3 values)" in line for line in report.inferred)
    assert report.to_json()["inferred_hierarchies"] == list(report.inferred)


def test_label_members() -> None:
    assert label_members("(30,40]", ["30", "35", "40"]) == {"35", "40"}
    assert label_members("*", ["a"]) is None and label_members("north", ["a"]) is None


def test_record_sse_with_sigma_zero_and_changed_values_is_not_zero() -> None:
    original = pd.DataFrame({"x": ["5", "5", "5"], "y": ["1", "2", "3"]})
    changed = measure_utility(original, pd.DataFrame({"x": ["5", "6", "5"], "y": ["1", "2", "3"]}), ["x", "y"])
    figure = changed.figure("record_sse")
    assert figure.raw is None and "σ = 0" in figure.note
    kept = measure_utility(original, original, ["x", "y"])
    assert kept.figure("record_sse").raw == 0


def test_a_reordered_release_is_refused_without_a_key(tmp_path: Path) -> None:
    original, release = tmp_path / "original.csv", tmp_path / "release.csv"
    _original().to_csv(original, index=False)
    _original().assign(age=[_decade(a) for a in AGES]).iloc[::-1].to_csv(release, index=False)
    runner = CliRunner()
    result = runner.invoke(app, ["utility", str(original), str(release), "--qi", "age,zip,sex"])
    assert result.exit_code == 2 and "--key" in result.output and "another order" in result.output, result.output
    result = runner.invoke(app, ["utility", str(original), str(release), "--qi", "age,zip,sex", "--key", "id",
                                 "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["pairing"] == "by the key column 'id'"
    loss = next(f for f in document["utility"] if f["metric"] == "loss" and f["attribute"] is None)
    assert loss["raw"]["exact"] == str(Fraction(2, 5) / 3)


def test_compare_shows_and_plots_only_what_it_measured(tmp_path: Path) -> None:
    original = tmp_path / "original.csv"
    _original().to_csv(original, index=False)
    paths = []
    for index, ages in enumerate((["33", "33", "30", "41", "41", "30"], ["32", "32", "39", "43", "43", "39"])):
        path = tmp_path / f"perturbed{index}.csv"
        _original().assign(age=ages).to_csv(path, index=False)
        paths.append(str(path))
    runner = CliRunner()
    result = runner.invoke(app, ["compare", str(original), *paths, "--qi", "age,sex", "--json", "-"])
    assert result.exit_code == 0, result.output
    for release in json.loads(result.output)["releases"]:
        loss = next(f for f in release["utility"] if f["metric"] == "loss" and f["attribute"] is None)
        assert loss["raw"] is None and loss["note"].startswith("not measured")
    result = runner.invoke(app, ["compare", str(original), *paths, "--qi", "age,sex", "--html",
                                 str(tmp_path / "c.html")])
    assert result.exit_code == 2 and "--metric 'loss'" in result.output, result.output
    result = runner.invoke(app, ["compare", str(original), *paths, "--qi", "age,sex"])
    assert result.exit_code == 0 and "not measured" in result.output, result.output


def test_api_refuses_the_reordered_release() -> None:
    release = _original().iloc[::-1].reset_index(drop=True)
    with pytest.raises(DataError, match="another order"):
        measure_utility(_original(), release, ["age"])
