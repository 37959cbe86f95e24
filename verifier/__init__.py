"""privcert.verifier: measure the privacy levels of a released table.

The front doors are :func:`verifier.measure.measure` and :func:`verifier.audit.audit`
(not re-exported here: their names are those of their modules). The names below are
imported on first use, so that importing one small module (``verifier.errors``,
``verifier.literal``) does not load pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "AuditResult": "verifier.audit",
    "Check": "verifier.audit",
    "AttributeSpec": "verifier.tables.counts",
    "Classes": "verifier.tables.counts",
    "CountTable": "verifier.tables.counts",
    "count_tables": "verifier.tables.counting",
    "DataError": "verifier.errors",
    "ExcludedRowsWarning": "verifier.errors",
    "HierarchyError": "verifier.errors",
    "IdentifierColumnWarning": "verifier.errors",
    "InputFileNotFoundError": "verifier.errors",
    "PolicyError": "verifier.errors",
    "VerifierError": "verifier.errors",
    "load_table": "verifier.tables.load",
    "MeasureResult": "verifier.measure",
    "Policy": "verifier.policy",
    "Requirement": "verifier.policy",
    "Sensitive": "verifier.policy",
    "load_policy": "verifier.policy",
    "parse_policy": "verifier.policy",
    "Level": "verifier.results",
    "Measurement": "verifier.results",
    "Witness": "verifier.results",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'verifier' has no attribute {name!r}")
