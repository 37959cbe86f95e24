"""verifier.randomized.mechanism: the exact matrix type and the mechanism CSV reader."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from verifier.errors import DataError, InputFileNotFoundError, MechanismError
from verifier.randomized.mechanism import Mechanism, load_mechanism, mechanism_csv

F = Fraction


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected a header 'value,<bucket>,...', found an empty file"),
        ("true,a,b\na,1,0\n", r"line 1, column 1: expected the header 'value', found 'true'"),
        ("value\na\n", "line 1: expected at least one bucket column"),
        ("value,a,a\na,1,0\n", "line 1, column 3: bucket 'a' is already column 2"),
        ("value,a,b\na,1\n", "line 2: expected 3 cells \\(as the header\\), found 2"),
        ("value,a,b\na,0.5,0.4\n", "line 2 \\(true value 'a'\\): expected probabilities summing to 1, found sum 9/10"),
        ("value,a,b\na,1,0\nb,x,1\n", "line 3, column 'a': expected a number"),
        ("value,a,b\na,1,0\nb,3/2,-1/2\n", "line 3, column 'a': expected a number ≥ 0 and ≤ 1, found 3/2"),
        ("value,a,b\na,ln(2),0\n", "line 2, column 'a': expected a rational probability"),
        ("value,a,b\na,1,0\na,0,1\n", "line 3, column 'value': true value 'a' is already on line 2"),
        ("value,a,b\n", "expected one row per true value after the header, found none"),
    ],
)
def test_csv_errors_name_file_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MechanismError, match=message) as caught:
        load_mechanism(path)
    assert str(path) in str(caught.value)


def test_csv_reads_decimals_and_fractions_exactly(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("value,flu,cold\nflu,0.7,3/10\ncold,1/3,2/3\n", encoding="utf-8")
    mechanism = load_mechanism(path)
    assert mechanism.values == ("flu", "cold") and mechanism.buckets == ("flu", "cold")
    assert mechanism.matrix == ((F(7, 10), F(3, 10)), (F(1, 3), F(2, 3)))
    (tmp_path / "again.csv").write_text(mechanism_csv(mechanism), encoding="utf-8")
    assert load_mechanism(tmp_path / "again.csv").matrix == mechanism.matrix


def test_missing_file() -> None:
    with pytest.raises(InputFileNotFoundError, match="mechanism file not found"):
        load_mechanism("/nonexistent/m.csv")


@pytest.mark.parametrize(
    ("values", "buckets", "matrix", "message"),
    [
        ((), ("x",), (), "expected at least one of the true values"),
        (("a", "a"), ("x",), ((1,), (1,)), "true values must be distinct, found 'a' twice"),
        (("a",), ("x", "y"), ((1,),), "row of true value 'a': expected 2 entries"),
        (("a",), ("x",), ((0.5,),), "row of true value 'a', bucket 'x': expected an exact probability"),
        (("a",), ("x",), ((1,), (1,)), "expected one row per true value \\(1\\), found 2 rows"),
    ],
)
def test_matrix_validation(values: tuple, buckets: tuple, matrix: tuple, message: str) -> None:
    with pytest.raises(MechanismError, match=message):
        Mechanism(values, buckets, matrix)


def test_scaled_columns_are_exact_integers() -> None:
    mechanism = Mechanism(("a", "b"), ("x", "y"), (("1/3", "2/3"), ("1/4", "3/4")))
    numerators, denominators = mechanism.scaled
    assert denominators == (12, 12)
    assert numerators.tolist() == [[4, 8], [3, 9]]


def test_composition_and_sampling() -> None:
    first = Mechanism(("a", "b"), ("a", "b"), (("1/2", "1/2"), (0, 1)))
    second = Mechanism(("a", "b"), ("x", "y"), (("1/4", "3/4"), (1, 0)))
    assert first.then(second).matrix == ((F(5, 8), F(3, 8)), (F(1), F(0)))
    with pytest.raises(MechanismError, match="the first's buckets must be the second's values"):
        second.then(first)
    column = ["a"] * 40_000 + ["b"] * 10
    released = first.sample(column, np.random.default_rng(7))
    assert set(released[40_000:]) == {"b"}
    share = float(np.mean(released[:40_000] == "a"))
    assert abs(share - 0.5) < 5 * (0.25 / 40_000) ** 0.5  # 5 standard deviations
    assert (first.sample(column, np.random.default_rng(7)) == released).all()
    with pytest.raises(DataError, match="record 2 has true value 'c', which is not a row"):
        first.sample(["a", "c"], np.random.default_rng(0))
