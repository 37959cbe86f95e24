"""Issuing a certificate: the statement of an audit, signed, with what its views need.

:func:`certify` turns an audit (:func:`verifier.audit.audit`) into a :class:`Certificate`:
the in-toto statement (:mod:`reports.statement`) with the count tables (embedded or only
their SHA-256, :mod:`reports.embedded_counts`), the hierarchies and the mechanism by
content (:mod:`reports.embedded_files`) and the guarantees the measured levels imply
(:func:`implied_section`), signed in a DSSE envelope when a signer is given
(:mod:`reports.signing`). Nothing here writes a file: the caller writes
:meth:`Certificate.text` and the views (:func:`reports.views.render_views`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reports.embedded_counts import counts_section
from reports.embedded_files import encode_mechanism
from reports.signing import sign
from reports.statement import Statement, build_statement, canonical, rechecked

if TYPE_CHECKING:
    from securesystemslib.signer import CryptoSigner

    from reports.utility_section import UtilitySection
    from theory.answers.graph import Edge, Graph
    from verifier.audit import AuditResult
    from verifier.tables.counts import CountTable

__all__ = ["Certificate", "certify", "implied_section", "catalog", "catalog_section", "premises", "step_bounds"]


@dataclass(frozen=True)
class Certificate:
    """A certified audit: its statement, the signed envelope (``None`` when unsigned), the count tables."""

    statement: Statement
    envelope: dict[str, Any] | None
    tables: tuple[CountTable, ...]

    @property
    def text(self) -> str:
        """The certificate file's text: the envelope as indented JSON.

        Raises
        ------
        ValueError
            The certificate is not signed.
        """
        if self.envelope is None:
            raise ValueError("an unsigned audit has no certificate file (give a signer)")
        return json.dumps(self.envelope, indent=2) + "\n"


def catalog() -> Graph:
    """The implication map this privcert derives guarantees with (its claims and their checked statuses)."""
    from theory.answers.graph import build_graph
    from theory.status_cache import cached_statuses

    return build_graph(cached_statuses())


def _edge_key(edge: Edge) -> list[Any]:
    return [edge.claim_id, edge.premise, edge.conclusion, str(edge.f), edge.status, [str(c) for c in edge.conditions],
            str(edge.premise_size), str(edge.conclusion_size), edge.reverse]


def catalog_section(graph: Graph | None = None) -> dict[str, str]:
    """The claim catalog a certificate's guarantees were derived with: the SHA-256 of its edges (claim, premise,
    conclusion, bound, status, conditions, sizes; canonical JSON, sorted) and the privcert version.

    A record, not a condition: ``verify`` checks each guarantee for soundness in the catalog it runs with
    (docs/certificates.md, "Compatibility"), so that a claim added later never invalidates a certificate.
    """
    from importlib.metadata import version

    edges = sorted((_edge_key(edge) for edge in (graph or catalog()).edges), key=canonical)
    return {"sha256": hashlib.sha256(canonical(edges)).hexdigest(), "privcert": version("privcert")}


def step_bounds(graph: Graph, claim: str, premise: str, conclusion: str) -> list[str]:
    """The bounds (the conclusion's level in the premise's level symbol) of a claim's usable edges from
    ``premise`` to ``conclusion`` in ``graph``, sorted."""
    return sorted({str(edge.f) for edge in graph.usable()
                   if edge.claim_id == claim and edge.premise == premise and edge.conclusion == conclusion})


def premises(result: AuditResult) -> tuple[dict[str, Any], dict[str, tuple[int, int]]]:
    """What :func:`theory.answers.explain.explain` reads of an audit: its JSON with only the re-checkable
    measurements, and for each attribute with rows left out its counted rows and smallest class."""
    document = result.to_json()
    document["measurements"] = [m for m in document["measurements"] if rechecked(str(m["model"]), result.policy)]
    counted = {"+".join(map(str, name)) if isinstance(name, tuple) else str(name):
               (table.n, int(table.sizes[table.sizes > 0].min()))
               for name, table in result.report.tables.items() if table.excluded and table.n}
    return document, counted


def implied_section(result: AuditResult, graph: Graph | None = None) -> list[dict[str, Any]]:
    """The guarantees the re-checkable measured levels imply (:func:`theory.answers.explain.explain`), as facts.

    One object per implied definition: ``definition``, ``level`` (exact), ``from`` (the premise measured) and the
    ``derivation``, each step its ``claim``, ``status``, ``from``, ``to`` and ``bounds`` (the claim's level map in
    the catalog). Readable forms and the definitions about which nothing follows are views, generated by each
    reader. Only measurements ``verify`` re-measures are premises, so that a reader re-derives them. An attribute
    with rows left out (``missing = "exclude"``) is read at its counted rows and their smallest class.
    """
    from theory.answers.explain import explain
    from verifier.audit import facts

    graph = graph or catalog()
    document, counted = premises(result)
    found = [facts(item) for item in explain(document, graph, counted=counted).to_json() if item["implied"]]
    for item in found:
        for step in item["derivation"]:
            step["bounds"] = step_bounds(graph, step["claim"], step["from"], step["to"])
    return found


def certify(result: AuditResult, release: Path, policy_text: str | None = None, *,
            signer: CryptoSigner | None = None, embed_counts: bool = True, time: datetime | None = None,
            utility: UtilitySection | None = None, encoding: str = "utf-8") -> Certificate:
    """The certificate of ``result``, the audit of the file ``release`` under its policy.

    Parameters
    ----------
    result
        The audit, with its randomized levels when the release was made by a mechanism.
    release
        The audited file (or Parquet directory), or in publisher mode the published release: the statement's
        subject. Publisher mode audits the original, whose digest never appears in a certificate.
    policy_text
        The policy as written (default: the text the audit's policy was parsed from, never the file read again).
    signer
        The publisher's key (:func:`reports.signing.load_signer`); ``None`` for an unsigned
        statement (views of an audit without a certificate).
    embed_counts
        Put the count tables in the certificate (their SHA-256 is always there, but in publisher mode: the
        original's count tables are neither embedded nor named by a digest, which would confirm guesses of it).
    time
        The audit's time (default: now), fixed for reproducible bytes.
    utility
        What the release cost against its original (:func:`reports.utility_section.utility_section`): signed
        in the predicate's ``utility`` section.
    encoding
        The text encoding the release was read in (recorded, and used by ``verify --data``).
    """
    randomized = result.randomized
    mechanism = None if randomized is None or randomized.file is None else encode_mechanism(randomized.file)
    graph = catalog()
    publisher = randomized is not None and randomized.mode == "publisher"
    statement = build_statement(result, release, policy_text, time=time,
                                counts=None if publisher else counts_section(result, embed=embed_counts),
                                implied=implied_section(result, graph), mechanism=mechanism,
                                utility=None if utility is None else utility.to_json(),
                                catalog=catalog_section(graph), encoding=encoding)
    envelope = None if signer is None else sign(statement, signer)
    return Certificate(statement, envelope, tuple(result.report.tables.values()))
