"""Every input a level depends on is classified once (verifier.declarations), and the views derive from it."""

from __future__ import annotations

import tomllib

import pytest

from verifier.declarations import INPUTS, classify, present
from verifier.policy import schema_keys
from verifier.registry import Parameter, models


def test_every_key_of_the_policy_schema_is_classified() -> None:
    """A key the reader accepts and the classification lacks would be shown as declared by default; this test
    makes whoever adds one say which it is."""
    explicit = {item.key for item in INPUTS}
    unclassified = [key for key in schema_keys() if classify(key).key not in explicit]
    assert unclassified == []
    assert len(schema_keys()) == len(set(schema_keys()))


def test_every_model_parameter_is_a_key_of_the_schema() -> None:
    names = {f"require.{p.name}" for m in models() for p in m.parameters}
    assert names <= set(schema_keys())


def test_an_unclassified_key_is_declared() -> None:
    from verifier.registry import registered

    toy = next(m for m in models() if m.id == "k_anonymity")
    from dataclasses import replace

    added = replace(toy, id="toy_with_parameter", parameters=(Parameter("smoothing", "a toy", choices=("a",)),))
    with registered(added):
        assert "require.smoothing" in schema_keys()
        assert classify("require.smoothing").source == "declared"
    assert classify("sensitive.*.some_new_key").source == "declared"
    assert classify("sensitive.*.buckets.edges").key == "sensitive.*.buckets"


@pytest.mark.parametrize(("text", "declared"), [
    ('[data]\nqi = ["zip"]\n[sensitive.s]\nkind = "numerical"\ndomain = [1, 2]\n', [("sensitive", "s", "domain")]),
    ('[sensitive.s]\nbuckets = {edges = [1, 2]}\n', [("sensitive", "s", "buckets")]),
    ('[[require]]\nmodel = "population_uniqueness"\nsampling_fraction = "1/100"\n',
     [("require", "1", "sampling_fraction")]),
    ('[risk]\nweights = "w"\npopulation = 10\n', [("risk", "weights"), ("risk", "population")]),
    ('[mechanism]\nfile = "m.csv"\nmode = "auditor"\n', [("mechanism", "file")]),
])
def test_the_declared_keys_of_a_policy(text: str, declared: list[tuple[str, ...]]) -> None:
    assert [path for path, found in present(tomllib.loads(text)) if found.source == "declared"] == declared
