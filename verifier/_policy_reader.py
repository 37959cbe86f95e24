"""Strict readers for the values of a parsed TOML policy (private to ``verifier.policy``).

Every reader takes the value and its key path and either returns the checked value or
raises :class:`~verifier.errors.PolicyError` with "file: key: expected ..., found ...".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fnmatch import fnmatchcase
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

import sympy

from verifier.errors import PolicyError
from verifier.literal import Domain

__all__ = ["Reader", "describe", "PATH_KEYS", "Locate"]

PATH_KEYS = ("data.path", "sensitive.*.hierarchy", "risk.population_table", "mechanism.file")
"""The policy's keys whose value names a file (``*``: a sensitive attribute's name). Each is read by
:meth:`Reader.file`, the one place a policy's file names become paths."""
Locate = Callable[[str, str], Path]
"""Where the file a policy names is: ``locate(key, name)`` is its path, or raises
:class:`~verifier.errors.PolicyError` saying why the name is refused (``expected ..., found ...``)."""


def describe(value: Any) -> str:
    """How a TOML value is named in an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, Decimal):
        return f"the number {value}"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    if isinstance(value, dict):
        return "a table"
    return f"the {type(value).__name__} {value}"


@dataclass(frozen=True)
class Reader:
    """Checks values of the policy file ``source``."""

    source: str
    locate: Locate | None = None
    """Where a named file is (:data:`Locate`); ``None``: the name as it is written."""

    def fail(self, key: str, expected: str, found: str) -> NoReturn:
        where = f"{key}: " if key else ""
        raise PolicyError(f"{self.source}: {where}expected {expected}, found {found}")

    def keys(
        self,
        table: dict[str, Any],
        key: str,
        *,
        allowed: Sequence[str],
        required: Sequence[str] = (),
        what: str | None = None,
    ) -> None:
        """Reject unknown keys (typos) and report the first missing required key."""
        owner = f"{what} " if what else ""
        for name in table:
            if name not in allowed:
                self.fail(
                    f"{key}.{name}" if key else name,
                    f"one of the {owner}keys {', '.join(allowed)}",
                    f"the unknown key {name!r}",
                )
        for name in required:
            if name not in table:
                self.fail(f"{key}.{name}" if key else name, f"the key {name!r}", "none")

    def table(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, "a table", describe(value))
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(key, "a non-empty string", describe(value))
        return value

    def file(self, value: Any, key: str) -> Path:
        """The file the path-valued key ``key`` (one of :data:`PATH_KEYS`) names, located by :attr:`locate`.

        Raises
        ------
        PolicyError
            The value is not a non-empty string, or :attr:`locate` refuses the name (its reason, after the key).
        """
        if not any(fnmatchcase(key, pattern) for pattern in PATH_KEYS):
            raise ValueError(f"{key}: not one of the policy's path-valued keys {PATH_KEYS}")
        name = self.string(value, key)
        if self.locate is None:
            return Path(name)
        try:
            return self.locate(key, name)
        except PolicyError as refused:
            raise PolicyError(f"{self.source}: {key}: {refused}") from None

    def names(self, value: Any, key: str) -> tuple[str, ...]:
        """A non-empty array of distinct column names."""
        if not isinstance(value, list) or not value:
            self.fail(key, "a non-empty array of column names", describe(value))
        for item in value:
            self.string(item, key)
        repeated = sorted({v for v in value if value.count(v) > 1})
        if repeated:
            self.fail(key, "distinct column names", f"{repeated} repeated")
        return tuple(value)

    def choice(self, value: Any, key: str, options: Sequence[str]) -> str:
        if value not in options or not isinstance(value, str):
            self.fail(key, f"one of {', '.join(options)}", describe(value))
        return value

    def integer(self, value: Any, key: str, *, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.fail(key, f"an integer ≥ {minimum}", describe(value))
        return value

    def fraction(
        self,
        value: Any,
        key: str,
        lower: Fraction,
        upper: Fraction | None = None,
        *,
        integer: bool = False,
        lower_open: bool = False,
    ) -> Fraction:
        """An exact number: a TOML integer or decimal, or a string ``"0.15"`` / ``"1/6"``.

        Read by the exact grammar of :mod:`verifier.literal` (never evaluated): ``inf``,
        ``nan`` and magnitudes no level can mean (``1e999999999``) are errors naming the key,
        not computations.
        """
        from verifier.literal import Domain, LiteralError, parse_exact

        kind = "an integer" if integer else 'a number (integer, decimal, or a string such as "1/6")'
        bounds = f"{'>' if lower_open else '≥'} {lower}" + (f" and ≤ {upper}" if upper is not None else "")
        expected = f"{kind} {bounds}"
        if not isinstance(value, (int, Decimal, str)) or isinstance(value, bool):
            self.fail(key, expected, describe(value))
        try:
            number = parse_exact(value, key, Domain(lower=lower, upper=upper, lower_open=lower_open, integer=integer))
        except LiteralError as error:
            self.fail(key, expected, f"{describe(value)} ({str(error).removeprefix(key + ': ')})")
        if not number.is_Rational:
            self.fail(key, f"{expected}, rational", describe(value))
        return Fraction(int(number.p), int(number.q))

    def exact(self, value: Any, key: str, domain: Domain, *, closed_forms: bool = False) -> Fraction | sympy.Expr:
        """A threshold or parameter in ``domain``: an exact rational (a Fraction), or with
        ``closed_forms`` also ``ln(q)`` or ``e^x`` (a sympy number). ``inf`` is refused: every
        release meets it."""
        if not closed_forms:
            return self.fraction(value, key, domain.lower if domain.lower is not None else Fraction(0), domain.upper,
                                 integer=domain.integer, lower_open=domain.lower_open)
        from verifier.literal import LiteralError, parse_exact

        expected = f"{domain.describe()} (rational, ln(q) or e^x)"
        if not isinstance(value, (int, Decimal, str)) or isinstance(value, bool):
            self.fail(key, expected, describe(value))
        try:
            number = parse_exact(value, key, domain)
        except LiteralError as error:
            self.fail(key, expected, f"{describe(value)} ({str(error).removeprefix(f'{key}: ')})")
        if number == sympy.oo:
            self.fail(key, expected, "inf (every release meets it)")
        return number

    def values(self, value: Any, key: str, *, numeric: bool = False) -> tuple[Any, ...]:
        """A non-empty array of distinct scalar values.

        With ``numeric``, numbers only, each read exactly by the grammar of a numerical
        cell (:func:`verifier.tables.values.exact_number`: ``0.1`` is one tenth, never a binary
        float); otherwise strings and numbers, a number standing for its text as written
        (``1`` matches the cell ``1``, ``0.10`` the cell ``0.10``).
        """
        from verifier.tables.values import exact_number

        expected = "a non-empty array of distinct " + ("numbers" if numeric else "strings or numbers")
        if not isinstance(value, list) or not value:
            self.fail(key, expected, describe(value))
        out: list[Any] = []
        for item in value:
            scalar = isinstance(item, (int, Decimal)) and not isinstance(item, bool)
            if not scalar and (numeric or not isinstance(item, str)):
                self.fail(key, expected, f"{describe(item)} in the array")
            out.append(exact_number(str(item)) if numeric else str(item))
        if len(set(out)) != len(out):
            repeated = sorted({repr(v) for v in out if out.count(v) > 1})
            self.fail(key, expected, f"{', '.join(repeated)} repeated")
        return tuple(out)
