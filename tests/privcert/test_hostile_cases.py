"""Hostile but realistic input, case by case: each case is a file or an option a user could
give, the level or the error privcert must answer with, and nothing that hangs.

Every expected level is worked out by hand from the cells as written (in the comment
beside it); errors must exit 2 and name the file, line, key or option.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from _certify import runner
from privcert.cli import app


def _run(*args: str | Path) -> tuple[int, str]:
    done = runner.invoke(app, [str(arg) for arg in args])
    return done.exit_code, done.output


def _levels(*args: str | Path) -> dict[tuple[str, str | None], str]:
    """``measure ... --json -``: the exact level of every (model, attribute)."""
    code, output = _run("measure", *args, "--json", "-")
    assert code == 0, output
    document = json.loads(output[output.index("{"):])
    def name(attribute: str | list[str] | None) -> str | None:
        return "+".join(attribute) if isinstance(attribute, list) else attribute

    return {(row["model"], name(row.get("attribute"))): row["exact"] for row in document["measurements"]}


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


# --- reading the release: values as written, on every line ending ---------------------------------

def test_a_header_with_a_quoted_line_break_keeps_every_value_as_written(tmp_path: Path) -> None:
    # an Excel header wrapped with Alt+Enter: the header is one record over two lines; 02138 and
    # 2138 are two zip codes, so the smallest class is the single 02138 record (k = 1, not 3)
    data = _write(tmp_path / "wrapped.csv", '"zip\ncode",disease\n02138,flu\n2138,flu\n2138,cold\n')
    assert _levels(data, "--qi", "zip\ncode", "--sensitive", "disease")[("k_anonymity", None)] == "1"


def test_carriage_return_line_endings_are_read(tmp_path: Path) -> None:
    # classic Mac line endings: two rows, two zip codes
    data = _write(tmp_path / "cr.csv", "zip,disease\r02138,flu\r2138,flu\r2138,cold\r")
    assert _levels(data, "--qi", "zip", "--sensitive", "disease")[("k_anonymity", None)] == "1"


def test_a_bare_carriage_return_in_a_value_names_the_line(tmp_path: Path) -> None:
    # an unquoted CR ends a record, so line 3 holds the single field "u"
    data = _write(tmp_path / "cr.csv", "zip,disease\n02138,fl\ru\n2138,flu\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "disease")
    assert code == 2 and "cr.csv: line 3: expected 2 fields as in the header, found 1" in output


# --- numerical values: exact at any length ---------------------------------------------------------

def test_numbers_beyond_28_significant_digits_stay_distinct(tmp_path: Path) -> None:
    # zip 1 holds two different salaries (distinct l = 2), zip 2 twice the same one (l = 1);
    # the table holds 1.00000000000000000000000000001, which zip 2 lacks: δ-disclosure ∞
    data = _write(tmp_path / "digits.csv", "zip,salary\n1,1\n1,1.00000000000000000000000000001\n2,1\n2,1\n")
    levels = _levels(data, "--qi", "zip", "--sensitive", "salary", "--numerical", "salary")
    assert levels[("distinct_l_diversity", "salary")] == "1"
    assert levels[("delta_disclosure", "salary")] == "inf"


def test_a_tiny_number_is_not_zero(tmp_path: Path) -> None:
    data = _write(tmp_path / "tiny.csv", "zip,salary\n1,1e-1000030\n1,0\n")
    levels = _levels(data, "--qi", "zip", "--sensitive", "salary", "--numerical", "salary")
    assert levels[("distinct_l_diversity", "salary")] == "2"


def test_a_huge_exponent_is_measured_without_building_the_integer(tmp_path: Path) -> None:
    # 1e999999999 has a billion digits as an integer; it is an ordinary (large) value
    data = _write(tmp_path / "huge.csv", "zip,salary\n1,1e999999999\n1,1\n2,1\n2,1e999999999\n")
    levels = _levels(data, "--qi", "zip", "--sensitive", "salary", "--numerical", "salary")
    assert levels[("distinct_l_diversity", "salary")] == "2"
    assert levels[("t_closeness", "salary")] == "0"


# --- policy numbers: the grammar of the data, never a float ----------------------------------------

POLICY_HEAD = '[data]\nqi = ["zip"]\n'


def test_a_bucket_edge_of_one_tenth_is_exactly_one_tenth(tmp_path: Path) -> None:
    # buckets [0, 0.1) and [0.1, 1): the value 0.1 is in the upper bucket with 0.2, so zip 1 holds
    # only the upper bucket, zip 2 both: each class's share of the upper bucket is 1 and 1/2
    # against 2/3 overall, the lower bucket's 0 against 1/3, so the multiplicative level is ∞
    data = _write(tmp_path / "release.csv", "zip,salary\n1,0.1\n1,0.2\n2,0.05\n2,0.1\n")
    policy = _write(tmp_path / "policy.toml", POLICY_HEAD + '[sensitive.salary]\nkind = "numerical"\n'
                    'buckets = {edges = [0, 0.1, 1]}\n[[require]]\nmodel = "multiplicative_t_closeness"\n'
                    'attribute = "salary"\nthreshold = 2\n')
    code, output = _run("audit", data, "--policy", policy)
    assert code == 1 and "value '[0, 0.1)' attains multiplicative_t_closeness = inf" in output, output


def test_decimal_domains_numeric_orders_and_numeric_groups_are_accepted(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv",
                  "zip,salary,grade,dose\n1,0.1,1,0.00001\n1,0.2,2,0.5\n2,0.3,3,0.00001\n2,0.1,1,0.5\n")
    policy = _write(tmp_path / "policy.toml", POLICY_HEAD +
                    '[sensitive.salary]\nkind = "numerical"\ndomain = [0.1, 0.2, 0.3]\n'
                    '[sensitive.grade]\nkind = "ordinal"\norder = [1, 2, 3]\n'
                    '[sensitive.dose]\nkind = "numerical"\nbuckets = {groups = {low = [0.00001], high = [0.5]}}\n'
                    '[[require]]\nmodel = "t_closeness"\nattribute = "salary"\nthreshold = "1/2"\n'
                    '[[require]]\nmodel = "t_closeness"\nattribute = "grade"\nthreshold = "1/2"\n'
                    '[[require]]\nmodel = "distinct_l_diversity"\nattribute = "dose"\nthreshold = 2\n')
    code, output = _run("audit", data, "--policy", policy)
    assert code == 0, output
    assert "PASS: all 3 requirement(s) hold" in output


def test_a_billion_equal_frequency_buckets_finish(tmp_path: Path) -> None:
    # t + 1 = 10^9 + 1 buckets over 4 distinct values: every value is its own bucket, so each zip
    # holds two buckets (distinct l = 2); the cuts are found per value, not per bucket
    data = _write(tmp_path / "release.csv", "zip,salary\n1,0.1\n1,0.2\n2,0.05\n2,0.3\n")
    policy = _write(tmp_path / "policy.toml", POLICY_HEAD + '[sensitive.salary]\nkind = "numerical"\n'
                    'buckets = {equal_frequency = 1000000000}\n[[require]]\nmodel = "distinct_l_diversity"\n'
                    'attribute = "salary"\nthreshold = 2\n')
    code, output = _run("audit", data, "--policy", policy)
    assert code == 0 and "PASS" in output, output


# --- mechanism files: read as the release is -------------------------------------------------------

def _rr_release(folder: Path) -> Path:
    return _write(folder / "release.csv", "zip,disease\n1, flu\n1,cold\n2, flu\n2,cold\n")


def test_a_mechanism_keeps_its_values_as_written(tmp_path: Path) -> None:
    # " flu" (with its space) is a value of the release, so the mechanism that anonymize rr
    # writes for it must be read back with the space
    release = _rr_release(tmp_path)
    code, output = _run("anonymize", "rr", release, "--sensitive", "disease", "--keep", "1/2",
                        "--out", tmp_path / "rr.csv")
    assert code == 0, output
    code, output = _run("measure", tmp_path / "rr.csv", "--qi", "zip", "--sensitive", "disease",
                        "--mechanism", tmp_path / "rr.mechanism.csv", "--mode", "auditor")
    assert code == 0 and "model: ldp  level: ln(3)" in output, output


def test_a_mechanism_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    release = _rr_release(tmp_path)
    mechanism = tmp_path / "mechanism.csv"
    mechanism.write_bytes(b"\xef\xbb\xbfvalue, flu,cold\n flu,3/4,1/4\ncold,1/4,3/4\n")
    code, output = _run("measure", release, "--qi", "zip", "--sensitive", "disease", "--mechanism", mechanism,
                        "--mode", "auditor")
    assert code == 0 and "model: ldp  level: ln(3)" in output, output



def test_joint_values_past_int64_neither_merge_nor_change() -> None:
    # 131,071 values per column: the old key a·2^51 + ... wrapped modulo 2^64, so (1, 0, 0, 0)
    # and (1 + 2^13, 0, 0, 0) shared a key; each must stay its own value, labelled as written
    from verifier.tables.counting import count_tables
    from verifier.tables.counts import AttributeSpec

    n = 131_071
    a = [str(i) for i in range(n)]
    frame = pd.DataFrame({"zip": ["1"] * n, "a": a, "b": a, "c": a, "d": a})
    frame.loc[n - 1, ["b", "c", "d"]] = "0"
    frame.loc[n - 2, ["b", "c", "d"]] = "0"
    frame.loc[n - 2, "a"] = str(1 + 2**13)
    frame.loc[n - 1, "a"] = "1"
    _, (table,) = count_tables(frame, ["zip"], [AttributeSpec(("a", "b", "c", "d"))])
    assert ("1", "0", "0", "0") in table.values and (str(1 + 2**13), "0", "0", "0") in table.values
    assert set(table.values) == set(map(tuple, frame[["a", "b", "c", "d"]].to_numpy().tolist()))


# --- Parquet: one place per column, NaN is not missing, decimals are numbers -----------------------

ENGINES = ["pandas", "duckdb"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hive_folder_and_a_file_column_of_the_same_name_are_an_error(tmp_path: Path, engine: str) -> None:
    for folder, diseases in (("zip=A", ["flu", "cold"]), ("zip=B", ["flu", "flu"])):
        (tmp_path / "hive" / folder).mkdir(parents=True)
        pq.write_table(pa.table({"zip": ["X", "Y"], "disease": diseases}), tmp_path / "hive" / folder / "part.parquet")
    code, output = _run("measure", tmp_path / "hive", "--qi", "zip", "--sensitive", "disease", "--engine", engine)
    assert code == 2 and "the folder names set column(s) ['zip']" in output and "part.parquet" in output


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float_nan_is_neither_a_value_nor_missing(tmp_path: Path, engine: str) -> None:
    pq.write_table(pa.table({"zip": ["1", "1", "2", "2"], "salary": [1.0, float("nan"), 1.0, None]}),
                   tmp_path / "nan.parquet")
    code, output = _run("measure", tmp_path / "nan.parquet", "--qi", "zip", "--sensitive", "salary",
                        "--numerical", "salary", "--engine", engine)
    assert code == 2 and "column 'salary'" in output and "holds the float NaN" in output
    if engine == "pandas":
        assert "row 2" in output


def test_a_parquet_decimal_column_is_numerical(tmp_path: Path) -> None:
    # decimal128(10, 2) holds 1.10 and 1.1 as one number: both classes hold {1.1, 2.5}
    values = pa.array([Decimal("1.10"), Decimal("2.5"), Decimal("1.1"), Decimal("2.50")], pa.decimal128(10, 2))
    pq.write_table(pa.table({"zip": ["1", "1", "2", "2"], "salary": values}), tmp_path / "dec.parquet")
    levels = _levels(tmp_path / "dec.parquet", "--qi", "zip", "--sensitive", "salary", "--numerical", "salary")
    assert levels[("t_closeness", "salary")] == "0" and levels[("distinct_l_diversity", "salary")] == "2"


def test_names_are_taken_as_written(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,disease\n1,flu\n1,cold\n")
    code, output = _run("measure", data, "--qi", "zip ", "--sensitive", "disease")
    assert code == 2 and "['zip '] not found" in output and "the table has 'zip'" in output


# --- bounded work and bad options: exit 2 naming the option, never a hang or a traceback -----------

@pytest.mark.parametrize("args, expected", [
    (["--l", "9" * 5000], "--l: expected integers from 1 to 10^18"),
    (["--l", "²"], "--l: expected integers from 1 to 10^18"),
])
def test_integer_options_are_bounded(tmp_path: Path, args: list[str], expected: str) -> None:
    data = _write(tmp_path / "release.csv", "zip,disease\n1,flu\n1,cold\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "disease", *args)
    assert code == 2 and expected in output and len(output) < 400


def test_a_deeply_nested_policy_is_an_error(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,disease\n1,flu\n1,cold\n")
    policy = _write(tmp_path / "policy.toml", POLICY_HEAD + "x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    code, output = _run("audit", data, "--policy", policy)
    assert code == 2 and "policy.toml: arrays or tables nested too deeply" in output


def test_a_negative_seed_is_refused(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,disease\n1,flu\n1,cold\n")
    code, output = _run("anonymize", "rr", data, "--sensitive", "disease", "--keep", "1/2", "--out",
                        tmp_path / "out.csv", "--seed", "-5")
    assert code == 2 and "--seed" in output and not (tmp_path / "out.csv").exists()


def test_randomized_response_over_too_many_values_says_so(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,disease\n" + "".join(f"1,d{i}\n" for i in range(1_001)))
    code, output = _run("anonymize", "rr", data, "--sensitive", "disease", "--keep", "1/2", "--out",
                        tmp_path / "out.csv")
    assert code == 2 and "1,001 distinct values" in output and "at most 1,000" in output


def test_tiny_laplace_noise_is_written_and_read_back(tmp_path: Path) -> None:
    # b = 10^-30: exp(-x/b) for x = 0.1 is far below any float; its enclosure widens to [0, 2^-1792]
    data = _write(tmp_path / "release.csv", "zip,salary\n1,0.1\n1,0.2\n2,0.1\n2,0.3\n")
    code, output = _run("anonymize", "noise", data, "--sensitive", "salary", "--scale", "1e-30", "--buckets", "0,1",
                        "--out", tmp_path / "noisy.csv")
    assert code == 0, output
    code, output = _run("measure", tmp_path / "noisy.csv", "--qi", "zip", "--sensitive", "salary",
                        "--mechanism", tmp_path / "noisy.mechanism.toml", "--mode", "auditor")
    assert code == 0 and "model: ldp  level: between 0 and ∞ (not exact)" in output, output


@pytest.mark.parametrize("args, expected", [
    (["refute", "ekenstedt2022:lemma1", "--timeout", "nan"], "--timeout nan: expected a positive, finite number"),
    (["refute", "ekenstedt2022:lemma1", "--timeout", "-1"], "--timeout -1.0: expected a positive, finite number"),
    (["witness", "multiplicative_t_closeness", "ldp", "--bound", "2", "--param", "N=1000000000"],
     "error: parameter N=1000000000: expected 1 ≤ N ≤ 10,000"),
    (["witness", "multiplicative_t_closeness", "ldp", "--bound", "e^1000", "--param", "N=3"],
     "error: bound e^1000: too large to build a witness table exactly"),
])
def test_theory_sizes_are_bounded(args: list[str], expected: str) -> None:
    code, output = _run("theory", *args)
    assert code == 2 and expected in output, output


def test_a_value_missing_from_a_large_hierarchy_gives_a_short_message(tmp_path: Path) -> None:
    hierarchy = _write(tmp_path / "h.csv", "".join(f"v{i},*\n" for i in range(100_000)))
    data = _write(tmp_path / "release.csv", "zip,disease\n1,v1\n1,other\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "disease", "--hierarchy", f"disease={hierarchy}")
    assert code == 2 and "'other'" in output and "100,000 in all" in output and len(output) < 1000


@pytest.mark.parametrize("engine", ENGINES)
def test_a_row_longer_than_a_read_block_is_read(tmp_path: Path, engine: str) -> None:
    # one cell of 17 MiB, past Arrow's 16 MiB block and DuckDB's 2 MB line
    data = tmp_path / "long.csv"
    data.write_text("zip,disease\n1," + "x" * (17 << 20) + "\n1,flu\n")
    levels = _levels(data, "--qi", "zip", "--sensitive", "disease", "--engine", engine)
    assert levels[("distinct_l_diversity", "disease")] == "2"


# --- risk and utility inputs: bounded searches, frames, weights, population tables -----------------

def _random_release(path: Path, rows: int, columns: int, seed: int) -> tuple[Path, str]:
    import random

    chosen = random.Random(seed)
    names = [f"q{i}" for i in range(columns)]
    lines = [",".join([*names, "d"])]
    lines += [",".join([*(chosen.choice("ab") for _ in names), chosen.choice("xy")]) for _ in range(rows)]
    return _write(path, "\n".join(lines) + "\n"), ",".join(names)


def _measurement(args: list[str | Path], model: str) -> dict[str, object]:
    code, output = _run("measure", *args, "--json", "-")
    assert code == 0, output
    found = [m for m in json.loads(output[output.index("{"):])["measurements"] if m["model"] == model]
    assert len(found) == 1, found
    return found[0]


def test_suda_on_the_command_line_is_bounded_and_a_partial_search_says_so(tmp_path: Path) -> None:
    # 30 random a/b rows on 20 quasi-identifiers: every subset of up to 20 values was searched (past 120 s); the
    # command line now searches the sizes whose subsets number at most 65,535: 1 + 20 + ... + binom(20, 6)
    data, qi = _random_release(tmp_path / "release.csv", 30, 20, seed=3)
    suda = _measurement([data, "--qi", qi, "--sensitive", "d", "--risk"], "suda")
    assert suda["parameters"] == {"max_size": 6, "dis_fraction": "1/100"}
    assert suda["notes"] == ["a partial search: minimal sample uniques of at most 6 of the 20 quasi-identifiers "
                             "(max_size); larger ones are not counted, so scores may be higher"]
    chosen = _measurement([data, "--qi", qi, "--sensitive", "d", "--risk", "--suda-max-size", "2"], "suda")
    assert chosen["parameters"]["max_size"] == 2 and "of at most 2 of the 20" in chosen["notes"][-1]
    small, few = _random_release(tmp_path / "small.csv", 30, 5, seed=3)  # 5 quasi-identifiers: searched whole
    assert _measurement([small, "--qi", few, "--sensitive", "d", "--risk"], "suda")["notes"] == []
    code, output = _run("measure", data, "--qi", qi, "--sensitive", "d", "--suda-max-size", "2")
    assert code == 2 and "--suda-max-size: expected --risk with it" in output


@pytest.mark.parametrize("cell, magnitude", [("1e9999999", "10^9999999"), ("1e9999", "10^9999"),
                                             ("-2.5E+400", "10^400"), ("1e-400", "10^-400")])
def test_huge_exponents_in_utility_inputs_are_refused_with_the_row(tmp_path: Path, cell: str, magnitude: str) -> None:
    # 1e9999999 was an exact integer of ten million digits (past 120 s); 1e9999 an internal error (exit 3)
    original = _write(tmp_path / "original.csv", f"age,d\n20,a\n{cell},b\n30,a\n")
    release = _write(tmp_path / "release.csv", "age,d\n20,a\n*,b\n30,a\n")
    code, output = _run("utility", original, release, "--qi", "age")
    assert code == 2 and (f"original.csv, row 2, column 'age': {cell!r} is a number of magnitude {magnitude}; "
                          "expected numbers between 10^-300 and 10^300 in magnitude (or 0)") in output, output
    code, output = _run("utility", release.with_name("release.csv"), original, "--qi", "age")
    assert code == 2 and f"original.csv, row 2, column 'age': {cell!r}" in output, output


def test_api_compare_takes_data_frames_as_utility_and_plan_do(tmp_path: Path) -> None:
    from privcert import api

    original = pd.DataFrame({"zip": ["02138", "02139", "02141", "02142"], "d": ["a", "b", "a", "b"]})
    release = pd.DataFrame({"zip": ["0213*", "0213*", "0214*", "0214*"], "d": ["a", "b", "a", "b"]})
    original.to_csv(tmp_path / "original.csv", index=False)
    release.to_csv(tmp_path / "release.csv", index=False)
    framed = api.compare(original, [release], ["zip"])
    filed = api.compare(tmp_path / "original.csv", [tmp_path / "release.csv"], ["zip"])
    assert (framed.original, [c.release for c in framed.candidates]) == ("original", ["release 1"])
    assert framed.candidates[0].k == filed.candidates[0].k == 2
    assert framed.to_json()["releases"][0]["utility"] == filed.to_json()["releases"][0]["utility"]
    assert len(framed.to_json()["releases"][0]["utility"]) > 5


def _policy_with_population(tmp_path: Path, population: int) -> Path:
    return _write(tmp_path / "policy.toml", f"""
[data]
qi = ["zip", "age"]

[sensitive.d]
kind = "categorical"

[risk]
population = {population}

[[require]]
model = "marketer_risk"
threshold = "1/2"
""")


def test_a_population_that_cannot_hold_the_release_is_refused_whatever_the_models(tmp_path: Path) -> None:
    # 8 records from a population of 3: marketer risk alone (which reads no frame) passed with level 1/2
    data = _write(tmp_path / "release.csv", "zip,age,d\n" + "".join(f"{z},{a},{d}\n" for z in (1, 2) for a in (2, 3)
                                                                   for d in "ab"))
    code, output = _run("audit", "--policy", _policy_with_population(tmp_path, 3), data)
    assert code == 2 and (f"policy.toml: risk.population: population size: expected at least the 8 records of the "
                          f"release {data}, found 3") in output, output
    code, output = _run("measure", data, "--qi", "zip,age", "--sensitive", "d", "--risk", "--population", "3")
    assert code == 2 and f"--population: population size: expected at least the 8 records of the release {data}, " \
                         "found 3" in output, output
    table = _write(tmp_path / "population.csv", "zip,age,count\n1,2,2\n1,3,2\n2,2,1\n")
    code, output = _run("measure", data, "--qi", "zip,age", "--sensitive", "d", "--risk", "--population-table", table)
    assert code == 2 and (f"--population-table: {table}: population table: its counts sum to 5 people; expected at "
                          f"least the 8 records of the release {data}") in output, output
    code, output = _run("audit", "--policy", _policy_with_population(tmp_path, 8), data)
    assert code == 0, output


def test_a_population_table_of_a_header_alone_is_named(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,d\n1,a\n1,b\n")
    table = _write(tmp_path / "population.csv", "zip,count\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "d", "--risk", "--population-table", table)
    assert code == 2 and (f"{table}: population table: a header and no rows; expected a row per quasi-identifier "
                          "combination with its 'count' of people") in output, output


def test_the_encoding_applies_to_the_population_table(tmp_path: Path) -> None:
    data = tmp_path / "release.csv"
    data.write_bytes("zip,d\ncafé,a\ncafé,b\nnaïve,a\n".encode("utf-16"))
    table = tmp_path / "population.csv"
    table.write_bytes("zip,count\ncafé,4\nnaïve,3\n".encode("utf-16"))
    levels = _levels(data, "--qi", "zip", "--sensitive", "d", "--risk", "--population-table", table,
                     "--encoding", "utf-16")
    assert levels[("k_map", None)] == "3"  # naïve: 3 people of the population


def _latin1_policy(folder: Path) -> tuple[Path, Path]:
    """A Latin-1 release and the Latin-1 population table its policy's ``[risk]`` names; the policy and the table."""
    (folder / "release.csv").write_bytes("zip,d\ncafé,a\ncafé,b\nnaïve,a\n".encode("latin-1"))
    table = folder / "population.csv"
    table.write_bytes("zip,count\ncafé,4\nnaïve,3\n".encode("latin-1"))
    policy = _write(folder / "policy.toml", '[data]\nqi = ["zip"]\npath = "release.csv"\n[sensitive.d]\n'
                                            '[risk]\npopulation_table = "population.csv"\n'
                                            '[[require]]\nmodel = "k_map"\nthreshold = 3\n')
    return policy, table


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_the_encoding_applies_to_the_population_table_a_policy_names(tmp_path: Path, engine: str) -> None:
    policy, _ = _latin1_policy(tmp_path)
    code, output = _run("audit", "--policy", policy, "--encoding", "latin-1", "--engine", engine, "--json", "-")
    assert code == 0, output
    (row,) = json.loads(output[output.index("{"):])["measurements"]
    # naïve: 3 people of the population, café 4
    assert (row["model"], row["exact"], row["witness"]["qi"], row["verdict"]) == ("k_map", "3", {"zip": "naïve"},
                                                                                  "pass")


def test_a_population_table_in_another_encoding_is_named(tmp_path: Path) -> None:
    policy, table = _latin1_policy(tmp_path)
    code, output = _run("audit", "--policy", policy)
    assert code == 2 and (f"{policy}: risk.population_table: {table}: line 2, column 4: byte 0xe9 is not valid utf-8 "
                          "(save the file as UTF-8, or name its encoding)") in " ".join(output.split()), output


def test_the_library_reads_a_policys_population_table_in_the_audits_encoding(tmp_path: Path) -> None:
    from privcert.api import audit

    policy, _ = _latin1_policy(tmp_path)
    (row,) = audit(None, policy, encoding="latin-1").to_json()["measurements"]
    assert (row["model"], row["exact"], row["verdict"]) == ("k_map", "3", "pass")


@pytest.mark.parametrize("cell, found", [("nan", "'nan'"), ("inf", "'inf'"), ("many", "'many'"), ('"1,5"', "'1,5'"),
                                         ("0x10", "'0x10'")])
def test_weights_messages_speak_of_weights(tmp_path: Path, cell: str, found: str) -> None:
    data = _write(tmp_path / "release.csv", f"zip,d,w\n1,a,{cell}\n1,b,2\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "d", "--risk", "--weights", "w")
    assert code == 2 and (f"release.csv: the weights column 'w': row 1 (index label 0) holds {found}; expected a "
                          "weight: a positive decimal number of people the record stands for, such as 12 or 1.5"
                          ) in output, output
    assert "declared numerical" not in output


def test_an_empty_weight_is_a_weight_missing(tmp_path: Path) -> None:
    data = _write(tmp_path / "release.csv", "zip,d,w\n1,a,\n1,b,2\n")
    code, output = _run("measure", data, "--qi", "zip", "--sensitive", "d", "--risk", "--weights", "w")
    assert code == 2 and ("release.csv: the weights column 'w' has 1 empty cell(s), the first at row 1 (index label "
                          "0); expected a weight on every row (the number of people the record stands for)") in output
    assert "missing =" not in output


def test_the_library_refuses_an_unknown_kind_and_a_column_of_complex_numbers() -> None:
    import privcert
    from verifier.errors import DataError, PolicyError
    from verifier.tables.counts import AttributeSpec

    frame = pd.DataFrame({"zip": ["1", "1", "2"], "age": [1, 1, 2], "c": [1 + 2j, 3j, 1j]})
    with pytest.raises(PolicyError, match=r"^kinds: unknown kind 'rsk'; expected some of privacy, randomized, risk, "
                                          r"utility$"):
        privcert.measure(frame.drop(columns="c").assign(d="x"), ["zip", "age"], [AttributeSpec(("d",))],
                         kinds={"rsk"})  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"^data: column 'c' holds complex numbers \(complex128\), such as \(1\+2j\) at "
                                        r"row 1; expected text, real numbers or booleans$"):
        privcert.measure(frame, ["zip", "age"], [AttributeSpec(("c",))])


def test_a_pitman_fit_predicting_more_uniques_than_people_says_so() -> None:
    # four uniques and two classes of three from a population of 10: the finite-class fit (theta 29.2,
    # alpha -3.10) gives Γ(θ+1)/Γ(θ+α)·N^α = 645.9 uniques among 10 people
    import numpy as np

    from verifier.risk.histogram import sampling, size_histogram
    from verifier.risk.population import pitman

    found = pitman(size_histogram(np.array([1, 1, 1, 1, 3, 3])), sampling(10, population=10))
    assert found.share is None and found.reason == ("the fitted model predicts 645.9 population uniques, more than "
                                                    "the population of 10 people: not an estimate")


def test_population_uniqueness_bounds_are_relative_to_the_share() -> None:
    # a share of 2.24e-6: ±1e-9 made it [2.2427e-06, 2.2447e-06], wrong in the fourth digit; the bounds are now
    # within 1e-8 of the share
    from fractions import Fraction

    import numpy as np

    from verifier.risk.histogram import sampling, size_histogram
    from verifier.risk.population import population_uniqueness

    histogram = size_histogram(np.array([1] * 3 + [2] * 1000))
    measured = population_uniqueness(histogram, sampling(2003, population=10**7), "zayatz")
    assert measured.estimate is not None and measured.lower is not None
    share = Fraction(measured.estimate.value)
    assert Fraction(224, 10**8) < share < Fraction(225, 10**8)
    assert measured.estimate.tolerance == Fraction(1, 10**14)
    lower, upper = Fraction(str(measured.lower.value)), Fraction(str(measured.level.value))
    assert share - share / 10**8 <= lower < share < upper <= share + share / 10**8
