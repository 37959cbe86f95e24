"""End-to-end tests of ``privcert anonymize``: files in, release out, audited by the verifier."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from mechanisms.microaggregation import achieved
from privcert.cli import app
from verifier.privacy.anonymity import k_anonymity
from verifier.privacy.multiplicative import multiplicative_t_closeness
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec
from verifier.tables.load import load_table

runner = CliRunner()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(7)
    n = 240
    q = rng.normal(size=(n, 2))
    frame = pd.DataFrame({
        "age": np.round(q[:, 0] * 10 + 40),
        "zip": np.round(q[:, 1] * 100 + 5000),
        "edu": rng.choice(["low", "mid", "high"], n),
        "income": np.round((0.8 * q[:, 0] + 0.6 * rng.normal(size=n)) * 1000),
    })
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("algorithm", ["t-closeness-first", "k-anonymity-first", "merge"])
def test_microaggregate_writes_a_release_that_meets_k_and_t(data: Path, tmp_path: Path, algorithm: str) -> None:
    out = tmp_path / "release.csv"
    result = runner.invoke(app, [
        "anonymize", "microaggregate", str(data), "--qi", "age,zip,edu", "--ordinal", "edu=low,mid,high",
        "--sensitive", "income", "--k", "4", "--t", "0.15", "--algorithm", algorithm, "--out", str(out),
    ])
    assert result.exit_code == 0, result.output
    assert "achieved k = " in result.output and "normalized SSE = " in result.output
    measured = achieved(load_table(data), load_table(out), ["age", "zip", "edu"], "income",
                        {"edu": ["low", "mid", "high"]})
    assert measured.meets(4, Fraction(3, 20))
    assert f"achieved k = {measured.k.level.exact} " in result.output


def test_bucketize_writes_a_multiplicatively_t_close_release(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "release.parquet"
    result = runner.invoke(app, ["anonymize", "bucketize", str(data), "--qi", "age,zip", "--sensitive", "income",
                                 "--k", "5", "--t", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    release = load_table(out)
    assert release["income"].nunique() == 3
    classes, (table,) = count_tables(release, ["age", "zip"], [AttributeSpec(("income",))])
    assert k_anonymity(classes).level.satisfies(5, "at_least")
    assert multiplicative_t_closeness(table).level.satisfies(2, "at_most")


def test_same_seed_same_file(data: Path, tmp_path: Path) -> None:
    texts = []
    for name in ("one.csv", "two.csv"):
        args = ["anonymize", "microaggregate", str(data), "--qi", "age,zip", "--sensitive", "income",
                "--k", "3", "--t", "1/10", "--seed", "5", "--out", str(tmp_path / name)]
        assert runner.invoke(app, args).exit_code == 0
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize(("args", "message"), [
    (["--qi", "age,nope", "--t", "0.1"], "'nope' not found"),
    (["--qi", "age", "--t", "zero"], "--t"),
    (["--qi", "age", "--t", "-1"], "--t"),
    (["--qi", "age", "--t", "0.1", "--algorithm", "mondrian"], "algorithm"),
    (["--qi", "age", "--t", "0.1", "--k", "100000"], "k"),
])
def test_bad_input_exits_2(data: Path, tmp_path: Path, args: list[str], message: str) -> None:
    base = ["anonymize", "microaggregate", str(data), "--sensitive", "income", "--out", str(tmp_path / "r.csv")]
    if "--k" not in args:
        base += ["--k", "3"]
    result = runner.invoke(app, base + args)
    assert result.exit_code == 2
    assert message in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["anonymize", "bucketize", str(tmp_path / "absent.csv"), "--qi", "a",
                                 "--sensitive", "s", "--k", "2", "--t", "2", "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 2
