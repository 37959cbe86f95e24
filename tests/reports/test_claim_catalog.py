"""The claim catalog a certificate names, and the snapshots of released catalogs that privcert ships.

A certificate of schema 3 names the catalog its guarantees were derived with by a digest; ``verify`` checks a
guarantee in the snapshot of that catalog when this privcert's no longer vouches for it (docs/certificates.md,
"Compatibility"). So every catalog a privcert certifies with must ship as a snapshot, and a snapshot must be
exactly the catalog its name says.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import sympy

from reports.claim_catalog import SNAPSHOTS, catalog, catalog_section, edge_key, named_catalog, snapshot, write_snapshot

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_the_current_catalog_ships_as_a_snapshot() -> None:
    digest = catalog_section()["sha256"]
    assert (SNAPSHOTS / f"{digest}.json").is_file(), (
        f"the claim catalog changed: its digest {digest} has no snapshot in reports/catalogs/, so certificates "
        "issued with it could not be checked in it once a claim is revised: run `python -m reports.claim_catalog` "
        "and commit the file it writes (never change or delete an existing one)")


def test_the_snapshot_rebuilds_the_catalog_exactly() -> None:
    """Every edge of the current catalog, rebuilt from the snapshot: the same claim, bound, conditions, sizes,
    status and source, as sympy objects equal to the catalog's (sympy's equality compares the symbols'
    assumptions too: a bound read back with plain symbols would differ)."""
    today = catalog()
    rebuilt = named_catalog(catalog_section(today)["sha256"])
    assert rebuilt is not None
    assert sorted(rebuilt.edges, key=lambda e: json.dumps(edge_key(e))) == sorted(
        today.edges, key=lambda e: json.dumps(edge_key(e)))


@pytest.mark.parametrize("path", sorted(SNAPSHOTS.glob("*.json")), ids=lambda p: p.stem[:12])
def test_every_shipped_snapshot_is_the_catalog_its_name_says(path: Path) -> None:
    """Its edges have the digest of its name, and each edge's exact forms are the ones the digest covers."""
    graph = named_catalog(path.stem)  # raises when the edges do not have the digest
    assert graph is not None
    for item, edge in zip(json.loads(path.read_text(encoding="utf-8"))["edges"], graph.edges, strict=True):
        assert edge_key(edge) == item["key"]


def test_every_golden_certificate_names_a_shipped_catalog() -> None:
    named = set()
    for certificate in sorted(GOLDEN.glob("v*/*/cert.json")):
        predicate = json.loads(base64.b64decode(json.loads(certificate.read_text())["payload"]))["predicate"]
        if "catalog" in predicate:  # schema 3 on
            named.add(predicate["catalog"]["sha256"])
    assert named and all((SNAPSHOTS / f"{digest}.json").is_file() for digest in named), named


@pytest.mark.parametrize("digest", [None, 7, "", "../../pyproject", "F" * 64, "0" * 64, "0" * 63 + "/"])
def test_a_digest_without_a_snapshot_or_not_a_digest_names_no_catalog(digest: object) -> None:
    """A certificate chooses the digest it names: anything but a shipped snapshot's lowercase SHA-256 is no
    catalog, and never a path read."""
    assert named_catalog(digest) is None


def test_a_snapshot_is_written_once_under_its_digest(tmp_path: Path) -> None:
    from theory.answers.graph import Graph

    today = catalog()
    small = Graph(today.edges[:3])
    path = write_snapshot(tmp_path, small)
    assert path.name == f"{snapshot(small)['sha256']}.json" != f"{catalog_section(today)['sha256']}.json"
    written = path.read_text(encoding="utf-8")
    assert write_snapshot(tmp_path, small) == path and path.read_text(encoding="utf-8") == written
    forms = json.loads(written)["edges"][0]["forms"]
    assert sympy.sympify(forms["f"]) in {edge.f for edge in small.edges}
