"""privcert.verifier: measure the privacy levels of a released table.

The front doors are :func:`verifier.measure.measure` and :func:`verifier.audit.audit`
(not re-exported here: their names are those of their modules).
"""

from verifier.audit import AuditResult, Check
from verifier.counts import AttributeSpec, Classes, CountTable, count_tables
from verifier.errors import (
    DataError,
    ExcludedRowsWarning,
    HierarchyError,
    InputFileNotFoundError,
    PolicyError,
    VerifierError,
)
from verifier.load import load_table
from verifier.measure import Report
from verifier.policy import Policy, Requirement, Sensitive, load_policy, parse_policy
from verifier.results import Level, Measurement, Witness

__all__ = [
    "AttributeSpec",
    "Classes",
    "CountTable",
    "count_tables",
    "DataError",
    "ExcludedRowsWarning",
    "HierarchyError",
    "InputFileNotFoundError",
    "PolicyError",
    "VerifierError",
    "Level",
    "Measurement",
    "Witness",
    "load_table",
    "Policy",
    "Requirement",
    "Sensitive",
    "load_policy",
    "parse_policy",
    "Report",
    "AuditResult",
    "Check",
]
