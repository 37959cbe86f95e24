"""Typed model inputs, requirements checked on construction, and ``measure --param`` from the declared parameters."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from privcert import api
from privcert.cli import app
from verifier.errors import PolicyError
from verifier.inputs import Inputs, inputs_of
from verifier.policy import Requirement
from verifier.registry import MeasureOptions, RequirementError, model, requested_parameters

ROOT = Path(__file__).resolve().parents[2]
TABLE4 = ROOT / "examples" / "table4"
runner = CliRunner()


def test_an_unknown_input_is_refused_with_the_valid_names() -> None:
    with pytest.raises(PolicyError, match=r"'sampling_fractoin'.*sampling_fraction, population"):
        api.audit(None, TABLE4 / "policy.toml", inputs={"sampling_fractoin": Fraction(1, 10)})
    with pytest.raises(PolicyError, match="sampling_fractoin"):
        api.measure(TABLE4 / "release.csv", ["zip", "age"], (), kinds=["risk"], inputs={"sampling_fractoin": 1})
    with pytest.raises(PolicyError, match="not an input of an audit"):
        api.audit(None, TABLE4 / "policy.toml", inputs={"suda_max_size": 2})


@pytest.mark.parametrize(("given", "message"), [
    ({"sampling_fraction": 0}, "sampling_fraction"),
    ({"sampling_fraction": Fraction(3, 2)}, "sampling_fraction"),
    ({"sampling_fraction": 0.1}, "exact number"),
    ({"population": 0}, "population"),
    ({"population": True}, "population"),
    ({"sampling_fraction": Fraction(1, 2), "population": 10}, "both"),
    ({"population_table": "people.csv"}, "PopulationTable"),
    ({"mechanism": [[1, 0], [0, 1]]}, "Mechanism"),
    ({"subset_sizes": (2, 0)}, "subset_sizes"),
    ({"weights": 3}, "column"),
])
def test_inputs_are_validated_on_construction(given: dict[str, object], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        inputs_of(given)


def test_inputs_read_as_the_mapping_of_those_given() -> None:
    given = Inputs(sampling_fraction=1, subset_sizes=[2, 3])  # type: ignore[arg-type]
    assert given.sampling_fraction == Fraction(1) and given.subset_sizes == (2, 3)
    assert dict(given) == {"sampling_fraction": Fraction(1), "subset_sizes": (2, 3)} and "mechanism" not in given
    options = MeasureOptions(inputs={"population": 100})  # type: ignore[arg-type]
    assert isinstance(options.inputs, Inputs) and options.inputs.population == 100
    assert not model("k_map").measured(options) and model("k_anonymity").measured(options)
    assert given.with_(population=5, sampling_fraction=None).describe() == {"population": "5", "subset_sizes": "2, 3"}


def test_the_audit_takes_the_inputs_over_the_policy() -> None:
    result = api.audit(None, TABLE4 / "policy.toml", inputs={"population": 90})
    assert result.policy.risk.population == 90 and result.policy.risk.sampling_fraction is None


@pytest.mark.parametrize(("arguments", "message"), [
    (("no_such_model", -5), "unknown model id 'no_such_model'"),
    (("k_anonymity", -5), "an integer ≥ 1"),
    (("k_anonymity", 2.5), "exact number"),
    (("recursive_cl_diversity", 2), "requires l"),
    (("recursive_cl_diversity", 2, "disease", {"l": 0}), "integer ≥ 1"),
    (("t_closeness", Fraction(1, 5), "disease", {"distance": "manhattan"}), "one of equal"),
    (("k_anonymity", 2, None, {"k": 3}), "takes no parameter 'k'"),
])
def test_a_requirement_is_checked_on_construction(arguments: tuple[object, ...], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        Requirement(*arguments)  # type: ignore[arg-type]


def test_a_valid_requirement_is_built() -> None:
    assert Requirement("recursive_cl_diversity", 3, "disease", {"l": 2}).l == 2
    assert Requirement("t_closeness", Fraction(1, 5), "disease", {"distance": "equal"}).distance == "equal"


def test_parameters_are_read_from_their_declarations() -> None:
    assert requested_parameters(["recursive_cl_diversity.l=3", "population_uniqueness.sampling_fraction=0.1",
                                 "recursive_cl_diversity.l=4"]) == {
        "recursive_cl_diversity": ({"l": 3}, {"l": 4}),
        "population_uniqueness": ({"sampling_fraction": Fraction(1, 10)},)}
    for text, message in (("l=3", "MODEL.NAME=VALUE"), ("nope.l=3", "unknown model id"),
                          ("k_anonymity.k=3", r"parameter of k_anonymity \(none\)"),
                          ("recursive_cl_diversity.l=1/2", "an integer"), ("suda.max_size=ln(2)", "an integer ≥ 1"),
                          ("population_uniqueness.sampling_fraction=e^(-1)", "rational")):
        with pytest.raises(RequirementError, match=message):
            requested_parameters([text])


def test_measure_param_measures_a_model_at_a_declared_parameter() -> None:
    ran = runner.invoke(app, ["measure", str(TABLE4 / "release.csv"), "--qi", "zip,age", "--sensitive", "disease",
                              "--param", "recursive_cl_diversity.l=3", "--json", "-"])
    assert ran.exit_code == 0, ran.output
    found = [m["parameters"]["l"] for m in json.loads(ran.stdout)["measurements"]
             if m["model"] == "recursive_cl_diversity"]
    assert found == [2, 3]
    refused = runner.invoke(app, ["measure", str(TABLE4 / "release.csv"), "--qi", "zip,age", "--sensitive",
                                  "disease", "--param", "recursive_cl_diversity.l=0"])
    assert refused.exit_code == 2 and "recursive_cl_diversity.l: expected an integer ≥ 1, found '0'" in refused.output


def test_the_run_records_the_inputs_it_measured_against() -> None:
    ran = runner.invoke(app, ["measure", str(TABLE4 / "release.csv"), "--qi", "zip,age", "--risk",
                              "--sampling-fraction", "0.1", "--json", "-"])
    assert ran.exit_code == 0, ran.output
    document = json.loads(ran.stdout)
    assert document["run"]["inputs"] == {"sampling_fraction": "1/10"}
    assert {m["parameters"].get("sampling_fraction") for m in document["measurements"]
            if m["model"] == "population_uniqueness"} == {"1/10"}
