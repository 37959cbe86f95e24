"""Exits: an output never overwrites an input (a hierarchy file included), a closed pipe is not a failed requirement."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _processes import CEILING
from privcert.cli import app

ORIGINAL = Path("examples/hospital/admissions.csv")
RELEASE = Path("privcert/data/hospital/release.csv")


@pytest.mark.parametrize("command", ["utility", "compare", "measure"])
@pytest.mark.parametrize("suffix", ["json", "html"])
def test_an_output_never_overwrites_a_hierarchy_file(tmp_path: Path, command: str, suffix: str) -> None:
    hierarchy = tmp_path / f"x.{suffix}"
    hierarchy.write_text("pneumonia,*\nheart failure,*\n")
    option = "--json" if suffix == "json" or command != "compare" else "--html"
    if command == "utility":
        arguments = ["utility", str(ORIGINAL), str(RELEASE), "--qi", "diagnosis"]
    elif command == "compare":
        arguments = ["compare", str(ORIGINAL), str(RELEASE), str(RELEASE), "--qi", "diagnosis"]
    else:
        arguments = ["measure", str(RELEASE), "--qi", "zip", "--sensitive", "diagnosis"]
    result = CliRunner().invoke(app, [*arguments, "--hierarchy", f"diagnosis={hierarchy}", option, str(hierarchy)])
    assert result.exit_code == 2 and "refusing to overwrite an input" in result.output, result.output
    assert hierarchy.read_text() == "pneumonia,*\nheart failure,*\n"


def test_a_closed_pipe_is_not_a_failed_requirement(tmp_path: Path) -> None:
    releases = []
    for index in range(12):
        copy = tmp_path / f"release{index}.csv"
        shutil.copy(RELEASE, copy)
        releases.append(str(copy))
    process = subprocess.Popen([sys.executable, "-m", "privcert", "compare", str(ORIGINAL), *releases, "--qi",
                                "age,zip", "--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # the reader stops at once, as `| head -1` does after its line
    _, errors = process.communicate(timeout=CEILING)
    assert process.returncode == 141, errors


def test_bad_inputs_exit_2_not_3(tmp_path: Path) -> None:
    runner = CliRunner()
    release, table = tmp_path / "release.csv", tmp_path / "population.csv"
    release.write_text("count,s\n1,a\n1,b\n2,a\n")
    table.write_text("count\n5\n")
    result = runner.invoke(app, ["measure", str(release), "--qi", "count", "--risk", "--population-table", str(table)])
    assert result.exit_code == 2 and "rename the quasi-identifier" in result.output, result.output
    process = subprocess.run([sys.executable, "-m", "privcert", "models", "--json", str(tmp_path / "nodir" / "x.json")],
                             capture_output=True, text=True, timeout=CEILING)
    assert process.returncode == 2 and "cannot write the file" in process.stderr, process.stderr


@pytest.mark.slow
def test_a_malformed_csv_exits_2_every_time(tmp_path: Path) -> None:
    """Arrow's reader threads could abort the interpreter's teardown after the error (exit 134, about 1 run in 16)."""
    bad = tmp_path / "bad.csv"
    bad.write_text('age,zip\n1,2,3\n"unterminated,4\n')
    codes = [subprocess.run([sys.executable, "-m", "privcert", "utility", str(ORIGINAL), str(bad), "--qi", "age"],
                            capture_output=True, timeout=CEILING).returncode for _ in range(32)]
    assert set(codes) == {2}
