"""The release on a page: its size and quasi-identifiers, and the digest of its count tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reports.page.text import cell
from verifier.lookalike import shown

__all__ = ["section", "counts"]


def section(release: Any) -> dict[str, Any] | None:
    """The predicate's ``release``: its rows, classes and quasi-identifiers (``None``: not a mapping)."""
    return None if not isinstance(release, Mapping) else {
        "rows": cell(release.get("rows"), 40), "classes": cell(release.get("classes"), 40),
        "quasi_identifiers": [shown(name) for name in release.get("quasi_identifiers") or []]}


def counts(given: Any) -> dict[str, Any] | None:
    """The predicate's ``counts``: the digest of the count tables and whether they are embedded."""
    return None if not isinstance(given, Mapping) else {"sha256": cell(given.get("sha256")),
                                                        "embedded": "tables" in given}
