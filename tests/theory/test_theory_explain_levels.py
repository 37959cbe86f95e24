"""explain takes typed levels (``theory.answers.audit_levels``): checked when made, read once from a result or a
results document, never text parsed inside explain."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
import sympy

import privcert
from theory.answers.audit_levels import AuditLevels, MeasuredLevel
from theory.answers.explain import explain
from verifier.errors import DataError
from verifier.randomized.modes import MechanismChoice
from verifier.tables.counts import AttributeSpec

DATA = Path(__file__).resolve().parents[2] / "privcert" / "data"


@pytest.mark.parametrize("model, attribute, value, message", [
    ("t_closeness", "disease", 0.375, "t_closeness on disease: the level of t_closeness must be exact"),
    ("k_anonymity", None, "3", "k_anonymity: the level of k_anonymity must be exact"),
    ("k_anonymity", None, True, "found True (bool)"),
    ("t_closeness", "s", sympy.Float(0.5), "(Float)"),
    ("t_closeness", "s", sympy.Symbol("t"), "found t (Symbol)"),
])
def test_a_level_that_is_not_exact_is_refused_naming_the_model_and_the_value(
        model: str, attribute: str | None, value: object, message: str) -> None:
    with pytest.raises(DataError) as raised:
        MeasuredLevel(model, attribute, value)  # type: ignore[arg-type]
    assert message in str(raised.value) and model in str(raised.value)


def test_a_model_that_is_no_definition_is_refused() -> None:
    with pytest.raises(DataError, match="'no_such_model' is not a definition of the map"):
        MeasuredLevel("no_such_model", None, 3)
    with pytest.raises(DataError, match="the status of k_anonymity is one of finite, infinite"):
        MeasuredLevel("k_anonymity", None, 3, "nan")  # type: ignore[arg-type]


def test_exact_levels_are_ints_fractions_or_sympy_numbers() -> None:
    level = MeasuredLevel("recursive_cl_diversity", "disease", Fraction(1, 2), parameters={"l": 2})
    assert level.level == sympy.Rational(1, 2) and level.status == "finite"
    assert MeasuredLevel("k_anonymity", None, 3).level == sympy.Integer(3)
    assert MeasuredLevel("t_closeness", "s", sympy.oo).status == "infinite"
    assert MeasuredLevel("delta_disclosure", "s", sympy.log(2)).level == sympy.log(2)
    assert MeasuredLevel("t_closeness", "s", None, "undefined").level is None


def test_the_audit_levels_are_checked() -> None:
    with pytest.raises(DataError, match="records: expected the release's number of rows N"):
        AuditLevels(-1, ())
    with pytest.raises(DataError, match=r"levels\[0\]: expected a MeasuredLevel, found dict"):
        AuditLevels(9, ({"model": "k_anonymity", "exact": "3"},))  # type: ignore[arg-type]
    with pytest.raises(DataError, match=r"excluded\['s'\]: expected a number of rows"):
        AuditLevels(9, (), excluded={"s": "3"})  # type: ignore[dict-item]


def test_explain_refuses_a_document_it_would_have_to_parse() -> None:
    with pytest.raises(TypeError, match=r"AuditLevels.from_json\(document\)"):
        explain({"rows": 9, "measurements": []})  # type: ignore[arg-type]


def test_typed_levels_are_explained() -> None:
    """Li et al. 2007, Table 5 as the demo audits it, typed in: k = 3 and c = 1/2 at l = 2 over N = 9 in classes of
    3 give prosecutor risk 1/3 and α = c/(1 + c) = 1/3."""
    levels = AuditLevels(9, (MeasuredLevel("k_anonymity", None, 3),
                             MeasuredLevel("recursive_cl_diversity", "disease", Fraction(1, 2), parameters={"l": 2})),
                         classes=3)
    found = explain(levels)
    implied = {item.definition: item.level for item in found.implied}
    assert implied["prosecutor_risk"] == sympy.Rational(1, 3)
    assert implied["alpha_k_anonymity"] == sympy.Rational(1, 3)
    assert found.text().splitlines()[0] == "release: N = 9 records, smallest class k = 3; 2 finite measured level(s)"


def test_an_audit_and_its_json_give_the_same_levels() -> None:
    result = privcert.audit(DATA / "release.csv", DATA / "policy.toml")
    assert AuditLevels.of(result) == AuditLevels.from_json(result.to_json())
    assert explain(AuditLevels.of(result)).to_json() == explain(AuditLevels.from_json(result.to_json())).to_json()


def test_a_randomized_measurement_and_its_json_give_the_same_levels(tmp_path: Path) -> None:
    (tmp_path / "m.csv").write_text("value,a,b,c\na,2/3,1/6,1/6\nb,1/6,2/3,1/6\nc,1/6,1/6,2/3\n")
    frame = pd.DataFrame([("x", "a"), ("x", "b"), ("x", "a"), ("y", "c"), ("y", "a"), ("y", "b")], columns=["q", "s"])
    result = privcert.measure(frame, ["q"], [AttributeSpec(("s",))],
                              mechanism=MechanismChoice(file=tmp_path / "m.csv", attribute="s", ks=(1,)))
    levels = AuditLevels.of(result)
    assert levels.randomized and {"ldp", "kt_closeness"} <= {item.model for item in levels.levels}
    assert levels == AuditLevels.from_json(result.to_json())


def test_rows_left_out_are_counted_from_the_tables(tmp_path: Path) -> None:
    """The document does not carry the smallest counted class; the result's count tables do."""
    frame = pd.DataFrame([("x", None)] * 3 + [("y", "a"), ("y", "a"), ("y", "b")], columns=["q", "s"])
    with pytest.warns(UserWarning, match="excluded"):
        result = privcert.measure(frame, ["q"], [AttributeSpec(("s",), missing="exclude")])
    assert AuditLevels.of(result).counted == {"s": (3, 3)}
    assert AuditLevels.from_json(result.to_json()).counted == {}
