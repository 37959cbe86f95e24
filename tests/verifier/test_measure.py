"""measure() and audit(): one group-by, every model on every attribute, exact verdicts."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import verifier.audit
import verifier.measure
import verifier.privacy.diversity
from _measure_tables import paper_frame
from verifier.audit import audit
from verifier.errors import ExcludedRowsWarning, PolicyError
from verifier.measure import MeasureResult, measure
from verifier.policy import parse_policy
from verifier.question import Question
from verifier.registry import MeasureOptions, models
from verifier.tables.buckets import Ranges
from verifier.tables.counts import AttributeSpec
from verifier.tables.hierarchy import load_hierarchy

HIERARCHY_FILE = Path(__file__).parents[1] / "data" / "disease_hierarchy.csv"
QI = ["zip", "age"]
SALARY = AttributeSpec(("salary",), kind="numerical")
DISEASE = AttributeSpec(("disease4",))
JOINT = AttributeSpec(("salary", "disease4"))


def _table4(progress: bool | None = None, **options: Any) -> MeasureResult:
    """Li et al. 2007, Table 4 with salary (numerical), disease (hierarchy) and their joint attribute."""
    question = Question.of(QI, [SALARY, DISEASE, JOINT], hierarchies={"disease4": load_hierarchy(HIERARCHY_FILE)},
                           **options)
    return measure(paper_frame(), question, progress=progress)


def test_table4_golden_values() -> None:
    report = _table4()
    assert (report.rows, report.classes) == (9, 3)
    # Table 4 is "3-anonymous" and "3-diverse": three classes of three rows, three diseases each.
    assert report.find("k_anonymity").level.exact == "3"
    assert report.find("prosecutor_risk").level.exact == "1/3"
    assert report.find("distinct_l_diversity", "disease4").level.exact == "3"
    # Li et al. 2007: D[P1, Q] = 3/8 = 0.375 for P1 = {3K, 4K, 5K}, the class 476**/2*.
    salary = report.find("t_closeness", "salary", distance="ordered")
    assert salary.level.exact == "3/8"
    assert salary.witness is not None and salary.witness.qi == {"zip": "476**", "age": "2*"}
    # Equal distance: every class holds 3 of the 6 diseases once; e.g. class 476**/2* has
    # |p - q| = 2,1,1 (its own values) and 1,2,1 (the others) in ninths: (8/9)/2 = 4/9.
    assert report.find("t_closeness", "disease4", distance="equal").level.exact == "4/9"
    # Hierarchical: P1 = {gastric ulcer, gastritis, stomach cancer} moves 4/9 across the
    # root (cost 1), nothing within the stomach node: 4/9 (the slides print 0.5).
    assert report.find("t_closeness", "disease4", distance="hierarchical").level.exact == "4/9"
    assert report.metrics.discernibility == 27 and report.metrics.average_class_size == 3


def test_every_model_on_every_attribute() -> None:
    report = _table4(l=[2, 3])
    measured = [(m.model, m.attribute, m.distance, m.parameters.get("l")) for m in report.measurements]
    by_default = [m for m in models() if m.measured(MeasureOptions())]
    attributes: list[Any] = ["salary", "disease4", ("salary", "disease4")]
    expected = [(m.id, None) for m in by_default if m.scope == "release"] + [
        (m.id, attribute) for attribute in attributes for m in by_default if m.scope == "attribute"]
    assert list(dict.fromkeys((model_id, attribute) for model_id, attribute, *_ in measured)) == expected
    assert [(a, d) for m, a, d, _ in measured if m == "t_closeness"] == [
        ("salary", "ordered"), ("disease4", "equal"), ("disease4", "hierarchical"), (("salary", "disease4"), "equal")]
    assert [(a, l) for m, a, _, l in measured if m == "recursive_cl_diversity"] == [
        (attribute, l) for attribute in attributes for l in (2, 3)]
    assert set(report.timings) == {m for m, *_ in measured} | {"count_tables", "total"}
    assert all(seconds >= 0 for seconds in report.timings.values())


def test_one_group_by(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = verifier.measure.count_tables

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(verifier.measure, "count_tables", counting)
    _table4()
    assert len(calls) == 1


def test_json_contract() -> None:
    document = json.loads(json.dumps(_table4().to_json(), allow_nan=False))
    assert set(document) == {"qi", "rows", "classes", "excluded", "metrics", "measurements"}
    assert (document["rows"], document["classes"], document["qi"]) == (9, 3, QI)
    assert document["excluded"] == {"salary": 0, "disease4": 0, "salary+disease4": 0}
    assert document["metrics"] == {"discernibility": 27, "average_class_size": 3, "normalized_average_class_size": 1}
    for item in document["measurements"]:
        assert {"model", "attribute", "distance", "parameters", "level", "exact", "witness", "notes"} <= set(item)
    joint = [m for m in document["measurements"] if m["attribute"] == ["salary", "disease4"]]
    # one each: recursive (c,l)-diversity at l = 2 only, t-closeness under the equal distance only
    assert len(joint) == sum(1 for m in models() if m.scope == "attribute" and m.measured(MeasureOptions()))
    salary = next(m for m in document["measurements"] if m["model"] == "t_closeness" and m["attribute"] == "salary")
    assert (salary["distance"], salary["exact"], salary["level"]) == ("ordered", "3/8", 0.375)
    infinite = next(m for m in document["measurements"] if m["model"] == "delta_disclosure" and m["attribute"] == "salary")
    assert infinite["level"] == "inf" and infinite["exact"] == "inf" and infinite["reason"]
    assert infinite["status"] == "infinite"


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_row_order_and_index_labels_never_change_the_report(data: st.DataObject) -> None:
    frame = paper_frame()
    order = data.draw(st.permutations(range(len(frame))))
    shuffled = frame.iloc[list(order)].copy()
    shuffled.index = pd.Index(data.draw(st.lists(st.integers(), min_size=9, max_size=9)))
    first = _table4().to_json()
    question = Question.of(QI, [SALARY, DISEASE, JOINT], hierarchies={"disease4": load_hierarchy(HIERARCHY_FILE)})
    second = measure(shuffled, question).to_json()
    assert first["measurements"] == second["measurements"]


def test_buckets_reach_multiplicative_t_closeness() -> None:
    buckets = Ranges(((None, 6), (6, None)))
    report = _table4(buckets={"salary": buckets})
    measurement = report.find("multiplicative_t_closeness", "salary")
    # Buckets [.., 6) and [6, ..) hold 3 and 6 of 9 salaries; class 476**/2* has all 3 in
    # the first: ratio P_E/P = 1 / (3/9) = 3, and the second bucket is empty there (inf).
    assert measurement.parameters.get("bucketing") == "ranges"
    assert measurement.level.exact == "inf"


def test_excluded_rows_are_reported() -> None:
    frame = paper_frame().astype({"salary": "float64"})
    frame.loc[0, "salary"] = None
    with pytest.warns(ExcludedRowsWarning):
        report = measure(frame, Question.of(QI, [AttributeSpec(("salary",), kind="numerical", missing="exclude"),
                                                 DISEASE]))
    assert report.excluded == {"salary": 1, "disease4": 0}
    assert report.rows == 9 and report.find("k_anonymity").level.exact == "3"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hierarchies": {"city": None}}, "data: hierarchy given for 'city', expected one of the sensitive attributes"),
        ({"hierarchies": {"salary": None}}, "data: hierarchy given for 'salary', expected a categorical attribute, "
                                            "found a numerical one"),
        ({"buckets": {"disease": None}}, "data: buckets given for 'disease', expected one of the sensitive attributes "
                                         "['disease4', 'salary']"),
        ({"l": [2, 0]}, "data: l of recursive (c,l)-diversity: expected integers ≥ 1, found [2, 0]"),
        ({"qi": ["zip", "salary"]}, "data: expected sensitive columns that are not quasi-identifiers, found ['salary'] in both"),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(PolicyError) as caught:
        Question.of(options.pop("qi", QI), [SALARY, DISEASE], **options)
    assert message in str(caught.value)


def test_find_names_what_is_missing() -> None:
    with pytest.raises(KeyError, match="no t_closeness measurement for attribute 'salary' with distance 'equal'"):
        _table4().find("t_closeness", "salary", distance="equal")


def test_progress_bar_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    report = _table4(progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and report.find("k_anonymity").level.exact == "3"


# ---- audit ---------------------------------------------------------------------------

POLICY = """
[data]
qi = ["zip", "age"]

[sensitive.salary]
kind = "numerical"

[sensitive.disease4]
hierarchy = "disease.csv"

[joint]
attributes = [["salary", "disease4"]]
"""


def _audit(requirements: str, tmp_path: Path, frame: pd.DataFrame | None = None) -> verifier.audit.AuditResult:
    shutil.copy(HIERARCHY_FILE, tmp_path / "disease.csv")
    policy = parse_policy(POLICY + requirements, source="p.toml", base=tmp_path)
    return audit(paper_frame() if frame is None else frame, policy)


def _require(model: str, threshold: str, **keys: str) -> str:
    extra = "".join(f"{k} = {v}\n" for k, v in keys.items())
    return f'\n[[require]]\nmodel = "{model}"\n{extra}threshold = {threshold}\n'


@pytest.mark.parametrize(
    ("requirement", "passed"),
    [
        (_require("k_anonymity", "3"), True),
        (_require("k_anonymity", "4"), False),
        (_require("prosecutor_risk", '"1/3"'), True),
        (_require("prosecutor_risk", "0.33"), False),
        # 3/8 exactly: a threshold of 0.375 passes, 0.374 fails.
        (_require("t_closeness", "0.375", attribute='"salary"'), True),
        (_require("t_closeness", "0.374", attribute='"salary"'), False),
        (_require("t_closeness", '"4/9"', attribute='"disease4"', distance='"hierarchical"'), True),
        (_require("t_closeness", "0.44", attribute='"disease4"', distance='"equal"'), False),
        (_require("distinct_l_diversity", "3", attribute='["disease4", "salary"]'), True),
        # Each class holds 3 values once: c* = r1 / (r2 + r3) = 1/2, and the definition is strict.
        (_require("recursive_cl_diversity", '"1/2"', attribute='"disease4"', l="2"), False),
        (_require("recursive_cl_diversity", "0.51", attribute='"disease4"', l="2"), True),
        (_require("recursive_cl_diversity", "100", attribute='"disease4"', l="4"), False),
        # Entropy: each class is uniform over 3 values, H = ln 3, so l = 3 exactly holds and 3.01 fails.
        (_require("entropy_l_diversity", "3", attribute='"disease4"'), True),
        (_require("entropy_l_diversity", "3.01", attribute='"disease4"'), False),
    ],
)
def test_audit_verdicts(tmp_path: Path, requirement: str, passed: bool) -> None:
    result = _audit(requirement, tmp_path)
    (check,) = result.checks
    assert check.passed is passed and result.passed is passed


def test_a_policy_gives_the_question_its_audit_measures(tmp_path: Path) -> None:
    shutil.copy(HIERARCHY_FILE, tmp_path / "disease.csv")
    text = POLICY + "\n[measure]\nl = [2, 3]\nrisk_threshold = 0.25\n" + _require(
        "t_closeness", '"4/9"', attribute='"disease4"', distance='"hierarchical"')
    policy = parse_policy(text, source="p.toml", base=tmp_path)
    question = policy.question
    assert (question.qi, question.attributes) == (("zip", "age"), (SALARY, DISEASE, JOINT))
    assert question.options == MeasureOptions(
        hierarchies={"disease4": load_hierarchy(HIERARCHY_FILE)}, l=(2, 3), risk_threshold=Fraction(1, 4),
        requested={"t_closeness": ({"distance": "hierarchical", "attribute": "disease4"},)})
    assert audit(paper_frame(), policy).report.to_json() == measure(paper_frame(), question).to_json()


def test_decimal_thresholds_decide_exactly(tmp_path: Path) -> None:
    # One class of 10 rows, a value 3 times: α = 3/10. The binary float 0.3 is below 3/10,
    # so a float threshold would fail this release; the exact decimal passes it.
    frame = pd.DataFrame({"zip": ["a"] * 10, "age": [1] * 10, "salary": [1] * 10,
                          "disease4": ["flu"] * 3 + ["gastritis"] * 3 + ["pneumonia"] * 2 + ["bronchitis"] * 2})
    assert Fraction(0.3) < Fraction(3, 10)
    result = _audit(_require("alpha_k_anonymity", "0.3", attribute='"disease4"'), tmp_path, frame)
    assert result.checks[0].measurement.level.exact == "3/10" and result.passed


def test_entropy_decisions_are_cross_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verifier.privacy.diversity, "entropy_l_satisfied", lambda table, l: False)
    with pytest.raises(RuntimeError, match="require\\[1\\]: entropy l-diversity level 3 decided True against l = 3"):
        _audit(_require("entropy_l_diversity", "3", attribute='"disease4"'), tmp_path)


def test_audit_json(tmp_path: Path) -> None:
    result = _audit(_require("k_anonymity", "3") + _require("t_closeness", "0.2", attribute='"salary"'), tmp_path)
    document = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert document["passed"] is False and document["policy"] == "p.toml"
    assert (document["rows"], document["classes"]) == (9, 3)
    first, second = document["measurements"]
    assert (first["model"], first["exact"], first["threshold"], first["passed"], first["requirement"]) == (
        "k_anonymity", "3", "3", True, "require[1]")
    assert (second["model"], second["attribute"], second["distance"], second["exact"], second["threshold"],
            second["passed"]) == ("t_closeness", "salary", "ordered", "3/8", "1/5", False)
