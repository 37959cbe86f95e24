"""Policy files (verifier/policy.py): one table of bad inputs, then the valid cases."""

from __future__ import annotations

import re
import shutil
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.errors import HierarchyError, InputFileNotFoundError, PolicyError
from verifier.policy import Policy, load_policy, parse_policy
from verifier.registry import model, model_ids
from verifier.tables.buckets import EqualFrequency, Groups, Ranges

HIERARCHY = Path(__file__).parents[1] / "data" / "disease_hierarchy.csv"
DOCS = Path(__file__).parents[2] / "docs" / "policy.md"

HEAD = """
[data]
qi = ["zip", "age"]

[sensitive.salary]
kind = "numerical"

[sensitive.disease]
hierarchy = "disease.csv"
"""
K = '\n[[require]]\nmodel = "k_anonymity"\nthreshold = 3\n'


def _require(body: str) -> str:
    return HEAD + "\n[[require]]\n" + body


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(HIERARCHY, tmp_path / "disease.csv")
    (tmp_path / "flat.csv").write_text("flu\n")
    return tmp_path


def _parse(text: str, folder: Path) -> Policy:
    return parse_policy(text, source="p.toml", base=folder)


BAD: list[tuple[str, str, type[Exception], str]] = [
    # (case, policy text, error, expected message substring)
    ("toml syntax", "[data\nqi = 1", PolicyError, "p.toml: not valid TOML: "),
    ("no data", '[sensitive.s]\n[[require]]\nmodel = "k_anonymity"\nthreshold = 1\n', PolicyError,
     "p.toml: data: expected the key 'data', found none"),
    ("top-level typo", HEAD + K + "[measures]\nl = 2\n", PolicyError,
     "p.toml: measures: expected one of the keys data, sensitive, joint, measure, require, mechanism, risk, "
     "found the unknown key 'measures'"),
    ("data not a table", 'data = 3\n[sensitive.s]\n' + K, PolicyError, "p.toml: data: expected a table, found the integer 3"),
    ("no qi", HEAD.replace('qi = ["zip", "age"]', "") + K, PolicyError, "p.toml: data.qi: expected the key 'qi', found none"),
    ("qi a string", HEAD.replace('["zip", "age"]', '"zip"') + K, PolicyError,
     "p.toml: data.qi: expected a non-empty array of column names, found the string 'zip'"),
    ("qi empty", HEAD.replace('["zip", "age"]', "[]") + K, PolicyError,
     "data.qi: expected a non-empty array of column names, found an array of 0 item(s)"),
    ("qi repeated", HEAD.replace('["zip", "age"]', '["zip", "zip"]') + K, PolicyError,
     "data.qi: expected distinct column names, found ['zip'] repeated"),
    ("qi of numbers", HEAD.replace('["zip", "age"]', '["zip", 3]') + K, PolicyError,
     "data.qi: expected a non-empty string, found the integer 3"),
    ("data key typo", HEAD.replace("qi =", "qi = []\nqis =") + K, PolicyError,
     "data.qis: expected one of the keys qi, path, found the unknown key 'qis'"),
    ("path not a string", HEAD.replace("[data]", "[data]\npath = 3") + K, PolicyError,
     "data.path: expected a non-empty string, found the integer 3"),
    ("no sensitive table", '[data]\nqi = ["zip"]\n[sensitive]\n' + K, PolicyError,
     "p.toml: sensitive: expected at least one [sensitive.NAME] table, found an empty table"),
    ("unknown kind", HEAD.replace('"numerical"', '"number"') + K, PolicyError,
     "sensitive.salary.kind: expected one of categorical, numerical, ordinal, found the string 'number'"),
    ("sensitive key typo", HEAD.replace("kind =", "knid =") + K, PolicyError,
     "sensitive.salary.knid: expected one of the keys kind, missing, order, domain, hierarchy, buckets, "
     "found the unknown key 'knid'"),
    ("sensitive is a QI", HEAD + "[sensitive.zip]\n" + K, PolicyError,
     "sensitive.zip: expected a column that is not a quasi-identifier, found 'zip', which is listed in data.qi"),
    ("missing policy typo", HEAD.replace('"numerical"', '"numerical"\nmissing = "drop"') + K, PolicyError,
     "sensitive.salary.missing: expected one of error, value, exclude, found the string 'drop'"),
    ("missing value on numerical", HEAD.replace('"numerical"', '"numerical"\nmissing = "value"') + K, PolicyError,
     "sensitive.salary.missing: expected 'error' or 'exclude' for a numerical attribute ('value' is categorical only)"),
    ("order on numerical", HEAD.replace('"numerical"', '"numerical"\norder = [1, 2]') + K, PolicyError,
     "sensitive.salary.order: expected no 'order' key for a numerical attribute (order is for ordinal ones)"),
    ("domain on categorical", HEAD + "domain = [1, 2]\n" + K, PolicyError,
     "sensitive.disease.domain: expected no 'domain' key for a categorical attribute (domain is for numerical ones)"),
    ("empty order", HEAD + '[sensitive.grade]\nkind = "ordinal"\norder = []\n' + K, PolicyError,
     "sensitive.grade.order: expected a non-empty array of distinct strings or numbers, found an array of 0 item(s)"),
    ("repeated order", HEAD + '[sensitive.grade]\nkind = "ordinal"\norder = ["low", "high", "low"]\n' + K,
     PolicyError, "sensitive.grade.order: expected a non-empty array of distinct strings or numbers, found 'low' repeated"),
    ("order of tables", HEAD + '[sensitive.grade]\nkind = "ordinal"\norder = [{a = 1}]\n' + K, PolicyError,
     "sensitive.grade.order: expected a non-empty array of distinct strings or numbers, found a table in the array"),
    ("text in a domain", HEAD.replace('"numerical"', '"numerical"\ndomain = [1, "a"]') + K, PolicyError,
     "sensitive.salary.domain: expected a non-empty array of distinct numbers, found the string 'a' in the array"),
    ("hierarchy on numerical", HEAD.replace('"numerical"', '"numerical"\nhierarchy = "disease.csv"') + K,
     PolicyError, "sensitive.salary.hierarchy: expected a hierarchy only for a categorical attribute, found a numerical attribute"),
    ("hierarchy file absent", HEAD.replace('"disease.csv"', '"absent.csv"') + K, InputFileNotFoundError,
     "p.toml: sensitive.disease.hierarchy: hierarchy file"),
    ("hierarchy malformed", HEAD.replace('"disease.csv"', '"flat.csv"') + K, HierarchyError,
     "p.toml: sensitive.disease.hierarchy: "),
    ("ranges on categorical", HEAD + "buckets = {ranges = [[1, 2]]}\n" + K, PolicyError,
     "sensitive.disease.buckets.ranges: expected groups for a categorical attribute (ranges needs an ordered attribute)"),
    ("two bucketings", HEAD.replace('"numerical"', '"numerical"\nbuckets = {edges = [1, 2], equal_frequency = 2}') + K,
     PolicyError, "sensitive.salary.buckets: expected exactly one of the keys edges, ranges, groups, equal_frequency, found 2 of them"),
    ("bucketing typo", HEAD.replace('"numerical"', '"numerical"\nbuckets = {edge = [1, 2]}') + K, PolicyError,
     "sensitive.salary.buckets.edge: expected one of the keys edges, ranges, groups, equal_frequency, found the unknown key 'edge'"),
    ("range not a pair", HEAD.replace('"numerical"', '"numerical"\nbuckets = {ranges = [[1, 2, 3]]}') + K, PolicyError,
     "sensitive.salary.buckets.ranges[1]: expected a pair [lo, hi], found an array of 3 item(s)"),
    ("range bound text", HEAD.replace('"numerical"', '"numerical"\nbuckets = {ranges = [["a", 2]]}') + K, PolicyError,
     "sensitive.salary.buckets.ranges[1]: expected a non-empty array of distinct numbers, found the string 'a' in the array"),
    ("edges decreasing", HEAD.replace('"numerical"', '"numerical"\nbuckets = {edges = [5, 3]}') + K, PolicyError,
     "sensitive.salary.buckets.edges: range edges: expected strictly increasing edges, found 5 then 3"),
    ("equal frequency zero", HEAD.replace('"numerical"', '"numerical"\nbuckets = {equal_frequency = 0}') + K,
     PolicyError, "sensitive.salary.buckets.equal_frequency: expected an integer ≥ 1, found the integer 0"),
    ("overlapping groups", HEAD + 'buckets = {groups = {a = ["flu"], b = ["flu", "gastritis"]}}\n' + K, PolicyError,
     "sensitive.disease.buckets.groups: value 'flu' is listed in group 'a' and in group 'b'"),
    ("joint undeclared", HEAD + '[joint]\nattributes = [["salary", "zip"]]\n' + K, PolicyError,
     "joint.attributes[1]: expected names declared as [sensitive.NAME] (salary, disease), found 'zip'"),
    ("joint of one", HEAD + '[joint]\nattributes = [["salary"]]\n' + K, PolicyError,
     "joint.attributes[1]: expected at least two sensitive attribute names, found ['salary']"),
    ("joint flat", HEAD + '[joint]\nattributes = ["salary", "disease"]\n' + K, PolicyError,
     "joint.attributes[1]: expected a non-empty array of column names, found the string 'salary'"),
    ("no require", HEAD, PolicyError, "p.toml: require: expected the key 'require', found none"),
    ("require empty", "require = []\n" + HEAD, PolicyError,
     "p.toml: require: expected one or more [[require]] tables, found an array of 0 item(s)"),
    ("unknown model", _require('model = "k_anon"\nthreshold = 3'), PolicyError,
     "p.toml: require[1].model: expected one of k_anonymity, prosecutor_risk, alpha_k_anonymity, "),
    ("no model", _require("threshold = 3"), PolicyError, "require[1].model: expected one of k_anonymity"),
    ("model not a string", _require("model = 3\nthreshold = 3"), PolicyError, "found the integer 3"),
    ("second requirement", HEAD + K + '\n[[require]]\nmodel = "k_anonymity"\n', PolicyError,
     "p.toml: require[2].threshold: expected the key 'threshold', found none"),
    ("threshold typo", _require('model = "k_anonymity"\nthreshhold = 3'), PolicyError,
     "require[1].threshhold: expected one of the k_anonymity keys model, threshold, found the unknown key 'threshhold'"),
    ("k not an integer", _require('model = "k_anonymity"\nthreshold = 2.5'), PolicyError,
     "require[1].threshold: expected an integer ≥ 1, found the number 2.5"),
    ("k as bad text", _require('model = "k_anonymity"\nthreshold = "three"'), PolicyError,
     "require[1].threshold: expected an integer ≥ 1, found the string 'three'"),
    ("k zero", _require('model = "k_anonymity"\nthreshold = 0'), PolicyError,
     "require[1].threshold: expected an integer ≥ 1, found the integer 0"),
    ("threshold boolean", _require('model = "k_anonymity"\nthreshold = true'), PolicyError,
     "require[1].threshold: expected an integer ≥ 1, found the boolean true"),
    ("t above 1", _require('model = "t_closeness"\nattribute = "salary"\nthreshold = 1.5'), PolicyError,
     'require[1].threshold: expected a number (integer, decimal, or a string such as "1/6") ≥ 0 and ≤ 1, '
     "found the number 1.5"),
    ("division by zero", _require('model = "t_closeness"\nattribute = "salary"\nthreshold = "1/0"'), PolicyError,
     "found the string '1/0'"),
    ("negative beta", _require('model = "basic_beta_likeness"\nattribute = "salary"\nthreshold = -1'), PolicyError,
     "require[1].threshold: expected a number (integer, decimal, or a string such as \"1/6\") ≥ 0, found the integer -1"),
    ("negative present delta", _require('model = "delta_disclosure_present"\nattribute = "salary"\nthreshold = -1'),
     PolicyError, "≥ 0, found the integer -1"),
    ("multiplicative t below 1", _require('model = "multiplicative_t_closeness"\nattribute = "salary"\nthreshold = 0.5'),
     PolicyError, "≥ 1, found the number 0.5"),
    ("risk above 1", _require('model = "prosecutor_risk"\nthreshold = 2'), PolicyError, "≥ 0 and ≤ 1, found the integer 2"),
    ("no attribute", _require('model = "t_closeness"\nthreshold = 0.2'), PolicyError,
     "require[1].attribute: expected the key 'attribute', found none"),
    ("attribute on k", _require('model = "k_anonymity"\nattribute = "salary"\nthreshold = 3'), PolicyError,
     "require[1].attribute: expected one of the k_anonymity keys model, threshold, found the unknown key 'attribute'"),
    ("distance on l", _require('model = "distinct_l_diversity"\nattribute = "disease"\ndistance = "equal"\nthreshold = 2'),
     PolicyError, "require[1].distance: expected one of the distinct_l_diversity keys model, threshold, attribute, "
     "found the unknown key 'distance'"),
    ("undeclared attribute", _require('model = "t_closeness"\nattribute = "zip"\nthreshold = 0.2'), PolicyError,
     "require[1].attribute: expected a declared sensitive attribute (salary, disease), found 'zip'"),
    ("undeclared joint", _require('model = "t_closeness"\nattribute = ["salary", "disease"]\nthreshold = 0.2'),
     PolicyError, "require[1].attribute: expected a sensitive attribute name or a joint attribute declared in "
     "[joint] (none declared), found ['salary', 'disease']"),
    ("attribute a number", _require('model = "t_closeness"\nattribute = 3\nthreshold = 0.2'), PolicyError,
     "require[1].attribute: expected a non-empty array of column names, found the integer 3"),
    ("unknown distance", _require('model = "t_closeness"\nattribute = "salary"\ndistance = "manhattan"\nthreshold = 0.2'),
     PolicyError, "require[1].distance: expected one of equal, ordered, hierarchical, found the string 'manhattan'"),
    ("ordered on categorical", _require('model = "t_closeness"\nattribute = "disease"\ndistance = "ordered"\nthreshold = 0.2'),
     PolicyError, "require[1].distance: expected 'equal' or 'hierarchical' for a categorical attribute "
     "('ordered' needs numerical or ordinal), found 'ordered'"),
    ("equal on numerical", _require('model = "t_closeness"\nattribute = "salary"\ndistance = "equal"\nthreshold = 0.2'),
     PolicyError, "require[1].distance: expected 'ordered' for a numerical attribute ('equal' is for categorical ones)"),
    ("hierarchical without hierarchy",
     HEAD + '[sensitive.city]\n\n[[require]]\nmodel = "t_closeness"\nattribute = "city"\n'
     'distance = "hierarchical"\nthreshold = 0.2\n', PolicyError,
     "require[1].distance: expected a hierarchy file declared for 'city' (sensitive.NAME.hierarchy), "
     "found 'hierarchical' without one"),
    ("recursive without l", _require('model = "recursive_cl_diversity"\nattribute = "disease"\nthreshold = 3'),
     PolicyError, "require[1].l: expected the key 'l', found none"),
    ("recursive l zero", _require('model = "recursive_cl_diversity"\nattribute = "disease"\nl = 0\nthreshold = 3'),
     PolicyError, "require[1].l: expected an integer ≥ 1, found the integer 0"),
    ("recursive c zero", _require('model = "recursive_cl_diversity"\nattribute = "disease"\nl = 2\nthreshold = 0'),
     PolicyError, "require[1].threshold: expected a number (integer, decimal, or a string such as \"1/6\") > 0"),
    ("measure l empty", HEAD + K + "[measure]\nl = []\n", PolicyError,
     "measure.l: expected an integer ≥ 1 or a non-empty array of them, found an empty array"),
    ("measure l text", HEAD + K + '[measure]\nl = "2"\n', PolicyError, "measure.l: expected an integer ≥ 1, found the string '2'"),
    ("risk threshold zero", HEAD + K + "[measure]\nrisk_threshold = 0\n", PolicyError,
     "measure.risk_threshold: expected a number (integer, decimal, or a string such as \"1/6\") > 0 and ≤ 1, "
     "found the integer 0"),
    ("measure typo", HEAD + K + "[measure]\nrisk = 0.2\n", PolicyError,
     "measure.risk: expected one of the keys l, risk_threshold, found the unknown key 'risk'"),
]


@pytest.mark.parametrize(("text", "error", "message"), [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_bad_policies(folder: Path, text: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        _parse(text, folder)
    assert message in str(caught.value)
    assert str(caught.value).startswith("p.toml: "), "every message names the policy file first"


def test_every_policy_error_is_a_value_error(folder: Path) -> None:
    with pytest.raises(ValueError):
        _parse(_require('model = "k_anon"'), folder)


def test_missing_policy_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileNotFoundError, match="absent.toml: policy file not found"):
        load_policy(tmp_path / "absent.toml")


FULL = HEAD + """
[sensitive.grade]
kind = "ordinal"
order = ["low", "mid", "high"]
missing = "exclude"
buckets = {ranges = [["low", "high"], ["high", "inf"]]}

[joint]
attributes = [["disease", "salary"], ["grade", "disease"]]

[measure]
l = [2, 4]
risk_threshold = "1/3"

[[require]]
model = "t_closeness"
attribute = "salary"
threshold = 0.15

[[require]]
model = "t_closeness"
attribute = "disease"
threshold = "1/6"

[[require]]
model = "recursive_cl_diversity"
attribute = ["salary", "disease"]
l = 3
threshold = 3

[[require]]
model = "alpha_k_anonymity"
attribute = "disease"
threshold = "0.3"
"""


def test_a_full_policy(folder: Path) -> None:
    policy = _parse(FULL, folder)
    assert policy.source == "p.toml" and policy.qi == ("zip", "age") and policy.data is None
    assert [s.name for s in policy.sensitive] == ["salary", "disease", "grade"]
    salary, disease, grade = policy.sensitive
    assert (salary.spec.kind, salary.spec.missing, salary.spec.order) == ("numerical", "error", None)
    assert disease.spec.kind == "categorical" and disease.hierarchy is not None and disease.hierarchy.height == 3
    assert grade.spec.order == ("low", "mid", "high") and grade.spec.missing == "exclude"
    assert grade.buckets == Ranges((("low", "high"), ("high", "inf")))
    # Joint attributes keep the order written in [joint]; rows a part excludes stay excluded.
    assert [(j.columns, j.kind, j.missing) for j in policy.joint] == [
        (("disease", "salary"), "categorical", "error"),
        (("grade", "disease"), "categorical", "exclude"),
    ]
    assert [a.name for a in policy.attributes] == ["salary", "disease", "grade", ("disease", "salary"), ("grade", "disease")]
    assert policy.hierarchies == {"disease": disease.hierarchy} and policy.buckets == {"grade": grade.buckets}
    # [measure] l; the l a requirement names is measured for that requirement's attribute.
    assert policy.l == (2, 4) and policy.risk_threshold == Fraction(1, 3)
    assert policy.requested["recursive_cl_diversity"] == ({"l": 3, "attribute": ("disease", "salary")},)
    t_salary, t_disease, recursive, alpha = policy.requirements
    # 0.15 is read from its decimal text: exactly 3/20, not the binary float 0.1499999999999999944...
    assert t_salary.threshold == Fraction(3, 20) and t_salary.distance == "ordered"
    assert t_disease.threshold == Fraction(1, 6) and t_disease.distance == "equal"
    assert recursive.attribute == ("disease", "salary") and recursive.l == 3 and recursive.key == "require[3]"
    assert alpha.threshold == Fraction(3, 10)


def test_numeric_ranges_and_unbounded_sides(folder: Path) -> None:
    text = HEAD.replace('"numerical"', '"numerical"\nbuckets = {ranges = [["-inf", 5000], [5000, 7.5], [7.5, "inf"]]}') + K
    assert _parse(text, folder).sensitive[0].buckets == Ranges(((None, 5000), (5000, 7.5), (7.5, None)))


@pytest.mark.parametrize(
    ("buckets", "expected"),
    [
        ("{edges = [3000, 6000, 12000]}", Ranges(((3000, 6000), (6000, 12000)))),
        ("{equal_frequency = 2}", EqualFrequency(2)),
    ],
)
def test_numerical_bucketings(folder: Path, buckets: str, expected: object) -> None:
    text = HEAD.replace('"numerical"', f'"numerical"\nbuckets = {buckets}') + K
    assert _parse(text, folder).buckets == {"salary": expected}


def test_groups(folder: Path) -> None:
    text = HEAD + 'buckets = {groups = {stomach = ["gastritis", "gastric ulcer"], lungs = ["flu"]}}\n' + K
    assert _parse(text, folder).buckets["disease"] == Groups((("stomach", ("gastritis", "gastric ulcer")), ("lungs", ("flu",))))


def test_numerical_domain_values_compare_like_csv_numbers(folder: Path) -> None:
    text = HEAD.replace('"numerical"', '"numerical"\ndomain = [3000, 4000.0, 0.1, 1e999999999]') + K
    order = _parse(text, folder).sensitive[0].spec.order
    # exact, as a numerical cell is read: 0.1 is one tenth (never the float above it), 1e999999999 builds no integer
    assert order == (3000, 4000, Decimal("0.1"), Decimal("1e999999999"))
    assert [type(v) for v in order] == [int, int, Decimal, Decimal]


def test_paths_are_relative_to_the_policy_file(folder: Path) -> None:
    (folder / "policy.toml").write_text(HEAD.replace("[data]", '[data]\npath = "release.csv"') + K)
    policy = load_policy(folder / "policy.toml")
    assert policy.data == folder / "release.csv"
    assert policy.source == str(folder / "policy.toml")
    assert policy.sensitive[1].hierarchy is not None and policy.sensitive[1].hierarchy.source == str(folder / "disease.csv")


def test_defaults(folder: Path) -> None:
    policy = _parse(HEAD + K, folder)
    assert policy.l == (2,) and policy.risk_threshold == Fraction(1, 5) and policy.joint == ()
    assert policy.requirements[0].attribute is None and policy.requirements[0].threshold == 3


@pytest.mark.parametrize("name", sorted(model_ids()))
def test_every_model_can_be_required(folder: Path, name: str) -> None:
    """Every registered model can be required, with the parameters its declaration marks required."""
    declared = model(name)
    extra = "".join(f"{p.name} = {repr(p.choices[0]) if p.choices else 2}\n" for p in declared.parameters if p.required)
    attribute = 'attribute = "salary"\n' if declared.scope == "attribute" else ""
    (folder / "population.csv").write_text("zip,age,count\n1,2,5\n")
    risk = '[risk]\nsampling_fraction = "1/10"\npopulation_table = "population.csv"\n' if declared.kind == "risk" else ""
    text = _require(f'model = "{name}"\n{attribute}{extra}threshold = 1').replace("[[require]]", risk + "[[require]]", 1)
    requirement = _parse(text, folder).requirements[0]
    assert requirement.model == name and requirement.threshold == 1


@given(st.decimals(min_value=0, max_value=1, places=12, allow_nan=False, allow_infinity=False))
def test_decimal_thresholds_are_exact(value: Decimal) -> None:
    text = _require(f'model = "t_closeness"\nattribute = "salary"\nthreshold = {value:f}')
    text = text.replace('hierarchy = "disease.csv"', "")
    assert parse_policy(text).requirements[0].threshold == Fraction(value)


def test_the_documented_example_parses(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOCS.read_text(), flags=re.S)
    assert blocks, "docs/policy.md shows its example in a ```toml block"
    shutil.copy(HIERARCHY, tmp_path / "disease_hierarchy.csv")
    policy = parse_policy(blocks[0], source="docs/policy.md", base=tmp_path)
    assert policy.requirements and policy.sensitive


SMALL = '[data]\nqi = ["zip"]\n[sensitive.s]\n'


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ('[mechanism]\nattribute = "s"\n', "mechanism.file: expected the key 'file', found none"),
        ('[mechanism]\nfile = "m.csv"\nattribute = "x"\n', "mechanism.attribute: expected one of the declared sensitive"),
        ('[mechanism]\nfile = "m.csv"\nattribute = "s"\nmode = "owner"\n', "mechanism.mode: expected one of publisher, auditor"),
        ('[mechanism]\nfile = "m.csv"\nattribute = "s"\nk = [0]\n', r"mechanism.k\[1\]: expected an integer ≥ 1"),
        ('[mechanism]\nfile = "m.csv"\nattribute = "s"\nseed = 1\n', "mechanism.seed: expected one of the keys"),
    ],
)
def test_mechanism_section_errors(section: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        parse_policy(SMALL + K + section, source="p.toml")


def test_mechanism_section_is_read() -> None:
    policy = parse_policy(SMALL + K + '[mechanism]\nfile = "m.csv"\nattribute = "s"\nk = [2, 5]\n', source="p.toml",
                          base=Path("/base"))
    assert policy.mechanism is not None
    assert (policy.mechanism.file, policy.mechanism.mode, policy.mechanism.ks) == (Path("/base/m.csv"), "publisher", (2, 5))
