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
    minimal_class_size,
    risk,
    t,
)
from theory.papers.derived.checks import release_levels
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


MINIMAL_CLASS_SIZES = {"k_anonymity": k, "prosecutor_risk": sympy.ceiling(1 / risk),
                       "alpha_k_anonymity": sympy.ceiling(1 / alpha), "distinct_l_diversity": ell,
                       "entropy_l_diversity": sympy.ceiling(ell), "multiplicative_t_closeness": k,
                       "stochastic_t_closeness": k}
"""The smallest class each definition's declaration guarantees, as ARX's getMinimalClassSize() states it for
its criteria (k for k-anonymity, ⌈l⌉ for l-diversity); ⌈1/α⌉ and ⌈1/R⌉: a value's share q ≤ α of a class of n
records is at least 1/n, R is 1/(smallest class)."""


def test_the_declared_smallest_classes() -> None:
    declared = {item.id: item.minimal_class_size for item in definitions() if item.minimal_class_size is not None}
    assert declared == MINIMAL_CLASS_SIZES
    with pytest.raises(ValueError, match="ldp: expected a declared minimal_class_size"):
        minimal_class_size("ldp")


_RELEASES = ([{"a": 1}], [{"a": 2, "b": 1}, {"a": 1, "c": 2}], [{"a": 1, "b": 1}, {"a": 3}], [{"a": 2}, {"b": 2}],
             [{"a": 1, "b": 1, "c": 1}, {"a": 2, "b": 2, "c": 1}], [{"a": 4, "b": 1}, {"a": 1, "b": 1, "c": 1}])


@pytest.mark.parametrize("counts", _RELEASES, ids=str)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_release_holds_the_smallest_class_its_levels_guarantee(counts: list[dict[str, int]]) -> None:
    """Each declared smallest class at the release's measured level is at most its smallest class, and that of
    k-anonymity is that class."""
    found = release_levels(counts)
    smallest = min(sum(row.values()) for row in counts)
    symbols = {"k_anonymity": k, "prosecutor_risk": risk, "alpha_k_anonymity": alpha, "distinct_l_diversity": ell,
               "entropy_l_diversity": ell}
    for definition_id, symbol in symbols.items():
        guaranteed = minimal_class_size(definition_id).subs(symbol, found[definition_id])
        assert guaranteed <= smallest, (definition_id, guaranteed, smallest)
    assert minimal_class_size("k_anonymity").subs(k, found["k_anonymity"]) == smallest


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
