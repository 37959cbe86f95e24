"""Engines (verifier/engines): pandas, DuckDB and Spark give identical measurements.

Every measure runs on count tables, so the engines must hand back the same classes
(up to numbering) and the same counts: the JSON of every measurement, witness included,
and of the randomized levels must be identical, byte for byte, whatever the engine.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _processes import CEILING
from privcert.cli import app
from verifier.audit import audit
from verifier.engines import duckdb_engine, get_engine, numbered, pandas_engine
from verifier.engines.duckdb_engine import DuckDBEngine
from verifier.engines.spark_engine import SparkEngine
from verifier.engines.sql import CLASS, EngineReadError, aggregation
from verifier.errors import DataError, ExcludedRowsWarning, PolicyError
from verifier.measure import measure, measure_tables
from verifier.policy import joint_spec, load_policy
from verifier.question import Question
from verifier.randomized.mechanism import load_mechanism
from verifier.randomized.publisher import publisher_measurements
from verifier.tables.counting import count_tables
from verifier.tables.counts import AttributeSpec, Classes
from verifier.tables.engine_counts import GroupCounter
from verifier.tables.hierarchy import load_hierarchy
from verifier.tables.load import dictionary_columns
from verifier.tables.stream_counts import StreamCounter

ROOT = Path(__file__).parents[3]
TABLE4 = ROOT / "examples" / "table4"
QI = ("zip", "age")
DISEASES = ("flu", "gastritis", "colitis")
SALARIES = ("3", "9007199254740993", "9007199254740992", "2.50", "2.5", "-1e3", "0.1", "1" + "0" * 30, None)
SPECS: tuple[AttributeSpec, ...] = (
    AttributeSpec(("disease",)),
    AttributeSpec(("salary",), kind="numerical", missing="exclude"),
    AttributeSpec(("job",), missing="value"),
    AttributeSpec(("grade",), kind="ordinal", order=("low", "mid", "high")),
)
SPECS = SPECS + (joint_spec([SPECS[0], SPECS[2]]),)
MECHANISM = "value,flu,gastritis,colitis\nflu,1/2,1/4,1/4\ngastritis,1/4,1/2,1/4\ncolitis,1/8,1/8,3/4\n"


@st.composite
def _releases(draw: st.DrawFn) -> pd.DataFrame:
    rows = draw(st.integers(3, 30))  # (k,t)-closeness needs k ≤ N-1 for k = 2

    def column(values: Sequence[Any]) -> list[Any]:
        return draw(st.lists(st.sampled_from(values), min_size=rows, max_size=rows))

    return pd.DataFrame({
        "zip": column(["476**", "4790*", "02138", "2138", None]),
        "age": column(["2*", "3*", None]),
        "disease": column(DISEASES),
        "salary": column(SALARIES),
        "job": column(["nurse", "clerk", None]),
        "grade": column(["low", "mid", "high"]),
    })


def _json(path: Path, engine: Any, tmp: Path) -> str:
    """Everything measured, as the CLI writes it: the report and the randomized levels of ``disease``."""
    hierarchy = load_hierarchy(TABLE4 / "disease_hierarchy.csv")
    (tmp / "mechanism.csv").write_text(MECHANISM)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        report = measure(path, Question.of(QI, SPECS, hierarchies={"disease": hierarchy}, l=[2, 3]), engine=engine,
                         progress=False)
    document = report.to_json()
    document["randomized"] = [m.to_json() for m in publisher_measurements(
        report.tables["disease"], load_mechanism(tmp / "mechanism.csv"), (1, 2))]
    return json.dumps(document, sort_keys=True, ensure_ascii=False)


def _assert_same_json(frame: pd.DataFrame, tmp: Path, engines: Sequence[Any]) -> None:
    path = tmp / "release.csv"
    frame.to_csv(path, index=False)
    expected = _json(path, "pandas", tmp)
    assert '"model": "t_closeness"' in expected and '"hierarchical"' in expected and "randomized" in expected
    for engine in engines:
        assert _json(path, engine, tmp) == expected, f"engine {getattr(engine, 'name', engine)}"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=_releases(), order=st.randoms())
def test_duckdb_measures_exactly_as_pandas(frame: pd.DataFrame, order: Any, tmp_path: Path) -> None:
    _assert_same_json(frame, tmp_path, [DuckDBEngine(), DuckDBEngine(dense_cells=0), DuckDBEngine(dense_cells=40)])
    shuffled = frame.sample(frac=1, random_state=order.randint(0, 2**31)).reset_index(drop=True)
    expected = _json(tmp_path / "release.csv", "pandas", tmp_path)
    shuffled.to_csv(tmp_path / "release.csv", index=False)
    assert _json(tmp_path / "release.csv", DuckDBEngine(), tmp_path) == expected, "row order changes nothing"
    typed = frame.assign(age=frame["age"].map({"2*": 20, "3*": 30}).astype("Int64"))
    typed.to_parquet(tmp_path / "release.parquet")
    assert _json(tmp_path / "release.parquet", DuckDBEngine(), tmp_path) == _json(
        tmp_path / "release.parquet", "pandas", tmp_path), "Parquet, with an integer QI column holding missing values"


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=_releases())
def test_spark_measures_exactly_as_pandas(frame: pd.DataFrame, spark: SparkEngine, tmp_path: Path) -> None:
    _assert_same_json(frame, tmp_path, [spark])


def _partitioned(root: Path, rows: int = 3000) -> pd.DataFrame:
    """A release written as Hive-partitioned Parquet (by region), with missing values and typed columns."""
    generator = np.random.default_rng(7)
    frame = pd.DataFrame({
        "region": generator.choice(["north", "south", "east"], rows),
        "age": pd.array(np.where(generator.random(rows) < 0.05, None, generator.integers(20, 60, rows) // 10 * 10),
                        dtype="Int64"),
        "zip": np.where(generator.random(rows) < 0.05, None, generator.choice(["02138", "2138", "476**"], rows)),
        "disease": generator.choice(list(DISEASES), rows),
        "salary": [str(v) for v in generator.choice([3, 2**62 + 1, 2**62], rows)],
    })
    pq.write_to_dataset(pa.Table.from_pandas(frame, preserve_index=False), root, partition_cols=["region"])
    return frame


def _policy(tmp: Path) -> Path:
    policy = tmp / "policy.toml"
    policy.write_text(
        '[data]\nqi = ["region", "age", "zip"]\n\n[sensitive.disease]\n\n[sensitive.salary]\nkind = "numerical"\n\n'
        '[[require]]\nmodel = "k_anonymity"\nthreshold = 2\n\n'
        '[[require]]\nmodel = "t_closeness"\nattribute = "salary"\nthreshold = 0.3\n\n'
        '[[require]]\nmodel = "entropy_l_diversity"\nattribute = "disease"\nthreshold = 2\n'
    )
    return policy


def test_spark_audits_a_partitioned_parquet_dataset_as_pandas_does(spark: SparkEngine, tmp_path: Path) -> None:
    frame = _partitioned(tmp_path / "release")
    policy = load_policy(_policy(tmp_path))
    expected = audit(tmp_path / "release", policy).to_json()
    assert expected["rows"] == len(frame)
    assert expected["classes"] == len(frame.drop_duplicates(["region", "age", "zip"]))
    for engine in (spark, DuckDBEngine()):
        result = audit(tmp_path / "release", policy, engine=engine)
        assert result.report.engine == engine.name
        assert json.dumps(result.to_json(), sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize("kind", ["csv", "parquet", "hive"])
def test_duckdb_streamed_counts_equal_its_group_by_counts(kind: str, tmp_path: Path) -> None:
    """Counting the streamed rows densely gives the count tables of the SQL group-bys, missing values included."""
    frame = _partitioned(tmp_path / "hive")
    path = {"csv": tmp_path / "release.csv", "parquet": tmp_path / "release.parquet", "hive": tmp_path / "hive"}[kind]
    if kind == "csv":
        frame.to_csv(path, index=False)
    elif kind == "parquet":
        frame.to_parquet(path)
    qi = ["region", "age", "zip"]
    specs = [AttributeSpec(("disease",)), AttributeSpec(("salary",), kind="numerical"),
             AttributeSpec(("zip", "disease"), missing="value")]
    streamed = DuckDBEngine().count_tables(path, qi, specs, source=str(path))
    grouped = DuckDBEngine(dense_cells=0).count_tables(path, qi, specs, source=str(path))
    assert streamed[0].keys.equals(grouped[0].keys) and streamed[0].keys.isna().any().any()
    assert np.array_equal(streamed[0].sizes, grouped[0].sizes) and streamed[0].rows == len(frame)
    for mine, theirs in zip(streamed[1], grouped[1], strict=True):
        assert mine.values == theirs.values
        for name in ("class_index", "value_index", "count", "sizes", "totals"):
            assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name


def test_duckdb_takes_its_plan_and_spill_folder_from_the_environment(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """What the command line has no option for: ``PRIVCERT_DUCKDB_DENSE_CELLS=0`` counts by the group-bys, which
    spill under ``PRIVCERT_DUCKDB_TEMP_DIRECTORY`` (made when missing, left empty); a bound that is not a whole
    number is a policy error (exit 2)."""
    frame = _partitioned(tmp_path / "hive")
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    qi = ["region", "age", "zip"]
    specs = [AttributeSpec(("disease",)), AttributeSpec(("salary",), kind="numerical")]
    expected = measure(path, Question.of(qi, specs), engine=DuckDBEngine(), progress=False).to_json()["measurements"]
    spill = tmp_path / "spill" / "duckdb"
    monkeypatch.setenv("PRIVCERT_DUCKDB_DENSE_CELLS", "0")
    monkeypatch.setenv("PRIVCERT_DUCKDB_TEMP_DIRECTORY", str(spill))
    engine = get_engine("duckdb")
    assert engine == DuckDBEngine(dense_cells=0, temp_directory=spill)
    assert measure(path, Question.of(qi, specs), engine=engine, progress=False).to_json()["measurements"] == expected
    assert spill.is_dir() and not any(spill.iterdir()), "DuckDB's folder under it is removed afterwards"
    monkeypatch.setenv("PRIVCERT_DUCKDB_DENSE_CELLS", "2^26")
    result = CliRunner().invoke(app, ["measure", str(path), "--qi", "region", "--sensitive", "disease",
                                      "--engine", "duckdb", "--quiet"])
    assert result.exit_code == 2, result.output
    assert ("PRIVCERT_DUCKDB_DENSE_CELLS: expected a whole number of cells (0 counts by group-bys), "
            "found '2^26'") in result.output


def test_pandas_streams_parquet_and_reads_it_whole_only_to_name_an_error(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import verifier.engines.pandas_engine as pandas_engine
    from verifier.tables.load import load_table

    frame = _partitioned(tmp_path / "hive", rows=600)
    qi = ["region", "age", "zip"]
    specs = [AttributeSpec(("disease",)), AttributeSpec(("salary",), kind="numerical")]
    expected = measure(frame, Question.of(qi, specs), progress=False).to_json()["measurements"]
    frame.to_parquet(tmp_path / "release.parquet")
    with monkeypatch.context() as patched:
        patched.setattr(pandas_engine, "load_table", None)  # streamed: never loaded whole
        for path in (tmp_path / "release.parquet", tmp_path / "hive"):
            assert measure(path, Question.of(qi, specs), progress=False).to_json()["measurements"] == expected
    frame.loc[[5, 9], "disease"] = None
    frame.to_parquet(tmp_path / "release.parquet")
    with pytest.raises(DataError, match=r"'disease' has 2 missing value\(s\), the first at row 6 \(index label 5\)"):
        measure(tmp_path / "release.parquet", Question.of(qi, specs[:1]), progress=False)
    loaded = load_table(tmp_path / "release.parquet")
    assert loaded["disease"].isna().sum() == 2


def test_cli_records_the_engine_in_the_json_and_the_certificate(tmp_path: Path) -> None:
    runner = CliRunner()
    keys = tmp_path / "key"
    assert runner.invoke(app, ["keygen", "--out", str(keys)]).exit_code == 0
    documents = {}
    for engine in ("pandas", "duckdb"):
        out = tmp_path / f"{engine}.json"
        result = runner.invoke(app, ["audit", "--policy", str(TABLE4 / "policy.toml"), "--engine", engine, "--quiet",
                                     "--json", str(out), "--sign", str(keys), "--certificate",
                                     str(tmp_path / f"{engine}.cert.json")], catch_exceptions=False)
        assert result.exit_code == 1, result.output  # Table 4 is not 0.2-close
        documents[engine] = json.loads(out.read_text())
        assert documents[engine]["run"]["engine"] == engine
        envelope = json.loads((tmp_path / f"{engine}.cert.json").read_text())
        import base64

        statement = json.loads(base64.b64decode(envelope["payload"]))
        assert statement["predicate"]["tool"]["engine"] == engine
    assert documents["pandas"]["measurements"] == documents["duckdb"]["measurements"]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_errors_name_the_release_row_as_pandas_does(engine: str, spark: SparkEngine, tmp_path: Path) -> None:
    path = tmp_path / "release.csv"
    path.write_text("zip,salary,disease\n1,10,flu\n2,x,\n3,y,flu\n")
    numerical = [AttributeSpec(("salary",), kind="numerical")]
    with pytest.raises(DataError, match=r"column 'salary' is declared numerical but row 2 .*holds 'x'"):
        measure(path, Question.of(["zip"], numerical), engine=engine)
    with pytest.raises(DataError, match=r"'disease' has 1 missing value\(s\), the first at row 2"):
        measure(path, Question.of(["zip"], [AttributeSpec(("disease",))]), engine=engine)
    with pytest.raises(DataError, match=r"column\(s\) \['wage'\] not found"):
        measure(path, Question.of(["zip"], [AttributeSpec(("wage",))]), engine=engine)
    path.write_text("zip,disease\n1,flu\n2,flu,extra\n")
    with pytest.raises(DataError, match=r"release.csv: line 3: expected 2 fields as in the header, found 3"):
        measure(path, Question.of(["zip"], [AttributeSpec(("disease",))]), engine=engine)
    path.write_bytes(b"zip,disease\n1,flu\n2,fl\xffu\n")
    with pytest.raises(DataError, match=r"release.csv: line 3, column 5: byte 0xff is not valid utf-8"):
        measure(path, Question.of(["zip"], [AttributeSpec(("disease",))]), engine=engine)


def test_each_attribute_is_one_group_by_with_quoted_names() -> None:
    assert aggregation(["zip"], ['a "b"', "sex"]) == (
        'SELECT "zip", "a ""b""", "sex", COUNT(*) AS "privcert_count" FROM release '
        'GROUP BY "zip", "a ""b""", "sex"')
    assert aggregation(["zip", "age"], ["zip"]) == (
        'SELECT "zip", "age", COUNT(*) AS "privcert_count" FROM release GROUP BY "zip", "age"')
    assert aggregation(["score"], ["disease"], floats={"score"}) == (
        'SELECT MIN("score") AS "score", "disease", COUNT(*) AS "privcert_count" FROM release '
        'GROUP BY "score", ("score" = 0 AND atan2("score", -1) < 0), CAST("score" AS STRING), "disease"')


def test_engine_names_and_master_are_checked() -> None:
    with pytest.raises(PolicyError, match="--engine: expected one of pandas, duckdb, spark, found 'polars'"):
        get_engine("polars")
    with pytest.raises(PolicyError, match="--master local: applies to --engine spark only"):
        get_engine("duckdb", master="local")
    with pytest.raises(PolicyError, match="pass a path, not a frame"):
        measure(pd.DataFrame({"q": [1]}), Question.of(["q"], []), engine="duckdb")


def test_progress_shows_the_engine_phases_then_the_models() -> None:
    import io

    from rich.console import Console
    from rich.progress import Progress

    from verifier.measure import _Steps

    with Progress(console=Console(file=io.StringIO(), force_terminal=True)) as bar:
        bar.add_task("scan", total=None)
        steps = _Steps(bar)
        steps.phase("group", 2, 4, "aggregations, 1,000 rows in 3 partition(s)")
        assert (bar.tasks[0].description, bar.tasks[0].completed, bar.tasks[0].total) == (
            "group: 2/4 aggregations, 1,000 rows in 3 partition(s)", 2, 4)
        steps.total = 10
        steps.advance("k_anonymity")
        steps.advance("prosecutor_risk")
        assert (bar.tasks[0].description, bar.tasks[0].completed, bar.tasks[0].total) == (
            "measure: prosecutor_risk", 2, 10)


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_a_file_that_is_not_parquet_is_a_data_error(engine: str, tmp_path: Path) -> None:
    (tmp_path / "release.parquet").write_text("zip,disease\n1,flu\n")
    with pytest.raises(DataError, match="release.parquet: cannot read the file as (Parquet|PARQUET)"):
        measure(tmp_path / "release.parquet", Question.of(["zip"], [AttributeSpec(("disease",))]), engine=engine)


def test_a_dataset_directory_has_a_digest_of_its_files(tmp_path: Path) -> None:
    from reports.statement import sha256_file

    _partitioned(tmp_path / "release", rows=30)
    before = sha256_file(tmp_path / "release")
    assert before == sha256_file(tmp_path / "release") and len(before) == 64
    next((tmp_path / "release").rglob("*.parquet")).rename(tmp_path / "release" / "moved.parquet")
    assert sha256_file(tmp_path / "release") != before


def test_pandas_reads_parquet_text_as_categories_with_the_values_as_written(tmp_path: Path) -> None:
    from verifier.tables.counting import count_tables
    from verifier.tables.load import load_table

    frame = pd.DataFrame({"zip": ["2138", "02138", None, "2138", "02138 "],
                          "disease": ["gastritis", "flu", "colitis", "flu", "colitis"],
                          "salary": ["10", "9007199254740993", "9007199254740992", "2.50", "2.5"]})
    frame.to_parquet(tmp_path / "release.parquet")
    loaded = load_table(tmp_path / "release.parquet", categories=list(frame.columns))
    assert all(isinstance(loaded[c].dtype, pd.CategoricalDtype) for c in frame.columns)
    assert loaded["zip"].tolist()[:2] == ["2138", "02138"] and loaded["zip"].cat.categories.size == 3
    specs = [AttributeSpec(("disease",)), AttributeSpec(("salary",), kind="numerical")]
    classes, tables = count_tables(loaded, ["zip"], specs)
    assert [classes.describe(i)["zip"] for i in range(classes.count)] == ["2138", "02138", None, "02138 "]
    assert tables[0].values == ("colitis", "flu", "gastritis"), "sorted, not in the dictionary's order"
    assert tables[1].values == (Decimal("2.5"), 10, 9007199254740992, 9007199254740993)
    plain = measure(frame, Question.of(["zip"], specs), progress=False).to_json()
    assert measure(tmp_path / "release.parquet", Question.of(["zip"], specs), progress=False).to_json() == plain


def test_pandas_reads_as_categories_only_columns_parquet_stores_as_small_dictionaries(tmp_path: Path) -> None:
    rows = 50_000
    pd.DataFrame({"zip": np.array(["02138", "2138"])[np.arange(rows) % 2],
                  "id": [f"person-{i}" for i in range(rows)]}).to_parquet(tmp_path / "release.parquet")
    assert dictionary_columns(tmp_path / "release.parquet") == {"zip"}
    (tmp_path / "release.csv").write_text("zip\n02138\n")
    assert dictionary_columns(tmp_path / "release.csv") == set()


class _StoppedJvm:
    """A Spark session whose JVM has exited: every call over the gateway is refused."""

    class _Frame:
        def createOrReplaceTempView(self, name: str) -> None:  # noqa: N802 (Spark's name)
            return None

    class _Reader:
        def parquet(self, path: str) -> _StoppedJvm._Frame:
            return _StoppedJvm._Frame()

    class _Catalog:
        def dropTempView(self, name: str) -> None:  # noqa: N802 (Spark's name)
            raise ConnectionRefusedError(111, "Connection refused")

    read = _Reader()
    catalog = _Catalog()

    def sql(self, statement: str) -> Any:
        if "LIMIT 0" in statement:
            return type("Schema", (), {"toArrow": lambda _: pa.table({"q": pa.array([], pa.string()),
                                                                      "s": pa.array([], pa.string())})})()
        raise ConnectionRefusedError(111, "Connection refused")


def test_a_spark_jvm_that_stops_is_named_with_the_memory_to_raise(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """Spark's JVM dies when the grouped rows outgrow its heap; the error says so instead of an internal error."""
    import verifier.engines.spark_engine as spark_engine

    monkeypatch.setattr(spark_engine, "spark_session", lambda master, **_: _StoppedJvm())
    release = tmp_path / "release.parquet"
    pq.write_table(pa.table({"q": ["a", "b"], "s": ["x", "y"]}), release)
    with pytest.raises(DataError, match=r"release.parquet: cannot read the file as PARQUET with --engine spark: "
                                        r"Spark's JVM stopped during the aggregation \(.*Connection refused\); a local "
                                        r"session has 4g of memory \(PRIVCERT_SPARK_MEMORY\): give it more"):
        SparkEngine().count_tables(release, ["q"], [AttributeSpec(("s",))], source=str(release))


def test_a_spark_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    """Too little memory for the JVM (a setting of the user's): exit 2 naming the setting, not an internal error."""
    import os
    import subprocess
    import sys

    release = tmp_path / "release.csv"
    release.write_text("q,s\na,x\nb,y\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "privcert", "measure", str(release), "--qi", "q", "--sensitive", "s",
                           "--engine", "spark", "--quiet"], capture_output=True, text=True, timeout=CEILING,
                          env={**os.environ, "PRIVCERT_SPARK_MEMORY": "300m"})
    assert done.returncode == 2, done.stderr
    assert "cannot start Spark (master local[*], local memory 300m): " in done.stderr
    assert "Insufficient driver memory" in done.stderr
    assert "internal error" not in done.stderr


def test_duckdb_streams_parquet_dictionary_text_as_hashes_and_gives_back_the_values_unchanged(tmp_path: Path) -> None:
    rows = 60_000
    generator = np.random.default_rng(11)
    zips = np.array(["02138", "2138", "", "O'Hare", 'say "x"', "trailing ", None], dtype=object)
    frame = pd.DataFrame({"zip": zips[generator.integers(0, zips.size, rows)],
                          "age": generator.integers(2, 4, rows) * 10,
                          "disease": np.array(DISEASES, dtype=object)[generator.integers(0, len(DISEASES), rows)],
                          "id": [f"person-{i}" for i in range(rows)]})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    assert {"zip", "age", "disease"} <= dictionary_columns(path) and "id" not in dictionary_columns(path)
    specs = [AttributeSpec(("disease",))]
    hashed: list[tuple[tuple[str, ...], set[str], bool]] = []
    original = duckdb_engine._hashed

    def spy(connection: Any, qi: Sequence[str], columns: Sequence[str], few: set[str],
            **options: bool) -> tuple[dict[str, Any], pa.Table | None]:
        found, classes = original(connection, qi, columns, few, **options)
        hashed.append((tuple(qi), set(found), classes is not None))
        return found, classes

    with mock.patch.object(duckdb_engine, "_hashed", spy):
        found = measure(path, Question.of(["zip", "age"], specs), engine=DuckDBEngine(), progress=False).to_json()
        by_id = measure(path, Question.of(["zip", "id"], specs), engine=DuckDBEngine(), progress=False).to_json()
    # every quasi-identifier a Parquet dictionary: the classes streamed as one hash, the text attribute as its own
    assert hashed[0] == (("zip", "age"), {CLASS, "disease"}, True)
    # id is not: each text column streamed as its hashes, id as it is
    assert hashed[1] == (("zip", "id"), {"zip", "disease"}, False) and len(hashed) == 2
    assert found == measure(path, Question.of(["zip", "age"], specs), progress=False).to_json()
    assert by_id == measure(path, Question.of(["zip", "id"], specs), progress=False).to_json()
    classes, _ = DuckDBEngine().count_tables(path, ["zip", "age"], specs, source="release")
    keys = classes.keys["zip"].tolist()
    assert {value for value in keys if isinstance(value, str)} == {value for value in zips if value is not None}
    assert any(not isinstance(value, str) for value in keys)  # the missing zip: a class of its own


def test_duckdb_streams_integer_quasi_identifiers_as_they_are_not_as_one_hash(tmp_path: Path) -> None:
    generator = np.random.default_rng(12)
    frame = pd.DataFrame({"a": generator.integers(0, 50, 60_000), "b": generator.integers(0, 40, 60_000),
                          "disease": np.array(DISEASES, dtype=object)[generator.integers(0, len(DISEASES), 60_000)]})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    assert {"a", "b", "disease"} <= dictionary_columns(path)
    specs = [AttributeSpec(("disease",))]
    hashed: list[tuple[set[str], bool]] = []
    original = duckdb_engine._hashed

    def spy(connection: Any, qi: Sequence[str], columns: Sequence[str],
            few: set[str]) -> tuple[dict[str, Any], pa.Table | None]:
        found, classes = original(connection, qi, columns, few)
        hashed.append((set(found), classes is not None))
        return found, classes

    with mock.patch.object(duckdb_engine, "_hashed", spy):
        found = measure(path, Question.of(["a", "b"], specs), engine=DuckDBEngine(), progress=False).to_json()
    # no text among the quasi-identifiers: no table of their combinations, only the text attribute hashed
    assert hashed == [({"disease"}, False)]
    assert found["measurements"] == measure(path, Question.of(["a", "b"], specs),
                                            progress=False).to_json()["measurements"]
    assert found["classes"] == 2000


def _text_release(tmp_path: Path, rows: int = 60_000, seed: int = 5) -> Path:
    """A Parquet release of two text quasi-identifiers (3 × 3 combinations, missing values among them), ``disease``
    and ``ward``, every column a small dictionary."""
    generator = np.random.default_rng(seed)

    def pick(values: Sequence[Any]) -> np.ndarray:
        return np.array(values, dtype=object)[generator.integers(0, len(values), rows)]

    frame = pd.DataFrame({"zip": pick(["a", "b", None]), "sex": pick(["F", "M", None]), "disease": pick(DISEASES),
                          "ward": pick(["east", "west", None])})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    assert {"zip", "sex", "disease"} <= dictionary_columns(path)
    return path


def _same_counts(found: tuple[Classes, Any], expected: tuple[Classes, Any]) -> None:
    """Two engines' classes and count tables measure the same, witnesses included (their classes may be numbered
    apart: by first appearance on the pandas engine, in QI order from an engine's counts)."""
    assert found[0].count == expected[0].count and sorted(found[0].sizes) == sorted(expected[0].sizes)
    assert measure_tables(*found).to_json()["measurements"] == measure_tables(*expected).to_json()["measurements"]


def test_duckdb_streams_each_quasi_identifier_when_two_combinations_share_a_hash(tmp_path: Path) -> None:
    path = _text_release(tmp_path)
    specs = [AttributeSpec(("disease",))]
    singles: list[tuple[str, ...]] = []
    original = duckdb_engine._hash_pass

    def spy(connection: Any, plan: Any) -> dict[str, Any]:
        singles.append(plan.singles)
        return original(connection, plan)

    # as if two of the 3 × 3 combinations of zip and sex hashed alike
    with mock.patch.object(duckdb_engine, "_hash_pass", spy), mock.patch.object(numbered, "_collide", lambda _: True):
        streamed = DuckDBEngine().count_tables(path, ["zip", "sex"], specs, source="release")
    # the pass that combined them finds them colliding: it is made again, each quasi-identifier hashed on its own,
    # and that is the answer
    assert singles == [("disease",), ("disease", "zip", "sex")]
    expected = get_engine("pandas").count_tables(path, ["zip", "sex"], specs, source="release")
    _same_counts(streamed, expected)
    assert streamed[0].keys.isna().any().any()


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_past_the_dense_bound_duckdb_numbers_classes_and_values_and_hands_over_integers(kind: str,
                                                                                        tmp_path: Path) -> None:
    path = _text_release(tmp_path)
    if kind == "csv":
        pd.read_parquet(path).to_csv(path := tmp_path / "release.csv", index=False)
    specs = [AttributeSpec(("disease",)), AttributeSpec(("ward", "disease"), missing="value")]
    numbered_passes: list[tuple[str, ...]] = []
    counted: list[bool] = []
    original, cells = numbered.number_classes, numbered.numbered_cells

    def spy(connection: Any, qi: Sequence[str], **kwargs: Any) -> Any:
        numbered_passes.append(tuple(qi))
        return original(connection, qi, **kwargs)

    def counting(*args: Any, **kwargs: Any) -> Any:
        found = cells(*args, **kwargs)
        counted.append(found is not None)
        return found

    def no_text_groups(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the groups were handed over as text")

    with mock.patch.object(numbered, "number_classes", spy), mock.patch.object(duckdb_engine, "number_classes", spy), \
            mock.patch.object(duckdb_engine, "numbered_cells", counting), \
            mock.patch("verifier.engines.sql.GroupCounter", no_text_groups):
        grouped = DuckDBEngine(dense_cells=0).count_tables(path, ["zip", "sex"], specs, source="release")
        # a Parquet release streamed until its dense tables pass the bound: the classes its stream numbered are
        # the group-bys' (one pass finds them); a CSV release streams its text as it is and numbers them after
        past = DuckDBEngine(dense_cells=4).count_tables(path, ["zip", "sex"], specs, source="release")
    assert counted == [True, True] and numbered_passes == [("zip", "sex")] * 2
    expected = get_engine("pandas").count_tables(path, ["zip", "sex"], specs, source="release")
    _same_counts(grouped, expected)
    _same_counts(past, expected)


@pytest.mark.parametrize("collide", [True, False])
def test_duckdb_groups_as_text_when_two_combinations_share_a_hash_or_a_column_is_a_float(collide: bool,
                                                                                          tmp_path: Path) -> None:
    path = _text_release(tmp_path)
    specs = [AttributeSpec(("disease",))]
    if not collide:
        pd.read_parquet(path).assign(score=1.5).to_parquet(path)
        specs = [AttributeSpec(("disease",)), AttributeSpec(("score",), kind="numerical")]
    added: list[int] = []
    original = GroupCounter.add

    def spy(self: GroupCounter, number: int, batch: Any) -> None:
        added.append(number)
        original(self, number, batch)

    with mock.patch.object(numbered, "_collide", lambda _: collide), mock.patch.object(GroupCounter, "add", spy):
        grouped = DuckDBEngine(dense_cells=0).count_tables(path, ["zip", "sex"], specs, source="release")
    assert sorted(set(added)) == list(range(len(specs)))
    _same_counts(grouped, get_engine("pandas").count_tables(path, ["zip", "sex"], specs, source="release"))


@pytest.mark.parametrize("lost", ["class", "value"])
def test_numbered_group_bys_refuse_a_release_that_changed_between_their_passes(lost: str, tmp_path: Path) -> None:
    # a class or a value the group-by finds but the numbering did not: as if rows were added between the passes
    path = _text_release(tmp_path)
    original = numbered._numbered_values

    def forget(connection: Any, number: int, spec: AttributeSpec) -> pa.Table:
        values = original(connection, number, spec)
        table = numbered.CLASSES if lost == "class" else f"privcert_values_{number}"
        connection.execute(f"DELETE FROM {table} WHERE number = 0")
        return values

    expected = "the group-bys of the release do not hold the same classes" if lost == "class" else \
        "column\\(s\\) 'disease' hold a value they did not hold when their distinct values were read"
    with mock.patch.object(numbered, "_numbered_values", forget), pytest.raises(DataError, match=expected):
        DuckDBEngine(dense_cells=0).count_tables(path, ["zip", "sex"], [AttributeSpec(("disease",))],
                                                 source="release")


@pytest.mark.parametrize("plan", ["streamed", "grouped", "spark"])
def test_minus_zero_and_zero_are_classes_apart_on_every_engine(plan: str, spark: SparkEngine, tmp_path: Path) -> None:
    # DuckDB and Spark group -0.0 with 0.0 and hash them alike; the pandas engine keeps them apart as written
    generator = np.random.default_rng(6)
    frame = pd.DataFrame({"zip": generator.choice(["a", "b"], 60_000),
                          "score": generator.choice([1.5, -0.0, 0.0, np.nan], 60_000),
                          "disease": np.array(DISEASES, dtype=object)[generator.integers(0, len(DISEASES), 60_000)]})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    assert {"zip", "score"} <= dictionary_columns(path)
    specs = [AttributeSpec(("disease",))]
    engine = {"streamed": DuckDBEngine(), "grouped": DuckDBEngine(dense_cells=0), "spark": spark}[plan]
    classes, (table,) = engine.count_tables(path, ["zip", "score"], specs, source="release")
    expected, (counted,) = get_engine("pandas").count_tables(path, ["zip", "score"], specs, source="release")
    assert classes.count == 8  # 2 zips × {1.5, -0.0, 0.0, missing}

    def sized(found: Classes) -> list[tuple[str, str, int]]:
        return sorted((str(z), repr(v), int(n)) for z, v, n in zip(found.keys["zip"], found.keys["score"], found.sizes))
    assert sized(classes) == sized(expected)
    assert table.count.sum() == counted.count.sum() == 60_000


def test_a_hash_that_was_not_there_when_the_values_were_read_is_an_error() -> None:
    values, hashes = pa.array(["a", None]), pa.array([11, 12], pa.uint64())
    batch = pa.record_batch({"zip": pa.array([12, 11, 12], pa.uint64()), "age": pa.array([1, 2, 3])})
    lookups = duckdb_engine._lookups({"zip": (values, hashes)})
    decoded = duckdb_engine._unhashed(batch, lookups)
    assert decoded.column("zip").to_pylist() == [None, "a", None] and decoded.column("age").to_pylist() == [1, 2, 3]
    again = duckdb_engine._unhashed(pa.record_batch({"zip": pa.array([11, 11], pa.uint64())}), lookups)
    assert again.column("zip").to_pylist() == ["a", "a"]
    with pytest.raises(EngineReadError, match="the release changed while it was being read"):
        duckdb_engine._unhashed(pa.record_batch({"zip": pa.array([13], pa.uint64())}), lookups)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("plan", ["pandas", "streamed", "grouped", "spark"])
def test_a_release_of_no_rows_is_refused_on_every_plan(plan: str, kind: str, spark: SparkEngine,
                                                        tmp_path: Path) -> None:
    path = tmp_path / f"release.{kind}"
    frame = pd.DataFrame({"zip": pd.Series([], dtype=object), "disease": pd.Series([], dtype=object)})
    if kind == "csv":
        path.write_text("zip,disease\n", encoding="utf-8")
    else:
        frame.to_parquet(path)
    engine = {"pandas": get_engine("pandas"), "streamed": DuckDBEngine(), "grouped": DuckDBEngine(dense_cells=0),
              "spark": spark}[plan]
    with pytest.raises(DataError, match=f"^{path}: the table has no rows$"):
        engine.count_tables(path, ["zip"], [AttributeSpec(("disease",))], source=str(path))


def test_the_group_by_plan_counts_the_classes_alone_when_no_attribute_is_measured(tmp_path: Path) -> None:
    path = tmp_path / "release.csv"
    path.write_text("zip,age\n476**,2*\n476**,2*\n4790*,>=40\n,2*\n476**,2*\n", encoding="utf-8")
    grouped, tables = DuckDBEngine(dense_cells=0).count_tables(path, ["zip", "age"], [], source="release")
    expected, _ = get_engine("pandas").count_tables(path, ["zip", "age"], [], source="release")
    assert tables == () and grouped.rows == 5 and grouped.count == 3

    def sized(found: Classes) -> list[tuple[str, str, int]]:
        return sorted(("(missing)" if pd.isna(z) else z, a, int(n))
                      for z, a, n in zip(found.keys["zip"], found.keys["age"], found.sizes))
    assert sized(grouped) == sized(expected) == [("(missing)", "2*", 1), ("476**", "2*", 3), ("4790*", ">=40", 1)]


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_a_parquet_release_certain_to_pass_the_dense_limit_is_read_no_further_than_its_first_rows(
        tmp_path: Path, engine: str) -> None:
    """400,000 rows of 1,000 classes and 100,000 salaries: the first 65,536 rows (counted alone) already make
    1,000 × 65,536 cells, past a limit of 200,000, and keep 65,536 cell numbers, to which the 334,464 rows to come
    would add one each. Knowing the rows from the file's metadata, the count stops there, before any progress,
    and the release is counted the other way, to the same tables as counting it whole."""
    rows = 400_000
    frame = pd.DataFrame({"zip": (np.arange(rows) % 1000).astype(str), "salary": np.arange(rows) % 100_000})
    path = tmp_path / "release.parquet"
    frame.to_parquet(path)
    specs = [AttributeSpec(("salary",), kind="numerical")]
    scanned: list[int] = []

    def phase(name: str, done: int, total: int | None, unit: str) -> None:
        if name == "scan" and done > 0 and unit.startswith("rows"):
            scanned.append(done)

    chosen = DuckDBEngine(dense_cells=200_000) if engine == "duckdb" else get_engine("pandas")
    with mock.patch.object(pandas_engine, "StreamCounter", partial(StreamCounter, limit=200_000)):
        counted = chosen.count_tables(path, ["zip"], specs, source="release", phase=phase)
    assert scanned == []
    assert measure_tables(*counted).to_json()["measurements"] == \
        measure_tables(*count_tables(frame, ["zip"], specs, source="release")).to_json()["measurements"]
