"""The catalog of claims: every paper's claims, in the order of :data:`CLAIM_MODULES`, looked up by id.

The claim data lives in one module per paper (or part of a paper) under
:mod:`theory.papers`; this module imports them by name, so listing the claims imports
sympy and the definitions only, never a check (:mod:`theory.checks`).
"""

from __future__ import annotations

import importlib
from functools import cache

import sympy

from theory._lookup import lookup
from theory.claims.claim import Claim

__all__ = ["CLAIM_MODULES", "BOUND_MODULES", "UnknownClaimError", "all_claims", "map_claims", "claim", "claim_ids", "sizes"]


CLAIM_MODULES: tuple[str, ...] = (
    "theory.papers.ekenstedt2022.claims",
    "theory.papers.ekenstedt2022.table_claims",
    "theory.papers.domingoferrer2015.claims",
    "theory.papers.soriacomas2015.claims",
    "theory.papers.ekenstedt2022.mechanism_claims",
    "theory.papers.derived.claims",
    "theory.papers.privcert_risk.claims",
    "theory.papers.privcert_estimate.claims",
)
"""The claim modules of :mod:`theory.papers`, one per paper or part of a paper, each with its checks beside it."""

BOUND_MODULES: frozenset[str] = frozenset({
    "theory.papers.ekenstedt2022.table_claims",
    "theory.papers.soriacomas2015.claims",
    "theory.papers.ekenstedt2022.mechanism_claims",
    "theory.papers.privcert_estimate.claims",
})
"""The claim modules that state closed-form levels of constructions only (no premise and conclusion).

The implication map (:func:`map_claims`) does not import them, so a query answered from the
status cache skips building their expressions. Loading the whole catalog refuses a claim
with a premise and a conclusion in one of them: the map would not see it."""


class UnknownClaimError(KeyError):
    """A claim id that is not registered; the message lists the valid ids."""

    def __str__(self) -> str:
        return str(self.args[0])


def _collect(names: tuple[str, ...]) -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    for name in names:
        for item in importlib.import_module(name).CLAIMS:
            if item.id in found:
                raise ValueError(f"claim id {item.id!r} is registered twice (second time in {name})")
            found[item.id] = item
    return found


def _map_modules() -> tuple[str, ...]:
    return tuple(name for name in CLAIM_MODULES if name not in BOUND_MODULES)


@cache
def _by_id() -> dict[str, Claim]:
    for name in sorted(BOUND_MODULES):
        module = importlib.import_module(name)
        arrows = [item.id for item in module.CLAIMS if item.premise is not None and item.conclusion is not None]
        if arrows:
            raise ValueError(f"{name} is listed in BOUND_MODULES but relates two definitions "
                             f"({', '.join(arrows)}): the implication map would not see it")
    return _collect(CLAIM_MODULES)


@cache
def _map_by_id() -> dict[str, Claim]:
    return _collect(_map_modules())


def all_claims() -> tuple[Claim, ...]:
    """Every registered claim, in catalog order (the modules of :data:`CLAIM_MODULES`, each in its own order)."""
    return tuple(_by_id().values())


def map_claims() -> tuple[Claim, ...]:
    """The claims that relate two definitions (implications, equivalences, non-implications), in catalog order.

    Only the modules outside :data:`BOUND_MODULES` are imported.
    """
    return tuple(item for item in _map_by_id().values() if item.premise is not None and item.conclusion is not None)


def claim_ids() -> tuple[str, ...]:
    """The registered claim ids, in catalog order."""
    return tuple(_by_id())


def claim(claim_id: str) -> Claim:
    """Look a claim up by id.

    Raises
    ------
    UnknownClaimError
        When ``claim_id`` is not registered; the message lists the valid ids.
    """
    return lookup(_by_id(), claim_id, "claim", UnknownClaimError)


def sizes(claim_id: str) -> tuple[sympy.Expr | None, sympy.Expr | None]:
    """The (premise, conclusion) subset/class sizes an implication claim relates.

    The sizes its statement gives (:attr:`theory.claims.claim.Claim.sizes`), else each side's as its
    definition's declaration says: the smallest class ``k`` for a definition taken over the classes
    (its declared :attr:`~verifier.registry.MapDefinition.minimal_class_size` is its ``k``), ``None`` otherwise; ``(None, None)`` for a claim
    that relates no two definitions.
    """
    item = _map_by_id().get(claim_id) or claim(claim_id)  # an unknown id raises
    if item.sizes is not None:
        return item.sizes
    if item.premise is None or item.conclusion is None:
        return (None, None)
    from theory.definitions import definition, k

    def declared(definition_id: str) -> sympy.Expr | None:
        return k if definition(definition_id).class_sized else None

    return declared(item.premise), declared(item.conclusion)
