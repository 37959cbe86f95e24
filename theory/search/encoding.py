"""The Z3 side of the counterexample search: sympy→Z3 translation and level constraints.

Every level of :mod:`theory.tables.levels` is the maximum of finitely many ratios ``x / y`` of
non-negative linear forms in the table's probabilities (with ``0/0`` ignored and
``x/0 = oo``). So "the level is at most L" is the conjunction of ``x <= L*y`` and "the level
exceeds L" is the disjunction of ``x > L*y``, over the pairs :func:`ratio_pairs` lists.
The pairs here enumerate every subset and every record pair explicitly (the definitions
as written), independently of the sorting shortcut :mod:`theory.tables.levels` uses.

References
----------
Ekenstedt et al. 2022, Definitions 4-8; Domingo-Ferrer & Soria-Comas 2015, Definitions 3-4.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import combinations

import sympy
import z3

from theory.definitions import class_sized

__all__ = [
    "EncodingError",
    "CLASS_DEFINITIONS",
    "to_z3",
    "relation_to_z3",
    "ratio_pairs",
    "partitions",
    "fraction_of",
]

CLASS_DEFINITIONS = class_sized()
"""Definitions measured over the equivalence classes of the table (Ekenstedt et al. 2022, Def. 4, Domingo-Ferrer & Soria-Comas 2015, Def. 3)."""

_SUPPORTED = CLASS_DEFINITIONS | {"kt_closeness", "ldp", "dp", "k_eps_dp"}


class EncodingError(ValueError):
    """A definition or an expression the Z3 encoding does not support; the message says which."""


def to_z3(expr: sympy.Basic, env: Mapping[sympy.Symbol, z3.ArithRef]) -> z3.ArithRef:
    """Translate a sympy expression built from +, *, integer powers, Max, Min, rationals and ``env``'s symbols.

    Raises
    ------
    EncodingError
        For anything else (``exp``, ``log``, non-integer powers, unknown symbols): the
        search works in ratio space (``T = e^ε``) precisely so that none is needed.
    """
    if isinstance(expr, sympy.Symbol):
        if expr not in env:
            raise EncodingError(f"symbol {expr} has no value: expected one of {sorted(map(str, env))}")
        return env[expr]
    if isinstance(expr, sympy.Rational):
        return z3.RealVal(f"{expr.p}/{expr.q}")
    if isinstance(expr, sympy.Add):
        terms = [to_z3(a, env) for a in expr.args]
        return z3.Sum(terms)
    if isinstance(expr, sympy.Mul):
        factors = [to_z3(a, env) for a in expr.args]
        return z3.Product(factors)
    if isinstance(expr, sympy.Max | sympy.Min):
        args = [to_z3(a, env) for a in expr.args]
        pick = (lambda x, y: x >= y) if isinstance(expr, sympy.Max) else (lambda x, y: x <= y)
        result = args[0]
        for arg in args[1:]:
            result = z3.If(pick(result, arg), result, arg)
        return result
    if isinstance(expr, sympy.Pow) and isinstance(expr.exp, sympy.Integer):
        base = to_z3(expr.base, env)
        power = int(expr.exp)
        product = z3.Product([base] * abs(power)) if power else z3.RealVal(1)
        return product if power >= 0 else 1 / product
    raise EncodingError(
        f"cannot translate {expr} ({type(expr).__name__}) to Z3: expected +, *, integer powers, Max, Min, "
        "rationals and the level symbol (exp/log must cancel in ratio space T = e^eps)"
    )


def relation_to_z3(relation: sympy.Basic, env: Mapping[sympy.Symbol, z3.ArithRef]) -> z3.BoolRef:
    """Translate ``<, <=, >, >=, =`` between translatable expressions (:func:`to_z3`)."""
    ops = {
        sympy.StrictLessThan: lambda a, b: a < b,
        sympy.LessThan: lambda a, b: a <= b,
        sympy.StrictGreaterThan: lambda a, b: a > b,
        sympy.GreaterThan: lambda a, b: a >= b,
        sympy.Equality: lambda a, b: a == b,
    }
    for kind, op in ops.items():
        if isinstance(relation, kind):
            return op(to_z3(relation.lhs, env), to_z3(relation.rhs, env))
    raise EncodingError(f"cannot translate condition {relation} to Z3: expected <, <=, >, >= or =")


def _sum(terms: Sequence[z3.ArithRef]) -> z3.ArithRef:
    return z3.Sum(list(terms)) if terms else z3.RealVal(0)


def ratio_pairs(
    definition_id: str,
    size: int | None,
    probs: Sequence[Sequence[z3.ArithRef]],
    classes: Sequence[Sequence[int]],
    *,
    monotone: bool = False,
) -> list[tuple[z3.ArithRef, z3.ArithRef]]:
    """The pairs (x, y) whose largest ratio x / y is the definition's optimal level.

    ``probs[i][l]`` stands for ``Pr(Z(c_i) ∈ B_l)``; every average is cleared of its
    denominators (``Pr_D / Pr_K = (S/N) / (s_K/k)`` becomes the pair ``(k S, N s_K)``).
    ``monotone=True`` asserts that every column is monotone in the record index (two
    buckets with rows sorted by the first): then only the first and last ``size`` records
    (and the first and last record for LDP) can attain a ratio, and only they are listed.

    Raises
    ------
    EncodingError
        For ``k_anonymity`` and ``t_closeness`` (not ratio levels) or a missing size.
    """
    if definition_id not in _SUPPORTED:
        raise EncodingError(
            f"definition {definition_id!r} has no ratio encoding; expected one of {sorted(_SUPPORTED)}"
        )
    n = len(probs)
    pairs: list[tuple[z3.ArithRef, z3.ArithRef]] = []
    for l in range(len(probs[0])):
        column = [row[l] for row in probs]
        total = _sum(column)
        pairs.extend(_bucket_pairs(definition_id, size, column, total, n, classes, monotone))
    return pairs


def _bucket_pairs(
    definition_id: str,
    size: int | None,
    column: list[z3.ArithRef],
    total: z3.ArithRef,
    n: int,
    classes: Sequence[Sequence[int]],
    monotone: bool,
) -> Iterator[tuple[z3.ArithRef, z3.ArithRef]]:
    if definition_id == "ldp":  # Def. 6: Pr(Z(c_i)) <= e^eps Pr(Z(c_j))
        records = [0, n - 1] if monotone else range(n)
        yield from ((column[i], column[j]) for i in records for j in records if i != j)
        return
    if definition_id in CLASS_DEFINITIONS:  # Def. 4: Pr_D vs Pr_E over the classes
        for group in classes:
            inside = _sum([column[i] for i in group])
            yield len(group) * total, n * inside
            yield n * inside, len(group) * total
        return
    if definition_id == "dp":
        definition_id, size = "k_eps_dp", 1
    if size is None or not 1 <= size <= n - 1:
        raise EncodingError(f"{definition_id}: expected a subset size k in [1, N-1] = [1, {n - 1}], found {size!r}")
    subsets = [range(size), range(n - size, n)] if monotone else combinations(range(n), size)
    for subset in subsets:
        chosen = _sum([column[i] for i in subset])
        if definition_id == "kt_closeness":  # Def. 7: Pr_D vs Pr_K
            yield size * total, n * chosen
            yield n * chosen, size * total
        else:  # Def. 8: Pr_D vs Pr_{D-K}
            rest = total - chosen
            yield (n - size) * total, n * rest
            yield n * rest, (n - size) * total


def partitions(n: int, smallest: int | None, *, at_least_two: bool) -> list[tuple[tuple[int, ...], ...]]:
    """Class partitions of ``range(n)`` up to relabelling: consecutive blocks, sizes non-decreasing.

    Records are exchangeable, so a partition matters only through its multiset of class
    sizes. ``smallest`` fixes the smallest class size (k of Ekenstedt et al. 2022, Def. 4: ``min |E_i| = k``);
    ``None`` allows any. ``at_least_two`` excludes the single class (Def. 4: ``E_m ⊊ [1:N]``).

    >>> partitions(4, 2, at_least_two=True)
    [((0, 1), (2, 3))]
    """

    def sizes(remaining: int, low: int) -> Iterator[list[int]]:
        if remaining == 0:
            yield []
        for first in range(low, remaining + 1):
            for rest in sizes(remaining - first, first):
                yield [first, *rest]

    result = []
    for parts in sizes(n, smallest or 1):
        if (smallest is not None and parts[0] != smallest) or (at_least_two and len(parts) < 2):
            continue
        starts = [sum(parts[:m]) for m in range(len(parts))]
        result.append(tuple(tuple(range(s, s + size)) for s, size in zip(starts, parts)))
    return result


def fraction_of(value: z3.ExprRef) -> Fraction:
    """A rational Z3 model value as a Fraction (callers fix algebraic values before asking)."""
    if not z3.is_rational_value(value):
        raise EncodingError(f"expected a rational model value, found {value}")
    return Fraction(value.numerator_as_long(), value.denominator_as_long())
