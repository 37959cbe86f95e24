"""Values as written: every way a file could be misread into a wrong PASS is an error or read exactly.

Each case below was a wrong result or a traceback before values were read as text: the
expected message names the file and the line, column or row.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from privcert.cli import app
from verifier.errors import DataError, HierarchyError, IdentifierColumnWarning, PolicyError
from verifier.measure import measure
from verifier.policy import load_policy
from verifier.question import Question
from verifier.tables.counts import AttributeSpec
from verifier.tables.hierarchy import load_hierarchy
from verifier.tables.load import load_table
from verifier.tables.values import exact_number

runner = CliRunner()


def _k(path: Path, qi: str = "zip", sensitive: str = "disease", *extra: str) -> dict:
    result = runner.invoke(app, ["measure", str(path), "--qi", qi, "--sensitive", sensitive, *extra, "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    return {m["model"]: m for m in document["measurements"] if m["attribute"] in (None, sensitive)}


def test_an_extra_field_is_an_error_not_a_shifted_column(tmp_path: Path) -> None:
    """Before: pandas took the first column as the index, the columns shifted, and k = 2 passed (true k = 1)."""
    path = tmp_path / "r.csv"
    path.write_text("zip,disease\n1,a,x\n1,b\n2,a\n2,b\n")
    with pytest.raises(DataError, match=r"r\.csv: line 2: expected 2 fields as in the header, found 3"):
        load_table(path)


def test_a_missing_field_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("zip,age,disease\n1,2,a\n1,b\n")
    with pytest.raises(DataError, match=r"r\.csv: line 3: expected 3 fields as in the header, found 2; 1 such row"):
        load_table(path)


def test_zip_codes_keep_their_spelling(tmp_path: Path) -> None:
    """``02138``, ``2138``, ``2138.0`` and ``+2138`` are four classes of one record each: k = 1, not 4."""
    path = tmp_path / "r.csv"
    path.write_text("zip,disease\n02138,a\n2138,b\n2138.0,a\n+2138,b\n")
    assert _k(path)["k_anonymity"]["exact"] == "1"


def test_integer_codes_stay_integers_beside_an_empty_cell(tmp_path: Path) -> None:
    """Before: one empty cell made the column float, ``1`` became ``1.0`` and missed its hierarchy leaf."""
    path, hierarchy = tmp_path / "r.csv", tmp_path / "h.csv"
    path.write_text("zip,code\n1,1\n1,2\n,1\n,2\n")
    hierarchy.write_text("1,any\n2,any\n")
    levels = _k(path, "zip", "code", "--hierarchy", f"code={hierarchy}")
    assert levels["k_anonymity"]["exact"] == "2"


def test_big_integers_in_a_quasi_identifier_stay_distinct(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(f"zip,disease\n{2**53},a\n{2**53 + 1},b\n,a\n")
    assert _k(path)["k_anonymity"]["exact"] == "1"


def test_big_numerical_values_stay_distinct(tmp_path: Path) -> None:
    """Before: 2^64 and 2^64 + 1 merged in float64, t = 0 and a PASS."""
    path = tmp_path / "r.csv"
    path.write_text(f"zip,salary\n1,{2**64}\n1,{2**64}\n2,{2**64 + 1}\n2,{2**64 + 1}\n")
    levels = _k(path, "zip", "salary", "--numerical", "salary")
    assert levels["t_closeness"]["exact"] == "1/2"


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "Infinity", "1,5", " 5", "12 kg"])
def test_numerical_text_that_is_not_a_finite_number_names_the_row(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.csv"
    with path.open("w", newline="") as stream:
        csv.writer(stream).writerows([["zip", "salary"], ["1", "3"], ["1", text]])
    frame = load_table(path)
    with pytest.raises(DataError, match=rf"column 'salary' is declared numerical but row 2 .* holds {text!r}"):
        measure(frame, Question.of(["zip"], [AttributeSpec(("salary",), kind="numerical")]))


def test_exact_numbers() -> None:
    assert exact_number("1.0") == exact_number("1") == 1
    assert exact_number(str(2**70 + 1)) == 2**70 + 1
    assert exact_number("0.1") != exact_number("0.10000000000000001")
    assert exact_number("nan") is None and exact_number("") is None


def test_duplicate_header_names_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("zip,disease,disease\n1,a,b\n")
    with pytest.raises(DataError, match=r"line 1: the column name 'disease' appears twice \(columns 2 and 3\)"):
        load_table(path)


def test_repeated_quasi_identifier_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("zip,disease\n1,a\n")
    result = runner.invoke(app, ["measure", str(path), "--qi", "zip,zip", "--sensitive", "disease"])
    assert result.exit_code == 2 and "--qi: 'zip' is named twice" in result.stderr


def test_utf8_with_bom_and_other_encodings(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_bytes("zip,name\n1,José\n".encode("utf-8-sig"))
    assert list(load_table(path).columns) == ["zip", "name"]
    path.write_bytes("zip,name\n1,José\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"r\.csv: line 2, column 6: byte 0xe9 is not valid utf-8"):
        load_table(path)
    assert load_table(path, encoding="latin-1")["name"].tolist() == ["José"]
    result = runner.invoke(app, ["measure", str(path), "--qi", "zip", "--sensitive", "name", "--encoding", "latin-1",
                                 "--json", "-"])
    assert result.exit_code == 0, result.output


def test_latin1_policy_and_hierarchy_are_clean_errors(tmp_path: Path) -> None:
    policy, hierarchy = tmp_path / "p.toml", tmp_path / "h.csv"
    policy.write_bytes('[data]\nqi = ["zip"]\n# café\n'.encode("latin-1"))
    with pytest.raises(PolicyError, match=r"p\.toml: line 3, column 6: byte 0xe9 is not valid utf-8"):
        load_policy(policy)
    hierarchy.write_bytes("café,any\n".encode("latin-1"))
    with pytest.raises(HierarchyError, match=r"h\.csv: line 1, column 4: byte 0xe9"):
        load_hierarchy(hierarchy)


def test_whitespace_is_data_on_both_sides(tmp_path: Path) -> None:
    """A hierarchy leaf `` flu`` matches the data value `` flu`` and not ``flu``."""
    path, hierarchy = tmp_path / "r.csv", tmp_path / "h.csv"
    path.write_text("zip,disease\n1, flu\n1,flu\n")
    hierarchy.write_text(" flu,any\nflu,any\n")
    assert _k(path, "zip", "disease", "--hierarchy", f"disease={hierarchy}")["k_anonymity"]["exact"] == "2"
    hierarchy.write_text("flu,any\ncold,any\n")
    result = runner.invoke(app, ["measure", str(path), "--qi", "zip", "--sensitive", "disease",
                                 "--hierarchy", f"disease={hierarchy}"])
    assert result.exit_code == 2 and "' flu'" in result.stderr


def test_a_unique_identifier_column_is_flagged(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("id,zip,disease\n1,a,x\n2,a,y\n3,b,x\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        measure(load_table(path), Question.of(["id", "zip"], [AttributeSpec(("disease",))]))
    assert any(issubclass(w.category, IdentifierColumnWarning) and "'id'" in str(w.message) for w in caught)


def test_parquet_nested_columns_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"zip": ["1"], "tags": [["a", "b"]]}), path)
    with pytest.raises(DataError, match=r"r\.parquet: column 'tags' holds list<element: string> values"):
        load_table(path)


def test_parquet_integers_with_nulls_stay_integers(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"zip": pa.array([2**60 + 1, 2**60, None], pa.int64()), "d": ["a", "b", "a"]}), path)
    assert load_table(path)["zip"].tolist()[:2] == [2**60 + 1, 2**60]


def test_infinite_values_in_parquet_do_not_crash_json(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"zip": [float("inf"), 1.0, 1.0], "salary": [1.0, 2.0, float("inf")],
                             "d": ["a", "b", "a"]}), path)
    levels = _k(path, "zip", "d")
    assert levels["k_anonymity"]["exact"] == "1" and levels["k_anonymity"]["witness"]["qi"] == {"zip": "inf"}
    result = runner.invoke(app, ["measure", str(path), "--qi", "zip", "--sensitive", "salary",
                                 "--numerical", "salary", "--json", "-"])
    assert result.exit_code == 2 and "expected a finite number" in result.stderr


_CELL = st.one_of(
    st.none(),
    st.text(alphabet="0123456789+-.e a,\"'é", min_size=1, max_size=6),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(_CELL, _CELL, _CELL), min_size=1, max_size=12))
def test_files_measure_like_the_frame_they_were_written_from(tmp_path: Path, rows: list[tuple]) -> None:
    """CSV and Parquet round trips give the same measurements as the frame built directly."""
    frame = pd.DataFrame(rows, columns=["zip", "age", "disease"], dtype=object)
    frame["disease"] = frame["disease"].fillna("none")
    spec = [AttributeSpec(("disease",))]
    expected = [m.to_json() for m in measure(frame, Question.of(["zip", "age"], spec)).measurements]
    csv_path, parquet_path = tmp_path / "r.csv", tmp_path / "r.parquet"
    with csv_path.open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream, quoting=csv.QUOTE_MINIMAL)
        writer.writerow(frame.columns)
        writer.writerows([["" if v is None else v for v in row] for row in frame.itertuples(index=False)])
    pq.write_table(pa.Table.from_pandas(frame.astype(object), preserve_index=False), parquet_path)
    for path in (csv_path, parquet_path):
        found = [m.to_json() for m in measure(load_table(path), Question.of(["zip", "age"], spec)).measurements]
        assert found == expected, path.name
