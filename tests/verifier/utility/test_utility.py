"""Tests of the utility models (verifier.utility), ``privcert utility`` and the figures ``anonymize`` prints.

Hand-computed values on Table 3 of Li et al. 2007 and its 3-diverse release (Table 4,
``examples/table4``), ARX's normalizations (``org.deidentifier.arx.aggregates.quality``:
quality ``1 - (value - min)/(max - min)``), and properties: the identity release loses
nothing, full suppression loses everything, a release whose classes have at least ``k``
records has discernibility at least ``N·k``.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mechanisms.sse import normalized_sse
from privcert.api import utility
from privcert.cli import app
from verifier.errors import DataError
from verifier.tables.hierarchy import Hierarchy, load_hierarchy
from verifier.tables.load import load_table
from verifier.utility import measure_utility
from verifier.utility.pair import align

ROOT = Path(__file__).resolve().parents[3]
TABLE4 = ROOT / "examples" / "table4"
HIERARCHIES = {"zip": load_hierarchy(TABLE4 / "zip_hierarchy.csv"), "age": load_hierarchy(TABLE4 / "age_hierarchy.csv")}
runner = CliRunner()


@pytest.fixture(scope="module")
def table4() -> dict[tuple[str, str | None], object]:
    report = measure_utility(load_table(TABLE4 / "original.csv"), load_table(TABLE4 / "release.csv"), ["zip", "age"],
                             hierarchies=HIERARCHIES)
    return {(f.metric, f.attribute): f for f in report.figures}


def test_table4_generalization_models_by_hand(table4: dict) -> None:
    # zip: six records under 476** (6 of 9 leaves: (6-1)/(9-1) = 5/8), three under 4790* (3 leaves: 2/8)
    assert table4["loss", "zip"].raw == Fraction(6 * 5 + 3 * 2, 9 * 8) == Fraction(1, 2)
    assert table4["loss", "age"].raw == Fraction(2, 8)  # every class: 3 of 9 leaves
    assert table4["loss", None].raw == Fraction(3, 8)
    # ARX: mean share (6*6/9 + 3*3/9)/9 = 5/9 for zip, 1/3 for age; min 1/9, max 1
    assert table4["loss", "zip"].quality == 1 - (Fraction(5, 9) - Fraction(1, 9)) / (1 - Fraction(1, 9))
    assert table4["loss", None].quality == 1 - ((Fraction(5, 9) + Fraction(1, 3)) / 2 - Fraction(1, 9)) / Fraction(8, 9)
    # heights: 476** is 2 of 4, 4790* 1 of 4; every age cell 1 of 2
    assert table4["precision", "zip"].raw == Fraction(6 * 2 + 3 * 1, 9 * 4)
    assert table4["precision", "age"].raw == Fraction(1, 2)
    assert table4["precision", None].quality == 1 - Fraction(11, 24)


def test_table4_class_models_by_hand(table4: dict) -> None:
    assert table4["discernibility", None].raw == 3 * 3**2
    assert table4["discernibility", None].quality == 1 - Fraction(27 - 9, 81 - 9)  # min: nine classes of 1; max N²
    assert table4["aecs", None].raw == 3
    assert table4["aecs", None].quality == 1 - Fraction(3 - 1, 9 - 1)
    # 476**/2* and 476**/3* stand for 6·3 tuples each, 4790*/>=40 for 3·3
    assert table4["ambiguity", None].raw == Fraction(3 * 18 + 3 * 9 + 3 * 18, 9)
    assert table4["ambiguity", None].quality == 1 - Fraction(135 - 9, 9 * 81 - 9)


def test_table4_information_models_by_hand(table4: dict) -> None:
    # age: every record is one of the 3 original ages under its node, each once: log2(3) bits per record
    assert table4["non_uniform_entropy", "age"].raw == pytest.approx(9 * math.log2(3))
    assert table4["non_uniform_entropy", "age"].quality == pytest.approx(Fraction(1, 2))  # max: 9·log2(9)
    # zip: log2(6) for the six under 476**, log2(3) for the three under 4790*
    assert table4["non_uniform_entropy", "zip"].raw == pytest.approx(6 * math.log2(6) + 3 * math.log2(3))
    # q = 3/(9·18) for the six tuples under an area of 18, 3/(9·9) for the three: p/q = 6 and 3
    kl = 6 / 9 * math.log2(6) + 3 / 9 * math.log2(3)
    assert table4["kl_divergence", None].raw == pytest.approx(kl)
    assert table4["kl_divergence", None].quality == pytest.approx(1 - kl / math.log2(81 / 9))
    assert not table4["kl_divergence", None].exact and table4["ambiguity", None].exact


def test_squared_errors_by_hand() -> None:
    pair = align(pd.DataFrame({"x": ["0", "2", "4", "6"], "g": ["1", "1", "3", "3"]}),
                 pd.DataFrame({"x": ["1", "1", "5", "5"], "g": ["1-3", "1-3", "1-3", "*"]}), ["x", "g"])
    report = measure_utility(pd.DataFrame({"x": ["0", "2", "4", "6"], "g": ["1", "1", "3", "3"]}),
                             pd.DataFrame({"x": ["1", "1", "5", "5"], "g": ["1-3", "1-3", "1-3", "*"]}), ["x", "g"])
    assert pair.suppressed == (False, False, False, False)
    assert report.figure("attribute_sse", "x").raw == 4
    assert report.figure("attribute_sse", "x").quality == 1 - Fraction(4, 36 + 16 + 16 + 36)
    # g: "1-3" stands for [1, 3] (its records' originals), "*" for the range [1, 3]: each error 2² = 4
    assert report.figure("attribute_sse", "g").raw == 16
    assert report.figure("attribute_sse", "g").quality == 0
    # midpoints: g is 2 everywhere; σ²(x) = 5, σ²(g) = 1: (4/5 + 4/1) / (4·2)
    assert report.figure("record_sse").raw == Fraction(4, 5) / 8 + Fraction(4, 8)
    # SSE = 4 + 4, SST = 16 + 0 (the release's g is the original's mean)
    assert report.figure("sse_sst").raw == Fraction(8, 16)


def test_record_sse_is_soria_comas_equation_5() -> None:
    original = load_table(ROOT / "examples" / "hospital" / "admissions.csv")
    release = load_table(ROOT / "privcert" / "data" / "hospital" / "release.csv")
    exact = measure_utility(original, release, ["age", "zip"]).figure("record_sse").raw
    floats = normalized_sse(original.astype({"age": float, "zip": float}), release.astype({"age": float, "zip": float}),
                            ["age", "zip"])
    assert isinstance(exact, Fraction) and float(exact) == pytest.approx(floats, rel=1e-12)


def test_generalization_models_do_not_apply_to_a_perturbed_column() -> None:
    report = measure_utility(pd.DataFrame({"a": ["1", "2"]}), pd.DataFrame({"a": ["1.5", "1.5"]}), ["a"])
    loss = report.figure("loss", "a")
    assert loss.raw is None and "row 1, column 'a': '1.5'" in loss.note
    assert report.figure("ambiguity").raw is None and report.figure("discernibility").raw == 4


def test_key_alignment_counts_a_record_left_out_as_suppressed() -> None:
    original = pd.DataFrame({"id": ["a", "b", "c"], "q": ["x", "y", "y"]})
    kept = measure_utility(original, pd.DataFrame({"id": ["c", "a", "b"], "q": ["y", "*", "y"]}), ["q"], key="id")
    dropped = measure_utility(original, pd.DataFrame({"id": ["c", "b"], "q": ["y", "y"]}), ["q"], key="id")
    assert kept.suppressed == dropped.suppressed == 1
    assert [f.to_json() for f in kept.figures] == [f.to_json() for f in dropped.figures]
    assert dropped.figure("discernibility").raw == 2**2 + 1 * 3


@pytest.mark.parametrize(("release", "key", "message"), [
    (pd.DataFrame({"q": ["x"]}), None, "release: expected the 2 records of original in the same order"),
    (pd.DataFrame({"id": ["a", "z"], "q": ["x", "x"]}), "id", "release, row 2, column 'id': expected a key"),
    (pd.DataFrame({"id": ["a", "a"], "q": ["x", "x"]}), "id", "release, row 2, column 'id': key 'a' is also in row 1"),
    (pd.DataFrame({"q": ["x", "x"]}), "id", "release: column 'id' not found"),
    (pd.DataFrame({"r": ["x", "x"]}), None, "release: column 'q' not found"),
])
def test_alignment_errors_name_file_row_and_column(release: pd.DataFrame, key: str | None, message: str) -> None:
    with pytest.raises(DataError, match=message.replace("(", r"\(")):
        align(pd.DataFrame({"id": ["a", "b"], "q": ["x", "y"]}), release, ["q"], key=key)


def test_original_value_outside_its_hierarchy() -> None:
    h = Hierarchy.from_rows([["x", "*"], ["y", "*"]], source="h.csv")
    with pytest.raises(DataError, match=r"original, row 2, column 'q': 'w' is not a leaf of the hierarchy h.csv"):
        align(pd.DataFrame({"q": ["x", "w"]}), pd.DataFrame({"q": ["x", "x"]}), ["q"], hierarchies={"q": h})


# ---------------------------------------------------------------- properties

VALUES = st.sampled_from(["10", "11", "12", "20", "21", "30"])
DECADES = Hierarchy.from_rows([[v, v[0] + "*", "*"] for v in ["10", "11", "12", "20", "21", "30"]])
ORIGINALS = st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=25)


def _frame(rows: list[tuple[str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["a", "b"])


@settings(max_examples=60, deadline=None)
@given(ORIGINALS)
def test_the_identity_release_loses_nothing(rows: list[tuple[str, str]]) -> None:
    report = measure_utility(_frame(rows), _frame(rows), ["a", "b"], hierarchies={"a": DECADES})
    for metric in ("loss", "precision", "non_uniform_entropy", "kl_divergence", "attribute_sse", "record_sse"):
        for figure in report.figures:
            if figure.metric == metric:
                assert figure.raw == 0, figure
    assert report.figure("ambiguity").raw == 1
    for figure in report.figures:
        assert figure.quality in (1, None), figure  # None: ARX's min = max (nothing could be lost)


@settings(max_examples=60, deadline=None)
@given(ORIGINALS)
def test_full_suppression_loses_everything(rows: list[tuple[str, str]]) -> None:
    n = len(rows)
    report = measure_utility(_frame(rows), _frame([("*", "*")] * n), ["a", "b"], hierarchies={"a": DECADES})
    assert report.suppressed == n
    assert report.figure("loss", "a").raw == report.figure("precision").raw == 1
    assert report.figure("loss", "a").quality == 0
    # a domain of one leaf loses nothing (Iyengar's (M_P - 1)/(M - 1) is 0/0 there)
    assert report.figure("loss", "b").raw == (1 if len({b for _, b in rows}) > 1 else 0)
    assert report.figure("discernibility").raw == n * n and report.figure("aecs").raw == n
    assert report.figure("ambiguity").raw == 6 * len({b for _, b in rows})
    assert report.figure("precision").quality == 0


@settings(max_examples=80, deadline=None)
@given(ORIGINALS, st.data())
def test_discernibility_is_at_least_n_times_k(rows: list[tuple[str, str]], data: st.DataObject) -> None:
    # generalize each cell to a random height: the release's k is its smallest class (suppressed records excepted)
    heights = data.draw(st.lists(st.integers(0, 2), min_size=len(rows), max_size=len(rows)))
    released = [(("*" if h == 2 else a[0] + "*" if h == 1 else a), "*" if h == 2 else b)
                for (a, b), h in zip(rows, heights, strict=True)]
    report = measure_utility(_frame(rows), _frame(released), ["a", "b"], hierarchies={"a": DECADES})
    sizes = pd.Series([r for r, h in zip(released, heights, strict=True) if h < 2]).value_counts()
    k = int(sizes.min()) if len(sizes) else len(rows)
    assert report.figure("discernibility").raw >= len(rows) * k
    loss = report.figure("loss", "a").raw
    assert 0 <= loss <= 1 and report.figure("kl_divergence").raw >= 0


# ---------------------------------------------------------------- randomized release and the command line

def test_randomized_release_expected_utility() -> None:
    folder = ROOT / "examples" / "randomized"
    report = utility(folder / "original.csv", folder / "release.csv", ["age", "zip"],
                     mechanism=folder / "mechanism.csv", sensitive="disease")
    # keep 1/2, else uniform over 4: the diagonal 5/8 is every column's best guess (rarest f 204/2000 ≥ 819/2000 / 5)
    assert report.figure("expected_utility", "disease").raw == Fraction(5, 8)
    assert report.figure("agreement", "disease").raw == Fraction(621, 1000)
    assert report.figure("loss").raw == 0


def test_cli_reports_every_model_on_table4(tmp_path: Path) -> None:
    args = ["utility", str(TABLE4 / "original.csv"), str(TABLE4 / "release.csv"), "--qi", "zip,age",
            "--hierarchy", f"zip={TABLE4 / 'zip_hierarchy.csv'}", "--hierarchy", f"age={TABLE4 / 'age_hierarchy.csv'}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "model: loss (granularity)  attribute: all  raw: 3/8 ≈ 0.375 share of the domain  quality: 5/8" in result.output
    out = tmp_path / "utility.json"
    assert runner.invoke(app, [*args, "--json", str(out)]).exit_code == 0
    document = json.loads(out.read_text())
    metrics = {f["metric"] for f in document["utility"]}
    assert metrics == {"loss", "non_uniform_entropy", "precision", "discernibility", "aecs", "ambiguity",
                       "kl_divergence", "attribute_sse", "record_sse", "sse_sst"}
    assert {"metric": "discernibility", "attribute": None, "raw": {"exact": "27", "value": 27.0},
            "quality": {"exact": "3/4", "value": 0.75}, "units": "records²", "exact": True, "note": ""} \
        in document["utility"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--qi", "zip", "--hierarchy", "age=x.csv"], "--hierarchy"),
    (["--qi", "zip,nope"], "column 'nope' not found"),
    (["--qi", "zip", "--json", str(TABLE4 / "release.csv")], "refusing to overwrite an input"),
    (["--qi", "zip", "--key", "disease"], "original.csv, row 4, column 'disease': expected a unique key, found 'gastritis', also in row 2"),
])
def test_cli_bad_input_exits_2(extra: list[str], message: str) -> None:
    result = runner.invoke(app, ["utility", str(TABLE4 / "original.csv"), str(TABLE4 / "release.csv"), *extra])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_anonymize_prints_what_the_release_cost(tmp_path: Path) -> None:
    out = tmp_path / "release.csv"
    result = runner.invoke(app, ["anonymize", "microaggregate", str(ROOT / "examples" / "hospital" / "admissions.csv"),
                                 "--qi", "age,zip", "--sensitive", "stay_days", "--k", "5", "--t", "1/5",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "model: discernibility  attribute: all  raw: 1500 records²" in result.output  # 60 clusters of 5
    assert "model: loss" not in result.output  # perturbed, not generalized: not applicable, not printed
