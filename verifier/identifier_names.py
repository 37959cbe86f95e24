"""Column names that look like direct identifiers (``name``, ``email``, ``ssn``, ``patient_id``).

A release column named like a direct identifier is one that, left in a release, names its records whatever
the quasi-identifiers' levels: the workbench leaves such a column out of its suggested policy, and a
certificate's views warn about one that is in the release but outside the audited policy.
"""

from __future__ import annotations

import re

__all__ = ["IDENTIFIER_NAME", "looks_like_identifier"]

IDENTIFIER_NAME = re.compile(r"(^|[_\W])(id|ids|identifier|uuid|guid|ssn|email|e_?mail|name|phone|passport|mrn)"
                             r"($|[_\W])", re.IGNORECASE)
"""A word of a column name that names a direct identifier."""


def looks_like_identifier(name: str) -> bool:
    """Whether a column's name looks like a direct identifier's.

    >>> looks_like_identifier("name"), looks_like_identifier("patient_id"), looks_like_identifier("zip")
    (True, True, False)
    """
    return IDENTIFIER_NAME.search(name) is not None
