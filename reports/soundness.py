"""Implied levels checked for soundness: in the catalog ``verify`` runs with, or in the one the certificate names.

A certificate states levels the theory implies from measured ones: the guarantees of ``predicate.implied``
(:func:`reports.certify.implied_section`) and, in auditor mode, the implied randomized levels of
``predicate.randomized`` (:func:`theory.answers.auditor_mode.audit_release`). A later privcert may derive them
otherwise (a claim added, a bound tightened), so they are never compared with today's derivation. A stated level
is *sound* in a catalog when each step's claim is a usable claim of it from the stated definition to the next
(with the stated bounds, where the certificate gives them) and the re-measured premises, through those claims
alone, give the stated level or a stronger one (Ekenstedt et al. 2022, Def. 3: levels compose along a path).

The catalog is first this privcert's (:func:`reports.claim_catalog.catalog`). A step's claim vouches there when
it is usable from the stated definition to the next with the stated bounds or, when the catalog the certificate
names had those bounds, with the bounds it has now (restated since: the level must still follow). A level that
is not sound in this privcert's catalog is checked in the catalog the certificate names, when privcert ships its
snapshot (:func:`reports.claim_catalog.named_catalog`): sound there, it held when certified and rests on claims
this privcert has since revised (refuted, removed, or restated so that the level no longer follows), which
``verify`` says without invalidating the certificate (docs/certificates.md, "Compatibility").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from reports.claim_catalog import catalog, shipped_statuses, step_bounds

if TYPE_CHECKING:
    from theory.answers.graph import Edge, Graph

__all__ = ["Step", "Stated", "Soundness", "Derive", "soundness"]


@dataclass(frozen=True)
class Step:
    """One certified step: the claim, from which definition to which, the bounds stated (``None``: not
    stated, schema 2 and the randomized levels) and the claim's status as signed (``None``: not stated)."""

    claim: str
    premise: str
    conclusion: str
    bounds: tuple[str, ...] | None = None
    status: str | None = None


@dataclass(frozen=True)
class Stated:
    """One implied level as the certificate states it.

    ``label`` names it in a message (``item 3 (dp)``); ``key`` is what :data:`Derive` gives levels for;
    ``definition`` the definition the level is of (it orders levels: :meth:`theory.definitions.Definition.stronger`).
    """

    label: str
    definition: str
    key: Hashable
    level: sympy.Expr
    steps: tuple[Step, ...]
    premise: str | None = None
    """The definition of the measured level it is implied from: its steps must be a path from it to
    :attr:`definition` (``None``: not checked)."""

    def path_failure(self) -> str | None:
        """Why the steps are not a path from the premise to the definition (``None``: they are)."""
        ends = [self.premise, *(end for step in self.steps for end in (step.premise, step.conclusion)),
                self.definition]
        if self.premise is None or not self.steps or all(a == b for a, b in zip(ends[::2], ends[1::2], strict=True)):
            return None
        chain = " → ".join(f"{step.premise}–{step.conclusion}" for step in self.steps)
        return f"{self.label}: its derivation ({chain}) is not a path from {self.premise} to {self.definition}"


@dataclass(frozen=True)
class Soundness:
    """Whether every stated level is sound: ``failure`` says why one is not (``None``: all are); ``revised``, the
    claims of the catalog the certificate names that a level sound only there rests on, each with what this
    privcert's catalog says of it now."""

    failure: str | None
    revised: tuple[str, ...] = ()


Derive = Callable[["Graph"], Mapping[Hashable, Sequence[sympy.Expr]]]
"""The levels the re-measured premises give through a graph's claims alone, by :attr:`Stated.key`."""


def soundness(stated: Sequence[Stated], derive: Derive, named: Graph | None) -> Soundness:
    """Check every stated level in this privcert's catalog, then those that fail in the ``named`` one.

    Parameters
    ----------
    stated
        The certified levels.
    derive
        Re-derives the levels from the re-measured premises in a graph.
    named
        The catalog the certificate names (its snapshot), or ``None``.
    """
    broken = next((why for item in stated if (why := item.path_failure()) is not None), None)
    if broken is not None:
        return Soundness(broken)
    today = catalog()
    failing = _unsound(stated, today, derive, "this privcert's catalog", named, unnamed=named is None)
    if not failing:
        return Soundness(None)
    first = next(iter(failing.values()))
    if named is None:
        return Soundness(first)
    again = [item for item in stated if item.label in failing]
    if _unsound(again, named, derive, "the catalog the certificate names"):
        return Soundness(f"{first}; nor in the catalog the certificate names")
    revised = {}
    for step in (step for item in again for step in item.steps):
        now = step_bounds(today, step.claim, step.premise, step.conclusion)
        if now != step_bounds(named, step.claim, step.premise, step.conclusion):
            revised[step.claim] = (f"{step.claim} (now the bound(s) {now})" if now else
                                   f"{step.claim} (no longer a proven claim from {step.premise} to {step.conclusion})")
    return Soundness(None, tuple(sorted(revised.values())))


def _edges(step: Step, graph: Graph, named: Graph | None, unnamed: bool = False) -> list[Edge]:
    """The usable edges of a step's claim in ``graph`` that vouch for it (none: the claim does not).

    With stated bounds, the edges must have them, unless ``named`` (the catalog the certificate names) has them:
    the claim has been restated since, and its edges in ``graph`` are used as they are now."""
    edges = [edge for edge in graph.usable() if edge.claim_id == step.claim and edge.premise == step.premise
             and edge.conclusion == step.conclusion and _status_holds(step, edge, unnamed)]
    if step.bounds is None or not edges:
        return edges
    matching = [edge for edge in edges if str(edge.f) in step.bounds]
    if matching or named is None:
        return matching
    then = step_bounds(named, step.claim, step.premise, step.conclusion)
    return edges if set(step.bounds) <= set(then) else []


def _formerly(step: Step, unnamed: bool) -> bool:
    """A certificate that names no catalog (``unnamed``: schema 2) may state the status its claim had in a catalog
    privcert has shipped: it was issued under one of them (:func:`reports.claim_catalog.shipped_statuses`)."""
    return unnamed and step.status is not None and step.status in shipped_statuses(step.claim)


def _status_holds(step: Step, edge: Edge, unnamed: bool) -> bool:
    """The step states the edge's status, no status, or (naming no catalog) one its claim had when issued."""
    return step.status in (None, edge.status) or _formerly(step, unnamed)


def _unsound(stated: Sequence[Stated], graph: Graph, derive: Derive, whose: str,
             named: Graph | None = None, *, unnamed: bool = False) -> dict[str, str]:
    """Why each stated level that is not sound in ``graph`` is not, by label (``named``, ``unnamed``:
    :func:`_edges`)."""
    from theory.answers.graph import Graph
    from theory.definitions import definition
    from verifier.display import exact_text

    reasons: dict[str, str] = {}
    used: dict[tuple[object, ...], Edge] = {}
    for item in stated:
        for step in item.steps:
            found = _edges(step, graph, named, unnamed)
            if not found:
                current = step_bounds(graph, step.claim, step.premise, step.conclusion)
                statuses = sorted({edge.status for edge in graph.usable() if edge.claim_id == step.claim
                                   and edge.premise == step.premise and edge.conclusion == step.conclusion})
                if current and step.status not in statuses and not _formerly(step, unnamed):
                    reasons.setdefault(item.label, f"{item.label}: the claim {step.claim} is {' or '.join(statuses)} "
                                                   f"in {whose}, the certificate states it {step.status!r}")
                reasons.setdefault(item.label, (
                    f"{item.label}: the claim {step.claim} has the bound(s) {current} in {whose}, the certificate "
                    f"states {list(step.bounds or ())}" if current else
                    f"{item.label}: the claim {step.claim} from {step.premise} to {step.conclusion} is not a proven "
                    f"claim of {whose}"))
            used.update({(edge.claim_id, edge.premise, edge.conclusion, str(edge.f), edge.reverse): edge
                         for edge in found})
    if len(reasons) == len(stated):
        return reasons
    reached = derive(Graph(tuple(used.values())))
    for item in stated:
        if item.label in reasons:
            continue
        levels = reached.get(item.key, ())
        if not any(level == item.level or definition(item.definition).stronger(level, item.level) == sympy.true
                   for level in levels):
            reasons[item.label] = (f"{item.label}: the certified claims give {[exact_text(v) for v in levels] or 'nothing'} "
                                   f"from the re-measured levels, the certificate states {exact_text(item.level)}")
    return reasons
