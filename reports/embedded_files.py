"""The files a policy names, carried in a certificate by their content, never by a path.

A policy names files on the publisher's machine: a hierarchy per categorical attribute and,
for a randomized release, the mechanism's matrix (CSV) or noise specification (TOML). A
certificate carries their content, each with the SHA-256 of its canonical form, so that
``verify`` re-measures with exactly what the publisher used and never opens a file a
signed policy names (which would let a certificate make a reader's machine read, and
print, a file of its choosing):

.. code-block:: text

    "hierarchies": {"disease": {"sha256": "…", "paths": [[leaf, parent, …, root], …]}}
    "mechanism":   {"name": "mechanism.csv", "sha256": "…", "text": "value,flu,…\\n…"}

A hierarchy's digest is :attr:`verifier.tables.hierarchy.Hierarchy.digest` (its paths sorted by
leaf), the one results name it by; a mechanism's is the SHA-256 of its file's UTF-8 text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verifier.errors import VerifierError
from verifier.randomized.mechanism import AnyMechanism
from verifier.randomized.modes import mechanism_from_text
from verifier.tables.hierarchy import Hierarchy

__all__ = ["EmbeddedFileError", "encode_hierarchies", "decode_hierarchies", "encode_mechanism", "decode_mechanism"]


class EmbeddedFileError(ValueError):
    """An embedded hierarchy or mechanism that is malformed or does not have its stated SHA-256."""


def encode_hierarchies(hierarchies: Mapping[str, Hierarchy]) -> dict[str, Any]:
    """Each hierarchy's sorted leaf-to-root paths and their digest, by attribute name."""
    return {name: {"sha256": hierarchy.digest, "paths": sorted(list(path) for path in hierarchy.paths)}
            for name, hierarchy in sorted(hierarchies.items())}


def decode_hierarchies(section: Any) -> dict[str, Hierarchy]:
    """The hierarchies of :func:`encode_hierarchies`, each checked against its digest.

    Raises
    ------
    EmbeddedFileError
        Not an object of ``{sha256, paths}``, not a valid hierarchy, or another digest.
    """
    if not isinstance(section, Mapping):
        raise EmbeddedFileError("hierarchies: expected an object of attribute name → {sha256, paths}")
    found = {}
    for name, body in section.items():
        if not isinstance(body, Mapping) or set(body) != {"sha256", "paths"} or not isinstance(body["paths"], list):
            raise EmbeddedFileError(f"hierarchies.{name}: expected exactly the keys sha256 and paths")
        try:
            hierarchy = Hierarchy.from_rows(body["paths"], source=f"the certificate's hierarchy of {name!r}")
        except (VerifierError, TypeError, ValueError) as error:
            raise EmbeddedFileError(f"hierarchies.{name}: {error}") from error
        if hierarchy.digest != body["sha256"]:
            raise EmbeddedFileError(f"hierarchies.{name}: its paths have SHA-256 {hierarchy.digest}, the certificate "
                                    f"names {body['sha256']!r}")
        found[str(name)] = hierarchy
    return found


def encode_mechanism(file: Path) -> dict[str, Any]:
    """The mechanism file's name (no folder), text and SHA-256."""
    text = file.read_text(encoding="utf-8")
    return {"name": file.name, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(), "text": text}


def decode_mechanism(section: Any) -> AnyMechanism:
    """The mechanism of :func:`encode_mechanism`, checked against its digest and parsed as its file would be.

    Raises
    ------
    EmbeddedFileError
        Malformed, another digest, or not a mechanism.
    """
    if not isinstance(section, Mapping) or set(section) != {"name", "sha256", "text"} or not all(
            isinstance(section[key], str) for key in section):
        raise EmbeddedFileError("mechanism: expected exactly the text keys name, sha256 and text")
    digest = hashlib.sha256(section["text"].encode("utf-8")).hexdigest()
    if digest != section["sha256"]:
        raise EmbeddedFileError(f"mechanism: its text has SHA-256 {digest}, the certificate names {section['sha256']!r}")
    try:
        return mechanism_from_text(Path(section["name"]).name, section["text"])
    except (VerifierError, ValueError) as error:
        raise EmbeddedFileError(f"mechanism {section['name']!r}: {error}") from error
