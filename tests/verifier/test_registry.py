"""The model registry is the one place a model is declared: everything else reads it.

A toy model registered here (the largest class's share of the records, declared in tests/_toy_model.py)
shows up in the measurement, the policy, the theory's definitions, ``explain`` and the map, the
table of models, a signed certificate and its verification, with no other code changed.
"""

from __future__ import annotations

import ast
import base64
import json
import pkgutil
import shutil
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

import verifier.models
from _toy_model import SHIFT, TOY
from privcert.cli import app
from privcert.doc_tables import REGIONS, generate, region
from theory.answers.audit_levels import AuditLevels, MeasuredLevel
from theory.answers.explain import explain
from theory.definitions import class_sized, definition, definition_ids, subset_sized
from verifier.audit import reason_text
from verifier.errors import PolicyError
from verifier.measure import measure
from verifier.policy import Policy, load_policy
from verifier.question import Question
from verifier.references import reference
from verifier.registry import MapDefinition, Model, model, model_ids, models, models_table, registered, subset_sizes

ROOT = Path(__file__).resolve().parents[2]
TABLE4 = ROOT / "examples" / "table4"
runner = CliRunner()

@pytest.fixture
def toy() -> Iterator[Model]:
    SHIFT[0] = 0
    with registered(TOY):
        yield TOY


def test_every_declaration_module_is_listed() -> None:
    found = {info.name for info in pkgutil.iter_modules(verifier.models.__path__)}
    assert found == set(verifier.models.MODULES), "list every module of verifier/models in MODULES"


def test_the_generated_docs_tables_are_the_registry() -> None:
    assert generate(write=False) == [], "regenerate the tables: python -m privcert.doc_tables"


def test_every_model_cites_a_work_with_a_full_reference() -> None:
    missing = {item.id: item.source.paper for item in models() if reference(item.source.paper) is None}
    assert not missing, f"add these works to verifier.references.REFERENCES: {missing}"


def test_a_region_is_rewritten_and_the_prose_around_it_kept(tmp_path: Path) -> None:
    for page, _ in REGIONS:
        (tmp_path / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / page).write_text("prose before\n<!-- generated: models -->\nstale\n<!-- end generated: models -->\n"
                                     "<!-- generated: policy-models -->\n<!-- end generated: policy-models -->\n"
                                     "<!-- generated: definitions -->\n<!-- end generated: definitions -->\n"
                                     "<!-- generated: references -->\n<!-- end generated: references -->\nprose after\n",
                                     encoding="utf-8")
    assert sorted(generate(tmp_path)) == sorted({page for page, _ in REGIONS})
    assert generate(tmp_path, write=False) == []
    text = (tmp_path / "docs" / "models.md").read_text(encoding="utf-8")
    assert text.startswith("prose before\n") and text.endswith("prose after\n") and "stale" not in text
    assert region(text, "models") == models_table()
    with pytest.raises(ValueError, match="found 0"):
        region("no region here", "models")


def test_a_definition_says_what_its_k_is() -> None:
    t, k = sympy.Symbol("t"), sympy.Symbol("k", positive=True, integer=True)
    with pytest.raises(ValueError, match="says what its k is"):
        MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "k"), "no fact says what k is")
    with pytest.raises(ValueError, match="says what its k is"):
        MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "k"), "classes of 2k records", minimal_class_size=2 * k)
    with pytest.raises(ValueError, match="says what its k is"):
        MapDefinition(t, sympy.Interval(1, sympy.oo), ("N",), "a subset size, relative to no k", subset_size=k)
    with pytest.raises(ValueError, match="relative_to"):
        MapDefinition(t, sympy.Interval(1, sympy.oo), ("N", "records"), "unknown name")
    assert subset_sized() == {"kt_closeness", "k_eps_dp"}
    assert class_sized() == {"multiplicative_t_closeness", "stochastic_t_closeness"}


def test_a_declared_fact_is_a_function_of_the_parameters() -> None:
    """A fact names the parameters by their symbols (``Parameter.symbol``) and is evaluated at a requirement's."""
    declared = model("kt_closeness").definition
    assert declared is not None and declared.subset_size is not None
    assert declared.fact_at(declared.subset_size, {"k": 4}) == 4
    risk = model("prosecutor_risk").definition
    assert risk is not None and risk.minimal_class_size is not None
    assert risk.fact_at(risk.minimal_class_size, {"R": Fraction(1, 3)}) == 3
    assert subset_sizes({"kt_closeness": ({"k": 3},), "k_eps_dp": ({"k": 2}, {"k": 3}), "k_anonymity": ({"k": 5},)}) \
        == (3, 2)


def test_measurements_take_their_direction_from_the_registry() -> None:
    question = Question.of(("zip", "age"), load_policy(TABLE4 / "policy.toml").attributes)
    result = measure(TABLE4 / "release.csv", question)
    assert {m.model for m in result.measurements} <= {m.id for m in models()}
    assert all(m.comparison == model(m.model).comparison for m in result.measurements)


def test_a_toy_model_is_measured_required_explained_drawn_and_listed(toy: Model, tmp_path: Path) -> None:
    result = measure(TABLE4 / "release.csv", Question.of(("zip", "age"), ()))
    found = result.find("largest_class_share")
    assert found.level.value == sympy.Rational(1, 3) and found.witness is not None and found.witness.size == 3

    policy = _policy(tmp_path, threshold="1/3")
    assert policy.requirements[-1].model == "largest_class_share"

    assert "largest_class_share" in definition_ids()
    toy_definition = definition("largest_class_share")
    assert (toy_definition.subset_size, toy_definition.class_sized) == (None, False)
    explained = explain(AuditLevels(9, (MeasuredLevel("largest_class_share", None, Fraction(1, 3)),), classes=3))
    assert "largest_class_share" in {item.model for item in explained.measured}

    assert "`largest_class_share`" in models_table()
    listed = runner.invoke(app, ["models", "--json", "-"])
    assert "largest_class_share" in {item["id"] for item in json.loads(listed.stdout)["models"]}

    drawn = runner.invoke(app, ["theory", "map", "--out", str(tmp_path / "map.svg")])
    assert drawn.exit_code == 0, drawn.output
    assert "largest class share" in (tmp_path / "map.svg").read_text(encoding="utf-8")


def test_a_toy_model_is_certified_and_verified(toy: Model, tmp_path: Path) -> None:
    _policy(tmp_path, threshold="1/3")
    key = tmp_path / "publisher.key"
    assert runner.invoke(app, ["keygen", "--out", str(key)]).exit_code == 0
    certificate = tmp_path / "cert.json"
    made = runner.invoke(app, ["audit", "--policy", str(tmp_path / "policy.toml"), "--sign", str(key),
                               "--certificate", str(certificate)])
    assert made.exit_code == 0, made.output
    payload = base64.b64decode(json.loads(certificate.read_text(encoding="utf-8"))["payload"])
    assert "largest_class_share" in {m["model"] for m in json.loads(payload)["predicate"]["measurements"]}

    checked = runner.invoke(app, ["verify", str(certificate), "--public-key", f"{key}.pub"])
    assert checked.exit_code == 0 and "INVALID" not in checked.output, checked.output
    SHIFT[0] = Fraction(1, 9)  # the toy model now measures 4/9: the certified 1/3 no longer holds
    changed = runner.invoke(app, ["verify", str(certificate), "--public-key", f"{key}.pub"])
    assert changed.exit_code != 0 and "largest_class_share" in changed.output, changed.output


def _policy(folder: Path, threshold: str) -> Policy:
    """Table 4 of Li et al. 2007 required to be 3-anonymous and to have no class above ``threshold`` of the rows."""
    shutil.copy(TABLE4 / "release.csv", folder / "release.csv")
    (folder / "policy.toml").write_text(
        '[data]\npath = "release.csv"\nqi = ["zip", "age"]\n[sensitive.disease]\n'
        '[[require]]\nmodel = "k_anonymity"\nthreshold = 3\n'
        f'[[require]]\nmodel = "largest_class_share"\nthreshold = "{threshold}"\n', encoding="utf-8")
    return load_policy(folder / "policy.toml")


_PACKAGES = ("verifier", "theory", "privcert", "reports", "mechanisms")
ID_LISTS_ALLOWED = {
    "theory/papers/": "a paper's claims and their checks name the definitions they relate",
    "theory/tables/levels.py": "the theory's own exact level of a probability table, one formula per definition",
    "theory/tables/witnesses.py": "the witness families of the non-implications, one per pair of definitions",
    "theory/tables/sizes.py": "the query parameter (k_t, k_DP) that gives each subset-sized definition its size",
    "theory/search/encoding.py": "the definitions the Z3 encoding can state",
    "theory/answers/explain.py": "the subset sizes explain asks for, and the one reading of DP on a deterministic release",
    "theory/answers/graph.py": "the definitions measured over the whole table (Ekenstedt et al. 2022, Sec. IV.C)",
}
"""Modules outside verifier/models that may spell out two or more model ids in one list, and why."""


def _id_lists(path: Path, ids: set[str]) -> Iterator[tuple[int, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exports = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}
    for node in ast.walk(tree):
        if id(node) in exports:
            continue  # the public names of a module of the models' numerical code, not a list of models
        if isinstance(node, (ast.Set, ast.List, ast.Tuple, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            found = sorted({e.value for e in elements if isinstance(e, ast.Constant) and e.value in ids})
            if len(found) >= 2:
                yield node.lineno, found


def test_no_list_of_model_ids_outside_the_declarations() -> None:
    ids = set(model_ids())
    found = []
    for package in _PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name.startswith("verifier/models/") or any(name.startswith(allowed) for allowed in ID_LISTS_ALLOWED):
                continue
            found += [f"{name}:{line}: {ids_}" for line, ids_ in _id_lists(path, ids)]
    assert not found, "read these facts from the declarations (verifier/models), or justify an exception:\n" + \
        "\n".join(found)


SINGLE_IDS_ALLOWED = {
    ("reports/plots.py", "t_closeness"): "the figure of a t-closeness witness: its class's distribution beside the table's",
    ("reports/plots.py", "kt_closeness"): "the figure of (k,t)-closeness over its subset size k",
    ("reports/declared.py", "ldp"): "a declared mechanism's ε is its measured local-DP level",
}
"""(file, model id): the places in verifier/ and reports/ outside verifier/models that may single one model out, and
why."""


def _id_tests(path: Path, ids: set[str]) -> Iterator[tuple[int, str]]:
    """The comparisons with one model id (``model == "k_anonymity"``, ``m.get("model") != "ldp"``, ``in ("dp",)``)
    and the ``case "k_anonymity":`` patterns of ``path``, with their lines."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is,
                                                                   ast.IsNot)) for op in node.ops):
            for side in (node.left, *node.comparators):
                elements = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                named = [e.value for e in elements if isinstance(e, ast.Constant) and e.value in ids]
                if len(named) == 1:
                    yield node.lineno, named[0]
        elif isinstance(node, ast.MatchValue) and isinstance(node.value, ast.Constant) and node.value.value in ids:
            yield node.lineno, node.value.value


def test_no_model_singled_out_by_its_id_outside_the_declarations() -> None:
    ids = set(model_ids())
    found = []
    for package in ("verifier", "reports"):
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if not name.startswith("verifier/models/"):
                found += [f"{name}:{line}: {id_}" for line, id_ in _id_tests(path, ids)
                          if (name, id_) not in SINGLE_IDS_ALLOWED]
    assert not found, "declare what singles these models out on their Model (verifier/models), or justify an " \
        "exception:\n" + "\n".join(found)


def test_the_id_walk_sees_one_id(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(m, name):\n    if m.id == "k_anonymity" or name in ("dp",):\n        return 1\n'
                      '    match name:\n        case "ldp":\n            return 2\n'
                      '    return m.get("model") != "t_closeness" and name == "no_such_model"\n')
    assert sorted(_id_tests(sample, set(model_ids()))) == [(2, "dp"), (2, "k_anonymity"), (5, "ldp"),
                                                          (7, "t_closeness")]


def test_the_id_walk_sees_a_list() -> None:
    path = Path(verifier.models.__file__).parent / "anonymity.py"
    assert not list(_id_lists(path, set(model_ids())))
    sample = ROOT / "theory" / "search" / "encoding.py"
    assert any("ldp" in found for _, found in _id_lists(sample, set(model_ids())))


def test_nothing_outside_verifier_imports_a_private_verifier_name() -> None:
    found = []
    for package in _PACKAGES[1:]:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "verifier":
                    names = [*node.module.split("."), *(alias.name for alias in node.names)]  # type: ignore[union-attr]
                elif isinstance(node, ast.Import):
                    names = [part for alias in node.names if alias.name.split(".")[0] == "verifier"
                             for part in alias.name.split(".")]
                else:
                    continue
                if any(name.startswith("_") for name in names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"use the public kit (verifier.measures) or a public name: {found}"


def test_a_risk_model_needing_one_of_some_inputs_is_refused_without_them(tmp_path: Path) -> None:
    with registered(replace(TOY, kind="risk", needs_one_of=frozenset({"population", "sampling_fraction"}))):
        with pytest.raises(PolicyError) as refused:
            _policy(tmp_path, threshold="1/3")
        assert str(refused.value) == (f"{tmp_path / 'policy.toml'}: require[2]: expected [risk] population or "
                                      "sampling_fraction for largest_class_share, found none of them")
        with (tmp_path / "policy.toml").open("a", encoding="utf-8") as policy:
            policy.write("[risk]\npopulation = 40\n")
        assert load_policy(tmp_path / "policy.toml").requirements[1].model == "largest_class_share"


def test_a_model_whose_level_is_its_smallest_class_fails_on_the_size_of_its_class() -> None:
    check = {"model": "largest_class_share", "exact": "2", "threshold": "3", "passed": False,
             "direction": {"stronger": "larger", "strict": False}, "witness": {"qi": {"zip": "476**"}, "size": 2}}
    with registered(replace(TOY, smallest_class=True)):
        assert reason_text(check) == "class {zip: 476**} has 2 records; the policy requires largest_class_share ≥ 3"
    with registered(TOY):
        assert reason_text(check) == ("class {zip: 476**} (2 records) attains largest_class_share = 2; "
                                      "the policy requires largest_class_share ≥ 3")
