"""privcert.verifier: measure the privacy levels of a released table."""

from verifier.counts import AttributeSpec, Classes, CountTable, count_tables
from verifier.errors import (
    DataError,
    ExcludedRowsWarning,
    HierarchyError,
    InputFileNotFoundError,
    PolicyError,
    VerifierError,
)
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
]
