"""The model registry is the one place a model is declared: everything else reads it.

A toy model registered in this module (the largest class's share of the records) shows up
in the measurement, the policy, the theory's definitions, ``explain`` and the map, the
table of models, a signed certificate and its verification, with no other code changed.
"""

from __future__ import annotations

import base64
import json
import pkgutil
import shutil
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

import verifier.models
from privcert.cli import app
from theory.answers.explain import explain
from theory.definitions import definition, definition_ids
from verifier.literal import Domain
from verifier.measure import measure
from verifier.policy import Policy, load_policy
from verifier.references import Source
from verifier.registry import Definition, Model, Subject, model, models, models_table, registered
from verifier.results import Level, Measurement, Witness

ROOT = Path(__file__).resolve().parents[1]
TABLE4 = ROOT / "examples" / "table4"
runner = CliRunner()

_SHIFT = [0]
"""Added to the toy level: a test changes it to see ``verify`` measure the toy model again."""


def _largest_share(subject: Subject) -> Iterator[Measurement]:
    sizes = subject.classes.sizes
    largest = int(sizes.argmax())
    share = Fraction(int(sizes[largest]), subject.classes.rows) + _SHIFT[0]
    yield Measurement("largest_class_share", None, Level.of(share),
                      Witness(qi=subject.classes.describe(largest), size=int(sizes[largest])), "at_most")


TOY = Model(
    id="largest_class_share",
    name="largest class share",
    kind="privacy",
    scope="release",
    source=Source("privcert (derived here)", "tests", "a toy model"),
    comparison="at_most",
    threshold=Domain(lower=Fraction(0), upper=Fraction(1)),
    units="share of records",
    measure=_largest_share,
    definition=Definition(sympy.Symbol("m", positive=True), sympy.Interval.Lopen(0, 1), ("N",),
                          "no class holds more than a share m of the records", (20.0, 0.0)),
)


@pytest.fixture
def toy() -> Iterator[Model]:
    _SHIFT[0] = 0
    with registered(TOY):
        yield TOY


def test_every_declaration_module_is_listed() -> None:
    found = {info.name for info in pkgutil.iter_modules(verifier.models.__path__)}
    assert found == set(verifier.models.MODULES), "list every module of verifier/models in MODULES"


def test_the_docs_table_is_the_registry() -> None:
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    block = text.split("<!-- models:begin -->\n")[1].split("<!-- models:end -->")[0]
    assert block == models_table(), "regenerate docs/models.md from verifier.registry.models_table()"


def test_measurements_take_their_direction_from_the_registry() -> None:
    result = measure(TABLE4 / "release.csv", ("zip", "age"), load_policy(TABLE4 / "policy.toml").attributes)
    assert {m.model for m in result.measurements} <= {m.id for m in models()}
    assert all(m.comparison == model(m.model).comparison for m in result.measurements)


def test_a_toy_model_is_measured_required_explained_drawn_and_listed(toy: Model, tmp_path: Path) -> None:
    result = measure(TABLE4 / "release.csv", ("zip", "age"), ())
    found = result.find("largest_class_share")
    assert found.level.value == sympy.Rational(1, 3) and found.witness is not None and found.witness.size == 3

    policy = _policy(tmp_path, threshold="1/3")
    assert policy.requirements[-1].model == "largest_class_share"

    assert "largest_class_share" in definition_ids() and definition("largest_class_share").position == (20.0, 0.0)
    explained = explain({"rows": 9, "classes": 3, "measurements": [
        {"model": "largest_class_share", "attribute": None, "exact": "1/3", "status": "finite"}]})
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
    _SHIFT[0] = Fraction(1, 9)  # the toy model now measures 4/9: the certified 1/3 no longer holds
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
