"""The definitions registry: ids, level symbols, direction of strength (Ekenstedt et al. 2022, Def. 1)."""

from __future__ import annotations

import dataclasses

import pytest
import sympy

from theory.definitions import (
    UnknownDefinitionError,
    alpha,
    beta,
    c,
    definition,
    definition_ids,
    definitions,
    delta,
    ell,
    eps,
    k,
    risk,
    t,
)
from verifier.references import REFERENCES

PAPERS = set(REFERENCES)

EXPECTED = {
    # id: (level symbol, direction) -- Ekenstedt et al. 2022, Def. 1 and the remark after Lemma 1: smaller t
    # and smaller ε are stronger; larger k (k-anonymity) is stronger.
    "k_anonymity": (k, "larger_is_stronger"),
    "t_closeness": (t, "smaller_is_stronger"),
    "multiplicative_t_closeness": (t, "smaller_is_stronger"),
    "stochastic_t_closeness": (t, "smaller_is_stronger"),
    "kt_closeness": (t, "smaller_is_stronger"),
    "dp": (eps, "smaller_is_stronger"),
    "ldp": (eps, "smaller_is_stronger"),
    "k_eps_dp": (eps, "smaller_is_stronger"),
    # The other models the verifier measures.
    "prosecutor_risk": (risk, "smaller_is_stronger"),
    "alpha_k_anonymity": (alpha, "smaller_is_stronger"),
    "distinct_l_diversity": (ell, "larger_is_stronger"),
    "entropy_l_diversity": (ell, "larger_is_stronger"),
    "recursive_cl_diversity": (c, "smaller_is_stronger"),
    "basic_beta_likeness": (beta, "smaller_is_stronger"),
    "enhanced_beta_likeness": (beta, "smaller_is_stronger"),
    "delta_disclosure": (delta, "smaller_is_stronger"),
    "delta_disclosure_present": (delta, "smaller_is_stronger"),
}


def test_the_papers_definitions_are_on_the_map() -> None:
    assert set(EXPECTED) <= set(definition_ids())
    assert len(definition_ids()) == len(definitions()) == len(set(definition_ids()))


@pytest.mark.parametrize("definition_id", sorted(EXPECTED))
def test_level_symbol_and_direction(definition_id: str) -> None:
    item = definition(definition_id)
    assert (item.level, item.direction) == EXPECTED[definition_id]
    assert item.source.paper in PAPERS
    assert item.name and item.summary and item.source.item


@pytest.mark.parametrize(
    ("definition_id", "stronger", "weaker"),
    [("kt_closeness", 2, 3), ("ldp", sympy.Rational(1, 2), 1), ("k_anonymity", 5, 2)],
)
def test_stronger_follows_direction(definition_id: str, stronger: object, weaker: object) -> None:
    item = definition(definition_id)
    assert item.stronger(stronger, weaker) is sympy.true
    assert item.stronger(weaker, stronger) is sympy.false


@pytest.mark.parametrize(
    ("definition_id", "inside", "outside"),
    [("multiplicative_t_closeness", 1, sympy.Rational(1, 2)), ("t_closeness", 1, 2), ("dp", 0, -1), ("k_anonymity", 1, 0)],
)
def test_level_domains(definition_id: str, inside: object, outside: object) -> None:
    domain = definition(definition_id).domain
    assert sympy.sympify(inside) in domain
    assert sympy.sympify(outside) not in domain


def test_sized_definitions_name_their_parameters() -> None:
    assert "k" in definition("kt_closeness").parameters
    assert "k" in definition("k_eps_dp").parameters
    assert "k" not in definition("ldp").parameters


@pytest.mark.parametrize("bad", ["", "LDP", "k-anonymity", "t_closeness "])
def test_unknown_id_lists_valid_ids(bad: str) -> None:
    with pytest.raises(UnknownDefinitionError) as caught:
        definition(bad)
    message = str(caught.value)
    assert repr(bad) in message
    assert all(i in message for i in EXPECTED)
    assert isinstance(caught.value, KeyError)


def test_definitions_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        definition("ldp").level = t  # type: ignore[misc]
