"""The implication map (Ekenstedt et al. 2022, Figs. 1-2) as data: its definitions where they are drawn, its
numbered arrows in words with their sources, and the bound claims listed under it; the drawing is made from it.

:mod:`privcert.api` re-exports :func:`implication_map` and its result types. ``privcert theory map`` and the
workbench's Explore page render them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from privcert import api_claims as shared
from privcert.api_claims import ClaimSource, serialized

if TYPE_CHECKING:
    import sympy

    from theory.answers.graph import Edge

__all__ = ["MapNode", "MapEdge", "ImplicationMap", "implication_map", "map_edge"]


@dataclass(frozen=True)
class MapNode:
    """A definition on the map: where it is drawn (map units) and whether any claim relates it."""

    id: str
    name: str
    x: float
    y: float
    isolated: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "x": self.x, "y": self.y, "isolated": self.isolated}


@dataclass(frozen=True)
class MapEdge:
    """An arrow of the map: a claim relating two definitions, numbered as the drawing's list numbers it."""

    number: int
    claim: ClaimSource
    premise: str
    conclusion: str
    f: sympy.Expr | None
    conditions: tuple[sympy.Basic, ...]
    status: str
    reverse: bool
    label: str

    @property
    def kind(self) -> Literal["implication", "non_implication"]:
        return "non_implication" if self.f is None else "implication"

    @property
    def when(self) -> str:
        """The claim's conditions in words (``N ≥ 3``, ``singleton classes``), ``always`` when it has none."""
        return shared.when_text(self.conditions)

    @property
    def bound(self) -> str:
        """``ε ≤ ln(t)``, or ``does not imply``."""
        return "does not imply" if self.f is None else shared.bound_text(self.conclusion, self.f)

    @property
    def sentence(self) -> str:
        """The arrow in words: ``k-anonymity at k implies k-map at K ≥ k``, with its conditions and status."""
        claim = (f"{shared.name_of(self.premise)} does not imply {shared.name_of(self.conclusion)}" if self.f is None else
                 f"{shared.at_level(self.premise)} implies {shared.name_of(self.conclusion)} at {self.bound}")
        when = "" if self.when == "always" else f" (when {self.when})"
        status = {"corrected": " (as corrected here)", "refuted": " (printed, refuted here)",
                  "unknown": " (not decided by the checks)", "tested": " (tested on a sample, not proven)"
                  }.get(self.status, "")
        reverse = " (the equivalence read backwards)" if self.reverse else ""
        return f"{claim}{when}{status}{reverse}"

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, **self.claim.to_json(), "premise": self.premise, "conclusion": self.conclusion,
                "kind": self.kind, "f": shared.sstr(self.f), "bound": self.bound, "when": self.when,
                "status": self.status, "reverse": self.reverse, "label": self.label, "sentence": self.sentence}


@dataclass(frozen=True)
class ImplicationMap:
    """The implication map (Ekenstedt et al. 2022, Figs. 1-2) as data: its definitions where they are drawn, its
    numbered arrows, and the closed-form bound claims listed under it (by the definition they bound).
    :meth:`draw` draws it from this data and the graph (:func:`theory.answers.map.render_map`)."""

    nodes: tuple[MapNode, ...]
    edges: tuple[MapEdge, ...]
    bounds: tuple[tuple[str, tuple[str, ...]], ...]

    def around(self, definition_id: str) -> tuple[tuple[MapEdge, ...], tuple[MapEdge, ...]]:
        """The arrows leaving ``definition_id`` and those reaching it from another definition.

        Raises
        ------
        QueryError
            An unknown definition id.
        """
        shared.checked_definition(definition_id)
        outgoing = tuple(edge for edge in self.edges if edge.premise == definition_id)
        incoming = tuple(edge for edge in self.edges
                         if edge.conclusion == definition_id and edge.premise != definition_id)
        return outgoing, incoming

    def draw(self, out: str | Path, *, key: bool = True) -> Path:
        """Draw the map to ``out`` (SVG; ``.png`` and ``.pdf`` by their suffix) and return the path; without
        ``key``, the numbered list and the legend under the map are left out (a page lists them as text)."""
        from theory.answers.map import render_map

        with shared.LOCK:
            return render_map(shared.shared_graph(), out, dict(self.bounds), key=key)

    def to_json(self) -> dict[str, Any]:
        return {"nodes": [node.to_json() for node in self.nodes], "edges": [edge.to_json() for edge in self.edges],
                "bounds": {definition_id: list(lines) for definition_id, lines in self.bounds}}


def map_edge(number: int, edge: Edge) -> MapEdge:
    from theory.answers.map import edge_label

    return MapEdge(number, ClaimSource(edge.claim_id, edge.source), edge.premise, edge.conclusion, edge.f,
                   edge.conditions, edge.status, edge.reverse, edge_label(edge))


@functools.cache
def _map() -> ImplicationMap:
    from theory.answers.map import positions
    from theory.claims.catalog import all_claims
    from theory.definitions import definitions
    from theory.status_cache import cached_statuses

    graph, outcomes = shared.shared_graph(), cached_statuses()
    where = positions(graph)
    connected = {e.premise for e in graph.edges} | {e.conclusion for e in graph.edges}
    nodes = tuple(MapNode(item.id, item.name, where[item.id][0], where[item.id][1], item.id not in connected)
                  for item in definitions())
    edges = tuple(map_edge(number, edge) for number, edge in enumerate(graph.edges, start=1))
    bounds: dict[str, tuple[str, ...]] = {}
    for item in all_claims():
        if item.kind == "bound" and item.conclusion is not None:
            bounds[item.conclusion] = (*bounds.get(item.conclusion, ()), f"{item.id}: {outcomes[item.id].status}")
    return ImplicationMap(nodes, edges, tuple(bounds.items()))


@serialized
def implication_map() -> ImplicationMap:
    """The implication map as data (built once per process)."""
    return _map()
