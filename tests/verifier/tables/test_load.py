"""Loading releases from CSV and Parquet files (verifier/tables/load.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from verifier.errors import DataError, InputFileNotFoundError
from verifier.tables.load import SUFFIXES, load_table

CSV = "zip,age,disease\n476**,29,flu\n476**,,NA\n,22,null\n"


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"zip": ["476**", "476**", None], "age": [29, None, 22], "disease": ["flu", "NA", "null"]})


def test_csv_keeps_values_as_read_and_only_empty_cells_are_missing(tmp_path: Path) -> None:
    path = tmp_path / "release.csv"
    path.write_text(CSV)
    frame = load_table(path)
    assert list(frame.columns) == ["zip", "age", "disease"]
    # "NA" and "null" are released values, not missing markers; empty cells are missing.
    assert frame["disease"].tolist() == ["flu", "NA", "null"]
    assert frame["zip"].iloc[:2].tolist() == ["476**", "476**"] and pd.isna(frame["zip"].iloc[2])
    # text as written: no column becomes numbers (only attributes declared numerical are parsed)
    assert frame["age"].iloc[0] == "29" and pd.isna(frame["age"].iloc[1]) and frame["age"].iloc[2] == "22"
    assert isinstance(frame.index, pd.RangeIndex)


def test_gzip_csv_reads_like_plain_csv(tmp_path: Path) -> None:
    plain, packed = tmp_path / "release.csv", tmp_path / "release.csv.gz"
    plain.write_text(CSV)
    packed.write_bytes(gzip.compress(CSV.encode()))
    pd.testing.assert_frame_equal(load_table(packed), load_table(plain))


@pytest.mark.parametrize("name", ["release.parquet", "release.pq", "RELEASE.PARQUET"])
def test_parquet_round_trip(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    original = _frame()
    original.index = [10, 3, 7]  # index labels are dropped: a fresh RangeIndex comes back
    original.to_parquet(path)
    pd.testing.assert_frame_equal(load_table(path), original.reset_index(drop=True))


@pytest.mark.parametrize(
    ("name", "content", "error", "message"),
    [
        ("release.xlsx", b"x", DataError, "release.xlsx: unsupported file type; expected a name ending in "
         ".csv, .csv.gz, .parquet, .pq, found '.xlsx'"),
        ("release", b"x", DataError, "found 'no suffix'"),
        ("release.csv.bz2", b"x", DataError, "found '.csv.bz2'"),
        ("absent.csv", None, InputFileNotFoundError, "absent.csv: data file not found"),
        ("empty.csv", b"", DataError, "empty.csv: line 1: expected a header row naming the columns, found an empty line"),
        ("broken.parquet", b"not parquet at all", DataError, "broken.parquet: cannot read the file as Parquet"),
        ("binary.csv.gz", b"not gzip", DataError, "binary.csv.gz: cannot read the file as CSV"),
    ],
)
def test_bad_inputs(tmp_path: Path, name: str, content: bytes | None, error: type[Exception], message: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(error) as caught:
        load_table(path)
    assert message in str(caught.value)


def test_missing_file_is_also_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_table(tmp_path / "absent.parquet")


def test_a_directory_without_parquet_files_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    (folder / "notes.csv").write_text("a\n1\n")
    with pytest.raises(DataError, match="folder.csv: expected a Parquet dataset .*found no .parquet file"):
        load_table(folder)


def test_a_partitioned_parquet_directory_reads_partition_values_as_text(tmp_path: Path) -> None:
    for zip_code, part in (("02138", "a"), ("2138", "b")):
        folder = tmp_path / "release" / f"zip={zip_code}"
        folder.mkdir(parents=True)
        pd.DataFrame({"disease": [f"flu-{part}", None]}).to_parquet(folder / "part-0.parquet")
    (tmp_path / "release" / "_SUCCESS").write_text("")
    frame = load_table(tmp_path / "release")
    assert list(frame.columns) == ["disease", "zip"]
    assert frame["zip"].tolist() == ["02138", "02138", "2138", "2138"]
    assert frame["disease"].fillna("(missing)").tolist() == ["flu-a", "(missing)", "flu-b", "(missing)"]


def test_suffixes_are_documented() -> None:
    text = (Path(__file__).parents[3] / "docs" / "cli.md").read_text()
    assert all(f"`{suffix}`" in text for suffix in SUFFIXES)
