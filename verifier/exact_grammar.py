"""The exact levels privcert writes, read back: one grammar, parsed here, never evaluated as code.

:func:`verifier.display.exact_text` writes every measured level as text (a report's
``exact``, a certificate's levels). The text is sympy's printed form with ``ln``, ``e^`` and
``^``; this module reads it back to the same sympy value, by this grammar only:

.. code-block:: text

    level    := "inf" | "-inf" | sum
    sum      := product (("+" | "-") product)*
    product  := unary (("*" | "/") unary)*
    unary    := "-" unary | power
    power    := atom ("^" unary)?
    atom     := integer | "e" | name "(" sum ")" | "(" sum ")"
    name     := "ln" | "sqrt" | "exp"

so ``3``, ``3/8``, ``ln(9/4)``, ``e^(1/2)``, ``2*sqrt(2)``, ``3*2^(1/3)/2`` and the long exact
bounds of additive-noise levels (rationals of hundreds of digits) are levels. Sizes are bounded so
that no text asks for an unbounded computation: at most :data:`MAX_LENGTH` characters (or, for a
product of roots, :func:`product_limit` of its largest root: see below) and
:data:`MAX_INTEGER_DIGITS` digits per integer; an exponent of a base other than e is a rational of
size at most :data:`MAX_EXPONENT` whose denominator is at most :data:`MAX_ROOT` (``e^x`` and ``exp(x)``
at most :data:`verifier.literal.MAX_EXPONENT` in size). The entropy l-diversity of a class of n records
is a product of powers with denominators up to n (``65*2^(6/65)/64`` for 64 records of one value and one
of another), so the root's degree is bounded by the largest class, not by a small constant; the power's
integer part is bounded by the size.

Such a product is as long as the class has prime factors among its counts: a class of 10^6 records
whose counts are the first 546 primes writes 13,474 characters. So a *product of roots* — integers
joined by ``*`` and ``/``, each raised at most to a positive rational power below 1,
``n*p^(a/b)*…/m`` — may be longer than :data:`MAX_LENGTH`, and its integers longer than
:data:`MAX_INTEGER_DIGITS` (the bases taken out of the roots, multiplied): up to :func:`product_limit`
of its largest root's degree b, which divides the class the level is measured on. Reading one costs a
root per factor (no power is computed), so its cost grows with its length, as the class does.
"""

from __future__ import annotations

import re
from math import isqrt

import sympy

from verifier.literal import MAX_EXPONENT as MAX_E_EXPONENT

__all__ = ["GrammarError", "read_exact", "product_limit", "MAX_LENGTH", "MAX_INTEGER_DIGITS", "MAX_EXPONENT",
           "MAX_ROOT"]

MAX_LENGTH = 4000
"""Longest level text read (the additive-noise bounds are a few hundred characters)."""
MAX_INTEGER_DIGITS = 1000
"""Most digits of one integer."""
MAX_EXPONENT = 64
"""Largest size of an exponent of a base other than e."""
MAX_ROOT = 10 ** 15
"""Largest denominator of such an exponent (the degree of a root: a class of up to 10^15 records)."""

_PRODUCT = re.compile(r"\d+(?:\^\(\d+/\d+\))?(?:[*/]\d+(?:\^\(\d+/\d+\))?)*")
"""A product of roots (see the module docstring): integers joined by ``*`` and ``/``, each at most raised to a
rational power."""
_ROOT = re.compile(r"\^\((\d+)/(\d+)\)")


def product_limit(root: int) -> int:
    """The longest product of roots read whose largest root's degree is ``root`` (at least :data:`MAX_LENGTH`).

    The entropy l-diversity of a class of n records has a factor per prime dividing n or one of its counts:
    at most 15 per distinct count (no integer below 10^18 has more distinct primes) and at most √(2n)
    distinct counts (they sum to n), each factor ``p^(a/b)*`` at most 3·d + 8 characters (d the digits of
    n: p ≤ n and a < b, b dividing n), and the integers outside the roots at most :data:`MAX_INTEGER_DIGITS`
    digits twice.

    Examples
    --------
    >>> product_limit(1), product_limit(10**5), product_limit(10**6)
    (4000, 177110, 617960)
    """
    digits = len(str(root))
    return max(MAX_LENGTH, 15 * (isqrt(2 * root) + 2) * (3 * digits + 8) + 2 * MAX_INTEGER_DIGITS)


def _product_of_roots(text: str) -> int | None:
    """The :func:`product_limit` of ``text`` when it is a product of roots (every exponent a positive rational
    below 1, every root's degree at most :data:`MAX_ROOT`), else ``None``."""
    if _PRODUCT.fullmatch(text) is None:
        return None
    roots = [(a, b) for a, b in _ROOT.findall(text)]
    if not roots or any(len(b) > len(str(MAX_ROOT)) for _, b in roots):
        return None
    degrees = [(int(a), int(b)) for a, b in roots]
    if any(not 0 < a < b or b > MAX_ROOT for a, b in degrees):
        return None
    return product_limit(max(b for _, b in degrees))


def _integer(digits: str) -> int:
    """An integer of any number of digits (Python converts at most 4,300 at once)."""
    value = 0
    for start in range(0, len(digits), 4000):
        chunk = digits[start:start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


_TOKEN = re.compile(r"\s*(?:(?P<int>\d+)|(?P<name>ln|sqrt|exp|e)(?![A-Za-z_])|(?P<op>[-+*/^()]))")


class GrammarError(ValueError):
    """A level text outside the grammar (or beyond its size bounds); the message names where it was read."""


def _tokens(text: str, where: str, digits: int = MAX_INTEGER_DIGITS) -> list[tuple[str, str]]:
    found, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            if text[position:].strip() == "":
                break
            raise GrammarError(f"{where}: unexpected {text[position:position + 12]!r} at character {position + 1} "
                               f"of {text[:60]!r}")
        kind = match.lastgroup
        assert kind is not None
        value = match[kind]
        if kind == "int" and len(value) > digits:
            raise GrammarError(f"{where}: an integer of more than {digits} digits")
        found.append((kind, value))
        position = match.end()
    return found


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], where: str) -> None:
        self.tokens, self.at, self.where = tokens, 0, where

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, value: str) -> bool:
        if self.peek() in (("op", value), ("name", value)):
            self.at += 1
            return True
        return False

    def fail(self, expected: str) -> GrammarError:
        found = "the end" if self.peek() is None else repr(self.peek()[1])  # type: ignore[index]
        return GrammarError(f"{self.where}: expected {expected}, found {found}")

    def sum(self) -> sympy.Expr:
        value = self.product()
        while True:
            if self.take("+"):
                value = value + self.product()
            elif self.take("-"):
                value = value - self.product()
            else:
                return value

    def product(self) -> sympy.Expr:
        factors, divisors = [self.unary()], []
        while True:
            if self.take("*"):
                factors.append(self.unary())
            elif self.take("/"):
                divisor = self.unary()
                if divisor == 0:
                    raise GrammarError(f"{self.where}: division by zero")
                divisors.append(divisor)
            else:  # one product of all the factors: multiplying them one by one costs the square of their number
                value = sympy.Mul(*factors)
                return value / sympy.Mul(*divisors) if divisors else value

    def unary(self) -> sympy.Expr:
        return -self.unary() if self.take("-") else self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        if not self.take("^"):
            return base
        exponent = self.unary()
        if base == sympy.E:
            return sympy.exp(_bounded_exponent(exponent, self.where))
        if not (exponent.is_Rational and abs(exponent) <= MAX_EXPONENT and exponent.q <= MAX_ROOT):
            raise GrammarError(f"{self.where}: an exponent is a rational of size at most {MAX_EXPONENT} with a "
                               f"denominator at most {MAX_ROOT}, found {exponent}")
        if base == 0 and exponent < 0:
            raise GrammarError(f"{self.where}: division by zero")
        return base ** exponent

    def atom(self) -> sympy.Expr:
        token = self.peek()
        if token is None:
            raise self.fail("a number")
        kind, value = token
        self.at += 1
        if kind == "int":
            return sympy.Integer(_integer(value))
        if kind == "name" and value == "e":
            return sympy.E
        if kind == "name" and value in ("ln", "sqrt", "exp"):
            if not self.take("("):
                raise self.fail(f"'(' after {value}")
            argument = self.sum()
            if not self.take(")"):
                raise self.fail("')'")
            if value == "ln":
                if not (argument.is_positive and argument.is_finite):
                    raise GrammarError(f"{self.where}: ln of a number that is not positive: {argument}")
                return sympy.log(argument)
            if value == "exp":
                return sympy.exp(_bounded_exponent(argument, self.where))
            return sympy.sqrt(argument)
        if (kind, value) == ("op", "("):
            inside = self.sum()
            if not self.take(")"):
                raise self.fail("')'")
            return inside
        self.at -= 1
        raise self.fail("a number, e, ln(...), sqrt(...), exp(...) or '('")


def _bounded_exponent(exponent: sympy.Expr, where: str) -> sympy.Expr:
    bound = sympy.Integer(MAX_E_EXPONENT)
    if not (exponent.is_real and exponent.is_finite) or sympy.Abs(exponent) > bound:
        raise GrammarError(f"{where}: an exponent of e is a real number of size at most {bound}, found {exponent}")
    return exponent


def read_exact(text: object, where: str) -> sympy.Expr:
    """The level ``text`` (as :func:`verifier.display.exact_text` writes it) as an exact sympy value.

    Raises
    ------
    GrammarError
        Naming ``where``: the text is not a string of the grammar, or exceeds its bounds.

    Examples
    --------
    >>> read_exact("2*sqrt(2)", "l")
    2*sqrt(2)
    >>> read_exact("3*2^(1/3)/2", "l")
    3*2**(1/3)/2
    >>> read_exact("ln(9/4)", "epsilon"), read_exact("inf", "t")
    (log(9/4), oo)
    >>> read_exact("__import__('os')", "x")
    Traceback (most recent call last):
    ...
    verifier.exact_grammar.GrammarError: x: unexpected "__import__('" at character 1 of "__import__('os')"
    """
    if not isinstance(text, str) or not text.strip():
        raise GrammarError(f"{where}: expected an exact level (3, 3/8, ln(9/4), 2*sqrt(2), inf), found {text!r}")
    stripped = text.strip()
    limit = _product_of_roots(stripped) if len(text) > MAX_INTEGER_DIGITS else None
    if len(text) > (limit or MAX_LENGTH):
        raise GrammarError(f"{where}: a level of more than {limit or MAX_LENGTH} characters "
                           f"({'the limit of a product of roots whose largest root it has' if limit else 'not a product of roots'}"
                           ", verifier.exact_grammar.product_limit)")
    if stripped in ("inf", "∞"):
        return sympy.oo
    if stripped == "-inf":
        return -sympy.oo
    parser = _Parser(_tokens(stripped, where, MAX_INTEGER_DIGITS if limit is None else limit), where)
    value = parser.sum()
    if parser.peek() is not None:
        raise parser.fail("the end of the level")
    if not (value.is_real and value.is_finite):
        raise GrammarError(f"{where}: a level is a finite real number or inf, found {value}")
    return value

