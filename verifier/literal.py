"""Exact numbers written by a user: a small grammar, never ``eval`` or ``sympify``.

Thresholds in a policy and parameters of a theory query are third-party text. They are
read by this grammar only, so no text is ever evaluated as code and no input can ask
for a computation of unbounded size:

.. code-block:: text

    number   := rational | "ln(" rational ")" | "e^" exponent | "inf" | "∞"
    exponent := rational | "(" rational ")"
    rational := integer | decimal | integer "/" integer
    integer  := [+-]? digit+
    decimal  := [+-]? digit* "." digit+ ([eE] [+-]? digit+)?  |  [+-]? digit+ [eE] [+-]? digit+

Every value is exact: decimals become rationals (``0.15`` is ``3/20``), ``ln(9/4)`` and
``e^(1/2)`` stay closed forms. Magnitudes are bounded (``MAX_DIGITS`` digits in a
numerator or denominator, exponents of ``e`` at most ``MAX_EXPONENT``), so
``1e999999999`` and ``e^100000`` are errors, not computations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

import sympy

from verifier.named_inputs import Input, Said

__all__ = ["LiteralError", "Domain", "parse_exact", "MAX_DIGITS", "MAX_EXPONENT"]

MAX_DIGITS = 40
"""Most digits a numerator or denominator may have (10^40 exceeds any table size or level)."""

MAX_EXPONENT = 1000
"""Largest |x| accepted in ``e^x`` (e^1000 ≈ 10^434 already exceeds any meaningful level)."""

_INTEGER = r"[+-]?\d+"
_DECIMAL = r"[+-]?(?:\d*\.\d+|\d+\.|\d+(?=[eE]))(?:[eE][+-]?\d+)?"
_RATIONAL = re.compile(rf"(?P<num>{_DECIMAL}|{_INTEGER})(?:/(?P<den>{_INTEGER}))?")
_LN = re.compile(r"ln\((?P<arg>[^()]*)\)")
_EXP = re.compile(r"e\^(?:\((?P<paren>[^()]*)\)|(?P<bare>[^()\s]+))")
_INFINITY = ("inf", "+inf", "∞", "infinity")


class LiteralError(ValueError):
    """A user-written number does not follow the grammar or lies outside its domain."""


@dataclass(frozen=True)
class Domain:
    """Where a parameter may lie: ``lower ≤ x ≤ upper`` (open ends on request).

    Parameters
    ----------
    lower, upper
        Exact bounds (``None``: unbounded on that side).
    lower_open, upper_open
        Exclude the bound itself.
    integer
        Only integers.
    infinite
        ``inf`` is accepted (it is above every finite upper bound).
    """

    lower: Fraction | None = None
    upper: Fraction | None = None
    lower_open: bool = False
    upper_open: bool = False
    integer: bool = False
    infinite: bool = False

    def describe(self) -> str:
        """The domain in words, for error messages: ``an integer ≥ 1``."""
        kind = "an integer" if self.integer else "a number"
        parts = []
        if self.lower is not None:
            parts.append(f"{'>' if self.lower_open else '≥'} {self.lower}")
        if self.upper is not None:
            parts.append(f"{'<' if self.upper_open else '≤'} {self.upper}")
        text = f"{kind} {' and '.join(parts)}".rstrip()
        return text + (" (or inf)" if self.infinite else "")

    def contains(self, value: sympy.Expr) -> bool:
        """Whether an exact value lies in the domain (decided exactly)."""
        if value == sympy.oo:
            return self.infinite
        if self.integer and not value.is_Integer:
            return False
        if self.lower is not None:
            low = sympy.Rational(self.lower.numerator, self.lower.denominator)
            if bool(value < low) or (self.lower_open and bool(sympy.Eq(value, low))):
                return False
        if self.upper is not None:
            high = sympy.Rational(self.upper.numerator, self.upper.denominator)
            if bool(value > high) or (self.upper_open and bool(sympy.Eq(value, high))):
                return False
        return True


def _rational(text: str, name: str | Input) -> Fraction:
    match = _RATIONAL.fullmatch(text.strip())
    if match is None:
        raise LiteralError(Said(name, f": expected a number such as 2, 0.15, 3/2, ln(2), e^0.5 or inf, found {text!r}"))
    numerator, denominator = match["num"], match["den"]
    try:
        value = Decimal(numerator)
    except InvalidOperation as error:
        raise LiteralError(Said(name, f": {numerator!r} is not a number")) from error
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    if len(digits) > MAX_DIGITS or abs(exponent) > MAX_DIGITS or len(digits) + exponent > MAX_DIGITS:
        raise LiteralError(Said(name, f": {text!r} is beyond the magnitude any level can mean (at most {MAX_DIGITS} digits)"))
    number = Fraction(value)
    if denominator is not None:
        if len(denominator.lstrip("+-")) > MAX_DIGITS:
            raise LiteralError(Said(name, f": {text!r} has a denominator of more than {MAX_DIGITS} digits"))
        if int(denominator) == 0:
            raise LiteralError(Said(name, f": {text!r} divides by zero"))
        number /= int(denominator)
    return number


def _to_sympy(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def _parse(text: str, name: str | Input) -> sympy.Expr:
    stripped = text.strip()
    if stripped.lower() in _INFINITY:
        return sympy.oo
    if (ln := _LN.fullmatch(stripped)) is not None:
        argument = _rational(ln["arg"], name)
        if argument <= 0:
            raise LiteralError(Said(name, f": ln takes a positive argument, found {text!r}"))
        return sympy.log(_to_sympy(argument))
    if (exp := _EXP.fullmatch(stripped)) is not None:
        exponent = _rational(exp["paren"] if exp["paren"] is not None else exp["bare"], name)
        if abs(exponent) > MAX_EXPONENT:
            raise LiteralError(Said(name, f": {text!r} is beyond the magnitude any level can mean (|x| ≤ {MAX_EXPONENT} in e^x)"))
        return sympy.exp(_to_sympy(exponent))
    return _to_sympy(_rational(stripped, name))


def parse_exact(value: object, name: str | Input, domain: Domain | None = None) -> sympy.Expr:
    """Read one exact number from user text (or a TOML integer or decimal).

    Parameters
    ----------
    value
        A string following the grammar of this module, an ``int`` or a
        ``decimal.Decimal`` (TOML values read with ``parse_float=Decimal``).
    name
        The parameter's name, used in every error message (``--level``,
        ``require[2].threshold``), or the :class:`~verifier.named_inputs.Input` it is (each front end then
        names it in its own terms).
    domain
        Where the value must lie; ``None`` accepts any finite number.

    Returns
    -------
    sympy.Expr
        A ``Rational``, ``log(Rational)``, ``exp(Rational)`` or ``oo``.

    Raises
    ------
    LiteralError
        Naming the parameter, what was expected and what was found.

    Examples
    --------
    >>> parse_exact("0.15", "t")
    3/20
    >>> parse_exact("ln(9/4)", "delta")
    log(9/4)
    >>> parse_exact("e^(1/2)", "t", Domain(lower=Fraction(1)))
    exp(1/2)
    >>> parse_exact("__import__('os')", "--level")
    Traceback (most recent call last):
    ...
    verifier.literal.LiteralError: --level: expected a number such as 2, 0.15, 3/2, ln(2), e^0.5 or inf, found "__import__('os')"
    """
    if isinstance(value, bool):
        raise LiteralError(Said(name, f": expected a number, found the boolean {str(value).lower()}"))
    if isinstance(value, int):
        if len(str(abs(value))) > MAX_DIGITS:
            raise LiteralError(Said(name, f": {value} is beyond the magnitude any level can mean (at most {MAX_DIGITS} digits)"))
        number: sympy.Expr = sympy.Integer(value)
    elif isinstance(value, (str, Decimal)):
        text = str(value)
        if text.strip().lower() in ("nan", "-nan", "snan", "-inf", "-∞", "-infinity"):
            raise LiteralError(Said(name, f": expected a number, found {text!r}"))
        number = _parse(text, name)
    elif isinstance(value, float):
        raise LiteralError(Said(name, f": expected an exact number (write it as text, e.g. \"0.1\"), found the float {value!r}"))
    else:
        raise LiteralError(Said(name, f": expected a number, found {type(value).__name__} {value!r}"))
    if domain is not None and not domain.contains(number):
        raise LiteralError(Said(name, f": expected {domain.describe()}, found {value}"))
    return number
