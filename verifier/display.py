"""One way to write exact numbers and formulas for people, shared by every command.

Exact values are sympy expressions (``Rational``, ``log``, ``exp``, ``oo``). Two
spellings exist: :func:`exact_text` is the stable, parseable form stored in JSON and
certificates (``3/8``, ``ln(9/4)``, ``e^(1/2)``, ``inf``; it reads back with
:func:`verifier.literal.parse_exact` where the grammar allows), and :func:`readable`
is for a terminal or a page (``3/8 ≈ 0.375``, ``∞``, ``√2``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

import sympy

from verifier.escape import safe

if TYPE_CHECKING:
    from verifier.results import Measurement

__all__ = ["attribute_label", "exact_text", "readable", "approximate", "formula", "condition", "symbol_level", "measurement_level",
           "measurement_model", "measurement_witness"]

_POWER_OF_E = re.compile(r"exp\(")
_SIMPLE_POWER_OF_E = re.compile(r"exp\(([A-Za-z_]\w*|\d+)\)")


def attribute_label(attribute: str | tuple[str, ...] | None) -> str:
    """How an attribute is named in text: ``salary``, ``salary+disease``, ``-`` for none."""
    if attribute is None:
        return "-"
    return attribute if isinstance(attribute, str) else "+".join(attribute)


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
    text = _SIMPLE_POWER_OF_E.sub(r"e^\1", text)
    text = _POWER_OF_E.sub("e^(", text)
    text = re.sub(r"\bE\b", "e", text)
    return text.replace("log(", "ln(").replace("**", "^")


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
    exact = exact_text(value).replace("sqrt(", "√(").replace("*", "·")
    if value.is_Integer:
        return exact
    decimal = approximate(value, digits)
    return exact if exact == decimal else f"{exact} ≈ {decimal}"


_GREEK = {"epsilon": "ε", "delta": "δ", "beta": "β", "alpha": "α", "mu": "μ", "sigma": "σ"}
_RELATIONS = {"==": "=", "<=": "≤", ">=": "≥", "!=": "≠"}


def formula(value: sympy.Basic) -> str:
    """A formula for a reader: Greek letters, ``ln``, ``e^x``, ``∞``, ``·`` for products.

    Examples
    --------
    >>> epsilon, t = sympy.symbols("epsilon t", positive=True)
    >>> formula(2 * epsilon), formula(sympy.log(t**2)), formula(sympy.exp(epsilon) + sympy.oo)
    ('2·ε', 'ln(t^2)', '∞')
    >>> formula(sympy.floor(t / epsilon))
    'floor(t/ε)'

    """
    if value == sympy.oo:
        return "∞"
    if isinstance(value, sympy.Interval):
        return (f"{'(' if value.left_open else '['}{formula(value.inf)}, "
                f"{formula(value.sup)}{')' if value.right_open or value.sup == sympy.oo else ']'}")
    text = exact_text(value) if isinstance(value, sympy.Expr) else sympy.sstr(value)
    for name, letter in _GREEK.items():
        text = re.sub(rf"\b{name}(_?\d*)\b", lambda m, g=letter: g + m.group(1).replace("_", ""), text)
    text = re.sub(r"\boo\b", "∞", text).replace("*", "·")
    for relation, symbol in _RELATIONS.items():
        text = text.replace(f" {relation} ", f" {symbol} ")
    return text


def condition(value: sympy.Basic) -> str:
    """A condition in words: solved for its one unknown when it has one (``Eq(N - 1, 1)`` → ``N = 2``).

    Examples
    --------
    >>> N = sympy.Symbol("N", positive=True, integer=True)
    >>> condition(sympy.Eq(N - 1, 1)), condition(sympy.Le(1, N - 1)), condition(sympy.Ge(N, 1))
    ('N = 2', 'N ≥ 2', 'always')
    >>> condition(sympy.And(sympy.Le(2, N), sympy.Eq(N - 1, 1)))
    'N = 2'
    """
    if value in (sympy.true, True):
        return "always"
    if value in (sympy.false, False):
        return "never"
    parts = value.args if isinstance(value, sympy.And) else (value,)
    free = sorted(value.free_symbols, key=str)
    if len(free) == 1 and all(isinstance(part, sympy.core.relational.Relational) for part in parts):
        symbol = free[0]
        domain = sympy.Integers if symbol.is_integer else sympy.Reals
        assumed = sympy.Interval(1, sympy.oo) if symbol.is_positive else sympy.Reals
        solved = assumed
        for part in parts:
            solved = solved.intersect(sympy.solveset(part, symbol, domain=domain))
        name = formula(symbol)
        if solved.is_empty:
            return "never"
        if isinstance(solved, sympy.FiniteSet) and len(solved) == 1:
            return f"{name} = {formula(next(iter(solved)))}"
        low, high = solved.inf, solved.sup
        if high == sympy.oo:
            return "always" if low <= assumed.inf else f"{name} ≥ {formula(sympy.ceiling(low) if symbol.is_integer else low)}"
        if low <= assumed.inf:
            return f"{name} ≤ {formula(high)}"
        return f"{formula(low)} ≤ {name} ≤ {formula(high)}"
    return formula(value)


def symbol_level(symbol: str, value: sympy.Expr | None) -> str:
    """A level with its symbol: ``t = 3/2 ≈ 1.5``, ``ε = ln(2) ≈ 0.6931 (e^ε = 2)``.

    >>> symbol_level("ε", sympy.log(2))
    'ε = ln(2) ≈ 0.6931 (e^ε = 2)'
    """
    text = f"{symbol} = {readable(value)}"
    if symbol == "ε" and value is not None and value.is_finite:
        text += f" (e^ε = {readable(sympy.simplify(sympy.exp(value)))})"
    return text


def measurement_level(measurement: Measurement) -> str:
    """The exact level, and its decimal value when the exact form is not plain (``3/8 ≈ 0.375``)."""
    lower, upper = measurement.lower, measurement.level
    if measurement.estimate is not None and lower is not None:
        return f"≈ {measurement.estimate.value:.10g} (estimate ± {measurement.estimate.tolerance})"
    if lower is not None:
        if not (lower.is_finite and upper.is_finite):
            return f"between {measurement_level(replace(measurement, lower=None, level=lower))} and " \
                   f"{measurement_level(replace(measurement, lower=None))} (not exact)"
        low, high = lower.number, upper.number
        assert low is not None and high is not None  # both finite
        return interval_text(low, high)
    if not upper.is_finite:
        return "∞" if upper.value is not None else "undefined"
    return readable(upper.value)


def interval_text(low: float | str, high: float | str, where: str | None = "with --json") -> str:
    """A level known only between two exact bounds, by their decimals: a float to 12 significant digits, text
    (a page's rounded decimal) as written; ``≈`` one decimal when both read alike. ``where`` says where the
    exact bounds are (``None``: beside it, as on a page).

    >>> interval_text(1.5, 1.5), interval_text(1.5, 2.0, "in the certificate"), interval_text("1", "4.9", None)
    ('≈ 1.5 (not exact; exact bounds with --json)', 'between 1.5 and 2 (not exact; exact bounds in the certificate)', \
'between 1 and 4.9 (not exact)')
    """
    low_text, high_text = (value if isinstance(value, str) else f"{value:.12g}" for value in (low, high))
    shown = f"≈ {low_text}" if low_text == high_text else f"between {low_text} and {high_text}"
    return f"{shown} (not exact{'' if where is None else f'; exact bounds {where}'})"


def measurement_model(measurement: Measurement) -> str:
    """The model id, with the distance or the l it was measured with."""
    parameters = measurement.parameters
    detail = measurement.distance or ", ".join(f"{name}={parameters[name]}" for name in ("l", "k", "estimator",
                                                                                         "sampling_fraction")
                                               if name in parameters) or None
    return measurement.model + (f" ({detail})" if detail else "")


def measurement_witness(measurement: Measurement) -> str:
    """The witness in words: ``age=17, education=10th; 12 records; value '>50K'`` (or why there is none)."""
    witness = measurement.witness
    if witness is None:
        return safe(measurement.level.reason or "")
    parts = []
    if witness.qi:
        parts.append(", ".join(f"{safe(k)}={'(missing)' if v is None else safe(v)}" for k, v in witness.qi.items()))
    if witness.size is not None:
        parts.append(f"{witness.size} record{'s' if witness.size != 1 else ''}")
    if witness.value is not None:
        value = witness.value
        shown = " + ".join(safe(v) for v in value) if isinstance(value, tuple) else safe(value)
        parts.append(f"value '{shown}'")
    if measurement.level.reason and not measurement.level.is_finite:
        parts.append(safe(measurement.level.reason))
    return "; ".join(parts)
