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

__all__ = ["CLAIM_MODULES", "UnknownClaimError", "all_claims", "claim", "claim_ids", "sizes"]


CLAIM_MODULES: tuple[str, ...] = (
    "theory.papers.ekenstedt2022.claims",
    "theory.papers.ekenstedt2022.table_claims",
    "theory.papers.domingoferrer2015.claims",
    "theory.papers.soriacomas2015.claims",
    "theory.papers.ekenstedt2022.mechanism_claims",
    "theory.papers.derived.claims",
    "theory.papers.privcert_risk.claims",
)
"""The claim modules of :mod:`theory.papers`, one per paper or part of a paper, each with its checks beside it."""


class UnknownClaimError(KeyError):
    """A claim id that is not registered; the message lists the valid ids."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def _by_id() -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    for name in CLAIM_MODULES:
        for item in importlib.import_module(name).CLAIMS:
            if item.id in found:
                raise ValueError(f"claim id {item.id!r} is registered twice (second time in {name})")
            found[item.id] = item
    return found


@cache
def _sizes() -> dict[str, tuple[sympy.Expr | None, sympy.Expr | None]]:
    merged: dict[str, tuple[sympy.Expr | None, sympy.Expr | None]] = {}
    for name in CLAIM_MODULES:
        merged.update(getattr(importlib.import_module(name), "SIZES", {}))
    return merged


def all_claims() -> tuple[Claim, ...]:
    """Every registered claim, in catalog order (the modules of :data:`CLAIM_MODULES`, each in its own order)."""
    return tuple(_by_id().values())


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

    ``None`` for a side whose definition has no size; ``(None, None)`` for claims that
    relate no sized definitions.
    """
    claim(claim_id)
    return _sizes().get(claim_id, (None, None))
