"""Exact comparison of levels and thresholds written as rationals, ``ln(q)`` or ``e^x``.

Randomized levels are ratios ``r`` (t) or their logarithms ``ε = ln(r)``; thresholds are
read by :mod:`verifier.literal` as a rational, ``ln(q)`` or ``e^x`` (``x``, ``q``
rational). Two numbers of the same form compare through their rational parts, since
``ln`` and ``exp`` are increasing: ``ln(r) ≤ ln(q)`` iff ``r ≤ q`` (e^ε levels compared as
rationals, never as floats). Mixed forms (``ln(r)`` against a rational ε) are decided by
outward-rounded interval arithmetic at increasing precision: a rational never equals
``ln(q)`` or ``e^x`` unless ``q = 1`` or ``x = 0``, which sympy already writes as ``0`` and
``1`` (Lindemann–Weierstrass), so the refinement ends. Only a comparison the refinement
cannot settle within ``MAX_BITS`` (``ln(q)`` against ``e^x``, where equality is not
excluded by any known theorem) raises :class:`ArithmeticError`.
"""

from __future__ import annotations

from fractions import Fraction

import sympy
from mpmath import iv

__all__ = ["at_most", "MAX_BITS"]

MAX_BITS = 8192
"""The largest working precision tried before a comparison is declared undecidable."""


def _form(value: sympy.Expr) -> tuple[str, Fraction | sympy.Expr]:
    if value.is_Rational:
        return "rational", Fraction(int(value.p), int(value.q))
    if value == sympy.E:
        return "exp", Fraction(1)
    if isinstance(value, (sympy.log, sympy.exp)) and value.args[0].is_Rational:
        argument = value.args[0]
        return type(value).__name__, Fraction(int(argument.p), int(argument.q))
    return "other", value


def _enclose(form: tuple[str, Fraction | sympy.Expr]) -> iv.mpf:
    kind, argument = form
    if kind == "other":
        raise ArithmeticError(f"cannot compare {argument} exactly: expected a rational, ln(q) or e^x")
    assert isinstance(argument, Fraction)
    number = iv.mpf(argument.numerator) / iv.mpf(argument.denominator)
    if kind == "log":
        return iv.log(number)
    return iv.exp(number) if kind == "exp" else number


def at_most(value: sympy.Expr, bound: sympy.Expr) -> bool:
    """Decide ``value ≤ bound`` exactly (``sympy.oo`` allowed on either side).

    Raises
    ------
    ArithmeticError
        A form outside rational / ``ln(q)`` / ``e^x``, or two numbers the interval
        refinement cannot separate within :data:`MAX_BITS` bits.

    Examples
    --------
    >>> at_most(sympy.log(5), sympy.log(sympy.Rational(11, 2)))
    True
    >>> at_most(sympy.log(3), sympy.Integer(1)), at_most(sympy.log(2), sympy.Integer(1))
    (False, True)
    """
    if bound == sympy.oo:
        return True
    if value == sympy.oo:
        return False
    left, right = _form(value), _form(bound)
    if left[0] == right[0] != "other":
        return left[1] <= right[1]
    previous, bits = iv.prec, 64
    try:
        while bits <= MAX_BITS:
            iv.prec = bits
            a, b = _enclose(left), _enclose(right)
            if a.b <= b.a:
                return True
            if a.a > b.b:
                return False
            bits *= 4
    finally:
        iv.prec = previous
    raise ArithmeticError(f"cannot decide {value} ≤ {bound} within {MAX_BITS} bits")
