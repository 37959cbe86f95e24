"""The privacy definitions the theory reasons about, read from the model registry.

Each :class:`Definition` holds what the implication framework of Ekenstedt et al. 2022
needs: the level symbol, the direction of strength (Ekenstedt et al. 2022, Definition 1:
a level is *stronger* when it is smaller for t and ε, larger for k), the level's domain,
the parameters the definition is relative to (N records, a class or subset size k, the
buckets), the facts its declaration states as functions of its level and parameters (the
smallest class it guarantees, the size of the subsets it compares), and its source. Every model of :mod:`verifier.registry` with a
:class:`~verifier.registry.Definition` is a definition here, under the same id, so an
audit's measured levels can be carried along the map; the level symbols are those of
:mod:`verifier.symbols`, re-exported here for the claims.

References
----------
Ekenstedt et al. 2022, Sec. III (Defs. 1-3), Sec. IV (Defs. 4-8).
Domingo-Ferrer & Soria-Comas 2015, Sec. 3-4 (Defs. 3-4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

import sympy

from theory._lookup import lookup
from verifier.references import Source
from verifier.registry import Model, models, version
from verifier.symbols import N, alpha, beta, c, delta, ell, eps, eps1, k, k0, k1, k_dp, k_t, risk, t, t1

__all__ = [
    "Direction",
    "Definition",
    "definitions",
    "definition",
    "definition_ids",
    "subset_sized",
    "class_sized",
    "class_size_levels",
    "minimal_class_size",
    "UnknownDefinitionError",
    "N",
    "k",
    "t",
    "eps",
    "k_t",
    "k_dp",
    "k0",
    "k1",
    "t1",
    "eps1",
    "alpha",
    "risk",
    "ell",
    "c",
    "beta",
    "delta",
]

Direction = Literal["smaller_is_stronger", "larger_is_stronger"]


class UnknownDefinitionError(KeyError):
    """A definition id that is not registered; the message lists the valid ids."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Definition:
    """A privacy definition with a level (Ekenstedt et al. 2022, Def. 1).

    Parameters
    ----------
    id
        Registry id, shared with the verifier's JSON model ids.
    name
        Human-readable name.
    level
        The level symbol (``k``, ``t``, ``epsilon``).
    direction
        ``"smaller_is_stronger"`` (t, ε) or ``"larger_is_stronger"`` (k), Ekenstedt et al. 2022, Def. 1.
    domain
        The set of admissible levels (a sympy Interval or Range).
    parameters
        The symbols the definition is relative to besides its level (N, k, buckets).
    source
        Where the definition is stated.
    summary
        One line: what a release at level ``level`` guarantees.
    minimal_class_size
        The smallest class a release at level ``level`` guarantees, as a function of the level and the
        parameters (:attr:`verifier.registry.MapDefinition.minimal_class_size`), or ``None``.
    subset_size
        The size of the subsets of records it compares, as a function of its parameters
        (:attr:`verifier.registry.MapDefinition.subset_size`), or ``None``.
    class_sized
        Whether the ``k`` it is relative to is the release's smallest class
        (:attr:`verifier.registry.MapDefinition.is_class_sized`).
    """

    id: str
    name: str
    level: sympy.Symbol
    direction: Direction
    domain: sympy.Set
    parameters: tuple[str, ...]
    source: Source
    summary: str
    minimal_class_size: sympy.Expr | None
    subset_size: sympy.Expr | None
    class_sized: bool

    @classmethod
    def of(cls, declared: Model) -> Definition:
        """The definition of a registered model (which must have one)."""
        assert declared.definition is not None
        found = declared.definition
        direction: Direction = "larger_is_stronger" if declared.stronger == "larger" else "smaller_is_stronger"
        return cls(declared.id, declared.name, found.symbol, direction, found.domain, found.relative_to,
                   declared.source, found.summary, found.minimal_class_size, found.subset_size, found.is_class_sized)

    def stronger(self, a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
        """The relation "level ``a`` is at least as strong as level ``b``" (Ekenstedt et al. 2022, Def. 1)."""
        if self.direction == "smaller_is_stronger":
            return sympy.Le(a, b)
        return sympy.Ge(a, b)


def definitions() -> tuple[Definition, ...]:
    """Every definition on the map: the registered models that have one, in registry order."""
    return tuple(_by_id(version()).values())


def definition_ids() -> tuple[str, ...]:
    """The registered definition ids, in registry order."""
    return tuple(_by_id(version()))


@cache
def _by_id(state: int) -> dict[str, Definition]:
    """The definitions of the registered models by id (computed once per ``state`` of the registry)."""
    return {item.id: Definition.of(item) for item in models() if item.definition is not None}


def subset_sized() -> frozenset[str]:
    """The ids of the definitions that compare subsets of records of a size k in [1, N-1] (Ekenstedt et al. 2022,
    Defs. 7-8): those whose declaration states a subset size."""
    return frozenset(item.id for item in definitions() if item.subset_size is not None)


def class_sized() -> frozenset[str]:
    """The ids of the definitions taken over the classes whose ``k`` is the release's smallest class (Ekenstedt
    et al. 2022, Def. 4; Domingo-Ferrer & Soria-Comas 2015, Def. 3): those whose declaration says they
    guarantee classes of their ``k`` records."""
    return frozenset(item.id for item in definitions() if item.class_sized)


def class_size_levels() -> frozenset[str]:
    """The ids of the definitions whose level is the release's smallest class itself: their level symbol is the
    ``k`` the class-sized definitions (:func:`class_sized`) are relative to (k-anonymity; not multiplicative
    t-closeness, whose level is t and k its parameter, nor distinct l-diversity, whose l only bounds the smallest
    class)."""
    return frozenset(item.id for item in definitions() if item.level == k)


def minimal_class_size(definition_id: str) -> sympy.Expr:
    """The smallest class a release meeting ``definition_id`` at its level guarantees, as its declaration states
    it: a function of the level and the parameters (ARX's ``PrivacyCriterion.getMinimalClassSize()``: ``k`` for
    k-anonymity, ``l`` for distinct l-diversity). A claim relating a definition to k-anonymity states this fact.

    Raises
    ------
    UnknownDefinitionError
        When ``definition_id`` is not registered.
    ValueError
        When its declaration states no smallest class.
    """
    found = definition(definition_id).minimal_class_size
    if found is None:
        raise ValueError(f"{definition_id}: expected a declared minimal_class_size (MapDefinition), found none")
    return found


def definition(definition_id: str) -> Definition:
    """Look a definition up by id.

    Raises
    ------
    UnknownDefinitionError
        When ``definition_id`` is not registered; the message lists the valid ids.
    """
    return lookup(_by_id(version()), definition_id, "definition", UnknownDefinitionError)
