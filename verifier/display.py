"""One way to write exact numbers and formulas for people, shared by every command.

Exact values are sympy expressions (``Rational``, ``log``, ``exp``, ``oo``). Two
spellings exist: :func:`exact_text` is the stable, parseable form stored in JSON and
certificates (``3/8``, ``ln(9/4)``, ``e^(1/2)``, ``inf``; it reads back with
:func:`verifier.literal.parse_exact` where the grammar allows), and :func:`readable`
is for a terminal or a page (``3/8 ≈ 0.375``, ``∞``, ``√2``).
"""

from __future__ import annotations

import re

import sympy

__all__ = ["exact_text", "readable", "approximate"]

_POWER_OF_E = re.compile(r"exp\(")


def exact_text(value: sympy.Expr | None) -> str:
    """The exact form as stable text: ``3``, ``3/8``, ``ln(9/4)``, ``e^(1/2)``, ``inf``, ``undefined``.

    Examples
    --------
    >>> exact_text(sympy.log(sympy.Rational(9, 4)))
    'ln(9/4)'
    >>> exact_text(sympy.exp(sympy.Rational(1, 2)))
    'e^(1/2)'
    >>> exact_text(sympy.oo), exact_text(-sympy.oo), exact_text(None)
    ('inf', '-inf', 'undefined')
    """
    if value is None or value is sympy.nan:
        return "undefined"
    if value == sympy.oo:
        return "inf"
    if value == -sympy.oo:
        return "-inf"
    text = sympy.sstr(value, order="none")
    text = _POWER_OF_E.sub("e^(", text)
    return text.replace("log(", "ln(").replace("**", "^").replace("E^", "e^")


def approximate(value: sympy.Expr, digits: int = 4) -> str:
    """A decimal approximation with ``digits`` significant digits (``0.7136``, ``1.2e+06``)."""
    number = float(sympy.N(value, digits + 3))
    return f"{number:.{digits}g}"


def readable(value: sympy.Expr | None, digits: int = 4) -> str:
    """The value for a reader: the exact form, and a decimal beside it when they differ.

    Examples
    --------
    >>> readable(sympy.Rational(3, 8))
    '3/8 ≈ 0.375'
    >>> readable(sympy.Integer(3)), readable(sympy.oo), readable(None)
    ('3', '∞', 'undefined')
    >>> readable(sympy.log(2))
    'ln(2) ≈ 0.6931'
    """
    if value is None or value is sympy.nan:
        return "undefined"
    if value == sympy.oo:
        return "∞"
    if value == -sympy.oo:
        return "-∞"
    exact = exact_text(value).replace("sqrt(", "√(")
    if value.is_Integer:
        return exact
    decimal = approximate(value, digits)
    return exact if exact == decimal else f"{exact} ≈ {decimal}"
