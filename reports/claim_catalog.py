"""The claim catalog a certificate names: its digest, and the snapshots privcert ships of released catalogs.

A certificate's guarantees are derived with the implication map (:func:`catalog`: the claims with their checked
statuses). The predicate names it (:func:`catalog_section`) by the SHA-256 of its edges, each written as
:func:`edge_key` writes it (claim, premise, conclusion, bound, status, conditions, sizes, direction), in RFC 8785
JSON, sorted, and by the privcert version.

``verify`` checks a guarantee for soundness in the catalog it runs with and, when that no longer vouches for it,
in the catalog the certificate names, if privcert ships a snapshot of it (:func:`named_catalog`). A snapshot is
``reports/catalogs/<sha256>.json``: every edge as the digest covers it (so the file is checked against its name),
with the exact sympy forms of its bound, conditions and sizes (``sympy.srepr``) and its source, from which the
edges are rebuilt. ``python -m reports.claim_catalog`` writes the snapshot of the current catalog; a test fails
while the current catalog has none, so that every catalog a privcert certifies with ships with it
(docs/certificates.md, "Compatibility").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from reports.statement import canonical

if TYPE_CHECKING:
    from theory.answers.graph import Edge, Graph

__all__ = ["SNAPSHOTS", "catalog", "catalog_section", "catalog_digest", "edge_key", "step_bounds", "snapshot",
           "write_snapshot", "named_catalog"]

SNAPSHOTS = Path(__file__).resolve().parent / "catalogs"
"""The shipped snapshots of released claim catalogs, one file per digest (package data)."""

_DIGEST = re.compile(r"[0-9a-f]{64}")


def catalog() -> Graph:
    """The implication map this privcert derives guarantees with (its claims and their checked statuses)."""
    from theory.answers.graph import build_graph
    from theory.status_cache import cached_statuses

    return build_graph(cached_statuses())


def edge_key(edge: Edge) -> list[Any]:
    """One edge as the catalog's digest covers it: claim, premise, conclusion, bound, status, conditions, sizes,
    and whether it is the reverse direction of an equivalence (sympy's text of each expression)."""
    return [edge.claim_id, edge.premise, edge.conclusion, str(edge.f), edge.status, [str(c) for c in edge.conditions],
            str(edge.premise_size), str(edge.conclusion_size), edge.reverse]


def catalog_digest(keys: Iterable[list[Any]]) -> str:
    """The SHA-256 of a catalog's edge keys (:func:`edge_key`), sorted by their canonical JSON."""
    return hashlib.sha256(canonical(sorted(keys, key=canonical))).hexdigest()


def catalog_section(graph: Graph | None = None) -> dict[str, str]:
    """The claim catalog a certificate's guarantees were derived with: the SHA-256 of its edges
    (:func:`catalog_digest`) and the privcert version.

    A record, not a condition: ``verify`` checks each guarantee for soundness in the catalog it runs with, or in
    the snapshot of this one (docs/certificates.md, "Compatibility"), so that a claim added later never
    invalidates a certificate.
    """
    return {"sha256": catalog_digest(edge_key(edge) for edge in (graph or catalog()).edges),
            "privcert": version("privcert")}


def step_bounds(graph: Graph, claim: str, premise: str, conclusion: str) -> list[str]:
    """The bounds (the conclusion's level in the premise's level symbol) of a claim's usable edges from
    ``premise`` to ``conclusion`` in ``graph``, sorted."""
    return sorted({str(edge.f) for edge in graph.usable()
                   if edge.claim_id == claim and edge.premise == premise and edge.conclusion == conclusion})


def _form(value: sympy.Basic | None) -> str | None:
    return None if value is None else sympy.srepr(value)


def snapshot(graph: Graph | None = None) -> dict[str, Any]:
    """The snapshot of a catalog (default: the current one): its digest, the privcert version, and each edge's
    ``key`` (:func:`edge_key`) with the exact ``forms`` it is rebuilt from."""
    graph = graph or catalog()
    edges: list[dict[str, Any]] = sorted(({"key": edge_key(edge),
                     "forms": {"f": _form(edge.f), "conditions": [_form(c) for c in edge.conditions],
                               "premise_size": _form(edge.premise_size),
                               "conclusion_size": _form(edge.conclusion_size), "corrected": edge.corrected,
                               "source": [edge.source.paper, edge.source.section, edge.source.item]}}
                    for edge in graph.edges), key=lambda item: canonical(item["key"]))
    return {"sha256": catalog_digest(item["key"] for item in edges), "privcert": version("privcert"), "edges": edges}


def write_snapshot(folder: Path = SNAPSHOTS, graph: Graph | None = None) -> Path:
    """Write the snapshot of a catalog (default: the current one) into ``folder`` as ``<sha256>.json``; a
    snapshot already there is kept (its name is its content's digest)."""
    document = snapshot(graph)
    path = folder / f"{document['sha256']}.json"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _expression(form: str | None) -> Any:
    return None if form is None else sympy.sympify(form)


def _edge(item: Mapping[str, Any]) -> Edge:
    from theory.answers.graph import Edge
    from verifier.references import Source

    claim, premise, conclusion, _, status, _, _, _, reverse = item["key"]
    forms = item["forms"]
    return Edge(claim, Source(*forms["source"]), premise, conclusion, _expression(forms["f"]),
                tuple(_expression(c) for c in forms["conditions"]), _expression(forms["premise_size"]),
                _expression(forms["conclusion_size"]), status, forms["corrected"], reverse)


@cache
def named_catalog(digest: object) -> Graph | None:
    """The catalog a certificate names by ``digest``, rebuilt from its shipped snapshot; ``None`` when privcert
    ships none (or ``digest`` is not a SHA-256).

    Raises
    ------
    ValueError
        The snapshot's edges do not have the digest its name says (a defect of the shipped file).
    """
    from theory.answers.graph import Graph

    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        return None
    path = SNAPSHOTS / f"{digest}.json"
    if not path.is_file():
        return None
    edges = json.loads(path.read_text(encoding="utf-8"))["edges"]
    found = catalog_digest(item["key"] for item in edges)
    if found != digest:
        raise ValueError(f"{path}: its edges have SHA-256 {found}, not the one its name says")
    return Graph(tuple(_edge(item) for item in edges))



@cache
def shipped_statuses(claim: str) -> frozenset[str]:
    """The statuses ``claim`` has had in the catalogs privcert ships a snapshot of: the statuses a certificate
    that names no catalog (schema 2) may state for it, issued as it was under one of them."""
    return frozenset(edge.status for path in sorted(SNAPSHOTS.glob("*.json"))
                     if (graph := named_catalog(path.stem)) is not None
                     for edge in graph.edges if edge.claim_id == claim)

if __name__ == "__main__":
    print(f"wrote {write_snapshot()}")
