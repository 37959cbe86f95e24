"""Exceptions and warnings raised by the verifier.

Every message names where the problem is (file, column, key or row), what was
expected and what was found, so that a user can fix the input without reading code.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "VerifierError",
    "DataError",
    "PolicyError",
    "HierarchyError",
    "InputFileNotFoundError",
    "MechanismError",
    "ExcludedRowsWarning",
    "IdentifierColumnWarning",
    "listing",
]


def listing(items: Iterable[object], at_most: int = 8) -> str:
    """Items for an error message, bounded: the first ``at_most`` and how many there are in all.

    Examples
    --------
    >>> listing(["a", "b"])
    "['a', 'b']"
    >>> listing(range(100_000), at_most=3)
    '[0, 1, 2, … 100,000 in all]'
    """
    shown = list(items)
    if len(shown) <= at_most:
        return repr(shown)
    return "[" + ", ".join(map(repr, shown[:at_most])) + f", … {len(shown):,} in all]"


class VerifierError(Exception):
    """Base class of every error the verifier raises on bad input."""


class DataError(VerifierError, ValueError):
    """The released table cannot be measured as asked (missing column, bad value)."""


class PolicyError(VerifierError, ValueError):
    """A policy file (TOML) or a command-line policy option is malformed."""


class HierarchyError(VerifierError, ValueError):
    """A hierarchy file (CSV, one row per leaf, columns leaf to root) is malformed."""


class InputFileNotFoundError(VerifierError, FileNotFoundError):
    """A data, policy or hierarchy file does not exist."""


class PrivcertWarning(UserWarning):
    """A fact about the input a user must know (the command line prints it as ``warning: ...``)."""


class IdentifierColumnWarning(PrivcertWarning):
    """A quasi-identifier column holds a different value on every row (an identifier such as ``id``).

    Every class then has one record; the release is almost certainly not meant to
    publish that column, or it was named as a quasi-identifier by mistake.
    """


class ExcludedRowsWarning(PrivcertWarning):
    """Rows were excluded from a sensitive attribute because the policy said so.

    Raised as a warning (never silently) when ``missing = "exclude"`` removes rows
    whose sensitive value is missing; the count is also reported in the results.
    """


class MechanismError(VerifierError, ValueError):
    """A mechanism matrix (or mechanism CSV file) is malformed: names the file, row and column."""
