"""``privcert compare``: candidate releases of one original, privacy beside utility, in a table, JSON and HTML."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from privcert.api import compare
from privcert.cli import app
from reports.comparison import comparison_rows

runner = CliRunner()
TABLE4 = Path(__file__).resolve().parents[2] / "examples" / "table4"
HIERARCHIES = ("--hierarchy", f"zip={TABLE4 / 'zip_hierarchy.csv'}", "--hierarchy", f"age={TABLE4 / 'age_hierarchy.csv'}")


@pytest.fixture
def candidates(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Table 3 of Li et al. 2007 (the original), Table 4 (its release) and a release suppressing every zip and age."""
    release = pd.read_csv(TABLE4 / "release.csv", dtype=str)
    coarse = release.assign(zip="*", age="*")
    coarse_path = tmp_path / "coarse.csv"
    coarse.to_csv(coarse_path, index=False)
    return TABLE4 / "original.csv", TABLE4 / "release.csv", coarse_path


def test_each_release_has_its_privacy_and_utility(candidates: tuple[Path, Path, Path]) -> None:
    original, table4, coarse = candidates
    from verifier.tables.hierarchy import load_hierarchy

    hierarchies = {q: load_hierarchy(TABLE4 / f"{q}_hierarchy.csv") for q in ("zip", "age")}
    found = compare(original, [table4, original, coarse], ["zip", "age"], hierarchies=hierarchies)
    rows = {c.release: c for c in found.candidates}
    assert [(c.k, c.risk, c.mean_risk) for c in found.candidates] == [
        (3, Fraction(1, 3), Fraction(1, 3)),   # three classes of three
        (1, Fraction(1), Fraction(1)),         # the original: every record its own class
        (9, Fraction(1, 9), Fraction(1, 9)),   # everything suppressed: one class
    ]
    assert rows[str(table4)].figure("loss").raw == Fraction(3, 8)
    assert rows[str(original)].figure("loss").raw == 0
    assert rows[str(coarse)].figure("loss").raw == 1
    assert rows[str(coarse)].figure("discernibility").raw == 81  # N² once every record is suppressed


def test_the_table_has_one_row_per_release(candidates: tuple[Path, Path, Path]) -> None:
    original, table4, coarse = candidates
    from verifier.tables.hierarchy import load_hierarchy

    hierarchies = {q: load_hierarchy(TABLE4 / f"{q}_hierarchy.csv") for q in ("zip", "age")}
    header, rows = comparison_rows(compare(original, [table4, coarse], ["zip", "age"], hierarchies=hierarchies))
    assert header[:5] == ("release", "k", "max_risk", "mean_risk", "loss")
    assert rows[0][:5] == (str(table4), "3", "1/3", "1/3", "3/8")
    assert rows[1][:5] == (str(coarse), "9", "1/9", "1/9", "1")


def test_cli_prints_json_and_writes_the_page(candidates: tuple[Path, Path, Path], tmp_path: Path) -> None:
    original, table4, coarse = candidates
    page = tmp_path / "compare.html"
    result = runner.invoke(app, ["compare", str(original), str(table4), str(coarse), "--qi", "zip,age", *HIERARCHIES,
                                 "--html", str(page), "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [r["k"] for r in document["releases"]] == [3, 9]
    assert document["releases"][0]["prosecutor_risk"] == {"exact": "1/3", "value": 1 / 3}
    loss = next(f for f in document["releases"][0]["utility"] if f["metric"] == "loss" and f["attribute"] is None)
    assert loss["raw"]["exact"] == "3/8"
    text = page.read_text()
    assert len(re.findall(r'<tr class="release">', text)) == 2
    assert "<svg" in text and "<script" not in text
    assert "k (smallest class)" in text and "mean prosecutor risk" in text  # the two panels' axes, as text
    assert "Privacy against utility of 2 release(s)" in text


def test_cli_terminal_rows(candidates: tuple[Path, Path, Path]) -> None:
    original, table4, coarse = candidates
    result = runner.invoke(app, ["compare", str(original), str(table4), str(coarse), "--qi", "zip,age", *HIERARCHIES])
    assert result.exit_code == 0, result.output
    assert f"release: {table4}  k: 3  max_risk: 1/3  mean_risk: 1/3  loss: 3/8" in result.stdout
    assert f"release: {coarse}  k: 9  max_risk: 1/9  mean_risk: 1/9  loss: 1" in result.stdout


def test_a_release_without_the_plotted_model_is_named(candidates: tuple[Path, Path, Path], tmp_path: Path) -> None:
    original, table4, _ = candidates
    page = tmp_path / "page.html"
    result = runner.invoke(app, ["compare", str(original), str(table4), str(original), "--qi", "zip,age",
                                 "--html", str(page)])  # no hierarchies: 476** is no generalization of a zip code
    assert result.exit_code == 0, result.output
    assert f"not plotted (no loss (granularity) figure): {table4}" in page.read_text()


@pytest.mark.parametrize(("extra", "message"), [
    ([], "RELEASE: expected two or more releases to compare, found 1"),
    (["RELEASE", "--html", "ORIGINAL"], "--html"),
    (["RELEASE", "--html", "out.txt"], "out.txt: expected a file ending in .html"),
    (["RELEASE", "--html", "out.html", "--metric", "nonsense"], "--metric 'nonsense': expected one of the models"),
    (["RELEASE", "--key", "id"], "column 'id'"),
])
def test_cli_bad_input_exits_2(candidates: tuple[Path, Path, Path], tmp_path: Path, extra: list[str],
                               message: str) -> None:
    original, table4, _ = candidates
    args = [str(table4) if a == "RELEASE" else str(original) if a == "ORIGINAL" else
            str(tmp_path / a) if a.startswith("out.") else a for a in extra]
    result = runner.invoke(app, ["compare", str(original), str(table4), *args, "--qi", "zip,age"])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_one_name_for_one_concept() -> None:
    """``Comparison`` is how a threshold decides a level (the registry's at least, at most, below); candidate
    releases side by side are a ``ReleaseComparison``: no class of the packages takes the registry's name."""
    import ast

    root = TABLE4.parents[1]
    clashes = [f"{path.relative_to(root)}:{node.lineno}" for package in ("verifier", "theory", "reports", "privcert",
                                                                         "mechanisms")
               for path in sorted((root / package).rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.ClassDef) and node.name == "Comparison"]
    assert clashes == []
    assert type(compare(TABLE4 / "original.csv", [TABLE4 / "release.csv"], ["zip", "age"])).__name__ == "ReleaseComparison"
